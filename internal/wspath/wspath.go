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

// Ensure makes Dir in fsys when it is missing (mode Perm, owned by whoever
// ctx says, 0:0 by default; the change is attributed to ctx's actor). An
// existing Dir is not touched.
func Ensure(ctx context.Context, fsys Mkdirer) error {
	err := fsys.Mkdir(ctx, Dir, Perm)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("make %s: %w", Dir, err)
	}
	return nil
}
