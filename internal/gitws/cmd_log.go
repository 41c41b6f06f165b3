package gitws

import (
	"container/heap"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// commitQueue orders commits newest committer date first, as git's log.
type commitQueue []*object.Commit

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	return q[i].Committer.When.After(q[j].Committer.When)
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(*object.Commit)) }
func (q *commitQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// shallowSet returns the commits .git/shallow lists: the history of a
// shallow clone ends there (git shows them as having no parents).
func (r *Repo) shallowSet() (map[plumbing.Hash]bool, error) {
	hs, err := r.st.Shallow()
	if err != nil || len(hs) == 0 {
		return nil, err
	}
	set := make(map[plumbing.Hash]bool, len(hs))
	for _, h := range hs {
		set[h] = true
	}
	return set, nil
}

// parents returns a commit's parents as history has them: none for a
// commit where a shallow clone's history ends.
func (r *Repo) parents(cm *object.Commit) []plumbing.Hash {
	if len(cm.ParentHashes) > 0 {
		if sh, _ := r.shallowSet(); sh[cm.Hash] {
			return nil
		}
	}
	return cm.ParentHashes
}

// walk visits the commits reachable from heads and not from hidden, newest
// first, until fn returns false. A shallow clone's history ends at the
// commits .git/shallow lists.
func (r *Repo) walk(heads, hidden []plumbing.Hash, firstParent bool, fn func(*object.Commit) (bool, error)) error {
	shallow, err := r.shallowSet()
	if err != nil {
		return err
	}
	excl := map[plumbing.Hash]bool{}
	for _, h := range hidden {
		set, err := r.reachable(h, 0)
		if err != nil {
			return err
		}
		for k := range set {
			excl[k] = true
		}
	}
	seen := map[plumbing.Hash]bool{}
	q := &commitQueue{}
	for _, h := range heads {
		if seen[h] || excl[h] {
			continue
		}
		seen[h] = true
		cm, err := object.GetCommit(r.st, h)
		if err != nil {
			return err
		}
		heap.Push(q, cm)
	}
	for q.Len() > 0 {
		if err := r.env.Ctx.Err(); err != nil {
			return err
		}
		cm := heap.Pop(q).(*object.Commit)
		more, err := fn(cm)
		if err != nil || !more {
			return err
		}
		ps := cm.ParentHashes
		if shallow[cm.Hash] {
			ps = nil
		}
		if firstParent && len(ps) > 1 {
			ps = ps[:1]
		}
		for _, p := range ps {
			if seen[p] || excl[p] {
				continue
			}
			seen[p] = true
			pc, err := object.GetCommit(r.st, p)
			if err != nil {
				return err
			}
			heap.Push(q, pc)
		}
	}
	return nil
}

// touches reports whether a commit changes a path of ps against its first
// parent (a root commit: whether it has any).
func (r *Repo) touches(cm *object.Commit, ps pathspec) (bool, error) {
	nw, err := r.flatTree(cm.TreeHash)
	if err != nil {
		return false, err
	}
	parents := r.parents(cm)
	if len(parents) == 0 {
		for p := range nw {
			if ps.match(p) {
				return true, nil
			}
		}
		return false, nil
	}
	for _, ph := range parents {
		pc, err := object.GetCommit(r.st, ph)
		if err != nil {
			return false, err
		}
		old, err := r.flatTree(pc.TreeHash)
		if err != nil {
			return false, err
		}
		if len(diffFlat(old, nw, ps)) == 0 {
			return false, nil // TREESAME to a parent
		}
	}
	return true, nil
}

// gitDate formats a time as git's default date format.
func gitDate(t time.Time) string { return t.Format("Mon Jan 2 15:04:05 2006 -0700") }

func relDate(now, t time.Time) string {
	d := now.Sub(t)
	s := int64(d.Seconds())
	pl := func(n int64, u string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s ago", n, u)
		}
		return fmt.Sprintf("%d %ss ago", n, u)
	}
	switch {
	case s < 0:
		return "in the future"
	case s < 90:
		return pl(s, "second")
	case s < 90*60:
		return pl((s+30)/60, "minute")
	case s < 36*3600:
		return pl((s+1800)/3600, "hour")
	case s < 14*86400:
		return pl((s+43200)/86400, "day")
	case s < 70*86400:
		return pl((s+302400)/604800, "week")
	case s < 365*86400:
		return pl((s+1296000)/2592000, "month")
	}
	return pl((s+15768000)/31536000, "year")
}

// subjectBody splits a message into its subject (first paragraph joined)
// and body.
func subjectBody(msg string) (string, string) {
	msg = strings.TrimLeft(msg, "\n")
	subj, body, _ := strings.Cut(msg, "\n\n")
	subj = strings.Join(strings.Fields(strings.ReplaceAll(subj, "\n", " ")), " ")
	if body != "" {
		body = strings.TrimLeft(body, "\n")
	}
	return subj, body
}

// formatCommit expands a --format string.
func (c *cmd) formatCommit(r *Repo, cm *object.Commit, f string) string {
	var sb strings.Builder
	subj, body := subjectBody(cm.Message)
	date := func(t time.Time, kind byte) string {
		switch kind {
		case 'd':
			return gitDate(t)
		case 't':
			return strconv.FormatInt(t.Unix(), 10)
		case 'I':
			return t.Format("2006-01-02T15:04:05-07:00")
		case 'i':
			return t.Format("2006-01-02 15:04:05 -0700")
		case 'r':
			return relDate(c.env.now(), t)
		case 's':
			return t.Format("2006-01-02")
		case 'D':
			return t.Format("Mon, 2 Jan 2006 15:04:05 -0700")
		}
		return ""
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			sb.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case '%':
			sb.WriteByte('%')
		case 'n':
			sb.WriteByte('\n')
		case 'x': // %xNN: the byte NN (hex)
			if i+2 < len(f) {
				if b, err := strconv.ParseUint(f[i+1:i+3], 16, 8); err == nil {
					sb.WriteByte(byte(b))
					i += 2
					continue
				}
			}
			sb.WriteString("%x")
		case 'H':
			sb.WriteString(cm.Hash.String())
		case 'h':
			sb.WriteString(cm.Hash.String()[:7])
		case 'T':
			sb.WriteString(cm.TreeHash.String())
		case 't':
			sb.WriteString(cm.TreeHash.String()[:7])
		case 'P', 'p':
			var ps []string
			for _, p := range cm.ParentHashes {
				if f[i] == 'P' {
					ps = append(ps, p.String())
				} else {
					ps = append(ps, p.String()[:7])
				}
			}
			sb.WriteString(strings.Join(ps, " "))
		case 's':
			sb.WriteString(subj)
		case 'b':
			sb.WriteString(body)
		case 'B':
			sb.WriteString(cm.Message)
		case 'a', 'c':
			sig := cm.Author
			if f[i] == 'c' {
				sig = cm.Committer
			}
			if i+1 >= len(f) {
				sb.WriteByte('%')
				sb.WriteByte(f[i])
				continue
			}
			i++
			switch f[i] {
			case 'n':
				sb.WriteString(sig.Name)
			case 'e':
				sb.WriteString(sig.Email)
			case 'l':
				sb.WriteString(strings.SplitN(sig.Email, "@", 2)[0])
			case 'd', 't', 'I', 'i', 'r', 's', 'D':
				sb.WriteString(date(sig.When, f[i]))
			default:
				sb.WriteByte('%')
				sb.WriteByte(f[i-1])
				sb.WriteByte(f[i])
			}
		case 'd', 'D':
			sb.WriteString(c.decoration(r, cm.Hash, f[i] == 'd'))
		default:
			sb.WriteByte('%')
			sb.WriteByte(f[i])
		}
	}
	return sb.String()
}

// decoration is %d / %D: the refs pointing at h.
func (c *cmd) decoration(r *Repo, h plumbing.Hash, paren bool) string {
	target, hh, _ := r.head()
	refs, err := r.allRefs()
	if err != nil {
		return ""
	}
	var names []string
	headShown := false
	if hh == h {
		if target == "" {
			names = append(names, "HEAD")
			headShown = true
		}
	}
	for _, ref := range refs {
		if ref.Type() != plumbing.HashReference {
			continue
		}
		rh := ref.Hash()
		if p, err := r.peel(rh, plumbing.CommitObject); err == nil {
			rh = p
		}
		if rh != h {
			continue
		}
		n := ref.Name().String()
		switch {
		case strings.HasPrefix(n, "refs/heads/"):
			if n == target && hh == h && !headShown {
				names = append([]string{"HEAD -> " + shortBranch(n)}, names...)
				headShown = true
				continue
			}
			names = append(names, shortBranch(n))
		case strings.HasPrefix(n, "refs/tags/"):
			names = append(names, "tag: "+strings.TrimPrefix(n, "refs/tags/"))
		case strings.HasPrefix(n, "refs/remotes/"):
			names = append(names, strings.TrimPrefix(n, "refs/remotes/"))
		}
	}
	if len(names) == 0 {
		return ""
	}
	if paren {
		return " (" + strings.Join(names, ", ") + ")"
	}
	return strings.Join(names, ", ")
}

// logFormat is a parsed --pretty/--format.
type logFormat struct {
	builtin string // "medium", "oneline", "short", "full", "fuller", "raw"
	custom  string
	user    bool // a user format (custom, which may be empty: --format= prints no header at all)
	tformat bool // terminator semantics (a newline after each)
	abbrev  bool // --oneline, --abbrev-commit: short ids
}

// readLogFormat is the commit format log and show print: medium, or what
// --oneline, --pretty[=F] and --format=F ask for (F a builtin name,
// "format:...", "tformat:..." or a placeholder string; --format= and
// --pretty= are the empty format, which prints no header and no
// separator; a bare --pretty is medium). A --pretty name
// git does not know is fatal, as in git.
func (c *cmd) readLogFormat(o *opts) logFormat {
	lf := logFormat{builtin: "medium"}
	if o.has("oneline") {
		lf = logFormat{builtin: "oneline", abbrev: true}
	}
	if o.has("pretty") {
		v, ok := parseFormat(o.val("pretty"))
		if o.val("pretty") == "" && o.explicit["pretty"] {
			v = logFormat{user: true, tformat: true} // --pretty=: the empty format
		}
		if !ok {
			c.die("invalid --pretty format: %s", o.val("pretty"))
		}
		lf = v
	}
	if o.has("format") {
		v := o.val("format")
		switch pf, ok := parseFormat(v); {
		case v != "" && ok:
			lf = pf
		case strings.HasPrefix(v, "format:"):
			lf = logFormat{custom: strings.TrimPrefix(v, "format:"), user: true}
		default:
			lf = logFormat{custom: strings.TrimPrefix(v, "tformat:"), user: true, tformat: true}
		}
	}
	return lf
}

// empty reports whether lf is the empty user format (--format=).
func (lf logFormat) empty() bool { return lf.user && lf.custom == "" }

func parseFormat(s string) (logFormat, bool) {
	switch s {
	case "", "medium", "oneline", "short", "full", "fuller", "raw":
		if s == "" {
			s = "medium"
		}
		return logFormat{builtin: s}, true
	}
	if v, ok := strings.CutPrefix(s, "format:"); ok {
		return logFormat{custom: v, user: true}, true
	}
	if v, ok := strings.CutPrefix(s, "tformat:"); ok {
		return logFormat{custom: v, user: true, tformat: true}, true
	}
	if strings.Contains(s, "%") {
		return logFormat{custom: s, user: true, tformat: true}, true
	}
	return logFormat{}, false
}

// writeCommitHeader writes one commit in a builtin format.
func (c *cmd) writeCommit(w io.Writer, r *Repo, cm *object.Commit, lf logFormat, decorate bool) {
	if lf.user {
		fmt.Fprint(w, c.formatCommit(r, cm, lf.custom))
		return
	}
	dec := ""
	if decorate {
		dec = c.decoration(r, cm.Hash, true)
	}
	subj, _ := subjectBody(cm.Message)
	switch lf.builtin {
	case "oneline":
		h := cm.Hash.String()
		if lf.abbrev {
			h = h[:7]
		}
		fmt.Fprintf(w, "%s%s %s\n", h, dec, subj)
		return
	case "raw":
		fmt.Fprintf(w, "commit %s\ntree %s\n", cm.Hash, cm.TreeHash)
		for _, p := range cm.ParentHashes {
			fmt.Fprintf(w, "parent %s\n", p)
		}
		fmt.Fprintf(w, "author %s <%s> %d %s\ncommitter %s <%s> %d %s\n\n", cm.Author.Name, cm.Author.Email, cm.Author.When.Unix(), cm.Author.When.Format("-0700"), cm.Committer.Name, cm.Committer.Email, cm.Committer.When.Unix(), cm.Committer.When.Format("-0700"))
	default:
		fmt.Fprintf(w, "commit %s%s\n", cm.Hash, dec)
		if len(cm.ParentHashes) > 1 {
			var ps []string
			for _, p := range cm.ParentHashes {
				ps = append(ps, p.String()[:7])
			}
			fmt.Fprintf(w, "Merge: %s\n", strings.Join(ps, " "))
		}
		switch lf.builtin {
		case "short":
			fmt.Fprintf(w, "Author: %s <%s>\n\n", cm.Author.Name, cm.Author.Email)
			fmt.Fprintf(w, "    %s\n", subj)
			return
		case "full":
			fmt.Fprintf(w, "Author: %s <%s>\nCommit: %s <%s>\n\n", cm.Author.Name, cm.Author.Email, cm.Committer.Name, cm.Committer.Email)
		case "fuller":
			fmt.Fprintf(w, "Author:     %s <%s>\nAuthorDate: %s\nCommit:     %s <%s>\nCommitDate: %s\n\n", cm.Author.Name, cm.Author.Email, gitDate(cm.Author.When), cm.Committer.Name, cm.Committer.Email, gitDate(cm.Committer.When))
		default:
			fmt.Fprintf(w, "Author: %s <%s>\nDate:   %s\n\n", cm.Author.Name, cm.Author.Email, gitDate(cm.Author.When))
		}
	}
	msg := strings.TrimRight(cm.Message, "\n")
	for _, l := range strings.Split(msg, "\n") {
		// every line indented, an empty one too ("    "), as git does
		fmt.Fprintf(w, "    %s\n", l)
	}
}

func logSpec() spec {
	return spec{
		long:  append(diffSpec(), "oneline", "format=", "pretty?", "max-count=", "reverse", "all", "first-parent", "decorate?", "no-decorate", "graph", "author=", "grep=", "skip=", "since=", "until=", "no-merges", "merges", "follow", "abbrev-commit", "date=", "source"),
		short: map[byte]string{'n': "max-count", 'p': "patch", 'u': "patch", 'U': "unified", 's': "no-patch"},
	}
}

// maxCount is the -n/--max-count option, -1 when not given; one that is
// not an integer is fatal, as in git.
func (c *cmd) maxCount(o *opts) int {
	if !o.has("max-count") {
		return -1
	}
	n, err := strconv.Atoi(o.val("max-count"))
	if err != nil {
		c.die("'%s': not an integer", o.val("max-count"))
	}
	return n
}

func cmdLog(c *cmd, args []string) int {
	o := c.parse(args, logSpec())
	r := c.needRepo()
	lf := c.readLogFormat(o)
	limit := c.maxCount(o)
	skip := 0
	if o.has("skip") {
		skip, _ = strconv.Atoi(o.val("skip"))
	}
	d := readDiffOpts(o, false)
	revs, paths := c.splitRevsPaths(r, o)
	ps := c.newPathspec(paths)
	var heads, hidden []plumbing.Hash
	for _, rv := range revs {
		if a, b, ok := c.rangeParts(rv); ok {
			heads = append(heads, c.mustCommit(r, b))
			hidden = append(hidden, c.mustCommit(r, a))
			continue
		}
		if strings.HasPrefix(rv, "^") {
			hidden = append(hidden, c.mustCommit(r, rv[1:]))
			continue
		}
		heads = append(heads, c.mustCommit(r, rv))
	}
	if o.has("all") {
		refs, err := r.allRefs()
		if err != nil {
			c.dieErr(err)
		}
		for _, ref := range refs {
			if ref.Type() == plumbing.HashReference {
				if h, err := r.peel(ref.Hash(), plumbing.CommitObject); err == nil {
					heads = append(heads, h)
				}
			}
		}
	}
	if len(heads) == 0 && !o.has("all") {
		target, h, err := r.head()
		if err != nil {
			c.dieErr(err)
		}
		if h.IsZero() {
			c.die("your current branch '%s' does not have any commits yet", shortBranch(target))
		}
		heads = append(heads, h)
	}
	decorate := o.has("decorate") && o.val("decorate") != "no"
	var list []*object.Commit
	n := 0
	err := r.walk(heads, hidden, o.has("first-parent"), func(cm *object.Commit) (bool, error) {
		if limit >= 0 && n >= limit && !o.has("reverse") {
			return false, nil
		}
		if o.has("no-merges") && len(cm.ParentHashes) > 1 || o.has("merges") && len(cm.ParentHashes) < 2 {
			return true, nil
		}
		if o.has("author") && !strings.Contains(cm.Author.Name+" <"+cm.Author.Email+">", o.val("author")) {
			return true, nil
		}
		if o.has("grep") && !strings.Contains(cm.Message, o.val("grep")) {
			return true, nil
		}
		if !ps.empty() {
			t, err := r.touches(cm, ps)
			if err != nil || !t {
				return err == nil, err
			}
		}
		if skip > 0 {
			skip--
			return true, nil
		}
		n++
		list = append(list, cm)
		return true, nil
	})
	if err != nil {
		c.dieErr(err)
	}
	if o.has("reverse") {
		if limit >= 0 && len(list) > limit {
			list = list[:limit]
		}
		for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
			list[i], list[j] = list[j], list[i]
		}
	}
	showDiff := d.patch || d.stat || d.nameOnly || d.nameStatus || d.numstat || d.shortstat
	for i, cm := range list {
		if lf.user {
			c.writeCommit(c.out, r, cm, lf, decorate)
			if !lf.empty() && (lf.tformat || i < len(list)-1) {
				fmt.Fprintln(c.out)
			}
		} else {
			if i > 0 && lf.builtin != "oneline" {
				fmt.Fprintln(c.out)
			}
			c.writeCommit(c.out, r, cm, lf, decorate)
		}
		if showDiff {
			c.commitDiff(r, cm, d, ps, lf)
		}
	}
	return 0
}

// commitDiff writes the diff of a commit against its first parent (nothing
// for a merge, as log does by default).
func (c *cmd) commitDiff(r *Repo, cm *object.Commit, d diffOpts, ps pathspec, lf logFormat) {
	parents := r.parents(cm)
	if len(parents) > 1 || !(d.patch || d.stat || d.nameOnly || d.nameStatus || d.numstat || d.shortstat) {
		return
	}
	old := map[string]treeEntry{}
	if len(parents) == 1 {
		pc, err := object.GetCommit(r.st, parents[0])
		if err != nil {
			c.dieErr(err)
		}
		if old, err = r.flatTree(pc.TreeHash); err != nil {
			c.dieErr(err)
		}
	}
	nw, err := r.flatTree(cm.TreeHash)
	if err != nil {
		c.dieErr(err)
	}
	pairs := detectRenames(diffFlat(old, nw, ps))
	if len(pairs) == 0 {
		return
	}
	if lf.builtin != "oneline" && !lf.empty() {
		fmt.Fprintln(c.out)
	}
	d2 := d
	if d.stat && d.patch {
		d2.patch = false
		c.writeDiff(c.out, r, pairs, d2)
		fmt.Fprintln(c.out)
		d2 = d
		d2.stat = false
		c.writeDiff(c.out, r, pairs, d2)
		return
	}
	c.writeDiff(c.out, r, pairs, d)
}

func cmdShow(c *cmd, args []string) int {
	o := c.parse(args, logSpec())
	r := c.needRepo()
	lf := c.readLogFormat(o)
	d := readDiffOpts(o, true)
	revs := o.args
	if len(revs) == 0 {
		revs = []string{"HEAD"}
	}
	ps := c.newPathspec(o.paths)
	for i, rv := range revs {
		h, err := c.resolve(r, rv)
		if err != nil {
			c.badRevision(rv)
		}
		obj, err := r.st.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			c.dieErr(err)
		}
		switch obj.Type() {
		case plumbing.BlobObject:
			b, err := r.blob(h)
			if err != nil {
				c.dieErr(err)
			}
			_, _ = c.out.Write(b)
		case plumbing.TreeObject:
			t, err := object.GetTree(r.st, h)
			if err != nil {
				c.dieErr(err)
			}
			fmt.Fprintf(c.out, "tree %s\n\n", rv)
			for _, e := range t.Entries {
				n := e.Name
				if !e.Mode.IsFile() {
					n += "/"
				}
				fmt.Fprintln(c.out, n)
			}
		case plumbing.TagObject:
			tag, err := object.DecodeTag(r.st, obj)
			if err != nil {
				c.dieErr(err)
			}
			fmt.Fprintf(c.out, "tag %s\nTagger: %s <%s>\nDate:   %s\n\n%s\n", tag.Name, tag.Tagger.Name, tag.Tagger.Email, gitDate(tag.Tagger.When), strings.TrimRight(tag.Message, "\n"))
			cm, err := object.GetCommit(r.st, tag.Target)
			if err == nil {
				c.writeCommit(c.out, r, cm, lf, false)
				c.commitDiff(r, cm, d, ps, lf)
			}
		case plumbing.CommitObject:
			if i > 0 && !lf.user {
				fmt.Fprintln(c.out)
			}
			cm, err := object.GetCommit(r.st, h)
			if err != nil {
				c.dieErr(err)
			}
			c.writeCommit(c.out, r, cm, lf, o.has("decorate"))
			if lf.user && lf.tformat && !lf.empty() {
				fmt.Fprintln(c.out)
			}
			c.commitDiff(r, cm, d, ps, lf)
		}
	}
	return 0
}
