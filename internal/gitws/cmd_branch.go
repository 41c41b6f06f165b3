package gitws

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// writeWorkFile writes a tree entry's content to the work tree and returns
// the index entry for it.
func (r *Repo) writeWorkFile(rel string, te treeEntry) (*index.Entry, error) {
	p := r.Work + "/" + rel
	ctx, f := r.env.Ctx, r.env.FS
	if err := r.makeParents(rel); err != nil {
		return nil, err
	}
	if fi, err := f.Lstat(ctx, p); err == nil {
		if fi.IsDir() {
			if err := f.RemoveAll(ctx, p); err != nil {
				return nil, err
			}
		} else if a := fi.Attr(); te.Mode == filemode.Symlink || a.IsSymlink() {
			if err := f.Remove(ctx, p); err != nil {
				return nil, err
			}
		}
	}
	data, err := r.blob(te.Hash)
	if err != nil {
		return nil, err
	}
	switch te.Mode {
	case filemode.Symlink:
		if err := f.Symlink(ctx, string(data), p); err != nil {
			return nil, err
		}
	case filemode.Submodule:
		if err := f.MkdirAll(ctx, p, 0o755); err != nil {
			return nil, err
		}
	default:
		perm := fs.FileMode(0o644)
		if te.Mode == filemode.Executable {
			perm = 0o755
		}
		if err := f.WriteFile(ctx, p, data, perm); err != nil {
			return nil, err
		}
		if err := f.Chmod(ctx, p, perm); err != nil {
			return nil, err
		}
	}
	fi, err := f.Lstat(ctx, p)
	if err != nil {
		return nil, err
	}
	e := &index.Entry{Name: rel, Hash: te.Hash, Mode: te.Mode}
	entryFromAttr(e, fi.Attr())
	return e, nil
}

// makeParents makes rel's parent directories, removing a file in the way.
func (r *Repo) makeParents(rel string) error {
	dir := path.Dir(rel)
	if dir == "." {
		return nil
	}
	ctx, f := r.env.Ctx, r.env.FS
	cur := r.Work
	for _, part := range strings.Split(dir, "/") {
		cur += "/" + part
		fi, err := f.Lstat(ctx, cur)
		if err == nil && fi.IsDir() {
			continue
		}
		if err == nil {
			if err := f.Remove(ctx, cur); err != nil {
				return err
			}
		}
		if err := f.Mkdir(ctx, cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// removeWorkFile deletes a tracked file and the directories it leaves empty.
func (r *Repo) removeWorkFile(rel string) error {
	err := r.env.FS.Remove(r.env.Ctx, r.Work+"/"+rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	r.pruneEmptyDirs(path.Dir(rel))
	return nil
}

// switchTree moves the index and work tree from the tree from to the tree
// to, keeping local changes to paths the two trees agree on (git's two-way
// merge). Without force, a path with local changes that the switch would
// overwrite stops it before anything is written: the paths are returned.
func (r *Repo) switchTree(from, to map[string]treeEntry, force bool) (dirty, untracked []string, err error) {
	idx, err := r.readIndex()
	if err != nil {
		return nil, nil, err
	}
	tracked := trackedNames(idx)
	sc, err := r.scan(tracked, true)
	if err != nil {
		return nil, nil, err
	}
	idxMap := map[string]*index.Entry{}
	for _, e := range idx.Entries {
		if e.Stage == 0 {
			idxMap[e.Name] = e
		}
	}
	wtMatches := func(p string, want treeEntry, e *index.Entry) bool {
		a, ok := sc.files[p]
		if !ok {
			return false
		}
		if e != nil && e.Hash == want.Hash && statClean(e, a, idx.ModTime) {
			return true
		}
		data, err := r.readWork(p, a)
		return err == nil && hashBlob(data) == want.Hash && modeOf(a) == want.Mode
	}
	paths := map[string]bool{}
	for p := range from {
		paths[p] = true
	}
	for p := range to {
		paths[p] = true
	}
	if force {
		for p := range tracked {
			paths[p] = true
		}
	}
	var names []string
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	type op struct {
		p      string
		te     treeEntry
		remove bool
	}
	var ops []op
	for _, p := range names {
		f, inFrom := from[p]
		t, inTo := to[p]
		e := idxMap[p]
		if !force && inFrom && inTo && f == t {
			continue
		}
		if !force && !inFrom && !inTo {
			continue
		}
		if force {
			if inTo {
				if e != nil && e.Hash == t.Hash && e.Mode == t.Mode && wtMatches(p, t, e) {
					continue
				}
				ops = append(ops, op{p: p, te: t})
			} else {
				ops = append(ops, op{p: p, remove: true})
			}
			continue
		}
		// local state of p
		if e == nil {
			if inFrom {
				// deleted from the index locally
				if !inTo {
					continue
				}
				dirty = append(dirty, p)
				continue
			}
			// untracked in the work tree?
			if _, ok := sc.files[p]; ok {
				if !wtMatches(p, t, nil) {
					untracked = append(untracked, p)
					continue
				}
			} else if containsIgnored(sc.ignored, p) {
				// an ignored file is overwritten, as git does
			}
			ops = append(ops, op{p: p, te: t})
			continue
		}
		idxClean := inFrom && e.Hash == f.Hash && e.Mode == f.Mode
		if inTo && e.Hash == t.Hash && e.Mode == t.Mode {
			// the index already has the target: keep local work-tree state
			continue
		}
		if !idxClean {
			dirty = append(dirty, p)
			continue
		}
		if !wtMatches(p, f, e) {
			if inTo && wtMatches(p, t, nil) {
				ops = append(ops, op{p: p, te: t})
				continue
			}
			dirty = append(dirty, p)
			continue
		}
		if inTo {
			ops = append(ops, op{p: p, te: t})
		} else {
			ops = append(ops, op{p: p, remove: true})
		}
	}
	if len(dirty) > 0 || len(untracked) > 0 {
		return dirty, untracked, nil
	}
	var writes []string
	tes := map[string]treeEntry{}
	removed := map[string]bool{}
	for _, o := range ops {
		if o.remove {
			if err := r.removeWorkFile(o.p); err != nil {
				return nil, nil, err
			}
			removed[o.p] = true
			continue
		}
		writes = append(writes, o.p)
		tes[o.p] = o.te
	}
	written, err := r.writeWorkFiles(writes, tes, sc)
	if err != nil {
		return nil, nil, err
	}
	// every stage of a path written or removed goes; the written entries
	// follow (writeIndex sorts)
	keep := idx.Entries[:0]
	for _, e := range idx.Entries {
		if !removed[e.Name] && written[e.Name] == nil {
			keep = append(keep, e)
		}
	}
	idx.Entries = keep
	for _, p := range writes {
		idx.Entries = append(idx.Entries, written[p])
	}
	if force {
		// the index becomes exactly the target tree
		keep := idx.Entries[:0]
		for _, e := range idx.Entries {
			if t, ok := to[e.Name]; ok && e.Stage == 0 {
				e.Hash, e.Mode = t.Hash, t.Mode
				keep = append(keep, e)
			}
		}
		idx.Entries = keep
	}
	return nil, nil, r.writeIndex(idx)
}

func containsIgnored(list []string, p string) bool {
	for _, x := range list {
		if x == p || strings.HasSuffix(x, "/") && strings.HasPrefix(p, x) {
			return true
		}
	}
	return false
}

// treeOf returns the flat tree of a commit (empty for zero).
func (r *Repo) treeOf(h plumbing.Hash) (map[string]treeEntry, error) {
	if h.IsZero() {
		return map[string]treeEntry{}, nil
	}
	cm, err := object.GetCommit(r.st, h)
	if err != nil {
		return nil, err
	}
	return r.flatTree(cm.TreeHash)
}

// reportOverwrite prints git's refusal for a switch that would lose work.
func (c *cmd) reportOverwrite(verb string, dirty, untracked []string) int {
	if len(dirty) > 0 {
		fmt.Fprintf(c.err, "error: Your local changes to the following files would be overwritten by %s:\n", verb)
		for _, p := range dirty {
			fmt.Fprintf(c.err, "\t%s\n", p)
		}
		fmt.Fprintf(c.err, "Please commit your changes or stash them before you %s.\n", map[string]string{"checkout": "switch branches", "merge": "merge"}[verb])
	}
	if len(untracked) > 0 {
		fmt.Fprintf(c.err, "error: The following untracked working tree files would be overwritten by %s:\n", verb)
		for _, p := range untracked {
			fmt.Fprintf(c.err, "\t%s\n", p)
		}
		fmt.Fprintf(c.err, "Please move or remove them before you %s.\n", map[string]string{"checkout": "switch branches", "merge": "merge"}[verb])
	}
	fmt.Fprintln(c.err, "Aborting")
	return 1
}

// validBranchName is git's check-ref-format for a branch's short name.
func validBranchName(n string) bool {
	if n == "" || n == "HEAD" || strings.HasPrefix(n, "-") || strings.HasSuffix(n, "/") || strings.HasSuffix(n, ".") || strings.HasSuffix(n, ".lock") {
		return false
	}
	if strings.Contains(n, "..") || strings.Contains(n, "@{") || strings.Contains(n, "//") {
		return false
	}
	for _, part := range strings.Split(n, "/") {
		if strings.HasPrefix(part, ".") || part == "" {
			return false
		}
	}
	for i := 0; i < len(n); i++ {
		b := n[i]
		if b < 0x20 || b == 0x7f || strings.IndexByte(" ~^:?*[\\", b) >= 0 {
			return false
		}
	}
	return true
}

func cmdBranch(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"delete", "force", "list", "show-current", "move", "all", "remotes", "verbose", "set-upstream-to=", "unset-upstream", "contains=", "merged?", "copy", "quiet", "track?", "no-track", "format="},
		short: map[byte]string{'d': "delete", 'D': "D", 'f': "force", 'l': "list", 'm': "move", 'M': "M", 'a': "all", 'r': "remotes", 'v': "verbose", 'u': "set-upstream-to", 'q': "quiet", 'c': "copy", 't': "track"},
	})
	r := c.needRepo()
	target, headHash, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	switch {
	case o.has("show-current"):
		if target != "" {
			fmt.Fprintln(c.out, shortBranch(target))
		}
		return 0
	case o.has("delete") || o.has("D"):
		force := o.has("D") || o.has("force")
		if len(o.args) == 0 {
			c.die("branch name required")
		}
		status := 0
		for _, b := range o.args {
			ref := "refs/heads/" + b
			if o.has("remotes") {
				ref = "refs/remotes/" + b
			}
			rr, err := r.st.Reference(plumbing.ReferenceName(ref))
			if err != nil {
				if o.has("remotes") {
					c.errorf("remote-tracking branch '%s' not found.", b)
				} else {
					c.errorf("branch '%s' not found.", b)
				}
				status = 1
				continue
			}
			if ref == target {
				c.errorf("Cannot delete branch '%s' checked out at '%s'", b, r.Work)
				status = 1
				continue
			}
			if !force && !o.has("remotes") {
				base := headHash
				if up := c.upstream(r, ref); up != "" {
					if ur, err := r.st.Reference(plumbing.ReferenceName(up)); err == nil {
						base = ur.Hash()
					}
				}
				reach, err := r.reachable(base, 0)
				if err != nil {
					c.dieErr(err)
				}
				if !reach[rr.Hash()] {
					c.errorf("The branch '%s' is not fully merged.\nIf you are sure you want to delete it, run 'git branch -D %s'.", b, b)
					status = 1
					continue
				}
			}
			if err := r.st.RemoveReference(plumbing.ReferenceName(ref)); err != nil {
				c.dieErr(err)
			}
			if !o.has("remotes") {
				r.removeBranchConfig(b)
			}
			kind := "branch"
			if o.has("remotes") {
				kind = "remote-tracking branch"
			}
			fmt.Fprintf(c.out, "Deleted %s %s (was %s).\n", kind, b, rr.Hash().String()[:7])
		}
		return status
	case o.has("move") || o.has("M"):
		var oldName, newName string
		switch len(o.args) {
		case 1:
			if target == "" {
				c.die("Cannot rename the current branch while not on any.")
			}
			oldName, newName = shortBranch(target), o.args[0]
		case 2:
			oldName, newName = o.args[0], o.args[1]
		default:
			c.die("branch name required")
		}
		if !validBranchName(newName) {
			c.die("'%s' is not a valid branch name.", newName)
		}
		old, err := r.st.Reference(plumbing.ReferenceName("refs/heads/" + oldName))
		if err != nil && !(target == "refs/heads/"+oldName && headHash.IsZero()) {
			c.die("no branch named '%s'", oldName)
		}
		if _, err := r.st.Reference(plumbing.ReferenceName("refs/heads/" + newName)); err == nil && !o.has("M") && !o.has("force") {
			c.die("a branch named '%s' already exists", newName)
		}
		if old != nil {
			from, to := "refs/heads/"+oldName, "refs/heads/"+newName
			r.renameReflog(from, to)
			if err := r.st.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(to), old.Hash())); err != nil {
				c.dieErr(err)
			}
			r.appendReflog(to, old.Hash(), old.Hash(), "Branch: renamed "+from+" to "+to)
			if err := r.st.RemoveReference(old.Name()); err != nil {
				c.dieErr(err)
			}
		}
		if target == "refs/heads/"+oldName {
			if err := r.st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.ReferenceName("refs/heads/"+newName))); err != nil {
				c.dieErr(err)
			}
		}
		return 0
	case o.has("set-upstream-to"):
		up := o.val("set-upstream-to")
		b := shortBranch(target)
		if len(o.args) > 0 {
			b = o.args[0]
		}
		_, full, ok := r.lookupRef(up)
		if !ok || !strings.HasPrefix(full, "refs/remotes/") && !strings.HasPrefix(full, "refs/heads/") {
			c.die("the requested upstream branch '%s' does not exist", up)
		}
		c.setUpstream(r, b, full)
		return 0
	case len(o.args) == 0 || o.has("list"):
		return c.listBranches(r, o, target, headHash)
	}
	// create
	name := o.args[0]
	if !validBranchName(name) {
		c.die("'%s' is not a valid branch name", name)
	}
	start := headHash
	startName := "HEAD"
	if len(o.args) > 1 {
		startName = o.args[1]
		h, err := c.resolveCommitish(r, startName)
		if err != nil {
			c.die("not a valid object name: '%s'", startName)
		}
		start = h
	} else if start.IsZero() {
		c.die("not a valid object name: '%s'", shortBranch(target))
	}
	ref := "refs/heads/" + name
	if _, err := r.st.Reference(plumbing.ReferenceName(ref)); err == nil && !o.has("force") {
		c.die("a branch named '%s' already exists", name)
	}
	if ref == target && o.has("force") {
		c.die("cannot force update the current branch.")
	}
	from := startName
	if len(o.args) < 2 && target != "" {
		from = shortBranch(target) // git branch NAME: "Created from main"
	}
	if err := r.setRef(ref, start, "branch: Created from "+from); err != nil {
		c.dieErr(err)
	}
	if _, full, ok := r.lookupRef(startName); ok && strings.HasPrefix(full, "refs/remotes/") && !o.has("no-track") {
		c.setUpstream(r, name, full)
	}
	return 0
}

func (c *cmd) setUpstream(r *Repo, branch, full string) { c.setUpstreamQuiet(r, branch, full, false) }

func (c *cmd) setUpstreamQuiet(r *Repo, branch, full string, quiet bool) {
	remote, merge := ".", full
	if rest, ok := strings.CutPrefix(full, "refs/remotes/"); ok {
		rm, b, _ := strings.Cut(rest, "/")
		remote, merge = rm, "refs/heads/"+b
	}
	f, err := readConfigFile(c.env, r.GitDir+"/config")
	if err != nil {
		c.dieErr(err)
	}
	f.SetOption("branch", branch, "remote", remote)
	f.SetOption("branch", branch, "merge", merge)
	if err := writeConfigFile(c.env, r.GitDir+"/config", f); err != nil {
		c.dieErr(err)
	}
	r.cfg, _ = loadConfig(c.env, r.GitDir)
	if quiet {
		return
	}
	fmt.Fprintf(c.out, "branch '%s' set up to track '%s'.\n", branch, strings.TrimPrefix(strings.TrimPrefix(full, "refs/remotes/"), "refs/heads/"))
}

func (r *Repo) removeBranchConfig(b string) {
	f, err := readConfigFile(r.env, r.GitDir+"/config")
	if err != nil {
		return
	}
	if f.Section("branch").HasSubsection(b) {
		f.RemoveSubsection("branch", b)
		_ = writeConfigFile(r.env, r.GitDir+"/config", f)
	}
}

func (c *cmd) listBranches(r *Repo, o *opts, target string, headHash plumbing.Hash) int {
	refs, err := r.allRefs()
	if err != nil {
		c.dieErr(err)
	}
	type line struct {
		name, show string
		h          plumbing.Hash
		cur        bool
	}
	var lines []line
	if target == "" {
		show := "(no branch)"
		if name, at, ok := r.detachedFrom(headHash); ok && at {
			show = "(HEAD detached at " + name + ")"
		} else if ok {
			show = "(HEAD detached from " + name + ")"
		}
		lines = append(lines, line{name: "", show: show, h: headHash, cur: true})
	}
	for _, ref := range refs {
		n := ref.Name().String()
		switch {
		case strings.HasPrefix(n, "refs/heads/") && !o.has("remotes"):
			lines = append(lines, line{name: n, show: shortBranch(n), h: ref.Hash(), cur: n == target})
		case strings.HasPrefix(n, "refs/remotes/") && (o.has("remotes") || o.has("all")):
			show := strings.TrimPrefix(n, "refs/remotes/")
			if o.has("all") {
				show = "remotes/" + show
			}
			if ref.Type() == plumbing.SymbolicReference {
				show += " -> " + strings.TrimPrefix(ref.Target().String(), "refs/remotes/")
			}
			lines = append(lines, line{name: n, show: show, h: ref.Hash()})
		}
	}
	width := 0
	for _, l := range lines {
		width = max(width, len(l.show))
	}
	for _, l := range lines {
		mark := "  "
		if l.cur {
			mark = "* "
		}
		if o.has("verbose") && !strings.Contains(l.show, " -> ") {
			h := l.h
			subj := ""
			if cm, err := object.GetCommit(r.st, h); err == nil {
				subj, _ = subjectBody(cm.Message)
			}
			fmt.Fprintf(c.out, "%s%-*s %s %s\n", mark, width, l.show, h.String()[:7], subj)
			continue
		}
		fmt.Fprintf(c.out, "%s%s\n", mark, l.show)
	}
	return 0
}

// switchTo checks out the commit to (moving HEAD to ref, or detaching when
// ref is "") and prints what git checkout/switch print. arg is what the
// command line named (a branch, a commit, "HEAD"); HEAD's reflog records
// it as git's does, which @{-1} and the detached HEAD's description read.
func (c *cmd) switchTo(r *Repo, ref, arg string, to plumbing.Hash, force bool, created bool, quiet bool) int {
	target, cur, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	from, err := r.treeOf(cur)
	if err != nil {
		c.dieErr(err)
	}
	toTree, err := r.treeOf(to)
	if err != nil {
		c.dieErr(err)
	}
	dirty, untracked, err := r.switchTree(from, toTree, force)
	if err != nil {
		c.dieErr(err)
	}
	if len(dirty) > 0 || len(untracked) > 0 {
		return c.reportOverwrite("checkout", dirty, untracked)
	}
	if ref != "" {
		if err := r.st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.ReferenceName(ref))); err != nil {
			c.dieErr(err)
		}
	} else {
		if err := r.st.SetReference(plumbing.NewHashReference(plumbing.HEAD, to)); err != nil {
			c.dieErr(err)
		}
	}
	if !(target == "" && ref == "" && cur == to) {
		from := cur.String()
		if target != "" {
			from = shortBranch(target)
		}
		r.appendReflog("HEAD", cur, to, "checkout: moving from "+from+" to "+arg)
	}
	// local changes carried over
	if !quiet {
		st, err := r.status(false)
		if err == nil {
			for _, ch := range st.changes {
				x := ch.Y
				if x == ' ' {
					x = ch.X
				}
				if x == 'A' || x == 'M' || x == 'D' {
					if ch.Y != ' ' || ch.X == 'M' || ch.X == 'D' || ch.X == 'A' {
						fmt.Fprintf(c.out, "%c\t%s\n", x, ch.Path)
					}
				}
			}
		}
	}
	if quiet {
		return 0
	}
	switch {
	case ref == "":
		if target != "" || cur != to {
			fmt.Fprintf(c.err, detachedAdvice, to.String())
			cm, _ := object.GetCommit(r.st, to)
			subj := ""
			if cm != nil {
				subj, _ = subjectBody(cm.Message)
			}
			fmt.Fprintf(c.err, "HEAD is now at %s %s\n", to.String()[:7], subj)
		}
	case created:
		fmt.Fprintf(c.err, "Switched to a new branch '%s'\n", shortBranch(ref))
	case ref == target:
		fmt.Fprintf(c.err, "Already on '%s'\n", shortBranch(ref))
	default:
		fmt.Fprintf(c.err, "Switched to branch '%s'\n", shortBranch(ref))
	}
	if ref != "" {
		if t := c.trackingLines(r, ref, to); t != "" && !created {
			fmt.Fprint(c.out, t)
		}
	}
	return 0
}

// restorePaths writes paths of ps from src (a flat tree; nil: the index)
// into the work tree and, when toIndex, into the index.
func (c *cmd) restorePaths(r *Repo, ps pathspec, args []string, src map[string]treeEntry, toIndex, toWork bool) int {
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	from := src
	if from == nil {
		from = indexFiles(idx)
	}
	var names []string
	for p := range from {
		if ps.match(p) {
			names = append(names, p)
		}
	}
	// with a source tree, paths in the index the source lacks are removed
	var gone []string
	if src != nil {
		for _, e := range idx.Entries {
			if _, ok := src[e.Name]; !ok && ps.match(e.Name) {
				gone = append(gone, e.Name)
			}
		}
	}
	for i, pat := range ps.pats {
		ok := false
		for _, n := range append(names, gone...) {
			if matchOne(pat, n) {
				ok = true
				break
			}
		}
		if !ok {
			c.errorf("pathspec '%s' did not match any file(s) known to git", args[i])
			return 1
		}
	}
	sort.Strings(names)
	for _, p := range names {
		te := from[p]
		if toWork {
			ne, err := r.writeWorkFile(p, te)
			if err != nil {
				c.dieErr(err)
			}
			if toIndex || src == nil {
				if old, err := idx.Entry(p); err == nil && old.Hash == te.Hash && old.Mode == te.Mode {
					*old = *ne
				} else if toIndex {
					removeEntry(idx, p)
					idx.Entries = append(idx.Entries, ne)
				}
			}
			continue
		}
		if toIndex {
			old, err := idx.Entry(p)
			if err == nil && old.Hash == te.Hash && old.Mode == te.Mode {
				continue
			}
			removeEntry(idx, p)
			e := &index.Entry{Name: p, Hash: te.Hash, Mode: te.Mode}
			idx.Entries = append(idx.Entries, e)
		}
	}
	for _, p := range gone {
		if toIndex {
			removeEntry(idx, p)
		}
		if toWork {
			if err := r.removeWorkFile(p); err != nil {
				c.dieErr(err)
			}
		}
	}
	if err := r.writeIndex(idx); err != nil {
		c.dieErr(err)
	}
	return 0
}

func cmdCheckout(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"b=", "B=", "force", "quiet", "detach", "orphan=", "track?", "no-track", "ours", "theirs"},
		short: map[byte]string{'b': "b", 'B': "B", 'f': "force", 'q': "quiet", 't': "track"},
	})
	r := c.needWork()
	if o.dash || (len(o.args) > 1 && !o.has("b") && !o.has("B")) {
		// checkout [<tree-ish>] -- <paths>
		var src map[string]treeEntry
		paths := o.paths
		if len(o.args) > 0 {
			src = c.commitFlat(r, o.args[0])
			paths = append(o.args[1:], paths...)
		}
		if len(paths) == 0 {
			return 0
		}
		return c.restorePaths(r, c.newPathspec(paths), paths, src, src != nil, true)
	}
	return c.switchCmd(r, o, "checkout")
}

func cmdSwitch(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"create=", "force-create=", "force", "discard-changes", "quiet", "detach", "orphan=", "track?", "no-track"},
		short: map[byte]string{'c': "create", 'C': "force-create", 'f': "force", 'q': "quiet", 'd': "detach", 't': "track"},
	})
	r := c.needWork()
	if o.has("create") {
		o.set["b"] = o.set["create"]
	}
	if o.has("force-create") {
		o.set["B"] = o.set["force-create"]
	}
	if o.has("discard-changes") {
		o.set["force"] = []string{""}
	}
	return c.switchCmd(r, o, "switch")
}

func (c *cmd) switchCmd(r *Repo, o *opts, verb string) int {
	force, quiet := o.has("force"), o.has("quiet")
	_, headHash, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	if o.has("orphan") {
		name := o.val("orphan")
		if err := r.st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.ReferenceName("refs/heads/"+name))); err != nil {
			c.dieErr(err)
		}
		fmt.Fprintf(c.err, "Switched to a new branch '%s'\n", name)
		return 0
	}
	if nb := o.val("b") + o.val("B"); nb != "" {
		if !validBranchName(nb) {
			c.die("'%s' is not a valid branch name", nb)
		}
		ref := "refs/heads/" + nb
		if _, err := r.st.Reference(plumbing.ReferenceName(ref)); err == nil && !o.has("B") {
			c.die("a branch named '%s' already exists", nb)
		}
		start := headHash
		startName := ""
		if len(o.args) > 0 {
			startName = o.args[0]
			start = c.mustCommitOr(r, startName, verb)
		}
		if start.IsZero() {
			if err := r.st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.ReferenceName(ref))); err != nil {
				c.dieErr(err)
			}
			fmt.Fprintf(c.err, "Switched to a new branch '%s'\n", nb)
			return 0
		}
		// check the switch first, then create the branch
		cur, err := r.treeOf(headHash)
		if err != nil {
			c.dieErr(err)
		}
		toTree, err := r.treeOf(start)
		if err != nil {
			c.dieErr(err)
		}
		_ = cur
		_ = toTree
		old, _ := r.st.Reference(plumbing.ReferenceName(ref))
		from := startName
		if from == "" {
			from = "HEAD"
		}
		if err := r.setRef(ref, start, "branch: Created from "+from); err != nil {
			c.dieErr(err)
		}
		st := c.switchTo(r, ref, nb, start, force, true, quiet)
		if st != 0 {
			if old != nil {
				_ = r.st.SetReference(old)
			} else {
				_ = r.st.RemoveReference(plumbing.ReferenceName(ref))
			}
			return st
		}
		if _, full, ok := r.lookupRef(startName); ok && startName != "" && strings.HasPrefix(full, "refs/remotes/") && !o.has("no-track") {
			c.setUpstream(r, nb, full)
		}
		return 0
	}
	if len(o.args) == 0 && o.has("detach") {
		o.args = []string{"HEAD"}
	}
	if len(o.args) == 0 {
		if verb == "switch" {
			c.die("missing branch or commit argument")
		}
		return 0
	}
	name := o.args[0]
	if name == "-" {
		name = c.previousBranch(r)
		if name == "" {
			c.die("invalid reference: @{-1}")
		}
	}
	ref := "refs/heads/" + name
	if br, err := r.st.Reference(plumbing.ReferenceName(ref)); err == nil && !o.has("detach") {
		return c.switchTo(r, ref, name, br.Hash(), force, false, quiet)
	}
	// a remote branch of that name: create a tracking branch (DWIM)
	if rr, err := r.st.Reference(plumbing.ReferenceName("refs/remotes/origin/" + name)); err == nil && !o.has("detach") {
		if err := r.setRef(ref, rr.Hash(), "branch: Created from refs/remotes/origin/"+name); err != nil {
			c.dieErr(err)
		}
		st := c.switchTo(r, ref, name, rr.Hash(), force, true, quiet)
		if st == 0 {
			c.setUpstream(r, name, "refs/remotes/origin/"+name)
		}
		return st
	}
	h, err := c.resolveCommitish(r, name)
	if err != nil {
		if verb == "switch" {
			c.die("invalid reference: %s", name)
		}
		// git checkout <path> without "--": restore it from the index
		return c.restorePaths(r, c.newPathspec(o.args), o.args, nil, false, true)
	}
	if verb == "switch" && !o.has("detach") {
		c.die("a branch is expected, got commit '%s'", name)
	}
	return c.switchTo(r, "", name, h, force, false, quiet)
}

func (c *cmd) mustCommitOr(r *Repo, rev, verb string) plumbing.Hash {
	h, err := c.resolveCommitish(r, rev)
	if err != nil {
		if verb == "switch" {
			c.die("invalid reference: %s", rev)
		}
		c.die("'%s' is not a commit and a branch '%s' cannot be created from it", rev, rev)
	}
	return h
}

// previousBranch is what @{-1} names: where the latest checkout recorded
// in HEAD's reflog moved from (a branch, or a commit id), as git reads it.
// A repository that gitws switched before it kept git's reflog messages has
// it in desk-previous-branch instead.
func (c *cmd) previousBranch(r *Repo) string {
	if from, _, _, ok := r.lastCheckout(); ok {
		return from
	}
	b, err := c.env.FS.ReadFile(c.env.Ctx, r.GitDir+"/desk-previous-branch")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// lastCheckout reads HEAD's reflog for its latest "checkout: moving from
// FROM to TO" line and the commit it moved to.
func (r *Repo) lastCheckout() (from, to string, at plumbing.Hash, ok bool) {
	data, err := r.env.FS.ReadFile(r.env.Ctx, r.GitDir+"/logs/HEAD")
	if err != nil {
		return "", "", plumbing.ZeroHash, false
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		head, msg, found := strings.Cut(lines[i], "\t")
		rest, isCheckout := strings.CutPrefix(msg, "checkout: moving from ")
		f := strings.Fields(head)
		if !found || !isCheckout || len(f) < 2 {
			continue
		}
		j := strings.LastIndex(rest, " to ")
		if j < 0 {
			continue
		}
		return rest[:j], rest[j+4:], plumbing.NewHash(f[1]), true
	}
	return "", "", plumbing.ZeroHash, false
}

// detachedFrom describes a detached HEAD at h as git status and git branch
// do: the name the latest checkout named (a tag or remote branch without its
// prefix, another ref in full, else the commit it moved to, abbreviated),
// and whether HEAD is still there (detached "at", else "from"). ok is false
// when no checkout is recorded (git: "Not currently on any branch").
func (r *Repo) detachedFrom(h plumbing.Hash) (name string, at, ok bool) {
	_, to, moved, ok := r.lastCheckout()
	if !ok {
		return "", false, false
	}
	name = moved.String()[:7]
	if to != "HEAD" {
		if rh, full, found := r.lookupRef(to); found && full != "HEAD" {
			if ch, err := r.peel(rh, plumbing.CommitObject); rh == moved || err == nil && ch == moved {
				name = full
				for _, p := range []string{"refs/tags/", "refs/remotes/"} {
					if s, cut := strings.CutPrefix(full, p); cut {
						name = s
						break
					}
				}
			}
		}
	}
	return name, h == moved, true
}

func cmdRestore(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"source=", "staged", "worktree", "quiet", "ours", "theirs"},
		short: map[byte]string{'s': "source", 'S': "staged", 'W': "worktree", 'q': "quiet"},
	})
	r := c.needWork()
	paths := append(o.args, o.paths...)
	if len(paths) == 0 {
		c.die("you must specify path(s) to restore")
	}
	staged, work := o.has("staged"), o.has("worktree") || !o.has("staged")
	var src map[string]treeEntry
	switch {
	case o.has("source"):
		src = c.commitFlat(r, o.val("source"))
	case staged:
		_, h, err := r.head()
		if err != nil {
			c.dieErr(err)
		}
		if src, err = r.treeOf(h); err != nil {
			c.dieErr(err)
		}
	}
	if staged && !work {
		return c.restorePaths(r, c.newPathspec(paths), paths, src, true, false)
	}
	return c.restorePaths(r, c.newPathspec(paths), paths, src, staged, true)
}

// detachedAdvice is git's advice on entering a detached HEAD (%s: the
// commit id).
const detachedAdvice = "Note: switching to '%s'.\n\nYou are in 'detached HEAD' state. You can look around, make experimental\nchanges and commit them, and you can discard any commits you make in this\nstate without impacting any branches by switching back to a branch.\n\nIf you want to create a new branch to retain commits you create, you may\ndo so (now or later) by using -c with the switch command. Example:\n\n  git switch -c <new-branch-name>\n\nOr undo this operation with:\n\n  git switch -\n\nTurn off this advice by setting config variable advice.detachedHead to false\n\n"

func cmdReset(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"soft", "mixed", "hard", "quiet", "keep", "merge"},
		short: map[byte]string{'q': "quiet"},
	})
	r := c.needRepo()
	_, headHash, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	rev := "HEAD"
	var paths []string
	if len(o.args) > 0 {
		if _, err := c.resolveCommitish(r, o.args[0]); err == nil {
			rev = o.args[0]
			paths = o.args[1:]
		} else if headHash.IsZero() || o.dash {
			paths = o.args
		} else if _, err := c.env.FS.Lstat(c.env.Ctx, c.env.abs(o.args[0])); err == nil || o.dash {
			paths = o.args
		} else {
			c.badRevision(o.args[0])
		}
	}
	paths = append(paths, o.paths...)
	if len(paths) > 0 {
		if o.has("soft") || o.has("hard") {
			mode := "--soft"
			if o.has("hard") {
				mode = "--hard"
			}
			c.die("Cannot do %s reset with paths.", mode)
		}
		var src map[string]treeEntry
		if headHash.IsZero() && rev == "HEAD" {
			src = map[string]treeEntry{}
		} else {
			src = c.commitFlat(r, rev)
		}
		r2 := c.needWork()
		ps := c.newPathspec(paths)
		idx, err := r2.readIndex()
		if err != nil {
			c.dieErr(err)
		}
		for _, e := range append([]*index.Entry(nil), idx.Entries...) {
			if ps.match(e.Name) {
				if _, ok := src[e.Name]; !ok {
					removeEntry(idx, e.Name)
				}
			}
		}
		for p, te := range src {
			if !ps.match(p) {
				continue
			}
			if old, err := idx.Entry(p); err == nil && old.Hash == te.Hash && old.Mode == te.Mode {
				continue
			}
			removeEntry(idx, p)
			e := &index.Entry{Name: p, Hash: te.Hash, Mode: te.Mode}
			// no stat data: the work tree may hold other content, and stat data
			// copied from it would vouch for it (real git compares whole seconds)
			idx.Entries = append(idx.Entries, e)
		}
		if err := r2.writeIndex(idx); err != nil {
			c.dieErr(err)
		}
		if !o.has("quiet") {
			c.printUnstaged(r2)
		}
		return 0
	}
	to := headHash
	if rev != "HEAD" || !headHash.IsZero() {
		to = c.mustCommit(r, rev)
	}
	switch {
	case o.has("soft"):
		if err := r.updateHead(to, "reset: moving to "+rev); err != nil {
			c.dieErr(err)
		}
	case o.has("hard"):
		c.needWork()
		from, err := r.treeOf(headHash)
		if err != nil {
			c.dieErr(err)
		}
		toTree, err := r.treeOf(to)
		if err != nil {
			c.dieErr(err)
		}
		if _, _, err := r.switchTree(from, toTree, true); err != nil {
			c.dieErr(err)
		}
		if err := r.updateHead(to, "reset: moving to "+rev); err != nil {
			c.dieErr(err)
		}
		for _, f := range []string{"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"} {
			_ = c.env.FS.Remove(c.env.Ctx, r.GitDir+"/"+f)
		}
		if !o.has("quiet") {
			cm, err := object.GetCommit(r.st, to)
			if err != nil {
				c.dieErr(err)
			}
			subj, _ := subjectBody(cm.Message)
			fmt.Fprintf(c.out, "HEAD is now at %s %s\n", to.String()[:7], subj)
		}
	default:
		toTree, err := r.treeOf(to)
		if err != nil {
			c.dieErr(err)
		}
		idx, err := r.readIndex()
		if err != nil {
			c.dieErr(err)
		}
		idx.Entries = treeEntries(toTree, idx)
		if err := r.writeIndex(idx); err != nil {
			c.dieErr(err)
		}
		if err := r.updateHead(to, "reset: moving to "+rev); err != nil {
			c.dieErr(err)
		}
		for _, f := range []string{"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"} {
			_ = c.env.FS.Remove(c.env.Ctx, r.GitDir+"/"+f)
		}
		if !o.has("quiet") && r.Work != "" {
			c.printUnstaged(r)
		}
	}
	return 0
}

// printUnstaged prints "Unstaged changes after reset:" and the list.
func (c *cmd) printUnstaged(r *Repo) {
	st, err := r.status(false)
	if err != nil {
		c.dieErr(err)
	}
	first := true
	for _, ch := range st.changes {
		if ch.Y == ' ' {
			continue
		}
		if first {
			fmt.Fprintln(c.out, "Unstaged changes after reset:")
			first = false
		}
		fmt.Fprintf(c.out, "%c\t%s\n", ch.Y, ch.Path)
	}
}

func cmdTag(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"annotate", "message=", "delete", "list", "force", "file="},
		short: map[byte]string{'a': "annotate", 'm': "message", 'd': "delete", 'l': "list", 'f': "force", 'F': "file", 'n': "n"},
	})
	r := c.needRepo()
	if o.has("delete") {
		status := 0
		for _, t := range o.args {
			ref, err := r.st.Reference(plumbing.ReferenceName("refs/tags/" + t))
			if err != nil {
				c.errorf("tag '%s' not found.", t)
				status = 1
				continue
			}
			if err := r.st.RemoveReference(ref.Name()); err != nil {
				c.dieErr(err)
			}
			fmt.Fprintf(c.out, "Deleted tag '%s' (was %s)\n", t, ref.Hash().String()[:7])
		}
		return status
	}
	if len(o.args) == 0 || o.has("list") {
		refs, err := r.allRefs()
		if err != nil {
			c.dieErr(err)
		}
		for _, ref := range refs {
			n, ok := strings.CutPrefix(ref.Name().String(), "refs/tags/")
			if !ok {
				continue
			}
			if len(o.args) > 0 {
				if m, _ := path.Match(o.args[0], n); !m {
					continue
				}
			}
			fmt.Fprintln(c.out, n)
		}
		return 0
	}
	name := o.args[0]
	if !validBranchName(name) {
		c.die("'%s' is not a valid tag name.", name)
	}
	ref := plumbing.ReferenceName("refs/tags/" + name)
	if old, err := r.st.Reference(ref); err == nil && !o.has("force") {
		_ = old
		c.die("tag '%s' already exists", name)
	}
	target := "HEAD"
	if len(o.args) > 1 {
		target = o.args[1]
	}
	h, err := c.resolve(r, target)
	if err != nil {
		c.die("Failed to resolve '%s' as a valid ref.", target)
	}
	if o.has("annotate") || o.has("message") || o.has("file") {
		msg := strings.Join(o.set["message"], "\n\n")
		if o.has("file") {
			b, err := c.env.FS.ReadFile(c.env.Ctx, c.env.abs(o.val("file")))
			if err != nil {
				c.die("could not open or read '%s': %s", o.val("file"), strerror(err))
			}
			msg = string(b)
		}
		if !o.has("message") && !o.has("file") {
			c.die("no tag message given (the shell backend has no editor): use -m")
		}
		msg = cleanupMessage(msg, true)
		tagger := c.mustIdentity(r, "COMMITTER")
		obj, err := r.st.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			c.dieErr(err)
		}
		tag := &object.Tag{Name: name, Tagger: tagger, Message: msg, TargetType: obj.Type(), Target: h}
		eo := r.st.NewEncodedObject()
		if err := tag.Encode(eo); err != nil {
			c.dieErr(err)
		}
		th, err := r.st.SetEncodedObject(eo)
		if err != nil {
			c.dieErr(err)
		}
		h = th
	}
	if err := r.st.SetReference(plumbing.NewHashReference(ref, h)); err != nil {
		c.dieErr(err)
	}
	return 0
}
