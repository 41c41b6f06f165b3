package jsvm

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

// TestCPULimit runs a busy loop under run's CPU limit beside an execution
// that waits for its stdin: the loop is stopped as cpu-limit with at least
// the limit of CPU recorded; the waiter, which run then feeds, completes
// charged with the little CPU it used (the engine's thread clock), more
// than none.
func TestCPULimit(t *testing.T) {
	const limit = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	fsys := newStore(t, nil)
	rt, err := run.Open(ctx, fsys, map[string]run.Backend{ID: newBackend(t, Options{})}, run.Options{DefaultBackend: ID, MaxCPU: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	waiter, err := rt.Exec(ctx, "let s = ''; for await (const c of process.stdin) s += c; console.log(s);", run.ExecOptions{StdinStream: true})
	if err != nil {
		t.Fatal(err)
	}
	busy, err := rt.Exec(ctx, "let n = 0; for (;;) n++;", run.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := busy.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != run.StatusCPULimit || res.ExitCode != run.ExitCPULimit || !strings.Contains(res.Error, "CPU limit") {
		t.Fatalf("busy loop: status %s, exit %d, error %q; want %s", res.Status, res.ExitCode, res.Error, run.StatusCPULimit)
	}
	if res.Usage == nil || res.Usage.CPU < limit {
		t.Fatalf("busy loop: usage %+v, want at least %v of CPU", res.Usage, limit)
	}
	if _, err := waiter.CopyStdin(ctx, strings.NewReader("fed")); err != nil {
		t.Fatal(err)
	}
	wres, err := waiter.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if wres.Status != run.StatusCompleted || wres.Stdout != "fed\n" {
		t.Fatalf("waiter: status %s, stdout %q, error %q", wres.Status, wres.Stdout, wres.Error)
	}
	if wres.Usage == nil || wres.Usage.CPU <= 0 || wres.Usage.CPU >= limit {
		t.Fatalf("waiter: usage %+v, want some CPU, under %v", wres.Usage, limit)
	}
}
