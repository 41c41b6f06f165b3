package gitws

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// splitRevsPaths separates revision arguments from paths, as git does
// without "--": leading arguments that resolve are revisions; the rest must
// exist in the work tree, else the ambiguity is fatal.
func (c *cmd) splitRevsPaths(r *Repo, o *opts) (revs, paths []string) {
	i := 0
	for ; i < len(o.args); i++ {
		a := o.args[i]
		if _, _, ok := c.rangeParts(a); ok {
			revs = append(revs, a)
			continue
		}
		if _, err := c.resolve(r, a); err == nil {
			revs = append(revs, a)
			continue
		}
		break
	}
	for _, a := range o.args[i:] {
		if o.dash {
			c.badRevision(a)
		}
		if r.Work != "" {
			if _, err := c.env.FS.Lstat(c.env.Ctx, c.env.abs(a)); err == nil {
				paths = append(paths, a)
				continue
			} else if !errors.Is(err, fs.ErrNotExist) {
				c.dieErr(err)
			}
		}
		c.badRevision(a)
	}
	return revs, append(paths, o.paths...)
}

// rangeParts splits "A..B" and "A...B"; an empty side is HEAD, as in git
// ("A..", "..B").
func (c *cmd) rangeParts(a string) (string, string, bool) {
	n := 2
	i := strings.Index(a, "...")
	if i >= 0 {
		n = 3
	} else if i = strings.Index(a, ".."); i < 0 {
		return "", "", false
	}
	from, to := a[:i], a[i+n:]
	if from == "" {
		from = "HEAD"
	}
	if to == "" {
		to = "HEAD"
	}
	return from, to, true
}

// commitTree returns the flat tree of a commit-ish.
func (c *cmd) commitFlat(r *Repo, rev string) map[string]treeEntry {
	h := c.mustCommit(r, rev)
	cm, err := object.GetCommit(r.st, h)
	if err != nil {
		c.dieErr(err)
	}
	f, err := r.flatTree(cm.TreeHash)
	if err != nil {
		c.dieErr(err)
	}
	return f
}

// worktreeFlat is the work tree seen as a flat tree of the tracked paths
// (stat-clean files keep the index's id; others are read and hashed).
func (r *Repo) worktreeFlat() (map[string]treeEntry, map[string][]byte, error) {
	st, err := r.status(false)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]treeEntry{}
	data := map[string][]byte{}
	dirty := map[string]byte{}
	for _, ch := range st.changes {
		dirty[ch.Path] = ch.Y
	}
	for _, e := range st.idx.Entries {
		if e.Stage != 0 && e.Stage != 2 {
			continue
		}
		y := dirty[e.Name]
		if y == 'D' {
			continue
		}
		if y == 0 || y == ' ' {
			out[e.Name] = treeEntry{e.Hash, e.Mode}
			continue
		}
		a, ok := st.scan.files[e.Name]
		if !ok {
			continue
		}
		b, err := r.readWork(e.Name, a)
		if err != nil {
			return nil, nil, err
		}
		h := hashBlob(b)
		out[e.Name] = treeEntry{h, modeOf(a)}
		data[e.Name] = b
	}
	return out, data, nil
}

func cmdDiff(c *cmd, args []string) int {
	o := c.parse(args, spec{long: diffSpec(), short: map[byte]string{'U': "unified", 'p': "patch", 'u': "patch", 's': "no-patch", 'M': "find-renames"}})
	r := c.needRepo()
	d := readDiffOpts(o, true)
	revs, paths := c.splitRevsPaths(r, o)
	ps := c.newPathspec(paths)
	var pairs []filePair
	cached := o.has("cached") || o.has("staged")
	switch {
	case len(revs) == 1 && strings.Contains(revs[0], ".."):
		a, b, _ := c.rangeParts(revs[0])
		if strings.Contains(revs[0], "...") {
			base, err := r.mergeBase(c.mustCommit(r, a), c.mustCommit(r, b))
			if err != nil || base.IsZero() {
				c.die("%s: no merge base", revs[0])
			}
			a = base.String()
		}
		pairs = diffFlat(c.commitFlat(r, a), c.commitFlat(r, b), ps)
	case len(revs) == 2:
		pairs = diffFlat(c.commitFlat(r, revs[0]), c.commitFlat(r, revs[1]), ps)
	case len(revs) > 2:
		c.die("too many revisions")
	case cached:
		rev := "HEAD"
		if len(revs) == 1 {
			rev = revs[0]
		}
		var old map[string]treeEntry
		if _, h, err := r.head(); err == nil && h.IsZero() && rev == "HEAD" {
			old = map[string]treeEntry{}
		} else {
			old = c.commitFlat(r, rev)
		}
		idx, err := r.readIndex()
		if err != nil {
			c.dieErr(err)
		}
		pairs = diffFlat(old, indexFiles(idx), ps)
	case len(revs) == 1:
		if r.Work == "" {
			c.die("this operation must be run in a work tree")
		}
		wt, data, err := r.worktreeFlat()
		if err != nil {
			c.dieErr(err)
		}
		pairs = diffFlat(c.commitFlat(r, revs[0]), wt, ps)
		for i := range pairs {
			if b, ok := data[pairs[i].Path]; ok && pairs[i].New.Mode != 0 {
				pairs[i].New.data, pairs[i].New.has = b, true
			}
		}
	default:
		if r.Work == "" {
			c.die("this operation must be run in a work tree")
		}
		idx, err := r.readIndex()
		if err != nil {
			c.dieErr(err)
		}
		pairs, err = r.worktreePairs(indexFiles(idx), ps, nil)
		if err != nil {
			c.dieErr(err)
		}
	}
	if !o.has("no-renames") {
		pairs = detectRenames(pairs)
	}
	changed := c.writeDiff(c.out, r, pairs, d)
	if d.exitCode && changed {
		return 1
	}
	return 0
}

// isAncestor reports whether commit a is b or one of its ancestors (false
// when that cannot be told: a shallow history).
func (r *Repo) isAncestor(a, b plumbing.Hash) bool {
	if a == b {
		return true
	}
	ca, err := object.GetCommit(r.st, a)
	if err != nil {
		return false
	}
	cb, err := object.GetCommit(r.st, b)
	if err != nil {
		return false
	}
	ok, err := ca.IsAncestor(cb)
	return err == nil && ok
}

// mergeBase finds a best common ancestor of a and b (zero when none).
func (r *Repo) mergeBase(a, b plumbing.Hash) (plumbing.Hash, error) {
	ca, err := object.GetCommit(r.st, a)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	cb, err := object.GetCommit(r.st, b)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if len(bases) == 0 {
		return plumbing.ZeroHash, nil
	}
	return bases[0].Hash, nil
}
