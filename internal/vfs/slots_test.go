package vfs_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
)

// TestMigrateV3 opens a store version 3 wrote (testdata/store-v3.db.gz, made
// by the code before the chunk file: two 200,000-byte files sharing their
// chunks, a sparse file whose second chunk is full, a small inline file, all
// with 64 KiB chunks in chunk_data): Open upgrades it to version 4, the old
// chunks read back from chunk_data, new full-size chunks go to the chunk
// file, content written again deduplicates against the old chunks, a write
// into an old chunk merges it into a new one, and Check passes throughout
// and after a reopen.
func TestMigrateV3(t *testing.T) {
	ctx := context.Background()
	path, f := upgradeOldStore(t, "testdata/store-v3.db.gz", 3)
	big := make([]byte, 200000)
	for i := range big {
		big[i] = byte(i * 13 % 251)
	}
	want := map[string][]byte{
		"/d/small": []byte("hello\n"), "/d/big": big, "/d/big2": big,
		"/d/sparse": append(make([]byte, 65536), bytes.Repeat([]byte("s"), 65536)...),
	}
	check := func(f *vfs.FS, slots, chunks int64) {
		t.Helper()
		for p, w := range want {
			if got, err := f.ReadFile(ctx, p); err != nil || !bytes.Equal(got, w) {
				t.Errorf("ReadFile %s: %d bytes, %v; want %d", p, len(got), err, len(w))
			}
		}
		checkOK(t, f)
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.SlotChunks != slots || st.Chunks != chunks {
			t.Errorf("SlotChunks %d, Chunks %d; want %d, %d", st.SlotChunks, st.Chunks, slots, chunks)
		}
	}
	// big: chunks 0..2 full and a tail; sparse: one full chunk.
	check(f, 0, 5)
	wantUpgraded(t, path)
	// The same content again: deduplicated against chunk_data's chunks.
	want["/d/big3"] = big
	if err := f.WriteFile(ctx, "/d/big3", big, 0o644); err != nil {
		t.Fatal(err)
	}
	check(f, 0, 5)
	// New content: three full chunks in the chunk file, the tail in SQLite.
	fresh := vfstest.Noise(7, 200000)
	want["/d/new"] = fresh
	if err := f.WriteFile(ctx, "/d/new", fresh, 0o644); err != nil {
		t.Fatal(err)
	}
	check(f, 3, 9)
	// A write into an old chunk of /d/big: merged with its bytes from
	// chunk_data into a new chunk in the chunk file.
	h, err := f.OpenFile(ctx, "/d/big", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.WriteAt([]byte("XYZ"), 70000); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	want["/d/big"] = append([]byte(nil), big...)
	copy(want["/d/big"][70000:], "XYZ")
	check(f, 4, 10)
	f = reopenReadOnly(t, f, path)
	check(f, 4, 10)
	f.Close()
}

// TestChunkFileReuse: the slots of deleted content are reused (the chunk
// file does not grow past what is live at once plus what waits for its
// free), their disk space is given back when freed (holes), a read through
// an open handle keeps seeing its snapshot's bytes while they are freed and
// rewritten, and a reopen rebuilds the free list from the rows.
func TestChunkFileReuse(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ws.db")
	opts := vfs.Options{ChunkSize: 16 << 10, CheckpointBytes: 1 << 20}
	f, err := vfs.Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { f.Close() }()
	const size = 1 << 20 // 64 slots
	for round := range 8 {
		data := vfstest.Noise(round, size)
		if err := f.WriteFile(ctx, "/f", data, 0o644); err != nil {
			t.Fatal(err)
		}
		f.Settle()
		got, err := f.ReadFile(ctx, "/f")
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round %d: read back %d bytes, %v", round, len(got), err)
		}
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.SlotChunks != 64 || st.ChunkFileBytes < 64*16<<10 || st.ChunkFileBytes > 64*16<<10+64<<10 {
			t.Fatalf("round %d: %d slots, chunk file %d bytes on disk; want 64 slots, 1 MiB", round, st.SlotChunks, st.ChunkFileBytes)
		}
		if fi, err := os.Stat(path + vfs.ChunkFileSuffix); err != nil || fi.Size() > 2*size {
			t.Fatalf("round %d: chunk file %v, %v: over twice the live content", round, fi.Size(), err)
		}
	}
	checkOK(t, f)
	// A reader holding a handle while the content is replaced.
	old := vfstest.Noise(100, size)
	if err := f.WriteFile(ctx, "/g", old, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := f.Open(ctx, "/g")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, size)
	if _, err := r.ReadAt(buf[:size/2], 0); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/g", vfstest.Noise(101, size), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/h", vfstest.Noise(102, size), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Close()
	f.Settle()
	checkOK(t, f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopened: every slot is named or free, and new content reuses the free ones.
	fi0, _ := os.Stat(path + vfs.ChunkFileSuffix)
	f, err = vfs.Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkOK(t, f)
	if err := f.Remove(ctx, "/h"); err != nil {
		t.Fatal(err)
	}
	f.Settle()
	if err := f.WriteFile(ctx, "/i", vfstest.Noise(103, size), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + vfs.ChunkFileSuffix); err != nil || fi.Size() > fi0.Size() {
		t.Fatalf("chunk file grew from %d to %d bytes though 1 MiB of slots was free", fi0.Size(), fi.Size())
	}
	checkOK(t, f)
}

// TestStagedWriteSyncsOnce: a streamed write of many DirtyBytes batches
// fdatasyncs the chunk file once, at the commit that names its chunks (the
// staging commits before it only start the writeback), and a commit that
// names a chunk a staging commit wrote, by deduplication, syncs it first
// although it writes no slot itself. The second half fails if only a
// commit that wrote slots synced: a power loss could then leave a named
// file whose chunk bytes never reached the disk.
func TestStagedWriteSyncsOnce(t *testing.T) {
	ctx := context.Background()
	const dirty = 256 << 10
	f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{DirtyBytes: dirty})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data := make([]byte, 8*dirty+1000)
	for i := range data {
		data[i] = byte(i*7 + i>>16)
	}
	n0, _ := f.ChunkFileSyncs()
	if _, err := f.WriteFileFrom(ctx, "/big", bytes.NewReader(data), 0o644); err != nil {
		t.Fatal(err)
	}
	n1, unsynced := f.ChunkFileSyncs()
	if n1-n0 != 1 || unsynced {
		t.Errorf("a write of 8 batches: %d fdatasyncs (unsynced after: %v), want 1 (false)", n1-n0, unsynced)
	}
	if got, err := f.ReadFile(ctx, "/big"); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadFile: %d bytes, %v", len(got), err)
	}

	// A second streamed write held after its first batches are staged: a
	// file written meanwhile with the content of a staged chunk shares it
	// and must sync it before its commit.
	data2 := bytes.Clone(data)
	for i := range data2 {
		data2[i] ^= 0x5a
	}
	gate := &gatedReader{data: data2, at: 3 * dirty, reached: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := f.WriteFileFrom(ctx, "/big2", gate, 0o644)
		done <- err
	}()
	select {
	case <-gate.reached: // batch 3 was taken by the committer: batch 1 is committed
	case err := <-done:
		t.Fatalf("WriteFileFrom returned before the gate: %v", err)
	}
	n2, unsynced := f.ChunkFileSyncs()
	if !unsynced || n2 != n1 {
		t.Errorf("with batches staged: %d fdatasyncs more, unsynced %v; want 0, true", n2-n1, unsynced)
	}
	if err := f.WriteFile(ctx, "/dup", data2[:64<<10], 0o644); err != nil {
		t.Fatal(err)
	}
	n3, unsynced := f.ChunkFileSyncs()
	if n3-n2 != 1 || unsynced {
		t.Errorf("a file sharing a staged chunk: %d fdatasyncs (unsynced after: %v), want 1 (false)", n3-n2, unsynced)
	}
	close(gate.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for p, w := range map[string][]byte{"/big": data, "/big2": data2, "/dup": data2[:64<<10]} {
		if got, err := f.ReadFile(ctx, p); err != nil || !bytes.Equal(got, w) {
			t.Errorf("ReadFile %s: %d bytes, %v; want %d", p, len(got), err, len(w))
		}
	}
	st, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(2 * 8 * dirty / (64 << 10)); st.SlotChunks != want {
		t.Errorf("SlotChunks %d, want %d (the shared chunk stored once)", st.SlotChunks, want)
	}
	checkOK(t, f)
}

// gatedReader reads data, stopping at offset at until release is closed
// (reached is closed when it gets there).
type gatedReader struct {
	data             []byte
	off, at          int
	reached, release chan struct{}
}

func (r *gatedReader) Read(p []byte) (int, error) {
	if r.off == r.at {
		close(r.reached)
		<-r.release
		r.at = -1
	}
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	end := len(r.data)
	if r.at > r.off {
		end = r.at
	}
	n := copy(p, r.data[r.off:end])
	r.off += n
	return n, nil
}
