package sandbox

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/cgroup"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
)

// job is an execution of src as run would hand it to the backend.
func (e *env) job(i int, src string) *run.Job {
	return &run.Job{ID: "bench-" + strconv.Itoa(i), Backend: ID, Source: src, Cwd: run.DefaultCwd, Env: run.DefaultEnv(),
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, FS: e.fs}
}

// BenchmarkSandbox_ColdStart measures a workspace's first execution of
// `true`: sandbox start (bundle, runc run, init handshake) plus the execution.
// The stop of the previous sandbox is not timed.
func BenchmarkSandbox_ColdStart(b *testing.B) {
	coldStarts(b, newEnv(b, Options{}))
}

// coldStarts times b.N cold starts of e's workspace "ws": each a stop
// (not timed) and a run of `true`.
func coldStarts(b *testing.B, e *env) {
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if err := e.b.Stop(context.Background(), "ws"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		out, err := e.b.Run(context.Background(), e.job(i, "true"))
		if err != nil || out.ExitCode != 0 {
			b.Fatalf("%v %v", out, err)
		}
	}
}

// BenchmarkSandbox_WarmExec measures `true` in a running sandbox: fork and
// exec of bash in the sandbox and the round trips to the init.
func BenchmarkSandbox_WarmExec(b *testing.B) {
	e := newEnv(b, Options{})
	if _, err := e.b.Run(context.Background(), e.job(0, "true")); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		out, err := e.b.Run(context.Background(), e.job(i, "true"))
		if err != nil || out.ExitCode != 0 {
			b.Fatalf("%v %v", out, err)
		}
	}
}

// BenchmarkSandbox_WarmExecRuntime is the same through run.Runtime (records,
// events and change journal in the workspace store).
func BenchmarkSandbox_WarmExecRuntime(b *testing.B) {
	e := newEnv(b, Options{})
	e.ok("true")
	for b.Loop() {
		e.ok("true")
	}
}

// BenchmarkHost_BashTrue is the yardstick for the warm execution: bash -c
// true started from Go on the host, no sandbox.
func BenchmarkHost_BashTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSandbox_ExecRules measures what command rules at exec cost:
// 500 execs of /bin/true from one bash, in an execution without command
// rules (no filter) and in one with rules (every exec waits for the
// init's guard), alternately in the same run. It reports the wall time
// per exec of each and their ratio, and the CPU time per exec of the
// whole sandbox (its cgroup's cpuacct.usage: the programs, the kernel's
// notifications and the init's guard) and that ratio, which a loaded
// machine skews less than wall time.
func BenchmarkSandbox_ExecRules(b *testing.B) {
	e := newEnv(b, Options{})
	const src = `for i in $(seq 500); do /bin/true; done`
	set := commandSet(b, "", "deny curl *", "deny git push *", "ask npm publish *")
	if _, err := e.b.Run(context.Background(), e.job(0, "true")); err != nil {
		b.Fatal(err)
	}
	usage := filepath.Join(cgroup.Dirs(e.box().initPID)["cpuacct"], "cpuacct.usage")
	cpu := func() int64 {
		v, err := os.ReadFile(usage)
		if err != nil {
			return 0
		}
		n, _ := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
		return n
	}
	var plain, ruled time.Duration
	var plainCPU, ruledCPU int64
	for i := 0; b.Loop(); i++ {
		for _, s := range []policy.Set{nil, set} {
			c := context.Background()
			if s != nil {
				c = policy.WithSet(c, s)
			}
			c0, t0 := cpu(), time.Now()
			out, err := e.b.Run(c, e.job(i, src))
			d, dc := time.Since(t0), cpu()-c0
			if err != nil || out.ExitCode != 0 {
				b.Fatalf("%v %v", out, err)
			}
			if s == nil {
				plain, plainCPU = plain+d, plainCPU+dc
			} else {
				ruled, ruledCPU = ruled+d, ruledCPU+dc
			}
		}
	}
	n := float64(b.N) * 500
	b.ReportMetric(float64(plain.Nanoseconds())/n, "plain-ns/exec")
	b.ReportMetric(float64(ruled.Nanoseconds())/n, "rules-ns/exec")
	b.ReportMetric(float64(ruled)/float64(plain), "ratio")
	if plainCPU > 0 {
		b.ReportMetric(float64(plainCPU)/n, "plain-cpu-ns/exec")
		b.ReportMetric(float64(ruledCPU)/n, "rules-cpu-ns/exec")
		b.ReportMetric(float64(ruledCPU)/float64(plainCPU), "cpu-ratio")
	}
}
