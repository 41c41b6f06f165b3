package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/tools"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/workspace"
)

func TestOpen(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		t.Chdir(t.TempDir())
		h, err := host.Open(ctx, host.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		wd, _ := os.Getwd()
		st := h.Stats()
		if h.DataDir() != filepath.Join(wd, "desk-data") || st.DataDir != h.DataDir() ||
			st.MaxOpen != host.DefaultMaxOpen || st.IdleTimeout != host.DefaultIdleTimeout {
			t.Fatalf("DataDir %q, stats %+v", h.DataDir(), st)
		}
		for _, p := range []string{"desk-data", "desk-data/workspaces"} {
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: %v %v", p, fi, err)
			}
		}
		b, err := os.ReadFile("desk-data/" + host.LockFile)
		if err != nil || strings.TrimSpace(string(b)) != fmt.Sprint(os.Getpid()) {
			t.Errorf("lock file: %q, %v", b, err)
		}
	})
	t.Run("locked", func(t *testing.T) {
		dir := t.TempDir()
		h := openHost(t, host.Options{DataDir: dir})
		if _, err := host.Open(ctx, host.Options{DataDir: dir}); !errors.Is(err, host.ErrLocked) {
			t.Fatalf("second Open = %v, want ErrLocked", err)
		}
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		h2, err := host.Open(ctx, host.Options{DataDir: dir})
		if err != nil {
			t.Fatalf("Open after Close: %v", err)
		}
		h2.Close()
	})
	t.Run("bad options", func(t *testing.T) {
		if _, err := host.Open(ctx, host.Options{DataDir: t.TempDir(), MaxOpen: -1}); err == nil {
			t.Fatal("MaxOpen -1 accepted")
		}
		file := filepath.Join(t.TempDir(), "file")
		os.WriteFile(file, nil, 0o600)
		if _, err := host.Open(ctx, host.Options{DataDir: file}); err == nil {
			t.Fatal("a file as data directory accepted")
		}
	})
}

func TestHost_CreateAcquire(t *testing.T) {
	tr := newTracker()
	h := openHost(t, host.Options{Clock: &fakeClock{}, Workspace: workspace.Options{Attach: tr.attach}})
	info, err := h.Create(ctx, "alpha", host.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "alpha" || info.Open || info.Bytes != 0 {
		t.Fatalf("Create = %+v", info)
	}
	if _, err := os.Stat(filepath.Join(h.DataDir(), "workspaces", "alpha.db")); err != nil {
		t.Fatalf("the workspace file is not where workspace.File says: %v", err)
	}
	if _, err := h.Create(ctx, "alpha", host.CreateOptions{}); !errors.Is(err, host.ErrExists) {
		t.Fatalf("second Create = %v, want ErrExists", err)
	}
	l := mustAcquire(t, h, "alpha")
	if l.Name() != "alpha" || l.Workspace().Name() != "alpha" || l.Workspace().Runtime() == nil {
		t.Fatalf("lease: %q %q", l.Name(), l.Workspace().Name())
	}
	if err := l.Workspace().FS().WriteFile(ctx, "/f", []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	l2 := mustAcquire(t, h, "alpha")
	if l2.Workspace() != l.Workspace() {
		t.Fatal("two leases on one workspace see different Workspaces")
	}
	if info, _ := h.Info(ctx, "alpha"); !info.Open || info.Leases != 2 || info.Bytes == 0 {
		t.Fatalf("Info while leased: %+v", info)
	}
	if st := h.Stats(); st.Open != 1 || st.InUse != 1 || st.Leases != 2 || st.Opened != 1 || st.Created != 1 {
		t.Fatalf("Stats: %+v", st)
	}
	if _, err := h.Create(ctx, "alpha", host.CreateOptions{}); !errors.Is(err, host.ErrExists) {
		t.Fatalf("Create of an open workspace = %v, want ErrExists", err)
	}
	l.Release()
	l.Release() // a second Release must not drop l2's reference
	if info, _ := h.Info(ctx, "alpha"); !info.Open || info.Leases != 1 {
		t.Fatalf("Info after one release: %+v", info)
	}
	l2.Release()
	if info, _ := h.Info(ctx, "alpha"); !info.Open || info.Leases != 0 {
		t.Fatalf("Info when idle: %+v", info)
	}
	if tr.count("alpha") != 1 {
		t.Fatalf("opened %d times, want 1", tr.count("alpha"))
	}
	err = h.Do(ctx, "alpha", func(ws *workspace.Workspace) error {
		b, err := ws.FS().ReadFile(ctx, "/f")
		if string(b) != "data" {
			return fmt.Errorf("read %q, %v", b, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := h.Stats(); st.Leases != 0 {
		t.Fatalf("Do kept a lease: %+v", st)
	}

	if _, err := h.Acquire(ctx, "missing"); !errors.Is(err, host.ErrNotFound) {
		t.Fatalf("Acquire(missing) = %v, want ErrNotFound", err)
	}
	if st := h.Stats(); st.Open != 1 {
		t.Fatalf("a failed Acquire left a slot taken: %+v", st)
	}
}

// TestHost_BadNames: every method that takes a name rejects bad ones with
// ErrBadName and touches nothing.
func TestHost_BadNames(t *testing.T) {
	h := openHost(t, host.Options{})
	mustCreate(t, h, "ok")
	ops := map[string]func(name string) error{
		"Create":  func(n string) error { _, err := h.Create(ctx, n, host.CreateOptions{}); return err },
		"Acquire": func(n string) error { _, err := h.Acquire(ctx, n); return err },
		"Delete":  func(n string) error { return h.Delete(ctx, n) },
		"Info":    func(n string) error { _, err := h.Info(ctx, n); return err },
		"Do":      func(n string) error { return h.Do(ctx, n, func(*workspace.Workspace) error { return nil }) },
	}
	for _, name := range []string{"", "..", "../ok", "ok/../ok", "/etc/passwd", "OK", "a b", ".ok", "ok\x00", "con", strings.Repeat("x", 64)} {
		for op, fn := range ops {
			t.Run(op+"/"+name, func(t *testing.T) {
				err := fn(name)
				if !errors.Is(err, host.ErrBadName) || !strings.Contains(err.Error(), workspace.NameRule) {
					t.Fatalf("%s(%q) = %v, want ErrBadName naming the rule", op, name, err)
				}
			})
		}
	}
	ents, _ := os.ReadDir(filepath.Join(h.DataDir(), "workspaces"))
	if len(ents) != 1 {
		t.Fatalf("workspaces dir holds %d entries, want 1 (ok.db)", len(ents))
	}
}

func TestHost_CreateOptions(t *testing.T) {
	h := openHost(t, host.Options{})
	info, err := h.Create(ctx, "big-chunks", host.CreateOptions{ChunkSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if info.Bytes == 0 || info.Open {
		t.Fatalf("with options the store is written at once and closed: %+v", info)
	}
	l := mustAcquire(t, h, "big-chunks")
	defer l.Release()
	if got := l.Workspace().FS().ChunkSize(); got != 256<<10 {
		t.Fatalf("chunk size %d, want %d", got, 256<<10)
	}
	if _, err := h.Create(ctx, "bad-chunks", host.CreateOptions{ChunkSize: 5000}); err == nil {
		t.Fatal("bad chunk size accepted")
	}
	if _, err := h.Info(ctx, "bad-chunks"); !errors.Is(err, host.ErrNotFound) {
		t.Fatalf("a failed Create left the workspace behind: %v", err)
	}
}

func TestHost_Hibernate(t *testing.T) {
	t.Run("timers stop", func(t *testing.T) { testHibernate(t, &fakeClock{}) })
	// A timer can fire while the workspace is being acquired again, too late
	// to be stopped: it must find out and do nothing.
	t.Run("timers fire anyway", func(t *testing.T) { testHibernate(t, &fakeClock{ignoreStop: true}) })
}

func testHibernate(t *testing.T, clock *fakeClock) {
	tr := newTracker()
	const idle = time.Minute
	h := openHost(t, host.Options{Clock: clock, IdleTimeout: idle, Workspace: workspace.Options{Attach: tr.attach}})
	mustCreate(t, h, "w")
	open := func() bool { info, _ := h.Info(ctx, "w"); return info.Open }

	l := mustAcquire(t, h, "w")
	if err := l.Workspace().FS().WriteFile(ctx, "/kept", []byte("yes"), 0o644); err != nil {
		t.Fatal(err)
	}
	clock.Advance(10 * idle)
	if !open() {
		t.Fatal("a leased workspace was hibernated")
	}
	l.Release()
	clock.Advance(idle - time.Nanosecond)
	if !open() {
		t.Fatal("hibernated before the idle timeout")
	}
	clock.Advance(time.Nanosecond)
	if open() {
		t.Fatal("not hibernated after the idle timeout")
	}
	if st := h.Stats(); st.Open != 0 || st.Hibernated != 1 || tr.live.Load() != 0 {
		t.Fatalf("after hibernation: %+v, runtimes live %d", st, tr.live.Load())
	}

	// Reopened transparently, data intact.
	l = mustAcquire(t, h, "w")
	if b, err := l.Workspace().FS().ReadFile(ctx, "/kept"); err != nil || string(b) != "yes" {
		t.Fatalf("after reopening: %q, %v", b, err)
	}
	if tr.count("w") != 2 {
		t.Fatalf("opened %d times, want 2", tr.count("w"))
	}

	// Use restarts the idle period: the timer of an earlier idle spell must not
	// close the workspace.
	l.Release()
	clock.Advance(idle / 2)
	l = mustAcquire(t, h, "w")
	l.Release()
	clock.Advance(idle / 2) // the first spell's deadline
	if !open() {
		t.Fatal("hibernated by a stale timer")
	}
	clock.Advance(idle / 2)
	if open() {
		t.Fatal("not hibernated a full idle period after the last release")
	}
	if n := clock.pending(); n != 0 && !clock.ignoreStop {
		t.Fatalf("%d timers left", n)
	}
}

func TestHost_HibernateDisabled(t *testing.T) {
	clock := &fakeClock{}
	h := openHost(t, host.Options{Clock: clock, IdleTimeout: -1})
	mustCreate(t, h, "a", "b")
	mustAcquire(t, h, "a").Release()
	mustAcquire(t, h, "b").Release()
	if clock.pending() != 0 {
		t.Fatal("timers set with IdleTimeout < 0")
	}
	if st := h.Stats(); st.Open != 2 {
		t.Fatalf("Stats %+v", st)
	}
	if n := h.HibernateIdle(); n != 2 {
		t.Fatalf("HibernateIdle = %d, want 2", n)
	}
	if st := h.Stats(); st.Open != 0 || st.Hibernated != 2 {
		t.Fatalf("Stats %+v", st)
	}
}

// TestHost_HibernationReleasesEverything: with the real clock and a tiny idle
// period, hibernated workspaces hold no goroutine and no file descriptor.
func TestHost_HibernationReleasesEverything(t *testing.T) {
	tr := newTracker()
	hibernated := make(chan string, 64)
	h := openHost(t, host.Options{IdleTimeout: 5 * time.Millisecond, Workspace: workspace.Options{Attach: tr.attach},
		OnHibernate: func(name string) { hibernated <- name }})
	names := []string{"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "warm"}
	mustCreate(t, h, names...)
	// Warm up package-level state (the SQLite module, pools) before counting.
	mustAcquire(t, h, "warm").Release()
	// waitClosed waits for n hibernations (each workspace used since the
	// last call is hibernated once), then checks none is open.
	waitClosed := func(n int) {
		guard := time.After(30 * time.Second) // hang guard
		for range n {
			select {
			case <-hibernated:
			case <-guard:
				t.Fatalf("hibernations did not come within the hang guard: %+v", h.Stats())
			}
		}
		if st := h.Stats(); st.Open != 0 {
			t.Fatalf("still open after every hibernation: %+v", st)
		}
	}
	waitClosed(1)
	g0, fd0 := baseline(), countFDs(t)
	for round := range 3 {
		for _, n := range names[:8] {
			l := mustAcquire(t, h, n)
			if err := l.Workspace().FS().WriteFile(ctx, fmt.Sprintf("/r%d", round), make([]byte, 70<<10), 0o644); err != nil {
				t.Fatal(err)
			}
			l.Release()
		}
		waitClosed(len(names[:8]))
	}
	if tr.live.Load() != 0 {
		t.Fatalf("%d runtimes still open", tr.live.Load())
	}
	g, fd := settle(g0), countFDs(t)
	if g > g0 || fd > fd0 {
		t.Fatalf("after hibernating: goroutines %d -> %d, fds %d -> %d", g0, g, fd0, fd)
	}
	if st := h.Stats(); st.Hibernated < 24 {
		t.Fatalf("Stats %+v: want at least 24 hibernations", st)
	}
}

func TestHost_MaxOpen(t *testing.T) {
	tr := newTracker()
	h := openHost(t, host.Options{MaxOpen: 2, Clock: &fakeClock{}, Workspace: workspace.Options{Attach: tr.attach}})
	mustCreate(t, h, "a", "b", "c")
	la, lb := mustAcquire(t, h, "a"), mustAcquire(t, h, "b")
	_, err := h.Acquire(ctx, "c")
	if !errors.Is(err, host.ErrTooManyOpen) || !strings.Contains(err.Error(), "MaxOpen 2") {
		t.Fatalf("Acquire past MaxOpen with all in use = %v, want ErrTooManyOpen", err)
	}
	if _, err := h.Create(ctx, "d", host.CreateOptions{ChunkSize: 128 << 10}); !errors.Is(err, host.ErrTooManyOpen) {
		t.Fatalf("initialising Create past MaxOpen = %v, want ErrTooManyOpen", err)
	}
	if _, err := h.Create(ctx, "e", host.CreateOptions{}); err != nil {
		t.Fatalf("a plain Create opens nothing, so MaxOpen does not apply: %v", err)
	}
	la.Release() // a is idle, so it can be evicted
	lc := mustAcquire(t, h, "c")
	defer lc.Release()
	if st := h.Stats(); st.Open != 2 || st.Evicted != 1 {
		t.Fatalf("Stats %+v", st)
	}
	if info, _ := h.Info(ctx, "a"); info.Open {
		t.Fatal("a was not evicted")
	}
	if info, _ := h.Info(ctx, "b"); !info.Open {
		t.Fatal("b (in use) was closed")
	}
	lb.Release()
	if m := tr.maxLive.Load(); m > 2 {
		t.Fatalf("%d runtimes were open at once, MaxOpen 2", m)
	}
}

func TestHost_LRU(t *testing.T) {
	h := openHost(t, host.Options{MaxOpen: 3, IdleTimeout: -1})
	mustCreate(t, h, "a", "b", "c", "d")
	for _, n := range []string{"a", "b", "c", "a"} { // b is now least recently used
		mustAcquire(t, h, n).Release()
	}
	mustAcquire(t, h, "d").Release()
	var open []string
	for _, n := range []string{"a", "b", "c", "d"} {
		if info, _ := h.Info(ctx, n); info.Open {
			open = append(open, n)
		}
	}
	if !slices.Equal(open, []string{"a", "c", "d"}) {
		t.Fatalf("open after eviction: %q, want a c d (b was least recently used)", open)
	}
}

func TestHost_Delete(t *testing.T) {
	h := openHost(t, host.Options{Clock: &fakeClock{}})
	mustCreate(t, h, "busy", "idle", "cold", "keep")
	lb := mustAcquire(t, h, "busy")
	li := mustAcquire(t, h, "idle")
	if err := li.Workspace().FS().WriteFile(ctx, "/f", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	li.Release()
	wsDir := filepath.Join(h.DataDir(), "workspaces")
	tests := []struct {
		name string
		want error
	}{
		{"busy", host.ErrInUse},
		{"idle", nil},
		{"cold", nil},
		{"missing", host.ErrNotFound},
		{"idle", host.ErrNotFound}, // already deleted
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := h.Delete(ctx, tc.name)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Delete(%s) = %v, want %v", tc.name, err, tc.want)
			}
			if err != nil {
				return
			}
			matches, _ := filepath.Glob(filepath.Join(wsDir, tc.name+".db*"))
			if len(matches) != 0 {
				t.Fatalf("left behind: %q", matches)
			}
			if _, err := h.Acquire(ctx, tc.name); !errors.Is(err, host.ErrNotFound) {
				t.Fatalf("Acquire after Delete = %v, want ErrNotFound", err)
			}
		})
	}
	if err := lb.Workspace().FS().WriteFile(ctx, "/still", nil, 0o644); err != nil {
		t.Fatalf("a refused Delete disturbed the lease: %v", err)
	}
	lb.Release()
	if err := h.Delete(ctx, "busy"); err != nil {
		t.Fatalf("Delete after release: %v", err)
	}
	// The name can be used again, for a fresh workspace.
	mustCreate(t, h, "idle")
	l := mustAcquire(t, h, "idle")
	defer l.Release()
	if _, err := l.Workspace().FS().Stat(ctx, "/f"); vfs.Errno(err) == 0 {
		t.Fatalf("recreated workspace has the old content: %v", err)
	}
	if st := h.Stats(); st.Deleted != 3 {
		t.Fatalf("Stats %+v", st)
	}
}

// TestHost_DeleteOpenElsewhere: a store opened directly (as `desk fs` does)
// cannot be deleted or acquired under it.
func TestHost_DeleteOpenElsewhere(t *testing.T) {
	h := openHost(t, host.Options{})
	mustCreate(t, h, "x")
	path, _ := workspace.File(h.DataDir(), "x")
	f, err := vfs.Open(ctx, path, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Delete(ctx, "x"); !errors.Is(err, host.ErrInUse) {
		t.Fatalf("Delete = %v, want ErrInUse", err)
	}
	if _, err := h.Acquire(ctx, "x"); !errors.Is(err, vfs.ErrLocked) {
		t.Fatalf("Acquire = %v, want vfs.ErrLocked", err)
	}
	f.Close()
	mustAcquire(t, h, "x").Release()
}

func TestHost_List(t *testing.T) {
	tr := newTracker()
	h := openHost(t, host.Options{Workspace: workspace.Options{Attach: tr.attach}})
	names := []string{"m", "a", "z9", "b.1", "b-1", "b_1", "0", "aa"}
	mustCreate(t, h, names...)
	l := mustAcquire(t, h, "aa")
	defer l.Release()
	// Things in the directory that are not workspaces.
	dir := filepath.Join(h.DataDir(), "workspaces")
	for _, junk := range []string{"m.db-wal", "Upper.db", ".tmp.db", "notes.txt", "con.db"} {
		os.WriteFile(filepath.Join(dir, junk), nil, 0o600)
	}
	os.Mkdir(filepath.Join(dir, "adir.db"), 0o700)
	os.Symlink("m.db", filepath.Join(dir, "alink.db"))

	want := slices.Clone(names)
	slices.Sort(want)
	tests := []struct {
		after string
		limit int
		want  []string
	}{
		{"", 0, want},
		{"", 3, want[:3]},
		{want[2], 3, want[3:6]},
		{want[5], 3, want[6:]},
		{"z9", 3, nil},
		{"b", 2, []string{"b-1", "b.1"}},
		{"../", 1, want[:1]}, // a cursor is only compared, never a path
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("after=%q,limit=%d", tc.after, tc.limit), func(t *testing.T) {
			infos, err := h.List(ctx, tc.after, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range infos {
				got = append(got, in.Name)
				if in.Open != (in.Name == "aa") {
					t.Errorf("%s: Open %v", in.Name, in.Open)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("List = %q, want %q", got, tc.want)
			}
		})
	}
	if st := h.Stats(); st.Open != 1 || st.Opened != 1 {
		t.Fatalf("List opened workspaces: %+v", st)
	}
}

func TestHost_Close(t *testing.T) {
	tr := newTracker()
	dir := t.TempDir()
	mk := func() *host.Host {
		h, err := host.Open(ctx, host.Options{DataDir: dir, Workspace: workspace.Options{Attach: tr.attach}})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := mk()
	mustCreate(t, h, "warm", "leased", "idle", "cold")
	mustAcquire(t, h, "warm").Release()
	h.HibernateIdle()
	g0, fd0 := baseline(), countFDs(t)
	leased := mustAcquire(t, h, "leased")
	if err := leased.Workspace().FS().WriteFile(ctx, "/f", []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustAcquire(t, h, "idle").Release()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	leased.Release() // after Close: harmless
	if tr.live.Load() != 0 {
		t.Fatalf("%d runtimes open after Close", tr.live.Load())
	}
	for name, err := range map[string]error{
		"Acquire": func() error { _, err := h.Acquire(ctx, "idle"); return err }(),
		"Create":  func() error { _, err := h.Create(ctx, "new", host.CreateOptions{}); return err }(),
		"Delete":  h.Delete(ctx, "cold"),
	} {
		if !errors.Is(err, host.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
	if g, fd := settle(g0), countFDs(t); g > g0 || fd >= fd0 {
		// fd0 counted the lock file too, which Close releases.
		t.Fatalf("after Close: goroutines %d -> %d, fds %d -> %d (want fewer: the lock is released)", g0, g, fd0, fd)
	}
	h = mk() // the data directory is free again; nothing was lost
	defer h.Close()
	l := mustAcquire(t, h, "leased")
	defer l.Release()
	if b, err := l.Workspace().FS().ReadFile(ctx, "/f"); err != nil || string(b) != "kept" {
		t.Fatalf("after reopening the host: %q, %v", b, err)
	}
}

// TestHost_AcquireWaits: callers arriving while a workspace is being opened
// wait for that one open; a caller that gives up does not leak a reference;
// Delete refuses and Create waits meanwhile.
func TestHost_AcquireWaits(t *testing.T) {
	tr := newTracker()
	h := openHost(t, host.Options{Clock: &fakeClock{}, Workspace: workspace.Options{Attach: tr.attach}})
	mustCreate(t, h, "slow")
	tr.block = make(chan struct{})
	first := make(chan error, 1)
	var lease *host.Lease
	go func() {
		l, err := h.Acquire(ctx, "slow")
		lease = l
		first <- err
	}()
	if name := <-tr.arrived; name != "slow" {
		t.Fatalf("the open of %q began, want slow", name)
	}
	cctx, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() { _, err := h.Acquire(cctx, "slow"); gaveUp <- err }()
	waitUntil(t, "the second caller to wait for the open", func() bool { return h.Stats().Waiting == 2 })
	waiter := make(chan error, 1)
	go func() {
		l, err := h.Acquire(ctx, "slow")
		if err == nil {
			l.Release()
		}
		waiter <- err
	}()
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Acquire = %v", err)
	}
	if err := h.Delete(ctx, "slow"); !errors.Is(err, host.ErrInUse) {
		t.Fatalf("Delete while opening = %v, want ErrInUse", err)
	}
	created := make(chan error, 1)
	go func() { _, err := h.Create(ctx, "slow", host.CreateOptions{}); created <- err }()
	close(tr.block)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-waiter; err != nil {
		t.Fatal(err)
	}
	if err := <-created; !errors.Is(err, host.ErrExists) {
		t.Fatalf("Create during the open = %v, want ErrExists", err)
	}
	if n := tr.count("slow"); n != 1 {
		t.Fatalf("opened %d times, want 1", n)
	}
	lease.Release()
	if info, _ := h.Info(ctx, "slow"); !info.Open || info.Leases != 0 {
		t.Fatalf("after every lease is gone: %+v (a leaked reference would keep Leases > 0)", info)
	}
	if h.HibernateIdle() != 1 {
		t.Fatal("the workspace is not idle")
	}
}

// TestHost_OpenFails: when an open fails, every caller waiting for it gets
// the error, nothing stays reserved, and the next Acquire tries again.
func TestHost_OpenFails(t *testing.T) {
	tr := newTracker()
	h := openHost(t, host.Options{MaxOpen: 1, Clock: &fakeClock{}, Workspace: workspace.Options{Attach: tr.attach}})
	mustCreate(t, h, "flaky")
	boom := errors.New("runtime failed")
	tr.fail = boom
	tr.block = make(chan struct{})
	errs := make(chan error, 5)
	for range 5 {
		go func() { _, err := h.Acquire(ctx, "flaky"); errs <- err }()
	}
	if name := <-tr.arrived; name != "flaky" {
		t.Fatalf("the open of %q began, want flaky", name)
	}
	waitUntil(t, "all five callers to wait for the open", func() bool { return h.Stats().Waiting == 5 })
	close(tr.block)
	for range 5 {
		if err := <-errs; !errors.Is(err, boom) {
			t.Fatalf("Acquire = %v, want %v", err, boom)
		}
	}
	if st := h.Stats(); st.Open != 0 || st.Leases != 0 {
		t.Fatalf("after failed opens: %+v", st)
	}
	tr.mu.Lock()
	tr.fail, tr.block = nil, nil
	tr.mu.Unlock()
	mustAcquire(t, h, "flaky").Release()
}

func TestHost_Info(t *testing.T) {
	h := openHost(t, host.Options{})
	mustCreate(t, h, "i")
	if _, err := h.Info(ctx, "nope"); !errors.Is(err, host.ErrNotFound) {
		t.Fatalf("Info(nope) = %v", err)
	}
	dir := filepath.Join(h.DataDir(), "workspaces")
	os.Symlink("i.db", filepath.Join(dir, "sym.db"))
	if _, err := h.Info(ctx, "sym"); err == nil || errors.Is(err, host.ErrNotFound) {
		t.Fatalf("Info of a symlink = %v, want a not-a-regular-file error", err)
	}
	if _, err := h.Acquire(ctx, "sym"); err == nil {
		t.Fatal("Acquire through a symlink succeeded")
	}
}

// blocker is an execution backend whose executions run until release is
// closed (or they are killed).
type blocker struct{ release chan struct{} }

func (b blocker) Run(ctx context.Context, job *run.Job) (run.Outcome, error) {
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	return run.Outcome{}, nil
}

// TestHost_RunningIsNotIdle: a workspace whose lease is gone but that still
// has an execution running (a service started by a call that returned) is
// neither hibernated by its timer, nor closed by HibernateIdle, nor evicted;
// once the execution ends it hibernates as usual.
func TestHost_RunningIsNotIdle(t *testing.T) {
	clock := &fakeClock{}
	const idle = time.Minute
	b := blocker{release: make(chan struct{})}
	h := openHost(t, host.Options{Clock: clock, IdleTimeout: idle, MaxOpen: 2,
		Workspace: workspace.Options{Backends: map[string]run.Backend{"block": b}, Run: run.Options{DefaultBackend: "block"}}})
	mustCreate(t, h, "svc", "a", "b")
	open := func(name string) bool { info, _ := h.Info(ctx, name); return info.Open }

	l := mustAcquire(t, h, "svc")
	x, err := l.Workspace().Runtime().Exec(ctx, "serve", run.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	clock.Advance(3 * idle)
	if !open("svc") {
		t.Fatal("hibernated with an execution running")
	}
	if n := h.HibernateIdle(); n != 0 || !open("svc") {
		t.Fatalf("HibernateIdle closed %d workspaces; svc open: %v", n, open("svc"))
	}
	// MaxOpen 2: opening a and then b needs a slot; svc must not be the one
	// evicted.
	mustAcquire(t, h, "a").Release()
	mustAcquire(t, h, "b").Release()
	if !open("svc") || open("a") || !open("b") {
		t.Fatalf("eviction: svc %v a %v b %v, want svc and b open", open("svc"), open("a"), open("b"))
	}

	close(b.release)
	if _, err := x.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Advance(idle)
	if open("svc") {
		t.Fatal("not hibernated an idle period after its execution ended")
	}
}

// TestLease_Tools: the leases of an open workspace share one tools.State (so
// tool calls on a path serialise across calls), over the leased store; a
// workspace opened again after hibernation gets a new one.
func TestLease_Tools(t *testing.T) {
	clock := &fakeClock{}
	h := openHost(t, host.Options{Clock: clock, IdleTimeout: time.Minute})
	mustCreate(t, h, "w")
	a, b := mustAcquire(t, h, "w"), mustAcquire(t, h, "w")
	if a.Tools() == nil || a.Tools() != b.Tools() {
		t.Fatalf("two leases of one open workspace: tool states %p and %p, want one", a.Tools(), b.Tools())
	}
	first := a.Tools()
	set, err := tools.New(first, nil, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.Write(ctx, tools.WriteInput{Path: "/kept", Content: "yes"}); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Workspace().FS().ReadFile(ctx, "/kept"); err != nil || string(got) != "yes" {
		t.Fatalf("a tool set over the lease's state wrote elsewhere: %q, %v", got, err)
	}
	a.Release()
	b.Release()
	clock.Advance(time.Minute)
	if info, _ := h.Info(ctx, "w"); info.Open {
		t.Fatal("not hibernated after the idle timeout")
	}
	c := mustAcquire(t, h, "w")
	defer c.Release()
	if c.Tools() == nil || c.Tools() == first {
		t.Fatal("a reopened workspace kept the tool state of its closed store")
	}
}
