package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
)

// MakeWritable gives every directory of the tree at root mode 0755, so that
// t.TempDir's cleanup can remove a tree a test made with read-only
// directories (t.Cleanup(func() { testenv.MakeWritable(dir) })). Errors are
// ignored: what it cannot change, the removal reports.
func MakeWritable(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}
