package cmds

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

func TestDf(t *testing.T) {
	// A quota smaller than the disk's free space: the size is the quota
	// (vfs.StatFS; TestDfDisk has the disk as the limit).
	f, err := vfs.Open(t.Context(), filepath.Join(t.TempDir(), "ws.db"), vfs.Options{QuotaBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := f.MkdirAll(t.Context(), "/work", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(t.Context(), "/work/a", []byte(strings.Repeat("x", 3<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, st := runIn(t, f, "/work", "", "df")
	lines := strings.Split(out, "\n")
	if st != 0 || errs != "" || len(lines) != 3 ||
		lines[0] != "Filesystem     1K-blocks  Used Available Use% Mounted on" ||
		!strings.HasPrefix(lines[1], "workspace          65536 ") || !strings.HasSuffix(lines[1], "   1% /") {
		t.Errorf("df: got %q %q %d", out, errs, st)
	}
	out, _, _ = runIn(t, f, "/work", "", "df", "-hT", ".")
	// Used is the store's unique content (the repeated bytes deduplicate).
	if want := "Filesystem     Type  Size  Used Avail Use% Mounted on\nworkspace      desk   64M "; !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "   64M   1% /\n") {
		t.Errorf("df -hT: got %q want %q", out, want)
	}
	out, _, _ = runIn(t, f, "/work", "", "df", "-P")
	if !strings.HasPrefix(out, "Filesystem     1024-blocks  Used Available Capacity Mounted on\n") {
		t.Errorf("df -P: got %q", out)
	}
	out, _, _ = runIn(t, f, "/work", "", "df", "-i")
	if !strings.HasPrefix(out, "Filesystem       Inodes IUsed   IFree IUse% Mounted on\nworkspace      10000000     3 9999997    1% /\n") {
		t.Errorf("df -i: got %q", out)
	}
	out, errs, st = runIn(t, f, "/work", "", "df", "nope")
	if out != "" || errs != "df: nope: No such file or directory\n" || st != 1 {
		t.Errorf("df nope: got %q %q %d", out, errs, st)
	}
}

// TestDfDisk: with the default quota (100 GiB) the disk's free space is the
// limit here, and df reports it: Size is Used + Avail, Avail the store's
// free space.
func TestDfDisk(t *testing.T) {
	f := newStore(t, map[string]string{"a": "x"})
	sfs, err := f.Statfs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out, _, _ := runIn(t, f, "/work", "", "df")
	fields := strings.Fields(strings.Split(out, "\n")[1])
	size, _ := strconv.ParseInt(fields[1], 10, 64)
	used, _ := strconv.ParseInt(fields[2], 10, 64)
	avail, _ := strconv.ParseInt(fields[3], 10, 64)
	// Other tests write to the same disk meanwhile: within 256 MiB.
	if sfs.LimitedBy == vfs.LimitDisk && (size != used+avail || avail*1024-sfs.FreeBytes > 256<<20 || sfs.FreeBytes-avail*1024 > 256<<20) {
		t.Errorf("df %q; statfs %+v", out, sfs)
	}
}
