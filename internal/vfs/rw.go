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
// Options.DirtyBytes whatever the size. Content beyond DirtyBytes is staged in an
// unnamed inode (removed at the next open if the process dies) and swapped in at
// the end in one transaction.
func (f *FS) WriteFileFrom(ctx context.Context, name string, r io.Reader, perm fs.FileMode) (int64, error) {
	const op = "write"
	if f.opts.ReadOnly {
		return 0, perr(op, name, syscall.EROFS)
	}
	cs := f.chunkSize
	batch := int(max(f.opts.DirtyBytes/cs, 1))
	var stage *inode // staging inode once content exceeds one batch
	var total int64
	idx := int64(0)
	bufs := make([][]byte, 0, batch)
	defer func() {
		for _, b := range bufs {
			f.putBuf(b)
		}
	}()
	eof := false
	for {
		if err := ctx.Err(); err != nil {
			f.dropStage(stage)
			return 0, err
		}
		// Fill one batch of chunks.
		ps := make([]piece, 0, batch)
		for len(ps) < batch && !eof {
			if len(bufs) <= len(ps) {
				bufs = append(bufs, f.getBuf())
			}
			buf := bufs[len(ps)]
			n, err := io.ReadFull(r, buf)
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				eof = true
			} else if err != nil {
				f.dropStage(stage)
				return 0, asPathErr(op, name, err)
			}
			if n == 0 {
				break
			}
			total += int64(n)
			if total > f.opts.MaxFileSize {
				f.dropStage(stage)
				return 0, perr(op, name, syscall.EFBIG)
			}
			ps = append(ps, piece{idx: idx, data: buf[:n]})
			idx++
		}
		hashPieces(ps)
		if eof {
			err := f.finishWrite(ctx, name, perm, stage, ps, total)
			if err != nil {
				f.dropStage(stage)
				return 0, err
			}
			return total, nil
		}
		// More to come: stage this batch in an unnamed inode.
		if stage == nil {
			var err error
			if stage, err = f.newStage(ctx, name); err != nil {
				return 0, err
			}
		}
		err := f.update(ctx, op, name, func(t *tx) error {
			in, err := t.inode(stage.Ino)
			if err != nil {
				return err
			}
			for i := range ps {
				if err := t.setChunk(in, &ps[i]); err != nil {
					return err
				}
			}
			in.Size = total
			t.put(in)
			return nil
		})
		if err != nil {
			f.dropStage(stage)
			return 0, err
		}
	}
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
	r, dirOnly, err := f.walkTx(t, op, name, true)
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
