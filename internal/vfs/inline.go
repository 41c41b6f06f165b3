package vfs

import (
	"crypto/sha256"
)

// Inline content.
//
// A regular file of at most the store's inline size (Options.InlineMax,
// fixed at creation) keeps its content in its inode row (inodes.data, with
// its SHA-256 in data_hash) instead of in a chunk: creating and writing it
// costs the row the create writes anyway, instead of four more B-tree
// inserts (chunks, its hash index, chunk_data, file_chunks) and as many
// deletes when it goes. The content is a chunk 0 stored in the row: bytes
// past it up to the size read as zeros, an all-zero content is a hole, and
// blocks counts it as it would count the chunk. A write that leaves the
// file at most the inline size stores it inline (a file that held such
// content in a chunk moves in); a write or truncation past the inline size
// moves it out, into chunk 0 under the same hash; a truncation that shrinks
// a chunked file leaves it chunked. Inline content is not deduplicated: a
// copy stores its bytes again (at most InlineMax per inode).

// inlineVal is an inode's inline content as a transaction sees it: data
// nil means none (the column is NULL).
type inlineVal struct {
	data []byte
	hash [32]byte
}

// mayInline reports whether in, as t sees it, may hold inline content: a
// regular file within the inline size with something stored (an empty or
// all-hole file stores nothing).
func (t *tx) mayInline(in *inode) bool {
	return t.f.inlineMax > 0 && in.IsRegular() && in.Size <= t.f.inlineMax && in.Blocks > 0
}

// inlineOf returns ino's inline content as t sees it.
func (t *tx) inlineOf(ino uint64) (inlineVal, error) {
	if v, ok := t.inl[ino]; ok {
		return v, nil
	}
	if t.created[ino] {
		return inlineVal{}, nil
	}
	st, err := t.c.Prep("SELECT data, data_hash FROM inodes WHERE ino = ?")
	if err != nil {
		return inlineVal{}, err
	}
	defer st.Reset()
	if err := st.Bind(ino); err != nil {
		return inlineVal{}, err
	}
	var v inlineVal
	if st.Step() && !st.IsNull(0) {
		v.data = st.Blob(0, nil)
		copy(v.hash[:], st.RawBlob(1))
	}
	return v, st.Err()
}

// setInline makes v the inline content of in (v.data nil: none), keeping
// t.used and in.Blocks right, and puts in. v.data must not be changed
// afterwards: the transaction keeps it until it commits.
func (t *tx) setInline(in *inode, v inlineVal) error {
	old, err := t.inlineOf(in.Ino)
	if err != nil {
		return err
	}
	t.contentChanged(in.Ino)
	if t.inl == nil {
		t.inl = make(map[uint64]inlineVal)
	}
	prev, had := t.inl[in.Ino]
	t.touched = append(t.touched, undoRec{inl: true, ino: in.Ino, data: prev, had: had})
	t.inl[in.Ino] = v
	n0, n1 := int64(len(old.data)), int64(len(v.data))
	t.used += n1 - n0
	in.Blocks += blocksOf(n1) - blocksOf(n0)
	t.put(in)
	return nil
}

// inlineContent makes an inlineVal of data (which it keeps): none when data
// is empty or all zeros (a hole).
func inlineContent(data []byte) inlineVal {
	if len(data) == 0 || allZero(data) {
		return inlineVal{}
	}
	return inlineVal{data: data, hash: sha256.Sum256(data)}
}

// trimInline drops in's inline content at and beyond size (the caller sets
// in.Size); done reports whether in held inline content.
func (t *tx) trimInline(in *inode, size int64) (done bool, err error) {
	if !t.mayInline(in) {
		return false, nil
	}
	v, err := t.inlineOf(in.Ino)
	if err != nil || v.data == nil {
		return false, err
	}
	if size >= int64(len(v.data)) {
		return true, nil
	}
	return true, t.setInline(in, inlineContent(append([]byte(nil), v.data[:size]...)))
}

// moveOut moves in's inline content, if any, into chunk 0 (before the file
// grows past the inline size); the chunk's hash is the inline one.
func (t *tx) moveOut(in *inode) error {
	if !t.mayInline(in) {
		return nil
	}
	v, err := t.inlineOf(in.Ino)
	if err != nil || v.data == nil {
		return err
	}
	if err := t.setInline(in, inlineVal{}); err != nil {
		return err
	}
	p := piece{idx: 0, data: v.data, hash: v.hash}
	return t.setChunkFrom(in, &p, false)
}

// resize prepares in's stored content for the size given (the caller sets
// in.Size): a shrink drops what lies beyond it, a growth past the inline
// size moves inline content out.
func (t *tx) resize(in *inode, size int64) error {
	switch {
	case size < in.Size:
		return t.truncateChunks(in, size)
	case size > in.Size && size > t.f.inlineMax:
		return t.moveOut(in)
	}
	return nil
}

// writeInline stores the content of in, newSize bytes at most the inline
// size, as what t sees of it (inline, or a small file's chunk 0, which it
// deletes) with the written spans of d (chunk 0's unflushed writes; nil:
// none) on top.
func (t *tx) writeInline(in *inode, d *dirtyChunk, newSize int64) error {
	buf := make([]byte, newSize)
	if in.Blocks > 0 {
		v, err := t.inlineOf(in.Ino)
		if err != nil {
			return err
		}
		if v.data != nil {
			copy(buf, v.data)
		} else if in.IsRegular() {
			// Held in a chunk (written before inline content existed, or
			// shrunk from a larger file): it moves in.
			data, _, ok, err := t.fileChunkData(in.Ino, 0)
			if err != nil {
				return err
			}
			if ok {
				copy(buf, data)
				if err := t.setChunk(in, &piece{idx: 0}); err != nil {
					return err
				}
			}
		}
	}
	if d != nil {
		d.overlay(buf, 0, 0)
	}
	return t.setInline(in, inlineContent(buf))
}
