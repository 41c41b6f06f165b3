package api_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/testenv"
)

// BenchmarkTree_GoSrc uploads and downloads the Go distribution's src tree
// (about 12,000 files and 120 MiB, from $(go env GOROOT)/src) as a tgz
// through the API, against GNU tar on tmpfs in the same run: the upload
// against tar -xzf of the same archive into a new tmpfs directory, the
// download against tar -czf of that directory to a tmpfs file. The server
// is a process of its own (this test binary re-executed) with its data
// directory on tmpfs too, so both sides use the same medium; the client
// reads the archive from and writes it to tmpfs. It reports seconds per
// operation for each, their ratios (the target is 3), and the server
// process's peak resident set size.
//
//	go test -run '^$' -bench TreeGoSrc -benchtime 3x ./internal/api/
func BenchmarkTreeGoSrc(b *testing.B) {
	src := filepath.Join(testenv.GOROOT(b), "src")
	if _, err := os.Stat(src); err != nil {
		b.Fatalf("no Go source tree at %s: %v", src, err)
	}
	shm, err := os.MkdirTemp("/dev/shm", "desk-tree-bench-")
	if err != nil {
		b.Fatalf("tmpfs /dev/shm is needed for the baseline: %v", err)
	}
	b.Cleanup(func() { os.RemoveAll(shm) }) // after the server's end (childServer's cleanup runs first)
	tgz := filepath.Join(shm, "src.tgz")
	if out, err := exec.Command("tar", "-czf", tgz, "-C", src, ".").CombinedOutput(); err != nil {
		b.Fatalf("tar -czf: %v\n%s", err, out)
	}
	fi, _ := os.Stat(tgz)

	ch, c := childServer(b, filepath.Join(shm, "data"), "bench")
	run := func(name string, args ...string) time.Duration {
		start := time.Now()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return time.Since(start)
	}
	var deskUp, tarUp, deskDown, tarDown time.Duration
	var sum client.TreeSummary
	var downBytes int64
	b.ResetTimer()
	for i := range b.N {
		// Upload: tar -xzf against PUT .../tree.
		dir := filepath.Join(shm, fmt.Sprintf("x%d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		tarUp += run("tar", "-xzf", tgz, "-C", dir)
		f, err := os.Open(tgz)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		sum, err = c.PutTree(bg, "bench", fmt.Sprintf("/src%d", i), f, client.TreeOptions{})
		deskUp += time.Since(start)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}

		// Download: tar -czf against GET .../tree?format=tgz.
		tarDown += run("tar", "-czf", filepath.Join(shm, "tar-out.tgz"), "-C", dir, ".")
		out, err := os.Create(filepath.Join(shm, "desk-out.tgz"))
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		tr, err := c.GetTree(bg, "bench", fmt.Sprintf("/src%d", i), client.GetTreeOptions{Format: client.FormatTgz})
		if err != nil {
			b.Fatal(err)
		}
		downBytes, err = io.Copy(out, tr)
		tr.Close()
		out.Close()
		deskDown += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dir)
		if err := c.Remove(bg, "bench", fmt.Sprintf("/src%d", i), true); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(deskUp.Seconds()/n, "desk-up-s")
	b.ReportMetric(tarUp.Seconds()/n, "tar-up-s")
	b.ReportMetric(float64(deskUp)/float64(tarUp), "up-ratio")
	b.ReportMetric(deskDown.Seconds()/n, "desk-down-s")
	b.ReportMetric(tarDown.Seconds()/n, "tar-down-s")
	b.ReportMetric(float64(deskDown)/float64(tarDown), "down-ratio")
	b.ReportMetric(float64(vmHWM(b, ch.cmd.Process.Pid))/(1<<20), "server-peak-RSS-MiB")
	b.Logf("archive %d bytes; %d files, %d dirs, %d symlinks, %d bytes of content; download %d bytes",
		fi.Size(), sum.Files, sum.Dirs, sum.Symlinks, sum.Bytes, downBytes)
}

// vmHWM is a process's peak resident set size, from /proc.
func vmHWM(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
