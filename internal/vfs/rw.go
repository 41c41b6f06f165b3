package vfs

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// ReadFile returns the whole content of name.
func (f *FS) ReadFile(ctx context.Context, name string) ([]byte, error) {
	h, err := f.OpenFile(ctx, name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	if h.isDir {
		return nil, perr("read", name, syscall.EISDIR)
	}
	h.o.mu.Lock()
	size, err := h.f.sizeLocked(h.o)
	h.o.mu.Unlock()
	if err != nil {
		return nil, asPathErr("read", name, err)
	}
	buf := make([]byte, size)
	n, err := h.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return buf[:n], nil
}

// WriteFile replaces the content of name with data, creating it with perm (no
// umask) if needed, like os.WriteFile. The replacement is atomic: readers see the
// old or the new content, never a mix, and a failure (EFBIG, ENOSPC) leaves the
// old content. An existing file keeps its inode, mode and other names.
func (f *FS) WriteFile(ctx context.Context, name string, data []byte, perm fs.FileMode) error {
	if int64(len(data)) > f.opts.DirtyBytes {
		_, err := f.WriteFileFrom(ctx, name, bytes.NewReader(data), perm)
		return err
	}
	if f.opts.ReadOnly {
		return perr("write", name, syscall.EROFS)
	}
	if int64(len(data)) > f.opts.MaxFileSize {
		return perr("write", name, syscall.EFBIG)
	}
	return f.finishWrite(ctx, name, perm, nil, f.splitPieces(data), int64(len(data)))
}

// WriteFileFrom is WriteFile streaming from r: memory use is bounded by
// three times Options.DirtyBytes whatever the size. Content beyond DirtyBytes
// is staged in an unnamed inode (removed at the next open if the process
// dies) and swapped in at the end in one transaction. While one batch of
// DirtyBytes is committed, the next is read from r and hashed (a goroutine of
// the call's own, done before WriteFileFrom returns): the write, the reading
// and the SHA-256 overlap instead of taking turns.
func (f *FS) WriteFileFrom(ctx context.Context, name string, r io.Reader, perm fs.FileMode) (int64, error) {
	const op = "write"
	if f.opts.ReadOnly {
		return 0, perr(op, name, syscall.EROFS)
	}
	first := f.readBatch(ctx, r, name, 0, 0)
	if first.err != nil {
		f.putBatch(first)
		return 0, first.err
	}
	if first.eof {
		// All of it in one batch (most files): no staging, no goroutine.
		defer f.putBatch(first)
		if err := f.finishWrite(ctx, name, perm, nil, first.ps, first.total); err != nil {
			return 0, err
		}
		return first.total, nil
	}
	// More to come: read and hash batch n+1 while batch n commits.
	next := make(chan *inBatch, 1)
	stop := make(chan struct{})
	go func() {
		defer close(next)
		b := first
		for !b.eof && b.err == nil {
			b = f.readBatch(ctx, r, name, b.idx, b.total)
			select {
			case next <- b:
			case <-stop:
				f.putBatch(b)
				return
			}
		}
	}()
	// abort stops the reader and waits for it: r is not used after return.
	abort := func(stage *inode, err error) (int64, error) {
		close(stop)
		for b := range next {
			f.putBatch(b)
		}
		f.dropStage(stage)
		return 0, err
	}
	stage, err := f.newStage(ctx, name)
	if err != nil {
		f.putBatch(first)
		return abort(nil, err)
	}
	b := first
	for {
		if b.eof {
			err := f.finishWrite(ctx, name, perm, stage, b.ps, b.total)
			f.putBatch(b)
			if err != nil {
				return abort(stage, err)
			}
			return b.total, nil
		}
		err := f.update(ctx, op, name, func(t *tx) error {
			// Only the unnamed stage gets these chunks: their fdatasync
			// waits for the commit that names them (finishWrite).
			t.lazy = true
			in, err := t.inode(stage.Ino)
			if err != nil {
				return err
			}
			for i := range b.ps {
				if err := t.setChunk(in, &b.ps[i]); err != nil {
					return err
				}
			}
			in.Size = b.total
			t.put(in)
			return nil
		})
		f.putBatch(b)
		if err != nil {
			return abort(stage, err)
		}
		b = <-next
		if b.err != nil {
			f.putBatch(b)
			return abort(stage, b.err)
		}
	}
}

// inBatch is one batch of WriteFileFrom's content, read and hashed.
type inBatch struct {
	ps    []piece
	bufs  [][]byte
	idx   int64 // the chunk index after the batch
	total int64 // bytes read so far, this batch included
	eof   bool
	err   error
}

// readBatch reads up to DirtyBytes of r as chunks from index idx (total
// bytes read before them) and hashes them.
func (f *FS) readBatch(ctx context.Context, r io.Reader, name string, idx, total int64) *inBatch {
	const op = "write"
	cs := f.chunkSize
	n := int(max(f.opts.DirtyBytes/cs, 1))
	b := &inBatch{ps: make([]piece, 0, n), idx: idx, total: total}
	if err := ctx.Err(); err != nil {
		b.err = err
		return b
	}
	for len(b.ps) < n && !b.eof {
		buf := f.getDirtyBuf()
		b.bufs = append(b.bufs, buf)
		k, err := io.ReadFull(r, buf)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			b.eof = true
		} else if err != nil {
			b.err = asPathErr(op, name, err)
			return b
		}
		if k == 0 {
			break
		}
		b.total += int64(k)
		if b.total > f.opts.MaxFileSize {
			b.err = perr(op, name, syscall.EFBIG)
			return b
		}
		b.ps = append(b.ps, piece{idx: b.idx, data: buf[:k]})
		b.idx++
	}
	hashPieces(b.ps)
	return b
}

// putBatch gives a batch's buffers back.
func (f *FS) putBatch(b *inBatch) {
	for _, buf := range b.bufs {
		f.putBuf(buf)
	}
	b.bufs = nil
}

// newStage creates an unnamed inode (nlink 0) held open so it is not collected.
func (f *FS) newStage(ctx context.Context, name string) (*inode, error) {
	var st *inode
	err := f.update(ctx, "write", name, func(t *tx) error {
		in, err := t.newInode(S_IFREG | 0o600)
		if err != nil {
			return err
		}
		in.Nlink = 0
		st = in
		return nil
	})
	if err != nil {
		return nil, err
	}
	f.omu.Lock()
	f.opens[st.Ino] = &openInode{ino: st.Ino, handles: 1, dirty: make(map[int64]*dirtyChunk)}
	f.omu.Unlock()
	return st, nil
}

func (f *FS) dropStage(st *inode) {
	if st == nil {
		return
	}
	f.omu.Lock()
	if o := f.opens[st.Ino]; o != nil {
		f.omu.Unlock()
		f.release(o)
		return
	}
	f.omu.Unlock()
}

// finishWrite installs the content (staged chunks plus the last batch ps) as the
// content of name in one transaction.
func (f *FS) finishWrite(ctx context.Context, name string, perm fs.FileMode, stage *inode, ps []piece, total int64) error {
	err := f.update(ctx, "write", name, func(t *tx) error {
		return t.opWriteContent(name, perm, stage, ps, total)
	})
	if err == nil {
		f.dropStage(stage)
	}
	return err
}

// opWriteContent makes name (created with perm if missing) hold the staged
// chunks of stage followed by ps, total bytes in all.
func (t *tx) opWriteContent(name string, perm fs.FileMode, stage *inode, ps []piece, total int64) error {
	const op = "write"
	f := t.f
	if p, dirOnly, err := f.cleanPath(op, name); err != nil {
		return err
	} else if dirOnly {
		return f.createWithSlash(t, p)
	}
	r, dirOnly, err := f.walkTxAs(t, op, name, true, true)
	if err != nil {
		return err
	}
	var in *inode
	if r.ino == 0 {
		if dirOnly {
			return syscall.EISDIR
		}
		if in, err = t.create(r.parent, r.name, r.path, FileModeToUnix(perm), t.uid, t.gid); err != nil {
			return err
		}
	} else {
		if r.in.IsDir() {
			return syscall.EISDIR
		}
		if r.in.IsSpecial() {
			return syscall.ENXIO // as OpenFile: the store has no FIFO or device to write to
		}
		if in, err = t.inode(r.ino); err != nil {
			return err
		}
		if err := t.truncateChunks(in, 0); err != nil {
			return err
		}
		in.Blocks = 0
	}
	if stage != nil {
		sin, err := t.inode(stage.Ino)
		if err != nil {
			return err
		}
		st, err := t.c.Prep("UPDATE file_chunks SET ino = ? WHERE ino = ?")
		if err != nil {
			return err
		}
		t.contentChanged(in.Ino)
		t.contentChanged(stage.Ino)
		if err := st.Exec(in.Ino, stage.Ino); err != nil {
			return err
		}
		in.Blocks += sin.Blocks
		sin.Blocks, sin.Size = 0, 0
		t.put(sin)
	}
	if stage == nil && total <= f.inlineMax {
		// Inline (inline.go): the file was created or emptied above. ps holds
		// one piece, hashed (data nil: all zeros, a hole), or none.
		if len(ps) == 1 && ps[0].data != nil {
			if err := t.setInline(in, inlineVal{data: append([]byte(nil), ps[0].data...), hash: ps[0].hash}); err != nil {
				return err
			}
		}
		ps = nil
	}
	// The file holds no chunk below the staged ones' end: ps go in fresh unless
	// a staged chunk shares an index (it cannot: ps follow the staged range).
	for i := range ps {
		if err := t.setChunkFrom(in, &ps[i], stage != nil); err != nil {
			return err
		}
	}
	in.Size = total
	in.Mtime, in.Ctime = t.now, t.now
	t.put(in)
	t.log(Change{Op: OpWrite, Ino: in.Ino, Parent: r.parent, Name: r.name, Path: r.path, Off: 0, Len: total})
	// Handles open on the file see the new content (after the commit); their
	// unflushed writes are dropped, as a kernel truncate drops dirty pages.
	ino := in.Ino
	t.after = append(t.after, func() { f.contentChanged(ino, true) })
	return nil
}

// splitPieces cuts data into chunk pieces (sharing data's memory) and hashes them.
func (f *FS) splitPieces(data []byte) []piece {
	cs := int(f.chunkSize)
	ps := make([]piece, 0, (len(data)+cs-1)/cs)
	for off := 0; off < len(data); off += cs {
		ps = append(ps, piece{idx: int64(off / cs), data: data[off:min(off+cs, len(data))]})
	}
	hashPieces(ps)
	return ps
}

// createWithSlash is the error for creating "p/" (p cleaned): as the kernel's
// open(O_CREAT) on a name with a trailing slash, the parent is resolved first
// (ENOENT, ENOTDIR), then it is EISDIR whether the name exists or not.
func (f *FS) createWithSlash(l lookupFn, p string) error {
	pr, err := f.walk(l, path.Dir(p), true)
	switch {
	case err != nil:
		return err
	case pr.ino == 0:
		return syscall.ENOENT
	case !pr.in.IsDir():
		return syscall.ENOTDIR
	}
	return syscall.EISDIR
}
