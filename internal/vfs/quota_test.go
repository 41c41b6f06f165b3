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
