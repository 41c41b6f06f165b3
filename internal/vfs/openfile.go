package vfs

import (
	"context"
	"io"
	"sort"
	"sync"
	"syscall"
	"time"
)

// openInode is the shared state of an inode with open handles, a small page
// cache: the bytes written through any handle and not yet flushed, visible to
// every handle and to Stat at once. Only the bytes actually written are kept
// (per chunk, a buffer and the spans written into it); everything else is read
// from the committed content, and a flush merges the written spans onto the
// content committed at that moment. So a write through a handle never carries a
// stale copy of bytes it did not write, whatever other writers did meanwhile.
type openInode struct {
	mu      sync.Mutex
	ino     uint64
	path    string // a name of the file (kept current across renames), for the journal
	handles int
	dying   bool // being deleted by a transaction: new opens fail with ENOENT

	dirty      map[int64]*dirtyChunk // chunk index → unflushed writes
	dirtyBytes int64
	writeEnd   int64 // end of the furthest unflushed write (0 when none)
	meta       bool  // mtime/ctime of unflushed writes differ from the committed row
	mtime      time.Time
	ctime      time.Time
	atime      bool // atime should be updated at the next flush
	relatime   bool // a read should update atime (atime is older than mtime/ctime or a day)

	// One-chunk cache of committed content for small sequential reads. Every
	// commit that changes the content of an open inode clears it.
	rcIdx  int64
	rcData []byte // the stored bytes of chunk rcIdx (shorter than a chunk for a short file)
	rcSize int64  // committed size in the snapshot rcData came from
	rcOK   bool
}

// dirtyChunk holds the unflushed writes into one chunk: buf has the chunk's
// layout, spans (sorted, disjoint, not touching) say which bytes were written.
type dirtyChunk struct {
	buf   []byte
	spans []span
}

type span struct{ from, to int64 }

// add records that [from, to) was written, merging overlapping or touching spans.
func (d *dirtyChunk) add(from, to int64) {
	out := d.spans[:0:0]
	for _, s := range d.spans {
		if s.to < from || s.from > to {
			out = append(out, s)
			continue
		}
		from, to = min(from, s.from), max(to, s.to)
	}
	out = append(out, span{from, to})
	sort.Slice(out, func(i, j int) bool { return out[i].from < out[j].from })
	d.spans = out
}

// clip forgets written bytes at and beyond n.
func (d *dirtyChunk) clip(n int64) {
	out := d.spans[:0]
	for _, s := range d.spans {
		if s.from >= n {
			continue
		}
		s.to = min(s.to, n)
		out = append(out, s)
	}
	d.spans = out
}

// covers reports whether the written spans cover [0, n).
func (d *dirtyChunk) covers(n int64) bool {
	return n == 0 || len(d.spans) > 0 && d.spans[0].from == 0 && d.spans[0].to >= n
}

// overlay copies the written bytes of the chunk starting at file offset cstart
// into dst, which starts at file offset base.
func (d *dirtyChunk) overlay(dst []byte, base, cstart int64) {
	end := base + int64(len(dst))
	for _, s := range d.spans {
		from, to := max(cstart+s.from, base), min(cstart+s.to, end)
		if from < to {
			copy(dst[from-base:to-base], d.buf[from-cstart:to-cstart])
		}
	}
}

// getBuf returns a zeroed chunk-sized buffer from the store's pool
// (core.bufs, of *[]byte); give it back with putBuf.
func (f *FS) getBuf() []byte {
	b := f.getDirtyBuf()
	clear(b)
	return b
}

// getDirtyBuf is getBuf without the clearing, for a dirty chunk: only the
// bytes its spans cover are ever read.
func (f *FS) getDirtyBuf() []byte {
	if p, ok := f.bufs.Get().(*[]byte); ok {
		return *p
	}
	return make([]byte, f.chunkSize)
}

func (f *FS) putBuf(b []byte) {
	if int64(cap(b)) == f.chunkSize {
		b = b[:cap(b)]
		f.bufs.Put(&b)
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
		o = &openInode{ino: in.Ino, path: p, dirty: make(map[int64]*dirtyChunk),
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
	if last {
		o.mu.Lock()
		o.discardLocked(f)
		o.rcData = nil
		o.mu.Unlock()
	}
	if !last {
		return nil
	}
	return f.dropUnlinked(o.ino)
}

// dropUnlinked deletes inode ino if it has no name left and no handle open.
// It runs when the last handle closes, and after a commit that unlinked an
// inode a handle kept (that handle may have closed before the commit, when the
// inode still had its name). The deletion is not a commit of its own: it rides
// along with the next one (see applyDrops), or with an empty commit dropDelay
// later if none comes. Until then the inode is unreachable (no name, no
// handle), and a crash leaves it for the next Open to remove, as any inode
// unlinked while open.
func (f *FS) dropUnlinked(ino uint64) error {
	if f.closed.Load() || f.opts.ReadOnly {
		return nil
	}
	f.omu.Lock()
	o := f.opens[ino]
	open := o != nil && o.handles > 0
	f.omu.Unlock()
	if open {
		return nil
	}
	in, ok, err := f.getInode(ino)
	if err != nil || !ok || in.Nlink > 0 {
		return err
	}
	if !f.markDying(ino) {
		return nil // opened again meanwhile
	}
	f.dmu.Lock()
	if f.drops == nil {
		f.drops = make(map[uint64]struct{})
	}
	f.drops[ino] = struct{}{}
	if f.dropTimer == nil {
		f.dropTimer = time.AfterFunc(dropDelay, f.flushDrops)
	} else if len(f.drops) == 1 {
		f.dropTimer.Reset(dropDelay)
	}
	f.dmu.Unlock()
	return nil
}

// dropDelay is how long a deletion of an unlinked inode waits for a commit
// to ride along with before it commits on its own.
const dropDelay = 50 * time.Millisecond

// flushDrops commits the pending deletions, if any (the timer's function).
func (f *FS) flushDrops() {
	if !f.closing.Load() {
		f.commitDrops(context.Background())
	}
}

// commitDrops commits the pending deletions now, if there are any.
func (f *FS) commitDrops(ctx context.Context) error {
	if !f.pendingDrops() || f.opts.ReadOnly {
		return nil
	}
	return f.update(ctx, "close", "", func(t *tx) error { return nil })
}

// pendingDrops reports whether deletions wait for a commit.
func (f *FS) pendingDrops() bool {
	f.dmu.Lock()
	defer f.dmu.Unlock()
	return len(f.drops) > 0
}

// applyDrops deletes the unlinked inodes whose last handle has closed, at the
// start of a transaction (so the space and inodes they free count for its
// requests). They run in a savepoint: if one fails, they all stay pending and
// the transaction goes on without them.
func (t *tx) applyDrops() {
	f := t.f
	f.dmu.Lock()
	pending := f.drops
	f.drops = nil
	f.dmu.Unlock()
	if len(pending) == 0 {
		return
	}
	t.drops = pending
	err := t.c.Run("SAVEPOINT drops")
	if err == nil {
		for ino := range pending {
			in, ierr := t.inode(ino)
			if ierr != nil || in.Nlink > 0 || !f.markDying(ino) {
				continue // gone, linked again, or open again
			}
			t.dying = append(t.dying, ino)
			if err = t.dropInode(ino); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = t.c.Run("RELEASE drops")
	}
	if err != nil {
		t.c.Run("ROLLBACK TO drops")
		t.c.Run("RELEASE drops")
		clear(t.inodes)
		clear(t.dents)
		clear(t.inl)
		t.used, t.ninodes = 0, 0
		t.clearDying(0)
		t.requeueDrops()
	}
}

// requeueDrops puts the deletions t took back in the queue, when t did not
// commit them.
func (t *tx) requeueDrops() {
	f := t.f
	if len(t.drops) == 0 {
		return
	}
	f.dmu.Lock()
	if f.drops == nil {
		f.drops = make(map[uint64]struct{}, len(t.drops))
	}
	for ino := range t.drops {
		f.drops[ino] = struct{}{}
	}
	if f.dropTimer != nil {
		f.dropTimer.Reset(dropDelay)
	}
	f.dmu.Unlock()
	for ino := range t.drops {
		f.markDying(ino) // still unreachable: new opens fail
	}
	t.drops = nil
}

// discardLocked drops every unflushed write (after the content was replaced or
// truncated to zero by someone else, as a kernel truncate drops dirty pages).
func (o *openInode) discardLocked(f *FS) {
	for idx, d := range o.dirty {
		f.putBuf(d.buf)
		delete(o.dirty, idx)
	}
	f.dirtyTotal.Add(-o.dirtyBytes)
	o.dirtyBytes, o.writeEnd, o.meta, o.rcOK = 0, 0, false, false
}

// contentChanged is called after a commit replaced the committed content of ino.
func (f *FS) contentChanged(ino uint64, discard bool) {
	f.omu.Lock()
	o := f.opens[ino]
	f.omu.Unlock()
	if o == nil {
		return
	}
	o.mu.Lock()
	if discard {
		o.discardLocked(f)
	}
	o.rcOK = false
	o.mu.Unlock()
}

// committedSize is the size in the committed row.
func (f *FS) committedSize(ino uint64) (int64, error) {
	in, ok, err := f.getInode(ino)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, syscall.ENOENT
	}
	return in.Size, nil
}

// sizeLocked is the current size: committed, extended by unflushed writes.
func (f *FS) sizeLocked(o *openInode) (int64, error) {
	n, err := f.committedSize(o.ino)
	return max(n, o.writeEnd), err
}

// overlay applies unflushed size and times of an open inode to a committed one.
func (f *FS) overlay(in inode) inode {
	f.amu.Lock()
	if at, ok := f.atimes[in.Ino]; ok && at.After(in.Atime) {
		in.Atime = at
	}
	f.amu.Unlock()
	f.omu.Lock()
	o := f.opens[in.Ino]
	f.omu.Unlock()
	if o == nil {
		return in
	}
	o.mu.Lock()
	// Read the inode again under o.mu: a flush holds it from before its
	// commit until it has cleared the unflushed state, so the row and the
	// unflushed state read here belong together (in may predate the flush).
	if cur, ok, err := f.getInode(in.Ino); err == nil && ok {
		at := in.Atime
		in = cur
		if at.After(in.Atime) {
			in.Atime = at
		}
	}
	in.Size = max(in.Size, o.writeEnd)
	if o.meta {
		if o.mtime.After(in.Mtime) {
			in.Mtime = o.mtime
		}
		if o.ctime.After(in.Ctime) {
			in.Ctime = o.ctime
		}
	}
	in.Blocks += int64(len(o.dirty)) * blocksOf(f.chunkSize)
	o.mu.Unlock()
	return in
}

// flushIno flushes the unflushed writes of ino, if it is open, committed
// with the given delay (0: durable when it returns; see WithBatching).
func (f *FS) flushIno(ctx context.Context, ino uint64, delay time.Duration) error {
	f.omu.Lock()
	o := f.opens[ino]
	f.omu.Unlock()
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return f.flushLockedWith(ctx, delay, o, -1)
}

// flushLocked commits o's unflushed writes and times; with truncTo >= 0 it
// first sets the committed size to truncTo. o.mu is held.
func (f *FS) flushLocked(ctx context.Context, o *openInode, truncTo int64) error {
	return f.flushLockedWith(ctx, 0, o, truncTo)
}

// flushLockedWith is flushLocked committed with the given delay (0: durable
// when it returns).
func (f *FS) flushLockedWith(ctx context.Context, delay time.Duration, o *openInode, truncTo int64) error {
	if len(o.dirty) == 0 && !o.meta && !o.atime && truncTo < 0 {
		return nil
	}
	if len(o.dirty) == 0 && !o.meta && truncTo < 0 {
		// Only the access time changed: it rides along with the next commit
		// (or Close) instead of costing a transaction per file read.
		f.deferAtime(o.ino, f.opts.Now())
		o.atime, o.relatime = false, false
		return nil
	}
	cs := f.chunkSize
	ps := make([]piece, 0, len(o.dirty))
	for idx, d := range o.dirty {
		ps = append(ps, piece{idx: idx, data: d.buf})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].idx < ps[j].idx })
	// Whole chunks are hashed before taking the writer lock; a chunk that is
	// partly written or ends the file is merged and hashed inside the
	// transaction, onto the content committed then.
	var full []piece
	for _, p := range ps {
		if o.dirty[p.idx].covers(cs) {
			full = append(full, p)
		}
	}
	hashPieces(full)
	prehashed := make(map[int64]*piece, len(full))
	for i := range full {
		prehashed[full[i].idx] = &full[i]
	}
	err := f.updateWith(ctx, delay, "write", o.path, func(t *tx) error {
		in, err := t.inode(o.ino)
		if err != nil {
			return err
		}
		if truncTo >= 0 {
			if err := t.resize(in, truncTo); err != nil {
				return err
			}
			in.Size = truncTo
			in.Mtime, in.Ctime = t.now, t.now
			t.log(Change{Op: OpTruncate, Ino: o.ino, Path: o.path, Off: truncTo})
		}
		newSize := max(in.Size, o.writeEnd)
		chunks := ps
		if newSize <= f.inlineMax && in.IsRegular() {
			// Inline (inline.go): only chunk 0 can be dirty.
			if err := t.writeInline(in, o.dirty[0], newSize); err != nil {
				return err
			}
			chunks = nil
		} else if newSize > in.Size {
			if err := t.moveOut(in); err != nil {
				return err
			}
		}
		var merged [][]byte
		defer func() {
			for _, b := range merged {
				f.putBuf(b)
			}
		}()
		for i := range chunks {
			idx := chunks[i].idx
			d := o.dirty[idx]
			valid := min(cs, newSize-idx*cs)
			var p piece
			switch {
			case valid == cs && prehashed[idx] != nil:
				p = *prehashed[idx] // hashed above (data nil: all zeros, a hole)
			case d.covers(valid):
				hp := []piece{{idx: idx, data: d.buf[:valid]}}
				hashPieces(hp)
				p = hp[0]
			default:
				// Merge the written spans onto the committed chunk.
				buf := f.getBuf()
				merged = append(merged, buf)
				data, csize, ok, err := t.fileChunkData(o.ino, idx)
				if err != nil {
					return err
				}
				if ok {
					copy(buf, data[:min(csize, int64(len(data)))])
				}
				d.overlay(buf, idx*cs, idx*cs)
				hp := []piece{{idx: idx, data: buf[:valid]}}
				hashPieces(hp)
				p = hp[0]
			}
			if err := t.setChunk(in, &p); err != nil {
				return err
			}
		}
		in.Size = newSize
		if o.meta {
			if o.mtime.After(in.Mtime) {
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
		if len(ps) > 0 {
			off := ps[0].idx * cs
			n := min(newSize, ps[len(ps)-1].idx*cs+cs) - off
			t.log(Change{Op: OpWrite, Ino: o.ino, Path: o.path, Off: off, Len: n})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for idx, d := range o.dirty {
		f.putBuf(d.buf)
		delete(o.dirty, idx)
	}
	f.dirtyTotal.Add(-o.dirtyBytes)
	o.dirtyBytes, o.writeEnd = 0, 0
	o.meta, o.atime, o.relatime = false, false, false
	o.rcOK = false
	return nil
}

// writeLocked copies p into o's unflushed writes at off. o.mu is held.
func (f *FS) writeLocked(ctx context.Context, o *openInode, p []byte, off int64) (int, error) {
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
		d := o.dirty[idx]
		if d == nil {
			d = &dirtyChunk{buf: f.getDirtyBuf()}
			o.dirty[idx] = d
			o.dirtyBytes += cs
			f.dirtyTotal.Add(cs)
		}
		copy(d.buf[within:], p[:n])
		d.add(within, within+n)
		off += n
		p = p[n:]
		written += int(n)
	}
	o.writeEnd = max(o.writeEnd, end)
	now := f.opts.Now()
	o.mtime, o.ctime, o.meta, o.relatime = now, now, true, true
	// Flush this file when it holds DirtyBytes, or when all open files
	// together hold MaxDirtyBytes (the writer that crosses the line pays),
	// or when the unflushed writes could cross the workspace's quota: then
	// the write that crosses it fails with EDQUOT, not the close that
	// programs (a shell's redirection) ignore. Near the quota, writes are
	// flushed one by one.
	if o.dirtyBytes >= f.opts.DirtyBytes || f.dirtyTotal.Load() >= f.opts.MaxDirtyBytes || f.opts.SyncWrites ||
		f.usedPub.Load()+f.dirtyTotal.Load() > f.quotaBytes() {
		if err := f.flushLocked(ctx, o, -1); err != nil {
			return written, err
		}
	}
	return written, nil
}

// readLocked reads into p at off, seeing unflushed writes. o.mu is held.
//
// The committed size and content are read by one statement (one snapshot),
// so a read racing with a replacement (WriteFile) sees one version or the
// other, never the size of one and the bytes of the other.
func (f *FS) readLocked(ctx context.Context, o *openInode, p []byte, off int64, noatime bool) (int, error) {
	if off < 0 {
		return 0, syscall.EINVAL
	}
	cs := f.chunkSize
	if o.rcOK && off/cs == o.rcIdx {
		// Served from the one-chunk cache when the read stays inside it; the
		// cache holds the size of the same snapshot.
		size := max(o.rcSize, o.writeEnd)
		if off >= size {
			return 0, io.EOF
		}
		if n := min(int64(len(p)), size-off); (off+n-1)/cs == o.rcIdx && n < cs {
			return f.finishRead(o, p, off, n, o.rcSize, noatime)
		}
	}
	if err := f.syncFor(ctx, o.ino, false); err != nil {
		return 0, err
	}
	c, err := f.readerRaw()
	if err != nil {
		return 0, err
	}
	defer f.putReader(c)
	if len(p) == 0 {
		return 0, nil
	}
	lo, hi := off/cs, (off+int64(len(p))-1)/cs
	if lo == hi && int64(len(p)) < cs {
		// Small read inside one chunk: read the whole committed chunk and keep
		// it for the next small read (cleared by every commit that changes
		// this inode).
		committed, data, err := readChunkSized(c, f.slots, o.ino, lo, cs, o.rcData[:0])
		if err != nil {
			o.rcOK = false
			return 0, err
		}
		o.rcData, o.rcIdx, o.rcSize, o.rcOK = data, lo, committed, true
		size := max(committed, o.writeEnd)
		if off >= size {
			return 0, io.EOF
		}
		return f.finishRead(o, p, off, min(int64(len(p)), size-off), committed, noatime)
	}
	committed, err := readSized(c, f.slots, o.ino, lo, hi, cs, off, p)
	if err != nil {
		o.rcOK = false
		return 0, err
	}
	size := max(committed, o.writeEnd)
	if off >= size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), size-off)
	// Past the committed size (grown by unflushed writes) the bytes are zero
	// until the overlay; readSized zeroed only up to the committed size.
	if committed < off+n {
		clear(p[max(committed-off, 0):n])
	}
	if off == 0 && committed <= int64(len(p)) && committed <= cs {
		// The whole committed file, one chunk at most (a small file read
		// with a large buffer, as io.ReadFull and io.Copy do): kept as the
		// one-chunk cache, so the read at its end that follows finds the
		// end without a query.
		o.rcData = append(o.rcData[:0], p[:committed]...)
		o.rcIdx, o.rcSize, o.rcOK = 0, committed, true
	}
	return f.overlayRead(o, p, off, n, noatime)
}

// finishRead serves a read inside the one-chunk cache (committed: the size of
// its snapshot) and overlays unflushed writes.
func (f *FS) finishRead(o *openInode, p []byte, off, n, committed int64, noatime bool) (int, error) {
	cs := f.chunkSize
	dst := p[:n]
	// rcData holds the stored bytes of the chunk; past them (a short last
	// chunk, a hole, bytes beyond the committed size) everything reads as zero.
	var c int
	if start := off - o.rcIdx*cs; start < int64(len(o.rcData)) {
		c = copy(dst, o.rcData[start:])
	}
	clear(dst[c:])
	if committed < off+n {
		clear(dst[max(committed-off, 0):])
	}
	return f.overlayRead(o, p, off, n, noatime)
}

// readCommitted reads committed content of ino at off into p, for a file with
// no unflushed writes (see File.ReadAt).
func (f *FS) readCommitted(ctx context.Context, ino uint64, p []byte, off int64) (int, error) {
	if err := f.syncFor(ctx, ino, false); err != nil {
		return 0, err
	}
	c, err := f.readerRaw()
	if err != nil {
		return 0, err
	}
	defer f.putReader(c)
	cs := f.chunkSize
	size, err := readSized(c, f.slots, ino, off/cs, (off+int64(len(p))-1)/cs, cs, off, p)
	if err != nil {
		return 0, err
	}
	if off >= size {
		return 0, io.EOF
	}
	if n := size - off; n < int64(len(p)) {
		return int(n), io.EOF
	}
	return len(p), nil
}

// overlayRead applies unflushed writes to the n bytes read at off.
func (f *FS) overlayRead(o *openInode, p []byte, off, n int64, noatime bool) (int, error) {
	cs := f.chunkSize
	dst := p[:n]
	for idx := off / cs; idx <= (off+n-1)/cs; idx++ {
		if d := o.dirty[idx]; d != nil {
			d.overlay(dst, off, idx*cs)
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

// truncateOpen sets the size of an open file and commits, keeping unflushed
// writes below the new size.
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
	for idx, d := range o.dirty {
		switch {
		case idx*cs >= size:
			f.putBuf(d.buf)
			delete(o.dirty, idx)
			o.dirtyBytes -= cs
			f.dirtyTotal.Add(-cs)
		case idx*cs+cs > size:
			d.clip(size - idx*cs)
		}
	}
	o.writeEnd = min(o.writeEnd, size)
	o.rcOK = false
	return f.flushLocked(ctx, o, size)
}

// deferAtime records an access time to store with the next commit.
func (f *FS) deferAtime(ino uint64, at time.Time) {
	f.amu.Lock()
	if f.atimes == nil {
		f.atimes = make(map[uint64]time.Time)
	}
	f.atimes[ino] = at
	f.amu.Unlock()
}

// applyAtimes stores the deferred access times in t (called by every commit).
// They are best effort: lost if the process dies first, like a kernel's
// in-memory atime.
func (t *tx) applyAtimes() {
	f := t.f
	f.amu.Lock()
	pending := f.atimes
	f.atimes = nil
	f.amu.Unlock()
	for ino, at := range pending {
		in, err := t.inode(ino)
		if err != nil {
			continue // removed meanwhile
		}
		if at.After(in.Atime) {
			in.Atime = at
			t.put(in)
		}
	}
}
