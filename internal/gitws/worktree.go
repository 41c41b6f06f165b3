package gitws

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/desk-dev/desk/internal/glob/gitignore"
	"github.com/desk-dev/desk/internal/vfs"
)

// maxIgnoreBytes bounds one ignore file read.
const maxIgnoreBytes = 1 << 20

// wtScan is one walk of the work tree: every file and symlink outside .git
// that is tracked or not ignored, with its attributes, and the untracked
// ones among them.
type wtScan struct {
	files     map[string]vfs.Attr // rel path → attributes
	untracked []string            // sorted
	ignored   []string            // sorted: ignored files and directories (dirs end in "/")
}

// ignoreRules are the rules in force at the work tree's root: info/exclude
// and core.excludesFile (default $XDG_CONFIG_HOME/git/ignore).
func (r *Repo) ignoreRules() gitignore.Rules {
	var rules gitignore.Rules
	add := func(p, dir string) {
		fi, err := r.env.FS.Stat(r.env.Ctx, p)
		if err != nil || fi.IsDir() || fi.Size() > maxIgnoreBytes {
			return
		}
		if data, err := r.env.FS.ReadFile(r.env.Ctx, p); err == nil {
			rules, _ = rules.Add(data, dir)
		}
	}
	ex, ok := r.cfg.get("core.excludesfile")
	if !ok {
		if x := r.env.getenv("XDG_CONFIG_HOME"); x != "" {
			ex = r.env.abs(x) + "/git/ignore"
		} else {
			home := r.env.getenv("HOME")
			if home == "" {
				home = "/workspace"
			}
			ex = r.env.abs(home) + "/.config/git/ignore"
		}
	} else if strings.HasPrefix(ex, "~/") {
		ex = r.env.abs(r.env.getenv("HOME")) + ex[1:]
	}
	add(r.env.abs(ex), r.Work)
	add(r.GitDir+"/info/exclude", r.Work)
	return rules
}

// scan walks the work tree. tracked names the index's paths: their
// directories are walked even when ignored. withIgnored also lists the
// ignored entries.
func (r *Repo) scan(tracked map[string]bool, withIgnored bool) (*wtScan, error) {
	s := &wtScan{files: map[string]vfs.Attr{}}
	trackedDirs := map[string]bool{}
	for p := range tracked {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if trackedDirs[d] {
				break
			}
			trackedDirs[d] = true
		}
	}
	var walk func(rel string, rules gitignore.Rules, ignored bool) error
	walk = func(rel string, rules gitignore.Rules, ignored bool) error {
		if err := r.env.Ctx.Err(); err != nil {
			return err
		}
		dir := r.Work
		if rel != "" {
			dir += "/" + rel
		}
		var ents []vfs.DirFile
		after := ""
		for {
			page, err := r.env.FS.ReadDirFiles(r.env.Ctx, dir, after, 4096, 0)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			ents = append(ents, page...)
			if len(page) < 4096 {
				break
			}
			after = page[len(page)-1].Name
		}
		if !ignored {
			for _, e := range ents {
				if e.Name == ".gitignore" && e.Attr.IsRegular() && e.Attr.Size <= maxIgnoreBytes {
					if data, err := r.env.FS.ReadFile(r.env.Ctx, dir+"/.gitignore"); err == nil {
						rules, _ = rules.Add(data, dir)
					}
				}
			}
		}
		for _, e := range ents {
			p := e.Name
			if rel != "" {
				p = rel + "/" + e.Name
			}
			if e.Attr.IsDir() {
				if e.Name == ".git" {
					continue
				}
				ign := ignored || rules.Ignored(dir+"/"+e.Name, true)
				if ign && !trackedDirs[p] {
					if withIgnored && !ignored {
						s.ignored = append(s.ignored, p+"/")
					}
					continue
				}
				if err := walk(p, rules, ign); err != nil {
					return err
				}
				continue
			}
			if !e.Attr.IsRegular() && !e.Attr.IsSymlink() {
				continue
			}
			ign := ignored || rules.Ignored(dir+"/"+e.Name, false)
			if tracked[p] {
				s.files[p] = e.Attr
				continue
			}
			if ign {
				if withIgnored && !ignored {
					s.ignored = append(s.ignored, p)
				}
				continue
			}
			s.files[p] = e.Attr
			s.untracked = append(s.untracked, p)
		}
		return nil
	}
	if err := walk("", r.ignoreRules(), false); err != nil {
		return nil, err
	}
	sort.Strings(s.untracked)
	sort.Strings(s.ignored)
	return s, nil
}

// collapseUntracked turns untracked files into git's "normal" listing: a
// directory holding no tracked file is shown once, as "dir/".
func collapseUntracked(untracked []string, tracked map[string]bool) []string {
	trackedDirs := map[string]bool{}
	for p := range tracked {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			trackedDirs[d] = true
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range untracked {
		show := p
		// the topmost ancestor with no tracked file below it
		parts := strings.Split(p, "/")
		for i := 1; i < len(parts); i++ {
			d := strings.Join(parts[:i], "/")
			if !trackedDirs[d] {
				show = d + "/"
				break
			}
		}
		if !seen[show] {
			seen[show] = true
			out = append(out, show)
		}
	}
	sort.Strings(out)
	return out
}

// change is one path's status: X (index against HEAD) and Y (work tree
// against the index), as in git status --short.
type change struct {
	Path string
	Orig string // a rename's source
	X, Y byte
}

// statusResult is a whole status.
type statusResult struct {
	changes   []change // sorted by path
	untracked []string // files, sorted
	ignored   []string
	tracked   map[string]bool
	headFiles map[string]treeEntry
	idx       *index.Index
	scan      *wtScan
}

// status computes the status of the whole repository. It refreshes the
// index's stat data of files whose content turned out unchanged, as git
// does, so the next status reads none of them.
func (r *Repo) status(withIgnored bool) (*statusResult, error) {
	headFiles, err := r.headFiles()
	if err != nil {
		return nil, err
	}
	idx, err := r.readIndex()
	if err != nil {
		return nil, err
	}
	tracked := map[string]bool{}
	conflicted := map[string][]index.Stage{}
	for _, e := range idx.Entries {
		tracked[e.Name] = true
		if e.Stage != 0 {
			conflicted[e.Name] = append(conflicted[e.Name], e.Stage)
		}
	}
	sc, err := r.scan(tracked, withIgnored)
	if err != nil {
		return nil, err
	}
	res := &statusResult{tracked: tracked, headFiles: headFiles, idx: idx, scan: sc}
	m := map[string]*change{}
	get := func(p string) *change {
		c := m[p]
		if c == nil {
			c = &change{Path: p, X: ' ', Y: ' '}
			m[p] = c
		}
		return c
	}
	refreshed := false
	for _, e := range idx.Entries {
		if e.Stage != 0 {
			continue
		}
		h, ok := headFiles[e.Name]
		switch {
		case !ok:
			get(e.Name).X = 'A'
		case h.Hash != e.Hash || h.Mode != e.Mode:
			get(e.Name).X = 'M'
		}
		a, ok := sc.files[e.Name]
		if !ok {
			get(e.Name).Y = 'D'
			continue
		}
		if statClean(e, a, idx.ModTime) {
			continue
		}
		if modeOf(a) != e.Mode {
			get(e.Name).Y = 'M'
			continue
		}
		if uint32(a.Size) != e.Size && !a.IsSymlink() {
			get(e.Name).Y = 'M'
			continue
		}
		data, err := r.readWork(e.Name, a)
		if err != nil {
			return nil, err
		}
		if hashBlob(data) != e.Hash {
			get(e.Name).Y = 'M'
			continue
		}
		if !a.Mtime.Before(idx.ModTime) && !idx.ModTime.IsZero() {
			continue // racy: keep the entry as it is, so it is checked again
		}
		entryFromAttr(e, a)
		refreshed = true
	}
	for p := range headFiles {
		if !tracked[p] {
			get(p).X = 'D'
		}
	}
	for p, stages := range conflicted {
		c := get(p)
		has := func(s index.Stage) bool {
			for _, x := range stages {
				if x == s {
					return true
				}
			}
			return false
		}
		b, o, t := has(index.AncestorMode), has(index.OurMode), has(index.TheirMode)
		switch {
		case b && o && t, !b && o && t:
			c.X, c.Y = 'U', 'U'
			if !b {
				c.X, c.Y = 'A', 'A'
			}
		case b && !o && !t:
			c.X, c.Y = 'D', 'D'
		case o && !t:
			c.X, c.Y = 'A', 'U'
			if b {
				c.X, c.Y = 'U', 'D'
			}
		case !o && t:
			c.X, c.Y = 'U', 'A'
			if b {
				c.X, c.Y = 'D', 'U'
			}
		}
	}
	// Exact renames among the staged changes (same blob deleted and added).
	var added, deleted []*change
	for _, c := range m {
		if c.X == 'A' {
			added = append(added, c)
		}
		if c.X == 'D' {
			deleted = append(deleted, c)
		}
	}
	sort.Slice(added, func(i, j int) bool { return added[i].Path < added[j].Path })
	sort.Slice(deleted, func(i, j int) bool { return deleted[i].Path < deleted[j].Path })
	byHash := map[plumbing.Hash][]*change{}
	for _, d := range deleted {
		h := headFiles[d.Path].Hash
		byHash[h] = append(byHash[h], d)
	}
	idxHash := map[string]plumbing.Hash{}
	for _, e := range idx.Entries {
		if e.Stage == 0 {
			idxHash[e.Name] = e.Hash
		}
	}
	for _, a := range added {
		ds := byHash[idxHash[a.Path]]
		if len(ds) == 0 {
			continue
		}
		d := ds[0]
		byHash[idxHash[a.Path]] = ds[1:]
		a.X, a.Orig = 'R', d.Path
		if d.Y == ' ' {
			delete(m, d.Path)
		} else {
			d.X = ' '
		}
	}
	for _, c := range m {
		if c.X != ' ' || c.Y != ' ' {
			res.changes = append(res.changes, *c)
		}
	}
	sort.Slice(res.changes, func(i, j int) bool { return res.changes[i].Path < res.changes[j].Path })
	res.untracked = sc.untracked
	res.ignored = sc.ignored
	if refreshed {
		if err := r.writeIndex(idx); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Checkout batches: writeWorkFiles writes up to maxCheckoutBatchFiles
// files, or maxCheckoutBatchBytes of content, per store transaction.
const (
	maxCheckoutBatchFiles = 1024
	maxCheckoutBatchBytes = 16 << 20
	maxCheckoutBatchBlob  = 1 << 20 // a larger file is written alone (writeWorkFile)
)

// writeWorkFiles writes tree entries to the work tree and returns their
// index entries by path, as writeWorkFile does for one. Regular files whose
// place is known to be free of anything else (sc, the scan taken before:
// no symlink or file at the path's parents, nothing ignored in the way, no
// symlink at the path) are written many to a store transaction
// (vfs.Batch): a checkout of 10,000 files was 10,000 WriteFile and Chmod
// commits. A batch that fails (a directory where a file goes, say) is
// written again file by file, which handles every case, as is everything
// not eligible.
func (r *Repo) writeWorkFiles(files []string, tes map[string]treeEntry, sc *wtScan) (map[string]*index.Entry, error) {
	out := make(map[string]*index.Entry, len(files))
	ctx, f := r.env.Ctx, r.env.FS
	eligible := func(rel string, te treeEntry) bool {
		if te.Mode != filemode.Regular && te.Mode != filemode.Executable {
			return false
		}
		if a, ok := sc.files[rel]; ok && !a.IsRegular() {
			return false
		}
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			if _, ok := sc.files[d]; ok {
				return false
			}
		}
		return len(sc.ignored) == 0 || !containsIgnored(sc.ignored, rel)
	}
	type item struct {
		rel  string
		data []byte
		perm fs.FileMode
	}
	var batch []item
	size := 0
	slow := func(rel string) error {
		e, err := r.writeWorkFile(rel, tes[rel])
		if err == nil {
			out[rel] = e
		}
		return err
	}
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := f.Batch(ctx, func(b *vfs.Batch) error {
			made := map[string]bool{}
			for _, it := range batch {
				p := r.Work + "/" + it.rel
				if dir := path.Dir(p); !made[dir] {
					made[dir] = true
					if err := b.MkdirAll(dir, 0o755); err != nil {
						return err
					}
				}
				if err := b.WriteFile(p, it.data, it.perm); err != nil {
					return err
				}
				if err := b.Chmod(p, it.perm); err != nil {
					return err
				}
			}
			return nil
		})
		for _, it := range batch {
			if err != nil {
				if err := slow(it.rel); err != nil {
					return err
				}
				continue
			}
			fi, err := f.Lstat(ctx, r.Work+"/"+it.rel)
			if err != nil {
				return err
			}
			te := tes[it.rel]
			e := &index.Entry{Name: it.rel, Hash: te.Hash, Mode: te.Mode}
			entryFromAttr(e, fi.Attr())
			out[it.rel] = e
		}
		batch, size = batch[:0], 0
		return nil
	}
	for _, rel := range files {
		te := tes[rel]
		if !eligible(rel, te) {
			if err := slow(rel); err != nil {
				return nil, err
			}
			continue
		}
		data, err := r.blob(te.Hash)
		if err != nil {
			return nil, err
		}
		if len(data) > maxCheckoutBatchBlob {
			if err := slow(rel); err != nil {
				return nil, err
			}
			continue
		}
		perm := fs.FileMode(0o644)
		if te.Mode == filemode.Executable {
			perm = 0o755
		}
		batch = append(batch, item{rel, data, perm})
		size += len(data)
		if len(batch) >= maxCheckoutBatchFiles || size >= maxCheckoutBatchBytes {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}
