package fusefs

import (
	"context"
	"io"
	"sync"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/desk-dev/desk/internal/vfs"
)

// handle is an open regular file: a store handle. Writes go into the store's
// per-inode buffer as they come (bounded by vfs.Options.DirtyBytes) and are
// committed at flush (every close(2)), fsync and release.
type handle struct {
	srv  *Server
	f    *vfs.File
	sync bool // O_SYNC/O_DSYNC: commit after every write
}

var (
	_ gofs.FileReader    = (*handle)(nil)
	_ gofs.FileWriter    = (*handle)(nil)
	_ gofs.FileFlusher   = (*handle)(nil)
	_ gofs.FileFsyncer   = (*handle)(nil)
	_ gofs.FileReleaser  = (*handle)(nil)
	_ gofs.FileLseeker   = (*handle)(nil)
	_ gofs.FileAllocater = (*handle)(nil)
)

func (s *Server) newHandle(f *vfs.File, flags uint32) *handle {
	h := &handle{srv: s, f: f, sync: flags&(syscall.O_SYNC|syscall.O_DSYNC) != 0}
	s.addHandle(h)
	return h
}

// Read reads at off.
func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n, err := h.f.ReadAt(dest, off)
	if err != nil && err != io.EOF {
		return nil, h.srv.errno("read", err)
	}
	return fuse.ReadResultData(dest[:n]), 0
}

// Write writes data at off (at the end of the file for O_APPEND handles, as
// pwrite(2) on Linux: the store knows the true end even when the kernel's idea
// of the size is behind a change made elsewhere).
func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	n, err := h.f.WriteAt(data, off)
	if err == nil && h.sync {
		err = h.f.Sync()
	}
	return uint32(n), h.srv.errno("write", err)
}

// Flush commits the file's pending writes (close(2) of any descriptor), so
// they are durable and journaled when close returns.
func (h *handle) Flush(ctx context.Context) syscall.Errno {
	return h.srv.errno("flush", h.f.Sync())
}

// Fsync commits the file's pending writes and every change of metadata
// waiting for its commit (Options.CommitDelay): the file's creation, its
// name, its attributes.
func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	if err := h.f.Sync(); err != nil {
		return h.srv.errno("fsync", err)
	}
	return h.srv.errno("fsync", h.srv.store.Commit(h.srv.ctx))
}

// Release closes the store handle (the last descriptor is gone); an unlinked
// file is deleted with its last handle.
func (h *handle) Release(ctx context.Context) syscall.Errno {
	if !h.srv.dropHandle(h) {
		return 0 // closed by Unmount
	}
	return h.srv.errno("release", h.f.Close())
}

// Lseek answers SEEK_DATA and SEEK_HOLE (the kernel handles the others).
func (h *handle) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	n, err := h.f.Seek(int64(off), int(whence))
	if err != nil {
		return 0, h.srv.errno("lseek", err)
	}
	return uint64(n), 0
}

// fallocate(2) modes.
const (
	fallocKeepSize  = 0x01
	fallocPunchHole = 0x02
	fallocZeroRange = 0x10
)

// zeros is written over ranges that are punched or zeroed: whole chunks of zeros
// are stored as holes.
var zeros = make([]byte, 1<<20)

// Allocate implements fallocate(2): mode 0 extends the size (the store shares
// and deduplicates content, so space is not reserved ahead: a later write can
// still fail with ENOSPC), FALLOC_FL_KEEP_SIZE alone does nothing,
// FALLOC_FL_PUNCH_HOLE and FALLOC_FL_ZERO_RANGE write zeros (whole zero chunks
// become holes). Collapsing and inserting ranges is EOPNOTSUPP.
func (h *handle) Allocate(ctx context.Context, off uint64, size uint64, mode uint32) syscall.Errno {
	if mode&^(fallocKeepSize|fallocPunchHole|fallocZeroRange) != 0 || mode&fallocPunchHole != 0 && mode&fallocZeroRange != 0 {
		return syscall.EOPNOTSUPP
	}
	if mode&fallocPunchHole != 0 && mode&fallocKeepSize == 0 {
		return syscall.EOPNOTSUPP // as Linux: punching must keep the size
	}
	start, end := int64(off), int64(off+size)
	if start < 0 || end < start {
		return syscall.EFBIG
	}
	fi, err := h.f.Stat()
	if err != nil {
		return h.srv.errno("fallocate", err)
	}
	cur := fi.Size()
	if mode&(fallocPunchHole|fallocZeroRange) != 0 {
		for p := start; p < min(end, cur); {
			n := min(int64(len(zeros)), min(end, cur)-p)
			if _, err := h.f.WriteAt(zeros[:n], p); err != nil {
				return h.srv.errno("fallocate", err)
			}
			p += n
		}
	}
	if mode&fallocKeepSize == 0 && end > cur {
		if err := h.f.Truncate(end); err != nil {
			return h.srv.errno("fallocate", err)
		}
	}
	return 0
}

// dirHandle is an open directory. Entries come from the store in name order,
// a page at a time; "." and ".." come first. The offset of an entry is its
// position in that order, so seekdir to an offset telldir gave works (if
// entries were added or removed before it meanwhile, it lands on a neighbour,
// as on any filesystem whose directory changes while it is read).
type dirHandle struct {
	n *node
	h *handle // a store handle: an open directory lives on after rmdir

	mu    sync.Mutex
	pos   uint64         // offset of the next entry to return
	page  []vfs.DirEntry // entries at offsets base, base+1, ...
	base  uint64
	after string // name to read the next page after
	done  bool   // no page follows the current one
	sent  int    // entries returned through this handle
}

var (
	_ gofs.FileReaddirenter = (*dirHandle)(nil)
	_ gofs.FileSeekdirer    = (*dirHandle)(nil)
	_ gofs.FileFsyncdirer   = (*dirHandle)(nil)
	_ gofs.FileReleasedirer = (*dirHandle)(nil)
)

// dots is the number of "." and ".." entries before the stored ones.
const dots = 2

// Readdirent returns the next entry, or nil at the end.
func (d *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.pos {
	case 0:
		d.pos++
		return &fuse.DirEntry{Name: ".", Mode: syscall.S_IFDIR, Ino: d.n.ino(), Off: d.pos}, 0
	case 1:
		d.pos++
		parent := uint64(vfs.RootIno)
		if _, p := d.n.Parent(); p != nil {
			parent = p.StableAttr().Ino
		}
		return &fuse.DirEntry{Name: "..", Mode: syscall.S_IFDIR, Ino: parent, Off: d.pos}, 0
	}
	if d.page == nil && d.base == 0 {
		d.base = dots
	}
	for d.pos >= d.base+uint64(len(d.page)) {
		if d.done && d.pos >= d.base+uint64(len(d.page)) {
			return nil, 0
		}
		if err := d.next(); err != 0 {
			return nil, err
		}
	}
	e := d.page[d.pos-d.base]
	d.pos++
	d.sent++
	return &fuse.DirEntry{Name: e.Name, Mode: e.Mode & syscall.S_IFMT, Ino: e.Ino, Off: d.pos}, 0
}

// next reads the page after the current one.
func (d *dirHandle) next() syscall.Errno {
	s := d.n.srv
	ents, err := s.store.ReadDirIno(s.ctx, d.n.ino(), d.after, s.opts.DirPage)
	if err != nil {
		return s.errno("readdir", err)
	}
	d.base += uint64(len(d.page))
	d.page = ents
	if len(ents) > 0 {
		d.after = ents[len(ents)-1].Name
	}
	d.done = len(ents) < s.opts.DirPage
	return 0
}

// Seekdir moves to offset off (0 rewinds and rereads the directory).
func (d *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	d.mu.Lock()
	defer d.mu.Unlock()
	if off >= d.base && off <= d.base+uint64(len(d.page)) && off >= dots && d.page != nil {
		d.pos = off
		return 0
	}
	// A handle of a directory read without OPENDIR continues where the
	// previous request's handle stopped (see rawFS).
	if off >= dots {
		if c := d.n.srv.cursors.take(d.n.ino(), off); c != nil {
			d.page, d.base, d.after, d.done, d.pos = c.page, c.base, c.after, c.done, off
			return 0
		}
	}
	// Start over and skip forward.
	d.page, d.base, d.after, d.done = nil, 0, "", false
	d.pos = min(off, dots)
	if off > dots {
		d.n.srv.rereads.Add(1)
	}
	if off <= dots {
		return 0
	}
	d.base = dots
	for off > d.base+uint64(len(d.page)) && !d.done {
		if err := d.next(); err != 0 {
			return err
		}
	}
	d.pos = min(off, d.base+uint64(len(d.page)))
	return 0
}

// Fsyncdir commits the changes of metadata waiting for their commit
// (Options.CommitDelay).
func (d *dirHandle) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	s := d.n.srv
	return s.errno("fsyncdir", s.store.Commit(s.ctx))
}

// Releasedir closes the directory.
func (d *dirHandle) Releasedir(ctx context.Context, releaseFlags uint32) {
	d.mu.Lock()
	if d.sent > 0 && d.page != nil && d.n.srv.raw.noOpendir.Load() {
		// A request's handle (see rawFS): the next request for this
		// listing may continue here.
		d.n.srv.cursors.put(&dirCursor{ino: d.n.ino(), page: d.page, base: d.base, after: d.after, done: d.done})
	}
	d.page = nil
	d.mu.Unlock()
	d.h.Release(ctx)
}
