package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// containers lists the runtime's containers of the test.
func (e *env) containers() string {
	out, _ := exec.Command(e.b.opts.Runtime, "--root", e.b.opts.RuntimeRoot, "list", "-q").Output()
	return strings.TrimSpace(string(out))
}

func TestBackend_IdleStopAndLazyRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{IdleTimeout: 300 * time.Millisecond})
	checks := e.idleChecks("ws")
	e.ok("echo one > /tmp/mark")
	first := e.box()
	if e.containers() == "" {
		t.Fatal("no container while the sandbox is live")
	}
	for !waitIdleCheck(t, checks) {
	}
	<-first.gone
	if n := len(e.b.Live()); n != 0 {
		t.Errorf("%d sandboxes live after the idle stop", n)
	}
	if c := e.containers(); c != "" {
		t.Errorf("containers left after the idle stop: %s", c)
	}
	if ents, _ := os.ReadDir(e.b.opts.StateDir); len(ents) != 1 || ents[0].Name() != "rootfs" {
		t.Errorf("bundles left after the idle stop: %v", ents)
	}
	// The next execution starts a fresh sandbox (its /tmp is new).
	if out := e.ok("cat /tmp/mark 2>/dev/null || echo fresh"); out != "fresh\n" {
		t.Errorf("after restart: %q", out)
	}
	if e.box() == first {
		t.Error("the stopped sandbox was reused")
	}
}

func TestBackend_BusySandboxIsNotIdle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{IdleTimeout: 200 * time.Millisecond})
	res := e.run("sleep 0.5; echo done", run.ExecOptions{})
	if res.Stdout != "done\n" {
		t.Errorf("a running execution's sandbox was stopped: %q %q %q", res.Stdout, res.Stderr, res.Error)
	}
}

func TestBackend_InitKilledRestarts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.ok("true")
	x := e.box()
	if err := syscall.Kill(x.initPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// No waiting: the next execution finds the sandbox dead (now or when it
	// tries to start the program) and starts a new one.
	if out := e.ok("echo again"); out != "again\n" {
		t.Errorf("after the init was killed: %q", out)
	}
	if e.box() == x {
		t.Error("the dead sandbox was reused")
	}
	<-x.gone
	if c := e.containers(); strings.Contains(c, x.id) {
		t.Errorf("the dead sandbox's container is left: %s", c)
	}
}

// startedSleep starts a program in e's sandbox x and waits until the host
// has seen it start (its first output: the init reports a start before
// the program's output) and its sleep runs in x. Seeing the sleep in /proc
// alone is not enough: an init killed before it reported the start is one
// whose program may not have started, and the backend runs that execution
// again on a new sandbox (where the sleep ran its 100 s to the end).
func startedSleep(t *testing.T, e *env, x *box) *run.Execution {
	t.Helper()
	ex, err := e.r.Exec(ctx(t), "echo started; sleep 100", run.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, ex, "started\n")
	waitFor(t, time.Minute, "the sleep in the sandbox", func() bool { return countProcs(t, x, "sleep") == 1 })
	return ex
}

func TestBackend_InitKilledDuringExecution(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.ok("true")
	x := e.box()
	ex := startedSleep(t, e, x)
	if err := syscall.Kill(x.initPID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the init (pid %d): %v", x.initPID, err)
	}
	res, err := ex.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != run.StatusFailed || !strings.Contains(res.Error, "sandbox stopped") {
		t.Errorf("status %s error %q", res.Status, res.Error)
	}
	e.ok("true")
}

// The runtime holds a copy of the init's connection until it exits itself;
// with the runtime stopped (as under heavy load, or a runtime stuck in its
// cleanup), the init's exit alone must end the execution.
func TestBackend_InitKilledWhileRuntimeStalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.ok("true")
	x := e.box()
	ex := startedSleep(t, e, x)
	if err := x.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer x.cmd.Process.Signal(syscall.SIGCONT)
	if err := syscall.Kill(x.initPID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the init (pid %d): %v", x.initPID, err)
	}
	res, err := ex.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != run.StatusFailed || !strings.Contains(res.Error, "the init exited") {
		t.Errorf("status %s error %q", res.Status, res.Error)
	}
	x.cmd.Process.Signal(syscall.SIGCONT)
	<-x.gone
	e.ok("true")
}

func TestBackend_MountEndsStopsSandbox(t *testing.T) {
	t.Parallel()
	var mounts, releases atomic.Int32
	done := make(chan struct{})
	var e *env
	e = newEnv(t, Options{Mount: func(ctx context.Context, ws Workspace) (Mount, error) {
		n := mounts.Add(1)
		m := Mount{Dir: e.wsDir, Release: func() { releases.Add(1) }}
		if n == 1 {
			m.Done = done
		}
		return m, nil
	}})
	e.ok("true")
	x := e.box()
	close(done)
	<-x.gone
	if releases.Load() != 1 {
		t.Errorf("%d releases after the mount ended", releases.Load())
	}
	e.ok("true")
	if mounts.Load() != 2 {
		t.Errorf("%d mounts, want a new one for the new sandbox", mounts.Load())
	}
}

// startOther opens a second workspace, "other", with a runtime over e's
// backend, and runs hostname in its sandbox (expecting "other"); both are
// closed when the test ends.
func (e *env) startOther() (*vfs.FS, *run.Runtime) {
	t := e.t
	t.Helper()
	other, err := vfs.Open(context.Background(), filepath.Join(e.dir, "other.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	r, err := run.Open(context.Background(), other, map[string]run.Backend{ID: e.b}, run.Options{DefaultBackend: ID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	x, err := r.Exec(ctx(t), "hostname", run.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := x.Wait(ctx(t)); res.Stdout != "other\n" {
		t.Fatalf("other: %q %q", res.Stdout, res.Error)
	}
	return other, r
}

func TestBackend_MaxSandboxes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{MaxSandboxes: 1})
	e.ok("true")
	first := e.box()
	// The idle sandbox of "ws" gives way to "other".
	_, r2 := e.startOther()
	<-first.gone
	// While "other" is busy, "ws" cannot start.
	busy, err := r2.Exec(ctx(t), "echo started; sleep 1000", run.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, busy, "started\n")
	res := e.run("true", run.ExecOptions{})
	if res.Status != run.StatusFailed || !strings.Contains(res.Error, ErrTooManySandboxes.Error()) {
		t.Errorf("a third sandbox: status %s error %q", res.Status, res.Error)
	}
	if err := busy.Kill(run.SIGKILL); err != nil {
		t.Fatal(err)
	}
	busy.Wait(ctx(t))
}

func TestBackend_Close(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.ok("true")
	x := e.box()
	ex, err := e.r.Exec(ctx(t), "sleep 100", run.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "sleep", func() bool { return countProcs(t, x, "sleep") == 1 })
	e.b.Close()
	<-x.gone
	res, _ := ex.Wait(ctx(t))
	if res.Status != run.StatusFailed {
		t.Errorf("an execution running when the backend closed: %s", res.Status)
	}
	if c := e.containers(); c != "" {
		t.Errorf("containers left after Close: %s", c)
	}
	if res := e.run("true", run.ExecOptions{}); !strings.Contains(res.Error, ErrClosed.Error()) {
		t.Errorf("after Close: %q", res.Error)
	}
}

// TestBackend_Slots: with Options.Slots, a sandbox takes a host-wide slot
// to start and gives it back once cleaned up; an idle one is stopped
// ("reclaimed") when another workspace needs its slot; a held one is not,
// and the start that finds no slot is refused by Hold with the bound's
// error, before any execution.
func TestBackend_Slots(t *testing.T) {
	t.Parallel()
	pool := fair.NewPool(fair.PoolOptions{Limits: map[fair.Kind]fair.Bound{fair.Sandbox: {Max: 1, Setting: "--max-sandboxes"}}})
	e := newEnv(t, Options{Slots: pool.Local()})
	e.ok("true")
	first := e.box()
	if c := pool.Counts(fair.Sandbox); c.Held != 1 || c.Idle != 1 {
		t.Fatalf("after one execution: %+v, want one idle slot", c)
	}
	// "other" takes the idle sandbox's slot.
	other, _ := e.startOther()
	<-first.gone
	if !strings.Contains(first.why.Error(), "reclaimed") {
		t.Errorf("the first sandbox stopped: %v, want reclaimed", first.why)
	}
	// Held, "other"'s sandbox is not reclaimed: "ws" is refused before it
	// runs anything.
	release, err := e.b.Hold(ctx(t), Workspace{FS: other})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.b.Hold(ctx(t), Workspace{FS: e.fs})
	var le *fair.LimitError
	if !errors.As(err, &le) || le.Setting != "--max-sandboxes" {
		t.Fatalf("a second sandbox while the first is held: %v", err)
	}
	release()
	release() // once only
	if got := e.ok("hostname"); got != "ws\n" {
		t.Fatalf("ws after other was released: %q", got)
	}
	e.b.Close()
	if c := pool.Counts(fair.Sandbox); c.Held != 0 {
		t.Errorf("after Close: %+v, want no slot held", c)
	}
}
