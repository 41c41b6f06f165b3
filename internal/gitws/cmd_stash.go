package gitws

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// stashRef is the ref whose reflog is the stash list.
const stashRef = "refs/stash"

// reflogEntry is one line of a reflog.
type reflogEntry struct {
	old, new plumbing.Hash
	who      string // "Name <email> 1700000000 +0100"
	msg      string
}

// readReflog reads the reflog of the full ref name, oldest first (none when
// there is no log).
func (r *Repo) readReflog(name string) ([]reflogEntry, error) {
	data, err := r.env.FS.ReadFile(r.env.Ctx, r.GitDir+"/logs/"+name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read reflog %s: %w", name, err)
	}
	var out []reflogEntry
	for _, l := range strings.Split(string(data), "\n") {
		if len(l) < 83 || l[40] != ' ' || l[81] != ' ' {
			continue
		}
		who, msg, _ := strings.Cut(l[82:], "\t")
		out = append(out, reflogEntry{old: plumbing.NewHash(l[:40]), new: plumbing.NewHash(l[41:81]), who: who, msg: msg})
	}
	return out, nil
}

// writeReflog replaces the reflog of name (removing it when ents is empty).
func (r *Repo) writeReflog(name string, ents []reflogEntry) error {
	p := r.GitDir + "/logs/" + name
	if len(ents) == 0 {
		if err := r.env.FS.Remove(r.env.Ctx, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove reflog %s: %w", name, err)
		}
		return nil
	}
	var b bytes.Buffer
	for _, e := range ents {
		fmt.Fprintf(&b, "%s %s %s\t%s\n", e.old, e.new, e.who, e.msg)
	}
	if err := r.env.FS.MkdirAll(r.env.Ctx, path.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write reflog %s: %w", name, err)
	}
	if err := r.env.FS.WriteFile(r.env.Ctx, p, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write reflog %s: %w", name, err)
	}
	return nil
}

// sigLine is a signature as a reflog writes it.
func sigLine(s object.Signature) string {
	return fmt.Sprintf("%s <%s> %d %s", s.Name, s.Email, s.When.Unix(), s.When.Format("-0700"))
}

// reflogAt resolves name@{n}: the n-th newest entry of the ref's reflog
// ("" names HEAD). It is what rev.go calls for the @{n} syntax.
func (r *Repo) reflogAt(name, sel string) (plumbing.Hash, error) {
	n, err := strconv.Atoi(sel)
	if err != nil || n < 0 {
		return plumbing.ZeroHash, errBadRev
	}
	full := "HEAD"
	if name != "" && name != "@" && name != "HEAD" {
		_, f, ok := r.lookupRef(name)
		if !ok {
			return plumbing.ZeroHash, errBadRev
		}
		full = f
	}
	ents, err := r.readReflog(full)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n >= len(ents) {
		if n == 0 {
			if h, _, ok := r.lookupRef(full); ok {
				return h, nil
			}
		}
		return plumbing.ZeroHash, fmt.Errorf("log for '%s' only has %d entries: %w", name, len(ents), errBadRev)
	}
	return ents[len(ents)-1-n].new, nil
}

// storeCommit writes a commit object.
func (r *Repo) storeCommit(cm *object.Commit) (plumbing.Hash, error) {
	eo := r.st.NewEncodedObject()
	if err := cm.Encode(eo); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	h, err := r.st.SetEncodedObject(eo)
	if err != nil {
		return h, fmt.Errorf("store commit: %w", err)
	}
	return h, nil
}

// signatures returns the author and committer, dying as git does when
// there is no identity.
func (c *cmd) signatures(r *Repo) (author, committer object.Signature) {
	committer = c.mustIdentity(r, "COMMITTER")
	author = c.mustIdentity(r, "AUTHOR")
	return author, committer
}

func cmdStash(c *cmd, args []string) int {
	sub := "push"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "push":
		return c.stashPush(args, false)
	case "save":
		return c.stashPush(args, true)
	case "list":
		return c.stashList(args)
	case "show":
		return c.stashShow(args)
	case "apply":
		return c.stashApply(args, false)
	case "pop":
		return c.stashApply(args, true)
	case "drop":
		return c.stashDrop(args)
	case "clear":
		r := c.needRepo()
		if len(args) > 0 {
			c.die("git stash clear with arguments is unimplemented")
		}
		if err := r.st.RemoveReference(stashRef); err != nil {
			c.dieErr(err)
		}
		if err := r.writeReflog(stashRef, nil); err != nil {
			c.dieErr(err)
		}
		return 0
	}
	c.die("subcommand wasn't specified; 'push' can't be assumed due to unexpected token '%s'", sub)
	return ExitFatal
}

// stashPush is git stash [push] (save: the old form, message as operands).
func (c *cmd) stashPush(args []string, save bool) int {
	o := c.parse(args, spec{
		long:  []string{"message=", "include-untracked", "no-include-untracked", "all", "keep-index", "no-keep-index", "quiet", "patch", "staged", "pathspec-from-file="},
		short: map[byte]string{'m': "message", 'u': "include-untracked", 'a': "all", 'k': "keep-index", 'q': "quiet", 'p': "patch", 'S': "staged"},
	})
	if o.has("patch") || o.has("staged") || o.has("all") || o.has("pathspec-from-file") {
		c.die("git stash --patch, --staged, --all and --pathspec-from-file are not implemented here (the real git in the sandbox has them)")
	}
	r := c.needWork()
	msg := strings.Join(o.set["message"], "\n\n")
	var paths []string
	if save {
		if len(o.args) > 0 {
			msg = strings.Join(o.args, " ")
		}
		paths = o.paths
	} else {
		paths = append(o.args, o.paths...)
	}
	untracked := o.has("include-untracked") && !o.has("no-include-untracked")
	keep := o.has("keep-index") && !o.has("no-keep-index")
	target, head, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	if head.IsZero() {
		fmt.Fprintln(c.err, "You do not have the initial commit yet")
		return 1
	}
	ps := c.newPathspec(paths)
	st, err := r.status(false)
	if err != nil {
		c.dieErr(err)
	}
	for _, e := range st.idx.Entries {
		if e.Stage != 0 {
			fmt.Fprintf(c.err, "%s: needs merge\n", e.Name)
			c.die("git-write-tree: error building trees")
		}
	}
	// every pattern must name a tracked file (or, with -u, an untracked one)
	for i, pat := range ps.pats {
		ok := false
		for p := range st.tracked {
			if matchOne(pat, p) {
				ok = true
				break
			}
		}
		for _, p := range st.untracked {
			if ok || !untracked {
				break
			}
			ok = matchOne(pat, p)
		}
		if !ok {
			c.errorf("pathspec ':(,prefix:%d)%s' did not match any file(s) known to git", len(c.prefix()), paths[i])
			fmt.Fprintln(c.err, "Did you forget to 'git add'?")
			return 1
		}
	}
	var changed []change
	for _, ch := range st.changes {
		if ps.match(ch.Path) || ch.Orig != "" && ps.match(ch.Orig) {
			changed = append(changed, ch)
		}
	}
	var saveU []string
	if untracked {
		for _, p := range st.untracked {
			if ps.match(p) {
				saveU = append(saveU, p)
			}
		}
	}
	if len(changed) == 0 && len(saveU) == 0 {
		fmt.Fprintln(c.out, "No local changes to save")
		return 0
	}
	headCommit, err := object.GetCommit(r.st, head)
	if err != nil {
		c.dieErr(err)
	}
	branch := "(no branch)"
	if target != "" {
		branch = shortBranch(target)
	}
	subj, _ := subjectBody(headCommit.Message)
	onWhat := fmt.Sprintf("%s: %s %s", branch, head.String()[:7], subj)
	author, committer := c.signatures(r)
	idxFiles := indexFiles(st.idx)
	iTree, err := r.writeTree(idxFiles)
	if err != nil {
		c.dieErr(err)
	}
	iCommit, err := r.storeCommit(&object.Commit{Author: author, Committer: committer, Message: "index on " + onWhat + "\n", TreeHash: iTree, ParentHashes: []plumbing.Hash{head}})
	if err != nil {
		c.dieErr(err)
	}
	parents := []plumbing.Hash{head, iCommit}
	if len(saveU) > 0 {
		uFiles := map[string]treeEntry{}
		for _, p := range saveU {
			a := st.scan.files[p]
			data, err := r.readWork(p, a)
			if err != nil {
				c.dieErr(err)
			}
			h, err := r.storeBlob(data)
			if err != nil {
				c.dieErr(err)
			}
			uFiles[p] = treeEntry{h, modeOf(a)}
		}
		uTree, err := r.writeTree(uFiles)
		if err != nil {
			c.dieErr(err)
		}
		uCommit, err := r.storeCommit(&object.Commit{Author: author, Committer: committer, Message: "untracked files on " + onWhat + "\n", TreeHash: uTree})
		if err != nil {
			c.dieErr(err)
		}
		parents = append(parents, uCommit)
	}
	// the work tree's tree: the index with the work-tree content of the
	// changed tracked paths (a path missing from the work tree is dropped)
	wFiles := make(map[string]treeEntry, len(idxFiles))
	for p, e := range idxFiles {
		wFiles[p] = e
	}
	for _, ch := range changed {
		if ch.Y == ' ' {
			continue
		}
		a, ok := st.scan.files[ch.Path]
		if !ok || ch.Y == 'D' {
			delete(wFiles, ch.Path)
			continue
		}
		data, err := r.readWork(ch.Path, a)
		if err != nil {
			c.dieErr(err)
		}
		h, err := r.storeBlob(data)
		if err != nil {
			c.dieErr(err)
		}
		wFiles[ch.Path] = treeEntry{h, modeOf(a)}
	}
	wTree, err := r.writeTree(wFiles)
	if err != nil {
		c.dieErr(err)
	}
	wMsg := "WIP on " + onWhat
	if msg != "" {
		wMsg = "On " + branch + ": " + msg
	}
	w, err := r.storeCommit(&object.Commit{Author: author, Committer: committer, Message: wMsg, TreeHash: wTree, ParentHashes: parents})
	if err != nil {
		c.dieErr(err)
	}
	var old plumbing.Hash
	if h, _, ok := r.lookupRef(stashRef); ok {
		old = h
	}
	if err := r.st.SetReference(plumbing.NewHashReference(stashRef, w)); err != nil {
		c.dieErr(err)
	}
	ents, err := r.readReflog(stashRef)
	if err != nil {
		c.dieErr(err)
	}
	if err := r.writeReflog(stashRef, append(ents, reflogEntry{old: old, new: w, who: sigLine(committer), msg: wMsg})); err != nil {
		c.dieErr(err)
	}
	// put the stashed paths back as HEAD has them (with -k the index keeps
	// its content and the work tree gets it)
	headFiles := st.headFiles
	for _, ch := range changed {
		p := ch.Path
		want, ok := headFiles[p]
		if keep {
			want, ok = idxFiles[p]
			if ch.Y == ' ' {
				continue
			}
		}
		if err := c.resetPath(r, st.idx, p, want, ok); err != nil {
			c.dieErr(err)
		}
		if ch.Orig != "" && !keep {
			o, ok := headFiles[ch.Orig]
			if err := c.resetPath(r, st.idx, ch.Orig, o, ok); err != nil {
				c.dieErr(err)
			}
		}
	}
	if err := r.writeIndex(st.idx); err != nil {
		c.dieErr(err)
	}
	if target, h, err := r.head(); err == nil && target != "" {
		r.appendReflog("HEAD", h, h, "reset: moving to HEAD") // git stash resets --hard so
	}
	for _, p := range saveU {
		if err := r.removeWorkFile(p); err != nil {
			c.dieErr(err)
		}
	}
	if !o.has("quiet") {
		fmt.Fprintf(c.out, "Saved working directory and index state %s\n", wMsg)
	}
	return 0
}

// resetPath makes path p of the index and the work tree te (ok false:
// absent).
func (c *cmd) resetPath(r *Repo, idx *index.Index, p string, te treeEntry, ok bool) error {
	removeEntry(idx, p)
	if !ok {
		return r.removeWorkFile(p)
	}
	ne, err := r.writeWorkFile(p, te)
	if err != nil {
		return err
	}
	idx.Entries = append(idx.Entries, ne)
	return nil
}

func (c *cmd) stashList(args []string) int {
	r := c.needRepo()
	_ = args
	ents, err := r.readReflog(stashRef)
	if err != nil {
		c.dieErr(err)
	}
	for i := len(ents) - 1; i >= 0; i-- {
		fmt.Fprintf(c.out, "stash@{%d}: %s\n", len(ents)-1-i, ents[i].msg)
	}
	return 0
}

// stashEntry is one stash named on the command line.
type stashEntry struct {
	name  string // as git prints it: "refs/stash@{0}" by default, else the argument
	n     int    // its position in the reflog (-1: not a stash reference)
	w     *object.Commit
	b, i  *object.Commit
	u     *object.Commit // nil without untracked files
	wTree map[string]treeEntry
}

// stashArg finds the stash an argument names (none: the newest), printing
// git's error and ending the command when there is none or it is no stash.
func (c *cmd) stashArg(r *Repo, args []string) stashEntry {
	ents, err := r.readReflog(stashRef)
	if err != nil {
		c.dieErr(err)
	}
	if len(args) > 1 {
		c.die("Too many revisions specified: %s", strings.Join(args, " "))
	}
	se := stashEntry{name: "refs/stash@{0}", n: 0}
	arg := ""
	if len(args) == 1 {
		arg = args[0]
		se.name = arg
		if _, err := strconv.Atoi(arg); err == nil {
			arg = "stash@{" + arg + "}"
			se.name = arg
		}
	} else if len(ents) == 0 {
		fmt.Fprintln(c.err, "No stash entries found.")
		c.exit(1)
	}
	var h plumbing.Hash
	if arg == "" {
		h = ents[len(ents)-1].new
	} else {
		se.n = -1
		for _, pre := range []string{"stash@{", "refs/stash@{"} {
			if rest, ok := strings.CutPrefix(arg, pre); ok && strings.HasSuffix(rest, "}") {
				if n, err := strconv.Atoi(strings.TrimSuffix(rest, "}")); err == nil && n >= 0 {
					if n >= len(ents) {
						if len(ents) == 0 {
							c.errorf("%s is not a valid reference", arg)
							c.exit(1)
						}
						c.die("log for 'stash' only has %d entries", len(ents))
					}
					se.n = n
				}
			}
		}
		var err error
		h, err = c.resolve(r, arg)
		if err != nil {
			c.errorf("%s is not a valid reference", arg)
			c.exit(1)
		}
	}
	w, err := object.GetCommit(r.st, h)
	if err != nil || len(w.ParentHashes) < 2 {
		c.die("'%s' is not a stash-like commit", se.name)
	}
	se.w = w
	if se.b, err = object.GetCommit(r.st, w.ParentHashes[0]); err != nil {
		c.dieErr(err)
	}
	if se.i, err = object.GetCommit(r.st, w.ParentHashes[1]); err != nil {
		c.dieErr(err)
	}
	if len(w.ParentHashes) > 2 {
		if se.u, err = object.GetCommit(r.st, w.ParentHashes[2]); err != nil {
			c.dieErr(err)
		}
	}
	if se.wTree, err = r.flatTree(w.TreeHash); err != nil {
		c.dieErr(err)
	}
	return se
}

func (c *cmd) stashShow(args []string) int {
	sp := diffSpec()
	sp = append(sp, "include-untracked", "only-untracked", "no-include-untracked")
	o := c.parse(args, spec{long: sp, short: map[byte]string{'p': "patch", 'u': "include-untracked", 'U': "unified"}})
	r := c.needRepo()
	se := c.stashArg(r, o.args)
	d := readDiffOpts(o, false)
	if !d.patch && !d.numstat && !d.shortstat && !d.nameOnly && !d.nameStatus {
		d.stat = true
	}
	from, err := r.flatTree(se.b.TreeHash)
	if err != nil {
		c.dieErr(err)
	}
	to := se.wTree
	if se.u != nil && (o.has("include-untracked") || o.has("only-untracked")) {
		ut, err := r.flatTree(se.u.TreeHash)
		if err != nil {
			c.dieErr(err)
		}
		merged := map[string]treeEntry{}
		if !o.has("only-untracked") {
			for p, e := range to {
				merged[p] = e
			}
		} else {
			from = map[string]treeEntry{}
		}
		for p, e := range ut {
			merged[p] = e
		}
		to = merged
	}
	c.writeDiff(c.out, r, detectRenames(diffFlat(from, to, pathspec{})), d)
	return 0
}

// stashDrop removes entry se.n from the stash reflog and prints git's line.
func (c *cmd) dropStash(r *Repo, se stashEntry) {
	ents, err := r.readReflog(stashRef)
	if err != nil {
		c.dieErr(err)
	}
	k := len(ents) - 1 - se.n
	if k+1 < len(ents) {
		ents[k+1].old = ents[k].old // git reflog delete --rewrite
	}
	ents = append(ents[:k], ents[k+1:]...)
	if len(ents) == 0 {
		if err := r.st.RemoveReference(stashRef); err != nil {
			c.dieErr(err)
		}
	} else if err := r.st.SetReference(plumbing.NewHashReference(stashRef, ents[len(ents)-1].new)); err != nil {
		c.dieErr(err)
	}
	if err := r.writeReflog(stashRef, ents); err != nil {
		c.dieErr(err)
	}
	fmt.Fprintf(c.out, "Dropped %s (%s)\n", se.name, se.w.Hash)
}

func (c *cmd) stashDrop(args []string) int {
	o := c.parse(args, spec{long: []string{"quiet"}, short: map[byte]string{'q': "quiet"}})
	r := c.needRepo()
	se := c.stashArg(r, o.args)
	if se.n < 0 {
		c.errorf("'%s' is not a stash reference", se.name)
		return 1
	}
	if o.has("quiet") {
		c.out = discard{}
	}
	c.dropStash(r, se)
	return 0
}

// stashApply is git stash apply and pop: the stash's changes merged into
// the work tree (merge-recursive's messages, "Updated upstream" and
// "Stashed changes" as conflict labels), the index restored with --index,
// untracked files put back, then git status.
func (c *cmd) stashApply(args []string, pop bool) int {
	o := c.parse(args, spec{long: []string{"index", "quiet"}, short: map[byte]string{'q': "quiet"}})
	r := c.needWork()
	se := c.stashArg(r, o.args)
	if pop && se.n < 0 {
		c.errorf("'%s' is not a stash reference", se.name)
		return 1
	}
	quiet := o.has("quiet")
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	for _, e := range idx.Entries {
		if e.Stage != 0 {
			c.die("Cannot apply a stash in the middle of a merge")
		}
	}
	ours := indexFiles(idx)
	base, err := r.flatTree(se.b.TreeHash)
	if err != nil {
		c.dieErr(err)
	}
	var indexTree map[string]treeEntry
	if o.has("index") && se.i.TreeHash != se.b.TreeHash {
		iFiles, err := r.flatTree(se.i.TreeHash)
		if err != nil {
			c.dieErr(err)
		}
		indexTree = map[string]treeEntry{}
		for p, e := range ours {
			indexTree[p] = e
		}
		for _, pr := range diffFlat(base, iFiles, pathspec{}) {
			cur, has := ours[pr.Path]
			was, wasOK := base[pr.Path]
			now, nowOK := iFiles[pr.Path]
			switch {
			case has == wasOK && cur == was:
			case has == nowOK && cur == now:
			default:
				fmt.Fprintln(c.err, "error: patch failed: "+pr.Path)
				fmt.Fprintln(c.err, "Conflicts in index. Try without --index.")
				return 1
			}
			if nowOK {
				indexTree[pr.Path] = now
			} else {
				delete(indexTree, pr.Path)
			}
		}
	}
	var uFiles map[string]treeEntry
	if se.u != nil {
		if uFiles, err = r.flatTree(se.u.TreeHash); err != nil {
			c.dieErr(err)
		}
	}
	out := c.out
	if quiet {
		c.out = discard{}
	}
	failed := false
	if se.b.TreeHash == se.w.TreeHash {
		fmt.Fprintln(out, "Already up to date.") // merge-recursive prints it even when quiet
	} else {
		st, err := r.status(false)
		if err != nil {
			c.dieErr(err)
		}
		var dirty []string
		for _, ch := range st.changes {
			if ch.Y != ' ' && base[ch.Path] != se.wTree[ch.Path] {
				dirty = append(dirty, ch.Path)
			}
		}
		if len(dirty) > 0 {
			c.reportOverwrite("merge", dirty, nil)
			failed = true
		} else {
			conflicts, msgs := c.mergeFiles(r, idx, base, ours, se.wTree, "Updated upstream", "Stashed changes")
			for _, m := range msgs {
				fmt.Fprintln(c.out, m)
			}
			// merge-recursive stores the tree of its result (the
			// conflicted files with their markers)
			if err := c.storeMergeResult(r, idx, conflicts); err != nil {
				c.dieErr(err)
			}
			if len(conflicts) > 0 {
				failed = true
				if o.has("index") {
					fmt.Fprintln(c.err, "Index was not unstashed.")
				}
			} else if indexTree != nil {
				c.setIndexTo(r, idx, indexTree, nil)
			} else {
				c.setIndexTo(r, idx, ours, indexFiles(idx))
			}
			if err := r.writeIndex(idx); err != nil {
				c.dieErr(err)
			}
		}
	}
	if uFiles != nil {
		exists := false
		for _, p := range sortedKeys(uFiles) {
			if _, err := c.env.FS.Lstat(c.env.Ctx, r.Work+"/"+p); err == nil {
				fmt.Fprintf(c.err, "%s already exists, no checkout\n", p)
				exists = true
			}
		}
		if exists {
			c.errorf("could not restore untracked files from stash")
			failed = true
		} else {
			for _, p := range sortedKeys(uFiles) {
				if _, err := r.writeWorkFile(p, uFiles[p]); err != nil {
					c.dieErr(err)
				}
			}
		}
	}
	if !quiet {
		cmdStatus(c, nil)
	}
	c.out = out
	if failed {
		if pop {
			fmt.Fprintln(c.out, "The stash entry is kept in case you need it again.")
		}
		return 1
	}
	if pop {
		if quiet {
			c.out = discard{}
		}
		c.dropStash(r, se)
	}
	return 0
}

// setIndexTo makes idx's stage-0 entries the files of want; with keepNew,
// a file of keepNew that want lacks stays (git stash apply keeps the files
// the stash added staged). Entries whose content changes lose their stat
// data, so status reads the work tree again.
func (c *cmd) setIndexTo(r *Repo, idx *index.Index, want, keepNew map[string]treeEntry) {
	final := map[string]treeEntry{}
	for p, e := range want {
		final[p] = e
	}
	for p, e := range keepNew {
		if _, ok := want[p]; !ok {
			final[p] = e
		}
	}
	idx.Entries = treeEntries(final, idx)
}

func sortedKeys(m map[string]treeEntry) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// storeMergeResult writes the tree merge-recursive leaves behind: the
// index's files, a conflicted path as the work tree holds it (with its
// markers).
func (c *cmd) storeMergeResult(r *Repo, idx *index.Index, conflicts []string) error {
	files := indexFiles(idx)
	for _, p := range conflicts {
		fi, err := c.env.FS.Lstat(c.env.Ctx, r.Work+"/"+p)
		if err != nil {
			continue
		}
		data, err := r.readWork(p, fi.Attr())
		if err != nil {
			return err
		}
		h, err := r.storeBlob(data)
		if err != nil {
			return err
		}
		files[p] = treeEntry{h, modeOf(fi.Attr())}
	}
	_, err := r.writeTree(files)
	return err
}
