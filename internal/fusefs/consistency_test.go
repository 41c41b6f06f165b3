package fusefs_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// stat returns the kernel's view of a name under the mount (lstat).
func stat(t *testing.T, p string) unix.Stat_t {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatalf("lstat %s: %v", p, err)
	}
	return st
}

// sync waits until the mount's kernel caches reflect the store.
func (e *env) sync(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.srv.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConsistency_StoreToMount changes the store directly (as the shell
// backend does) after the kernel has cached what it changes, and checks that
// the mount shows the change. Opens need no help (an open waits for the
// journal follower); for cached attributes, names and pages of files already
// open, the test calls Server.Sync, which waits for the invalidations the
// journal follower pushes by itself.
func TestConsistency_StoreToMount(t *testing.T) {
	e := newEnv(t, vfs.Options{ChunkSize: 4 << 10}, fusefs.Options{})
	ctx := context.Background()
	s := e.store

	t.Run("content-reopen", func(t *testing.T) {
		must(t, "write", s.WriteFile(ctx, "/f", []byte("one"), 0o644))
		if got := readFile(t, e.path("f")); got != "one" {
			t.Fatalf("got %q", got)
		}
		for _, want := range []string{"two, longer", "3", string(bytes.Repeat([]byte("x"), 100000)), ""} {
			must(t, "write", s.WriteFile(ctx, "/f", []byte(want), 0o644))
			// No Sync: the open waits for the invalidations.
			if got := readFile(t, e.path("f")); got != want {
				t.Fatalf("after store write: got %d bytes %.20q, want %d bytes %.20q", len(got), got, len(want), want)
			}
		}
	})

	t.Run("content-open-descriptor", func(t *testing.T) {
		must(t, "write", s.WriteFile(ctx, "/g", []byte("aaaa"), 0o644))
		fd, err := unix.Open(e.path("g"), unix.O_RDONLY, 0)
		must(t, "open", err)
		defer unix.Close(fd)
		buf := make([]byte, 16)
		n, _ := unix.Pread(fd, buf, 0)
		if string(buf[:n]) != "aaaa" {
			t.Fatalf("got %q", buf[:n])
		}
		h, err := s.OpenFile(ctx, "/g", os.O_WRONLY, 0)
		must(t, "open store", err)
		h.WriteAt([]byte("bbbbbb"), 2)
		must(t, "close store", h.Close())
		e.sync(t)
		n, _ = unix.Pread(fd, buf, 0)
		if string(buf[:n]) != "aabbbbbb" {
			t.Fatalf("cached page not invalidated: got %q", buf[:n])
		}
		must(t, "truncate", s.Truncate(ctx, "/g", 1))
		e.sync(t)
		n, _ = unix.Pread(fd, buf, 0)
		if string(buf[:n]) != "a" {
			t.Fatalf("after truncate: got %q", buf[:n])
		}
	})

	t.Run("attributes", func(t *testing.T) {
		must(t, "write", s.WriteFile(ctx, "/a", []byte("12345"), 0o644))
		st := stat(t, e.path("a"))
		must(t, "chmod", s.Chmod(ctx, "/a", 0o600))
		must(t, "chown", s.Chown(ctx, "/a", 12, 34))
		mt := time.Date(2020, 1, 2, 3, 4, 5, 6, time.UTC)
		must(t, "chtimes", s.Chtimes(ctx, "/a", mt, mt))
		e.sync(t)
		st2 := stat(t, e.path("a"))
		if st2.Mode&0o7777 != 0o600 || st2.Uid != 12 || st2.Gid != 34 || st2.Mtim.Nano() != mt.UnixNano() || st2.Ino != st.Ino {
			t.Fatalf("stale attributes: %+v", st2)
		}
		must(t, "truncate", s.Truncate(ctx, "/a", 2))
		e.sync(t)
		if st := stat(t, e.path("a")); st.Size != 2 {
			t.Fatalf("size %d", st.Size)
		}
	})

	t.Run("names", func(t *testing.T) {
		// Cache "missing" (negative entries), then create in the store.
		for _, n := range []string{"new", "newdir", "newlink"} {
			if _, err := os.Lstat(e.path(n)); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s: %v", n, err)
			}
		}
		must(t, "write", s.WriteFile(ctx, "/new", []byte("n"), 0o644))
		must(t, "mkdir", s.Mkdir(ctx, "/newdir", 0o755))
		must(t, "symlink", s.Symlink(ctx, "new", "/newlink"))
		e.sync(t)
		for _, n := range []string{"new", "newdir", "newlink"} {
			if _, err := os.Lstat(e.path(n)); err != nil {
				t.Fatalf("%s after store create: %v", n, err)
			}
		}
		names := dirNames(t, e.mnt)
		if !slices.Contains(names, "newdir") {
			t.Fatalf("readdir: %v", names)
		}
		// Rename and remove what the kernel has cached.
		old := stat(t, e.path("new"))
		must(t, "rename", s.Rename(ctx, "/new", "/newdir/moved", 0))
		must(t, "remove", s.Remove(ctx, "/newlink"))
		e.sync(t)
		if _, err := os.Lstat(e.path("new")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("renamed-away name still there: %v", err)
		}
		if _, err := os.Lstat(e.path("newlink")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("removed name still there: %v", err)
		}
		if st := stat(t, e.path("newdir/moved")); st.Ino != old.Ino {
			t.Fatalf("moved: ino %d, want %d", st.Ino, old.Ino)
		}
		// Replace a cached symlink with another target.
		must(t, "symlink", s.Symlink(ctx, "one", "/sl"))
		if tgt, _ := os.Readlink(e.path("sl")); tgt != "one" {
			t.Fatalf("readlink %q", tgt)
		}
		must(t, "remove", s.Remove(ctx, "/sl"))
		must(t, "symlink", s.Symlink(ctx, "two", "/sl"))
		e.sync(t)
		if tgt, _ := os.Readlink(e.path("sl")); tgt != "two" {
			t.Fatalf("readlink after replace %q", tgt)
		}
	})

	t.Run("rename-over-cached", func(t *testing.T) {
		must(t, "write", s.WriteFile(ctx, "/dst", []byte("old"), 0o644))
		must(t, "write", s.WriteFile(ctx, "/src", []byte("new"), 0o644))
		fd, err := unix.Open(e.path("dst"), unix.O_RDONLY, 0)
		must(t, "open", err)
		defer unix.Close(fd)
		must(t, "rename", s.Rename(ctx, "/src", "/dst", 0))
		// No Sync: the open finds the replaced inode gone and the kernel
		// looks the name up again.
		if got := readFile(t, e.path("dst")); got != "new" {
			t.Fatalf("got %q", got)
		}
		e.sync(t)
		var st unix.Stat_t
		must(t, "fstat", unix.Fstat(fd, &st))
		if st.Nlink != 0 {
			t.Errorf("replaced inode open in the mount: nlink %d, want 0", st.Nlink)
		}
		buf := make([]byte, 8)
		n, _ := unix.Pread(fd, buf, 0)
		if string(buf[:n]) != "old" {
			t.Errorf("replaced inode content %q", buf[:n])
		}
	})

	t.Run("exchange", func(t *testing.T) {
		must(t, "write", s.WriteFile(ctx, "/x1", []byte("1"), 0o644))
		must(t, "mkdir", s.Mkdir(ctx, "/x2", 0o755))
		a, b := stat(t, e.path("x1")), stat(t, e.path("x2"))
		must(t, "exchange", s.Rename(ctx, "/x1", "/x2", vfs.RenameExchange))
		e.sync(t)
		if a2, b2 := stat(t, e.path("x1")), stat(t, e.path("x2")); a2.Ino != b.Ino || b2.Ino != a.Ino {
			t.Fatalf("not swapped: %d %d", a2.Ino, b2.Ino)
		}
		if got := readFile(t, e.path("x2")); got != "1" {
			t.Fatalf("got %q", got)
		}
	})

	t.Run("xattr", func(t *testing.T) {
		must(t, "write", s.WriteFile(ctx, "/xa", nil, 0o644))
		must(t, "setxattr", s.Setxattr(ctx, "/xa", "user.k", []byte("v1"), 0))
		buf := make([]byte, 16)
		n, err := unix.Getxattr(e.path("xa"), "user.k", buf)
		if err != nil || string(buf[:n]) != "v1" {
			t.Fatalf("getxattr %q %v", buf[:n], err)
		}
		must(t, "setxattr", s.Setxattr(ctx, "/xa", "user.k", []byte("v2"), 0))
		n, err = unix.Getxattr(e.path("xa"), "user.k", buf)
		if err != nil || string(buf[:n]) != "v2" {
			t.Fatalf("getxattr after change %q %v", buf[:n], err)
		}
	})
}

// TestConsistency_HardLinks: every name of an inode shows the same nlink, mode,
// owner and ctime, whether the change was made through another name in the
// mount or in the store directly.
func TestConsistency_HardLinks(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	ctx := context.Background()
	s := e.store
	must(t, "mkdir", os.Mkdir(e.path("d"), 0o755))
	must(t, "write", os.WriteFile(e.path("a"), []byte("x"), 0o644))
	check := func(what string, nlink uint64, mode uint32, names ...string) {
		t.Helper()
		var first unix.Stat_t
		for i, n := range names {
			st := stat(t, e.path(n))
			if st.Nlink != nlink || st.Mode&0o7777 != mode {
				t.Errorf("%s: %s: nlink %d mode %o, want %d %o", what, n, st.Nlink, st.Mode&0o7777, nlink, mode)
			}
			if i == 0 {
				first = st
			} else if st.Ino != first.Ino || st.Ctim != first.Ctim || st.Uid != first.Uid {
				t.Errorf("%s: %s differs from %s: %+v vs %+v", what, n, names[0], st, first)
			}
		}
	}

	// Through the mount.
	must(t, "link", os.Link(e.path("a"), e.path("d/b")))
	check("mount link", 2, 0o644, "a", "d/b")
	must(t, "chmod", os.Chmod(e.path("a"), 0o600))
	check("mount chmod", 2, 0o600, "a", "d/b")
	must(t, "chown", os.Chown(e.path("d/b"), 5, 6))
	check("mount chown", 2, 0o600, "a", "d/b")
	if st := stat(t, e.path("a")); st.Uid != 5 || st.Gid != 6 {
		t.Errorf("owner through other name: %d:%d", st.Uid, st.Gid)
	}
	must(t, "link", os.Link(e.path("d/b"), e.path("c")))
	check("mount second link", 3, 0o600, "a", "d/b", "c")
	must(t, "unlink", os.Remove(e.path("a")))
	check("mount unlink", 2, 0o600, "d/b", "c")

	// In the store directly: every name the kernel has cached follows.
	// The store's link must give the inode a new ctime, so that a name
	// whose cached ctime is stale shows: wait until the clock has passed
	// the current one (no sleep: the clock moving is the event).
	before := stat(t, e.path("c")).Ctim
	for !time.Now().After(time.Unix(before.Unix())) {
		runtime.Gosched()
	}
	must(t, "store link", s.Link(ctx, "/c", "/a"))
	e.sync(t)
	check("store link", 3, 0o600, "a", "d/b", "c")
	if st := stat(t, e.path("d/b")); st.Ctim == before {
		t.Errorf("store link: ctime stayed %v", before)
	}
	must(t, "store chmod", s.Chmod(ctx, "/d/b", 0o640))
	e.sync(t)
	check("store chmod", 3, 0o640, "a", "d/b", "c")
	must(t, "store chown", s.Chown(ctx, "/a", 7, 8))
	e.sync(t)
	if st := stat(t, e.path("c")); st.Uid != 7 || st.Gid != 8 {
		t.Errorf("store chown through other name: %d:%d", st.Uid, st.Gid)
	}
	must(t, "store remove", s.Remove(ctx, "/c"))
	e.sync(t)
	check("store remove", 2, 0o640, "a", "d/b")
	if _, err := os.Lstat(e.path("c")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removed name: %v", err)
	}
}

// TestConsistency_MountToStore: what is written through the mount is in the
// store when close or fsync returns, journaled with the mount's actor.
func TestConsistency_MountToStore(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{Actor: "sandbox-1"})
	ctx := context.Background()
	s := e.store
	seq := s.Seq()

	f, err := os.Create(e.path("w"))
	must(t, "create", err)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	_, err = f.Write(big)
	must(t, "write", err)
	must(t, "fsync", f.Sync())
	if got, _ := s.ReadFile(ctx, "/w"); !bytes.Equal(got, big) {
		t.Fatalf("after fsync: store has %d bytes", len(got))
	}
	_, err = f.WriteAt([]byte("END"), int64(len(big)))
	must(t, "write", err)
	must(t, "close", f.Close())
	got, _ := s.ReadFile(ctx, "/w")
	if len(got) != len(big)+3 || string(got[len(big):]) != "END" {
		t.Fatalf("after close: %d bytes", len(got))
	}

	must(t, "mkdir", os.Mkdir(e.path("d"), 0o700))
	must(t, "rename", os.Rename(e.path("w"), e.path("d/w2")))
	must(t, "chmod", os.Chmod(e.path("d/w2"), 0o640))
	mt := time.Unix(1234567890, 123456789)
	must(t, "chtimes", os.Chtimes(e.path("d/w2"), mt, mt))
	fi, err := s.Stat(ctx, "/d/w2")
	must(t, "store stat", err)
	a := fi.Attr()
	if a.Mode != vfs.S_IFREG|0o640 || !a.Mtime.Equal(mt) || !a.Atime.Equal(mt) || a.Size != int64(len(big)+3) {
		t.Errorf("store attrs %+v", a)
	}
	must(t, "remove", os.Remove(e.path("d/w2")))
	if _, err := s.Stat(ctx, "/d/w2"); vfs.Errno(err) != syscall.ENOENT {
		t.Errorf("store still has the removed file: %v", err)
	}
	chs, err := s.Changes(ctx, seq, 1000)
	must(t, "changes", err)
	for _, c := range chs {
		if c.Actor != "sandbox-1" {
			t.Errorf("change %+v not journaled as the mount's", c)
		}
	}
	if len(chs) < 6 {
		t.Errorf("only %d changes journaled", len(chs))
	}
}

// TestOwnerOfCreations: what a process creates through the mount belongs to
// its uid and gid.
func TestOwnerOfCreations(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	must(t, "chmod", os.Chmod(e.mnt, 0o777))
	// Create as root; then check the store records root (the caller).
	must(t, "write", os.WriteFile(e.path("r"), nil, 0o644))
	fi, err := e.store.Stat(context.Background(), "/r")
	must(t, "stat", err)
	if a := fi.Attr(); a.Uid != 0 || a.Gid != 0 {
		t.Errorf("owner %d:%d", a.Uid, a.Gid)
	}
}

// dirNames lists a directory under the mount.
func dirNames(t *testing.T, p string) []string {
	t.Helper()
	ents, err := os.ReadDir(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
