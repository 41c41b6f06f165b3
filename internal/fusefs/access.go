package fusefs

import (
	"context"
	"path"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// allow checks the calling process's path rules (Options.AccessOf) for n's
// path, joined with name when name is set: 0 when allowed, or when n is
// not reachable from the root in go-fuse's tree (an unlinked inode a
// process still holds: no path to check). A denied path is EACCES, never
// ENOENT: the kernel keeps a negative entry for every process of the
// mount, and the rules differ between processes.
func (n *node) allow(ctx context.Context, name string, write bool) syscall.Errno {
	s := n.srv
	if s.opts.AccessOf == nil {
		return 0
	}
	c, ok := fuse.FromContext(ctx)
	if !ok {
		return 0
	}
	a := s.opts.AccessOf(c.Pid)
	if a == nil {
		return 0
	}
	p := n.path()
	if p == "" {
		return 0
	}
	if name != "" {
		p = path.Join(p, name)
	}
	e := a.AllowPath(p, write)
	if e == syscall.ENOENT {
		e = syscall.EACCES
	}
	return e
}
