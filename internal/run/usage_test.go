package run

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// measuring is a backend that reports the resource usage it is given.
type measuring struct{ u *Usage }

func (m measuring) Run(ctx context.Context, job *Job) (Outcome, error) {
	return Outcome{ExitCode: 2, Usage: m.u}, nil
}

// TestExecution_usage checks that a backend's Outcome.Usage lands in the
// execution's Info, survives a reopen of the store and the runtime, and
// stays nil for a backend that measures nothing.
func TestExecution_usage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ws.db")
	fsys, err := vfs.Open(t.Context(), path, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	want := Usage{UserTime: 1500 * time.Millisecond, SysTime: 250 * time.Millisecond, MaxRSS: 64 << 20}
	u := want
	backends := map[string]Backend{"measuring": measuring{&u}, "mini": newMini()}
	r, err := Open(ctx(t), fsys, backends, Options{DefaultBackend: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(backend, id string) *Result {
		t.Helper()
		x, err := r.Exec(ctx(t), "echo x", ExecOptions{Backend: backend, ID: id})
		if err != nil {
			t.Fatal(err)
		}
		res, err := x.Wait(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run("measuring", "m")
	if res.Status != StatusCompleted || res.ExitCode != 2 || res.Usage == nil || *res.Usage != want {
		t.Fatalf("measured: status %s, exit %d, usage %+v, want %+v", res.Status, res.ExitCode, res.Usage, want)
	}
	u.MaxRSS = 1 // the record keeps its own copy
	if res := run("mini", "n"); res.Usage != nil {
		t.Fatalf("not measured: usage %+v", res.Usage)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Close(); err != nil {
		t.Fatal(err)
	}

	fs2, err := vfs.Open(ctx(t), path, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs2.Close()
	r2, err := Open(ctx(t), fs2, backends, Options{DefaultBackend: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	got, err := r2.Get(ctx(t), "m")
	if err != nil {
		t.Fatal(err)
	}
	if got.Usage == nil || *got.Usage != want {
		t.Fatalf("reloaded: usage %+v, want %+v", got.Usage, want)
	}
	if got, err := r2.Get(ctx(t), "n"); err != nil || got.Usage != nil {
		t.Fatalf("reloaded unmeasured: usage %+v, %v", got.Usage, err)
	}
	list, err := r2.List(ctx(t), ListOptions{})
	if err != nil || len(list) != 2 || list[0].Usage == nil || *list[0].Usage != want {
		t.Fatalf("list: %+v, %v", list, err)
	}
}
