package fusefs_test

import (
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestQuotaThroughMount: past the store's byte quota, write(2) through the
// mount fails with EDQUOT at the write that crosses it (not only at
// close), and the real GNU cat and bash report "Disk quota exceeded" and
// exit 1; the inode quota gives EDQUOT to creat(2); the store passes its
// check (newEnv's cleanup).
func TestQuotaThroughMount(t *testing.T) {
	const quota = 1 << 20
	e := newEnv(t, vfs.Options{QuotaBytes: quota, MaxInodes: 50}, fusefs.Options{})
	buf := make([]byte, 4<<20)
	rand.Read(buf)

	f, err := os.Create(filepath.Join(e.mnt, "direct"))
	must(t, "create", err)
	var n int64
	var werr error
	for off := 0; off < len(buf); off += 64 << 10 {
		k, err := f.Write(buf[off : off+64<<10])
		n += int64(k)
		if err != nil {
			werr = err
			break
		}
	}
	cerr := f.Close()
	if !errors.Is(werr, syscall.EDQUOT) {
		t.Fatalf("write(2) of 4 MiB under a 1 MiB quota: after %d bytes, %v (close %v); want EDQUOT at a write", n, werr, cerr)
	}
	if n > quota {
		t.Errorf("%d bytes accepted before EDQUOT", n)
	}
	must(t, "rm", os.Remove(filepath.Join(e.mnt, "direct")))

	// Real programs: GNU cat's write error and bash's for a builtin.
	src := filepath.Join(t.TempDir(), "src")
	must(t, "write src", os.WriteFile(src, buf[:2<<20], 0o644))
	for _, tc := range []struct{ script, want string }{
		{"cat " + src + " > " + filepath.Join(e.mnt, "cat.out"), "cat: write error: Disk quota exceeded"},
		{`x=$(base64 -w0 ` + src + `); echo "$x" > ` + filepath.Join(e.mnt, "echo.out"), "echo: write error: Disk quota exceeded"},
	} {
		out, err := exec.Command("bash", "-c", tc.script).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: %v, %q; want exit 1 and %q", tc.script, err, out, tc.want)
		}
	}
	for _, n := range []string{"cat.out", "echo.out"} {
		os.Remove(filepath.Join(e.mnt, n))
	}

	// Inodes: creat(2) past MaxInodes.
	var cerr2 error
	for i := range 100 {
		g, err := os.Create(filepath.Join(e.mnt, "n"+strings.Repeat("x", i%3)+string(rune('a'+i%26))+string(rune('a'+i/26))))
		if err != nil {
			cerr2 = err
			break
		}
		g.Close()
	}
	if !errors.Is(cerr2, syscall.EDQUOT) {
		t.Fatalf("creates past 50 inodes: %v, want EDQUOT", cerr2)
	}
}
