package vfs_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/sqlite"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestMigrateV1 opens a store written by the version of desk whose schema
// was version 1 (testdata/store-v1.db.gz, made by that code: a file with an
// xattr and a second name, a file of three chunks, a symlink): its content
// reads back, it takes special files, and it is at version 2 after.
func TestMigrateV1(t *testing.T) {
	ctx := context.Background()
	path, f := upgradeOldStore(t, "testdata/store-v1.db.gz", 1)
	check := func(f *vfs.FS) {
		t.Helper()
		if got, err := f.ReadFile(ctx, "/d/a2"); err != nil || string(got) != "hello\n" {
			t.Errorf("ReadFile /d/a2 = %q, %v", got, err)
		}
		if got, err := f.ReadFile(ctx, "/l"); err != nil || len(got) != 10000 || got[9999] != byte(9999*7%256) {
			t.Errorf("ReadFile /l: %d bytes, %v", len(got), err)
		}
		if v, err := f.Getxattr(ctx, "/a", "user.k"); err != nil || string(v) != "v" {
			t.Errorf("Getxattr = %q, %v", v, err)
		}
		rep, err := f.Check(ctx)
		if err != nil || !rep.OK() {
			t.Errorf("Check: %v %v", err, rep)
		}
	}
	check(f)
	if err := f.Mknod(ctx, "/d/null", vfs.S_IFCHR|0o666, unix.Mkdev(1, 3)); err != nil {
		t.Fatal(err)
	}
	f = reopenReadOnly(t, f, path)
	wantUpgraded(t, path)
	defer f.Close()
	check(f)
	fi, err := f.Lstat(ctx, "/d/null")
	if err != nil {
		t.Fatal(err)
	}
	if a := fi.Attr(); a.Mode != vfs.S_IFCHR|0o666 || a.Rdev != unix.Mkdev(1, 3) {
		t.Errorf("/d/null: mode %#o rdev %#x", a.Mode, a.Rdev)
	}
}

// writeV1Store writes the version 1 store of testdata at path.
func writeV1Store(t *testing.T, path string) { writeTestStore(t, path, "testdata/store-v1.db.gz") }

// oldStore writes the gzipped store gzPath, which the code of schema version
// wrote, in a new directory, checks its version, and returns its path.
func oldStore(t *testing.T, gzPath string, version int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ws.db")
	writeTestStore(t, path, gzPath)
	if v := userVersion(t, path); v != version {
		t.Fatalf("testdata store at version %d, want %d", v, version)
	}
	return path
}

// refusedReadOnly checks that a read-only Open refuses the old store at
// path (of schema version) with the message that says to upgrade it.
func refusedReadOnly(t *testing.T, path string, version int64) {
	t.Helper()
	if _, err := vfs.Open(context.Background(), path, vfs.Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "open it writable once") {
		t.Fatalf("read-only open of a version %d store: %v, want the upgrade message", version, err)
	}
}

// upgradeOldStore is oldStore for a store the current code must upgrade:
// a read-only Open refuses it (refusedReadOnly), and a writable one opens it.
// The caller closes the store.
func upgradeOldStore(t *testing.T, gzPath string, version int64) (string, *vfs.FS) {
	t.Helper()
	path := oldStore(t, gzPath, version)
	refusedReadOnly(t, path, version)
	f, err := vfs.Open(context.Background(), path, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return path, f
}

// reopenReadOnly closes f and opens its store at path again, read-only.
func reopenReadOnly(t *testing.T, f *vfs.FS, path string) *vfs.FS {
	t.Helper()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := vfs.Open(context.Background(), path, vfs.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// wantUpgraded checks that the store at path is at the current schema
// version.
func wantUpgraded(t *testing.T, path string) {
	t.Helper()
	if v := userVersion(t, path); v != vfs.SchemaVersion {
		t.Fatalf("after Open: version %d, want %d", v, vfs.SchemaVersion)
	}
}

// writeTestStore writes the gzipped store gzPath at path.
func writeTestStore(t *testing.T, path, gzPath string) {
	t.Helper()
	gz, err := os.ReadFile(gzPath)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

func userVersion(t *testing.T, path string) int64 {
	t.Helper()
	c, err := sqlite.Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var v int64
	if err := c.Query("PRAGMA user_version", nil, func(st *sqlite.Stmt) { v = st.Int64(0) }); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSpecialInStore checks what the store itself does with special files:
// they keep their type and device number across a reopen (read from SQLite,
// not the cache), cannot be opened for I/O (ENXIO) but can with O_PATH, are
// made by Batch and MknodAt too, are journalled as OpMknod, and Check accepts
// them.
func TestSpecialInStore(t *testing.T) {
	ctx := context.Background()
	f, path := storeAt(t, vfs.Options{})
	seq := f.Seq()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.Mknod(ctx, "/p", vfs.S_IFIFO|0o644, 0))
	must(f.Batch(ctx, func(b *vfs.Batch) error {
		if err := b.Mknod("/s", vfs.S_IFSOCK|0o755, 0); err != nil {
			return err
		}
		return b.Mknod("/b", vfs.S_IFBLK|0o600, unix.Mkdev(259, 7))
	}))
	a, err := f.MknodAt(ctx, vfs.Node{Ino: 1, Path: "/"}, "c", vfs.S_IFCHR|0o620, unix.Mkdev(4, 64))
	must(err)
	if a.Mode != vfs.S_IFCHR|0o620 || a.Rdev != unix.Mkdev(4, 64) || a.Nlink != 1 {
		t.Errorf("MknodAt: %+v", a)
	}
	if _, err := f.MknodAt(ctx, vfs.Node{Ino: 1, Path: "/"}, "c", vfs.S_IFCHR|0o620, 0); !errors.Is(err, syscall.EEXIST) {
		t.Errorf("MknodAt over a name: %v, want EEXIST", err)
	}
	if _, err := f.MknodAt(ctx, vfs.Node{Ino: 1, Path: "/"}, "x", vfs.S_IFDIR|0o755, 0); !errors.Is(err, syscall.EPERM) {
		t.Errorf("MknodAt S_IFDIR: %v, want EPERM", err)
	}
	chs, err := f.Changes(ctx, seq, 10)
	must(err)
	var ops []string
	for _, c := range chs {
		ops = append(ops, string(c.Op)+" "+c.Path)
	}
	if got := strings.Join(ops, ", "); got != "mknod /p, mknod /s, mknod /b, mknod /c" {
		t.Errorf("journal: %s", got)
	}
	for _, n := range []string{"/p", "/s", "/b", "/c"} {
		for _, flag := range []int{os.O_RDONLY, os.O_WRONLY, os.O_RDWR | os.O_CREATE, os.O_WRONLY | os.O_TRUNC} {
			if _, err := f.OpenFile(ctx, n, flag, 0o644); !errors.Is(err, syscall.ENXIO) {
				t.Errorf("OpenFile %s %#x: %v, want ENXIO", n, flag, err)
			}
		}
		if _, err := f.ReadFile(ctx, n); !errors.Is(err, syscall.ENXIO) {
			t.Errorf("ReadFile %s: %v, want ENXIO", n, err)
		}
		if err := f.WriteFile(ctx, n, []byte("x"), 0o644); !errors.Is(err, syscall.ENXIO) {
			t.Errorf("WriteFile %s: %v, want ENXIO", n, err)
		}
		h, err := f.OpenFile(ctx, n, unix.O_PATH, 0)
		if err != nil {
			t.Fatalf("OpenFile %s O_PATH: %v", n, err)
		}
		if fi, err := h.Stat(); err != nil || fi.Attr().Mode&vfs.S_IFMT == vfs.S_IFREG {
			t.Errorf("Stat of the O_PATH handle of %s: %v %v", n, fi, err)
		}
		if _, err := h.Read(make([]byte, 1)); !errors.Is(err, syscall.EBADF) {
			t.Errorf("Read of an O_PATH handle: %v, want EBADF", err)
		}
		if _, err := h.Write([]byte("x")); !errors.Is(err, syscall.EBADF) {
			t.Errorf("Write of an O_PATH handle: %v, want EBADF", err)
		}
		must(h.Close())
	}
	must(f.Close())
	f, err = vfs.Open(ctx, path, vfs.Options{CacheEntries: 2})
	must(err)
	defer f.Close()
	for _, want := range []struct {
		name string
		mode uint32
		rdev uint64
	}{
		{"/p", vfs.S_IFIFO | 0o644, 0},
		{"/s", vfs.S_IFSOCK | 0o755, 0},
		{"/b", vfs.S_IFBLK | 0o600, unix.Mkdev(259, 7)},
		{"/c", vfs.S_IFCHR | 0o620, unix.Mkdev(4, 64)},
	} {
		fi, err := f.Lstat(ctx, want.name)
		must(err)
		if a := fi.Attr(); a.Mode != want.mode || a.Rdev != want.rdev {
			t.Errorf("%s after reopen: mode %#o rdev %#x, want %#o %#x", want.name, a.Mode, a.Rdev, want.mode, want.rdev)
		}
		if vfs.ModeString(want.mode)[0] != "psbc"[strings.Index("/p/s/b/c", want.name)/2] {
			t.Errorf("ModeString(%#o) = %s", want.mode, vfs.ModeString(want.mode))
		}
	}
	rep, err := f.Check(ctx)
	if err != nil || !rep.OK() {
		t.Errorf("Check: %v %v", err, rep)
	}
}

// TestPathMaxFromARoot: the store's path limit is twice PATH_MAX from its
// root, so that a path of PATH_MAX−1 bytes below /workspace (a sandbox's
// mount root) is a path of the store, by path and by inode; a symlink target
// stays bounded by PATH_MAX, as the kernel bounds it.
func TestPathMaxFromARoot(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	dir := "/workspace/" + strings.Repeat(strings.Repeat("d", 254)+"/", 16)
	rel := strings.Repeat(strings.Repeat("d", 254)+"/", 16) + strings.Repeat("f", 15)
	if len(rel) != vfs.PathMax-1 {
		t.Fatalf("built %d bytes", len(rel))
	}
	if err := f.MkdirAll(ctx, dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/workspace/"+rel, []byte("deep"), 0o644); err != nil {
		t.Fatalf("a %d-byte path: %v", len("/workspace/"+rel), err)
	}
	if got, err := f.ReadFile(ctx, "/workspace/"+rel); err != nil || string(got) != "deep" {
		t.Fatalf("ReadFile: %q %v", got, err)
	}
	// The whole limit: 8192 bytes work, 8193 do not, by path and by inode.
	deep := "/" + strings.Repeat(strings.Repeat("e", 254)+"/", 32) // 8161 bytes
	if err := f.MkdirAll(ctx, deep, 0o755); err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("n", vfs.DefaultMaxPathLen-len(deep))
	if err := f.WriteFile(ctx, deep+name, nil, 0o644); err != nil {
		t.Fatalf("%d bytes: %v", len(deep+name), err)
	}
	if err := f.WriteFile(ctx, deep+name+"x", nil, 0o644); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Fatalf("%d bytes: %v, want ENAMETOOLONG", len(deep+name)+1, err)
	}
	fi, err := f.Stat(ctx, deep)
	if err != nil {
		t.Fatal(err)
	}
	d := vfs.Node{Ino: fi.Attr().Ino, Path: strings.TrimSuffix(deep, "/")}
	if _, err := f.MkdirAt(ctx, d, name+"y", 0o755); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Fatalf("MkdirAt of %d bytes: %v, want ENAMETOOLONG", len(deep+name)+1, err)
	}
	long := strings.Repeat("x/", 2047) + "y" // 4095 bytes: the longest target
	if err := f.Symlink(ctx, long, "/ok"); err != nil {
		t.Fatal(err)
	}
	if err := f.Symlink(ctx, long+"z", "/toolong"); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Fatalf("a 4096-byte target: %v, want ENAMETOOLONG", err)
	}
	if _, err := f.SymlinkAt(ctx, long+"z", vfs.Node{Ino: 1, Path: "/"}, "toolong"); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Fatalf("SymlinkAt of a 4096-byte target: %v", err)
	}
}
