package fusefs

import (
	"container/list"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/desk-dev/desk/internal/vfs"
)

// rawFS is go-fuse's node bridge with directories read without OPENDIR and
// RELEASEDIR, which saves two FUSE round trips per directory read. The first
// OPENDIR is answered ENOSYS, which tells the kernel (5.1 and later) that the
// filesystem needs no directory handles: from then on opendir(3) and
// closedir(3) cost nothing, the kernel keeps listings in its cache as if every
// open had asked for FOPEN_CACHE_DIR and FOPEN_KEEP_CACHE, and a READDIRPLUS
// carries handle 0 and an offset. Each such read opens a bridge handle, reads
// through it and releases it before it answers, so no handle outlives the
// request (go-fuse requires a node's handles to be gone when the kernel
// forgets it). A listing read in several requests continues from where the
// previous one stopped through dirCursors. A walk of a tree costs one request
// per directory (its GETATTR) instead of three.
type rawFS struct {
	fuse.RawFileSystem
	s *Server

	// noOpendir is set once OPENDIR was refused: the kernel sends no more.
	noOpendir atomic.Bool
}

// noOpendirMinor is the FUSE protocol minor version from which the kernel
// accepts ENOSYS for OPENDIR (Linux 5.1).
const noOpendirMinor = 29

func newRawFS(inner fuse.RawFileSystem, s *Server) *rawFS {
	return &rawFS{RawFileSystem: inner, s: s}
}

// OpenDir refuses directory handles (see rawFS) where the kernel supports
// that, and opens one through the bridge otherwise.
func (r *rawFS) OpenDir(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	if r.s.fuse != nil && r.s.fuse.KernelSettings().Minor >= noOpendirMinor {
		r.noOpendir.Store(true)
		return fuse.ENOSYS
	}
	return r.RawFileSystem.OpenDir(cancel, in, out)
}

// ReadDirPlus reads a directory page with the entries' attributes.
func (r *rawFS) ReadDirPlus(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return r.readDir(cancel, in, out, r.RawFileSystem.ReadDirPlus)
}

// ReadDir reads a directory page.
func (r *rawFS) ReadDir(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return r.readDir(cancel, in, out, r.RawFileSystem.ReadDir)
}

func (r *rawFS) readDir(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList,
	read func(<-chan struct{}, *fuse.ReadIn, *fuse.DirEntryList) fuse.Status) fuse.Status {
	if in.Fh != 0 {
		return read(cancel, in, out)
	}
	var oo fuse.OpenOut
	if st := r.RawFileSystem.OpenDir(cancel, &fuse.OpenIn{InHeader: in.InHeader, Flags: syscall.O_RDONLY}, &oo); !st.Ok() {
		return st
	}
	in2 := *in
	in2.Fh = oo.Fh
	st := read(cancel, &in2, out) // the handle seeks to in.Offset (dirHandle.Seekdir)
	r.RawFileSystem.ReleaseDir(&fuse.ReleaseIn{InHeader: in.InHeader, Fh: oo.Fh})
	return st
}

// FsyncDir commits the metadata changes waiting for their commit; without
// directory handles it comes with handle 0.
func (r *rawFS) FsyncDir(cancel <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	if in.Fh != 0 {
		return r.RawFileSystem.FsyncDir(cancel, in)
	}
	return fuse.Status(r.s.errno("fsyncdir", r.s.store.Commit(r.s.ctx)))
}

// maxCursors bounds the positions of listings read in parts that the server
// remembers (each holds up to Options.DirPage entries).
const maxCursors = 64

// dirCursors remembers where listings read without directory handles
// stopped: the page of store entries a handle held when it was released, so
// that the handle of the next request for the same directory continues
// there instead of reading the directory again from its start. A position
// that is forgotten (more than maxCursors, or the directory changed) only
// costs that rereading.
type dirCursors struct {
	mu  sync.Mutex
	lru list.List // of *dirCursor, oldest first
}

// dirCursor is a released handle's position in a directory's listing.
type dirCursor struct {
	ino   uint64
	page  []vfs.DirEntry // entries at offsets base, base+1, ...
	base  uint64
	after string
	done  bool
}

// put remembers c.
func (dc *dirCursors) put(c *dirCursor) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	dc.lru.PushBack(c)
	for dc.lru.Len() > maxCursors {
		dc.lru.Remove(dc.lru.Front())
	}
}

// take returns and forgets a remembered position in directory ino whose page
// holds offset off (or ends just before it), if any.
func (dc *dirCursors) take(ino, off uint64) *dirCursor {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	for e := dc.lru.Back(); e != nil; e = e.Prev() {
		c := e.Value.(*dirCursor)
		if c.ino == ino && off >= c.base && off <= c.base+uint64(len(c.page)) {
			dc.lru.Remove(e)
			return c
		}
	}
	return nil
}
