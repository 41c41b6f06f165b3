package runtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// CPUCase is one backend's part in CPULimit: its sources and what its
// waiter prints once fed.
type CPUCase struct {
	Name    string // the backend's name in the runtime
	Backend run.Backend
	// Waiter reads its stdin (a stream) to the end of Feed and prints
	// WantStdout.
	Waiter, Feed, WantStdout string
	// Busy are loops that never end by themselves.
	Busy []string
}

// CPULimit runs each of c.Busy under run's CPU limit (limit, on a runtime
// over fsys with c.Backend, named c.Name, as its default) beside c.Waiter, started first
// and blocked on its stdin: each loop must be stopped as cpu-limit with at
// least limit of CPU recorded; the waiter, fed afterwards, must complete
// with c.WantStdout, charged with the little CPU it used: more than none,
// under limit. The backends' TestCPULimit share it.
func CPULimit(t *testing.T, fsys *vfs.FS, limit time.Duration, c CPUCase) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	rt, err := run.Open(ctx, fsys, map[string]run.Backend{c.Name: c.Backend}, run.Options{DefaultBackend: c.Name, MaxCPU: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	waiter, err := rt.Exec(ctx, c.Waiter, run.ExecOptions{StdinStream: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range c.Busy {
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
	if _, err := waiter.CopyStdin(ctx, strings.NewReader(c.Feed)); err != nil {
		t.Fatal(err)
	}
	wres, err := waiter.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if wres.Status != run.StatusCompleted || wres.Stdout != c.WantStdout {
		t.Fatalf("waiter: status %s, stdout %q, error %q; want stdout %q", wres.Status, wres.Stdout, wres.Error, c.WantStdout)
	}
	if wres.Usage == nil || wres.Usage.CPU <= 0 || wres.Usage.CPU >= limit {
		t.Fatalf("waiter: usage %+v, want some CPU, under %v", wres.Usage, limit)
	}
}
