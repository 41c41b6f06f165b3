package fusefs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
)

// TestFullDisk fills a real 8 MiB filesystem holding the store through the
// mount: a write fails with ENOSPC (at write or close), statfs(2) on the
// mount reports the store's free space, which follows the disk's, rm works
// and frees space, writes work again, and the store is intact.
func TestFullDisk(t *testing.T) {
	testenv.NeedFUSE(t)
	dir := vfstest.SmallDisk(t, 8<<20)
	ctx := context.Background()
	sp, err := vfs.OpenSpace(ctx, vfs.SpaceOptions{Dir: dir, Reserve: 1 << 20, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	store, err := vfs.Open(ctx, filepath.Join(dir, "ws.db"), vfs.Options{Space: sp, CheckpointBytes: 1 << 20, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	mnt := t.TempDir() // not on the small disk: it is only a mount point
	srv, err := fusefs.Mount(ctx, store, mnt, fusefs.Options{})
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Unmount(); err != nil {
			t.Errorf("unmount: %v", err)
		}
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	}()
	data := func(i int) []byte { return vfstest.Noise(i, 256<<10) }
	var werr error
	n := 0
	for ; n < 100; n++ {
		if werr = os.WriteFile(filepath.Join(mnt, fmt.Sprintf("f%02d", n)), data(n), 0o644); werr != nil {
			break
		}
	}
	if !errors.Is(werr, syscall.ENOSPC) {
		t.Fatalf("writing through the mount on a full disk: %v, want ENOSPC", werr)
	}
	if n < 12 {
		t.Fatalf("only %d files of 256 KiB on an 8 MiB disk", n)
	}
	os.Remove(filepath.Join(mnt, fmt.Sprintf("f%02d", n))) // the file the failed write created

	statfs := func() (syscall.Statfs_t, vfs.StatFS) {
		var m syscall.Statfs_t
		if err := syscall.Statfs(mnt, &m); err != nil {
			t.Fatal(err)
		}
		st, err := store.Statfs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return m, st
	}
	m, st := statfs()
	free, _ := vfstest.DiskFree(t, dir)
	// The mount reports the store's figures in 4 KiB blocks (within the 16
	// blocks a page or two in flight between the calls take); the store's
	// free space is the disk's (its reserve held), within a checkpoint in
	// flight, plus its free pages.
	near := func(blocks uint64, bytes int64) bool { d := int64(blocks) - bytes/4096; return d >= -16 && d <= 16 }
	if m.Bsize != 4096 || !near(m.Bavail, st.FreeBytes) || !near(m.Blocks, st.UsedBytes+st.FreeBytes) ||
		m.Files != uint64(st.Files) || st.LimitedBy != vfs.LimitDisk || st.DiskFreeBytes-free > 1<<20 || free-st.DiskFreeBytes > 1<<20 ||
		st.FreeBytes > 1<<20 {
		t.Fatalf("statfs of the mount %+v, of the store %+v; the disk has %d free", m, st, free)
	}
	for i := 0; i < 4; i++ {
		if err := os.Remove(filepath.Join(mnt, fmt.Sprintf("f%02d", i))); err != nil {
			t.Fatalf("rm on a full disk: %v", err)
		}
	}
	// Their pages come free asynchronously: the store drops an unlinked
	// inode once nothing references it (the kernel's FORGET is the likely
	// last reference; Commit alone was not enough in 1 of 8 runs) and
	// commits the drop. Nothing signals that to the test, so poll, calling
	// Commit, with a hang guard. The WAL holds the pages until a checkpoint.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := store.Commit(ctx); err != nil {
			t.Fatalf("commit the deletes: %v", err)
		}
		m2, _ := statfs()
		if m2.Bavail >= m.Bavail+(256<<10)/4096 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("removing 1 MiB: %d -> %d blocks free, 30 s later (hang guard)", m.Bavail, m2.Bavail)
		}
		time.Sleep(time.Millisecond) // polling: FORGET has no event
	}
	if err := os.WriteFile(filepath.Join(mnt, "again"), data(1000), 0o644); err != nil {
		t.Fatalf("write after rm: %v", err)
	}
	for i := 4; i < n; i++ {
		if b, err := os.ReadFile(filepath.Join(mnt, fmt.Sprintf("f%02d", i))); err != nil || !bytes.Equal(b, data(i)) {
			t.Fatalf("f%02d: %d bytes, %v", i, len(b), err)
		}
	}
	if rep, err := store.Check(ctx); err != nil || !rep.OK() {
		t.Fatalf("check: %v %v", rep, err)
	}
}
