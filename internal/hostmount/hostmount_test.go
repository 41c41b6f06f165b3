package hostmount_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/hostmount"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// envChild makes the test binary a process that mounts a store and waits
// to be killed (TestRecords_CleanupAfterDeath): STORE, DIR and RECORDS, a line
// each.
const envChild = "HOSTMOUNT_TEST_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(envChild); v != "" {
		os.Exit(child(strings.Split(v, "\n")))
	}
	os.Exit(m.Run())
}

// child mounts the store args[0] on args[1] with records in args[2], says
// "mounted" on stdout and waits forever.
func child(args []string) int {
	ctx := context.Background()
	store, err := vfs.Open(ctx, args[0], vfs.Options{})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	m, err := hostmount.New(ctx, store, args[1], hostmount.Options{Actor: "mount:child", Records: &hostmount.Records{Dir: args[2]}})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("mounted", m.Connection())
	select {}
}

func openStore(t *testing.T) *vfs.FS {
	t.Helper()
	store, err := vfs.Open(context.Background(), filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// waitClosed waits for ch, failing after a generous hang guard.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("waited a minute (hang guard) for %s", what)
	}
}

// TestCheck checks what may be a mount point, each refusal with its errno.
func TestCheck(t *testing.T) {
	base := t.TempDir()
	mk := func(p string) string {
		must(t, "mkdir", os.MkdirAll(filepath.Join(base, p), 0o755))
		return filepath.Join(base, p)
	}
	empty := mk("empty")
	full := mk("full")
	must(t, "write", os.WriteFile(filepath.Join(full, "x"), nil, 0o644))
	file := filepath.Join(base, "file")
	must(t, "write", os.WriteFile(file, nil, 0o644))
	data := mk("data")
	mk("data/sub")
	mk("real/inner/x")
	must(t, "symlink", os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link")))
	must(t, "symlink", os.Symlink(empty, filepath.Join(base, "emptylink")))
	forbidden := []hostmount.Forbidden{{Path: data, What: "the data directory"}, {Path: filepath.Join(base, "link", "inner", "x"), What: "a linked directory"}}

	if got, err := hostmount.Check(empty+"/./", forbidden); err != nil || got != empty {
		t.Errorf("Check(%s/./) = %q, %v; want %q", empty, got, err, empty)
	}
	for _, c := range []struct {
		dir   string
		errno syscall.Errno
		says  string
	}{
		{"", syscall.EINVAL, "no directory"},
		{"relative/dir", syscall.EINVAL, "not an absolute path"},
		{"/a\x00b", syscall.EINVAL, "NUL"},
		{filepath.Join(base, "missing"), syscall.ENOENT, "no such directory"},
		{file, syscall.ENOTDIR, "not a directory"},
		{filepath.Join(base, "link", "inner"), syscall.ELOOP, "symbolic link"},
		{filepath.Join(base, "emptylink"), syscall.ELOOP, "symbolic link"},
		{full, syscall.ENOTEMPTY, "not empty"},
		{data, syscall.EPERM, "inside the data directory"},
		{filepath.Join(data, "sub"), syscall.EPERM, "inside the data directory"},
		{filepath.Join(base, "real", "inner"), syscall.EPERM, "holds a linked directory"},
	} {
		got, err := hostmount.Check(c.dir, forbidden)
		var pe *fs.PathError
		if !errors.As(err, &pe) || !errors.Is(err, c.errno) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Check(%q) = %q, %v; want a *fs.PathError with %v saying %q", c.dir, got, err, c.errno, c.says)
		}
	}

	// A directory on a FUSE filesystem (a mount of a store).
	testenv.NeedFUSE(t)
	store := openStore(t)
	must(t, "mkdir in store", store.MkdirAll(context.Background(), "/d", 0o755))
	onFuse := mk("onfuse")
	srv, err := fusefs.Mount(context.Background(), store, onFuse, fusefs.Options{})
	must(t, "mount", err)
	defer srv.Unmount()
	if _, err := hostmount.Check(filepath.Join(onFuse, "d"), nil); !errors.Is(err, syscall.EPERM) || !strings.Contains(err.Error(), "FUSE") {
		t.Errorf("Check on a FUSE filesystem: %v, want EPERM saying FUSE", err)
	}
}

// TestMount_BothWays mounts a store: what the store gets shows through the
// mount, what is written through the mount is in the store, both at once
// (an open waits for the invalidations of what was committed before it);
// Unmount removes the mount and its record.
func TestMount_BothWays(t *testing.T) {
	testenv.NeedFUSE(t)
	ctx := context.Background()
	store := openStore(t)
	dir := filepath.Join(t.TempDir(), "mnt")
	must(t, "mkdir", os.Mkdir(dir, 0o755))
	rec := &hostmount.Records{Dir: filepath.Join(t.TempDir(), "records")}
	m, err := hostmount.New(ctx, store, dir, hostmount.Options{Actor: "mount:test", Records: rec})
	must(t, "mount", err)
	defer m.Unmount()
	if got := mountPoints(t, m.Connection()); len(got) != 1 || got[0] != dir {
		t.Fatalf("mount points: %v, want [%s]", got, dir)
	}
	if recs, _ := os.ReadDir(rec.Dir); len(recs) != 1 {
		t.Fatalf("records: %v, want one", recs)
	}
	for i := range 3 {
		v := fmt.Sprint("store ", i)
		must(t, "store write", store.WriteFile(ctx, "/f", []byte(v), 0o644))
		if got, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(got) != v {
			t.Fatalf("through the mount after store write %d: %q %v", i, got, err)
		}
		v = fmt.Sprint("mount ", i)
		must(t, "mount write", os.WriteFile(filepath.Join(dir, "f"), []byte(v), 0o644))
		if got, err := store.ReadFile(ctx, "/f"); err != nil || string(got) != v {
			t.Fatalf("store after mount write %d: %q %v", i, got, err)
		}
	}
	// The journal names the mount's actor for its writes.
	chs, err := store.Changes(ctx, 0, 1000)
	must(t, "changes", err)
	if last := chs[len(chs)-1]; last.Actor != "mount:test" {
		t.Errorf("last change %+v: actor %q, want mount:test", last, last.Actor)
	}
	must(t, "unmount", m.Unmount())
	if got := mountPoints(t, m.Connection()); len(got) != 0 {
		t.Errorf("after Unmount still mounted on %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "f")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the mount point still shows the store: %v", err)
	}
	if recs, _ := os.ReadDir(rec.Dir); len(recs) != 0 {
		t.Errorf("records after Unmount: %v", recs)
	}
	select {
	case <-m.Gone():
		if m.Why() != "unmounted by desk" {
			t.Errorf("Why after Unmount: %q", m.Why())
		}
	default:
		t.Error("Gone not closed after Unmount")
	}
}

// TestMount_GoneOutside unmounts from outside: with umount(8), and lazily
// (umount -l) while a file is open on the mount. Gone closes with its
// reason, and Unmount then returns at once (the lazily detached mount's
// connection is aborted).
func TestMount_GoneOutside(t *testing.T) {
	testenv.NeedFUSE(t)
	if _, err := exec.LookPath("umount"); err != nil {
		testenv.Need(t, testenv.FUSE, fmt.Errorf("no umount(8): %w", err))
	}
	for _, lazy := range []bool{false, true} {
		t.Run(fmt.Sprint("lazy=", lazy), func(t *testing.T) {
			ctx := context.Background()
			store := openStore(t)
			must(t, "write", store.WriteFile(ctx, "/f", []byte("x"), 0o644))
			dir := filepath.Join(t.TempDir(), "mnt")
			must(t, "mkdir", os.Mkdir(dir, 0o755))
			m, err := hostmount.New(ctx, store, dir, hostmount.Options{Actor: "mount:test", FUSE: fusefs.Options{UnmountTimeout: 30 * time.Second}})
			must(t, "mount", err)
			defer m.Unmount()
			args := []string{dir}
			if lazy {
				f, err := os.Open(filepath.Join(dir, "f"))
				must(t, "open", err)
				defer f.Close()
				args = []string{"-l", dir}
			}
			if out, err := exec.Command("umount", args...).CombinedOutput(); err != nil {
				t.Fatalf("umount %v: %v: %s", args, err, out)
			}
			waitClosed(t, m.Gone(), "Gone after umount")
			if !strings.Contains(m.Why(), "unmounted outside desk") {
				t.Errorf("Why: %q", m.Why())
			}
			must(t, "Unmount after an outside unmount", m.Unmount())
			if got := mountPoints(t, m.Connection()); len(got) != 0 {
				t.Errorf("still mounted on %v", got)
			}
		})
	}
}

// TestRecords_CleanupAfterDeath kills a process that holds a mount with
// SIGKILL: the mount stays, dead (ENOTCONN); Cleanup finds it by its
// record, detaches it and removes the record; a second Cleanup finds
// nothing.
func TestRecords_CleanupAfterDeath(t *testing.T) {
	testenv.NeedFUSE(t)
	base := t.TempDir()
	dir := filepath.Join(base, "mnt")
	must(t, "mkdir", os.Mkdir(dir, 0o755))
	recs := filepath.Join(base, "records")
	exe, err := os.Executable()
	must(t, "executable", err)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envChild+"="+strings.Join([]string{filepath.Join(base, "ws.db"), dir, recs}, "\n"))
	out, err := cmd.StdoutPipe()
	must(t, "pipe", err)
	must(t, "start", cmd.Start())
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Scan()
		line <- sc.Text()
	}()
	var conn int
	select {
	case l := <-line:
		if _, err := fmt.Sscanf(l, "mounted %d", &conn); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child: %q", l)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the child did not mount within a minute (hang guard)")
	}
	must(t, "kill", cmd.Process.Kill())
	cmd.Wait()
	if got := mountPoints(t, conn); len(got) != 1 || got[0] != dir {
		t.Fatalf("after the kill, connection %d is on %v, want [%s] (left mounted)", conn, got, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !errors.Is(err, syscall.ENOTCONN) {
		t.Errorf("a dead mount answers %v, want ENOTCONN", err)
	}
	r := &hostmount.Records{Dir: recs}
	got, err := r.Cleanup(slog.New(slog.DiscardHandler))
	must(t, "cleanup", err)
	if len(got) != 1 || got[0] != dir {
		t.Errorf("Cleanup detached %v, want [%s]", got, dir)
	}
	if got := mountPoints(t, conn); len(got) != 0 {
		t.Errorf("after Cleanup still mounted on %v", got)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("the mount point after Cleanup: %v %v, want an empty directory", ents, err)
	}
	if _, err := os.Stat(recs); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the record directory is left: %v", err)
	}
	if got, err := r.Cleanup(slog.New(slog.DiscardHandler)); err != nil || len(got) != 0 {
		t.Errorf("a second Cleanup: %v %v", got, err)
	}
}

// TestRecords_CleanupLeavesOthers: a record whose mount point shows no
// mount of its connection (unmounted cleanly, or something else there) is
// dropped without touching what is mounted.
func TestRecords_CleanupLeavesOthers(t *testing.T) {
	testenv.NeedFUSE(t)
	ctx := context.Background()
	store := openStore(t)
	dir := filepath.Join(t.TempDir(), "mnt")
	must(t, "mkdir", os.Mkdir(dir, 0o755))
	m, err := hostmount.New(ctx, store, dir, hostmount.Options{Actor: "mount:test"})
	must(t, "mount", err)
	defer m.Unmount()
	recs := t.TempDir()
	// A record of another connection on the same directory.
	must(t, "write", os.WriteFile(filepath.Join(recs, "x.json"), fmt.Appendf(nil, `{"dir":%q,"conn":%d}`, dir, m.Connection()+1000), 0o600))
	got, err := (&hostmount.Records{Dir: recs}).Cleanup(slog.New(slog.DiscardHandler))
	if err != nil || len(got) != 0 {
		t.Errorf("Cleanup: %v %v, want nothing detached", got, err)
	}
	if got := mountPoints(t, m.Connection()); len(got) != 1 {
		t.Errorf("the live mount: %v", got)
	}
	if _, err := os.ReadDir(dir); err != nil {
		t.Errorf("the live mount after Cleanup: %v", err)
	}
}

// mountPoints lists where FUSE connection conn is mounted.
func mountPoints(t *testing.T, conn int) []string {
	t.Helper()
	ps, err := fusefs.MountPoints(conn)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}
