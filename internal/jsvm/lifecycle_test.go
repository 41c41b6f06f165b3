package jsvm

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// openRuntime opens a store at path with a run.Runtime whose only backend
// is b.
func openRuntime(t testing.TB, path string, b *Backend) (*vfs.FS, *run.Runtime) {
	t.Helper()
	fsys, err := vfs.Open(context.Background(), path, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := run.Open(context.Background(), fsys, map[string]run.Backend{ID: b}, run.Options{DefaultBackend: ID, FlushInterval: time.Millisecond, KillGrace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return fsys, r
}

func newRuntime(t *testing.T) *run.Runtime {
	t.Helper()
	fsys, r := openRuntime(t, filepath.Join(t.TempDir(), "ws.db"), sharedBackend(t))
	t.Cleanup(func() { r.Close(); fsys.Close() })
	return r
}

// testCtx is a test's hang guard: two minutes, so that a loaded CI machine
// running built-in calls under the race detector never meets it first.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestLifecycle runs the backend under run.Runtime: the result's value and
// change set, live events, kill, timeout and its defaults, dispose.
func TestLifecycle(t *testing.T) {
	r := newRuntime(t)

	t.Run("result", func(t *testing.T) {
		x, err := r.Exec(testCtx(t), "import fs from 'node:fs/promises';\nawait fs.writeFile('out.json', '{}');\nconsole.log('log');\nexport default (i) => ({ doubled: i.n * 2 })", run.ExecOptions{Input: []byte(`{"n": 21}`)})
		if err != nil {
			t.Fatal(err)
		}
		res, err := x.Wait(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != run.StatusCompleted || string(res.Value) != `{"doubled":42}` || res.Stdout != "log\n" || res.Backend != ID ||
			!slices.Contains(res.Changes.Created, "/workspace/out.json") {
			t.Fatalf("result %+v", res)
		}
		if got, err := r.Get(testCtx(t), x.ID()); err != nil || string(got.Value) != `{"doubled":42}` {
			t.Fatalf("stored record: %v %+v", err, got)
		}
		if err := r.Dispose(testCtx(t), x.ID()); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Get(testCtx(t), x.ID()); !errors.Is(err, run.ErrNotFound) {
			t.Fatalf("after Dispose: %v", err)
		}
	})

	t.Run("uncaught error exits 1", func(t *testing.T) {
		x, _ := r.Exec(testCtx(t), "throw new Error('boom')", run.ExecOptions{})
		res, _ := x.Wait(testCtx(t))
		if res.Status != run.StatusCompleted || res.ExitCode != 1 || !strings.HasPrefix(res.Stderr, "Uncaught Error: boom\n") || res.Value != nil {
			t.Fatalf("result %+v", res)
		}
	})

	t.Run("events are live", func(t *testing.T) {
		x, err := r.Exec(testCtx(t), "console.log('first');\nawait new Promise((r) => setTimeout(r, 300));\nconsole.error('second');", run.ExecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := x.Events(0)
		ev, err := s.Next(testCtx(t))
		if err != nil || ev.Type != run.EventStdout || string(ev.Data) != "first\n" {
			t.Fatalf("first event %+v %v", ev, err)
		}
		if st := x.Info().Status; st != run.StatusRunning {
			t.Fatalf("the first event came after the end (%s)", st)
		}
		ev, _ = s.Next(testCtx(t))
		if ev.Type != run.EventStderr || string(ev.Data) != "second\n" {
			t.Fatalf("second event %+v", ev)
		}
		if ev, _ = s.Next(testCtx(t)); ev.Type != run.EventExit || ev.Exit.Status != run.StatusCompleted {
			t.Fatalf("exit event %+v", ev)
		}
	})

	for _, tc := range []struct{ name, src string }{
		{"kill a busy loop", "console.log('spinning'); for (;;) {}"},
		{"kill a loop that catches everything", "console.log('spinning'); for (;;) { try { for (;;) {} } catch {} finally { continue; } }"},
		{"kill while waiting for a timer", "console.log('waiting'); await new Promise((r) => setTimeout(r, 3600000));"},
		{"kill a loop of fs calls", "import fs from 'node:fs/promises'; console.log('io'); for (;;) await fs.writeFile('f', 'x');"},
		{"kill a loop of promise jobs", "console.log('jobs'); const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {});"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := r.Exec(testCtx(t), tc.src, run.ExecOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := x.Events(0).Next(testCtx(t)); err != nil {
				t.Fatal(err)
			}
			if err := x.Kill(run.SIGKILL); err != nil {
				t.Fatal(err)
			}
			// testCtx is the hang guard: a kill that does not stop the
			// engine fails Wait with its deadline.
			res, err := x.Wait(testCtx(t))
			if err != nil {
				t.Fatalf("Wait after SIGKILL: %v", err)
			}
			if res.Status != run.StatusCancelled || res.ExitCode != 137 {
				t.Fatalf("status %s exit %d: %+v", res.Status, res.ExitCode, res)
			}
		})
	}

	t.Run("timeout", func(t *testing.T) {
		x, err := r.Exec(testCtx(t), "for (;;) {}", run.ExecOptions{Timeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		res, _ := x.Wait(testCtx(t))
		if res.Status != run.StatusTimedOut || res.ExitCode != run.ExitTimedOut {
			t.Fatalf("result %+v", res)
		}
	})

	t.Run("wall time default and maximum", func(t *testing.T) {
		x, err := r.Exec(testCtx(t), "1", run.ExecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if x.Info().Timeout != DefaultTimeout {
			t.Errorf("default timeout %v, want %v", x.Info().Timeout, DefaultTimeout)
		}
		x.Wait(testCtx(t))
		if _, err := r.Exec(testCtx(t), "1", run.ExecOptions{Timeout: DefaultMaxTimeout + time.Second}); !errors.Is(err, run.ErrTimeoutTooLong) {
			t.Errorf("timeout over the js maximum: %v", err)
		}
	})
}

// TestCrashRecovery: an execution running when its server dies (here: the
// store closes under it) is recorded as failed when the store opens again.
func TestCrashRecovery(t *testing.T) {
	b := sharedBackend(t)
	path := filepath.Join(t.TempDir(), "ws.db")
	fsys, r := openRuntime(t, path, b)
	x, err := r.Exec(testCtx(t), "console.log('out'); for (;;) {}", run.ExecOptions{ID: "victim"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Events(0).Next(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	// The log reaches the store after the event (the runtime batches its
	// writes) and nothing signals it: poll, with a hang guard.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		ents, err := fsys.Records().ReadLog(testCtx(t), "exec", "victim", 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the execution's log never reached the store (hang guard: 30s)")
		}
	}
	if err := fsys.Close(); err != nil {
		t.Fatal(err)
	}
	x.Kill(run.SIGKILL) // stop the engine of the "dead" server
	fs2, r2 := openRuntime(t, path, b)
	defer fs2.Close()
	defer r2.Close()
	res, err := r2.Get(testCtx(t), "victim")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != run.StatusFailed || res.Error != run.ErrStopped.Error() || res.Stdout != "out\n" || res.Backend != ID {
		t.Fatalf("recovered %+v", res)
	}
}
