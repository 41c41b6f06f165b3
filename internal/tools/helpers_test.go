package tools

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell"
	"github.com/desk-dev/desk/internal/vfs"
)

// env is a test workspace: a store, a runtime with the shell backend, a set.
type env struct {
	t   testing.TB
	ctx context.Context
	fs  *vfs.FS
	rt  *run.Runtime
	set *Set
}

func newEnv(t *testing.T, opts Options) *env { return newEnvTB(t, opts) }

// newEnvB is newEnv for benchmarks.
func newEnvB(b *testing.B) *env { return newEnvTB(b, Options{}) }

func newEnvTB(t testing.TB, opts Options) *env {
	t.Helper()
	return newRunEnv(t, opts, run.Options{}, nil)
}

// newRunEnv is newEnv with the runtime's options ro (its default backend
// and router are the shell's unless ro sets them) and the backends more
// beside the shell.
func newRunEnv(t testing.TB, opts Options, ro run.Options, more map[string]run.Backend) *env {
	t.Helper()
	ctx := context.Background()
	fsys, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sh := shell.New(shell.Options{})
	backends := map[string]run.Backend{"shell": sh}
	maps.Copy(backends, more)
	if ro.DefaultBackend == "" {
		ro.DefaultBackend = "shell"
	}
	if ro.Router == nil {
		ro.Router = sh.Route
	}
	rt, err := run.Open(ctx, fsys, backends, ro)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rt.Close()
		fsys.Close()
	})
	if err := fsys.MkdirAll(ctx, "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := New(NewState(fsys), rt, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: ctx, fs: fsys, rt: rt, set: s}
}

// put writes a file in the store directly.
func (e *env) put(p, data string) {
	e.t.Helper()
	if err := e.fs.MkdirAll(e.ctx, filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := e.fs.WriteFile(e.ctx, p, []byte(data), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) get(p string) string {
	e.t.Helper()
	b, err := e.fs.ReadFile(e.ctx, p)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// call calls a tool with input given as JSON text and returns its result or
// its error, which must be an *Error.
func (e *env) call(name, input string) (*Result, *Error) {
	e.t.Helper()
	res, err := e.set.Call(e.ctx, name, json.RawMessage(input), nil)
	if err != nil {
		var te *Error
		if !errors.As(err, &te) {
			e.t.Fatalf("%s %s: error %T %v is not a *tools.Error", name, input, err, err)
		}
		if te.Code == CodeInternal {
			e.t.Fatalf("%s %s: internal error: %v (cause %v)", name, input, te, te.Unwrap())
		}
		return nil, te
	}
	return res, nil
}

// ok calls a tool that must succeed and returns its text.
func (e *env) ok(name, input string) (string, *Result) {
	e.t.Helper()
	res, terr := e.call(name, input)
	if terr != nil {
		e.t.Fatalf("%s %s: %s: %s", name, input, terr.Code, terr.Message)
	}
	return res.Text(), res
}

// fails calls a tool that must fail with code and a message containing want.
func (e *env) fails(name, input, code string, want ...string) *Error {
	e.t.Helper()
	res, terr := e.call(name, input)
	if terr == nil {
		e.t.Fatalf("%s %s: succeeded (%q), want error %s", name, input, res.Text(), code)
	}
	if terr.Code != code {
		e.t.Fatalf("%s %s: code %s (%s), want %s", name, input, terr.Code, terr.Message, code)
	}
	for _, w := range want {
		if !strings.Contains(terr.Message, w) {
			e.t.Errorf("%s %s: message %q lacks %q", name, input, terr.Message, w)
		}
	}
	return terr
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
