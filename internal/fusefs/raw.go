package fusefs

import (
	"container/list"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// rawFS is go-fuse's node bridge with directories read without OPENDIR and
// RELEASEDIR, which saves two FUSE round trips per directory read. The first
// OPENDIR is answered ENOSYS, which tells the kernel (5.1 and later) that the
// filesystem needs no directory handles: from then on opendir(3) and
// closedir(3) cost nothing, the kernel keeps listings in its cache as if every
// open had asked for FOPEN_CACHE_DIR and FOPEN_KEEP_CACHE, and a READDIRPLUS
// carries handle 0 and an offset. The listing is then read through a bridge
// handle kept per (directory, next offset): a listing read to its end releases
// its handle; handles of listings left half read are released when more than
// maxCursors are open (a later read at their offset opens a new one and
// seeks). A walk of a tree costs one request per directory (its GETATTR)
// instead of three.
type rawFS struct {
	fuse.RawFileSystem
	s *Server

	// noOpendir is set once OPENDIR was refused: the kernel sends no more.
	noOpendir atomic.Bool

	mu      sync.Mutex
	cursors map[cursorKey]*list.Element // of *cursor
	lru     list.List                   // oldest first
}

// maxCursors bounds the directory handles kept for listings read in parts.
const maxCursors = 256

// noOpendirMinor is the FUSE protocol minor version from which the kernel
// accepts ENOSYS for OPENDIR (Linux 5.1).
const noOpendirMinor = 29

// cursorKey names a listing in progress: the directory and the offset of the
// next entry the kernel will ask for.
type cursorKey struct {
	node, off uint64
}

// cursor is a bridge directory handle positioned at key.off.
type cursor struct {
	key cursorKey
	fh  uint64
}

func newRawFS(inner fuse.RawFileSystem, s *Server) *rawFS {
	return &rawFS{RawFileSystem: inner, s: s, cursors: make(map[cursorKey]*list.Element)}
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
	key := cursorKey{in.NodeId, in.Offset}
	c := r.take(key)
	if c == nil {
		var oo fuse.OpenOut
		if st := r.RawFileSystem.OpenDir(cancel, &fuse.OpenIn{InHeader: in.InHeader, Flags: syscall.O_RDONLY}, &oo); !st.Ok() {
			return st
		}
		c = &cursor{fh: oo.Fh}
	}
	in2 := *in
	in2.Fh = c.fh
	st := read(cancel, &in2, out)
	if !st.Ok() || out.Offset == in.Offset {
		// An error, or the end of the listing (nothing added).
		r.releaseDir(c)
		return st
	}
	c.key = cursorKey{in.NodeId, out.Offset}
	r.put(c)
	return st
}

// take removes and returns the cursor at key, if any.
func (r *rawFS) take(key cursorKey) *cursor {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.cursors[key]
	if !ok {
		return nil
	}
	delete(r.cursors, key)
	return r.lru.Remove(e).(*cursor)
}

// put keeps c for the next page of its listing, releasing the oldest cursor
// when there are too many (or another reader's at the same position).
func (r *rawFS) put(c *cursor) {
	var drop []*cursor
	r.mu.Lock()
	if e, ok := r.cursors[c.key]; ok {
		drop = append(drop, r.lru.Remove(e).(*cursor))
	}
	r.cursors[c.key] = r.lru.PushBack(c)
	for r.lru.Len() > maxCursors {
		old := r.lru.Remove(r.lru.Front()).(*cursor)
		delete(r.cursors, old.key)
		drop = append(drop, old)
	}
	r.mu.Unlock()
	for _, d := range drop {
		r.releaseDir(d)
	}
}

func (r *rawFS) releaseDir(c *cursor) {
	r.RawFileSystem.ReleaseDir(&fuse.ReleaseIn{InHeader: fuse.InHeader{NodeId: c.key.node}, Fh: c.fh})
}

// FsyncDir commits the metadata changes waiting for their commit; without
// directory handles it comes with handle 0.
func (r *rawFS) FsyncDir(cancel <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	if in.Fh != 0 {
		return r.RawFileSystem.FsyncDir(cancel, in)
	}
	return fuse.Status(r.s.errno("fsyncdir", r.s.store.Commit(r.s.ctx)))
}
