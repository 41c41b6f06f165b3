package vfstest

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// testStat checks Stat and Lstat of files, directories and symlinks.
func testStat(t *testing.T, fsys FS) {
	ctx := t.Context()
	mkdir(t, fsys, "/d")
	must(t, "WriteFile", fsys.WriteFile(ctx, "/d/f", []byte("hello"), 0o640))
	symlink(t, fsys, "f", "/d/l")
	symlink(t, fsys, "d", "/ld")

	fi, err := fsys.Stat(ctx, "/d/f")
	must(t, "Stat /d/f", err)
	f := attrOf(t, fi)
	if fi.Name() != "f" || fi.Size() != 5 || fi.Mode() != 0o640 || fi.IsDir() || !fi.ModTime().Equal(f.Mtime) {
		t.Errorf("Stat /d/f: name %q size %d mode %v dir %v modtime %v; want f 5 -rw-r----- false %v",
			fi.Name(), fi.Size(), fi.Mode(), fi.IsDir(), fi.ModTime(), f.Mtime)
	}
	if f.Mode != vfs.S_IFREG|0o640 || f.Nlink != 1 || f.Size != 5 || f.Ino == 0 {
		t.Errorf("Stat /d/f: mode %#o nlink %d size %d ino %d; want %#o 1 5 nonzero", f.Mode, f.Nlink, f.Size, f.Ino, vfs.S_IFREG|0o640)
	}
	if f.Mtime.IsZero() || f.Ctime.IsZero() || f.Atime.IsZero() {
		t.Errorf("Stat /d/f: zero times: atime %v mtime %v ctime %v", f.Atime, f.Mtime, f.Ctime)
	}
	if os.Geteuid() == 0 && (f.Uid != 0 || f.Gid != 0) {
		t.Errorf("Stat /d/f: owner %d:%d, want 0:0 (created by root)", f.Uid, f.Gid)
	}
	if l := lstat(t, fsys, "/d/f"); l != f {
		t.Errorf("Lstat of a regular file differs from Stat:\n %+v\n %+v", l, f)
	}

	// A symlink: Lstat describes the link, Stat its target.
	fi, err = fsys.Lstat(ctx, "/d/l")
	must(t, "Lstat /d/l", err)
	l := attrOf(t, fi)
	if fi.Name() != "l" || fi.Mode() != fs.ModeSymlink|0o777 || l.Mode != vfs.S_IFLNK|0o777 || l.Size != 1 || l.Nlink != 1 || l.Ino == f.Ino {
		t.Errorf("Lstat /d/l: name %q mode %v (%#o) size %d nlink %d ino %d; want l Lrwxrwxrwx size 1 nlink 1, not ino %d",
			fi.Name(), fi.Mode(), l.Mode, l.Size, l.Nlink, l.Ino, f.Ino)
	}
	fi, err = fsys.Stat(ctx, "/d/l")
	must(t, "Stat /d/l", err)
	if a := attrOf(t, fi); a.Ino != f.Ino || a.Mode != f.Mode || a.Size != 5 || fi.Name() != "l" {
		t.Errorf("Stat /d/l: name %q ino %d mode %#o size %d; want l and the target's %d %#o 5", fi.Name(), a.Ino, a.Mode, a.Size, f.Ino, f.Mode)
	}

	// Directories.
	fi, err = fsys.Stat(ctx, "/d")
	must(t, "Stat /d", err)
	d := attrOf(t, fi)
	if !fi.IsDir() || fi.Mode() != fs.ModeDir|0o755 || d.Mode != vfs.S_IFDIR|0o755 || d.Nlink != 2 || fi.Name() != "d" {
		t.Errorf("Stat /d: name %q dir %v mode %v (%#o) nlink %d; want d, a directory drwxr-xr-x with nlink 2", fi.Name(), fi.IsDir(), fi.Mode(), d.Mode, d.Nlink)
	}
	if a := stat(t, fsys, "/ld"); a.Ino != d.Ino || !a.IsDir() {
		t.Errorf("Stat /ld (symlink to /d): ino %d mode %#o, want /d's %d", a.Ino, a.Mode, d.Ino)
	}
	if a := lstat(t, fsys, "/ld"); !a.IsSymlink() || a.Size != 1 {
		t.Errorf("Lstat /ld: mode %#o size %d, want a symlink of size 1", a.Mode, a.Size)
	}
	if a := lstat(t, fsys, "/ld/"); a.Ino != d.Ino {
		t.Errorf("Lstat /ld/ (trailing slash follows the link): ino %d, want /d's %d", a.Ino, d.Ino)
	}
	root := stat(t, fsys, "/")
	if !root.IsDir() || root.Nlink != 3 {
		t.Errorf("Stat /: mode %#o nlink %d, want a directory with nlink 3 (one subdirectory)", root.Mode, root.Nlink)
	}
	if a := stat(t, fsys, "/d/"); a.Ino != d.Ino {
		t.Errorf("Stat /d/: ino %d, want %d", a.Ino, d.Ino)
	}

	for _, tc := range []struct {
		name string
		want syscall.Errno
	}{
		{"/nope", syscall.ENOENT},
		{"/d/nope", syscall.ENOENT},
		{"/nope/x", syscall.ENOENT},
		{"/d/f/x", syscall.ENOTDIR},
		{"/d/f/", syscall.ENOTDIR},
		{"/d/l/", syscall.ENOTDIR},
	} {
		_, err := fsys.Stat(ctx, tc.name)
		checkErr(t, "Stat "+tc.name, err, tc.want)
		_, err = fsys.Lstat(ctx, tc.name)
		checkErr(t, "Lstat "+tc.name, err, tc.want)
	}
}

// testModeBits sets all 12 permission bits through Chmod on files and directories.
func testModeBits(t *testing.T, fsys FS) {
	ctx := t.Context()
	writeFile(t, fsys, "/f", "x")
	mkdir(t, fsys, "/d")
	modes := []uint32{0, 0o1, 0o10, 0o100, 0o644, 0o755, 0o777, 0o1000, 0o2000, 0o4000,
		0o1777, 0o2755, 0o4755, 0o6755, 0o6644, 0o7777, 0o7000, 0o600}
	for _, name := range []string{"/f", "/d"} {
		typ := lstat(t, fsys, name).Mode & vfs.S_IFMT
		for _, m := range modes {
			must(t, "Chmod", fsys.Chmod(ctx, name, perm(m)))
			fi, err := fsys.Stat(ctx, name)
			must(t, "Stat", err)
			if a := attrOf(t, fi); a.Mode != typ|m {
				t.Errorf("Chmod %s %#o: mode %#o, want %#o", name, m, a.Mode, typ|m)
			}
			if want := vfs.UnixToFileMode(typ | m); fi.Mode() != want {
				t.Errorf("Chmod %s %#o: FileInfo.Mode %v, want %v", name, m, fi.Mode(), want)
			}
		}
	}
}

// testCreateMode checks the modes that Mkdir and OpenFile give new files: the
// requested bits exactly (there is no umask), except that mkdir(2) drops setuid and
// setgid (it keeps sticky).
func testCreateMode(t *testing.T, fsys FS) {
	ctx := t.Context()
	for _, m := range []uint32{0, 0o600, 0o755, 0o777, 0o1777, 0o2755, 0o4755, 0o7777} {
		name := fmt.Sprintf("/d%o", m)
		must(t, "Mkdir", fsys.Mkdir(ctx, name, perm(m)))
		checkMode(t, fsys, name, vfs.S_IFDIR|m&0o1777)

		name = fmt.Sprintf("/f%o", m)
		f, err := fsys.OpenFile(ctx, name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm(m))
		must(t, "OpenFile", err)
		// The new handle is writable whatever the mode says.
		if _, err := f.Write([]byte("data")); err != nil {
			t.Errorf("Write to new file %s with mode %#o: %s", name, m, describeErr(err))
		}
		must(t, "Close", f.Close())
		checkMode(t, fsys, name, vfs.S_IFREG|m)

		name = fmt.Sprintf("/w%o", m)
		must(t, "WriteFile", fsys.WriteFile(ctx, name, []byte("x"), perm(m)))
		checkMode(t, fsys, name, vfs.S_IFREG|m)
	}
	// MkdirAll gives every new directory the same mode.
	must(t, "MkdirAll", fsys.MkdirAll(ctx, "/m/n/o", 0o750))
	for _, name := range []string{"/m", "/m/n", "/m/n/o"} {
		checkMode(t, fsys, name, vfs.S_IFDIR|0o750)
	}
	// A symlink is always 0777.
	symlink(t, fsys, "x", "/l")
	checkMode(t, fsys, "/l", vfs.S_IFLNK|0o777)
}

// testChmod checks that Chmod follows symlinks and its errors.
func testChmod(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=x", "l->f", "d/", "ld->d", "dangling->nope")
	must(t, "Chmod", fsys.Chmod(ctx, "/l", 0o600))
	checkMode(t, fsys, "/f", vfs.S_IFREG|0o600)
	checkMode(t, fsys, "/l", vfs.S_IFLNK|0o777)
	must(t, "Chmod", fsys.Chmod(ctx, "/ld/", 0o700|fs.ModeSticky))
	checkMode(t, fsys, "/d", vfs.S_IFDIR|0o1700)
	checkMode(t, fsys, "/ld", vfs.S_IFLNK|0o777)

	// An open handle sees the change.
	h := openFile(t, fsys, "/f", os.O_RDONLY, 0)
	must(t, "Chmod", fsys.Chmod(ctx, "/f", perm(0o4711)))
	fi, err := h.Stat()
	must(t, "File.Stat", err)
	if a := attrOf(t, fi); a.Mode != vfs.S_IFREG|0o4711 {
		t.Errorf("File.Stat after Chmod: mode %#o, want %#o", a.Mode, vfs.S_IFREG|0o4711)
	}

	for _, tc := range []struct {
		name string
		want syscall.Errno
	}{
		{"/nope", syscall.ENOENT},
		{"/dangling", syscall.ENOENT},
		{"/f/x", syscall.ENOTDIR},
		{"/f/", syscall.ENOTDIR},
	} {
		checkErr(t, "Chmod "+tc.name, fsys.Chmod(ctx, tc.name, 0o644), tc.want)
	}
}

// testChown checks Chown and Lchown: ids, -1, symlinks, the clearing of
// setuid/setgid on regular files, and set-group-ID directories. Where the kernel
// checks permissions (KernelChecked) it needs root.
func testChown(t *testing.T, fsys FS) {
	if _, ok := fsys.(KernelChecked); ok {
		testenv.NeedRoot(t)
	}
	ctx := t.Context()
	build(t, fsys, "/", "f=x", "l->f", "d/", "dangling->nope")
	owner := func(name string) string {
		t.Helper()
		a := lstat(t, fsys, name)
		return fmt.Sprintf("%d:%d", a.Uid, a.Gid)
	}
	checkOwner := func(name, want string) {
		t.Helper()
		if got := owner(name); got != want {
			t.Errorf("owner of %s: %s, want %s", name, got, want)
		}
	}
	must(t, "Chown", fsys.Chown(ctx, "/f", 1234, 5678))
	checkOwner("/f", "1234:5678")
	must(t, "Chown", fsys.Chown(ctx, "/f", -1, 99))
	checkOwner("/f", "1234:99")
	must(t, "Chown", fsys.Chown(ctx, "/f", 42, -1))
	checkOwner("/f", "42:99")
	must(t, "Chown", fsys.Chown(ctx, "/f", -1, -1))
	checkOwner("/f", "42:99")

	// Chown follows a symlink; Lchown changes the link itself.
	must(t, "Chown", fsys.Chown(ctx, "/l", 7, 8))
	checkOwner("/f", "7:8")
	checkOwner("/l", "0:0")
	must(t, "Lchown", fsys.Lchown(ctx, "/l", 9, 10))
	checkOwner("/l", "9:10")
	checkOwner("/f", "7:8")
	must(t, "Lchown", fsys.Lchown(ctx, "/dangling", 11, 12))
	checkOwner("/dangling", "11:12")
	must(t, "Lchown", fsys.Lchown(ctx, "/d", 13, 14))
	checkOwner("/d", "13:14")
	checkErr(t, "Chown /dangling", fsys.Chown(ctx, "/dangling", 1, 1), syscall.ENOENT)
	checkErr(t, "Chown /nope", fsys.Chown(ctx, "/nope", 1, 1), syscall.ENOENT)
	checkErr(t, "Lchown /nope", fsys.Lchown(ctx, "/nope", 1, 1), syscall.ENOENT)
	checkErr(t, "Chown /f/x", fsys.Chown(ctx, "/f/x", 1, 1), syscall.ENOTDIR)

	// Changing the owner of a regular file clears setuid, and setgid when the file
	// is group-executable, even for root; directories keep theirs.
	for _, tc := range []struct {
		mode, want uint32
		uid, gid   int
	}{
		{0o6755, 0o755, 1, 1},
		{0o6755, 0o755, -1, 2},
		{0o6755, 0o755, 3, -1},
		{0o6755, 0o755, -1, -1},
		{0o4755, 0o755, 4, 4},
		{0o2755, 0o755, 5, 5},
		{0o2715, 0o715, 5, 5},
		{0o2745, 0o2745, 5, 5}, // setgid without group execute is a locking mark, kept
		{0o6645, 0o2645, 6, 6},
		{0o7777, 0o1777, 7, 7},
	} {
		must(t, "Chmod", fsys.Chmod(ctx, "/f", perm(tc.mode)))
		must(t, "Chown", fsys.Chown(ctx, "/f", tc.uid, tc.gid))
		if got := lstat(t, fsys, "/f").Mode & 0o7777; got != tc.want {
			t.Errorf("Chown(%d, %d) of a file with mode %#o: mode %#o, want %#o", tc.uid, tc.gid, tc.mode, got, tc.want)
		}
	}
	must(t, "Chmod", fsys.Chmod(ctx, "/d", perm(0o7755)))
	must(t, "Chown", fsys.Chown(ctx, "/d", 1, 1))
	checkMode(t, fsys, "/d", vfs.S_IFDIR|0o7755)

	// In a set-group-ID directory new entries take the directory's group, and new
	// subdirectories inherit the set-group-ID bit.
	must(t, "Mkdir", fsys.Mkdir(ctx, "/sg", 0o755))
	must(t, "Chown", fsys.Chown(ctx, "/sg", 0, 4242))
	must(t, "Chmod", fsys.Chmod(ctx, "/sg", 0o755|fs.ModeSetgid))
	writeFile(t, fsys, "/sg/f", "x")
	must(t, "Mkdir", fsys.Mkdir(ctx, "/sg/d", 0o700))
	symlink(t, fsys, "f", "/sg/l")
	checkOwner("/sg/f", "0:4242")
	checkOwner("/sg/d", "0:4242")
	checkOwner("/sg/l", "0:4242")
	checkMode(t, fsys, "/sg/f", vfs.S_IFREG|0o644)
	checkMode(t, fsys, "/sg/d", vfs.S_IFDIR|vfs.S_ISGID|0o700)
}

// testChtimes checks that Chtimes stores nanosecond times exactly.
func testChtimes(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=x", "d/", "l->f", "dangling->nope")
	times := []struct{ atime, mtime time.Time }{
		{time.Date(1999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(2001, 2, 3, 4, 5, 6, 123456789, time.UTC)},
		{time.Unix(0, 0), time.Unix(1, 1)},
		{time.Unix(1700000000, 1), time.Unix(1700000000, 999999999)},
		{time.Date(1969, 7, 20, 20, 17, 40, 500, time.UTC), time.Date(1901, 12, 14, 0, 0, 0, 0, time.UTC)},
		{time.Date(2400, 1, 1, 0, 0, 0, 7, time.UTC), time.Date(2106, 2, 7, 6, 28, 16, 0, time.UTC)},
	}
	for _, name := range []string{"/f", "/d"} {
		for _, tc := range times {
			must(t, "Chtimes", fsys.Chtimes(ctx, name, tc.atime, tc.mtime))
			fi, err := fsys.Stat(ctx, name)
			must(t, "Stat", err)
			a := attrOf(t, fi)
			if !a.Atime.Equal(tc.atime) || !a.Mtime.Equal(tc.mtime) || !fi.ModTime().Equal(tc.mtime) {
				t.Errorf("Chtimes %s (%v, %v): atime %v mtime %v ModTime %v", name, tc.atime, tc.mtime, a.Atime, a.Mtime, fi.ModTime())
			}
		}
	}

	// Chtimes follows symlinks.
	link := lstat(t, fsys, "/l")
	at, mt := time.Unix(12345, 678), time.Unix(23456, 789)
	must(t, "Chtimes", fsys.Chtimes(ctx, "/l", at, mt))
	if a := stat(t, fsys, "/f"); !a.Atime.Equal(at) || !a.Mtime.Equal(mt) {
		t.Errorf("Chtimes through a symlink: target has atime %v mtime %v, want %v %v", a.Atime, a.Mtime, at, mt)
	}
	if a := lstat(t, fsys, "/l"); !a.Mtime.Equal(link.Mtime) {
		t.Errorf("Chtimes through a symlink changed the link's mtime from %v to %v", link.Mtime, a.Mtime)
	}

	// UtimeOmit and the zero Time leave a time alone; UtimeNow sets the current time.
	must(t, "Chtimes", fsys.Chtimes(ctx, "/f", vfs.UtimeOmit, time.Unix(5, 5)))
	if a := stat(t, fsys, "/f"); !a.Atime.Equal(at) || !a.Mtime.Equal(time.Unix(5, 5)) {
		t.Errorf("Chtimes(UtimeOmit, 5.000000005): atime %v mtime %v, want %v and 5.000000005", a.Atime, a.Mtime, at)
	}
	must(t, "Chtimes", fsys.Chtimes(ctx, "/f", time.Unix(6, 6), time.Time{}))
	if a := stat(t, fsys, "/f"); !a.Atime.Equal(time.Unix(6, 6)) || !a.Mtime.Equal(time.Unix(5, 5)) {
		t.Errorf("Chtimes(6.000000006, zero): atime %v mtime %v, want 6.000000006 and 5.000000005", a.Atime, a.Mtime)
	}
	before := time.Now().Add(-time.Second)
	must(t, "Chtimes", fsys.Chtimes(ctx, "/f", vfs.UtimeOmit, vfs.UtimeNow))
	if a := stat(t, fsys, "/f"); !a.Atime.Equal(time.Unix(6, 6)) || a.Mtime.Before(before) || a.Mtime.After(time.Now().Add(time.Second)) {
		t.Errorf("Chtimes(UtimeOmit, UtimeNow): atime %v mtime %v, want 6.000000006 and about %v", a.Atime, a.Mtime, time.Now())
	}

	checkErr(t, "Chtimes /nope", fsys.Chtimes(ctx, "/nope", at, mt), syscall.ENOENT)
	checkErr(t, "Chtimes /dangling", fsys.Chtimes(ctx, "/dangling", at, mt), syscall.ENOENT)
	checkErr(t, "Chtimes /f/x", fsys.Chtimes(ctx, "/f/x", at, mt), syscall.ENOTDIR)
}

// testTimes checks which operations change ctime and mtime. It takes a snapshot,
// waits until the clock has visibly moved, runs every operation, and compares.
func testTimes(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/",
		"chmod=x", "chown=x", "link=x", "unlink=x", "unlink2=>unlink", "rename=x",
		"write=x", "writeat=x", "truncate=x", "ftruncate=x", "xattr=x", "chtimes=x", "read=x",
		"opentrunc=x", "rmxattr=x",
		"dcreate/", "dremove/", "dremove/f=x", "drename/", "drename/a=x",
		"dsrc/", "dsrc/a=x", "ddst/", "dmkdir/", "dchmod/", "untouched/", "untouched/f=x")
	must(t, "Setxattr", fsys.Setxattr(ctx, "/rmxattr", "user.x", []byte("v"), 0))
	// Put every mtime in the past, so that "unchanged" is exact and "changed" is
	// recognisable whatever the clock's granularity.
	past := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, e := range tree(t, fsys, "/") {
		name, _, _ := strings.Cut(e, "=")
		must(t, "Chtimes", fsys.Chtimes(ctx, "/"+strings.TrimSuffix(name, "/"), past, past))
	}
	names := []string{"/chmod", "/chown", "/link", "/unlink2", "/rename", "/write", "/writeat", "/truncate",
		"/ftruncate", "/xattr", "/chtimes", "/read", "/opentrunc", "/rmxattr",
		"/dcreate", "/dremove", "/drename", "/dsrc", "/ddst", "/dmkdir", "/dchmod", "/untouched", "/untouched/f"}
	before := snapTimes(t, fsys, names)

	must(t, "Chmod", fsys.Chmod(ctx, "/chmod", 0o600))
	must(t, "Chown", fsys.Chown(ctx, "/chown", -1, -1))
	must(t, "Link", fsys.Link(ctx, "/link", "/link2"))
	must(t, "Remove", fsys.Remove(ctx, "/unlink"))
	must(t, "Rename", fsys.Rename(ctx, "/rename", "/renamed", 0))
	f := openFile(t, fsys, "/write", os.O_WRONLY, 0)
	_, err := f.Write([]byte("y"))
	must(t, "Write", err)
	f = openFile(t, fsys, "/writeat", os.O_WRONLY, 0)
	_, err = f.WriteAt([]byte("yy"), 5)
	must(t, "WriteAt", err)
	must(t, "Truncate", fsys.Truncate(ctx, "/truncate", 0))
	f = openFile(t, fsys, "/ftruncate", os.O_RDWR, 0)
	must(t, "File.Truncate", f.Truncate(100))
	must(t, "Setxattr", fsys.Setxattr(ctx, "/xattr", "user.x", []byte("v"), 0))
	must(t, "Removexattr", fsys.Removexattr(ctx, "/rmxattr", "user.x"))
	must(t, "Chtimes", fsys.Chtimes(ctx, "/chtimes", past, past))
	readFile(t, fsys, "/read")
	openFile(t, fsys, "/opentrunc", os.O_WRONLY|os.O_TRUNC, 0)
	writeFile(t, fsys, "/dcreate/new", "")
	must(t, "Remove", fsys.Remove(ctx, "/dremove/f"))
	must(t, "Rename", fsys.Rename(ctx, "/drename/a", "/drename/b", 0))
	must(t, "Rename", fsys.Rename(ctx, "/dsrc/a", "/ddst/a", 0))
	must(t, "Mkdir", fsys.Mkdir(ctx, "/dmkdir/sub", 0o755))
	must(t, "Chmod", fsys.Chmod(ctx, "/dchmod", 0o700))
	stat(t, fsys, "/untouched/f")
	if _, err := fsys.ReadDir(ctx, "/untouched"); err != nil {
		t.Fatal(err)
	}

	checkTimes(t, fsys, before, []timeCase{
		{"/chmod", "", true, false},
		{"/chown", "", true, false},
		{"/link", "", true, false},
		{"/unlink2", "", true, false},
		{"/renamed", "/rename", true, false},
		{"/write", "", true, true},
		{"/writeat", "", true, true},
		{"/truncate", "", true, true},
		{"/ftruncate", "", true, true},
		{"/xattr", "", true, false},
		{"/rmxattr", "", true, false},
		{"/chtimes", "", true, false},
		{"/read", "", false, false},
		{"/opentrunc", "", true, true},
		{"/dcreate", "", true, true},
		{"/dremove", "", true, true},
		{"/drename", "", true, true},
		{"/dsrc", "", true, true},
		{"/ddst", "", true, true},
		{"/dmkdir", "", true, true},
		{"/dchmod", "", true, false},
		{"/untouched", "", false, false},
		{"/untouched/f", "", false, false},
	})
}

type timeSnap struct{ ctime, mtime time.Time }

// snapTimes returns the ctime and mtime of each of names (not following
// symlinks), once the clock behind ctime has moved past every one of them
// (ctime is always the clock): a change after it is visible.
func snapTimes(t *testing.T, fsys FS, names []string) map[string]timeSnap {
	t.Helper()
	before := map[string]timeSnap{}
	for _, n := range names {
		a := lstat(t, fsys, n)
		before[n] = timeSnap{a.Ctime, a.Mtime}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		writeFile(t, fsys, "/probe", "")
		if probe := lstat(t, fsys, "/probe").Ctime; probe.After(latest(before)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the clock behind ctime did not advance in 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return before
}

// timeCase is a name and which of its times an operation should have moved.
type timeCase struct {
	name         string // as after the operations
	was          string // as before (in snapTimes), if different
	ctime, mtime bool   // whether they should have changed
}

// checkTimes checks each case's times against before (snapTimes): moved
// forward where the case says they changed, equal where not.
func checkTimes(t *testing.T, fsys FS, before map[string]timeSnap, cases []timeCase) {
	t.Helper()
	for _, tc := range cases {
		was := tc.was
		if was == "" {
			was = tc.name
		}
		b := before[was]
		a := lstat(t, fsys, tc.name)
		if changed := !a.Ctime.Equal(b.ctime); changed != tc.ctime || a.Ctime.Before(b.ctime) {
			t.Errorf("%s: ctime went from %v to %v; want changed=%v (forward)", tc.name, b.ctime, a.Ctime, tc.ctime)
		}
		if changed := !a.Mtime.Equal(b.mtime); changed != tc.mtime || a.Mtime.Before(b.mtime) {
			t.Errorf("%s: mtime went from %v to %v; want changed=%v (forward)", tc.name, b.mtime, a.Mtime, tc.mtime)
		}
	}
}

// latest returns the latest ctime in m.
func latest(m map[string]timeSnap) time.Time {
	var max time.Time
	for _, s := range m {
		if s.ctime.After(max) {
			max = s.ctime
		}
	}
	return max
}

// testNlinkDir checks directory link counts: 2 plus the number of subdirectories.
func testNlinkDir(t *testing.T, fsys FS) {
	ctx := t.Context()
	nlink := func(name string, want uint32) {
		t.Helper()
		if got := lstat(t, fsys, name).Nlink; got != want {
			t.Errorf("nlink of %s: %d, want %d", name, got, want)
		}
	}
	nlink("/", 2)
	mkdir(t, fsys, "/d")
	nlink("/", 3)
	nlink("/d", 2)
	build(t, fsys, "/d", "a/", "b/", "f=x", "l->a", "a/x/")
	nlink("/d", 4)
	nlink("/d/a", 3)
	must(t, "Rename", fsys.Rename(ctx, "/d/a", "/e", 0))
	nlink("/d", 3)
	nlink("/", 4)
	nlink("/e", 3)
	must(t, "Rename", fsys.Rename(ctx, "/d/b", "/d/c", 0))
	nlink("/d", 3)
	must(t, "Rename", fsys.Rename(ctx, "/d/f", "/e/x/f", 0))
	nlink("/d", 3)
	nlink("/e/x", 2)
	must(t, "Remove", fsys.Remove(ctx, "/d/c"))
	nlink("/d", 2)
	// A directory replacing an empty directory in another parent.
	build(t, fsys, "/", "p/", "p/s/", "q/", "q/t/")
	must(t, "Rename", fsys.Rename(ctx, "/p/s", "/q/t", 0))
	nlink("/p", 2)
	nlink("/q", 3)
	// Exchanging a directory with a file across parents moves a link each way.
	writeFile(t, fsys, "/p/f", "x")
	must(t, "Rename", fsys.Rename(ctx, "/p/f", "/q/t", vfs.RenameExchange))
	nlink("/p", 3)
	nlink("/q", 2)
	must(t, "RemoveAll", fsys.RemoveAll(ctx, "/e"))
	nlink("/", 5) // d, p, q
}

// testXattr checks extended attributes in the user namespace.
func testXattr(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=x", "d/", "l->f", "dangling->nope")
	list := func(name string, want ...string) {
		t.Helper()
		got, err := fsys.Listxattr(ctx, name)
		if !checkErr(t, "Listxattr "+name, err, 0) {
			return
		}
		got = slices.Sorted(slices.Values(got))
		if !slices.Equal(got, want) {
			t.Errorf("Listxattr %s = %q, want %q", name, got, want)
		}
	}
	get := func(name, attr string, want []byte) {
		t.Helper()
		got, err := fsys.Getxattr(ctx, name, attr)
		if checkErr(t, "Getxattr "+name+" "+attr, err, 0) && !bytes.Equal(got, want) {
			t.Errorf("Getxattr %s %s = %q, want %q", name, attr, got, want)
		}
	}
	for _, name := range []string{"/f", "/d"} {
		list(name)
		must(t, "Setxattr", fsys.Setxattr(ctx, name, "user.b", []byte("two"), 0))
		must(t, "Setxattr", fsys.Setxattr(ctx, name, "user.a", []byte("one"), 0))
		must(t, "Setxattr", fsys.Setxattr(ctx, name, "user.empty", nil, 0))
		bin := []byte{0, 1, 2, 255, 0}
		must(t, "Setxattr", fsys.Setxattr(ctx, name, "user.bin", bin, 0))
		get(name, "user.a", []byte("one"))
		get(name, "user.b", []byte("two"))
		get(name, "user.empty", []byte{})
		get(name, "user.bin", bin)
		list(name, "user.a", "user.b", "user.bin", "user.empty")

		// Overwrite, and the create/replace flags.
		must(t, "Setxattr", fsys.Setxattr(ctx, name, "user.a", []byte("uno"), 0))
		get(name, "user.a", []byte("uno"))
		checkErr(t, "Setxattr XattrCreate existing", fsys.Setxattr(ctx, name, "user.a", []byte("x"), vfs.XattrCreate), syscall.EEXIST)
		get(name, "user.a", []byte("uno"))
		checkErr(t, "Setxattr XattrReplace missing", fsys.Setxattr(ctx, name, "user.new", []byte("x"), vfs.XattrReplace), syscall.ENODATA)
		must(t, "Setxattr XattrReplace", fsys.Setxattr(ctx, name, "user.a", []byte("1"), vfs.XattrReplace))
		get(name, "user.a", []byte("1"))
		must(t, "Setxattr XattrCreate", fsys.Setxattr(ctx, name, "user.c", []byte("3"), vfs.XattrCreate))
		get(name, "user.c", []byte("3"))

		_, err := fsys.Getxattr(ctx, name, "user.missing")
		checkErr(t, "Getxattr missing", err, syscall.ENODATA)
		checkErr(t, "Removexattr missing", fsys.Removexattr(ctx, name, "user.missing"), syscall.ENODATA)
		must(t, "Removexattr", fsys.Removexattr(ctx, name, "user.b"))
		_, err = fsys.Getxattr(ctx, name, "user.b")
		checkErr(t, "Getxattr removed", err, syscall.ENODATA)
		checkErr(t, "Removexattr twice", fsys.Removexattr(ctx, name, "user.b"), syscall.ENODATA)
		list(name, "user.a", "user.bin", "user.c", "user.empty")

		// Names: a namespace is required, and at most 255 bytes.
		checkErr(t, "Setxattr without namespace", fsys.Setxattr(ctx, name, "plain", []byte("x"), 0), syscall.EOPNOTSUPP)
		checkErr(t, "Setxattr unknown namespace", fsys.Setxattr(ctx, name, "bogus.x", []byte("x"), 0), syscall.EOPNOTSUPP)
		long := "user." + strings.Repeat("n", 250)
		must(t, "Setxattr 255-byte name", fsys.Setxattr(ctx, name, long, []byte("v"), 0))
		get(name, long, []byte("v"))
		checkErr(t, "Setxattr 256-byte name", fsys.Setxattr(ctx, name, long+"n", []byte("v"), 0), syscall.ERANGE)
		checkErr(t, "Setxattr empty name", fsys.Setxattr(ctx, name, "", []byte("v"), 0), syscall.ERANGE)
		must(t, "Removexattr", fsys.Removexattr(ctx, name, long))
		big := bytes.Repeat([]byte("v"), 1000)
		must(t, "Setxattr 1000-byte value", fsys.Setxattr(ctx, name, "user.big", big, 0))
		get(name, "user.big", big)
	}
	// The attributes belong to the inode: a hard link shares them.
	must(t, "Link", fsys.Link(ctx, "/f", "/g"))
	get("/g", "user.a", []byte("1"))
	must(t, "Rename", fsys.Rename(ctx, "/g", "/h", 0))
	get("/h", "user.c", []byte("3"))

	// The calls do not follow symlinks, and user.* attributes are not allowed on
	// symlinks.
	list("/l")
	_, err := fsys.Getxattr(ctx, "/l", "user.a")
	checkErr(t, "Getxattr on a symlink", err, syscall.ENODATA)
	checkErr(t, "Setxattr on a symlink", fsys.Setxattr(ctx, "/l", "user.a", []byte("x"), 0), syscall.EPERM)
	checkErr(t, "Setxattr on a dangling symlink", fsys.Setxattr(ctx, "/dangling", "user.a", []byte("x"), 0), syscall.EPERM)
	get("/f", "user.a", []byte("1"))

	for _, tc := range []struct {
		name string
		want syscall.Errno
	}{
		{"/nope", syscall.ENOENT},
		{"/f/x", syscall.ENOTDIR},
		{"/nope/x", syscall.ENOENT},
	} {
		_, err := fsys.Getxattr(ctx, tc.name, "user.a")
		checkErr(t, "Getxattr "+tc.name, err, tc.want)
		checkErr(t, "Setxattr "+tc.name, fsys.Setxattr(ctx, tc.name, "user.a", nil, 0), tc.want)
		_, err = fsys.Listxattr(ctx, tc.name)
		checkErr(t, "Listxattr "+tc.name, err, tc.want)
		checkErr(t, "Removexattr "+tc.name, fsys.Removexattr(ctx, tc.name, "user.a"), tc.want)
	}
	// Removing the file removes its attributes: a new file at the name has none.
	must(t, "Remove", fsys.Remove(ctx, "/h"))
	must(t, "Remove", fsys.Remove(ctx, "/f"))
	writeFile(t, fsys, "/f", "new")
	list("/f")
}
