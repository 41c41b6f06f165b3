package vfstest

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

// OS returns an FS over the host directory dir, so that the kernel can act as the
// oracle of the conformance suite.
//
// Names are cleaned with path.Clean("/"+name) before use, so ".." never leaves dir; a
// trailing slash survives cleaning because it changes the meaning of a path ("f/" is
// ENOTDIR for a file). Every lookup goes through openat2(2) with RESOLVE_IN_ROOT, so
// the kernel itself resolves symlinks inside dir: an absolute target ("/a/b") means
// dir+"/a/b" and ".." in a target stops at dir, exactly as the vfs resolves them.
// Operations that must not follow the last component (Lstat, Lchown, Remove, ...)
// open the parent that way and act on the last name with the *at system calls.
//
// Errors are *fs.PathError values whose Err is a syscall.Errno and whose Path is the
// name as passed in (never the host path). A closed File reports EBADF.
//
// The first call sets the process umask to 0, so that creation modes are exactly
// the ones asked for, as in the vfs, which has no umask.
func OS(dir string) FS {
	umaskOnce.Do(func() { unix.Umask(0) })
	return &osFS{dir: dir}
}

var umaskOnce sync.Once

type osFS struct {
	dir string
}

var _ KernelChecked = (*osFS)(nil)

// KernelChecked marks the kernel as the one checking permissions.
func (o *osFS) KernelChecked() {}

// clean confines name to the root and returns it relative to the root (no leading
// slash, "." for the root), keeping a trailing slash.
func clean(name string) string {
	c := path.Clean("/" + name)
	if c == "/" {
		return "."
	}
	c = c[1:]
	if strings.HasSuffix(name, "/") {
		c += "/"
	}
	return c
}

// split returns the parent (relative to the root) and the last element of a cleaned
// relative name; the last element keeps a trailing slash.
func split(rel string) (dir, base string) {
	if rel == "." {
		return ".", "."
	}
	trimmed := strings.TrimSuffix(rel, "/")
	i := strings.LastIndexByte(trimmed, '/')
	if i < 0 {
		return ".", rel
	}
	return rel[:i], rel[i+1:]
}

func perr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	if err == io.EOF {
		return err
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return &fs.PathError{Op: op, Path: name, Err: errno}
	}
	if errors.Is(err, fs.ErrClosed) {
		return &fs.PathError{Op: op, Path: name, Err: syscall.EBADF}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: name, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

func retry(f func() error) error {
	for {
		err := f()
		if err != unix.EINTR {
			return err
		}
	}
}

func (o *osFS) root() (int, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = unix.Open(o.dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return err
	})
	return fd, err
}

// open resolves rel inside the root with openat2 and RESOLVE_IN_ROOT.
func (o *osFS) open(rel string, flags int, mode uint32) (int, error) {
	root, err := o.root()
	if err != nil {
		return -1, err
	}
	defer unix.Close(root)
	how := unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS,
	}
	// O_TMPFILE includes the O_DIRECTORY bit: test it as a whole.
	if flags&unix.O_CREAT != 0 || flags&unix.O_TMPFILE == unix.O_TMPFILE {
		how.Mode = uint64(mode)
	}
	var fd int
	err = retry(func() (err error) {
		fd, err = unix.Openat2(root, rel, &how)
		if err == unix.EAGAIN {
			// RESOLVE_IN_ROOT gives up when a rename races with "..": try again.
			return unix.EINTR
		}
		return err
	})
	return fd, err
}

// parent opens the directory holding the last element of name and returns it as an
// O_PATH descriptor with the last element.
func (o *osFS) parent(name string) (fd int, base string, err error) {
	dir, base := split(clean(name))
	fd, err = o.open(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	return fd, base, err
}

// withParent runs f on the parent of name and the last element.
func (o *osFS) withParent(op, name string, f func(dirfd int, base string) error) error {
	fd, base, err := o.parent(name)
	if err != nil {
		return perr(op, name, err)
	}
	defer unix.Close(fd)
	return perr(op, name, retry(func() error { return f(fd, base) }))
}

// withPath runs f on a path naming the object at name. If follow is false, the last
// element is not followed (unless name has a trailing slash, which makes the kernel
// follow it anyway) and f gets nofollow=true and a path through the parent's
// descriptor, which it must not follow either. Otherwise p is a /proc/self/fd magic
// link to the resolved object, which f must follow (nofollow=false).
func (o *osFS) withPath(op, name string, follow bool, f func(p string, nofollow bool) error) error {
	rel := clean(name)
	if !follow && !strings.HasSuffix(rel, "/") && rel != "." {
		fd, base, err := o.parent(name)
		if err != nil {
			return perr(op, name, err)
		}
		defer unix.Close(fd)
		return perr(op, name, retry(func() error { return f(procPath(fd)+"/"+base, true) }))
	}
	fd, err := o.open(rel, unix.O_PATH, 0)
	if err != nil {
		return perr(op, name, err)
	}
	defer unix.Close(fd)
	return perr(op, name, retry(func() error { return f(procPath(fd), false) }))
}

func procPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

func statxAttr(stx *unix.Statx_t) vfs.Attr {
	ts := func(t unix.StatxTimestamp) time.Time { return time.Unix(t.Sec, int64(t.Nsec)) }
	return vfs.Attr{
		Ino:    stx.Ino,
		Mode:   uint32(stx.Mode),
		Nlink:  stx.Nlink,
		Uid:    stx.Uid,
		Gid:    stx.Gid,
		Size:   int64(stx.Size),
		Blocks: int64(stx.Blocks),
		Atime:  ts(stx.Atime),
		Mtime:  ts(stx.Mtime),
		Ctime:  ts(stx.Ctime),
		Btime:  ts(stx.Btime),
		Rdev:   unix.Mkdev(stx.Rdev_major, stx.Rdev_minor),
	}
}

const statxMask = unix.STATX_BASIC_STATS | unix.STATX_BTIME

func fileInfo(name string, stx *unix.Statx_t) *vfs.FileInfo {
	base := path.Base(path.Clean("/" + name))
	return vfs.NewFileInfo(base, statxAttr(stx))
}

func (o *osFS) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	fd, err := o.open(clean(name), unix.O_PATH, 0)
	if err != nil {
		return nil, perr("stat", name, err)
	}
	defer unix.Close(fd)
	var stx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, statxMask, &stx); err != nil {
		return nil, perr("stat", name, err)
	}
	return fileInfo(name, &stx), nil
}

func (o *osFS) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	if strings.HasSuffix(clean(name), "/") {
		// lstat("x/") follows x, as the kernel does.
		fi, err := o.Stat(ctx, name)
		if err != nil {
			err.(*fs.PathError).Op = "lstat"
		}
		return fi, err
	}
	var stx unix.Statx_t
	err := o.withParent("lstat", name, func(dirfd int, base string) error {
		return unix.Statx(dirfd, base, unix.AT_SYMLINK_NOFOLLOW, statxMask, &stx)
	})
	if err != nil {
		return nil, err
	}
	return fileInfo(name, &stx), nil
}

func (o *osFS) Mkdir(ctx context.Context, name string, perm fs.FileMode) error {
	return o.withParent("mkdir", name, func(dirfd int, base string) error {
		return unix.Mkdirat(dirfd, base, vfs.FileModeToUnix(perm))
	})
}

// MkdirAll follows the algorithm of os.MkdirAll.
func (o *osFS) MkdirAll(ctx context.Context, name string, perm fs.FileMode) error {
	fi, err := o.Stat(ctx, name)
	if err == nil {
		if fi.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: name, Err: syscall.ENOTDIR}
	}
	c := path.Clean("/" + name)
	if c != "/" {
		if err := o.MkdirAll(ctx, path.Dir(c), perm); err != nil {
			return err
		}
	}
	err = o.Mkdir(ctx, name, perm)
	if err != nil {
		if fi, lerr := o.Lstat(ctx, name); lerr == nil && fi.IsDir() {
			return nil
		}
		return err
	}
	return nil
}

func (o *osFS) ReadDir(ctx context.Context, name string) ([]vfs.DirEntry, error) {
	fd, err := o.open(clean(name), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, perr("readdir", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, perr("readdir", name, err)
	}
	slices.Sort(names)
	ents := make([]vfs.DirEntry, 0, len(names))
	for _, n := range names {
		var stx unix.Statx_t
		err := retry(func() error {
			return unix.Statx(fd, n, unix.AT_SYMLINK_NOFOLLOW, statxMask, &stx)
		})
		if err == unix.ENOENT {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, perr("readdir", name, err)
		}
		ents = append(ents, vfs.DirEntry{Name: n, Ino: stx.Ino, Mode: uint32(stx.Mode)})
	}
	return ents, nil
}

func (o *osFS) OpenFile(ctx context.Context, name string, flag int, perm fs.FileMode) (File, error) {
	fd, err := o.open(clean(name), flag, vfs.FileModeToUnix(perm))
	if err != nil {
		return nil, perr("open", name, err)
	}
	return &osFile{f: os.NewFile(uintptr(fd), name), name: name}, nil
}

func (o *osFS) ReadFile(ctx context.Context, name string) ([]byte, error) {
	f, err := o.OpenFile(ctx, name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return data, nil
}

func (o *osFS) WriteFile(ctx context.Context, name string, data []byte, perm fs.FileMode) error {
	f, err := o.OpenFile(ctx, name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err1 := f.Close(); err == nil {
		err = err1
	}
	return err
}

// Remove follows os.Remove: unlink, then rmdir, and report the error that fits.
// The root is EBUSY, as for rmdir(2) of a mount point.
func (o *osFS) Remove(ctx context.Context, name string) error {
	if clean(name) == "." {
		return &fs.PathError{Op: "remove", Path: name, Err: syscall.EBUSY}
	}
	return o.withParent("remove", name, func(dirfd int, base string) error {
		e := unix.Unlinkat(dirfd, base, 0)
		if e == nil {
			return nil
		}
		e1 := unix.Unlinkat(dirfd, base, unix.AT_REMOVEDIR)
		if e1 == nil {
			return nil
		}
		if e1 != unix.ENOTDIR {
			e = e1
		}
		return e
	})
}

// RemoveAll follows os.RemoveAll, without ever following a symlink. For the root it
// removes everything in it and then reports EBUSY, as os.RemoveAll of a mount point.
func (o *osFS) RemoveAll(ctx context.Context, name string) error {
	if clean(name) == "." {
		return o.withParent("unlinkat", name, func(dirfd int, _ string) error {
			fd, err := unix.Openat(dirfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return err
			}
			f := os.NewFile(uintptr(fd), name)
			defer f.Close()
			names, err := f.Readdirnames(-1)
			if err != nil {
				return err
			}
			for _, n := range names {
				if err := removeAllAt(fd, n); err != nil {
					return err
				}
			}
			return unix.EBUSY
		})
	}
	err := o.Remove(ctx, name)
	if err == nil || errors.Is(err, syscall.ENOENT) {
		return nil
	}
	return o.withParent("unlinkat", name, func(dirfd int, base string) error {
		return removeAllAt(dirfd, strings.TrimSuffix(base, "/"))
	})
}

func removeAllAt(dirfd int, base string) error {
	err := unix.Unlinkat(dirfd, base, 0)
	if err == nil || err == unix.ENOENT {
		return nil
	}
	if err != unix.EISDIR && err != unix.EPERM {
		return err
	}
	fd, err := unix.Openat(dirfd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT {
			return nil
		}
		return err
	}
	f := os.NewFile(uintptr(fd), base)
	names, err := f.Readdirnames(-1)
	if err != nil {
		f.Close()
		return err
	}
	for _, n := range names {
		if err := removeAllAt(fd, n); err != nil {
			f.Close()
			return err
		}
	}
	f.Close()
	err = unix.Unlinkat(dirfd, base, unix.AT_REMOVEDIR)
	if err == unix.ENOENT {
		return nil
	}
	return err
}

func (o *osFS) Rename(ctx context.Context, oldname, newname string, flags vfs.RenameFlags) error {
	var f uint
	if flags&vfs.RenameNoReplace != 0 {
		f |= unix.RENAME_NOREPLACE
	}
	if flags&vfs.RenameExchange != 0 {
		f |= unix.RENAME_EXCHANGE
	}
	if flags&^(vfs.RenameNoReplace|vfs.RenameExchange) != 0 {
		return &fs.PathError{Op: "rename", Path: oldname, Err: syscall.EINVAL}
	}
	oldfd, oldbase, err := o.parent(oldname)
	if err != nil {
		return perr("rename", oldname, err)
	}
	defer unix.Close(oldfd)
	newfd, newbase, err := o.parent(newname)
	if err != nil {
		return perr("rename", newname, err)
	}
	defer unix.Close(newfd)
	return perr("rename", oldname, retry(func() error {
		return unix.Renameat2(oldfd, oldbase, newfd, newbase, f)
	}))
}

func (o *osFS) Link(ctx context.Context, oldname, newname string) error {
	oldfd, oldbase, err := o.parent(oldname)
	if err != nil {
		return perr("link", oldname, err)
	}
	defer unix.Close(oldfd)
	// link(2) resolves the old name completely before the new one's parent:
	// a missing old name is ENOENT even when the new path is broken.
	linkfd, linkbase, linkflags := oldfd, oldbase, 0
	if strings.HasSuffix(oldbase, "/") {
		// A trailing slash makes the kernel follow a final symlink: resolve
		// it inside the root (fstatat and linkat would follow an absolute
		// target from the host's root) and link what it names.
		fd, err := o.open(clean(oldname), unix.O_PATH, 0)
		if err != nil {
			return perr("link", oldname, err)
		}
		defer unix.Close(fd)
		linkfd, linkbase, linkflags = fd, "", unix.AT_EMPTY_PATH
	} else {
		var st unix.Stat_t
		if err := unix.Fstatat(oldfd, oldbase, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return perr("link", oldname, err)
		}
	}
	newfd, newbase, err := o.parent(newname)
	if err != nil {
		return perr("link", newname, err)
	}
	defer unix.Close(newfd)
	return perr("link", oldname, retry(func() error {
		return unix.Linkat(linkfd, linkbase, newfd, newbase, linkflags)
	}))
}

func (o *osFS) Symlink(ctx context.Context, target, linkname string) error {
	return o.withParent("symlink", linkname, func(dirfd int, base string) error {
		return unix.Symlinkat(target, dirfd, base)
	})
}

func (o *osFS) Mknod(ctx context.Context, name string, mode uint32, dev uint64) error {
	return o.withParent("mknod", name, func(dirfd int, base string) error {
		return unix.Mknodat(dirfd, base, mode, int(dev))
	})
}

func (o *osFS) Readlink(ctx context.Context, name string) (string, error) {
	if rel := clean(name); strings.HasSuffix(rel, "/") || rel == "." {
		// The kernel follows a trailing slash, and what it ends on is never a symlink.
		fi, err := o.Stat(ctx, name)
		if err != nil {
			err.(*fs.PathError).Op = "readlink"
			return "", err
		}
		_ = fi
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
	}
	var target string
	err := o.withParent("readlink", name, func(dirfd int, base string) error {
		buf := make([]byte, 4096)
		n, err := unix.Readlinkat(dirfd, base, buf)
		if err != nil {
			return err
		}
		target = string(buf[:n])
		return nil
	})
	if err != nil {
		return "", err
	}
	return target, nil
}

func (o *osFS) Chmod(ctx context.Context, name string, mode fs.FileMode) error {
	return o.withPath("chmod", name, true, func(p string, _ bool) error {
		return unix.Chmod(p, vfs.FileModeToUnix(mode))
	})
}

func (o *osFS) Chown(ctx context.Context, name string, uid, gid int) error {
	return o.withPath("chown", name, true, func(p string, _ bool) error {
		return unix.Chown(p, uid, gid)
	})
}

func (o *osFS) Lchown(ctx context.Context, name string, uid, gid int) error {
	return o.withPath("lchown", name, false, func(p string, nofollow bool) error {
		if !nofollow {
			return unix.Chown(p, uid, gid)
		}
		return unix.Lchown(p, uid, gid)
	})
}

// timespec maps vfs.UtimeOmit and the zero Time to UTIME_OMIT and vfs.UtimeNow to
// UTIME_NOW.
func timespec(t time.Time) unix.Timespec {
	switch {
	case t.IsZero() || t.Equal(vfs.UtimeOmit):
		return unix.Timespec{Nsec: unix.UTIME_OMIT}
	case t.Equal(vfs.UtimeNow):
		return unix.Timespec{Nsec: unix.UTIME_NOW}
	}
	// Not t.UnixNano: it overflows after 2262, and the kernel goes further.
	return unix.Timespec{Sec: t.Unix(), Nsec: int64(t.Nanosecond())}
}

func (o *osFS) Chtimes(ctx context.Context, name string, atime, mtime time.Time) error {
	ts := []unix.Timespec{timespec(atime), timespec(mtime)}
	return o.withPath("chtimes", name, true, func(p string, _ bool) error {
		return unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, 0)
	})
}

func (o *osFS) Truncate(ctx context.Context, name string, size int64) error {
	return o.withPath("truncate", name, true, func(p string, _ bool) error {
		return unix.Truncate(p, size)
	})
}

func (o *osFS) Getxattr(ctx context.Context, name, attr string) ([]byte, error) {
	var val []byte
	err := o.withPath("getxattr", name, false, func(p string, nofollow bool) error {
		x := xattrCalls(nofollow)
		for {
			n, err := x.get(p, attr, nil)
			if err != nil {
				return err
			}
			buf := make([]byte, n)
			n, err = x.get(p, attr, buf)
			if err == unix.ERANGE {
				continue // grew meanwhile
			}
			if err != nil {
				return err
			}
			val = buf[:n]
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	return val, nil
}

func (o *osFS) Setxattr(ctx context.Context, name, attr string, value []byte, flags int) error {
	return o.withPath("setxattr", name, false, func(p string, nofollow bool) error {
		x := xattrCalls(nofollow)
		return x.set(p, attr, value, flags)
	})
}

// Listxattr returns the names in the user namespace, sorted. (The kernel may list
// security.* names too, which the vfs does not have.)
func (o *osFS) Listxattr(ctx context.Context, name string) ([]string, error) {
	var names []string
	err := o.withPath("listxattr", name, false, func(p string, nofollow bool) error {
		x := xattrCalls(nofollow)
		for {
			n, err := x.list(p, nil)
			if err != nil {
				return err
			}
			buf := make([]byte, n)
			n, err = x.list(p, buf)
			if err == unix.ERANGE {
				continue
			}
			if err != nil {
				return err
			}
			names = names[:0]
			for _, s := range strings.Split(string(buf[:n]), "\x00") {
				if strings.HasPrefix(s, "user.") {
					names = append(names, s)
				}
			}
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

func (o *osFS) Removexattr(ctx context.Context, name, attr string) error {
	return o.withPath("removexattr", name, false, func(p string, nofollow bool) error {
		x := xattrCalls(nofollow)
		return x.remove(p, attr)
	})
}

func (o *osFS) Realpath(ctx context.Context, name string) (string, error) {
	root, err := o.root()
	if err != nil {
		return "", perr("realpath", name, err)
	}
	defer unix.Close(root)
	fd, err := o.open(clean(name), unix.O_PATH, 0)
	if err != nil {
		return "", perr("realpath", name, err)
	}
	defer unix.Close(fd)
	rootPath, err := os.Readlink(procPath(root))
	if err != nil {
		return "", perr("realpath", name, err)
	}
	p, err := os.Readlink(procPath(fd))
	if err != nil {
		return "", perr("realpath", name, err)
	}
	if p == rootPath {
		return "/", nil
	}
	rest, ok := strings.CutPrefix(p, rootPath+"/")
	if !ok || rootPath == "/" {
		if rootPath == "/" {
			return p, nil
		}
		return "", &fs.PathError{Op: "realpath", Path: name, Err: syscall.EXDEV}
	}
	return "/" + rest, nil
}

// osFile adapts *os.File: errors become *fs.PathError with an errno, and ReadAt and
// WriteAt are plain pread(2) and pwrite(2) (a negative offset is EINVAL).
type osFile struct {
	f    *os.File
	name string
}

var _ File = (*osFile)(nil)

func (f *osFile) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	return n, perr("read", f.name, err)
}

func (f *osFile) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	return n, perr("write", f.name, err)
}

func (f *osFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EINVAL}
	}
	n, err := f.f.ReadAt(p, off)
	return n, perr("read", f.name, err)
}

// WriteAt is pwrite(2) itself, not os.File.WriteAt, which refuses O_APPEND files:
// Linux appends, ignoring the offset.
func (f *osFile) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.EINVAL}
	}
	rc, err := f.f.SyscallConn()
	if err != nil {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.EBADF}
	}
	n := 0
	var werr error
	cerr := rc.Control(func(fd uintptr) {
		for n < len(p) {
			m, err := unix.Pwrite(int(fd), p[n:], off+int64(n))
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				werr = err
				return
			}
			n += m
		}
	})
	if cerr != nil {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.EBADF}
	}
	return n, perr("write", f.name, werr)
}

func (f *osFile) Seek(offset int64, whence int) (int64, error) {
	n, err := f.f.Seek(offset, whence)
	return n, perr("seek", f.name, err)
}

func (f *osFile) Close() error {
	return perr("close", f.name, f.f.Close())
}

func (f *osFile) Truncate(size int64) error {
	return perr("truncate", f.name, f.f.Truncate(size))
}

func (f *osFile) Sync() error {
	return perr("sync", f.name, f.f.Sync())
}

func (f *osFile) Stat() (fs.FileInfo, error) {
	var stx unix.Statx_t
	rc, err := f.f.SyscallConn()
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: syscall.EBADF}
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.Statx(int(fd), "", unix.AT_EMPTY_PATH, statxMask, &stx)
	}); err != nil {
		// Control fails only on a closed file.
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: syscall.EBADF}
	}
	if serr != nil {
		return nil, perr("stat", f.name, serr)
	}
	return fileInfo(f.name, &stx), nil
}

type xattrFuncs struct {
	get    func(path, attr string, dest []byte) (int, error)
	set    func(path, attr string, data []byte, flags int) error
	list   func(path string, dest []byte) (int, error)
	remove func(path, attr string) error
}

// xattrCalls returns the l* variants for a path that must not be followed, and the
// following ones for a /proc/self/fd magic link.
func xattrCalls(nofollow bool) xattrFuncs {
	if nofollow {
		return xattrFuncs{unix.Lgetxattr, unix.Lsetxattr, unix.Llistxattr, unix.Lremovexattr}
	}
	return xattrFuncs{unix.Getxattr, unix.Setxattr, unix.Listxattr, unix.Removexattr}
}
