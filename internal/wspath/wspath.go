package wspath

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
)

// Dir is the workspace directory: where relative paths are taken from, the
// default working directory of executions, and what a sandbox mounts at
// /workspace.
const Dir = "/workspace"

// Perm is the permission bits Ensure gives a new Dir.
const Perm fs.FileMode = 0o755

// Tmp is the workspace's temporary directory: /tmp of the shell and js
// backends, a directory of the store like any other (it persists and counts
// against the workspace's quota). A sandbox mounts only Dir from the store:
// its own /tmp is a tmpfs private to the sandbox.
const Tmp = "/tmp"

// TmpPerm is the mode Ensure gives a new Tmp: writable by all, sticky, as
// /tmp is on Linux.
const TmpPerm fs.FileMode = 0o777 | fs.ModeSticky

// Resolve returns the clean absolute store path p names: p itself, cleaned,
// when it is absolute; p taken from Dir when it is relative; Dir for "". A
// relative path may leave Dir with "..": "../etc" is /etc, as it would be
// from a shell in Dir.
func Resolve(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(Dir, p)
}

// Rel returns p, a clean absolute store path, in its shortest form: relative
// to Dir when it is Dir or below it ("" for Dir itself), else p. Resolve(Rel(p))
// is p.
func Rel(p string) string {
	switch {
	case p == Dir:
		return ""
	case len(p) > len(Dir) && p[:len(Dir)] == Dir && p[len(Dir)] == '/':
		return p[len(Dir)+1:]
	}
	return p
}

// Mkdirer is what Ensure needs of a store (*vfs.FS has it).
type Mkdirer interface {
	Mkdir(ctx context.Context, name string, perm fs.FileMode) error
}

// Ensure makes Dir (mode Perm) and Tmp (mode TmpPerm) in fsys when they
// are missing, owned by whoever ctx says (0:0 by default; the change is
// attributed to ctx's actor). An existing one is not touched, whatever it
// is.
func Ensure(ctx context.Context, fsys Mkdirer) error {
	for _, d := range []struct {
		name string
		perm fs.FileMode
	}{{Dir, Perm}, {Tmp, TmpPerm}} {
		if err := fsys.Mkdir(ctx, d.name, d.perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("make %s: %w", d.name, err)
		}
	}
	return nil
}
