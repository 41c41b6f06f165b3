package gitws

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/desk-dev/desk/internal/textdiff"
)

// mergeOpts choose how merge combines.
type mergeOpts struct {
	ffOnly, noFF bool
	quiet        bool
	message      string
	name         string // what the message names ("branch 'x'")
	action       string // the reflog's prefix: "merge topic", "pull -q origin main"
}

// merge3 merges the lines of base, ours and theirs as git's default
// (zealous) merge does: conflicts get "<<<<<<< ours", "=======",
// ">>>>>>> theirs" markers. It reports whether there were conflicts.
func merge3(base, ours, theirs []string, oursName, theirsName string) ([]string, bool, error) {
	ctx := contextBackground()
	ro, err := textdiff.Diff(ctx, base, ours, textdiff.Options{Minimal: true, MaxCost: 1 << 30, MaxWork: 1 << 40})
	if err != nil {
		return nil, false, err
	}
	rt, err := textdiff.Diff(ctx, base, theirs, textdiff.Options{Minimal: true, MaxCost: 1 << 30, MaxWork: 1 << 40})
	if err != nil {
		return nil, false, err
	}
	type ch struct {
		textdiff.Change
		side int
	}
	var all []ch
	for _, c := range ro.Changes {
		all = append(all, ch{c, 0})
	}
	for _, c := range rt.Changes {
		all = append(all, ch{c, 1})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].A0 < all[j].A0 })
	var out []string
	conflict := false
	pos := 0 // in base
	// offsets: map base index to side index outside changes
	mapPos := func(changes []textdiff.Change, a int) int {
		d := 0
		for _, c := range changes {
			if c.A1 <= a {
				d = (c.B1 - c.A1)
			} else {
				break
			}
		}
		return a + d
	}
	for i := 0; i < len(all); {
		lo, hi := all[i].A0, all[i].A1
		j := i + 1
		sides := map[int]bool{all[i].side: true}
		for j < len(all) && (all[j].A0 < hi || all[j].A0 == hi && (all[j].A0 == all[j].A1 || hi == lo) || all[j].A0 <= hi && all[j].side != all[j-1].side && all[j].A0 == hi) {
			if all[j].A1 > hi {
				hi = all[j].A1
			}
			sides[all[j].side] = true
			j++
		}
		out = append(out, base[pos:lo]...)
		ob, oe := mapPos(ro.Changes, lo), mapPos(ro.Changes, hi)
		tb, te := mapPos(rt.Changes, lo), mapPos(rt.Changes, hi)
		// the side ranges covering [lo,hi)
		ob, oe = sideRange(ro.Changes, lo, hi, ob, oe)
		tb, te = sideRange(rt.Changes, lo, hi, tb, te)
		o, t := ours[ob:oe], theirs[tb:te]
		switch {
		case len(sides) == 1 && sides[0]:
			out = append(out, o...)
		case len(sides) == 1:
			out = append(out, t...)
		case equalLines(o, t):
			out = append(out, o...)
		default:
			// zealous: common lines at both ends stay outside the markers
			p := 0
			for p < len(o) && p < len(t) && o[p] == t[p] {
				p++
			}
			s := 0
			for s < len(o)-p && s < len(t)-p && o[len(o)-1-s] == t[len(t)-1-s] {
				s++
			}
			out = append(out, o[:p]...)
			conflict = true
			out = append(out, "<<<<<<< "+oursName+"\n")
			out = append(out, endNL(o[p:len(o)-s])...)
			out = append(out, "=======\n")
			out = append(out, endNL(t[p:len(t)-s])...)
			out = append(out, ">>>>>>> "+theirsName+"\n")
			out = append(out, o[len(o)-s:]...)
		}
		pos = hi
		i = j
	}
	out = append(out, base[pos:]...)
	return out, conflict, nil
}

// sideRange maps the base range [lo,hi) to one side: the changes inside it
// widen it to their replacement.
func sideRange(changes []textdiff.Change, lo, hi, b, e int) (int, int) {
	for _, c := range changes {
		if c.A0 >= lo && c.A1 <= hi {
			if c.A0 == lo {
				b = c.B0
			}
			if c.A1 == hi {
				e = c.B1
			}
		}
	}
	return b, e
}

func endNL(ls []string) []string {
	if len(ls) > 0 && !strings.HasSuffix(ls[len(ls)-1], "\n") {
		cp := append([]string(nil), ls...)
		cp[len(cp)-1] += "\n"
		return cp
	}
	return ls
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func cmdMerge(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"ff-only", "no-ff", "ff", "abort", "message=", "quiet", "no-edit", "continue", "stat", "no-stat", "squash"},
		short: map[byte]string{'m': "message", 'q': "quiet", 'n': "no-stat"},
	})
	r := c.needWork()
	if o.has("abort") {
		if _, err := c.env.FS.Stat(c.env.Ctx, r.GitDir+"/MERGE_HEAD"); err != nil {
			c.die("There is no merge to abort (MERGE_HEAD missing).")
		}
		return cmdReset(c, []string{"--hard", "-q"})
	}
	if o.has("continue") {
		return cmdCommit(c, []string{"--no-edit"})
	}
	if len(o.args) != 1 {
		c.die("No remote for the current branch.")
	}
	return c.merge(r, o.args[0], mergeOpts{quiet: o.has("quiet"), ffOnly: o.has("ff-only"), noFF: o.has("no-ff"), message: strings.Join(o.set["message"], "\n\n"), name: o.args[0], action: "merge " + o.args[0]})
}

// merge merges rev into HEAD.
func (c *cmd) merge(r *Repo, rev string, mo mergeOpts) int {
	loud := c.out
	if mo.quiet {
		c.out = discard{}
		defer func() { c.out = loud }()
	}
	if _, err := c.env.FS.Stat(c.env.Ctx, r.GitDir+"/MERGE_HEAD"); err == nil {
		fmt.Fprint(c.err, "error: Merging is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\n")
		c.die("Exiting because of an unresolved conflict.")
	}
	theirs, err := c.resolveCommitish(r, rev)
	if err != nil {
		fmt.Fprintf(c.err, "merge: %s - not something we can merge\n", rev)
		return 1
	}
	target, ours, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	if ours.IsZero() {
		// merging into an unborn branch: take theirs
		return c.fastForward(r, ours, theirs, mo.action+": Fast-forward")
	}
	reach, err := r.reachable(ours, 0)
	if err != nil {
		c.dieErr(err)
	}
	if reach[theirs] {
		fmt.Fprintln(c.out, "Already up to date.")
		return 0
	}
	base, err := r.mergeBase(ours, theirs)
	if err != nil {
		c.dieErr(err)
	}
	if base == ours && !mo.noFF {
		fmt.Fprintf(c.out, "Updating %s..%s\n", ours.String()[:7], theirs.String()[:7])
		return c.fastForward(r, ours, theirs, mo.action+": Fast-forward")
	}
	if mo.ffOnly {
		if strings.HasPrefix(mo.name, "refs/remotes/") {
			fmt.Fprint(c.err, "hint: Diverging branches can't be fast-forwarded, you need to either:\nhint: \nhint: \tgit merge --no-ff\nhint: \nhint: or:\nhint: \nhint: \tgit rebase\nhint: \nhint: Disable this message with \"git config advice.diverging false\"\n")
		}
		c.die("Not possible to fast-forward, aborting.")
	}
	theirName := rev
	msg := mo.message
	if msg == "" {
		if rest, ok := strings.CutPrefix(mo.name, "refs/remotes/"); ok {
			rm, b, _ := strings.Cut(rest, "/")
			u, _ := c.remoteURL(r, rm)
			msg = fmt.Sprintf("Merge branch '%s' of %s", b, u)
			theirName = rest
		} else if _, full, ok := r.lookupRef(rev); ok && strings.HasPrefix(full, "refs/heads/") {
			msg = fmt.Sprintf("Merge branch '%s'", rev)
		} else if ok && strings.HasPrefix(full, "refs/tags/") {
			msg = fmt.Sprintf("Merge tag '%s'", rev)
		} else {
			msg = fmt.Sprintf("Merge commit '%s'", rev)
		}
		if target != "" && shortBranch(target) != "master" && shortBranch(target) != "main" {
			msg += " into " + shortBranch(target)
		}
	}
	baseTree, err := r.treeOf(base)
	if err != nil {
		c.dieErr(err)
	}
	ourTree, err := r.treeOf(ours)
	if err != nil {
		c.dieErr(err)
	}
	theirTree, err := r.treeOf(theirs)
	if err != nil {
		c.dieErr(err)
	}
	// refuse when local changes touch what the merge changes
	st, err := r.status(false)
	if err != nil {
		c.dieErr(err)
	}
	var dirty []string
	for _, ch := range st.changes {
		b, t := baseTree[ch.Path], theirTree[ch.Path]
		if b != t {
			dirty = append(dirty, ch.Path)
		}
	}
	if len(dirty) > 0 {
		return c.reportOverwrite("merge", dirty, nil)
	}
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	conflicts, msgs := c.mergeFiles(r, idx, baseTree, ourTree, theirTree, "HEAD", theirName)
	if err := r.writeIndex(idx); err != nil {
		c.dieErr(err)
	}
	if len(conflicts) > 0 {
		// as ort, store the tree of the result, markers and all
		if err := c.storeMergeResult(r, idx, conflicts); err != nil {
			c.dieErr(err)
		}
		for _, m := range msgs {
			fmt.Fprintln(loud, m)
		}
		_ = c.env.FS.WriteFile(c.env.Ctx, r.GitDir+"/MERGE_HEAD", []byte(theirs.String()+"\n"), 0o644)
		_ = c.env.FS.WriteFile(c.env.Ctx, r.GitDir+"/MERGE_MODE", []byte("no-ff"), 0o644)
		cm := msg + "\n\n# Conflicts:\n"
		for _, p := range conflicts {
			cm += "#\t" + p + "\n"
		}
		_ = c.env.FS.WriteFile(c.env.Ctx, r.GitDir+"/MERGE_MSG", []byte(cm), 0o644)
		fmt.Fprintln(loud, "Automatic merge failed; fix conflicts and then commit the result.")
		return 1
	}
	for _, m := range msgs {
		fmt.Fprintln(c.out, m)
	}
	treeHash, err := r.writeTree(indexFiles(idx))
	if err != nil {
		c.dieErr(err)
	}
	author, committer := c.signatures(r)
	cm := &object.Commit{Author: author, Committer: committer, Message: cleanupMessage(msg, false), TreeHash: treeHash, ParentHashes: []plumbing.Hash{ours, theirs}}
	h, err := r.storeCommit(cm)
	if err != nil {
		c.dieErr(err)
	}
	if err := r.updateHead(h, mo.action+": Merge made by the 'ort' strategy."); err != nil {
		c.dieErr(err)
	}
	fmt.Fprintln(c.out, "Merge made by the 'ort' strategy.")
	c.statSince(r, ourTree, h)
	return 0
}

// mergeFiles merges the flat trees base, ours and theirs path by path into
// idx and the work tree (which must hold ours): a path changed on one side
// takes that side, a file changed on both is merged line by line with
// merge3 (conflict markers labelled oursName and theirName), and a
// conflict leaves stages 1-3 in idx. It returns the conflicted paths and
// the messages git prints ("Auto-merging p", "CONFLICT (...)").
func (c *cmd) mergeFiles(r *Repo, idx *index.Index, baseTree, ourTree, theirTree map[string]treeEntry, oursName, theirName string) (conflicts, msgs []string) {
	paths := map[string]bool{}
	for _, m := range []map[string]treeEntry{baseTree, ourTree, theirTree} {
		for p := range m {
			paths[p] = true
		}
	}
	var names []string
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		b, bok := baseTree[p]
		o, ook := ourTree[p]
		t, tok := theirTree[p]
		switch {
		case ook == tok && o == t:
			continue // same on both sides
		case bok == tok && b == t:
			continue // only ours changed
		case bok == ook && b == o:
			// only theirs changed: take theirs
			if !tok {
				if err := r.removeWorkFile(p); err != nil {
					c.dieErr(err)
				}
				removeEntry(idx, p)
				continue
			}
			ne, err := r.writeWorkFile(p, t)
			if err != nil {
				c.dieErr(err)
			}
			removeEntry(idx, p)
			idx.Entries = append(idx.Entries, ne)
			continue
		}
		// both changed
		if !ook || !tok {
			side := oursName
			if !tok {
				side = theirName
			}
			modified := theirName
			if !tok {
				modified = oursName
			}
			msgs = append(msgs, fmt.Sprintf("CONFLICT (modify/delete): %s deleted in %s and modified in %s.  Version %s of %s left in tree.", p, side, modified, modified, p))
			conflicts = append(conflicts, p)
			removeEntry(idx, p)
			if bok {
				idx.Entries = append(idx.Entries, &index.Entry{Name: p, Hash: b.Hash, Mode: b.Mode, Stage: index.AncestorMode})
			}
			if ook {
				idx.Entries = append(idx.Entries, &index.Entry{Name: p, Hash: o.Hash, Mode: o.Mode, Stage: index.OurMode})
			} else {
				if _, err := r.writeWorkFile(p, t); err != nil {
					c.dieErr(err)
				}
				idx.Entries = append(idx.Entries, &index.Entry{Name: p, Hash: t.Hash, Mode: t.Mode, Stage: index.TheirMode})
			}
			continue
		}
		msgs = append(msgs, "Auto-merging "+p)
		var bl []string
		if bok {
			bd, err := r.blob(b.Hash)
			if err != nil {
				c.dieErr(err)
			}
			bl = textdiff.SplitLines(string(bd))
		}
		od, err := r.blob(o.Hash)
		if err != nil {
			c.dieErr(err)
		}
		td, err := r.blob(t.Hash)
		if err != nil {
			c.dieErr(err)
		}
		if isBinary(od) || isBinary(td) {
			msgs = append(msgs, "warning: Cannot merge binary files: "+p+" ("+oursName+" vs. "+theirName+")", "CONFLICT (content): Merge conflict in "+p)
			conflicts = append(conflicts, p)
			c.stageConflict(idx, p, b, bok, o, t)
			continue
		}
		merged, conflict, err := merge3(bl, textdiff.SplitLines(string(od)), textdiff.SplitLines(string(td)), oursName, theirName)
		if err != nil {
			c.dieErr(err)
		}
		data := []byte(strings.Join(merged, ""))
		mode := o.Mode
		if b.Mode == o.Mode {
			mode = t.Mode
		}
		if conflict {
			if !bok {
				msgs[len(msgs)-1] = "Auto-merging " + p
				msgs = append(msgs, "CONFLICT (add/add): Merge conflict in "+p)
			} else {
				msgs = append(msgs, "CONFLICT (content): Merge conflict in "+p)
			}
			conflicts = append(conflicts, p)
			if err := r.makeParents(p); err != nil {
				c.dieErr(err)
			}
			if err := c.env.FS.WriteFile(c.env.Ctx, r.Work+"/"+p, data, 0o644); err != nil {
				c.dieErr(err)
			}
			c.stageConflict(idx, p, b, bok, o, t)
			continue
		}
		h, err := r.storeBlob(data)
		if err != nil {
			c.dieErr(err)
		}
		ne, err := r.writeWorkFile(p, treeEntry{h, mode})
		if err != nil {
			c.dieErr(err)
		}
		removeEntry(idx, p)
		idx.Entries = append(idx.Entries, ne)
	}
	return conflicts, msgs
}

func (c *cmd) stageConflict(idx *index.Index, p string, b treeEntry, bok bool, o, t treeEntry) {
	removeEntry(idx, p)
	if bok {
		idx.Entries = append(idx.Entries, &index.Entry{Name: p, Hash: b.Hash, Mode: b.Mode, Stage: index.AncestorMode})
	}
	idx.Entries = append(idx.Entries, &index.Entry{Name: p, Hash: o.Hash, Mode: o.Mode, Stage: index.OurMode})
	idx.Entries = append(idx.Entries, &index.Entry{Name: p, Hash: t.Hash, Mode: t.Mode, Stage: index.TheirMode})
}

// fastForward moves HEAD (and the work tree) from ours to theirs.
func (c *cmd) fastForward(r *Repo, ours, theirs plumbing.Hash, reflog string) int {
	from, err := r.treeOf(ours)
	if err != nil {
		c.dieErr(err)
	}
	to, err := r.treeOf(theirs)
	if err != nil {
		c.dieErr(err)
	}
	dirty, untracked, err := r.switchTree(from, to, false)
	if err != nil {
		c.dieErr(err)
	}
	if len(dirty) > 0 || len(untracked) > 0 {
		return c.reportOverwrite("merge", dirty, untracked)
	}
	if err := r.updateHead(theirs, reflog); err != nil {
		c.dieErr(err)
	}
	if !ours.IsZero() {
		fmt.Fprintln(c.out, "Fast-forward")
		c.statSince(r, from, theirs)
	}
	return 0
}

// statSince prints the diffstat from a flat tree to a commit, with the
// create/delete lines, as merge does.
func (c *cmd) statSince(r *Repo, from map[string]treeEntry, h plumbing.Hash) {
	to, err := r.treeOf(h)
	if err != nil {
		c.dieErr(err)
	}
	pairs := detectRenames(diffFlat(from, to, pathspec{}))
	c.writeDiff(c.out, r, pairs, diffOpts{stat: true, context: 3})
	for _, p := range pairs {
		switch p.status() {
		case 'A':
			fmt.Fprintf(c.out, " create mode %06o %s\n", uint32(p.New.Mode), p.Path)
		case 'D':
			fmt.Fprintf(c.out, " delete mode %06o %s\n", uint32(p.Old.Mode), p.Path)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
