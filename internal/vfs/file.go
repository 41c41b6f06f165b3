package vfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// File is an open file handle. It is safe for concurrent use; Read, Write and
// Seek share the handle's offset.
type File struct {
	f      *FS
	ctx    context.Context // the opener's context values (actor, owner), without its cancellation
	o      *openInode
	name   string
	flag   int
	isDir  bool
	mu     sync.Mutex
	off    int64
	closed bool
	// dir listing cursor for ReadDir on directory handles
	dirAfter string
	dirDone  bool
}

func (h *File) readable() bool {
	return h.flag&unix.O_PATH == 0 && h.flag&(os.O_WRONLY|os.O_RDWR) != os.O_WRONLY
}
func (h *File) writable() bool {
	return h.flag&unix.O_PATH == 0 && h.flag&(os.O_WRONLY|os.O_RDWR) != 0
}

// Name returns the name the file was opened with.
func (h *File) Name() string { return h.name }

// Ino returns the file's inode number.
func (h *File) Ino() uint64 { return h.o.ino }

func (h *File) check(op string, write bool) error {
	if h.closed {
		return perr(op, h.name, syscall.EBADF)
	}
	if h.isDir {
		if write {
			return perr(op, h.name, syscall.EBADF)
		}
		return perr(op, h.name, syscall.EISDIR)
	}
	if write && !h.writable() || !write && !h.readable() {
		return perr(op, h.name, syscall.EBADF)
	}
	if h.f.closed.Load() {
		return perr(op, h.name, syscall.EBADF)
	}
	return nil
}

// ReadAt reads len(p) bytes at off; at end of file it returns io.EOF with the
// bytes it could read.
func (h *File) ReadAt(p []byte, off int64) (int, error) {
	h.mu.Lock()
	err := h.check("read", false)
	if len(p) == 0 && !h.closed && off >= 0 {
		err = nil // as os.File: nothing to read, no read(2) made
	}
	h.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, perr("read", h.name, syscall.EINVAL)
	}
	if len(p) == 0 {
		return 0, nil
	}
	noatime := h.flag&syscall.O_NOATIME != 0
	h.o.mu.Lock()
	if len(h.o.dirty) == 0 && h.o.writeEnd == 0 && int64(len(p)) >= h.f.chunkSize {
		// A large read of a file with no unflushed writes: its content is
		// the committed one, read without holding the inode's lock, so that
		// concurrent reads of one file (the kernel's readahead through a
		// mount) run in parallel. A write or flush meanwhile is concurrent
		// with this read, which sees the content before or after it.
		mark := !noatime && h.o.relatime
		h.o.mu.Unlock()
		n, err := h.f.readCommitted(h.ctx, h.o.ino, p, off)
		if mark && n > 0 {
			h.o.mu.Lock()
			h.o.atime = h.o.relatime
			h.o.mu.Unlock()
		}
		if err != nil && err != io.EOF {
			err = asPathErr("read", h.name, err)
		}
		return n, err
	}
	n, err := h.f.readLocked(h.ctx, h.o, p, off, noatime)
	h.o.mu.Unlock()
	if err != nil && err != io.EOF {
		err = asPathErr("read", h.name, err)
	}
	return n, err
}

// Read reads from the handle's offset.
func (h *File) Read(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	// A zero-length read returns at once on any open handle (as os.File does:
	// no read(2) is made, so no EISDIR or EBADF for the mode either).
	if len(p) == 0 && !h.closed {
		return 0, nil
	}
	if err := h.check("read", false); err != nil {
		return 0, err
	}
	h.o.mu.Lock()
	n, err := h.f.readLocked(h.ctx, h.o, p, h.off, h.flag&syscall.O_NOATIME != 0)
	h.o.mu.Unlock()
	h.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	if err != nil && err != io.EOF {
		err = asPathErr("read", h.name, err)
	}
	return n, err
}

// WriteAt writes p at off. With O_APPEND, as with Linux pwrite, data goes to the
// end of the file regardless of off.
func (h *File) WriteAt(p []byte, off int64) (int, error) {
	h.mu.Lock()
	err := h.check("write", true)
	h.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, perr("write", h.name, syscall.EINVAL)
	}
	h.o.mu.Lock()
	if h.flag&os.O_APPEND != 0 {
		if off, err = h.f.sizeLocked(h.o); err != nil {
			h.o.mu.Unlock()
			return 0, asPathErr("write", h.name, err)
		}
	}
	n, err := h.f.writeLocked(h.ctx, h.o, p, off)
	h.o.mu.Unlock()
	return n, asPathErr("write", h.name, err)
}

// Write writes at the handle's offset (at the end with O_APPEND).
func (h *File) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.check("write", true); err != nil {
		return 0, err
	}
	h.o.mu.Lock()
	if h.flag&os.O_APPEND != 0 {
		size, err := h.f.sizeLocked(h.o)
		if err != nil {
			h.o.mu.Unlock()
			return 0, asPathErr("write", h.name, err)
		}
		h.off = size
	}
	n, err := h.f.writeLocked(h.ctx, h.o, p, h.off)
	h.o.mu.Unlock()
	h.off += int64(n)
	return n, asPathErr("write", h.name, err)
}

// Whence values of lseek(2) beyond io.Seek*, for File.Seek.
const (
	SeekData = 3 // SEEK_DATA: the next offset at or after offset holding data
	SeekHole = 4 // SEEK_HOLE: the next offset at or after offset in a hole
)

// Seek sets the offset (io.SeekStart, io.SeekCurrent, io.SeekEnd, and SeekData
// and SeekHole as lseek(2): holes are whole chunks never written or written with
// zeros, and a file has an implicit hole at its end; ENXIO for an offset at or
// past the end, or when no data follows).
func (h *File) Seek(offset int64, whence int) (int64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0, perr("seek", h.name, syscall.EBADF)
	}
	if whence == SeekData || whence == SeekHole {
		if h.isDir {
			return 0, perr("seek", h.name, syscall.EINVAL)
		}
		h.o.mu.Lock()
		n, err := h.f.seekDataLocked(h.ctx, h.o, offset, whence == SeekHole)
		h.o.mu.Unlock()
		if err != nil {
			return 0, asPathErr("seek", h.name, err)
		}
		h.off = n
		return n, nil
	}
	var base int64
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		base = h.off
	case io.SeekEnd:
		h.o.mu.Lock()
		size, err := h.f.sizeLocked(h.o)
		h.o.mu.Unlock()
		if err != nil {
			return 0, asPathErr("seek", h.name, err)
		}
		base = size
	default:
		return 0, perr("seek", h.name, syscall.EINVAL)
	}
	n := base + offset
	if n < 0 {
		return 0, perr("seek", h.name, syscall.EINVAL)
	}
	h.off = n
	return n, nil
}

// Truncate changes the file's size.
func (h *File) Truncate(size int64) error {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed || h.f.closed.Load() {
		return perr("truncate", h.name, syscall.EBADF)
	}
	if h.isDir || !h.writable() {
		return perr("truncate", h.name, syscall.EINVAL)
	}
	return asPathErr("truncate", h.name, h.f.truncateOpen(h.ctx, h.o, size))
}

// Sync makes everything written through any handle of this file durable.
func (h *File) Sync() error {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return perr("sync", h.name, syscall.EBADF)
	}
	return asPathErr("sync", h.name, h.f.flushIno(h.ctx, h.o.ino, 0))
}

// Stat returns the file's attributes, including unflushed writes.
func (h *File) Stat() (*FileInfo, error) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil, perr("stat", h.name, syscall.EBADF)
	}
	in, ok, err := h.f.getInode(h.o.ino)
	if err != nil {
		return nil, asPathErr("stat", h.name, err)
	}
	if !ok {
		return nil, perr("stat", h.name, syscall.ENOENT)
	}
	return NewFileInfo(baseName(Clean(h.name)), h.f.overlay(in).Attr), nil
}

// ReadDir reads the next n entries of a directory handle (all when n <= 0).
func (h *File) ReadDir(n int) ([]DirEntry, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, perr("readdir", h.name, syscall.EBADF)
	}
	if !h.isDir {
		return nil, perr("readdir", h.name, syscall.ENOTDIR)
	}
	var out []DirEntry
	for !h.dirDone && (n <= 0 || len(out) < n) {
		want := 1024
		if n > 0 {
			want = n - len(out)
		}
		page, err := h.f.listDir(h.ctx, h.o.ino, h.dirAfter, want)
		if err != nil {
			return out, asPathErr("readdir", h.name, err)
		}
		out = append(out, page...)
		if len(page) > 0 {
			h.dirAfter = page[len(page)-1].Name
		}
		if len(page) < want {
			h.dirDone = true
		}
	}
	if n > 0 && len(out) == 0 {
		return nil, io.EOF
	}
	return out, nil
}

// Close flushes the file and releases the handle. The error reports a failed
// flush. The flush is durable when Close returns, unless the file was opened
// through a handle from FS.WithBatching (then it commits with that handle's
// other changes).
func (h *File) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return perr("close", h.name, syscall.EBADF)
	}
	h.closed = true
	h.mu.Unlock()
	var err error
	if !h.f.closed.Load() {
		if !h.f.opts.ReadOnly {
			err = h.f.flushIno(h.ctx, h.o.ino, h.f.closeDelay())
		}
		if rerr := h.f.release(h.o); err == nil {
			err = rerr
		}
	}
	return asPathErr("close", h.name, err)
}

// Open opens name for reading.
func (f *FS) Open(ctx context.Context, name string) (*File, error) {
	return f.OpenFile(ctx, name, os.O_RDONLY, 0)
}

// Create creates or truncates name for reading and writing with mode 0666.
func (f *FS) Create(ctx context.Context, name string) (*File, error) {
	return f.OpenFile(ctx, name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// OpenFile opens name with os.O_* flags; perm applies when the file is created
// (no umask). A final symlink is followed unless O_NOFOLLOW is set (then ELOOP).
// A FIFO, socket or device is ENXIO (their I/O is the kernel's, through a
// mount), unless the flags hold unix.O_PATH, which opens any inode (as
// open(2) does) for Stat and Close only: reads and writes are EBADF.
// Also honoured: O_DIRECTORY, and O_NOATIME (reads through the handle leave the
// access time alone). Access times otherwise follow relatime: a read updates
// atime only when it is older than mtime or ctime, or more than a day old.
func (f *FS) OpenFile(ctx context.Context, name string, flag int, perm fs.FileMode) (*File, error) {
	const op = "open"
	write := flag&(os.O_WRONLY|os.O_RDWR) != 0
	if (write || flag&(os.O_CREATE|os.O_TRUNC) != 0) && f.opts.ReadOnly {
		return nil, perr(op, name, syscall.EROFS)
	}
	follow := flag&syscall.O_NOFOLLOW == 0
	if flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0 {
		follow = false
	}
	p, dirOnly, err := f.cleanPath(op, name)
	if err != nil {
		return nil, err
	}
	if flag&os.O_CREATE != 0 && dirOnly {
		// As the kernel: the parent is resolved first (ENOENT, ENOTDIR), then a
		// name to create with a trailing slash is EISDIR, existing or not.
		return nil, asPathErr(op, name, f.createWithSlash(committed{f, ctx}, p))
	}
	for try := 0; ; try++ {
		fl, err := f.openFile(ctx, op, name, p, flag, perm, follow, dirOnly)
		if err == nil || !errors.Is(err, errOpenRace) {
			return fl, err
		}
		if try == maxWalkRetries {
			return nil, perr(op, name, syscall.ENOENT)
		}
		// The transaction deleting the inode holds wmu until its commit
		// is applied to the cache: past it, the walk sees the new inode.
		f.wmu.Lock()
		//lint:ignore SA2001 an empty critical section: it waits for that commit
		f.wmu.Unlock()
	}
}

// errOpenRace is openFile's report that the inode its walk found is being
// deleted by a transaction (a rename over the name, not yet applied to the
// cache): the open waits for that commit and walks again, since the name
// exists throughout, as rename(2) guarantees.
var errOpenRace = errors.New("inode deleted while opening")

func (f *FS) openFile(ctx context.Context, op, name, p string, flag int, perm fs.FileMode, follow, dirOnly bool) (*File, error) {
	write := flag&(os.O_WRONLY|os.O_RDWR) != 0
	create := flag&os.O_CREATE != 0
	r, _, err := f.resolveAs(ctx, op, p, follow || dirOnly, create)
	if err == nil && r.ino != 0 && dirOnly && !r.in.IsDir() {
		err = perr(op, name, syscall.ENOTDIR)
	}
	if err != nil {
		return nil, asPathErr(op, name, err)
	}
	if a := accessOf(ctx); a != nil && write && r.ino != 0 {
		if e := a.AllowPath(r.path, true); e != 0 {
			return nil, perr(op, name, e)
		}
	}
	var in inode
	openPath := r.path
	inTx := false
	if r.ino == 0 || flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0 || flag&os.O_TRUNC != 0 {
		// Needs a transaction: create, or truncate.
		inTx = true
		err := f.update(ctx, op, name, func(t *tx) error {
			r, dirOnly, err := f.walkTxAs(t, op, name, follow, create)
			if err != nil {
				return err
			}
			openPath = r.path
			if r.ino == 0 {
				if flag&os.O_CREATE == 0 {
					return syscall.ENOENT
				}
				if dirOnly {
					return syscall.EISDIR
				}
				nin, err := t.create(r.parent, r.name, r.path, FileModeToUnix(perm), t.uid, t.gid)
				if err != nil {
					return err
				}
				in = *nin
				return nil
			}
			if flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0 {
				return syscall.EEXIST
			}
			in = r.in
			if err := openCheck(&in, flag); err != nil {
				return err
			}
			if flag&os.O_TRUNC != 0 && in.IsRegular() {
				if err := f.truncateInTx(t, r, 0); err != nil {
					return err
				}
				tin, err := t.inode(in.Ino)
				if err != nil {
					return err
				}
				in = *tin
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		in = r.in
		if err := openCheck(&in, flag); err != nil {
			return nil, perr(op, name, err.(syscall.Errno))
		}
	}
	o, err := f.acquire(in, openPath)
	if err == syscall.ENOENT && !inTx {
		return nil, errOpenRace
	}
	if err != nil {
		return nil, perr(op, name, err.(syscall.Errno))
	}
	if flag&os.O_TRUNC != 0 && in.IsRegular() {
		// Unflushed writes of other handles are truncated away, as the kernel
		// drops dirty pages.
		f.contentChanged(in.Ino, true)
	}
	return &File{f: f, ctx: context.WithoutCancel(ctx), o: o, name: name, flag: flag, isDir: in.IsDir()}, nil
}

func openCheck(in *inode, flag int) error {
	if in.IsSymlink() {
		return syscall.ELOOP // only reached with O_NOFOLLOW
	}
	if flag&syscall.O_DIRECTORY != 0 && !in.IsDir() {
		return syscall.ENOTDIR
	}
	if in.IsSpecial() && flag&unix.O_PATH == 0 {
		// The kernel pipes a FIFO and reaches a device through a mount;
		// the store itself has neither to read or write, and a socket
		// cannot be opened anywhere (ENXIO, as open(2) says).
		return syscall.ENXIO
	}
	if in.IsDir() && flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC) != 0 {
		return syscall.EISDIR
	}
	return nil
}

// create makes a regular file (parent, name).
func (t *tx) create(parent uint64, name, p string, perm uint32, uid, gid uint32) (*inode, error) {
	return t.newEntry(OpCreate, parent, name, p, S_IFREG|perm&permMask, uid, gid)
}

// truncateInTx sets the size of the resolved regular file r in a transaction.
func (f *FS) truncateInTx(t *tx, r resolved, size int64) error {
	in, err := t.inode(r.ino)
	if err != nil {
		return err
	}
	if err := t.resize(in, size); err != nil {
		return err
	}
	in.Size = size
	in.Mtime, in.Ctime = t.now, t.now
	t.put(in)
	t.log(Change{Op: OpTruncate, Ino: in.Ino, Parent: r.parent, Name: r.name, Path: r.path, Off: size})
	return nil
}

// Truncate sets the size of name, following symlinks.
func (f *FS) Truncate(ctx context.Context, name string, size int64) error {
	const op = "truncate"
	if size < 0 {
		return perr(op, name, syscall.EINVAL)
	}
	if size > f.opts.MaxFileSize {
		return perr(op, name, syscall.EFBIG)
	}
	r, _, err := f.resolveExisting(ctx, op, name, true)
	if err != nil {
		return err
	}
	if r.in.IsDir() {
		return perr(op, name, syscall.EISDIR)
	}
	if !r.in.IsRegular() {
		return perr(op, name, syscall.EINVAL)
	}
	f.omu.Lock()
	o := f.opens[r.ino]
	f.omu.Unlock()
	if o != nil && !o.dying {
		return asPathErr(op, name, f.truncateOpen(ctx, o, size))
	}
	return f.update(ctx, op, name, func(t *tx) error {
		r, _, err := f.walkTx(t, op, name, true)
		if err != nil {
			return err
		}
		if r.ino == 0 {
			return syscall.ENOENT
		}
		if !r.in.IsRegular() {
			return syscall.EISDIR
		}
		return f.truncateInTx(t, r, size)
	})
}

// renamed keeps the journal name of an open inode current after a rename.
func (f *FS) renamed(ino uint64, p string) {
	f.omu.Lock()
	o := f.opens[ino]
	f.omu.Unlock()
	if o != nil {
		o.mu.Lock()
		o.path = p
		o.mu.Unlock()
	}
}
