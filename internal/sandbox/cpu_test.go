package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
)

// cpuLimit is the CPU limit of these tests: small, so that a busy loop
// reaches it soon, and far above what a waiting bash uses.
const cpuLimit = 300 * time.Millisecond

// busy is a program that keeps one core busy until it is stopped.
const busy = `while :; do :; done`

// wantCPULimit checks that res was stopped by its CPU limit after using it.
func wantCPULimit(t *testing.T, src string, res *run.Result) {
	t.Helper()
	if res.Status != run.StatusCPULimit || res.ExitCode != run.ExitCPULimit || res.MaxCPU != cpuLimit {
		t.Fatalf("%q: status %s, exit %d, limit %v, error %q; want %s, %d, %v\nstderr: %s", src, res.Status, res.ExitCode, res.MaxCPU, res.Error,
			run.StatusCPULimit, run.ExitCPULimit, cpuLimit, res.Stderr)
	}
	if res.Usage == nil || res.Usage.CPU < cpuLimit {
		t.Fatalf("%q: usage %+v, want CPU of at least %v", src, res.Usage, cpuLimit)
	}
}

// noExecGroups checks that sandbox x has no execution cgroup left.
func noExecGroups(t *testing.T, x *box) {
	t.Helper()
	if x.cgDir == "" {
		t.Fatal("the sandbox has no cgroup v2 directory")
	}
	ents, err := os.ReadDir(x.cgDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			t.Errorf("cgroup %s left in %s", e.Name(), x.cgDir)
		}
	}
}

// requireCPUGroups needs the sandbox's executions to be metered: cgroup v2
// (the unified hierarchy, also in the hybrid layout), where the sandbox
// backend can run at all. A host with v1 only has no meter (documented):
// skipped, or failed under DESK_REQUIRE_SANDBOX=1.
func requireCPUGroups(t *testing.T, e *env) {
	t.Helper()
	e.ok("true")
	if x := e.box(); x.cgDir == "" || x.ungrouped.Load() {
		testenv.Need(t, testenv.Sandbox, fmt.Errorf("the sandbox's executions are not metered (cgroup v2 directory %q)", x.cgDir))
	}
}

// TestCPU_LimitPerExecution: a busy loop is stopped by its CPU limit
// (cpu-limit, exit 152, the CPU it used at least the limit), while another
// execution beside it, waiting on its stdin the whole time, is charged
// nothing of it and completes, its own CPU far under the limit.
func TestCPU_LimitPerExecution(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	requireCPUGroups(t, e)
	in, feed := io.Pipe()
	waiter, err := e.r.Exec(ctx(t), `head -c 1 >/dev/null; echo woke`, run.ExecOptions{Stdin: in, MaxCPU: cpuLimit})
	if err != nil {
		t.Fatal(err)
	}
	res := e.run(busy, run.ExecOptions{MaxCPU: cpuLimit})
	wantCPULimit(t, busy, res)
	if !strings.Contains(res.Error, "CPU limit of 300ms") {
		t.Errorf("error %q does not name the limit", res.Error)
	}
	feed.Write([]byte("x"))
	feed.Close()
	w, err := waiter.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if w.Status != run.StatusCompleted || w.Stdout != "woke\n" {
		t.Fatalf("the waiter: status %s, exit %d, stdout %q, stderr %q", w.Status, w.ExitCode, w.Stdout, w.Stderr)
	}
	if w.Usage == nil || w.Usage.CPU <= 0 || w.Usage.CPU >= cpuLimit {
		t.Errorf("the waiter's usage %+v: want some CPU, under %v", w.Usage, cpuLimit)
	}
	noExecGroups(t, e.box())
}

// TestCPU_DescendantsCounted: what the program's children use counts,
// however they run — in the background, in a subshell, in a pipeline, in
// a session of their own (setsid), or after a double fork that leaves the
// main process nothing to wait for.
func TestCPU_DescendantsCounted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	requireCPUGroups(t, e)
	for _, src := range []string{
		`sh -c '` + busy + `' & wait`,
		`(` + busy + `)`,
		`yes | while read -r l; do :; done`,
		`setsid sh -c '` + busy + `' & wait`,
		// The grandchild outlives the main process's wait: the main
		// process then waits on a pipe the grandchild never writes.
		`mkfifo /tmp/f; (sh -c '` + busy + `' & ) ; read -r l < /tmp/f`,
	} {
		wantCPULimit(t, src, e.run(src, run.ExecOptions{MaxCPU: cpuLimit}))
	}
}

// TestCPU_MeterMatchesRusage: for a program whose children are all waited
// for, the execution's CPU (its cgroup) is at least what the init's rusage
// of the main process and its waited children reports (the group also
// holds the init's own fork of it), and the group is removed at the end.
func TestCPU_MeterMatchesRusage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	requireCPUGroups(t, e)
	src := `i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; sh -c 'j=0; while [ $j -lt 100000 ]; do j=$((j+1)); done'`
	res := e.run(src, run.ExecOptions{})
	if res.Status != run.StatusCompleted || res.Usage == nil {
		t.Fatalf("status %s, usage %+v", res.Status, res.Usage)
	}
	// Both count the same scheduler time; rusage rounds to microseconds
	// per process.
	if u := res.Usage; u.CPU+time.Millisecond < u.UserTime+u.SysTime || u.CPU <= 0 {
		t.Errorf("usage %+v: the meter's CPU is below the rusage's user + system time", u)
	}
	noExecGroups(t, e.box())
}

// TestCPU_CommandRules: an execution with command rules (forked from a
// thread that carries an exec filter) is metered and stopped as well.
func TestCPU_CommandRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	requireCPUGroups(t, e)
	c := policy.WithSet(ctx(t), commandSet(t, "", "deny whoami"))
	src := `sh -c '` + busy + `' & wait`
	x, err := e.r.Exec(c, src, run.ExecOptions{MaxCPU: cpuLimit})
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	wantCPULimit(t, src, res)
	if code, _, _ := e.runSet(commandSet(t, "", "deny whoami"), "after", "whoami"); code != 126 {
		t.Errorf("whoami under the rule: exit %d, want 126", code)
	}
}

// TestCPU_Detached: a detached execution is metered and stopped as well.
func TestCPU_Detached(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	requireCPUGroups(t, e)
	src := `sh -c '` + busy + `' & wait`
	x, err := e.r.Exec(ctx(t), src, run.ExecOptions{MaxCPU: cpuLimit, Detached: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	wantCPULimit(t, src, res)
}

// TestCPU_StaleGroupsRemoved: a new backend on a state directory a killed
// server left kills the processes in the recorded sandbox cgroups' child
// groups (the executions') and removes them with their parent.
func TestCPU_StaleGroupsRemoved(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	requireCPUGroups(t, e)
	parent := filepath.Dir(e.box().cgDir) // the backend's CgroupParent on the v2 hierarchy
	dir := filepath.Join(e.dir, "srv")
	id := "desk-ws-stale" + strings.ReplaceAll(t.Name(), "/", "-")
	sandboxGroup := filepath.Join(parent, id)
	execGroup := filepath.Join(sandboxGroup, execGroupPrefix+"1")
	for _, d := range []string{filepath.Join(dir, "state", id), sandboxGroup, execGroup} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Remove(execGroup); os.Remove(sandboxGroup) })
	if err := os.WriteFile(filepath.Join(execGroup, "cgroup.type"), []byte("threaded"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state", id, cgroupsFile), []byte(sandboxGroup), 0o600); err != nil {
		t.Fatal(err)
	}
	// A left program: in the sandbox's group, then (its one thread) in
	// the execution's, as the init's fork would have put it.
	sleep := exec.Command("sleep", "1000")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill() })
	pid := []byte(strconv.Itoa(sleep.Process.Pid))
	if err := os.WriteFile(filepath.Join(sandboxGroup, "cgroup.procs"), pid, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(execGroup, "cgroup.threads"), pid, 0); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	b, err := New(Options{InitPath: exe, StateDir: filepath.Join(dir, "state"), RuntimeRoot: filepath.Join(dir, "runc"), CgroupParent: "desk-sandbox-test"})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if err := sleep.Wait(); err == nil || sleep.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the left program: %v, want killed", err)
	}
	if _, err := os.Stat(sandboxGroup); !os.IsNotExist(err) {
		t.Errorf("the left sandbox group: %v, want removed", err)
	}
}
