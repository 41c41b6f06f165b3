package cmds

import (
	"strings"
	"testing"
)

func TestDf(t *testing.T) {
	f := newStore(t, map[string]string{"a": strings.Repeat("x", 3<<20)})
	out, errs, st := runIn(t, f, "/work", "", "df")
	lines := strings.Split(out, "\n")
	if st != 0 || errs != "" || len(lines) != 3 ||
		lines[0] != "Filesystem     1K-blocks  Used Available Use% Mounted on" ||
		!strings.HasPrefix(lines[1], "workspace      104857600 ") || !strings.HasSuffix(lines[1], "   1% /") {
		t.Errorf("df: got %q %q %d", out, errs, st)
	}
	out, _, _ = runIn(t, f, "/work", "", "df", "-hT", ".")
	// Used is the store's unique content (the repeated bytes deduplicate).
	if want := "Filesystem     Type  Size  Used Avail Use% Mounted on\nworkspace      desk  100G "; !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "  100G   1% /\n") {
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
