package vfs

import (
	"context"
	"path"
	"syscall"
)

// Access is a caller's path rules (package policy's, which the store does
// not know): AllowPath returns 0 when the cleaned absolute path p may be
// read (write false) or changed (write true), else the errno the call
// fails with (ENOENT for a path the caller may not see, EACCES for a
// change it may not make).
type Access interface {
	AllowPath(p string, write bool) syscall.Errno
}

type accessKey struct{}

// WithAccess returns ctx whose store calls a checks: every walk of a name
// (the name given and, symlinks resolved, the name reached) outside a
// transaction as a read, inside one (a change's) as a write; a write open
// of an existing file; each directory MkdirAll makes; and the entries
// ReadDir, ReadDirPage and ReadDirFiles list (those a may not read are left
// out). The inode methods (*At, *Ino: the FUSE server's) do not consult it:
// their caller checks (package fusefs). A nil a removes the check.
func WithAccess(ctx context.Context, a Access) context.Context {
	return context.WithValue(ctx, accessKey{}, a)
}

func accessOf(ctx context.Context) Access {
	a, _ := ctx.Value(accessKey{}).(Access)
	return a
}

// walk resolves p (walkPathAs), then checks the caller's Access (see
// WithAccess) for p and for the path reached.
func (f *FS) walk(l lookupFn, p string, follow bool) (resolved, error) {
	return f.walkAs(l, p, follow, false)
}

// walkAs is walk, for an open with O_CREAT when create is set.
func (f *FS) walkAs(l lookupFn, p string, follow, create bool) (resolved, error) {
	r, err := f.walkPathAs(l, p, follow, create)
	var a Access
	write := false
	switch x := l.(type) {
	case committed:
		a = accessOf(x.ctx)
	case *tx:
		a, write = x.access, true
	}
	if a == nil {
		return r, err
	}
	if e := a.AllowPath(p, write); e != 0 {
		return resolved{}, e
	}
	if err == nil && r.path != "" && r.path != p {
		if e := a.AllowPath(r.path, write); e != 0 {
			return resolved{}, e
		}
	}
	return r, err
}

// visible drops the entries of directory dir the caller may not read.
func visible[E any](ctx context.Context, dir string, ents []E, name func(*E) string) []E {
	a := accessOf(ctx)
	if a == nil {
		return ents
	}
	out := ents[:0]
	for i := range ents {
		if a.AllowPath(path.Join(dir, name(&ents[i])), false) == 0 {
			out = append(out, ents[i])
		}
	}
	return out
}

// AccessFrom returns the Access ctx carries (WithAccess), nil if none: for
// the servers that check paths themselves (the FUSE mount of a sandbox).
func AccessFrom(ctx context.Context) Access { return accessOf(ctx) }
