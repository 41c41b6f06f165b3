package gitws

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func cmdStatus(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"short", "porcelain?", "branch", "untracked-files?", "ignored?", "long", "null"},
		short: map[byte]string{'s': "short", 'b': "branch", 'u': "untracked-files", 'z': "null"},
	})
	r := c.needWork()
	ps := c.newPathspec(append(o.args, o.paths...))
	st, err := r.status(o.has("ignored"))
	if err != nil {
		c.dieErr(err)
	}
	umode := "normal"
	if o.has("untracked-files") {
		umode = o.val("untracked-files")
		if umode == "" {
			umode = "all"
		}
	} else if v, ok := r.cfg.get("status.showuntrackedfiles"); ok {
		umode = v
	}
	var untracked []string
	switch umode {
	case "no":
	case "all":
		untracked = st.untracked
	case "normal":
		untracked = collapseUntracked(st.untracked, st.tracked)
	default:
		c.die("Invalid untracked files mode '%s'", umode)
	}
	var changes []change
	for _, ch := range st.changes {
		if ps.match(ch.Path) || (ch.Orig != "" && ps.match(ch.Orig)) {
			changes = append(changes, ch)
		}
	}
	var ut []string
	for _, u := range untracked {
		if ps.match(strings.TrimSuffix(u, "/")) {
			ut = append(ut, u)
		}
	}
	porcelain := o.has("porcelain")
	switch {
	case porcelain && o.val("porcelain") == "v2":
		c.statusV2(r, o.has("branch"), changes, ut)
	case porcelain || o.has("short"):
		if o.has("branch") {
			fmt.Fprintln(c.out, "## "+c.branchSummary(r))
		}
		rel := func(p string) string {
			if porcelain {
				return quotePath(p, true)
			}
			return quotePath(c.relPath(p), true)
		}
		for _, ch := range changes {
			if ch.Orig != "" {
				fmt.Fprintf(c.out, "%c%c %s -> %s\n", ch.X, ch.Y, rel(ch.Orig), rel(ch.Path))
				continue
			}
			fmt.Fprintf(c.out, "%c%c %s\n", ch.X, ch.Y, rel(ch.Path))
		}
		for _, u := range ut {
			fmt.Fprintf(c.out, "?? %s\n", rel(u))
		}
		if o.has("ignored") {
			for _, u := range st.ignored {
				fmt.Fprintf(c.out, "!! %s\n", rel(u))
			}
		}
	default:
		c.longStatus(c.out, r, changes, ut, umode != "no")
	}
	return 0
}

// upstream returns the remote-tracking ref a branch follows ("" if none).
func (c *cmd) upstream(r *Repo, branch string) string {
	b := shortBranch(branch)
	remote, ok1 := r.cfg.get("branch." + b + ".remote")
	merge, ok2 := r.cfg.get("branch." + b + ".merge")
	if !ok1 || !ok2 {
		return ""
	}
	if remote == "." {
		return merge
	}
	return "refs/remotes/" + remote + "/" + shortBranch(merge)
}

// aheadBehind counts the commits of a not in b and of b not in a.
func (r *Repo) aheadBehind(a, b plumbing.Hash) (int, int, error) {
	ra, err := r.reachable(a, 0)
	if err != nil {
		return 0, 0, err
	}
	rb, err := r.reachable(b, 0)
	if err != nil {
		return 0, 0, err
	}
	ahead, behind := 0, 0
	for h := range ra {
		if !rb[h] {
			ahead++
		}
	}
	for h := range rb {
		if !ra[h] {
			behind++
		}
	}
	return ahead, behind, nil
}

// reachable is the set of commits reachable from h (at most limit; 0: no
// limit).
func (r *Repo) reachable(h plumbing.Hash, limit int) (map[plumbing.Hash]bool, error) {
	seen := map[plumbing.Hash]bool{}
	if h.IsZero() {
		return seen, nil
	}
	stack := []plumbing.Hash{h}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		if err := r.env.Ctx.Err(); err != nil {
			return nil, err
		}
		seen[x] = true
		if limit > 0 && len(seen) >= limit {
			break
		}
		cm, err := object.GetCommit(r.st, x)
		if err != nil {
			return nil, err
		}
		stack = append(stack, cm.ParentHashes...)
	}
	return seen, nil
}

// branchSummary is the "## " line of status -sb.
func (c *cmd) branchSummary(r *Repo) string {
	target, h, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	if target == "" {
		return "HEAD (no branch)"
	}
	b := shortBranch(target)
	if h.IsZero() {
		return "No commits yet on " + b
	}
	up := c.upstream(r, target)
	if up == "" {
		return b
	}
	s := b + "..." + strings.TrimPrefix(strings.TrimPrefix(up, "refs/remotes/"), "refs/heads/")
	ur, err := r.st.Reference(plumbing.ReferenceName(up))
	if err != nil {
		return s + " [gone]"
	}
	a, bh, err := r.aheadBehind(h, ur.Hash())
	if err != nil {
		c.dieErr(err)
	}
	switch {
	case a > 0 && bh > 0:
		s += fmt.Sprintf(" [ahead %d, behind %d]", a, bh)
	case a > 0:
		s += fmt.Sprintf(" [ahead %d]", a)
	case bh > 0:
		s += fmt.Sprintf(" [behind %d]", bh)
	}
	return s
}

// trackingLines is what the long status says of the upstream ("" if none).
func (c *cmd) trackingLines(r *Repo, target string, h plumbing.Hash) string {
	up := c.upstream(r, target)
	if up == "" {
		return ""
	}
	name := strings.TrimPrefix(strings.TrimPrefix(up, "refs/remotes/"), "refs/heads/")
	ur, err := r.st.Reference(plumbing.ReferenceName(up))
	if err != nil {
		return fmt.Sprintf("Your branch is based on '%s', but the upstream is gone.\n  (use \"git branch --unset-upstream\" to fixup)\n", name)
	}
	a, b, err := r.aheadBehind(h, ur.Hash())
	if err != nil {
		c.dieErr(err)
	}
	plural := func(n int) string {
		if n == 1 {
			return "commit"
		}
		return "commits"
	}
	switch {
	case a == 0 && b == 0:
		return fmt.Sprintf("Your branch is up to date with '%s'.\n", name)
	case b == 0:
		return fmt.Sprintf("Your branch is ahead of '%s' by %d %s.\n  (use \"git push\" to publish your local commits)\n", name, a, plural(a))
	case a == 0:
		return fmt.Sprintf("Your branch is behind '%s' by %d %s, and can be fast-forwarded.\n  (use \"git pull\" to update your local branch)\n", name, b, plural(b))
	}
	return fmt.Sprintf("Your branch and '%s' have diverged,\nand have %d and %d different commits each, respectively.\n  (use \"git pull\" to merge the remote branch into yours)\n", name, a, b)
}

var statusLabel = map[byte]string{'A': "new file:", 'M': "modified:", 'D': "deleted:", 'R': "renamed:", 'T': "typechange:"}

var unmergedLabel = map[string]string{
	"DD": "both deleted:", "AU": "added by us:", "UD": "deleted by them:",
	"UA": "added by them:", "DU": "deleted by us:", "AA": "both added:", "UU": "both modified:",
}

func isUnmerged(ch change) bool {
	_, ok := unmergedLabel[string([]byte{ch.X, ch.Y})]
	return ok
}

// longStatus writes git status's long format.
func (c *cmd) longStatus(w io.Writer, r *Repo, changes []change, untracked []string, showUntracked bool) {
	target, h, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	if target == "" {
		switch name, at, ok := r.detachedFrom(h); {
		case ok && at:
			fmt.Fprintf(w, "HEAD detached at %s\n", name)
		case ok:
			fmt.Fprintf(w, "HEAD detached from %s\n", name)
		default:
			fmt.Fprintln(w, "Not currently on any branch.")
		}
	} else {
		fmt.Fprintf(w, "On branch %s\n", shortBranch(target))
		if !h.IsZero() {
			if t := c.trackingLines(r, target, h); t != "" {
				fmt.Fprint(w, t+"\n")
			}
		}
	}
	initial := h.IsZero()
	if initial {
		fmt.Fprint(w, "\nNo commits yet\n\n")
	}
	var staged, unstaged, unmerged []change
	hasDeleted := false
	for _, ch := range changes {
		if isUnmerged(ch) {
			unmerged = append(unmerged, ch)
			continue
		}
		if ch.X != ' ' {
			staged = append(staged, ch)
		}
		if ch.Y != ' ' {
			unstaged = append(unstaged, ch)
			if ch.Y == 'D' {
				hasDeleted = true
			}
		}
	}
	label := func(l string, width int) string { return l + strings.Repeat(" ", width-len(l)) }
	_, merr := c.env.FS.Stat(c.env.Ctx, r.GitDir+"/MERGE_HEAD")
	merging := merr == nil // unmerged paths without a merge: left by stash apply
	if len(unmerged) > 0 && merging {
		fmt.Fprint(w, "You have unmerged paths.\n  (fix conflicts and run \"git commit\")\n  (use \"git merge --abort\" to abort the merge)\n\n")
	}
	if len(staged) > 0 {
		fmt.Fprint(w, "Changes to be committed:\n")
		if initial {
			fmt.Fprint(w, "  (use \"git rm --cached <file>...\" to unstage)\n")
		} else {
			fmt.Fprint(w, "  (use \"git restore --staged <file>...\" to unstage)\n")
		}
		for _, ch := range staged {
			if ch.X == 'R' {
				fmt.Fprintf(w, "\t%s%s -> %s\n", label(statusLabel['R'], 12), quotePath(c.relPath(ch.Orig), false), quotePath(c.relPath(ch.Path), false))
				continue
			}
			fmt.Fprintf(w, "\t%s%s\n", label(statusLabel[ch.X], 12), quotePath(c.relPath(ch.Path), false))
		}
		fmt.Fprint(w, "\n")
	}
	if len(unmerged) > 0 {
		fmt.Fprint(w, "Unmerged paths:\n")
		if !merging {
			fmt.Fprint(w, "  (use \"git restore --staged <file>...\" to unstage)\n")
		}
		fmt.Fprint(w, "  (use \"git add <file>...\" to mark resolution)\n")
		for _, ch := range unmerged {
			fmt.Fprintf(w, "\t%s%s\n", label(unmergedLabel[string([]byte{ch.X, ch.Y})], 17), quotePath(c.relPath(ch.Path), false))
		}
		fmt.Fprint(w, "\n")
	}
	if len(unstaged) > 0 {
		fmt.Fprint(w, "Changes not staged for commit:\n")
		if hasDeleted {
			fmt.Fprint(w, "  (use \"git add/rm <file>...\" to update what will be committed)\n")
		} else {
			fmt.Fprint(w, "  (use \"git add <file>...\" to update what will be committed)\n")
		}
		fmt.Fprint(w, "  (use \"git restore <file>...\" to discard changes in working directory)\n")
		for _, ch := range unstaged {
			fmt.Fprintf(w, "\t%s%s\n", label(statusLabel[ch.Y], 12), quotePath(c.relPath(ch.Path), false))
		}
		fmt.Fprint(w, "\n")
	}
	if len(untracked) > 0 {
		fmt.Fprint(w, "Untracked files:\n  (use \"git add <file>...\" to include in what will be committed)\n")
		for _, u := range untracked {
			fmt.Fprintf(w, "\t%s\n", quotePath(c.relPath(u), false))
		}
		fmt.Fprint(w, "\n")
	}
	switch {
	case len(staged) > 0 || len(unmerged) > 0 && merging:
	case len(unstaged) > 0 || len(unmerged) > 0:
		fmt.Fprint(w, "no changes added to commit (use \"git add\" and/or \"git commit -a\")\n")
	case len(untracked) > 0:
		fmt.Fprint(w, "nothing added to commit but untracked files present (use \"git add\" to track)\n")
	case initial && !showUntracked:
		fmt.Fprint(w, "nothing to commit (create/copy files and use \"git add\" to track)\n")
	case initial:
		fmt.Fprint(w, "nothing to commit (create/copy files and use \"git add\" to track)\n")
	case !showUntracked:
		fmt.Fprint(w, "nothing to commit, working tree clean\n")
	default:
		fmt.Fprint(w, "nothing to commit, working tree clean\n")
	}
}

// statusV2 writes porcelain v2 (ordinary and rename lines, untracked).
func (c *cmd) statusV2(r *Repo, branch bool, changes []change, untracked []string) {
	target, h, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	if branch {
		if h.IsZero() {
			fmt.Fprintln(c.out, "# branch.oid (initial)")
		} else {
			fmt.Fprintln(c.out, "# branch.oid "+h.String())
		}
		if target == "" {
			fmt.Fprintln(c.out, "# branch.head (detached)")
		} else {
			fmt.Fprintln(c.out, "# branch.head "+shortBranch(target))
			if up := c.upstream(r, target); up != "" && !h.IsZero() {
				fmt.Fprintln(c.out, "# branch.upstream "+strings.TrimPrefix(strings.TrimPrefix(up, "refs/remotes/"), "refs/heads/"))
				if ur, err := r.st.Reference(plumbing.ReferenceName(up)); err == nil {
					a, b, err := r.aheadBehind(h, ur.Hash())
					if err != nil {
						c.dieErr(err)
					}
					fmt.Fprintf(c.out, "# branch.ab +%d -%d\n", a, b)
				}
			}
		}
	}
	headFiles, err := r.headFiles()
	if err != nil {
		c.dieErr(err)
	}
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	idxFiles := indexFiles(idx)
	sc, err := r.scan(map[string]bool{}, false)
	if err != nil {
		c.dieErr(err)
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	for _, ch := range changes {
		hp, ie := headFiles[ch.Path], idxFiles[ch.Path]
		if ch.Orig != "" {
			hp = headFiles[ch.Orig]
		}
		wm := "000000"
		if a, ok := sc.files[ch.Path]; ok {
			wm = fmt.Sprintf("%06o", uint32(modeOf(a)))
		}
		hm, im := "000000", "000000"
		if !hp.Hash.IsZero() {
			hm = fmt.Sprintf("%06o", uint32(hp.Mode))
		}
		if !ie.Hash.IsZero() {
			im = fmt.Sprintf("%06o", uint32(ie.Mode))
		}
		xy := strings.ReplaceAll(string([]byte{ch.X, ch.Y}), " ", ".")
		if ch.Orig != "" {
			fmt.Fprintf(c.out, "2 %s N... %s %s %s %s %s R100 %s\t%s\n", xy, hm, im, wm, hp.Hash, ie.Hash, quotePath(ch.Path, false), quotePath(ch.Orig, false))
			continue
		}
		fmt.Fprintf(c.out, "1 %s N... %s %s %s %s %s %s\n", xy, hm, im, wm, hp.Hash, ie.Hash, quotePath(ch.Path, false))
	}
	for _, u := range untracked {
		fmt.Fprintf(c.out, "? %s\n", quotePath(u, false))
	}
}
