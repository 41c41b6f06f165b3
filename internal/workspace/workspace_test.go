package workspace_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/workspace"
	"github.com/desk-dev/desk/internal/wspath"
)

var ctx = context.Background()

// closerFunc adapts a function to io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// dirNames lists the files of the workspaces directory, sorted.
func dirNames(t *testing.T, data string) []string {
	t.Helper()
	ents, err := os.ReadDir(workspace.Dir(data))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// create creates and opens the workspace name.
func create(t *testing.T, data, name string, opts workspace.Options) *workspace.Workspace {
	t.Helper()
	if err := workspace.Create(ctx, data, name); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(ctx, data, name, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestCreate_Open(t *testing.T) {
	data := t.TempDir()
	if err := workspace.Create(ctx, data, "ws-1"); err != nil {
		t.Fatal(err)
	}
	// Create only reserves the name: an empty file, initialised by Open.
	fi, err := os.Stat(filepath.Join(data, "workspaces", "ws-1.db"))
	if err != nil || fi.Size() != 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("after Create: %v, %v", fi, err)
	}
	ws, err := workspace.Open(ctx, data, "ws-1", workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Name() != "ws-1" || ws.File() != filepath.Join(data, "workspaces", "ws-1.db") {
		t.Fatalf("Name %q File %q", ws.Name(), ws.File())
	}
	if err := ws.FS().WriteFile(ctx, "/hello", []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := ws.Stats(ctx)
	if err != nil || st.Name != "ws-1" || st.Store.Files != 1 || st.File != ws.File() {
		t.Fatalf("Stats = %+v, %v", st, err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ws.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if fi, err := os.Stat(workspace.Dir(data)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("workspaces dir: %v %v", fi.Mode(), err)
	}
	ws, err = workspace.Open(ctx, data, "ws-1", workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if b, err := ws.FS().ReadFile(ctx, "/hello"); err != nil || string(b) != "hi" {
		t.Fatalf("after reopen: %q, %v", b, err)
	}
}

// TestOpen_WorkspaceDir: a new workspace has /workspace from its first
// Open (0755, 0:0, which the sandbox shows as root's, journalled as
// workspace.Actor's), one that lost it (made before the rule) gets it back on
// its next Open, a second Open changes nothing, a file in its place is left
// alone, and a read-only Open writes nothing.
func TestOpen_WorkspaceDir(t *testing.T) {
	data := t.TempDir()
	ws := create(t, data, "w", workspace.Options{})
	fi, err := ws.FS().Lstat(ctx, wspath.Dir)
	if err != nil {
		t.Fatalf("a new workspace has no %s: %v", wspath.Dir, err)
	}
	if a := fi.Attr(); !fi.IsDir() || a.Mode&0o7777 != 0o755 || a.Uid != 0 || a.Gid != 0 {
		t.Errorf("%s: mode %o, owner %d:%d; want a directory 0755 0:0", wspath.Dir, a.Mode, a.Uid, a.Gid)
	}
	tmp, err := ws.FS().Lstat(ctx, wspath.Tmp)
	if err != nil {
		t.Fatalf("a new workspace has no %s: %v", wspath.Tmp, err)
	}
	if a := tmp.Attr(); !tmp.IsDir() || a.Mode&0o7777 != 0o1777 || a.Uid != 0 || a.Gid != 0 {
		t.Errorf("%s: mode %o, owner %d:%d; want a directory 1777 0:0", wspath.Tmp, a.Mode, a.Uid, a.Gid)
	}
	chs, err := ws.FS().Changes(ctx, 0, 10)
	if err != nil || len(chs) != 2 || chs[0].Path != wspath.Dir || chs[1].Path != wspath.Tmp || chs[0].Actor != workspace.Actor || chs[1].Actor != workspace.Actor {
		t.Errorf("journal of a new workspace: %+v, %v; want the mkdirs of %s and %s by %q", chs, err, wspath.Dir, wspath.Tmp, workspace.Actor)
	}
	seq := ws.FS().Seq()
	if err := ws.FS().Remove(ctx, wspath.Dir); err != nil {
		t.Fatal(err)
	}
	ws.Close()

	// Read-only: nothing is made.
	ro, err := workspace.Open(ctx, data, "w", workspace.Options{VFS: vfs.Options{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.FS().Lstat(ctx, wspath.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a read-only Open made %s: %v", wspath.Dir, err)
	}
	ro.Close()

	ws, err = workspace.Open(ctx, data, "w", workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := ws.FS().Lstat(ctx, wspath.Dir); err != nil || !fi.IsDir() {
		t.Fatalf("reopened: %s is %v, %v", wspath.Dir, fi, err)
	}
	if ws.FS().Seq() <= seq+1 {
		t.Errorf("journal at %d after remove (%d+1) and remake: the remake is not journalled", ws.FS().Seq(), seq)
	}
	if err := ws.FS().Remove(ctx, wspath.Dir); err != nil {
		t.Fatal(err)
	}
	if err := ws.FS().WriteFile(ctx, wspath.Dir, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	seq = ws.FS().Seq()
	ws.Close()
	ws, err = workspace.Open(ctx, data, "w", workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if b, err := ws.FS().ReadFile(ctx, wspath.Dir); err != nil || string(b) != "mine" {
		t.Errorf("the file in %s's place: %q, %v", wspath.Dir, b, err)
	}
	if ws.FS().Seq() != seq {
		t.Errorf("an Open with %s present changed the store (journal %d -> %d)", wspath.Dir, seq, ws.FS().Seq())
	}
}

func TestCreate_Errors(t *testing.T) {
	data := t.TempDir()
	if err := workspace.Create(ctx, data, "taken"); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		ws   string
		want error
	}{
		{"exists", ctx, "taken", workspace.ErrExists},
		{"bad name", ctx, "../taken", workspace.ErrBadName},
		{"cancelled", canceled, "new", context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := workspace.Create(tc.ctx, data, tc.ws); !errors.Is(err, tc.want) {
				t.Fatalf("Create = %v, want %v", err, tc.want)
			}
		})
	}
	if got := dirNames(t, data); len(got) != 1 || got[0] != "taken.db" {
		t.Fatalf("files after failed creates: %q", got)
	}
}

// TestOpen_FirstOpenFails: a first Open that fails (bad store options, a
// failing Attach) leaves the workspace usable.
func TestOpen_FirstOpenFails(t *testing.T) {
	data := t.TempDir()
	for name, opts := range map[string]workspace.Options{
		"bad-store-options": {VFS: vfs.Options{ChunkSize: 5000}},
		"attach-fails": {Attach: func(context.Context, *workspace.Workspace) (io.Closer, error) {
			return nil, errors.New("no runtime")
		}},
	} {
		t.Run(name, func(t *testing.T) {
			if err := workspace.Create(ctx, data, name); err != nil {
				t.Fatal(err)
			}
			if ws, err := workspace.Open(ctx, data, name, opts); err == nil {
				ws.Close()
				t.Fatal("Open succeeded")
			}
			ws, err := workspace.Open(ctx, data, name, workspace.Options{})
			if err != nil {
				t.Fatalf("Open after a failed first Open: %v", err)
			}
			ws.Close()
		})
	}
}

func TestOpen_Errors(t *testing.T) {
	data := t.TempDir()
	if err := os.MkdirAll(workspace.Dir(data), 0o700); err != nil {
		t.Fatal(err)
	}
	ws := create(t, data, "held", workspace.Options{})
	defer ws.Close()
	if err := os.Symlink(ws.File(), filepath.Join(workspace.Dir(data), "link.db")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(workspace.Dir(data), "dir.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ws   string
		want error // nil: any error
	}{
		{"missing", "nope", workspace.ErrNotFound},
		{"bad name", "a/../held", workspace.ErrBadName},
		{"upper case", "Held", workspace.ErrBadName},
		{"locked", "held", vfs.ErrLocked},
		{"symlink", "link", nil},
		{"directory", "dir", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, err := workspace.Open(ctx, data, tc.ws, workspace.Options{})
			if err == nil {
				ws.Close()
				t.Fatal("Open succeeded")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Open = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(workspace.Dir(data), "nope.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open of a missing workspace created it: %v", err)
	}
}

func TestOpen_Attach(t *testing.T) {
	data := t.TempDir()
	create(t, data, "rt", workspace.Options{}).Close()
	var events []string
	opts := workspace.Options{Attach: func(ctx context.Context, ws *workspace.Workspace) (io.Closer, error) {
		events = append(events, "attach "+ws.Name())
		return closerFunc(func() error {
			// The store is still open while the runtime closes.
			err := ws.FS().WriteFile(ctx, "/runtime-closed", nil, 0o644)
			events = append(events, "close runtime: "+strconv.Quote(errString(err)))
			return errors.New("runtime trouble")
		}), nil
	}}
	ws, err := workspace.Open(ctx, data, "rt", opts)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Attached() == nil {
		t.Fatal("Attached() is nil after Attach")
	}
	err = ws.Close()
	if err == nil || !strings.Contains(err.Error(), "runtime trouble") || !strings.Contains(err.Error(), `close workspace "rt"`) {
		t.Fatalf("Close = %v, want the runtime's error", err)
	}
	want := []string{"attach rt", `close runtime: ""`}
	if len(events) != 2 || events[0] != want[0] || events[1] != want[1] {
		t.Fatalf("events %q, want %q", events, want)
	}
	// The store was closed despite the runtime's error, and the write landed.
	ws, err = workspace.Open(ctx, data, "rt", workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.FS().Stat(ctx, "/runtime-closed"); err != nil {
		t.Fatal(err)
	}
}

func TestOpen_AttachFails(t *testing.T) {
	data := t.TempDir()
	create(t, data, "rt", workspace.Options{}).Close()
	boom := errors.New("boom")
	_, err := workspace.Open(ctx, data, "rt", workspace.Options{Attach: func(context.Context, *workspace.Workspace) (io.Closer, error) {
		return nil, boom
	}})
	if !errors.Is(err, boom) {
		t.Fatalf("Open = %v, want boom", err)
	}
	// The store was closed again: it opens.
	ws, err := workspace.Open(ctx, data, "rt", workspace.Options{})
	if err != nil {
		t.Fatalf("store left locked after a failed attach: %v", err)
	}
	ws.Close()
}

func TestRemove(t *testing.T) {
	data := t.TempDir()
	ws := create(t, data, "gone", workspace.Options{})
	if err := ws.FS().WriteFile(ctx, "/f", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := workspace.Remove(data, "gone"); !errors.Is(err, workspace.ErrInUse) {
		t.Fatalf("Remove of an open workspace = %v, want ErrInUse", err)
	}
	ws.Close()
	keep := create(t, data, "gone2", workspace.Options{})
	defer keep.Close()
	// Side files as SQLite leaves them after a crash.
	for _, s := range []string{"-wal", "-shm", "-journal"} {
		if err := os.WriteFile(filepath.Join(workspace.Dir(data), "gone.db"+s), []byte("junk"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := workspace.Remove(data, "gone"); err != nil {
		t.Fatal(err)
	}
	for _, f := range dirNames(t, data) {
		if strings.HasPrefix(f, "gone.") {
			t.Errorf("left behind by Remove: %s", f)
		}
	}
	if err := workspace.Remove(data, "gone"); !errors.Is(err, workspace.ErrNotFound) {
		t.Fatalf("second Remove = %v, want ErrNotFound", err)
	}
	if err := workspace.Remove(data, "../gone2"); !errors.Is(err, workspace.ErrBadName) {
		t.Fatalf("Remove(../gone2) = %v, want ErrBadName", err)
	}
}

// TestCreate_StaleSideFiles: side files left by a Remove that crashed between
// deleting the database and its side files are removed by the next Create of
// that name, and the old WAL's content never shows in the new workspace.
func TestCreate_StaleSideFiles(t *testing.T) {
	data := t.TempDir()
	ws := create(t, data, "w", workspace.Options{})
	if err := ws.FS().WriteFile(ctx, "/old", []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Copy the live WAL (it holds /old) aside, close, remove, and put it back as
	// a crash would have left it.
	wal, err := os.ReadFile(ws.File() + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	if err := workspace.Remove(data, "w"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(workspace.Dir(data), "w.db-wal"), wal, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(workspace.Dir(data), "w.db-journal"), []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws = create(t, data, "w", workspace.Options{})
	defer ws.Close()
	if _, err := ws.FS().Stat(ctx, "/old"); vfs.Errno(err) == 0 {
		t.Fatalf("new workspace sees the old one's file: %v", err)
	}
	if rep, err := ws.FS().Check(ctx); err != nil || len(rep.Problems) != 0 {
		t.Fatalf("Check: %+v %v", rep, err)
	}
	if _, err := os.Lstat(ws.File() + "-journal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale -journal survived Create: %v", err)
	}
}

// TestClose_ReleasesEverything: a closed workspace holds no goroutine and no
// file descriptor, runtime included.
func TestClose_ReleasesEverything(t *testing.T) {
	data := t.TempDir()
	countFDs := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatalf("count descriptors: %v", err)
		}
		return len(ents)
	}
	// A runtime with a goroutine, which its Close stops.
	opts := workspace.Options{Attach: func(context.Context, *workspace.Workspace) (io.Closer, error) {
		stop, done := make(chan struct{}), make(chan struct{})
		go func() { <-stop; close(done) }()
		return closerFunc(func() error { close(stop); <-done; return nil }), nil
	}}
	create(t, data, "warm", opts).Close()
	g0, fd0 := runtime.NumGoroutine(), countFDs()
	for i := range 10 {
		ws := create(t, data, "ws"+strconv.Itoa(i), opts)
		if err := ws.FS().WriteFile(ctx, "/f", make([]byte, 100<<10), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ws.FS().ReadDir(ctx, "/"); err != nil {
			t.Fatal(err)
		}
		if err := ws.Close(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > g0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g, fd := runtime.NumGoroutine(), countFDs(); g > g0 || fd > fd0 {
		t.Fatalf("after 10 create/close cycles: goroutines %d -> %d, fds %d -> %d", g0, g, fd0, fd)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// writeBackend is a test backend: its source is a path, which it writes.
type writeBackend struct{}

func (writeBackend) Run(ctx context.Context, job *run.Job) (run.Outcome, error) {
	if err := job.FS.WriteFile(ctx, job.Source, []byte("hi"), 0o644); err != nil {
		return run.Outcome{}, err
	}
	io.WriteString(job.Stdout, "wrote "+job.Source+"\n")
	return run.Outcome{ExitCode: 0}, nil
}

// TestWorkspace_Runtime: every workspace has a runtime routing to the
// configured backends; its records outlive a close and reopen.
func TestWorkspace_Runtime(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	opts := workspace.Options{Backends: map[string]run.Backend{"write": writeBackend{}}}
	ws := create(t, data, "rt", opts)
	ex, err := ws.Runtime().Exec(ctx, "/out.txt", run.ExecOptions{Backend: "write", Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != run.StatusCompleted || !strings.Contains(res.Stdout, "wrote /out.txt") {
		t.Fatalf("result: %+v", res)
	}
	if len(res.Changes.Created) != 1 || res.Changes.Created[0] != "/out.txt" {
		t.Fatalf("changes: %+v", res.Changes)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	ws, err = workspace.Open(ctx, data, "rt", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	got, err := ws.Runtime().Get(ctx, ex.ID())
	if err != nil || got.Status != run.StatusCompleted {
		t.Fatalf("after reopen: %+v %v", got, err)
	}
}
