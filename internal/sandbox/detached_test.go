package sandbox

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

func TestDetached_StartListAttachSignal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{IdleTimeout: 300 * time.Millisecond})
	ws := Workspace{Name: "ws", FS: e.fs}
	checks := e.idleChecks("ws")
	pid, err := e.b.StartDetached(ctx(t), ws, "svc", "echo hello; echo warn >&2; sleep 1000 & exec sleep 999", "/workspace", nil)
	if err != nil || pid <= 1 {
		t.Fatalf("StartDetached: pid %d, %v", pid, err)
	}
	if _, err := e.b.StartDetached(ctx(t), ws, "svc", "true", "/", nil); err == nil {
		t.Error("a second detached execution with the same id started")
	}
	// It survives attached executions (which sweep escaped processes) and idleness.
	e.ok("true")
	// Drain the checks that ran meanwhile, then wait for one that runs
	// after the attached execution ended: it must keep the sandbox.
	for len(checks) > 0 {
		if <-checks {
			t.Fatal("an idle check stopped the sandbox of a running detached execution")
		}
	}
	if waitIdleCheck(t, checks) {
		t.Fatal("an idle check stopped the sandbox of a running detached execution")
	}
	l, err := e.b.ListDetached(ctx(t), "ws")
	if err != nil || len(l) != 1 || l[0].ID != "svc" || !l[0].Running || l[0].PID != pid || l[0].Procs != 2 {
		t.Fatalf("ListDetached: %+v, %v", l, err)
	}
	if len(e.b.Live()) != 1 {
		t.Error("the sandbox of a running detached execution was stopped as idle")
	}
	if err := e.b.SignalDetached(ctx(t), "ws", "svc", syscall.SIGTERM, true); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	ex, dropped, err := e.b.AttachDetached(ctx(t), "ws", "svc", &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "hello\n" || errb.String() != "warn\n" || dropped != 0 {
		t.Errorf("attach: stdout %q stderr %q dropped %d", out.String(), errb.String(), dropped)
	}
	if ex.Signal != int(syscall.SIGTERM) || ex.Killed != int(syscall.SIGTERM) {
		t.Errorf("attach: exit %+v", ex)
	}
	if err := e.b.SignalDetached(ctx(t), "ws", "nope", syscall.SIGTERM, false); !errors.Is(err, ErrNoDetached) {
		t.Errorf("signal an unknown id: %v", err)
	}
}

func TestDetached_BufferDropsOldest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DetachedBuffer: 64 << 10})
	ws := Workspace{Name: "ws", FS: e.fs}
	if _, err := e.b.StartDetached(ctx(t), ws, "noisy", "head -c 300000 /dev/zero | tr '\\0' a; echo; echo last", "/", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the output", func() bool {
		l, _ := e.b.ListDetached(ctx(t), "ws")
		return len(l) == 1 && !l[0].Running && l[0].Output == 300006
	})
	var out bytes.Buffer
	ex, dropped, err := e.b.AttachDetached(ctx(t), "ws", "noisy", &out, &out)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Code != 0 || !strings.HasSuffix(out.String(), "last\n") || dropped == 0 || int64(out.Len())+dropped != 300006 {
		t.Errorf("exit %+v, kept %d, dropped %d", ex, out.Len(), dropped)
	}
}

func TestBackend_ExecutionOf(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.ok("true")
	x, err := e.r.Exec(ctx(t), "sleep 100 & wait", run.ExecOptions{ID: "exec-1"})
	if err != nil {
		t.Fatal(err)
	}
	bx := e.box()
	waitFor(t, 5*time.Second, "sleep", func() bool { return countProcs(t, bx, "sleep") == 1 })
	hostPID := 0
	ents, _ := os.ReadDir("/proc")
	for _, d := range ents {
		c, _ := os.ReadFile("/proc/" + d.Name() + "/comm")
		ns, _ := os.Readlink("/proc/" + d.Name() + "/ns/pid")
		if strings.TrimSpace(string(c)) == "sleep" && ns == bx.pidNS() {
			hostPID, _ = strconv.Atoi(d.Name())
		}
	}
	ws, id, ok := e.b.ExecutionOf(hostPID)
	if !ok || ws != "ws" || id != "exec-1" {
		t.Errorf("ExecutionOf(%d) = %q, %q, %v", hostPID, ws, id, ok)
	}
	if _, _, ok := e.b.ExecutionOf(os.Getpid()); ok {
		t.Error("a host process was attributed to an execution")
	}
	x.Kill(run.SIGKILL)
	x.Wait(ctx(t))
}
