package vfs

import (
	"context"
	"io"
	"io/fs"
	"os"
	"sort"
	"sync"
	"syscall"
	"time"
)

// openInode is the shared state of an inode with open handles: the written but
// not yet flushed chunks (like a page cache: every handle sees them) and the
// size and times they imply.
type openInode struct {
	mu      sync.Mutex
	ino     uint64
	path    string // a name of the file (kept current across renames), for the journal
	handles int
	dying   bool // being deleted by a transaction: new opens fail with ENOENT

	dirty      map[int64][]byte // chunk index → full chunk buffer
	dirtyBytes int64
	size       int64 // current size, including unflushed writes
	dbSize     int64 // committed size
	meta       bool  // size/mtime/ctime differ from the committed row
	atime      bool  // atime should be updated at the next flush
	relatime   bool  // a read should update atime (atime is older than mtime/ctime or a day)
	mtime      time.Time
	ctime      time.Time

	// One-chunk read cache for small sequential reads.
	rcIdx  int64
	rcData []byte
	rcOK   bool
}

var chunkPool sync.Map // chunk size → *sync.Pool

func (f *FS) getBuf() []byte {
	p, _ := chunkPool.LoadOrStore(f.chunkSize, &sync.Pool{New: func() any { return make([]byte, f.chunkSize) }})
	b := p.(*sync.Pool).Get().([]byte)
	clear(b)
	return b
}

func (f *FS) putBuf(b []byte) {
	if p, ok := chunkPool.Load(int64(cap(b))); ok {
		p.(*sync.Pool).Put(b[:cap(b)])
	}
}

// markDying is called by a transaction that is about to delete ino. It reports
// false when a handle keeps the inode open (the inode then stays, with nlink 0).
func (f *FS) markDying(ino uint64) bool {
	f.omu.Lock()
	defer f.omu.Unlock()
	if o := f.opens[ino]; o != nil {
		if o.handles > 0 {
			return false
		}
		o.dying = true
		return true
	}
	f.opens[ino] = &openInode{ino: ino, dying: true}
	return true
}

// acquire registers a handle on ino, opened by the name p.
func (f *FS) acquire(in inode, p string) (*openInode, error) {
	f.omu.Lock()
	o := f.opens[in.Ino]
	if o != nil && o.dying {
		f.omu.Unlock()
		return nil, syscall.ENOENT
	}
	if o == nil {
		o = &openInode{ino: in.Ino, path: p, size: in.Size, dbSize: in.Size, dirty: make(map[int64][]byte),
			relatime: !in.Atime.After(in.Mtime) || !in.Atime.After(in.Ctime) || f.opts.Now().Sub(in.Atime) > 24*time.Hour}
		f.opens[in.Ino] = o
	}
	o.handles++
	f.omu.Unlock()
	// The inode may have been deleted between the caller's lookup and now.
	if _, ok, err := f.getInode(in.Ino); err != nil || !ok {
		f.release(o)
		if err == nil {
			err = syscall.ENOENT
		}
		return nil, err
	}
	return o, nil
}

// release drops a handle; the last one deletes an unlinked inode.
func (f *FS) release(o *openInode) error {
	f.omu.Lock()
	o.handles--
	last := o.handles == 0
	if last {
		delete(f.opens, o.ino)
	}
	f.omu.Unlock()
	if !last || f.closed.Load() || f.opts.ReadOnly {
		return nil
	}
	in, ok, err := f.getInode(o.ino)
	if err != nil || !ok || in.Nlink > 0 {
		return err
	}
	return f.update(context.Background(), "close", "", func(t *tx) error {
		in, err := t.inode(o.ino)
		if err != nil || in.Nlink > 0 {
			return nil
		}
		if !f.markDying(o.ino) {
			return nil // reopened meanwhile (by inode number)
		}
		t.dying = append(t.dying, o.ino)
		return t.dropInode(o.ino)
	})
}

// overlay applies unflushed size and times of an open inode to a committed one.
func (f *FS) overlay(in inode) inode {
	f.omu.Lock()
	o := f.opens[in.Ino]
	f.omu.Unlock()
	if o == nil {
		return in
	}
	o.mu.Lock()
	if o.meta {
		in.Size = o.size
		if o.mtime.After(in.Mtime) {
			in.Mtime = o.mtime
		}
		if o.ctime.After(in.Ctime) {
			in.Ctime = o.ctime
		}
		in.Blocks += int64(len(o.dirty)) * blocksOf(f.chunkSize)
	}
	o.mu.Unlock()
	return in
}

// flushIno flushes the unflushed writes of ino, if it is open.
func (f *FS) flushIno(ctx context.Context, ino uint64) error {
	f.omu.Lock()
	o := f.opens[ino]
	f.omu.Unlock()
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return f.flushLocked(ctx, o)
}

// flushLocked commits o's dirty chunks, size and times. o.mu is held.
func (f *FS) flushLocked(ctx context.Context, o *openInode) error {
	if len(o.dirty) == 0 && !o.meta && !o.atime {
		return nil
	}
	cs := f.chunkSize
	ps := make([]piece, 0, len(o.dirty))
	for idx, buf := range o.dirty {
		valid := min(cs, o.size-idx*cs)
		if valid <= 0 {
			continue
		}
		ps = append(ps, piece{idx: idx, data: buf[:valid]})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].idx < ps[j].idx })
	hashPieces(ps)
	err := f.update(ctx, "write", "", func(t *tx) error {
		in, err := t.inode(o.ino)
		if err != nil {
			return err
		}
		if o.size < in.Size {
			if err := t.truncateChunks(in, o.size); err != nil {
				return err
			}
		}
		for i := range ps {
			if err := t.setChunk(in, &ps[i]); err != nil {
				return err
			}
		}
		if o.meta {
			in.Size = o.size
			if o.mtime.After(in.Mtime) || !o.mtime.IsZero() {
				in.Mtime = o.mtime
			}
			if o.ctime.After(in.Ctime) {
				in.Ctime = o.ctime
			}
		}
		if o.atime {
			in.Atime = t.now
		}
		t.put(in)
		if len(ps) > 0 || o.meta {
			off, n := int64(0), in.Size
			if len(ps) > 0 {
				off = ps[0].idx * cs
				n = ps[len(ps)-1].idx*cs + int64(cap(ps[len(ps)-1].data)) - off
			}
			t.log(Change{Op: OpWrite, Ino: o.ino, Path: o.path, Off: off, Len: n})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for idx, buf := range o.dirty {
		f.putBuf(buf)
		delete(o.dirty, idx)
	}
	o.dirtyBytes = 0
	o.meta, o.atime, o.relatime = false, false, false
	o.dbSize = o.size
	o.rcOK = false
	return nil
}

// writeLocked copies p into o's dirty chunks at off. o.mu is held.
func (f *FS) writeLocked(o *openInode, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, syscall.EINVAL
	}
	if len(p) == 0 {
		return 0, nil
	}
	end := off + int64(len(p))
	if end > f.opts.MaxFileSize || end < off {
		return 0, syscall.EFBIG
	}
	cs := f.chunkSize
	written := 0
	for len(p) > 0 {
		idx := off / cs
		within := off % cs
		n := min(cs-within, int64(len(p)))
		buf := o.dirty[idx]
		if buf == nil {
			buf = f.getBuf()
			if !(within == 0 && n == cs) && idx*cs < o.dbSize {
				if err := f.readCommitted(o.ino, idx*cs, buf[:min(cs, o.dbSize-idx*cs)]); err != nil {
					f.putBuf(buf)
					return written, err
				}
			}
			o.dirty[idx] = buf
			o.dirtyBytes += cs
		}
		copy(buf[within:], p[:n])
		off += n
		p = p[n:]
		written += int(n)
	}
	if end > o.size {
		o.size = end
	}
	now := f.opts.Now()
	o.mtime, o.ctime, o.meta, o.relatime = now, now, true, true
	o.rcOK = false
	if o.dirtyBytes >= f.opts.DirtyBytes || f.opts.SyncWrites {
		if err := f.flushLocked(context.Background(), o); err != nil {
			return written, err
		}
	}
	return written, nil
}

// readCommitted fills dst with committed content at off (holes read as zeros).
func (f *FS) readCommitted(ino uint64, off int64, dst []byte) error {
	clear(dst)
	if len(dst) == 0 {
		return nil
	}
	c, err := f.reader()
	if err != nil {
		return err
	}
	defer f.putReader(c)
	cs := f.chunkSize
	return readRange(c, ino, off/cs, (off+int64(len(dst))-1)/cs, cs, off, dst, nil)
}

// readLocked reads into p at off, seeing unflushed writes. o.mu is held.
func (f *FS) readLocked(o *openInode, p []byte, off int64, noatime bool) (int, error) {
	if off < 0 {
		return 0, syscall.EINVAL
	}
	if off >= o.size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), o.size-off)
	dst := p[:n]
	cs := f.chunkSize
	lo, hi := off/cs, (off+n-1)/cs
	// Small read inside one clean chunk: serve from the one-chunk cache.
	if lo == hi && o.dirty[lo] == nil && n < cs {
		if !o.rcOK || o.rcIdx != lo {
			if o.rcData == nil {
				o.rcData = make([]byte, cs)
			}
			valid := min(cs, o.dbSize-lo*cs)
			if valid < 0 {
				valid = 0
			}
			clear(o.rcData)
			if err := f.readCommitted(o.ino, lo*cs, o.rcData[:valid]); err != nil {
				return 0, err
			}
			o.rcIdx, o.rcOK = lo, true
		}
		copy(dst, o.rcData[off-lo*cs:])
	} else {
		clear(dst)
		needDB := false
		for idx := lo; idx <= hi; idx++ {
			if o.dirty[idx] == nil && idx*cs < o.dbSize {
				needDB = true
				break
			}
		}
		if needDB {
			c, err := f.reader()
			if err != nil {
				return 0, err
			}
			err = readRange(c, o.ino, lo, hi, cs, off, dst, func(idx int64) bool { return o.dirty[idx] != nil })
			f.putReader(c)
			if err != nil {
				return 0, err
			}
		}
		for idx := lo; idx <= hi; idx++ {
			buf := o.dirty[idx]
			if buf == nil {
				continue
			}
			cstart := idx * cs
			from, to := max(cstart, off), min(cstart+cs, off+n)
			copy(dst[from-off:to-off], buf[from-cstart:to-cstart])
		}
	}
	if o.relatime && !noatime {
		o.atime = true
	}
	if int(n) < len(p) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// File is an open file handle. It is safe for concurrent use; Read, Write and
// Seek share the handle's offset.
type File struct {
	f      *FS
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

func (h *File) readable() bool { return h.flag&(os.O_WRONLY|os.O_RDWR) != os.O_WRONLY }
func (h *File) writable() bool { return h.flag&(os.O_WRONLY|os.O_RDWR) != 0 }

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
	h.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, perr("read", h.name, syscall.EINVAL)
	}
	h.o.mu.Lock()
	n, err := h.f.readLocked(h.o, p, off, h.flag&syscall.O_NOATIME != 0)
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
	if err := h.check("read", false); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	h.o.mu.Lock()
	n, err := h.f.readLocked(h.o, p, h.off, h.flag&syscall.O_NOATIME != 0)
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
		off = h.o.size
	}
	n, err := h.f.writeLocked(h.o, p, off)
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
		h.off = h.o.size
	}
	n, err := h.f.writeLocked(h.o, p, h.off)
	h.o.mu.Unlock()
	h.off += int64(n)
	return n, asPathErr("write", h.name, err)
}

// Seek sets the offset (io.SeekStart, io.SeekCurrent, io.SeekEnd).
func (h *File) Seek(offset int64, whence int) (int64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0, perr("seek", h.name, syscall.EBADF)
	}
	var base int64
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		base = h.off
	case io.SeekEnd:
		h.o.mu.Lock()
		base = h.o.size
		h.o.mu.Unlock()
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
	return asPathErr("truncate", h.name, h.f.truncateOpen(context.Background(), h.o, size))
}

// truncateOpen truncates through the shared open state and commits.
func (f *FS) truncateOpen(ctx context.Context, o *openInode, size int64) error {
	if size < 0 {
		return syscall.EINVAL
	}
	if size > f.opts.MaxFileSize {
		return syscall.EFBIG
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	cs := f.chunkSize
	for idx, buf := range o.dirty {
		switch {
		case idx*cs >= size:
			f.putBuf(buf)
			delete(o.dirty, idx)
			o.dirtyBytes -= cs
		case idx*cs+cs > size:
			clear(buf[size-idx*cs:])
		}
	}
	o.size = size
	now := f.opts.Now()
	o.mtime, o.ctime, o.meta = now, now, true
	o.rcOK = false
	return f.flushLocked(ctx, o)
}

// Sync makes everything written through any handle of this file durable.
func (h *File) Sync() error {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return perr("sync", h.name, syscall.EBADF)
	}
	return asPathErr("sync", h.name, h.f.flushIno(context.Background(), h.o.ino))
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
		page, err := h.f.listDir(h.o.ino, h.dirAfter, want)
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

// Close flushes the file and releases the handle. The error reports a failed flush.
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
			err = h.f.flushIno(context.Background(), h.o.ino)
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
		return nil, perr(op, name, syscall.EISDIR)
	}
	r, _, err := f.resolve(ctx, op, p, follow || dirOnly)
	if err == nil && r.ino != 0 && dirOnly && !r.in.IsDir() {
		err = perr(op, name, syscall.ENOTDIR)
	}
	if err != nil {
		return nil, asPathErr(op, name, err)
	}
	var in inode
	openPath := r.path
	if r.ino == 0 || flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0 || flag&os.O_TRUNC != 0 {
		// Needs a transaction: create, or truncate.
		err := f.update(ctx, op, name, func(t *tx) error {
			r, dirOnly, err := f.walkTx(t, op, name, follow)
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
	if err != nil {
		return nil, perr(op, name, err.(syscall.Errno))
	}
	if flag&os.O_TRUNC != 0 && in.IsRegular() {
		// Drop unflushed writes of other handles, as the kernel would.
		o.mu.Lock()
		for idx, buf := range o.dirty {
			f.putBuf(buf)
			delete(o.dirty, idx)
		}
		o.dirtyBytes, o.size, o.dbSize, o.meta, o.rcOK = 0, 0, 0, false, false
		o.mu.Unlock()
	}
	return &File{f: f, o: o, name: name, flag: flag, isDir: in.IsDir()}, nil
}

func openCheck(in *inode, flag int) error {
	if in.IsSymlink() {
		return syscall.ELOOP // only reached with O_NOFOLLOW
	}
	if flag&syscall.O_DIRECTORY != 0 && !in.IsDir() {
		return syscall.ENOTDIR
	}
	if in.IsDir() && flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC) != 0 {
		return syscall.EISDIR
	}
	return nil
}

// create makes a regular file (parent, name).
func (t *tx) create(parent uint64, name, p string, perm uint32, uid, gid uint32) (*inode, error) {
	dir, err := t.inode(parent)
	if err != nil {
		return nil, err
	}
	if dir.Nlink == 0 {
		return nil, syscall.ENOENT
	}
	in, err := t.newInode(S_IFREG | perm&permMask)
	if err != nil {
		return nil, err
	}
	in.Uid, in.Gid = uid, gid
	if dir.Mode&S_ISGID != 0 {
		in.Gid = dir.Gid
	}
	if err := t.addDent(parent, name, in.Ino); err != nil {
		return nil, err
	}
	dir.Mtime, dir.Ctime = t.now, t.now
	t.put(dir)
	t.log(Change{Op: OpCreate, Ino: in.Ino, Parent: parent, Name: name, Path: p})
	return in, nil
}

// truncateInTx sets the size of the resolved regular file r in a transaction.
func (f *FS) truncateInTx(t *tx, r resolved, size int64) error {
	in, err := t.inode(r.ino)
	if err != nil {
		return err
	}
	if size < in.Size {
		if err := t.truncateChunks(in, size); err != nil {
			return err
		}
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
	r, _, err := f.resolve(ctx, op, name, true)
	if err != nil {
		return err
	}
	if r.ino == 0 {
		return perr(op, name, syscall.ENOENT)
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
	if o := f.opens[ino]; o != nil {
		o.path = p
	}
	f.omu.Unlock()
}
