package fusefs

import (
	"context"
	"errors"
	"io/fs"
	"syscall"

	"github.com/desk-dev/desk/internal/vfs"
)

// errno maps an error of the store to the errno the kernel gets. Store errors
// are *fs.PathError values carrying a syscall.Errno, found with errors.As however
// they are wrapped; an internal failure (EIO) and anything without an errno are
// logged and reported as EIO. go-fuse itself would turn an unknown error into
// ENOSYS, which makes the kernel stop sending that operation for good.
func (s *Server) errno(op string, err error) syscall.Errno {
	if err == nil {
		return 0
	}
	e := vfs.Errno(err)
	switch {
	case e == syscall.EIO:
		s.logf("%s: %v", op, err)
		return syscall.EIO
	case e == syscall.ENOSYS:
		// Never let the kernel conclude an operation is unimplemented.
		s.logf("%s: %v", op, err)
		return syscall.EIO
	case e != 0:
		return e
	case errors.Is(err, fs.ErrClosed), errors.Is(err, vfs.ErrClosed):
		return syscall.EBADF
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return syscall.EINTR
	}
	s.logf("%s: %v", op, err)
	return syscall.EIO
}
