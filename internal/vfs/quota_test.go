package vfs_test

import (
	"context"
	"errors"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// TestQuotaFailsAtWrite: a handle's write that would take the workspace past
// its quota fails at that write with EDQUOT (reading as ENOSPC too), not
// only at Close, which programs such as a shell's redirection ignore; what
// was written before it stays, within the quota, and the store passes its
// check (openStore's cleanup).
func TestQuotaFailsAtWrite(t *testing.T) {
	ctx := context.Background()
	const quota = 1 << 20
	f := openStore(t, vfs.Options{QuotaBytes: quota})
	h, err := f.Create(ctx, "/f")
	if err != nil {
		t.Fatal(err)
	}
	buf := randBytes(4 << 20) // incompressible, unique
	var n int64
	var werr error
	for off := 0; off < len(buf); off += 32 << 10 {
		k, err := h.Write(buf[off : off+32<<10])
		if err != nil {
			werr = err
			break
		}
		n += int64(k)
	}
	if vfs.Errno(werr) != syscall.EDQUOT || !errors.Is(werr, syscall.ENOSPC) {
		t.Fatalf("writes of 4 MiB under a 1 MiB quota: after %d bytes, err %v; want EDQUOT at a write", n, werr)
	}
	if n > quota {
		t.Errorf("%d bytes written before the refusal, more than the quota", n)
	}
	if err := h.Close(); vfs.Errno(err) != syscall.EDQUOT {
		t.Errorf("close after the refused write: %v, want EDQUOT (its bytes are still unwritten)", err)
	}
	st, err := f.Stat(ctx, "/f")
	if err != nil || st.Size() > quota {
		t.Fatalf("stat after: %+v %v", st, err)
	}
}

// TestSetLimits: SetLimits changes an open store's byte quota and inode
// bound: a write past a lowered quota fails with EDQUOT and leaves
// nothing, Statfs and Options show the values in force, a raised quota
// lets the same write through, a lowered inode bound refuses the next
// create, and a negative value is EINVAL.
func TestSetLimits(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{QuotaBytes: 64 << 20, MaxInodes: 1000})
	data := randBytes(2 << 20)
	if err := f.WriteFile(ctx, "/a", data[:1<<20], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.SetLimits(1536<<10, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/b", data[1<<20:], 0o644); vfs.Errno(err) != syscall.EDQUOT {
		t.Fatalf("1 MiB more under a lowered 1.5 MiB quota: %v, want EDQUOT", err)
	}
	if _, err := f.Stat(ctx, "/b"); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("the refused write left /b: %v", err)
	}
	st, err := f.Statfs(ctx)
	if err != nil || st.QuotaBytes != 1536<<10 || f.Options().QuotaBytes != 1536<<10 || f.Options().MaxInodes != 1000 {
		t.Fatalf("statfs after SetLimits: %+v %v; options %+v", st, err, f.Options())
	}
	if err := f.SetLimits(8<<20, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/b", data[1<<20:], 0o644); err != nil {
		t.Fatalf("the same write under a raised quota: %v", err)
	}
	// Inodes: the root and two files are in use.
	if err := f.SetLimits(0, 3); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/c", []byte("x"), 0o644); vfs.Errno(err) != syscall.EDQUOT {
		t.Fatalf("a create at the lowered inode bound: %v, want EDQUOT", err)
	}
	if err := f.Remove(ctx, "/a"); err != nil {
		t.Fatalf("a delete past the bounds: %v", err)
	}
	if err := f.WriteFile(ctx, "/c", []byte("x"), 0o644); err != nil {
		t.Fatalf("a create once an inode is free: %v", err)
	}
	if err := f.SetLimits(-1, 0); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("a negative quota: %v, want EINVAL", err)
	}
}
