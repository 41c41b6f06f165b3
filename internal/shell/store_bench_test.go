package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell/shelltest"
	"github.com/desk-dev/desk/internal/vfs"
)

// BenchmarkFileWriters measures the one-liners that write many files (issue
// 20: cp -r of 1,000 files, sed -i over 100 files) by CPU time, against bash
// with the GNU tools on tmpfs in the same run. The shell runs each script as
// an execution does: on a vfs.FS.WithBatching handle (run.DefaultCommitDelay),
// committed at the end (batched), and, for comparison, on the plain store
// handle, every change durable when it returns (durable). It reports cpu-ns/op
// (the process's user+system time per run, the store's background work
// included), bash-cpu-ns/op (bash and its children) and x-bash-cpu.
func BenchmarkFileWriters(b *testing.B) {
	files := map[string]string{}
	for d := 0; d < 10; d++ {
		for i := 0; i < 100; i++ {
			files[fmt.Sprintf("src/d%d/f%03d.txt", d, i)] = strings.Repeat(fmt.Sprintf("alpha line %d of file %d\n", i, d), 20+i%50)
		}
	}
	cases := []struct{ name, script string }{
		{"cp-r-1000", "rm -rf copy && cp -r src copy"},
		{"sed-i-100", "sed -i s/alpha/omega/ src/d0/*.txt"},
	}
	bash, bashErr := exec.LookPath("bash")
	tmp := b.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "desk-bench-"); err == nil {
			tmp = d
			b.Cleanup(func() { os.RemoveAll(d) })
		}
	}
	shelltest.WriteHostFixture(b, tmp, files)
	be := New(Options{})
	ctx := context.Background()
	for _, c := range cases {
		for _, mode := range []string{"batched", "durable"} {
			b.Run("shell-"+mode+"/"+c.name, func(b *testing.B) {
				f := newStore(b, files)
				var cpu time.Duration
				for b.Loop() {
					t0 := selfCPU()
					h := f
					if mode == "batched" {
						h = f.WithBatching(run.DefaultCommitDelay)
					}
					r := runScript(ctx, be, h, c.script, "")
					if r.exit != 0 {
						b.Fatalf("exit %d: %s", r.exit, r.stderr)
					}
					if err := h.Commit(ctx); err != nil {
						b.Fatal(err)
					}
					cpu += selfCPU() - t0
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
		if bashErr != nil {
			continue
		}
		b.Run("bash/"+c.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(bash, "-c", c.script)
				cmd.Dir = tmp
				cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, strings.TrimSpace(string(out)))
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "bash-cpu-ns/op")
		})
	}
}

// selfCPU is the user+system CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var _ = vfs.WithActor
