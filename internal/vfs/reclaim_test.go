package vfs_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/sqlite"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
)

// TestSpaceReclaimed writes and deletes 1 GiB of random content in many files
// (16 rounds of 256 files of 256 KiB; one file stays alive each round) and
// checks, after every round once the background work has settled, that the
// database file plus its WAL are under twice the live content plus a fixed
// bound: the WAL bound (four CheckpointBytes, past which the checkpointer
// truncates it), the free space a store keeps (reclaimMin, a quarter of
// CheckpointBytes) and 4 MiB for the schema's tables and indexes.
func TestSpaceReclaimed(t *testing.T) {
	ctx := context.Background()
	const ckpt = 8 << 20
	f := openStore(t, vfs.Options{CheckpointBytes: ckpt})
	const (
		rounds   = 16
		perRound = 256
		size     = 256 << 10
	)
	fixed := int64(4*ckpt + ckpt/4 + 4<<20)
	live := map[string]int64{}
	var written int64
	for r := range rounds {
		dir := fmt.Sprintf("/r%d", r)
		if err := f.Mkdir(ctx, dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range perRound {
			p := fmt.Sprintf("%s/f%d", dir, i)
			if err := f.WriteFile(ctx, p, vfstest.Noise(r*perRound+i, size), 0o644); err != nil {
				t.Fatal(err)
			}
			written += size
		}
		// Keep one file of the round; remove the others and, from time to
		// time, a kept one.
		for i := 1; i < perRound; i++ {
			if err := f.Remove(ctx, fmt.Sprintf("%s/f%d", dir, i)); err != nil {
				t.Fatal(err)
			}
		}
		live[dir+"/f0"] = size
		if r%4 == 3 {
			old := fmt.Sprintf("/r%d/f0", r-2)
			if err := f.Remove(ctx, old); err != nil {
				t.Fatal(err)
			}
			delete(live, old)
		}
		f.Settle()
		var liveBytes int64
		for _, n := range live {
			liveBytes += n
		}
		disk := fileSize(t, f.Path()) + fileSize(t, f.Path()+"-wal") + diskUsage(t, f.Path()+vfs.ChunkFileSuffix)
		if disk > 2*liveBytes+fixed {
			st, _ := f.Stats(ctx)
			t.Fatalf("round %d: %d bytes on disk (file %d, WAL %d, reclaimable %d) for %d live bytes: over 2×live+%d",
				r, disk, st.FileBytes, st.WALBytes, st.ReclaimableBytes, liveBytes, fixed)
		}
		if r == rounds-1 {
			t.Logf("after %d MiB written and deleted: %d live bytes, %d bytes on disk", written>>20, liveBytes, disk)
		}
	}
	if written != 1<<30 {
		t.Fatalf("wrote %d bytes, want 1 GiB", written)
	}
	st, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The content is in the chunk file (full-size chunks), the rest in the
	// database's live pages.
	if st.ReclaimableBytes > ckpt/4 || st.LiveBytes+st.ChunkFileBytes < int64(len(live))*size || st.DBBytes != st.FileBytes+st.WALBytes ||
		st.SlotChunks != int64(len(live))*size/(64<<10) || st.ChunkFileBytes < st.SlotChunks<<16 || st.ChunkFileBytes > st.SlotChunks<<16+1<<20 {
		t.Errorf("stats after settling: %+v", st)
	}
}

// diskUsage is the disk space p takes (st_blocks: holes punched in the
// chunk file do not count).
func diskUsage(t *testing.T, p string) int64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestCompactConverts: a store made before incremental auto-vacuum (the
// version 1 store of testdata) keeps its free pages until Compact converts
// it; after, its free pages go back to the filesystem on their own.
func TestCompactConverts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ws.db")
	writeV1Store(t, path)
	if av := pragma(t, path, "auto_vacuum"); av != 0 {
		t.Fatalf("the testdata store has auto_vacuum %d", av)
	}
	f, err := vfs.Open(ctx, path, vfs.Options{CheckpointBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Files under the chunk size: their content is in the database's pages
	// (a full-size chunk would go to the chunk file).
	for i := range smallN {
		if err := f.WriteFile(ctx, fmt.Sprintf("/big%d", i), vfstest.Noise(i, smallSize), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range smallN {
		if err := f.Remove(ctx, fmt.Sprintf("/big%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	f.Settle()
	st, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.ReclaimableBytes < 3<<20 {
		t.Fatalf("an old store gave back its free pages on its own: %+v", st)
	}
	if err := f.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.ReclaimableBytes != 0 || after.FileBytes > st.FileBytes-3<<20 || after.WALBytes != 0 {
		t.Fatalf("after Compact: %+v (before: %+v)", after, st)
	}
	rep, err := f.Check(ctx)
	if err != nil || !rep.OK() {
		t.Fatalf("Check: %v %v", err, rep)
	}
	// Converted: free pages now go back in the background.
	for i := range smallN {
		if err := f.WriteFile(ctx, fmt.Sprintf("/again%d", i), vfstest.Noise(1000+i, smallSize), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range smallN {
		if err := f.Remove(ctx, fmt.Sprintf("/again%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	f.Settle()
	if st, err := f.Stats(ctx); err != nil || st.ReclaimableBytes > 1<<20/4 {
		t.Fatalf("after Compact, deletes left %+v, %v", st, err)
	}
	if got, err := f.ReadFile(ctx, "/a"); err != nil || string(got) != "hello\n" {
		t.Fatalf("ReadFile /a: %q %v", got, err)
	}
}

// smallN files of smallSize bytes: 4 MB of content in chunks under the
// chunk size of the version 1 store (4 KiB; TestCompactConverts).
const smallN, smallSize = 1024, 4000

func pragma(t *testing.T, path, name string) int64 {
	t.Helper()
	c, err := sqlite.Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var v int64
	if err := c.Query("PRAGMA "+name, nil, func(st *sqlite.Stmt) { v = st.Int64(0) }); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestWALBounded writes 256 MiB of distinct content in 8 MiB files through
// WriteFileFrom with the default options (a transaction per DirtyBytes) and
// checks the WAL at steady state: once the checkpointer has caught up
// (Settle) and the next commit has restarted the WAL, its file is at most
// CheckpointBytes (journal_size_limit) plus the pages of that commit. The
// largest WAL seen after a write returned is logged (it depends on how far
// the checkpointer lagged behind; past four times CheckpointBytes a
// TRUNCATE checkpoint cuts it).
func TestWALBounded(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	ckpt := f.Options().CheckpointBytes
	if ckpt != vfs.DefaultCheckpoint {
		t.Fatalf("CheckpointBytes %d, want the default %d", ckpt, vfs.DefaultCheckpoint)
	}
	data := make([]byte, 8<<20)
	var peak int64
	for i := 0; i < 32; i++ {
		rand.NewChaCha8([32]byte{byte(i), 1}).Read(data)
		if _, err := f.WriteFileFrom(ctx, fmt.Sprintf("/f%02d", i%8), bytes.NewReader(data), 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		peak = max(peak, st.WALBytes)
	}
	f.Settle()
	if err := f.WriteFile(ctx, "/small", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("WAL: largest after a write %.1f MiB, at steady state %.1f MiB (CheckpointBytes %d MiB); file %.1f MiB for %.1f MiB live",
		float64(peak)/(1<<20), float64(st.WALBytes)/(1<<20), ckpt>>20, float64(st.FileBytes)/(1<<20), float64(st.LiveBytes)/(1<<20))
	if st.WALBytes > ckpt+1<<20 {
		t.Fatalf("WAL at steady state %d bytes, want at most CheckpointBytes %d plus 1 MiB", st.WALBytes, ckpt)
	}
}
