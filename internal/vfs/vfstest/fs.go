package vfstest

import (
	"context"
	"io"
	"io/fs"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// FS is the filesystem surface the conformance suite exercises. Paths are absolute
// and slash-separated ("/a/b"); "/" is the root of the filesystem under test.
// *vfs.FS implements it through a thin adapter (its Stat and OpenFile return
// concrete types; see adapter in package vfs's tests), and OS adapts a host
// directory so the kernel can act as the oracle. Failures are *fs.PathError values carrying a syscall.Errno.
//
// Names are cleaned lexically first (path.Clean("/"+name), so ".." at the root
// stays at the root) but keep a trailing slash, which means "must be a directory".
// Modes passed in are permission bits plus fs.ModeSetuid, fs.ModeSetgid and
// fs.ModeSticky (vfs.FileModeToUnix); no umask applies. FileInfo.Sys returns
// *vfs.Attr.
type FS interface {
	Stat(ctx context.Context, name string) (fs.FileInfo, error)
	Lstat(ctx context.Context, name string) (fs.FileInfo, error)
	Mkdir(ctx context.Context, name string, perm fs.FileMode) error
	MkdirAll(ctx context.Context, name string, perm fs.FileMode) error
	// ReadDir lists a directory in name order, without "." and "..".
	ReadDir(ctx context.Context, name string) ([]vfs.DirEntry, error)
	OpenFile(ctx context.Context, name string, flag int, perm fs.FileMode) (File, error)
	ReadFile(ctx context.Context, name string) ([]byte, error)
	WriteFile(ctx context.Context, name string, data []byte, perm fs.FileMode) error
	Remove(ctx context.Context, name string) error
	RemoveAll(ctx context.Context, name string) error
	Rename(ctx context.Context, oldname, newname string, flags vfs.RenameFlags) error
	Link(ctx context.Context, oldname, newname string) error
	Symlink(ctx context.Context, target, linkname string) error
	Readlink(ctx context.Context, name string) (string, error)
	// Mknod creates a FIFO, socket, device or empty regular file as
	// mknod(2): mode is a Unix mode with its type bits (vfs.S_IFIFO, ...)
	// and permission bits, dev a device number (unix.Mkdev).
	Mknod(ctx context.Context, name string, mode uint32, dev uint64) error
	Chmod(ctx context.Context, name string, mode fs.FileMode) error
	// Chown follows symlinks; Lchown does not. -1 leaves an id unchanged.
	Chown(ctx context.Context, name string, uid, gid int) error
	Lchown(ctx context.Context, name string, uid, gid int) error
	// Chtimes follows symlinks. A zero Time or vfs.UtimeOmit leaves that time as it
	// is; vfs.UtimeNow sets it to the current time (UTIME_OMIT and UTIME_NOW of
	// utimensat(2)).
	Chtimes(ctx context.Context, name string, atime, mtime time.Time) error
	Truncate(ctx context.Context, name string, size int64) error
	Getxattr(ctx context.Context, name, attr string) ([]byte, error)
	Setxattr(ctx context.Context, name, attr string, value []byte, flags int) error
	Listxattr(ctx context.Context, name string) ([]string, error)
	Removexattr(ctx context.Context, name, attr string) error
	// Realpath resolves every symlink and returns the absolute path within the FS.
	Realpath(ctx context.Context, name string) (string, error)
}

// KernelChecked is implemented by a filesystem whose permission checks the
// kernel makes: OS, over a host directory or a FUSE mount. Only root may give
// its files away, so its Chown tests need root: without it they are skipped,
// or failed under DESK_REQUIRE_ROOT=1 (CI). A filesystem that does not
// implement it (the vfs, which checks no permissions) runs them as any user.
type KernelChecked interface {
	FS
	// KernelChecked marks the filesystem; it does nothing.
	KernelChecked()
}

// File is an open file.
type File interface {
	io.Reader
	io.Writer
	io.ReaderAt
	io.WriterAt
	io.Seeker
	io.Closer
	Truncate(size int64) error
	Sync() error
	Stat() (fs.FileInfo, error)
}
