package sandbox

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

// procsWith counts the live processes of sandbox x whose command line
// contains s.
func procsWith(x *box, s string) int {
	return liveProcs(x, func(dir string) bool {
		cmd, _ := os.ReadFile(dir + "/cmdline")
		return bytes.Contains(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}), []byte(s))
	})
}

// detached lists the init's entry of the run execution id (nil if none).
func (e *env) detached(id string) *Detached {
	e.t.Helper()
	l, err := e.b.ListDetached(ctx(e.t), "ws")
	if err != nil {
		e.t.Fatal(err)
	}
	for i := range l {
		if strings.HasPrefix(l[i].ID, id+"@") {
			return &l[i]
		}
	}
	return nil
}

// waitOutput reads x's events until its stdout holds want.
func waitOutput(t *testing.T, x *run.Execution, want string) {
	t.Helper()
	s := x.Events(0)
	var out strings.Builder
	for !strings.Contains(out.String(), want) {
		ev, err := s.Next(ctx(t))
		if err != nil {
			t.Fatalf("waiting for %q in the output (got %q): %v", want, out.String(), err)
		}
		if ev.Type == run.EventStdout {
			out.Write(ev.Data)
		}
	}
}

func TestBackend_RunDetached(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{IdleTimeout: 200 * time.Millisecond})
	if err := os.WriteFile(filepath.Join(e.wsDir, "hello.txt"), []byte("hello from the workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("outlives its main process", func(t *testing.T) {
		// The same script, not detached: the sleep is killed with the shell.
		if out := e.ok("sleep 1001 & echo started"); out != "started\n" {
			t.Errorf("attached: %q", out)
		}
		if n := procsWith(e.box(), "sleep 1001"); n != 0 {
			t.Errorf("attached: %d sleeps left", n)
		}
		// Detached, its output to the end of the shell (the stream ends) and
		// the sleep holding nothing: it runs while the sleep lives.
		x, err := e.r.Exec(ctx(t), "sleep 1002 >/dev/null 2>&1 & echo started", run.ExecOptions{ID: "svc1", Detached: true})
		if err != nil {
			t.Fatal(err)
		}
		if i := x.Info(); !i.Detached || i.Status != run.StatusRunning || i.Timeout != run.DefaultDetachedTimeout {
			t.Fatalf("info: %+v", i)
		}
		waitOutput(t, x, "started\n")
		waitFor(t, 10*time.Second, "the main shell's exit", func() bool {
			d := e.detached("svc1")
			return d != nil && !d.Running && d.Exit != nil
		})
		if d := e.detached("svc1"); d.Procs != 1 {
			t.Errorf("the session has %d processes, want the sleep", d.Procs)
		}
		if st := x.Info().Status; st != run.StatusRunning {
			t.Fatalf("status %s with its sleep alive", st)
		}
		l, err := e.r.List(ctx(t), run.ListOptions{Status: run.StatusRunning})
		if err != nil || len(l) != 1 || l[0].ID != "svc1" || !l[0].Detached {
			t.Fatalf("running executions: %+v, %v", l, err)
		}
		// Its sandbox cannot be idle-stopped: the running execution holds
		// it, so no idle timer is armed. Other executions do not sweep its
		// processes.
		e.ok("true")
		bx := e.box()
		e.b.mu.Lock()
		users, idle := bx.users, bx.idle
		e.b.mu.Unlock()
		if users == 0 || idle != nil {
			t.Fatalf("the sandbox of a running detached execution: %d users, idle timer %v", users, idle != nil)
		}
		if n := procsWith(e.box(), "sleep 1002"); n != 1 {
			t.Fatalf("%d sleeps", n)
		}
		// Kill reaches the session: the sleep goes, the execution ends.
		if err := x.Kill(run.SIGTERM); err != nil {
			t.Fatal(err)
		}
		res, err := x.Wait(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != run.StatusCancelled || res.ExitCode != 143 || res.Stdout != "started\n" || !res.Detached {
			t.Errorf("killed: %s exit %d stdout %q", res.Status, res.ExitCode, res.Stdout)
		}
		if n := procsWith(e.box(), "sleep 1002"); n != 0 {
			t.Errorf("%d sleeps left after the kill", n)
		}
		// It ends on its own when its last process does.
		x, err = e.r.Exec(ctx(t), "sleep 0.2 & echo bye", run.ExecOptions{Detached: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err = x.Wait(ctx(t))
		if err != nil || res.Status != run.StatusCompleted || res.ExitCode != 0 || res.Stdout != "bye\n" || res.Usage == nil {
			t.Errorf("ended on its own: %+v, %v", res, err)
		}
	})

	t.Run("a service other executions use", func(t *testing.T) {
		x, err := e.r.Exec(ctx(t), "exec python3 -u -m http.server 8765 --bind 127.0.0.1", run.ExecOptions{ID: "web", Detached: true})
		if err != nil {
			t.Fatal(err)
		}
		// A second, ordinary execution in the same sandbox talks to it.
		out := e.ok(`for i in $(seq 200); do curl -sf http://127.0.0.1:8765/hello.txt && exit 0; sleep 0.05; done; exit 1`)
		if out != "hello from the workspace\n" {
			t.Errorf("curl: %q", out)
		}
		// Its log, through the execution's events (python logs to stderr).
		s := x.Events(0)
		var log strings.Builder
		for !strings.Contains(log.String(), "GET /hello.txt") {
			ev, err := s.Next(ctx(t))
			if err != nil {
				t.Fatalf("events (so far %q): %v", log.String(), err)
			}
			log.Write(ev.Data)
		}
		if err := e.r.Kill(ctx(t), "web", run.SIGKILL); err != nil {
			t.Fatal(err)
		}
		res, err := x.Wait(ctx(t))
		if err != nil || res.Status != run.StatusCancelled || res.ExitCode != 137 {
			t.Errorf("killed: %s exit %d, %v", res.Status, res.ExitCode, err)
		}
		if n := procsWith(e.box(), "http.server"); n != 0 {
			t.Errorf("%d servers left", n)
		}
		if d := e.detached("web"); d == nil || d.Running || d.Procs != 0 {
			t.Errorf("the init's entry: %+v", d)
		}
	})

	t.Run("ticks, followed live", func(t *testing.T) {
		x, err := e.r.Exec(ctx(t), "while sleep 0.05; do echo tick; done", run.ExecOptions{Detached: true, OutputLimit: run.MinOutputLimit})
		if err != nil {
			t.Fatal(err)
		}
		st, err := e.r.Attach(ctx(t), x.ID(), 0)
		if err != nil {
			t.Fatal(err)
		}
		ticks := 0
		for ticks < 3 {
			ev, err := st.Next(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			ticks += strings.Count(string(ev.Data), "tick\n")
		}
		x.Kill(run.SIGINT)
		evs := []run.Event{}
		for {
			ev, err := st.Next(ctx(t))
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
		}
		if last := evs[len(evs)-1]; last.Type != run.EventExit || last.Exit.Status != run.StatusCancelled || last.Exit.Signal != "SIGINT" {
			t.Errorf("last event: %+v", last)
		}
	})

	t.Run("a program that cannot start", func(t *testing.T) {
		x, err := e.r.Exec(ctx(t), "echo never", run.ExecOptions{Detached: true, Cwd: "/nonexistent"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := x.Wait(ctx(t))
		if err != nil || res.Status != run.StatusCompleted || res.ExitCode != 1 || !strings.Contains(res.Stderr, "No such file or directory") {
			t.Errorf("%+v, %v", res, err)
		}
	})

	t.Run("stdin is refused", func(t *testing.T) {
		_, err := e.r.Exec(ctx(t), "cat", run.ExecOptions{Detached: true, Stdin: strings.NewReader("x")})
		if !errors.Is(err, run.ErrInvalid) {
			t.Errorf("stdin: %v", err)
		}
	})
}

// TestBackend_RunDetached_stop: a detached execution running when the
// runtime closes is recorded as stopped, and its processes are gone.
func TestBackend_RunDetached_stop(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	x, err := e.r.Exec(ctx(t), "sleep 1003", run.ExecOptions{Detached: true})
	if err != nil {
		t.Fatal(err)
	}
	bx := e.box()
	// Started means forked: bash may not have exec'd sleep yet.
	waitFor(t, 10*time.Second, "the sleep", func() bool { return procsWith(bx, "sleep 1003") == 1 })
	if err := e.r.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := x.Wait(ctx(t))
	if err != nil || res.Status != run.StatusFailed || res.Error != run.ErrStopped.Error() {
		t.Errorf("after Close: %s %q, %v", res.Status, res.Error, err)
	}
	if n := procsWith(bx, "sleep 1003"); n != 0 {
		t.Errorf("%d sleeps left", n)
	}
}
