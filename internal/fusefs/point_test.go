package fusefs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// openStore opens a fresh store in a temporary directory.
func openStore(t *testing.T) *vfs.FS {
	t.Helper()
	testenv.NeedFUSE(t)
	store, err := vfs.Open(context.Background(), filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// TestReadOnly mounts read-only: every change through the mount fails with
// EROFS, reads work, and a change made to the store elsewhere shows.
func TestReadOnly(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{ReadOnly: true})
	ctx := context.Background()
	must(t, "store write", e.store.WriteFile(ctx, "/f", []byte("one"), 0o644))
	if got, err := os.ReadFile(e.path("f")); err != nil || string(got) != "one" {
		t.Fatalf("read: %q %v", got, err)
	}
	for name, op := range map[string]func() error{
		"create": func() error { return os.WriteFile(e.path("g"), []byte("x"), 0o644) },
		"write":  func() error { return os.WriteFile(e.path("f"), []byte("x"), 0o644) },
		"mkdir":  func() error { return os.Mkdir(e.path("d"), 0o755) },
		"remove": func() error { return os.Remove(e.path("f")) },
		"chmod":  func() error { return os.Chmod(e.path("f"), 0o600) },
		"rename": func() error { return os.Rename(e.path("f"), e.path("h")) },
	} {
		if err := op(); !errors.Is(err, syscall.EROFS) {
			t.Errorf("%s through a read-only mount: %v, want EROFS", name, err)
		}
	}
	must(t, "store write", e.store.WriteFile(ctx, "/f", []byte("two"), 0o644))
	if got, err := os.ReadFile(e.path("f")); err != nil || string(got) != "two" {
		t.Fatalf("read after a store write: %q %v", got, err)
	}
}

// TestParentMountPoint mounts through Options.Parent: the mount lands on
// the named entry of the directory given, a symbolic link in its place is
// refused, and Unmount unmounts that mount even after its path was changed
// to lead elsewhere (the parent renamed, a symbolic link to another mount
// put where it was), leaving the other mount alone.
func TestParentMountPoint(t *testing.T) {
	store := openStore(t)
	ctx := context.Background()
	base := t.TempDir()
	parentDir := filepath.Join(base, "p")
	must(t, "mkdir", os.MkdirAll(filepath.Join(parentDir, "mnt"), 0o755))
	parent, err := os.Open(parentDir)
	must(t, "open parent", err)
	defer parent.Close()

	// A symbolic link as the entry: refused (never followed).
	must(t, "mkdir", os.Mkdir(filepath.Join(base, "elsewhere"), 0o755))
	must(t, "symlink", os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(parentDir, "link")))
	if srv, err := fusefs.Mount(ctx, store, filepath.Join(parentDir, "link"), fusefs.Options{Parent: parent}); !errors.Is(err, syscall.ENOTDIR) {
		if err == nil {
			srv.Unmount()
		}
		t.Fatalf("mount on a symbolic link through Parent: %v, want ENOTDIR (the link itself is not a directory)", err)
	}

	dir := filepath.Join(parentDir, "mnt")
	srv, err := fusefs.Mount(ctx, store, dir, fusefs.Options{Parent: parent})
	must(t, "mount", err)
	unmounted := false
	t.Cleanup(func() {
		if !unmounted {
			srv.Unmount()
		}
	})
	parent.Close() // Mount keeps its own descriptor
	if srv.Connection() == 0 || srv.Dir() != dir {
		t.Fatalf("connection %d, dir %q", srv.Connection(), srv.Dir())
	}
	if got := mountPoints(t, srv.Connection()); len(got) != 1 || got[0] != dir {
		t.Fatalf("mount points of connection %d: %v, want [%s]", srv.Connection(), got, dir)
	}
	must(t, "write through the mount", os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644))
	if got, err := store.ReadFile(ctx, "/f"); err != nil || string(got) != "x" {
		t.Fatalf("store: %q %v", got, err)
	}

	// Another mount (a second store's) that a path swap now leads to.
	other := openStore(t)
	otherDir := filepath.Join(base, "other", "mnt")
	must(t, "mkdir", os.MkdirAll(otherDir, 0o755))
	osrv, err := fusefs.Mount(ctx, other, otherDir, fusefs.Options{})
	must(t, "mount other", err)
	t.Cleanup(func() { osrv.Unmount() })
	must(t, "rename parent", os.Rename(parentDir, filepath.Join(base, "moved")))
	must(t, "symlink", os.Symlink(filepath.Join(base, "other"), parentDir))

	done := make(chan error, 1)
	go func() { done <- srv.Unmount() }()
	select {
	case err := <-done:
		must(t, "unmount", err)
	case <-time.After(time.Minute):
		t.Fatal("Unmount hangs (hang guard)")
	}
	unmounted = true
	if got := mountPoints(t, srv.Connection()); len(got) != 0 {
		t.Errorf("after Unmount, connection %d is still mounted on %v", srv.Connection(), got)
	}
	if got := mountPoints(t, osrv.Connection()); len(got) != 1 || got[0] != otherDir {
		t.Errorf("the other mount: %v, want it left on %s", got, otherDir)
	}
	var st unix.Statfs_t
	must(t, "statfs", unix.Statfs(filepath.Join(base, "moved", "mnt"), &st))
	if st.Type == 0x65735546 {
		t.Error("the moved mount point still shows a FUSE filesystem")
	}
}

// TestUnmountDetachedElsewhere unmounts a mount that was lazily detached
// from outside while a file on it was open (umount -l): the server still
// serves the open file, and Unmount must end it by aborting the connection
// (without, it would wait its UnmountTimeout and fail).
func TestUnmountDetachedElsewhere(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{UnmountTimeout: 30 * time.Second})
	must(t, "write", os.WriteFile(e.path("f"), []byte("x"), 0o644))
	f, err := os.Open(e.path("f"))
	must(t, "open", err)
	defer f.Close()
	must(t, "detach", unix.Unmount(e.mnt, unix.MNT_DETACH))
	done := make(chan error, 1)
	go func() { done <- e.srv.Unmount() }()
	select {
	case err := <-done:
		must(t, "unmount", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("Unmount hangs (hang guard)")
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
