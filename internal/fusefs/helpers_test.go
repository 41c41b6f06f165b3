package fusefs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// env is a store mounted in a temporary directory.
type env struct {
	store *vfs.FS
	srv   *fusefs.Server
	mnt   string
}

// path returns the host path of store path p under the mount.
func (e *env) path(p string) string { return filepath.Join(e.mnt, p) }

// newEnv opens a fresh store and mounts it; cleanup unmounts (even when the
// test fails), checks the store's invariants and closes it.
func newEnv(t testing.TB, vopts vfs.Options, opts fusefs.Options) *env {
	t.Helper()
	// Mounting needs root and /dev/fuse: without them the test is skipped,
	// or failed under DESK_REQUIRE_FUSE=1 (CI).
	testenv.NeedFUSE(t)
	dir := t.TempDir()
	store, err := vfs.Open(context.Background(), filepath.Join(dir, "ws.db"), vopts)
	if err != nil {
		t.Fatal(err)
	}
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := fusefs.Mount(context.Background(), store, mnt, opts)
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	e := &env{store: store, srv: srv, mnt: mnt}
	t.Cleanup(func() {
		if err := srv.Unmount(); err != nil {
			t.Errorf("unmount: %v", err)
		}
		rep, err := store.Check(context.Background())
		if err != nil {
			t.Errorf("check: %v", err)
		} else if !rep.OK() {
			t.Errorf("check: %v", rep.Problems)
		}
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return e
}
