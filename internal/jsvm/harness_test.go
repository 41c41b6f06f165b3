package jsvm

import (
	"context"
	"encoding/json"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// newStore makes a store holding files (path → content; a path ending in
// "/" is a directory) under /workspace.
func newStore(t testing.TB, files map[string]string) *vfs.FS {
	t.Helper()
	ctx := context.Background()
	f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := f.MkdirAll(ctx, "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, n := range keys {
		p := "/workspace/" + n
		if strings.HasSuffix(p, "/") {
			err = f.MkdirAll(ctx, p, 0o755)
		} else if err = f.MkdirAll(ctx, path.Dir(p), 0o755); err == nil {
			err = f.WriteFile(ctx, p, []byte(files[n]), 0o644)
		}
		if err != nil {
			t.Fatalf("fixture %s: %v", n, err)
		}
	}
	return f
}

// result is what one execution gave.
type result struct {
	stdout, stderr string
	value          string // JSON, "" if none
	exit           int
	err            error
}

// job describes an execution for runJS.
type job struct {
	src   string
	input string
	stdin string
	env   map[string]string
	cwd   string
}

// newBackend returns a Backend with opts, failing the test on error.
func newBackend(t testing.TB, opts Options) *Backend {
	t.Helper()
	b, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runJS runs j on b over fsys directly (without a run.Runtime), with ctx.
func runJS(ctx context.Context, b *Backend, fsys *vfs.FS, j job) result {
	var out, errb testenv.SyncBuffer
	cwd := j.cwd
	if cwd == "" {
		cwd = "/workspace"
	}
	env := j.env
	if env == nil {
		env = map[string]string{"HOME": "/workspace"}
	}
	rj := &run.Job{ID: "test", Backend: ID, Source: j.src, Cwd: cwd, Env: env,
		Stdin: strings.NewReader(j.stdin), Stdout: &out, Stderr: &errb, FS: fsys}
	if j.input != "" {
		rj.Input = json.RawMessage(j.input)
	}
	o, err := b.Run(vfs.WithActor(ctx, "test"), rj)
	if err == nil && o.ExitCode == 1 && strings.HasPrefix(errb.String(), "Uncaught ") {
		// An uncaught error exits 1 as in Node; tests match on the first
		// line of what was printed.
		first, _, _ := strings.Cut(errb.String(), "\n")
		prefix := "Uncaught "
		first = strings.TrimPrefix(first, prefix)
		if strings.HasPrefix(first, "(in promise) ") {
			prefix, first = prefix+"(in promise) ", strings.TrimPrefix(first, "(in promise) ")
		}
		err = uncaughtExit(prefix + strings.TrimPrefix(first, "["))
	}
	return result{stdout: out.String(), stderr: errb.String(), value: string(o.Value), exit: o.ExitCode, err: err}
}

// uncaughtExit is the error runJS reports for an execution that ended on
// an uncaught error (exit code 1, the error on stderr).
type uncaughtExit string

func (e uncaughtExit) Error() string { return string(e) }

// quick runs src on a fresh store with default options.
func quick(t testing.TB, src string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return runJS(ctx, sharedBackend(t), newStore(t, nil), job{src: src})
}

var (
	sharedOnce sync.Once
	shared     *Backend
)

func sharedBackend(t testing.TB) *Backend {
	sharedOnce.Do(func() { shared = newBackend(t, Options{}) })
	return shared
}
