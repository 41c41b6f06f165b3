package sandbox

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// BenchmarkSandbox_ExecCPUGroup measures what an execution's own cgroup
// (its CPU meter) costs a warm execution of `true`: the host's mkdir,
// threaded and open of the group and its removal, the descriptor passed to
// the init, the init's thread that joins the group and forks the program
// and then ends. Executions with and without a group alternate in the same
// run, on one sandbox. It reports the wall time of each and their ratio,
// and the CPU time of each (the server process's, getrusage, and the
// sandbox's cgroup's, cpu.stat: the init and the program) and the ratio of
// their sums, which a loaded machine
// skews less than wall time.
func BenchmarkSandbox_ExecCPUGroup(b *testing.B) {
	e := newEnv(b, Options{})
	if _, err := e.b.Run(context.Background(), e.job(0, "true")); err != nil {
		b.Fatal(err)
	}
	stat := filepath.Join(e.box().cgDir, "cpu.stat")
	if e.box().cgDir == "" {
		b.Skip("no cgroup v2 hierarchy: executions have no cgroups of their own")
	}
	host := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	sandbox := func() time.Duration { return time.Duration(cgroup.ReadKey(stat, "usage_usec")) * time.Microsecond }
	var wall, hostCPU, sandboxCPU [2]time.Duration // [0]: without a group, [1]: with
	for i := 0; b.Loop(); i++ {
		for k, grouped := range []bool{false, true} {
			e.b.noCPUGroups = !grouped
			h0, s0, t0 := host(), sandbox(), time.Now()
			out, err := e.b.Run(context.Background(), e.job(i, "true"))
			wall[k] += time.Since(t0)
			hostCPU[k] += host() - h0
			sandboxCPU[k] += sandbox() - s0
			if err != nil || out.ExitCode != 0 {
				b.Fatalf("%v %v", out, err)
			}
		}
	}
	if e.box().ungrouped.Load() {
		b.Fatal("the executions with a group were not put in it")
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall[0].Nanoseconds())/n, "plain-ns/exec")
	b.ReportMetric(float64(wall[1].Nanoseconds())/n, "group-ns/exec")
	b.ReportMetric(float64(wall[1])/float64(wall[0]), "ratio")
	b.ReportMetric(float64(hostCPU[0].Nanoseconds())/n, "plain-host-cpu-ns/exec")
	b.ReportMetric(float64(hostCPU[1].Nanoseconds())/n, "group-host-cpu-ns/exec")
	b.ReportMetric(float64(sandboxCPU[0].Nanoseconds())/n, "plain-sandbox-cpu-ns/exec")
	b.ReportMetric(float64(sandboxCPU[1].Nanoseconds())/n, "group-sandbox-cpu-ns/exec")
	b.ReportMetric(float64(hostCPU[1]+sandboxCPU[1])/float64(hostCPU[0]+sandboxCPU[0]), "cpu-ratio")
}
