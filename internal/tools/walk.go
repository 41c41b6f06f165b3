package tools

import (
	"context"
	"path"
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

// walkPage is the directory page size of walks.
const walkPage = 1000

// walker visits a tree depth first in name (byte) order without following
// symlinks, at most budget entries, reading each directory page with its
// entries' attributes (and the content of files up to loadBytes) in one
// statement (vfs.ReadDirFiles).
type walker struct {
	ctx       context.Context
	fs        *vfs.FS
	budget    int
	loadBytes int64
	// visit is called for every entry below the root; returning false stops.
	visit func(p string, f *vfs.DirFile) (bool, error)
	// exhausted is set when the budget ran out.
	exhausted bool
}

// walk visits dir's subtree; it returns false if the walk stopped early.
func (w *walker) walk(dir string) (bool, error) {
	after := ""
	for {
		if err := w.ctx.Err(); err != nil {
			return false, err
		}
		ents, err := w.fs.ReadDirFiles(w.ctx, dir, after, walkPage, w.loadBytes)
		if err != nil {
			return false, err
		}
		for i := range ents {
			e := &ents[i]
			p := path.Join(dir, e.Name)
			if w.budget--; w.budget < 0 {
				w.exhausted = true
				return false, nil
			}
			ok, err := w.visit(p, e)
			if !ok || err != nil {
				return false, err
			}
			if e.Attr.IsDir() {
				if ok, err := w.walk(p); !ok || err != nil {
					return ok, err
				}
			}
		}
		if len(ents) < walkPage {
			return true, nil
		}
		after = ents[len(ents)-1].Name
	}
}

// rel returns p relative to base.
func rel(base, p string) string {
	if base == "/" {
		return p[1:]
	}
	return strings.TrimPrefix(p, base+"/")
}

// typeName names an entry's type.
func typeName(mode uint32) string {
	switch mode & vfs.S_IFMT {
	case vfs.S_IFDIR:
		return "dir"
	case vfs.S_IFLNK:
		return "symlink"
	case vfs.S_IFREG:
		return "file"
	}
	return "other"
}
