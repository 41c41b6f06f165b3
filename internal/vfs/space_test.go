package vfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
)

func content(i, n int) []byte { return vfstest.Noise(i, n) }

// wantNoSpace fails unless err is a *fs.PathError reading as ENOSPC whose
// message names the bound.
func wantNoSpace(t *testing.T, err error, reason string) {
	t.Helper()
	var pe *fs.PathError
	if !errors.As(err, &pe) || vfs.Errno(err) != syscall.ENOSPC || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v (%T), want a *fs.PathError with ENOSPC", err, err)
	}
	if !strings.Contains(err.Error(), "no space left on device ("+reason) {
		t.Fatalf("error %q does not say %q", err, reason)
	}
}

func openSpace(t *testing.T, dir string, opts vfs.SpaceOptions, log *vfstest.Log) *vfs.Space {
	t.Helper()
	opts.Dir = dir
	opts.Logger = log.Logger()
	s, err := vfs.OpenSpace(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkStore(t *testing.T, f *vfs.FS, files map[string][]byte) {
	t.Helper()
	ctx := t.Context()
	if r, err := f.Check(ctx); err != nil || !r.OK() {
		t.Fatalf("check: %v %v", r, err)
	}
	for name, want := range files {
		got, err := f.ReadFile(ctx, name)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes, %v; want its %d bytes", name, len(got), err, len(want))
		}
	}
}

// TestFullDisk fills a real 8 MiB filesystem through the store: writes fail
// with ENOSPC saying why, the store logs it once, deletes work and free
// space, writes then work again, and nothing is lost.
func TestFullDisk(t *testing.T) {
	dir := vfstest.SmallDisk(t, 8<<20)
	ctx := t.Context()
	var log vfstest.Log
	sp := openSpace(t, dir, vfs.SpaceOptions{Reserve: 1 << 20}, &log)
	if !sp.Held() {
		t.Fatal("the reserve is not held on an empty disk")
	}
	if fi, err := os.Stat(filepath.Join(dir, vfs.ReserveFile)); err != nil || fi.Size() != 1<<20 {
		t.Fatalf("reserve file: %v %v", fi, err)
	}
	f, err := vfs.Open(ctx, filepath.Join(dir, "ws.db"), vfs.Options{Space: sp, Logger: log.Logger(), CheckpointBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := map[string][]byte{}
	const size = 256 << 10
	var werr error
	for i := 0; i < 100; i++ {
		name, data := fmt.Sprintf("/f%02d", i), content(i, size)
		if werr = f.WriteFile(ctx, name, data, 0o644); werr != nil {
			break
		}
		files[name] = data
	}
	wantNoSpace(t, werr, "the disk holding the store is full")
	// 8 MiB less the reserve, the WAL and the database's pages: at least
	// a quarter of it holds content (how much depends on how far the
	// checkpointer is behind: until it has run, the WAL's pages count twice).
	if n := len(files) * size; n < 2<<20 {
		t.Fatalf("only %d bytes written before ENOSPC", n)
	}
	// Further writes fail too, unless a checkpoint meanwhile cut the WAL;
	// the store logs running out of space once per time it ran out.
	failed := 0
	for i := 0; i < 3; i++ {
		name, data := fmt.Sprintf("/more%d", i), content(1000+i, size)
		if err := f.WriteFile(ctx, name, data, 0o644); err == nil {
			files[name] = data
			continue
		} else {
			wantNoSpace(t, err, "the disk")
			failed++
		}
	}
	out, back := log.Count("workspace out of space"), log.Count("workspace has space again")
	if failed == 3 && (out != 1 || back != 0) || out < 1 || out != back && out != back+1 {
		t.Fatalf("%d of 3 more writes failed; logged %d times that the workspace is out of space and %d that it has space again:\n%s", failed, out, back, log.String())
	}

	st, err := f.Statfs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	free, total := vfstest.DiskFree(t, dir)
	if st.DiskBytes != total || st.LimitedBy != vfs.LimitDisk || !st.ReserveHeld || st.ReserveBytes != 1<<20 {
		t.Fatalf("statfs %+v; the disk is %d bytes", st, total)
	}
	// Within what a checkpoint may have in flight.
	if d := st.DiskFreeBytes - free; d < -1<<20 || d > 1<<20 {
		t.Fatalf("statfs: %d bytes free on disk, statfs(2) says %d", st.DiskFreeBytes, free)
	}
	if st.Blocks*512 != st.UsedBytes+st.FreeBytes-(st.UsedBytes+st.FreeBytes)%512 {
		t.Fatalf("statfs after ENOSPC: %+v", st)
	}
	// Free space statfs reports is real: the background checkpointer may
	// have cut the WAL (and given free pages back) since the last refusal,
	// so room can have come back, but a write that fits twice in what
	// statfs says is free must then be admitted.
	if st.FreeBytes >= 2*size+64<<10 {
		data := content(2000, size)
		if err := f.WriteFile(ctx, "/fits", data, 0o644); err != nil {
			t.Fatalf("statfs says %d bytes are free, yet a write of %d fails: %v\n%+v", st.FreeBytes, size, err, st)
		}
		files["/fits"] = data
	}

	// Deletes work and make room.
	for _, name := range []string{"/f00", "/f01", "/f02", "/f03"} {
		if err := f.Remove(ctx, name); err != nil {
			t.Fatalf("remove %s on a full disk: %v", name, err)
		}
		delete(files, name)
	}
	st2, err := f.Statfs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The freed pages are free; the WAL took some for the deletes.
	if st2.FreeBytes < st.FreeBytes+2*size || st2.UsedBytes != st.UsedBytes-4*size {
		t.Fatalf("statfs after deleting 1 MiB: free %d -> %d, used %d -> %d", st.FreeBytes, st2.FreeBytes, st.UsedBytes, st2.UsedBytes)
	}
	// Writes work again, in the freed space.
	data := content(2000, size)
	if err := f.WriteFile(ctx, "/again", data, 0o644); err != nil {
		t.Fatalf("write after deletes: %v", err)
	}
	files["/again"] = data
	if out, back := log.Count("workspace out of space"), log.Count("workspace has space again"); back != out {
		t.Fatalf("logged %d times that the workspace is out of space and %d that it has space again, want as many:\n%s", out, back, log.String())
	}
	// A truncate works when full too.
	for i := 0; ; i++ {
		if err := f.WriteFile(ctx, fmt.Sprintf("/g%d", i), content(3000+i, size), 0o644); err != nil {
			wantNoSpace(t, err, "the disk")
			break
		}
		files[fmt.Sprintf("/g%d", i)] = content(3000+i, size)
	}
	if err := f.Truncate(ctx, "/f04", 1000); err != nil {
		fr, _ := vfstest.DiskFree(t, dir)
		t.Fatalf("truncate on a full disk: %#v %v\nfree %d log:\n%s", errors.Unwrap(err), err, fr, log.String())
	}
	files["/f04"] = files["/f04"][:1000]
	checkStore(t, f, files)
}

// TestFullDiskExternal fills the disk from outside the store: the reserve is
// released so that a delete can run, writes wait for the space to come
// back, and the reserve is taken again then.
func TestFullDiskExternal(t *testing.T) {
	dir := vfstest.SmallDisk(t, 8<<20)
	ctx := t.Context()
	var log vfstest.Log
	sp := openSpace(t, dir, vfs.SpaceOptions{Reserve: 1 << 20}, &log)
	path := filepath.Join(dir, "ws.db")
	opts := vfs.Options{Space: sp, Logger: log.Logger(), CheckpointBytes: 1 << 20}
	f, err := vfs.Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for i := 0; i < 8; i++ {
		name, data := fmt.Sprintf("/f%d", i), content(i, 256<<10)
		if err := f.WriteFile(ctx, name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	// Closed, the store's WAL is empty: the delete below must grow it.
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if f, err = vfs.Open(ctx, path, opts); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	filler := filepath.Join(dir, "filler")
	vfstest.Fill(t, filler)
	if free, _ := vfstest.DiskFree(t, dir); free != 0 {
		t.Fatalf("%d bytes free after filling the disk", free)
	}
	wantNoSpace(t, f.WriteFile(ctx, "/new", content(100, 4096), 0o644), "the disk")
	if err := f.Mkdir(ctx, "/d", 0o755); vfs.Errno(err) != syscall.ENOSPC {
		t.Fatalf("mkdir on a full disk: %v, want ENOSPC", err)
	}

	if err := f.Remove(ctx, "/f0"); err != nil {
		t.Fatalf("remove on a disk another program filled: %v", err)
	}
	delete(files, "/f0")
	if sp.Held() || log.Count("released the reserve") != 1 {
		t.Fatalf("reserve held %v after the disk filled; log:\n%s", sp.Held(), log.String())
	}
	if err := f.Remove(ctx, "/f1"); err != nil {
		t.Fatalf("second remove: %v", err)
	}
	delete(files, "/f1")
	checkStore(t, f, files)

	// The other program frees its space: the reserve comes back, and writes
	// work.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	data := content(200, 1<<20)
	if err := f.WriteFile(ctx, "/new", data, 0o644); err != nil {
		t.Fatalf("write once space is back: %v", err)
	}
	files["/new"] = data
	if !sp.Held() || log.Count("the reserve is held again") != 1 {
		t.Fatalf("reserve held %v after space came back; log:\n%s", sp.Held(), log.String())
	}
	checkStore(t, f, files)
}

// TestSpaceLimit bounds two stores together: the second fails once the
// first has taken the bound, saying so, and Statfs shows it.
func TestSpaceLimit(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	var log vfstest.Log
	sp := openSpace(t, dir, vfs.SpaceOptions{Reserve: -1, Limit: 4 << 20}, &log)
	open := func(name string) *vfs.FS {
		f, err := vfs.Open(ctx, filepath.Join(dir, name), vfs.Options{Space: sp, Logger: log.Logger(), CheckpointBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open("a.db"), open("b.db")
	written, errA, errB := fillTogether(t, a, b)
	wantNoSpace(t, errA, "the data directory's bound of 4194304 bytes is reached")
	wantNoSpace(t, errB, "the data directory's bound of 4194304 bytes is reached")
	if written < 2<<20 {
		t.Fatalf("only %d bytes written under a bound of 4 MiB", written)
	}
	st, err := b.Statfs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.LimitedBy != vfs.LimitDataDir || st.DataDirLimit != 4<<20 || st.FreeBytes >= 512<<10 {
		t.Fatalf("statfs of the second store: %+v", st)
	}
	// The measure matches the files, within what a checkpoint has in flight.
	var real int64
	for _, name := range []string{"a.db", "b.db"} {
		real += vfs.StoreBytes(filepath.Join(dir, name))
	}
	if d := st.DataDirBytes - real; d < -1<<20 || d > 1<<20 {
		t.Fatalf("bound measure %d, the stores take %d", st.DataDirBytes, real)
	}
	if st.DataDirBytes+st.FreeBytes > 4<<20+1<<20 {
		t.Fatalf("used %d + free %d passes the bound", st.DataDirBytes, st.FreeBytes)
	}
	if err := a.Remove(ctx, "/f0"); err != nil {
		t.Fatalf("remove at the bound: %v", err)
	}
	if err := b.Truncate(ctx, "/f1", 10); err != nil {
		t.Fatalf("truncate at the bound: %v", err)
	}
}

// fillTogether writes to a and b in turn until each is refused, and returns
// the bytes written and their errors.
func fillTogether(t *testing.T, a, b *vfs.FS) (written int, errA, errB error) {
	t.Helper()
	for n := 0; n < 100 && (errA == nil || errB == nil); n++ {
		f, e := a, &errA
		if n%2 == 1 {
			f, e = b, &errB
		}
		if *e != nil {
			continue
		}
		if *e = f.WriteFile(t.Context(), fmt.Sprintf("/f%d", n), content(n, 256<<10), 0o644); *e == nil {
			written += 256 << 10
		}
	}
	return written, errA, errB
}

// TestSpaceLimitShared: two Spaces of one directory, as desk serve's front
// and a worker open them in two processes, count against one shared figure
// (SpaceOptions.Shared): the bound holds for the two stores together, and
// what one adds the other sees.
func TestSpaceLimitShared(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	var log vfstest.Log
	const limit = 4 << 20
	first := openSpace(t, dir, vfs.SpaceOptions{Reserve: -1, Limit: limit, Shared: true}, &log)
	second := openSpace(t, dir, vfs.SpaceOptions{Reserve: -1, Limit: limit, Shared: true, Attach: true}, &log)
	open := func(name string, sp *vfs.Space) *vfs.FS {
		f, err := vfs.Open(ctx, filepath.Join(dir, name), vfs.Options{Space: sp, Logger: log.Logger(), CheckpointBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open("a.db", first), open("b.db", second)
	written, errA, errB := fillTogether(t, a, b)
	wantNoSpace(t, errA, "the data directory's bound of 4194304 bytes is reached")
	wantNoSpace(t, errB, "the data directory's bound of 4194304 bytes is reached")
	// Each store's admission counts its content twice (WAL and file), so
	// under one shared bound the two together write at most the bound;
	// counted apart, each would have taken most of it.
	if written > limit {
		t.Fatalf("%d bytes written by the two stores under a shared bound of %d", written, limit)
	}
	if first.Used() != second.Used() || first.Used() == 0 {
		t.Fatalf("the two Spaces count %d and %d", first.Used(), second.Used())
	}
	// A Space opened to measure (a restarted server) rewrites the count.
	again := openSpace(t, dir, vfs.SpaceOptions{Reserve: -1, Limit: limit, Shared: true}, &log)
	var real int64
	for _, name := range []string{"a.db", "b.db"} {
		real += vfs.StoreBytes(filepath.Join(dir, name))
	}
	if d := again.Used() - real; d < 0 || d > 64<<10 || second.Used() != again.Used() {
		t.Fatalf("remeasured %d (attached %d), the stores take %d", again.Used(), second.Used(), real)
	}
}

// TestStatfsWithoutSpace: a store without a Space reports its filesystem.
func TestStatfsWithoutSpace(t *testing.T) {
	dir := t.TempDir()
	f, err := vfs.Open(context.Background(), filepath.Join(dir, "ws.db"), vfs.Options{QuotaBytes: 1 << 40 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Statfs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	free, total := vfstest.DiskFree(t, dir)
	if st.DiskBytes != total || st.LimitedBy != vfs.LimitDisk || st.ReserveBytes != 0 || st.DataDirLimit != 0 {
		t.Fatalf("statfs %+v; disk %d bytes", st, total)
	}
	// Other tests write to the same disk meanwhile: a generous margin.
	if d := st.DiskFreeBytes - free; d < -256<<20 || d > 256<<20 {
		t.Fatalf("statfs: %d free, statfs(2) %d", st.DiskFreeBytes, free)
	}
}
