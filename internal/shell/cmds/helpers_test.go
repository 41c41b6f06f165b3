package cmds

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// harnessEnv is the environment the harness gives commands: HOME, USER and
// the shell backend's default locale, LANG=C.UTF-8 (so quote() prints ‘x’).
// The text tools' confirm runner runs the real tools with the same locale.
var harnessEnv = map[string]string{"HOME": "/work", "USER": "user", "LANG": "C.UTF-8"}

// cLocale is the extra environment of tests confirmed in the C locale, as
// the file tools' are (their confirm runner sets LC_ALL=C): quote() prints
// 'x', and non-ASCII bytes are escaped.
var cLocale = map[string]string{"LC_ALL": "C"}

// harnessVars is harnessEnv with extra set over it, and the same as a
// sorted NAME=value list.
func harnessVars(extra map[string]string) (map[string]string, []string) {
	vars := make(map[string]string, len(harnessEnv)+len(extra))
	for k, v := range harnessEnv {
		vars[k] = v
	}
	for k, v := range extra {
		vars[k] = v
	}
	list := make([]string, 0, len(vars))
	for k, v := range vars {
		list = append(list, k+"="+v)
	}
	sort.Strings(list)
	return vars, list
}

// run is the shared test harness: it runs one command (args[0] is its name)
// on a fresh store holding files, with stdin, in dir "/work" (created), and
// returns stdout, stderr and the exit status. Keys of files ending in "/" are
// directories; values starting with "->" make symlinks. The command gets
// harnessEnv.
func run(t *testing.T, files map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return runEnv(t, nil, files, stdin, args...)
}

// runEnv is run with extra variables set over harnessEnv (cLocale for the
// C locale).
func runEnv(t *testing.T, extra map[string]string, files map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	f := newStore(t, files)
	return runInEnv(t, f, "/work", extra, stdin, args...)
}

// runIn runs a command on an existing store in dir.
func runIn(t *testing.T, f *vfs.FS, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return runInEnv(t, f, dir, nil, stdin, args...)
}

// runInEnv is runIn with extra variables set over harnessEnv.
func runInEnv(t *testing.T, f *vfs.FS, dir string, extra map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	fn, ok := Lookup(args[0])
	if !ok {
		t.Fatalf("command %q is not registered", args[0])
	}
	vars, list := harnessVars(extra)
	var out, errb bytes.Buffer
	env := &Env{
		Ctx: context.Background(), FS: f, Dir: dir,
		Stdin: strings.NewReader(stdin), NoStdin: stdin == "", Stdout: &out, Stderr: &errb,
		Getenv:  func(name string) string { return vars[name] },
		Environ: func() []string { return list },
		Limits:  Limits{MaxReadBytes: 64 << 20},
	}
	env.Exec = func(ctx context.Context, e *Env, a []string) int {
		fn, ok := Lookup(a[0])
		if !ok {
			return NotFound
		}
		return fn(e, a)
	}
	status := fn(env, args)
	return out.String(), errb.String(), status
}

// newStore makes a store with /work and the given files (paths relative to
// /work unless absolute).
func newStore(t *testing.T, files map[string]string) *vfs.FS {
	t.Helper()
	ctx := context.Background()
	f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := f.MkdirAll(ctx, "/work", 0o755); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := n
		if !strings.HasPrefix(p, "/") {
			p = "/work/" + p
		}
		v := files[n]
		var err error
		switch {
		case strings.HasSuffix(p, "/"):
			err = f.MkdirAll(ctx, p, 0o755)
		case strings.HasPrefix(v, "->"):
			if err = f.MkdirAll(ctx, filepath.Dir(p), 0o755); err == nil {
				err = f.Symlink(ctx, strings.TrimPrefix(v, "->"), p)
			}
		default:
			if err = f.MkdirAll(ctx, filepath.Dir(p), 0o755); err == nil {
				err = f.WriteFile(ctx, p, []byte(v), fs.FileMode(0o644))
			}
		}
		if err != nil {
			t.Fatalf("fixture %s: %v", n, err)
		}
	}
	return f
}

// readFile reads a workspace file in a test.
func readFile(t *testing.T, f *vfs.FS, p string) string {
	t.Helper()
	b, err := f.ReadFile(context.Background(), p)
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	return string(b)
}

// checkStopsOnCancel runs cmd with args (no files, empty stdin) under a
// context that ends shortly after it starts: the command must stop, with a
// status other than 0.
func checkStopsOnCancel(t *testing.T, cmd Func, args ...string) {
	t.Helper()
	f := newStore(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var out, errb bytesBuffer
	env := &Env{Ctx: ctx, FS: f, Dir: "/work", Stdin: stringsReader(""), Stdout: &out, Stderr: &errb,
		Environ: func() []string { return nil }}
	done := make(chan int, 1)
	go func() { done <- cmd(env, args) }()
	select {
	case code := <-done:
		if code == 0 {
			t.Fatalf("cancelled %s exited 0", args[0])
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not stop on cancellation", args[0])
	}
}
