package gitws

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// errNoIdentity is the identity failure; its text is git's first line.
var errNoIdentity = errors.New("identity unknown")

// identity returns the author or committer ("AUTHOR"/"COMMITTER") from the
// environment and the configuration, as git does.
func (c *cmd) identity(r *Repo, who string) (object.Signature, error) {
	name := c.env.getenv("GIT_" + who + "_NAME")
	email := c.env.getenv("GIT_" + who + "_EMAIL")
	if name == "" {
		name, _ = r.cfg.get("user.name")
	}
	if email == "" {
		email, _ = r.cfg.get("user.email")
	}
	if email == "" {
		email = c.env.getenv("EMAIL")
	}
	if name == "" || email == "" {
		return object.Signature{}, errNoIdentity
	}
	when := c.env.now()
	if d := c.env.getenv("GIT_" + who + "_DATE"); d != "" {
		t, err := parseDate(d)
		if err != nil {
			return object.Signature{}, fmt.Errorf("invalid date format: %s", d)
		}
		when = t
	}
	return object.Signature{Name: name, Email: email, When: when}, nil
}

// mustIdentity is identity, dying as git does when there is none (who is
// "AUTHOR" or "COMMITTER").
func (c *cmd) mustIdentity(r *Repo, who string) object.Signature {
	sig, err := c.identity(r, who)
	if errors.Is(err, errNoIdentity) {
		c.dieNoIdentity(who[:1] + strings.ToLower(who[1:]))
	} else if err != nil {
		c.dieErr(err)
	}
	return sig
}

// dieNoIdentity prints git's message for a missing identity.
func (c *cmd) dieNoIdentity(who string) {
	fmt.Fprintf(c.err, "%s identity unknown\n\n*** Please tell me who you are.\n\nRun\n\n  git config --global user.email \"you@example.com\"\n  git config --global user.name \"Your Name\"\n\nto set your account's default identity.\nOmit --global to set the identity only in this repository.\n\n", who)
	c.die("no email was given and auto-detection is disabled")
}

// parseDate reads the date formats git takes in GIT_*_DATE and --date.
func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	zone := func(z string) (*time.Location, bool) {
		if len(z) != 5 || (z[0] != '+' && z[0] != '-') {
			return nil, false
		}
		hh, err1 := strconv.Atoi(z[1:3])
		mm, err2 := strconv.Atoi(z[3:5])
		if err1 != nil || err2 != nil {
			return nil, false
		}
		off := hh*3600 + mm*60
		if z[0] == '-' {
			off = -off
		}
		return time.FixedZone("", off), true
	}
	raw := strings.TrimPrefix(s, "@")
	f := strings.Fields(raw)
	if len(f) >= 1 && len(f) <= 2 {
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil && (strings.HasPrefix(s, "@") || len(f) == 2 || n > 100000000) {
			loc := time.UTC
			if len(f) == 2 {
				l, ok := zone(f[1])
				if !ok {
					return time.Time{}, fmt.Errorf("bad zone %q", f[1])
				}
				loc = l
			}
			return time.Unix(n, 0).In(loc), nil
		}
	}
	for _, layout := range []string{time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 -0700", "Mon Jan 2 15:04:05 2006 -0700", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05-0700", "2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad date %q", s)
}

// cleanupMessage is git's "whitespace" cleanup (strip adds dropping the
// comment lines): trailing white space of each line, leading and trailing
// blank lines, runs of blank lines squeezed to one.
func cleanupMessage(msg string, strip bool) string {
	lines := strings.Split(msg, "\n")
	var out []string
	blank := false
	for _, l := range lines {
		if strip && strings.HasPrefix(l, "#") {
			continue
		}
		l = strings.TrimRight(l, " \t\r\v\f")
		if l == "" {
			blank = true
			continue
		}
		if blank && len(out) > 0 {
			out = append(out, "")
		}
		blank = false
		out = append(out, l)
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

func readAllLimit(rd io.Reader, limit int64) ([]byte, error) {
	if rd == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(rd, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("input over %d bytes", limit)
	}
	return b, nil
}

func cmdCommit(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"message=", "all", "amend", "allow-empty", "allow-empty-message", "author=", "quiet", "no-edit", "file=", "date=", "no-verify", "signoff", "verbose", "dry-run", "only", "include", "reuse-message=", "cleanup=", "reset-author"},
		short: map[byte]string{'m': "message", 'a': "all", 'q': "quiet", 'F': "file", 'n': "no-verify", 's': "signoff", 'v': "verbose", 'C': "reuse-message", 'o': "only", 'i': "include"},
	})
	r := c.needWork()
	defer r.st.buffer()() // its objects in one store transaction, flushed before the index and refs
	target, headHash, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	for _, e := range idx.Entries {
		if e.Stage != 0 {
			fmt.Fprint(c.err, "error: Committing is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\n")
			c.die("Exiting because of an unresolved conflict.")
		}
	}
	if o.has("amend") && headHash.IsZero() {
		c.die("You have nothing to amend.")
	}
	pathArgs := append(o.args, o.paths...)
	if o.has("all") && len(pathArgs) > 0 {
		c.die("paths '%s ...' with -a does not make sense", pathArgs[0])
	}
	// the message
	var msg string
	haveMsg := false
	if o.has("message") {
		msg = strings.Join(o.set["message"], "\n\n")
		haveMsg = true
	}
	if o.has("file") {
		var data []byte
		if o.val("file") == "-" {
			data, err = readAllLimit(c.env.Stdin, c.env.maxObject())
		} else {
			data, err = c.env.FS.ReadFile(c.env.Ctx, c.env.abs(o.val("file")))
		}
		if err != nil {
			c.die("could not read log file '%s': %s", o.val("file"), strerror(err))
		}
		msg, haveMsg = string(data), true
	}
	var parents []plumbing.Hash
	var amended *object.Commit
	if !headHash.IsZero() {
		parents = []plumbing.Hash{headHash}
	}
	if mh, err := c.env.FS.ReadFile(c.env.Ctx, r.GitDir+"/MERGE_HEAD"); err == nil && !o.has("amend") {
		for _, l := range strings.Fields(string(mh)) {
			parents = append(parents, plumbing.NewHash(l))
		}
		if !haveMsg {
			if m, err := c.env.FS.ReadFile(c.env.Ctx, r.GitDir+"/MERGE_MSG"); err == nil {
				msg, haveMsg = string(m), true
			}
		}
	}
	picked := c.pickInProgress(r, o.has("amend"))
	if picked != nil && !haveMsg {
		if m, err := c.env.FS.ReadFile(c.env.Ctx, r.GitDir+"/MERGE_MSG"); err == nil {
			msg, haveMsg = string(m), true
		}
	}
	if o.has("amend") {
		amended, err = object.GetCommit(r.st, headHash)
		if err != nil {
			c.dieErr(err)
		}
		parents = amended.ParentHashes
		if !haveMsg {
			msg, haveMsg = amended.Message, true
		}
	}
	if o.has("reuse-message") {
		h := c.mustCommit(r, o.val("reuse-message"))
		cm, err := object.GetCommit(r.st, h)
		if err != nil {
			c.dieErr(err)
		}
		msg, haveMsg = cm.Message, true
	}
	if !haveMsg {
		c.errorf("There was a problem with the editor 'vi'.")
		fmt.Fprint(c.err, "Please supply the message using either -m or -F option.\n")
		return 1
	}
	// stage: -a (tracked files), or the named paths (--only)
	if o.has("all") || len(pathArgs) > 0 {
		tracked := trackedNames(idx)
		sc, err := r.scan(tracked, false)
		if err != nil {
			c.dieErr(err)
		}
		ps := c.newPathspec(pathArgs)
		if len(pathArgs) > 0 {
			for i, pat := range ps.pats {
				ok := false
				for p := range tracked {
					if matchOne(pat, p) {
						ok = true
						break
					}
				}
				if !ok {
					c.errorf("pathspec '%s' did not match any file(s) known to git", pathArgs[i])
					return 1
				}
			}
		}
		byName := entriesByName(idx)
		for p := range tracked {
			if !ps.match(p) {
				continue
			}
			a, ok := sc.files[p]
			if !ok {
				removeEntry(idx, p)
				delete(byName, p)
				continue
			}
			if e := byName[p]; e != nil && statClean(e, a, idx.ModTime) {
				continue
			}
			if err := r.addFileTo(idx, byName, p, a); err != nil {
				c.dieErr(err)
			}
		}
	}
	var parentTree plumbing.Hash
	if !headHash.IsZero() {
		base := headHash
		if amended != nil {
			if len(amended.ParentHashes) > 0 {
				base = amended.ParentHashes[0]
			} else {
				base = plumbing.ZeroHash
			}
		}
		if !base.IsZero() {
			bc, err := object.GetCommit(r.st, base)
			if err != nil {
				c.dieErr(err)
			}
			parentTree = bc.TreeHash
		}
	}
	if parentTree.IsZero() {
		parentTree = emptyTreeHash
	}
	parentFiles := map[string]treeEntry{}
	if parentTree != emptyTreeHash {
		if parentFiles, err = r.flatTree(parentTree); err != nil {
			c.dieErr(err)
		}
	}
	newFiles := indexFiles(idx)
	if sameFlat(newFiles, parentFiles) && !o.has("allow-empty") && !o.has("amend") && len(parents) < 2 {
		st, err := r.status(false)
		if err != nil {
			c.dieErr(err)
		}
		untracked := collapseUntracked(st.untracked, st.tracked)
		c.longStatus(c.out, r, st.changes, untracked, true)
		return 1
	}
	msg = cleanupMessage(msg, o.val("cleanup") == "strip")
	if msg == "" && !o.has("allow-empty-message") {
		fmt.Fprintln(c.err, "Aborting commit due to empty commit message.")
		return 1
	}
	author := c.mustIdentity(r, "AUTHOR")
	committer := c.mustIdentity(r, "COMMITTER")
	if amended != nil && c.env.getenv("GIT_AUTHOR_DATE") == "" && !o.has("author") {
		author = amended.Author
	}
	if picked != nil && picked.pick && !o.has("reset-author") {
		author = picked.cm.Author // a cherry-pick keeps the commit's author
	}
	if o.has("author") {
		a := o.val("author")
		lt, gt := strings.IndexByte(a, '<'), strings.LastIndexByte(a, '>')
		if lt < 0 || gt < lt {
			c.die("--author '%s' is not 'Name <email>' and matches no existing author", a)
		}
		author.Name = strings.TrimSpace(a[:lt])
		author.Email = a[lt+1 : gt]
	}
	if o.has("date") {
		t, err := parseDate(o.val("date"))
		if err != nil {
			c.die("invalid date format: %s", o.val("date"))
		}
		author.When = t
	}
	treeHash, err := r.writeTree(newFiles)
	if err != nil {
		c.dieErr(err)
	}
	cm := &object.Commit{Author: author, Committer: committer, Message: msg, TreeHash: treeHash, ParentHashes: parents}
	h, err := r.storeCommit(cm)
	if err != nil {
		c.dieErr(err)
	}
	if err := r.writeIndex(idx); err != nil {
		c.dieErr(err)
	}
	kind := "commit"
	switch {
	case amended != nil:
		kind = "commit (amend)"
	case len(parents) == 0:
		kind = "commit (initial)"
	case len(parents) > 1:
		kind = "commit (merge)"
	}
	subj, _ := subjectBody(msg)
	if err := r.updateHead(h, kind+": "+subj); err != nil {
		c.dieErr(err)
	}
	for _, f := range []string{"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "CHERRY_PICK_HEAD", "REVERT_HEAD"} {
		_ = c.env.FS.Remove(c.env.Ctx, r.GitDir+"/"+f)
	}
	if o.has("quiet") {
		return 0
	}
	where := shortBranch(target)
	if target == "" {
		where = "detached HEAD"
	}
	if len(parents) == 0 {
		where += " (root-commit)"
	}
	subject := strings.SplitN(strings.TrimRight(msg, "\n"), "\n\n", 2)[0]
	subject = strings.ReplaceAll(subject, "\n", " ")
	fmt.Fprintf(c.out, "[%s %s] %s\n", where, h.String()[:7], subject)
	if author.Name != committer.Name || author.Email != committer.Email {
		fmt.Fprintf(c.out, " Author: %s <%s>\n", author.Name, author.Email)
	}
	if amended != nil || picked != nil && picked.pick || !author.When.Equal(committer.When) || author.When.Format("-0700") != committer.When.Format("-0700") {
		fmt.Fprintf(c.out, " Date: %s\n", gitDate(author.When))
	}
	c.commitSummary(r, parentTree, treeHash)
	return 0
}

// emptyTreeHash is the id of the empty tree.
var emptyTreeHash = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// commitSummary prints the diffstat summary and the create/delete/mode
// lines git commit (and merge) print.
func (c *cmd) commitSummary(r *Repo, from, to plumbing.Hash) {
	old, err := r.flatTree(from)
	if err != nil && from != emptyTreeHash {
		c.dieErr(err)
	}
	if from == emptyTreeHash {
		old = map[string]treeEntry{}
	}
	nw, err := r.flatTree(to)
	if err != nil {
		c.dieErr(err)
	}
	pairs := detectRenames(diffFlat(old, nw, pathspec{}))
	ins, del := 0, 0
	for i := range pairs {
		_, _, _, st, err := r.pairDiff(c.env.Ctx, &pairs[i])
		if err != nil {
			c.dieErr(err)
		}
		ins += st.add
		del += st.del
	}
	if len(pairs) == 0 {
		return
	}
	fmt.Fprintln(c.out, summaryLine(len(pairs), ins, del))
	lines := summaryLines(pairs)
	for _, l := range lines {
		fmt.Fprintln(c.out, l)
	}
}

// renameSummary is git's compact "dir/{a => b}" form of a rename.
func renameSummary(a, b string) string {
	// common prefix and suffix at path-component boundaries
	pre := 0
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '/' {
			pre = i + 1
		}
	}
	suf := 0
	for i := 1; i <= len(a)-pre && i <= len(b)-pre && a[len(a)-i] == b[len(b)-i]; i++ {
		if a[len(a)-i] == '/' {
			suf = i
		}
	}
	if pre == 0 && suf == 0 {
		return a + " => " + b
	}
	return a[:pre] + "{" + a[pre:len(a)-suf] + " => " + b[pre:len(b)-suf] + "}" + a[len(a)-suf:]
}

// detectRenames pairs deleted and added files with the same content
// (exact renames; git's similarity-based detection is not done).
func detectRenames(pairs []filePair) []filePair {
	byHash := map[plumbing.Hash][]int{}
	for i, p := range pairs {
		if p.status() == 'D' {
			byHash[p.Old.Hash] = append(byHash[p.Old.Hash], i)
		}
	}
	drop := map[int]bool{}
	for i := range pairs {
		p := &pairs[i]
		if p.status() != 'A' {
			continue
		}
		ds := byHash[p.New.Hash]
		if len(ds) == 0 {
			continue
		}
		d := ds[0]
		byHash[p.New.Hash] = ds[1:]
		p.OldPath = pairs[d].Path
		p.Old = pairs[d].Old
		drop[d] = true
	}
	var out []filePair
	for i, p := range pairs {
		if !drop[i] {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

var _ = bytes.NewReader

// sameFlat reports whether two flat trees hold the same files.
func sameFlat(a, b map[string]treeEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for p, e := range a {
		if b[p] != e {
			return false
		}
	}
	return true
}
