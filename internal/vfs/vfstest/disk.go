package vfstest

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/testenv"
)

// SmallDisk mounts a tmpfs of size bytes on a fresh temporary directory and
// returns the directory; the mount goes when the test ends. It needs root:
// without it the test is skipped, or fails when DESK_REQUIRE_SANDBOX is "1"
// (as CI sets it), so the full-disk tests cannot skip in CI.
func SmallDisk(t testing.TB, size int64) string {
	t.Helper()
	dir := t.TempDir()
	var err error
	if os.Geteuid() != 0 {
		err = errors.New("mounting a tmpfs needs root")
	} else if out, merr := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0700", size), "tmpfs", dir).CombinedOutput(); merr != nil {
		err = fmt.Errorf("mount tmpfs: %v: %s", merr, out)
	}
	testenv.Need(t, testenv.Sandbox, err)
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes the file name until its filesystem is full (ENOSPC), as
// another program filling the disk would, and returns the bytes written.
func Fill(t testing.TB, name string) int64 {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatalf("fill: %v", err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = byte(i*7 + 1)
	}
	var n int64
	for len(buf) > 0 {
		k, err := f.Write(buf)
		n += int64(k)
		switch {
		case errors.Is(err, syscall.ENOSPC):
			buf = buf[:len(buf)/2] // the last pages, to the last block
		case err != nil:
			t.Fatalf("fill %s: %v", filepath.Base(name), err)
		}
	}
	return n
}

// DiskFree is the free space of the filesystem holding path (statfs
// f_bavail), and its size.
func DiskFree(t testing.TB, path string) (free, size int64) {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		t.Fatalf("statfs %s: %v", path, err)
	}
	return int64(st.Bavail) * st.Bsize, int64(st.Blocks) * st.Bsize
}

// Noise is n bytes of pseudo-random content that deduplicates with no other
// seed (and, chunk by chunk, not with itself), for filling a store.
func Noise(seed, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// Log is a log destination for assertions on what was logged; safe for
// concurrent use.
type Log struct {
	testenv.SyncBuffer // String is everything logged so far
}

// Count is how many times s was logged.
func (l *Log) Count(s string) int { return strings.Count(l.String(), s) }

// Logger logs to l as text.
func (l *Log) Logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }
