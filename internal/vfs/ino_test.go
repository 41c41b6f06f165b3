package vfs_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// wantErrno fails unless err carries errno (0: no error).
func wantErrno(t *testing.T, what string, err error, errno syscall.Errno) {
	t.Helper()
	if errno == 0 {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return
	}
	if got := vfs.Errno(err); got != errno {
		t.Fatalf("%s: got %v (%v), want %v", what, got, err, errno)
	}
}

// attrOf returns the attributes of name (not following a final symlink).
func attrOf(t *testing.T, f *vfs.FS, name string) vfs.Attr {
	t.Helper()
	fi, err := f.Lstat(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Attr()
}

// node returns the vfs.Node of name with name as its path hint.
func node(t *testing.T, f *vfs.FS, name string) vfs.Node {
	t.Helper()
	return vfs.Node{Ino: attrOf(t, f, name).Ino, Path: name}
}

// lastChange returns the newest journal entry.
func lastChange(t *testing.T, f *vfs.FS) vfs.Change {
	t.Helper()
	chs, err := f.Changes(context.Background(), f.Seq()-1, 1)
	if err != nil || len(chs) != 1 {
		t.Fatalf("changes: %v %v", chs, err)
	}
	return chs[0]
}

func TestFS_LookupAt(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	f.MkdirAll(ctx, "/d", 0o755)
	f.WriteFile(ctx, "/d/f", []byte("abc"), 0o640)
	f.Symlink(ctx, "f", "/d/l")
	d := attrOf(t, f, "/d")
	for _, name := range []string{"f", "l"} {
		a, err := f.LookupAt(ctx, d.Ino, name)
		if err != nil {
			t.Fatal(err)
		}
		if want := attrOf(t, f, "/d/"+name); a != want {
			t.Errorf("LookupAt %s = %+v, want %+v", name, a, want)
		}
	}
	fino := attrOf(t, f, "/d/f").Ino
	for _, tc := range []struct {
		dir   uint64
		name  string
		errno syscall.Errno
	}{
		{d.Ino, "missing", syscall.ENOENT},
		{fino, "x", syscall.ENOTDIR},
		{12345, "x", syscall.ENOENT},
		{d.Ino, strings.Repeat("n", 256), syscall.ENAMETOOLONG},
		{d.Ino, "a/b", syscall.EINVAL},
		{d.Ino, "", syscall.ENOENT},
	} {
		_, err := f.LookupAt(ctx, tc.dir, tc.name)
		wantErrno(t, "LookupAt "+tc.name, err, tc.errno)
	}
}

func TestFS_OpenIno(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	f.Mkdir(ctx, "/d", 0o755)
	f.WriteFile(ctx, "/d/f", []byte("hello"), 0o644)
	n := node(t, f, "/d/f")

	t.Run("read-write", func(t *testing.T) {
		h, err := f.OpenIno(ctx, n, os.O_RDWR)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if _, err := h.WriteAt([]byte("J"), 0); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.ReadFile(ctx, "/d/f"); string(got) != "Jello" {
			t.Fatalf("content %q", got)
		}
	})
	t.Run("stale-hint-journals-current-path", func(t *testing.T) {
		if err := f.Rename(ctx, "/d", "/e", 0); err != nil {
			t.Fatal(err)
		}
		h, err := f.OpenIno(ctx, n, os.O_WRONLY) // n.Path is "/d/f": stale
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte("W"))
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		if c := lastChange(t, f); c.Op != vfs.OpWrite || c.Path != "/e/f" {
			t.Fatalf("journal: %+v", c)
		}
		if h.Name() != "/e/f" {
			t.Errorf("Name %q", h.Name())
		}
	})
	t.Run("trunc", func(t *testing.T) {
		h, err := f.OpenIno(ctx, vfs.Node{Ino: n.Ino}, os.O_WRONLY|os.O_TRUNC)
		if err != nil {
			t.Fatal(err)
		}
		h.Close()
		if fi, _ := f.Stat(ctx, "/e/f"); fi.Size() != 0 {
			t.Fatalf("size %d", fi.Size())
		}
		if c := lastChange(t, f); c.Op != vfs.OpTruncate || c.Path != "/e/f" {
			t.Fatalf("journal: %+v", c)
		}
	})
	t.Run("unlinked-while-open", func(t *testing.T) {
		f.WriteFile(ctx, "/u", []byte("data"), 0o644)
		u := node(t, f, "/u")
		h, err := f.OpenIno(ctx, u, os.O_RDONLY)
		if err != nil {
			t.Fatal(err)
		}
		f.Remove(ctx, "/u")
		// A second handle by inode number (as /proc/self/fd/N reopens do).
		h2, err := f.OpenIno(ctx, u, os.O_RDWR)
		if err != nil {
			t.Fatal(err)
		}
		h2.WriteAt([]byte("D"), 0)
		buf := make([]byte, 4)
		if _, err := h.ReadAt(buf, 0); err != nil || string(buf) != "Data" {
			t.Fatalf("read %q %v", buf, err)
		}
		a, err := f.SetattrIno(ctx, u, vfs.SetAttr{Mode: ptr(uint32(0o600))})
		if err != nil || a.Mode&0o7777 != 0o600 || a.Nlink != 0 {
			t.Fatalf("setattr on unlinked: %+v %v", a, err)
		}
		h2.Close()
		h.Close()
		_, err = f.OpenIno(ctx, u, os.O_RDONLY)
		wantErrno(t, "open after last close", err, syscall.ENOENT)
	})
	t.Run("errors", func(t *testing.T) {
		f.Symlink(ctx, "x", "/sl")
		_, err := f.OpenIno(ctx, node(t, f, "/sl"), os.O_RDONLY)
		wantErrno(t, "symlink", err, syscall.ELOOP)
		_, err = f.OpenIno(ctx, node(t, f, "/e"), os.O_RDWR)
		wantErrno(t, "dir for writing", err, syscall.EISDIR)
		_, err = f.OpenIno(ctx, node(t, f, "/e/f"), os.O_RDONLY|syscall.O_DIRECTORY)
		wantErrno(t, "O_DIRECTORY", err, syscall.ENOTDIR)
		_, err = f.OpenIno(ctx, vfs.Node{Ino: 999999}, os.O_RDONLY)
		wantErrno(t, "missing", err, syscall.ENOENT)
	})
}

func ptr[T any](v T) *T { return &v }

func TestFS_CreateAt(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	f.Mkdir(ctx, "/d", 0o775)
	f.Chmod(ctx, "/d", 0o775|fs.ModeSetgid)
	f.Chown(ctx, "/d", 0, 50)
	d := node(t, f, "/d")
	h, err := f.CreateAt(vfs.WithOwner(ctx, 7, 8), d, "f", os.O_RDWR|os.O_CREATE|os.O_EXCL, vfs.UnixToFileMode(0o4755))
	if err != nil {
		t.Fatal(err)
	}
	h.Write([]byte("xyz"))
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	a := attrOf(t, f, "/d/f")
	if a.Mode != vfs.S_IFREG|0o4755 || a.Uid != 7 || a.Gid != 50 || a.Size != 3 {
		t.Errorf("attr %+v", a)
	}
	_, err = f.CreateAt(ctx, d, "f", os.O_RDWR, 0o644)
	wantErrno(t, "existing", err, syscall.EEXIST)
	_, err = f.CreateAt(ctx, vfs.Node{Ino: a.Ino}, "g", os.O_RDWR, 0o644)
	wantErrno(t, "in a file", err, syscall.ENOTDIR)
	_, err = f.CreateAt(ctx, d, strings.Repeat("n", 256), os.O_RDWR, 0o644)
	wantErrno(t, "long name", err, syscall.ENAMETOOLONG)
	// A directory removed while in use takes no new entries.
	f.Mkdir(ctx, "/gone", 0o755)
	gone := node(t, f, "/gone")
	f.Remove(ctx, "/gone")
	_, err = f.CreateAt(ctx, gone, "f", os.O_RDWR, 0o644)
	wantErrno(t, "in removed dir", err, syscall.ENOENT)
	_, err = f.MkdirAt(ctx, gone, "f", 0o755)
	wantErrno(t, "mkdir in removed dir", err, syscall.ENOENT)
}

func TestFS_MkdirSymlinkLinkRemoveAt(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	root := vfs.Node{Ino: vfs.RootIno, Path: "/"}
	da, err := f.MkdirAt(ctx, root, "d", 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if want := attrOf(t, f, "/d"); da != want {
		t.Errorf("MkdirAt = %+v, want %+v", da, want)
	}
	d := vfs.Node{Ino: da.Ino, Path: "/d"}
	la, err := f.SymlinkAt(ctx, "../t", d, "l")
	if err != nil {
		t.Fatal(err)
	}
	if tgt, _ := f.ReadlinkIno(ctx, la.Ino); tgt != "../t" {
		t.Errorf("readlink %q", tgt)
	}
	_, err = f.ReadlinkIno(ctx, da.Ino)
	wantErrno(t, "readlink dir", err, syscall.EINVAL)
	_, err = f.SymlinkAt(ctx, "", d, "e")
	wantErrno(t, "empty target", err, syscall.ENOENT)

	f.WriteFile(ctx, "/d/f", []byte("1"), 0o644)
	fn := node(t, f, "/d/f")
	a, err := f.LinkAt(ctx, fn, root, "hard")
	if err != nil || a.Nlink != 2 {
		t.Fatalf("LinkAt: %+v %v", a, err)
	}
	if c := lastChange(t, f); c.Op != vfs.OpLink || c.Path != "/hard" || c.OldPath != "/d/f" {
		t.Errorf("journal %+v", c)
	}
	_, err = f.LinkAt(ctx, fn, root, "hard")
	wantErrno(t, "link existing", err, syscall.EEXIST)
	_, err = f.LinkAt(ctx, d, root, "dirlink")
	wantErrno(t, "link dir", err, syscall.EPERM)

	wantErrno(t, "unlink dir", f.RemoveAt(ctx, root, "d", false), syscall.EISDIR)
	wantErrno(t, "rmdir file", f.RemoveAt(ctx, root, "hard", true), syscall.ENOTDIR)
	wantErrno(t, "rmdir non-empty", f.RemoveAt(ctx, root, "d", true), syscall.ENOTEMPTY)
	wantErrno(t, "unlink missing", f.RemoveAt(ctx, root, "nope", false), syscall.ENOENT)
	wantErrno(t, "unlink", f.RemoveAt(ctx, d, "f", false), 0)
	if a := attrOf(t, f, "/hard"); a.Nlink != 1 {
		t.Errorf("nlink after unlink %d", a.Nlink)
	}
	// An inode with no name left cannot get one back.
	h, _ := f.Open(ctx, "/hard")
	f.Remove(ctx, "/hard")
	_, err = f.LinkAt(ctx, fn, root, "again")
	wantErrno(t, "link unlinked", err, syscall.ENOENT)
	h.Close()
	wantErrno(t, "unlink symlink", f.RemoveAt(ctx, d, "l", false), 0)
	wantErrno(t, "rmdir", f.RemoveAt(ctx, root, "d", true), 0)
}

// TestFS_RenameAt covers flags and, with stale and missing path hints, the
// ancestry checks that keep the tree a tree.
func TestFS_RenameAt(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	f.MkdirAll(ctx, "/a/b/c", 0o755)
	f.WriteFile(ctx, "/x", []byte("x"), 0o644)
	f.WriteFile(ctx, "/y", []byte("y"), 0o644)
	root := vfs.Node{Ino: vfs.RootIno}
	a, b, c := node(t, f, "/a"), node(t, f, "/a/b"), node(t, f, "/a/b/c")

	wantErrno(t, "noreplace", f.RenameAt(ctx, root, "x", root, "y", vfs.RenameNoReplace), syscall.EEXIST)
	wantErrno(t, "exchange", f.RenameAt(ctx, root, "x", root, "y", vfs.RenameExchange), 0)
	if got, _ := f.ReadFile(ctx, "/x"); string(got) != "y" {
		t.Fatalf("after exchange /x = %q", got)
	}
	wantErrno(t, "exchange missing", f.RenameAt(ctx, root, "x", root, "z", vfs.RenameExchange), syscall.ENOENT)
	wantErrno(t, "both flags", f.RenameAt(ctx, root, "x", root, "y", vfs.RenameExchange|vfs.RenameNoReplace), syscall.EINVAL)
	wantErrno(t, "whiteout and exchange", f.RenameAt(ctx, root, "x", root, "y", vfs.RenameExchange|vfs.RenameWhiteout), syscall.EINVAL)
	// A whiteout (char 0:0, the caller's) takes the old name, in one change.
	wctx := vfs.WithOwner(ctx, 7, 8)
	f.WriteFile(ctx, "/wo", []byte("w"), 0o644)
	wantErrno(t, "whiteout", f.RenameAt(wctx, root, "wo", root, "wo2", vfs.RenameWhiteout|vfs.RenameNoReplace), 0)
	if fi, err := f.Lstat(ctx, "/wo"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 || fi.Attr().Rdev != 0 || fi.Attr().Uid != 7 || fi.Attr().Gid != 8 {
		t.Fatalf("whiteout /wo: %v %+v", err, fi)
	}
	if got, _ := f.ReadFile(ctx, "/wo2"); string(got) != "w" {
		t.Fatalf("renamed /wo2 = %q", got)
	}
	wantErrno(t, "whiteout onto existing with noreplace", f.RenameAt(ctx, root, "wo2", root, "y", vfs.RenameWhiteout|vfs.RenameNoReplace), syscall.EEXIST)
	if fi, err := f.Lstat(ctx, "/wo2"); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("a failed whiteout rename changed /wo2: %v %v", fi, err)
	}
	f.Remove(ctx, "/wo")
	f.Remove(ctx, "/wo2")

	// Make every hint stale: /a becomes /m.
	if err := f.Rename(ctx, "/a", "/m", 0); err != nil {
		t.Fatal(err)
	}
	wantErrno(t, "dir into own child", f.RenameAt(ctx, root, "m", c, "m2", 0), syscall.EINVAL)
	wantErrno(t, "dir into own grandchild (no hints)", f.RenameAt(ctx, root, "m", vfs.Node{Ino: c.Ino}, "m2", 0), syscall.EINVAL)
	wantErrno(t, "exchange with descendant", f.RenameAt(ctx, root, "m", b, "c", vfs.RenameExchange), syscall.EINVAL)
	wantErrno(t, "over own ancestor", f.RenameAt(ctx, b, "c", root, "m", 0), syscall.ENOTEMPTY)
	wantErrno(t, "move", f.RenameAt(ctx, b, "c", root, "c2", 0), 0)
	if ch := lastChange(t, f); ch.Op != vfs.OpRename || ch.OldPath != "/m/b/c" || ch.Path != "/c2" {
		t.Errorf("journal %+v (stale hints must journal current paths)", ch)
	}
	wantErrno(t, "dir over file", f.RenameAt(ctx, root, "c2", root, "x", 0), syscall.ENOTDIR)
	wantErrno(t, "file over dir", f.RenameAt(ctx, root, "x", a, "b", 0), syscall.EISDIR)
	wantErrno(t, "file into dir", f.RenameAt(ctx, root, "x", a, "xx", 0), 0)
	if _, err := f.Stat(ctx, "/m/xx"); err != nil {
		t.Fatal(err)
	}
}

func TestFS_SetattrIno(t *testing.T) {
	ctx := context.Background()
	// A clock that moves on every reading, so that "ctime moved" needs no sleep.
	var ticks atomic.Int64
	clock := func() time.Time { return time.Unix(1_700_000_000, ticks.Add(1)*int64(time.Microsecond)) }
	f := openStore(t, vfs.Options{ChunkSize: 4 << 10, Now: clock})
	f.WriteFile(ctx, "/f", []byte("0123456789"), 0o6755)
	n := node(t, f, "/f")

	a, err := f.SetattrIno(ctx, n, vfs.SetAttr{Uid: ptr(uint32(5))})
	if err != nil || a.Uid != 5 || a.Mode&0o7777 != 0o755 {
		t.Fatalf("chown must clear setuid and (group-executable) setgid: %o %v", a.Mode, err)
	}
	if c := lastChange(t, f); c.Op != vfs.OpSetattr || c.Path != "/f" {
		t.Errorf("journal %+v", c)
	}
	before := attrOf(t, f, "/f").Ctime
	a, err = f.SetattrIno(ctx, n, vfs.SetAttr{})
	if err != nil || !a.Ctime.After(before) {
		t.Errorf("empty SetAttr (chown -1 -1) must move ctime: %v -> %v (%v)", before, a.Ctime, err)
	}
	a, _ = f.SetattrIno(ctx, n, vfs.SetAttr{Mode: ptr(uint32(vfs.S_IFDIR | 0o1640))})
	if a.Mode != vfs.S_IFREG|0o1640 {
		t.Errorf("mode %o", a.Mode)
	}
	at := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	a, _ = f.SetattrIno(ctx, n, vfs.SetAttr{Atime: &at})
	if !a.Atime.Equal(at) || a.Mtime.Equal(at) {
		t.Errorf("atime only: %v %v", a.Atime, a.Mtime)
	}
	now := clock()
	a, _ = f.SetattrIno(ctx, n, vfs.SetAttr{Mtime: ptr(vfs.UtimeNow)})
	if !a.Atime.Equal(at) || !a.Mtime.After(now) {
		t.Errorf("mtime now: %v %v", a.Atime, a.Mtime)
	}

	// Size, with and without an open handle holding unflushed writes.
	h, _ := f.OpenFile(ctx, "/f", os.O_RDWR, 0)
	h.WriteAt([]byte("AB"), 2)
	a, err = f.SetattrIno(ctx, n, vfs.SetAttr{Size: ptr(int64(3))})
	if err != nil || a.Size != 3 {
		t.Fatalf("truncate open: %+v %v", a, err)
	}
	h.Close()
	if got, _ := f.ReadFile(ctx, "/f"); string(got) != "01A" {
		t.Fatalf("content %q", got)
	}
	a, _ = f.SetattrIno(ctx, n, vfs.SetAttr{Size: ptr(int64(10000))})
	if a.Size != 10000 {
		t.Fatalf("extend: %d", a.Size)
	}
	_, err = f.SetattrIno(ctx, node(t, f, "/"), vfs.SetAttr{Size: ptr(int64(0))})
	wantErrno(t, "truncate dir", err, syscall.EISDIR)
	_, err = f.SetattrIno(ctx, n, vfs.SetAttr{Size: ptr(int64(-1))})
	wantErrno(t, "negative size", err, syscall.EINVAL)
}

func TestFS_XattrIno(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	f.WriteFile(ctx, "/f", nil, 0o644)
	n := node(t, f, "/f")
	wantErrno(t, "set", f.SetxattrIno(ctx, n, "user.a", []byte("1"), vfs.XattrCreate), 0)
	wantErrno(t, "set again", f.SetxattrIno(ctx, n, "user.a", []byte("2"), vfs.XattrCreate), syscall.EEXIST)
	if v, err := f.GetxattrIno(ctx, n.Ino, "user.a"); err != nil || string(v) != "1" {
		t.Fatalf("get %q %v", v, err)
	}
	if v, err := f.Getxattr(ctx, "/f", "user.a"); err != nil || string(v) != "1" {
		t.Fatalf("get by path %q %v", v, err)
	}
	if names, err := f.ListxattrIno(ctx, n.Ino); err != nil || len(names) != 1 || names[0] != "user.a" {
		t.Fatalf("list %q %v", names, err)
	}
	wantErrno(t, "remove", f.RemovexattrIno(ctx, n, "user.a"), 0)
	wantErrno(t, "remove again", f.RemovexattrIno(ctx, n, "user.a"), syscall.ENODATA)
	_, err := f.GetxattrIno(ctx, n.Ino, "user.a")
	wantErrno(t, "get removed", err, syscall.ENODATA)
	_, err = f.GetxattrIno(ctx, 99999, "user.a")
	wantErrno(t, "get on missing inode", err, syscall.ENOENT)
	wantErrno(t, "bad namespace", f.SetxattrIno(ctx, n, "other.a", nil, 0), syscall.EOPNOTSUPP)
}

// TestFile_SeekDataHole checks SEEK_DATA and SEEK_HOLE on a sparse file with
// committed and unflushed chunks.
func TestFile_SeekDataHole(t *testing.T) {
	ctx := context.Background()
	const cs = 4 << 10
	f := openStore(t, vfs.Options{ChunkSize: cs})
	h, err := f.Create(ctx, "/s")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	// Layout: hole [0,2cs), data [2cs,3cs), hole [3cs,5cs), data (unflushed) at 5cs+10, size 5cs+11.
	h.WriteAt([]byte("x"), 2*cs+100)
	h.Sync()
	h.WriteAt([]byte("y"), 5*cs+10)
	for _, tc := range []struct {
		whence int
		off    int64
		want   int64
		errno  syscall.Errno
	}{
		{vfs.SeekData, 0, 2 * cs, 0},
		{vfs.SeekData, 2*cs + 5, 2*cs + 5, 0},
		{vfs.SeekData, 3 * cs, 5 * cs, 0},
		{vfs.SeekHole, 0, 0, 0},
		{vfs.SeekHole, 2 * cs, 3 * cs, 0},
		{vfs.SeekHole, 5 * cs, 5*cs + 11, 0},
		{vfs.SeekData, 5*cs + 11, 0, syscall.ENXIO},
		{vfs.SeekHole, 6 * cs, 0, syscall.ENXIO},
		{vfs.SeekData, -1, 0, syscall.ENXIO},
	} {
		got, err := h.Seek(tc.off, tc.whence)
		wantErrno(t, "seek", err, tc.errno)
		if tc.errno == 0 && got != tc.want {
			t.Errorf("Seek(%d, %d) = %d, want %d", tc.off, tc.whence, got, tc.want)
		}
	}
	// Data only up to a hole at the end.
	h.Truncate(7 * cs)
	if _, err := h.Seek(6*cs, vfs.SeekData); vfs.Errno(err) != syscall.ENXIO {
		t.Errorf("data in trailing hole: %v", err)
	}
	if got, _ := h.Seek(5*cs+20, vfs.SeekHole); got != 6*cs {
		t.Errorf("hole after last data chunk: %d", got)
	}
	// The offset moved: a read continues there.
	h.Seek(2*cs+100, vfs.SeekData)
	buf := make([]byte, 1)
	if _, err := io.ReadFull(h, buf); err != nil || buf[0] != 'x' {
		t.Errorf("read after seek: %q %v", buf, err)
	}
}

// TestFS_AtPathLimit: a creation whose canonical path would pass MaxPathLen is
// ENAMETOOLONG, so every name stays reachable by path.
func TestFS_AtPathLimit(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{MaxPathLen: 64})
	f.MkdirAll(ctx, "/"+strings.Repeat("a", 30)+"/"+strings.Repeat("b", 25), 0o755)
	d := node(t, f, "/"+strings.Repeat("a", 30)+"/"+strings.Repeat("b", 25))
	if _, err := f.MkdirAt(ctx, d, "123456", 0o755); err != nil {
		t.Fatalf("64 bytes: %v", err)
	}
	_, err := f.MkdirAt(ctx, d, "1234567", 0o755)
	wantErrno(t, "65 bytes", err, syscall.ENAMETOOLONG)
	if !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Errorf("errors.Is: %v", err)
	}
}

// TestFS_UnlinkRacesLastClose: when the last handle of a file closes while a
// transaction removes the file's last name, the inode must not be left behind
// (the close saw a name; the removal saw a handle). A batch makes the race
// deterministic: the handle closes inside the transaction that removes the
// name (Close of an untouched read-only handle commits nothing, so it does not
// wait for the batch).
func TestFS_UnlinkRacesLastClose(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	if err := f.WriteFile(ctx, "/f", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := f.Open(ctx, "/f")
	if err != nil {
		t.Fatal(err)
	}
	err = f.Batch(ctx, func(b *vfs.Batch) error {
		if err := b.Remove("/f"); err != nil {
			return err
		}
		return h.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.Check(ctx)
	if err != nil || !rep.OK() {
		t.Fatalf("check: %v %v", rep.Problems, err)
	}
	if st, _ := f.Stats(ctx); st.Files != 0 {
		t.Fatalf("%d files left", st.Files)
	}
}
