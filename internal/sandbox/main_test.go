package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox/initproc"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestMain lets the test binary be the sandbox's init: the backend runs it
// bound at /.desk/init with the argument "sandbox-init", exactly as it runs
// the desk binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == InitCommand {
		os.Exit(initproc.Main(os.Args[2:], os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == denyProbeCommand {
		denyProbe(os.Stdout)
		os.Exit(0)
	}
	if len(os.Args) > 3 && os.Args[1] == "sandbox-test-server" && os.Args[3] == "fuse" {
		testFUSEServer(os.Args[2])
	}
	if len(os.Args) > 2 && os.Args[1] == "sandbox-test-server" {
		testServer(os.Args[2])
	}
	os.Exit(m.Run())
}

// requireSandbox needs the host to run sandboxes (and, with fuse, on their
// FUSE mount): without it the test is skipped, or failed under
// DESK_REQUIRE_SANDBOX=1 (CI).
func requireSandbox(t testing.TB, fuse bool) {
	t.Helper()
	err := Available("")
	if err == nil && fuse {
		err = MountAvailable()
	}
	testenv.Need(t, testenv.Sandbox, err)
}

// env is a workspace store, a sandbox backend over a host directory standing
// in for the workspace mount (newEnv) or over its real FUSE mount
// (newFUSEEnv), and a run.Runtime with the backend.
type env struct {
	t     testing.TB
	dir   string // the test's directory (state, runtime root, workspace)
	wsDir string // bound at /workspace
	fs    *vfs.FS
	b     *Backend
	r     *run.Runtime
}

func newEnv(t testing.TB, opts Options) *env {
	t.Helper()
	return newEnvMount(t, opts, false)
}

// newFUSEEnv is newEnv with the backend's own workspace mount: the store
// served by fusefs, its /workspace bound at /workspace.
func newFUSEEnv(t testing.TB, opts Options) *env {
	t.Helper()
	return newEnvMount(t, opts, true)
}

func newEnvMount(t testing.TB, opts Options, fuse bool) *env {
	t.Helper()
	requireSandbox(t, fuse)
	// The sandbox's root (an unprivileged uid on the host) must reach the
	// bundle and the workspace directory.
	dir := testenv.TraversableDir(t)
	e := &env{t: t, dir: dir, wsDir: filepath.Join(dir, "ws")}
	if opts.HostID == 0 {
		opts.HostID = DefaultHostID
	}
	if err := os.Mkdir(e.wsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(e.wsDir, int(opts.HostID), int(opts.HostID)); err != nil {
		t.Fatal(err)
	}
	if opts.Mount == nil && !fuse {
		opts.Mount = func(ctx context.Context, ws Workspace) (Mount, error) { return Mount{Dir: e.wsDir}, nil }
	}
	if opts.InitPath == "" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		opts.InitPath = exe
	}
	opts.StateDir = filepath.Join(dir, "state")
	opts.RuntimeRoot = filepath.Join(dir, "runc")
	opts.CgroupParent = "desk-sandbox-test"
	var err error
	e.b, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.b.Close() })
	e.fs, err = vfs.Open(context.Background(), filepath.Join(dir, "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.fs.Close() })
	e.r, err = run.Open(context.Background(), e.fs, map[string]run.Backend{ID: e.b}, run.Options{DefaultBackend: ID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.r.Close() })
	return e
}

// ctx bounds one step of a test: a hang guard, generous because the
// package's tests run in parallel under the race detector on a shared
// machine (a find over the host's /usr in TestFUSE_NoEscape passed 30 s
// there next to the big-repository test).
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// run runs src and waits for its result.
func (e *env) run(src string, o run.ExecOptions) *run.Result {
	e.t.Helper()
	x, err := e.r.Exec(ctx(e.t), src, o)
	if err != nil {
		e.t.Fatalf("Exec(%q): %v", src, err)
	}
	res, err := x.Wait(ctx(e.t))
	if err != nil {
		e.t.Fatalf("Wait(%q): %v", src, err)
	}
	return res
}

// ok runs src, expects exit 0 and returns its stdout.
func (e *env) ok(src string) string {
	e.t.Helper()
	res := e.run(src, run.ExecOptions{})
	if res.Status != run.StatusCompleted || res.ExitCode != 0 {
		e.t.Fatalf("%q: status %s, exit %d, error %q\nstdout: %s\nstderr: %s", src, res.Status, res.ExitCode, res.Error, res.Stdout, res.Stderr)
	}
	return res.Stdout
}

// fail runs src and expects a completed execution with a non-zero exit.
func (e *env) fail(src string, o run.ExecOptions) *run.Result {
	e.t.Helper()
	res := e.run(src, o)
	if res.Status != run.StatusCompleted || res.ExitCode == 0 {
		e.t.Fatalf("%q: status %s, exit %d, want a failure\nstdout: %s\nstderr: %s", src, res.Status, res.ExitCode, res.Stdout, res.Stderr)
	}
	return res
}

// box returns the workspace's live sandbox (nil if none).
func (e *env) box() *box {
	e.b.mu.Lock()
	defer e.b.mu.Unlock()
	return e.b.boxes["ws"]
}

// idleChecks makes e's backend report its idle checks of workspace ws
// (whether each stopped the sandbox) on the channel returned. Call it before
// the first execution.
func (e *env) idleChecks(ws string) <-chan bool {
	ch := make(chan bool, 100)
	e.b.idleChecked = func(name string, stopped bool) {
		if name == ws {
			select {
			case ch <- stopped:
			default: // nobody is waiting for so many
			}
		}
	}
	return ch
}

// waitIdleCheck waits for the next idle check on ch and returns whether it
// stopped the sandbox; the step's hang guard (ctx) fails the test.
func waitIdleCheck(t testing.TB, ch <-chan bool) bool {
	t.Helper()
	select {
	case stopped := <-ch:
		return stopped
	case <-ctx(t).Done():
		t.Fatal("no idle check of the sandbox within the hang guard")
		return false
	}
}

// waitFor polls cond for up to d. Use it only where no event exists to wait
// on: the processes in /proc, a container in runc's state, the init's record
// of a detached execution (asked over the wire). d is a hang guard.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("waited %v for %s", d, what)
		}
	}
}
