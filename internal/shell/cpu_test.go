package shell

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

// TestCPULimit runs busy while loops under run's CPU limit, in the script's
// own goroutine and in a pipeline stage's, beside an execution waiting to
// read its stdin: each loop is stopped as cpu-limit with at least the limit
// of CPU recorded; the waiter, fed afterwards, completes charged with the
// little CPU it used, more than none.
func TestCPULimit(t *testing.T) {
	const limit = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	// The loops' own bounds out of the way: the CPU limit stops them.
	be := New(Options{MaxLoopIters: math.MaxInt64, MaxCommands: math.MaxInt64})
	rt, err := run.Open(ctx, newStore(t, nil), map[string]run.Backend{"shell": be}, run.Options{DefaultBackend: "shell", MaxCPU: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	waiter, err := rt.Exec(ctx, `read -r line; echo "got $line"`, run.ExecOptions{StdinStream: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"while :; do :; done", "{ while :; do :; done; } | cat"} {
		x, err := rt.Exec(ctx, src, run.ExecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := x.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != run.StatusCPULimit || res.ExitCode != run.ExitCPULimit || !strings.Contains(res.Error, "CPU limit") {
			t.Fatalf("%s: status %s, exit %d, error %q; want %s", src, res.Status, res.ExitCode, res.Error, run.StatusCPULimit)
		}
		if res.Usage == nil || res.Usage.CPU < limit {
			t.Fatalf("%s: usage %+v, want at least %v of CPU", src, res.Usage, limit)
		}
	}
	if _, err := waiter.CopyStdin(ctx, strings.NewReader("fed\n")); err != nil {
		t.Fatal(err)
	}
	wres, err := waiter.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if wres.Status != run.StatusCompleted || wres.Stdout != "got fed\n" {
		t.Fatalf("waiter: status %s, stdout %q, error %q", wres.Status, wres.Stdout, wres.Error)
	}
	if wres.Usage == nil || wres.Usage.CPU <= 0 || wres.Usage.CPU >= limit {
		t.Fatalf("waiter: usage %+v, want some CPU, under %v", wres.Usage, limit)
	}
}
