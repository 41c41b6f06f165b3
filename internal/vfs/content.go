package vfs

import (
	"crypto/sha256"
	"runtime"
	"slices"
	"sync"

	"github.com/desk-dev/desk/internal/sqlite"
)

// A piece is one chunk's worth of new content for a file: data nil means a hole.
type piece struct {
	idx  int64
	data []byte
	hash [32]byte
}

// hashPieces computes the hashes of pieces (in parallel when there are many) and
// turns all-zero chunks into holes.
func hashPieces(ps []piece) {
	work := func(p *piece) {
		if p.data != nil && allZero(p.data) {
			p.data = nil
			return
		}
		if p.data != nil {
			p.hash = sha256.Sum256(p.data)
		}
	}
	if len(ps) < 4 {
		for i := range ps {
			work(&ps[i])
		}
		return
	}
	n := runtime.GOMAXPROCS(0)
	if n > len(ps) {
		n = len(ps)
	}
	var wg sync.WaitGroup
	next := make(chan int, len(ps))
	for i := range ps {
		next <- i
	}
	close(next)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				work(&ps[i])
			}
		}()
	}
	wg.Wait()
}

func allZero(b []byte) bool {
	for len(b) >= 8 {
		if b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7] != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// blocksOf is the 512-byte block count charged for a stored chunk of n bytes
// (rounded to 4 KiB, as a kernel filesystem would allocate).
func blocksOf(n int64) int64 { return (n + 4095) / 4096 * 8 }

// setChunk points chunk idx of in at p's content (or makes it a hole), keeping
// reference counts and in.Blocks right.
func (t *tx) setChunk(in *inode, p *piece) error {
	return t.setChunkFrom(in, p, true)
}

// setChunkFrom is setChunk; with lookup false the caller knows chunk idx holds
// nothing yet (the file was just emptied), which saves a query.
func (t *tx) setChunkFrom(in *inode, p *piece, lookup bool) error {
	t.contentChanged(in.Ino)
	var oldID, oldSize int64
	if lookup {
		var err error
		if oldID, oldSize, err = t.fileChunk(in.Ino, p.idx); err != nil {
			return err
		}
	}
	if p.data == nil {
		if oldID == 0 {
			return nil
		}
		st, err := t.c.Prep("DELETE FROM file_chunks WHERE ino = ? AND idx = ?")
		if err != nil {
			return err
		}
		if err := st.Exec(in.Ino, p.idx); err != nil {
			return err
		}
		in.Blocks -= blocksOf(oldSize)
		return t.decref(oldID, 1)
	}
	id, err := t.putChunk(p.hash[:], p.data)
	if err != nil {
		return err
	}
	if id == oldID {
		return t.decref(id, 1)
	}
	st, err := t.c.Prep("INSERT OR REPLACE INTO file_chunks(ino, idx, chunk) VALUES (?, ?, ?)")
	if err != nil {
		return err
	}
	if err := st.Exec(in.Ino, p.idx, id); err != nil {
		return err
	}
	in.Blocks += blocksOf(int64(len(p.data)))
	if oldID != 0 {
		in.Blocks -= blocksOf(oldSize)
		return t.decref(oldID, 1)
	}
	return nil
}

func (t *tx) fileChunk(ino uint64, idx int64) (id, size int64, err error) {
	st, err := t.c.Prep("SELECT fc.chunk, c.size FROM file_chunks fc JOIN chunks c ON c.id = fc.chunk WHERE fc.ino = ? AND fc.idx = ?")
	if err != nil {
		return 0, 0, err
	}
	defer st.Reset()
	if err := st.Bind(ino, idx); err != nil {
		return 0, 0, err
	}
	if !st.Step() {
		return 0, 0, st.Err()
	}
	return st.Int64(0), st.Int64(1), nil
}

// fileChunkData is fileChunk with the chunk's bytes (readChunkData); ok is
// false where the file has no chunk idx (a hole, or past its end).
func (t *tx) fileChunkData(ino uint64, idx int64) (data []byte, size int64, ok bool, err error) {
	id, size, err := t.fileChunk(ino, idx)
	if err != nil || id == 0 {
		return nil, 0, false, err
	}
	data, err = t.f.readChunkData(t.c, id)
	return data, size, err == nil, err
}

// putChunk stores data under hash (once per store) and takes a reference to it.
// A new chunk of the full chunk size goes to a slot of the chunk file
// (slots.go), a smaller one to chunk_data.
func (t *tx) putChunk(hash, data []byte) (int64, error) {
	var slot any // NULL: the bytes go to chunk_data
	s := t.f.slots
	if s != nil && int64(len(data)) == t.f.chunkSize {
		slot = s.alloc()
	}
	st, err := t.c.Prep(`INSERT INTO chunks(hash, size, refs, slot) VALUES (?, ?, 1, ?)
		ON CONFLICT(hash) DO UPDATE SET refs = refs + 1 RETURNING id, refs`)
	if err == nil {
		err = st.Bind(hash, len(data), slot)
	}
	if err == nil && !st.Step() {
		err = st.Err()
		if err == nil {
			err = errMissingChunk
		}
	}
	var id, refs int64
	if err == nil {
		id, refs = st.Int64(0), st.Int64(1)
	}
	if st != nil {
		if rerr := st.Reset(); err == nil {
			err = rerr
		}
	}
	if x, ok := slot.(int64); ok {
		if err != nil || refs != 1 {
			s.giveBack([]int64{x}) // stored already, or not stored at all
		} else {
			t.slotsNew = append(t.slotsNew, x)
		}
	}
	if err != nil {
		return 0, err
	}
	if refs == 1 {
		if x, ok := slot.(int64); ok {
			if err := s.write(x, data); err != nil {
				return 0, err
			}
		} else {
			ins, err := t.c.Prep("INSERT INTO chunk_data(id, data) VALUES (?, ?)")
			if err != nil {
				return 0, err
			}
			if err := ins.Exec(id, data); err != nil {
				return 0, err
			}
		}
		t.used += int64(len(data))
	}
	return id, nil
}

// decref drops n references to chunk id and deletes it when none remain (its
// slot is freed when the transaction commits).
func (t *tx) decref(id int64, n int64) error {
	st, err := t.c.Prep("UPDATE chunks SET refs = refs - ? WHERE id = ? RETURNING refs, size, slot")
	if err != nil {
		return err
	}
	if err := st.Bind(n, id); err != nil {
		st.Reset()
		return err
	}
	if !st.Step() {
		err := st.Err()
		st.Reset()
		return err
	}
	refs, size, slotNull, slot := st.Int64(0), st.Int64(1), st.IsNull(2), st.Int64(2)
	if err := st.Reset(); err != nil {
		return err
	}
	if refs > 0 {
		return nil
	}
	qs := []string{"DELETE FROM chunks WHERE id = ?", "DELETE FROM chunk_data WHERE id = ?"}
	if !slotNull {
		qs = qs[:1]
		t.slotsFreed = append(t.slotsFreed, slot)
	}
	for _, q := range qs {
		del, err := t.c.Prep(q)
		if err != nil {
			return err
		}
		if err := del.Exec(id); err != nil {
			return err
		}
	}
	t.used -= size
	return nil
}

// truncateChunks drops the content of in at and beyond size, trimming a partial
// last chunk or inline content, and keeps in.Blocks right. in must be the
// inode as t sees it (its Size and Blocks say what is stored). The caller
// puts in.
func (t *tx) truncateChunks(in *inode, size int64) error {
	if done, err := t.trimInline(in, size); done || err != nil {
		return err
	}
	t.contentChanged(in.Ino)
	if in.Blocks == 0 {
		return nil // nothing stored (an empty file, or holes only): no query
	}
	cs := t.f.chunkSize
	first := (size + cs - 1) / cs // first chunk wholly beyond size
	st, err := t.c.Prep(`SELECT fc.chunk, count(*), c.size FROM file_chunks fc JOIN chunks c ON c.id = fc.chunk
		WHERE fc.ino = ? AND fc.idx >= ? GROUP BY fc.chunk`)
	if err != nil {
		return err
	}
	if err := st.Bind(in.Ino, first); err != nil {
		st.Reset()
		return err
	}
	type ref struct{ id, n, size int64 }
	var refs []ref
	for st.Step() {
		refs = append(refs, ref{st.Int64(0), st.Int64(1), st.Int64(2)})
	}
	if err := st.Err(); err != nil {
		st.Reset()
		return err
	}
	st.Reset()
	if len(refs) > 0 {
		del, err := t.c.Prep("DELETE FROM file_chunks WHERE ino = ? AND idx >= ?")
		if err != nil {
			return err
		}
		if err := del.Exec(in.Ino, first); err != nil {
			return err
		}
		for _, r := range refs {
			in.Blocks -= r.n * blocksOf(r.size)
			if err := t.decref(r.id, r.n); err != nil {
				return err
			}
		}
	}
	if size%cs == 0 {
		return nil
	}
	// Trim the partial last chunk so bytes past the new size read as zeros if
	// the file grows again.
	idx := size / cs
	keep := size % cs
	id, csize, err := t.fileChunk(in.Ino, idx)
	if err != nil || id == 0 || csize <= keep {
		return err
	}
	data, err := t.f.readChunkData(t.c, id)
	if err != nil {
		return err
	}
	ps := []piece{{idx: idx, data: data[:keep]}}
	hashPieces(ps)
	return t.setChunk(in, &ps[0])
}

// readChunkData returns the bytes of chunk id (from its slot or chunk_data),
// for the writer (a partial chunk merged with new bytes). The writer frees
// slots only by its own commits, so what it reads is stable without an
// epoch; it takes one anyway, as every reader of the chunk file does.
func (f *FS) readChunkData(c *sqlite.Conn, id int64) ([]byte, error) {
	st, err := c.Prep("SELECT c.slot, d.data FROM chunks c LEFT JOIN chunk_data d ON d.id = c.id WHERE c.id = ?")
	if err != nil {
		return nil, err
	}
	e := f.slots.enter()
	defer f.slots.leave(e)
	defer st.Reset()
	if err := st.Bind(id); err != nil {
		return nil, err
	}
	if !st.Step() {
		if err := st.Err(); err != nil {
			return nil, err
		}
		return nil, errMissingChunk
	}
	if !st.IsNull(0) {
		data := make([]byte, f.chunkSize)
		return data, f.slots.read(st.Int64(0), 0, data)
	}
	if st.IsNull(1) {
		return nil, errMissingChunk
	}
	return st.Blob(1, nil), nil
}

type internalError string

func (e internalError) Error() string { return string(e) }

const errMissingChunk = internalError("vfs: chunk data missing")

// readSized copies the committed content of chunks lo..hi of ino into dst
// (dst[0] is file offset base; holes and bytes past the file are left as they
// are) and returns the committed size, all from one statement, so the size
// and the bytes come from the same snapshot. A missing inode reads as size 0.
// A chunk in the chunk file is read with one pread straight into dst.
//
// dst is zeroed up to the committed size first (only that far: a large
// buffer reading a small file costs the file's size, not the buffer's).
func readSized(c *sqlite.Conn, s *slotFile, ino uint64, lo, hi, cs, base int64, dst []byte) (int64, error) {
	// i.data is inline content, chunk 0 held in the row (inline.go): such a
	// file has no chunk rows, so its one row carries it.
	st, err := c.Prep(`SELECT i.size, fc.idx, d.data, CASE WHEN ?2 = 0 THEN i.data END, ch.slot FROM inodes i
		LEFT JOIN file_chunks fc ON fc.ino = i.ino AND fc.idx BETWEEN ?2 AND ?3
		LEFT JOIN chunks ch ON ch.id = fc.chunk
		LEFT JOIN chunk_data d ON d.id = fc.chunk AND ch.slot IS NULL
		WHERE i.ino = ?1`)
	if err != nil {
		return 0, err
	}
	e := s.enter()
	defer s.leave(e)
	defer st.Reset()
	if err := st.Bind(ino, lo, hi); err != nil {
		return 0, err
	}
	var size int64
	end := base + int64(len(dst))
	first := true
	for st.Step() {
		size = st.Int64(0)
		if first {
			first = false
			clear(dst[:max(min(size-base, int64(len(dst))), 0)])
		}
		var idx int64
		var data []byte
		switch {
		case !st.IsNull(4):
			idx = st.Int64(1)
			cstart := idx * cs
			from, to := max(cstart, base), min(cstart+cs, end)
			if from < to {
				if err := s.read(st.Int64(4), from-cstart, dst[from-base:to-base]); err != nil {
					return 0, err
				}
			}
			continue
		case !st.IsNull(1):
			idx, data = st.Int64(1), st.RawBlob(2)
		case !st.IsNull(3):
			data = st.RawBlob(3)
		default:
			continue
		}
		cstart := idx * cs
		from, to := max(cstart, base), min(cstart+int64(len(data)), end)
		if from < to {
			copy(dst[from-base:to-base], data[from-cstart:to-cstart])
		}
	}
	return size, st.Err()
}

// readChunkSized returns the committed size of ino and the stored bytes of its
// chunk idx (appended to buf; empty for a hole; inline content is chunk 0),
// from one statement.
func readChunkSized(c *sqlite.Conn, s *slotFile, ino uint64, idx, cs int64, buf []byte) (int64, []byte, error) {
	st, err := c.Prep(`SELECT i.size, coalesce(d.data, CASE WHEN ?2 = 0 THEN i.data END), ch.slot FROM inodes i
		LEFT JOIN file_chunks fc ON fc.ino = i.ino AND fc.idx = ?2
		LEFT JOIN chunks ch ON ch.id = fc.chunk
		LEFT JOIN chunk_data d ON d.id = fc.chunk AND ch.slot IS NULL
		WHERE i.ino = ?1`)
	if err != nil {
		return 0, buf, err
	}
	e := s.enter()
	defer s.leave(e)
	defer st.Reset()
	if err := st.Bind(ino, idx); err != nil {
		return 0, buf, err
	}
	if !st.Step() {
		return 0, buf, st.Err()
	}
	size := st.Int64(0)
	if !st.IsNull(2) {
		n := len(buf)
		buf = slices.Grow(buf, int(cs))[:n+int(cs)]
		if err := s.read(st.Int64(2), 0, buf[n:]); err != nil {
			return 0, buf[:n], err
		}
		return size, buf, nil
	}
	if !st.IsNull(1) {
		buf = append(buf, st.RawBlob(1)...)
	}
	return size, buf, st.Err()
}
