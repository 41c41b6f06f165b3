package host_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
	"github.com/desk-dev/desk/internal/workspace"
)

func noise(seed, n int) []byte { return vfstest.Noise(seed, n) }

// fillAll writes 256 KiB files to each workspace in turn until every one is
// refused, and returns the refusals and the bytes written.
func fillAll(t *testing.T, h *host.Host, names []string) ([]error, int) {
	t.Helper()
	errs := make([]error, len(names))
	written := 0
	for i, left := 0, len(names); left > 0 && i < 400; i++ {
		k := i % len(names)
		if errs[k] != nil {
			continue
		}
		err := h.Do(ctx, names[k], func(ws *workspace.Workspace) error {
			return ws.FS().WriteFile(ctx, fmt.Sprintf("/f%03d", i), noise(i, 256<<10), 0o644)
		})
		if err != nil {
			errs[k] = err
			left--
			continue
		}
		written += 256 << 10
	}
	return errs, written
}

func wantENOSPC(t *testing.T, err error, says string) {
	t.Helper()
	if vfs.Errno(err) != syscall.ENOSPC || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), says) {
		t.Fatalf("got %v, want ENOSPC saying %q", err, says)
	}
}

func statfs(t *testing.T, h *host.Host, name string) vfs.StatFS {
	t.Helper()
	var st vfs.StatFS
	if err := h.Do(ctx, name, func(ws *workspace.Workspace) (err error) {
		st, err = ws.FS().Statfs(ctx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return st
}

func checkAll(t *testing.T, h *host.Host, names []string) {
	t.Helper()
	for _, n := range names {
		if err := h.Do(ctx, n, func(ws *workspace.Workspace) error {
			r, err := ws.FS().Check(ctx)
			if err == nil && !r.OK() {
				err = fmt.Errorf("%v", r.Problems)
			}
			return err
		}); err != nil {
			t.Fatalf("check %s: %v", n, err)
		}
	}
}

// TestHost_DataBound: MaxDataBytes holds across three workspaces, each
// refused with ENOSPC that names the bound; every workspace's statfs shows
// it; deleting a workspace gives its space back to the others.
func TestHost_DataBound(t *testing.T) {
	const bound = 8 << 20
	dir := t.TempDir()
	var log vfstest.Log
	h, err := host.Open(ctx, host.Options{
		DataDir: dir, MaxDataBytes: bound, ReserveBytes: -1,
		Workspace: workspace.Options{VFS: vfs.Options{CheckpointBytes: 1 << 20}},
		Logger:    log.Logger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	names := []string{"a", "b", "c"}
	for _, n := range names {
		if _, err := h.Create(ctx, n, host.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	errs, written := fillAll(t, h, names)
	for _, err := range errs {
		wantENOSPC(t, err, "the data directory's bound of 8388608 bytes is reached")
	}
	if written < bound/2 {
		t.Fatalf("%d bytes written under a bound of %d", written, bound)
	}
	for _, n := range names {
		if c := strings.Count(log.String(), "workspace="+n); c != 1 {
			t.Fatalf("workspace %s logged %d lines, want one:\n%s", n, c, log.String())
		}
	}
	hs := h.Stats()
	real, err := dirBytes(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The measure matches the files within a checkpoint in flight per store,
	// and the files stay within the same of the bound.
	if hs.MaxDataBytes != bound || hs.DataBytes-real > 3<<20 || real-hs.DataBytes > 3<<20 || real > bound+3<<20 {
		t.Fatalf("host stats %+v; the data directory takes %d bytes", hs, real)
	}
	st := statfs(t, h, "c")
	if st.LimitedBy != vfs.LimitDataDir || st.DataDirLimit != bound || st.FreeBytes > 1<<20 {
		t.Fatalf("statfs at the bound: %+v", st)
	}
	checkAll(t, h, names)

	// Deleting a workspace gives its space to the others.
	before := h.Stats().DataBytes
	if err := h.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if after := h.Stats().DataBytes; after > before-int64(written)/6 {
		t.Fatalf("deleting a workspace took %d -> %d bytes off the bound", before, after)
	}
	if st := statfs(t, h, "c"); st.FreeBytes < 1<<20 {
		t.Fatalf("statfs after deleting a workspace: %+v", st)
	}
	if err := h.Do(ctx, "c", func(ws *workspace.Workspace) error {
		return ws.FS().WriteFile(ctx, "/after", noise(9999, 256<<10), 0o644)
	}); err != nil {
		t.Fatalf("write after deleting a workspace: %v", err)
	}
	checkAll(t, h, names[1:])
}

// TestHost_FullDisk: workspaces share a real 16 MiB filesystem; when it is
// full each is refused with ENOSPC, deletes work in each, the reserve file is
// in the data directory, and deleting a workspace gives room to the others.
func TestHost_FullDisk(t *testing.T) {
	dir := vfstest.SmallDisk(t, 16<<20)
	h, err := host.Open(ctx, host.Options{
		DataDir: dir, ReserveBytes: 1 << 20,
		Workspace: workspace.Options{VFS: vfs.Options{CheckpointBytes: 1 << 20}},
		Logger:    (&vfstest.Log{}).Logger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if hs := h.Stats(); hs.ReserveBytes != 1<<20 || !hs.ReserveHeld || vfs.StoreBytes(filepath.Join(dir, vfs.ReserveFile)) < 1<<20 {
		t.Fatalf("reserve: %+v", hs)
	}
	names := []string{"a", "b"}
	for _, n := range names {
		if _, err := h.Create(ctx, n, host.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	errs, written := fillAll(t, h, names)
	for _, err := range errs {
		wantENOSPC(t, err, "the disk holding the store is full")
	}
	if written < 8<<20 {
		t.Fatalf("only %d bytes written on a 16 MiB disk", written)
	}
	free, _ := vfstest.DiskFree(t, dir)
	if st := statfs(t, h, "b"); st.LimitedBy != vfs.LimitDisk || st.DiskFreeBytes-free > 1<<20 || free-st.DiskFreeBytes > 1<<20 {
		t.Fatalf("statfs of a full disk: %+v; statfs(2) says %d free", st, free)
	}
	for _, n := range names {
		if err := h.Do(ctx, n, func(ws *workspace.Workspace) error {
			ents, err := ws.FS().ReadDir(ctx, "/")
			if err != nil || len(ents) == 0 {
				return fmt.Errorf("list: %d entries, %v", len(ents), err)
			}
			return ws.FS().Remove(ctx, "/"+ents[0].Name)
		}); err != nil {
			t.Fatalf("delete in %s on a full disk: %v", n, err)
		}
	}
	checkAll(t, h, names)
	if err := h.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := h.Do(ctx, "b", func(ws *workspace.Workspace) error {
		return ws.FS().WriteFile(ctx, "/after", noise(9999, 1<<20), 0o644)
	}); err != nil {
		t.Fatalf("write after deleting a workspace: %v", err)
	}
	checkAll(t, h, names[1:])
}

// dirBytes sums st_blocks of the files below dir but the reserve.
func dirBytes(dir string) (int64, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "workspaces", "*"))
	if err != nil {
		return 0, err
	}
	var n int64
	for _, m := range matches {
		if strings.HasSuffix(m, ".db") {
			n += vfs.StoreBytes(m)
		}
	}
	return n + vfs.StoreBytes(filepath.Join(dir, host.LockFile)), nil
}
