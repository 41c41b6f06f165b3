package cmds

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSlideWindow_gnu: head -c -N and tail -c N, which keep a sliding
// window of the input's last N bytes, give GNU head's and tail's bytes for
// counts on both sides of the window's read size and compaction points,
// from stdin and from a file, on an input of about 1 MB.
func TestSlideWindow_gnu(t *testing.T) {
	for _, tool := range []string{"head", "tail"} {
		if _, err := exec.LookPath(tool); err != nil {
			requireTool(t, tool)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 1<<20+12345)
	for i := range data {
		data[i] = byte('a' + rng.IntN(26))
		if rng.IntN(40) == 0 {
			data[i] = '\n'
		}
	}
	dir := t.TempDir()
	host := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(host, data, 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"in.txt": string(data)}
	for _, n := range []int{0, 1, 100, 32<<10 - 1, 32 << 10, 32<<10 + 1, 64 << 10, 500_000, len(data) - 1, len(data), len(data) + 1, 3 << 20} {
		for _, c := range []struct{ cmd, count string }{{"head", "-" + strconv.Itoa(n)}, {"tail", strconv.Itoa(n)}} {
			want, wantErr, wantStatus := runGNU(t, exec.Command(c.cmd, "-c", c.count, host))
			for _, stdin := range []bool{false, true} {
				args, in := []string{c.cmd, "-c", c.count, "in.txt"}, ""
				if stdin {
					args, in = args[:3], string(data)
				}
				got, gotErr, status := runMem(t, nil, files, in, args...)
				if status != wantStatus || got != want {
					t.Errorf("%s -c %s (stdin %v): status %d, %d bytes (stderr %q); GNU: status %d, %d bytes (stderr %q)",
						c.cmd, c.count, stdin, status, len(got), gotErr, wantStatus, len(want), wantErr)
				}
			}
		}
	}
}
