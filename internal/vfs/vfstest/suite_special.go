package vfstest

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// The special files: FIFOs, sockets and devices made with Mknod, in the manner
// of pjdfstest's mkfifo, mknod and bind tables (their modes, owners, times,
// links, renames and unlinks), checked against the kernel like the rest.

// specialType is one kind of inode Mknod makes.
type specialType struct {
	name string
	typ  uint32
	dev  uint64 // the device number asked for
	rdev uint64 // the device number Lstat must show
}

// fifoAndSocket need no privilege; devices need CAP_MKNOD where the kernel
// checks (testMknodDevices).
var fifoAndSocket = []specialType{
	{"fifo", vfs.S_IFIFO, unix.Mkdev(1, 3), 0}, // a FIFO's dev is ignored
	{"socket", vfs.S_IFSOCK, 0, 0},
}

var devices = []specialType{
	{"chr", vfs.S_IFCHR, unix.Mkdev(1, 3), unix.Mkdev(1, 3)},
	{"blk", vfs.S_IFBLK, unix.Mkdev(8, 1), unix.Mkdev(8, 1)},
	{"chr-large", vfs.S_IFCHR, unix.Mkdev(300, 70000), unix.Mkdev(300, 70000)},
	{"chr-0", vfs.S_IFCHR, 0, 0},
}

func mknod(t testing.TB, fsys FS, name string, mode uint32, dev uint64) {
	t.Helper()
	must(t, fmt.Sprintf("Mknod %s %#o", name, mode), fsys.Mknod(t.Context(), name, mode, dev))
}

// testMknodTypes makes each type with a table of modes and checks what Lstat
// and ReadDir say, owners included (those of a regular file made the same way).
func testMknodTypes(t *testing.T, fsys FS) {
	checkSpecialTypes(t, fsys, fifoAndSocket)
}

// testMknodDevices is testMknodTypes for character and block devices, whose
// device numbers must come back.
func testMknodDevices(t *testing.T, fsys FS) {
	if _, ok := fsys.(KernelChecked); ok {
		testenv.NeedRoot(t) // CAP_MKNOD
	}
	checkSpecialTypes(t, fsys, devices)
}

func checkSpecialTypes(t *testing.T, fsys FS, types []specialType) {
	ctx := t.Context()
	writeFile(t, fsys, "/ref", "")
	ref := lstat(t, fsys, "/ref")
	modes := []uint32{0o644, 0o000, 0o777, 0o4755, 0o2755, 0o1777, 0o7777, 0o123}
	for _, st := range types {
		for _, m := range modes {
			name := fmt.Sprintf("/%s-%04o", st.name, m)
			mknod(t, fsys, name, st.typ|m, st.dev)
			a := lstat(t, fsys, name)
			if want := st.typ | m; a.Mode != want {
				t.Errorf("%s: mode %#o (%s), want %#o (%s)", name, a.Mode, vfs.ModeString(a.Mode), want, vfs.ModeString(want))
			}
			if a.Nlink != 1 || a.Size != 0 {
				t.Errorf("%s: nlink %d size %d, want 1 and 0", name, a.Nlink, a.Size)
			}
			if a.Rdev != st.rdev {
				t.Errorf("%s: rdev %d:%d, want %d:%d", name, unix.Major(a.Rdev), unix.Minor(a.Rdev), unix.Major(st.rdev), unix.Minor(st.rdev))
			}
			if a.Uid != ref.Uid || a.Gid != ref.Gid {
				t.Errorf("%s: owner %d:%d, want %d:%d as a new file's", name, a.Uid, a.Gid, ref.Uid, ref.Gid)
			}
			if !a.Atime.Equal(a.Mtime) || !a.Mtime.Equal(a.Ctime) {
				t.Errorf("%s: atime %v mtime %v ctime %v, want them equal", name, a.Atime, a.Mtime, a.Ctime)
			}
			// Stat follows nothing here; through a symlink it reaches the node.
			symlink(t, fsys, name[1:], name+".l")
			if s := stat(t, fsys, name+".l"); s.Ino != a.Ino || s.Mode != a.Mode {
				t.Errorf("Stat %s.l: ino %d mode %#o, want %d %#o", name, s.Ino, s.Mode, a.Ino, a.Mode)
			}
		}
	}
	// The ReadDir entries carry the type (checkInvariants compares them to
	// Lstat); the type 0 and S_IFREG make regular files.
	mknod(t, fsys, "/reg0", 0o640, 0)
	checkMode(t, fsys, "/reg0", vfs.S_IFREG|0o640)
	mknod(t, fsys, "/reg", vfs.S_IFREG|0o600, 0)
	checkMode(t, fsys, "/reg", vfs.S_IFREG|0o600)
	checkContent(t, fsys, "/reg", []byte{})
	ents, err := fsys.ReadDir(ctx, "/")
	must(t, "ReadDir", err)
	kinds := map[uint32]int{}
	for _, e := range ents {
		kinds[e.Mode&vfs.S_IFMT]++
	}
	for _, st := range types {
		if kinds[st.typ] == 0 {
			t.Errorf("ReadDir: no entry of type %#o", st.typ)
		}
	}
}

// testMknodErrors checks the errnos of Mknod and of what cannot be done to a
// special file.
func testMknodErrors(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=x", "d/", "l->f", "dangling->nope")
	mknod(t, fsys, "/p", vfs.S_IFIFO|0o644, 0)
	mknod(t, fsys, "/s", vfs.S_IFSOCK|0o644, 0)
	symlink(t, fsys, "p", "/lp")
	long := strings.Repeat("n", 256)
	for _, tc := range []struct {
		name string
		mode uint32
		want syscall.Errno
	}{
		{"/dir", vfs.S_IFDIR | 0o755, syscall.EPERM}, // mknod makes no directory
		{"/lnk", vfs.S_IFLNK | 0o777, syscall.EINVAL},
		{"/bad", vfs.S_IFMT | 0o644, syscall.EINVAL},
		{"/f", vfs.S_IFDIR | 0o755, syscall.EPERM}, // the type is checked before the name
		{"/f", vfs.S_IFIFO | 0o644, syscall.EEXIST},
		{"/d", vfs.S_IFIFO | 0o644, syscall.EEXIST},
		{"/l", vfs.S_IFIFO | 0o644, syscall.EEXIST},
		{"/dangling", vfs.S_IFIFO | 0o644, syscall.EEXIST}, // a final symlink is not followed
		{"/p", vfs.S_IFIFO | 0o644, syscall.EEXIST},
		{"/s", vfs.S_IFSOCK | 0o644, syscall.EEXIST},
		{"/p", 0o644, syscall.EEXIST},
		{"/missing/p", vfs.S_IFIFO | 0o644, syscall.ENOENT},
		{"/f/p", vfs.S_IFIFO | 0o644, syscall.ENOTDIR},
		{"/p/p", vfs.S_IFIFO | 0o644, syscall.ENOTDIR},
		{"/" + long, vfs.S_IFIFO | 0o644, syscall.ENAMETOOLONG},
		{"/new/", vfs.S_IFIFO | 0o644, syscall.ENOENT},
		{"/p/", vfs.S_IFIFO | 0o644, syscall.EEXIST},
		{"/f/", vfs.S_IFSOCK | 0o644, syscall.EEXIST},
	} {
		checkErr(t, fmt.Sprintf("Mknod %s %#o", tc.name, tc.mode), fsys.Mknod(ctx, tc.name, tc.mode, 0), tc.want)
	}
	checkMissing(t, fsys, "/new")
	checkMode(t, fsys, "/f", vfs.S_IFREG|0o644)

	for _, n := range []string{"/p", "/s", "/lp"} {
		checkErr(t, "Truncate "+n, fsys.Truncate(ctx, n, 0), syscall.EINVAL)
		_, err := fsys.Readlink(ctx, strings.TrimPrefix(n, "/l"))
		if n != "/lp" {
			checkErr(t, "Readlink "+n, err, syscall.EINVAL)
		}
	}
	_, err := fsys.Stat(ctx, "/p/")
	checkErr(t, "Stat /p/", err, syscall.ENOTDIR)
	_, err = fsys.ReadDir(ctx, "/p")
	checkErr(t, "ReadDir /p", err, syscall.ENOTDIR)
	checkErr(t, "Mkdir /p", fsys.Mkdir(ctx, "/p", 0o755), syscall.EEXIST)
	// A socket cannot be opened (the kernel too says ENXIO).
	_, err = fsys.OpenFile(ctx, "/s", os.O_RDONLY, 0)
	checkErr(t, "OpenFile /s", err, syscall.ENXIO)
	_, err = fsys.OpenFile(ctx, "/s", os.O_RDWR|os.O_CREATE, 0o644)
	checkErr(t, "OpenFile /s O_CREATE", err, syscall.ENXIO)
	_, err = fsys.OpenFile(ctx, "/s", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	checkErr(t, "OpenFile /s O_EXCL", err, syscall.EEXIST)
	_, err = fsys.OpenFile(ctx, "/p", syscall.O_DIRECTORY, 0)
	checkErr(t, "OpenFile /p O_DIRECTORY", err, syscall.ENOTDIR)
	// user.* attributes belong to files and directories only.
	for _, n := range []string{"/p", "/s"} {
		checkErr(t, "Setxattr "+n, fsys.Setxattr(ctx, n, "user.x", []byte("v"), 0), syscall.EPERM)
		_, err := fsys.Getxattr(ctx, n, "user.x")
		checkErr(t, "Getxattr "+n, err, syscall.ENODATA)
		names, err := fsys.Listxattr(ctx, n)
		if checkErr(t, "Listxattr "+n, err, 0) && len(names) != 0 {
			t.Errorf("Listxattr %s = %q, want none", n, names)
		}
		checkErr(t, "Removexattr "+n, fsys.Removexattr(ctx, n, "user.x"), syscall.EPERM)
	}
}

// testSpecialNames links, renames and removes special files.
func testSpecialNames(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=x", "g=y", "d/", "e/", "e/x=1")
	mknod(t, fsys, "/p", vfs.S_IFIFO|0o640, 0)
	mknod(t, fsys, "/s", vfs.S_IFSOCK|0o755, 0)
	mknod(t, fsys, "/q", vfs.S_IFIFO|0o600, 0)
	mknod(t, fsys, "/r", vfs.S_IFIFO|0o600, 0)
	p := lstat(t, fsys, "/p")

	// Links: the same inode under two names, in another directory too.
	must(t, "Link", fsys.Link(ctx, "/p", "/p2"))
	must(t, "Link", fsys.Link(ctx, "/p", "/d/p3"))
	for _, n := range []string{"/p", "/p2", "/d/p3"} {
		if a := lstat(t, fsys, n); a.Ino != p.Ino || a.Nlink != 3 || a.Mode != p.Mode {
			t.Errorf("%s: ino %d nlink %d mode %#o, want %d 3 %#o", n, a.Ino, a.Nlink, a.Mode, p.Ino, p.Mode)
		}
	}
	checkErr(t, "Link onto a name", fsys.Link(ctx, "/p", "/f"), syscall.EEXIST)
	checkErr(t, "Link to /p/", fsys.Link(ctx, "/p/", "/x"), syscall.ENOTDIR)
	must(t, "Remove", fsys.Remove(ctx, "/p2"))
	checkMissing(t, fsys, "/p2")
	if a := lstat(t, fsys, "/d/p3"); a.Nlink != 2 {
		t.Errorf("after Remove /p2: nlink %d, want 2", a.Nlink)
	}
	checkErr(t, "Remove /p/", fsys.Remove(ctx, "/p/"), syscall.ENOTDIR)

	// Renames: to a new name, over a file, a file over one, into a directory.
	must(t, "Rename", fsys.Rename(ctx, "/s", "/s2", 0))
	checkMissing(t, fsys, "/s")
	checkMode(t, fsys, "/s2", vfs.S_IFSOCK|0o755)
	must(t, "Rename over a file", fsys.Rename(ctx, "/s2", "/f", 0))
	checkMode(t, fsys, "/f", vfs.S_IFSOCK|0o755)
	must(t, "Rename a file over a FIFO", fsys.Rename(ctx, "/g", "/q", 0))
	checkContent(t, fsys, "/q", []byte("y"))
	must(t, "Rename into a directory", fsys.Rename(ctx, "/d/p3", "/e/p3", 0))
	if a := lstat(t, fsys, "/e/p3"); a.Ino != p.Ino {
		t.Errorf("/e/p3: ino %d, want %d", a.Ino, p.Ino)
	}
	checkErr(t, "Rename onto a directory", fsys.Rename(ctx, "/r", "/d", 0), syscall.EISDIR)
	checkErr(t, "Rename a directory onto a FIFO", fsys.Rename(ctx, "/d", "/r", 0), syscall.ENOTDIR)
	checkErr(t, "Rename NoReplace", fsys.Rename(ctx, "/r", "/p", vfs.RenameNoReplace), syscall.EEXIST)
	checkErr(t, "Rename /r/", fsys.Rename(ctx, "/r/", "/r2", 0), syscall.ENOTDIR)
	must(t, "Rename onto another name of itself", fsys.Rename(ctx, "/p", "/e/p3", 0))
	checkMode(t, fsys, "/p", vfs.S_IFIFO|0o640) // a no-op, as rename(2) says
	must(t, "Rename exchange", fsys.Rename(ctx, "/r", "/e", vfs.RenameExchange))
	checkMode(t, fsys, "/e", vfs.S_IFIFO|0o600)
	if a := lstat(t, fsys, "/r"); !a.IsDir() {
		t.Errorf("/r after the exchange: mode %#o, want a directory", a.Mode)
	}
	checkContent(t, fsys, "/r/x", []byte("1"))

	// Unlink of the last name; RemoveAll of a tree holding them.
	must(t, "Remove", fsys.Remove(ctx, "/e"))
	checkMissing(t, fsys, "/e")
	must(t, "Remove", fsys.Remove(ctx, "/f"))
	checkMissing(t, fsys, "/f")
	mknod(t, fsys, "/d/deep", vfs.S_IFSOCK|0o600, 0)
	must(t, "RemoveAll", fsys.RemoveAll(ctx, "/r"))
	checkMissing(t, fsys, "/r/p3")
	checkMissing(t, fsys, "/r")
	if a := lstat(t, fsys, "/p"); a.Nlink != 1 {
		t.Errorf("/p: nlink %d after /r/p3 went, want 1", a.Nlink)
	}
	checkTree(t, fsys, "/", "d/", "d/deep|s", "p|p", "q=y")
}

// testSpecialAttrs changes a special file's mode, owner and times.
func testSpecialAttrs(t *testing.T, fsys FS) {
	if _, ok := fsys.(KernelChecked); ok {
		testenv.NeedRoot(t) // Chown
	}
	ctx := t.Context()
	mknod(t, fsys, "/p", vfs.S_IFIFO|0o644, 0)
	mknod(t, fsys, "/s", vfs.S_IFSOCK|0o644, 0)
	for _, n := range []string{"/p", "/s"} {
		for _, m := range []uint32{0o7777, 0, 0o4755, 0o1700, 0o640} {
			must(t, "Chmod", fsys.Chmod(ctx, n, perm(m)))
			checkMode(t, fsys, n, lstat(t, fsys, n).Mode&vfs.S_IFMT|m)
		}
		must(t, "Chown", fsys.Chown(ctx, n, 1234, 5678))
		if a := lstat(t, fsys, n); a.Uid != 1234 || a.Gid != 5678 {
			t.Errorf("%s: owner %d:%d, want 1234:5678", n, a.Uid, a.Gid)
		}
		// chown clears setuid, and setgid with group execute, as for files.
		must(t, "Chmod", fsys.Chmod(ctx, n, perm(0o6755)))
		must(t, "Chown", fsys.Chown(ctx, n, 1, 1))
		checkMode(t, fsys, n, lstat(t, fsys, n).Mode&vfs.S_IFMT|0o755)
		when := time.Date(1999, 12, 31, 23, 59, 59, 123456789, time.UTC)
		must(t, "Chtimes", fsys.Chtimes(ctx, n, when, when.Add(time.Hour)))
		if a := lstat(t, fsys, n); !a.Atime.Equal(when) || !a.Mtime.Equal(when.Add(time.Hour)) {
			t.Errorf("%s: atime %v mtime %v, want %v and %v", n, a.Atime, a.Mtime, when, when.Add(time.Hour))
		}
	}
	// Through a symlink, Chmod and Chown reach the node.
	symlink(t, fsys, "p", "/l")
	must(t, "Chmod", fsys.Chmod(ctx, "/l", 0o600))
	checkMode(t, fsys, "/p", vfs.S_IFIFO|0o600)
	must(t, "Chown", fsys.Chown(ctx, "/l", 42, 43))
	if a := lstat(t, fsys, "/p"); a.Uid != 42 || a.Gid != 43 {
		t.Errorf("/p: owner %d:%d after Chown through /l, want 42:43", a.Uid, a.Gid)
	}
}

// testSpecialTimes checks which times each operation on a special file moves,
// and its directory's.
func testSpecialTimes(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "dmk/", "drm/", "dmv/", "dto/")
	mknod(t, fsys, "/chmod", vfs.S_IFIFO|0o644, 0)
	mknod(t, fsys, "/link", vfs.S_IFIFO|0o644, 0)
	mknod(t, fsys, "/unlink", vfs.S_IFSOCK|0o644, 0)
	must(t, "Link", fsys.Link(ctx, "/unlink", "/unlink2"))
	mknod(t, fsys, "/rename", vfs.S_IFIFO|0o644, 0)
	mknod(t, fsys, "/untouched", vfs.S_IFIFO|0o644, 0)
	mknod(t, fsys, "/drm/p", vfs.S_IFIFO|0o644, 0)
	mknod(t, fsys, "/dmv/p", vfs.S_IFIFO|0o644, 0)
	past := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	names := []string{"/chmod", "/link", "/unlink2", "/rename", "/untouched", "/dmk", "/drm", "/dmv", "/dto"}
	for _, n := range names {
		must(t, "Chtimes", fsys.Chtimes(ctx, n, past, past))
	}
	before := snapTimes(t, fsys, names)
	must(t, "Chmod", fsys.Chmod(ctx, "/chmod", 0o600))
	must(t, "Link", fsys.Link(ctx, "/link", "/link2"))
	must(t, "Remove", fsys.Remove(ctx, "/unlink"))
	must(t, "Rename", fsys.Rename(ctx, "/rename", "/renamed", 0))
	mknod(t, fsys, "/dmk/p", vfs.S_IFSOCK|0o644, 0)
	must(t, "Remove", fsys.Remove(ctx, "/drm/p"))
	must(t, "Rename", fsys.Rename(ctx, "/dmv/p", "/dto/p", 0))
	lstat(t, fsys, "/untouched")
	checkTimes(t, fsys, before, []timeCase{
		{"/chmod", "", true, false},
		{"/link", "", true, false},
		{"/unlink2", "", true, false},
		{"/renamed", "/rename", true, false},
		{"/untouched", "", false, false},
		{"/dmk", "", true, true},
		{"/drm", "", true, true},
		{"/dmv", "", true, true},
		{"/dto", "", true, true},
	})
	// A new node's times are the clock's, after the probe's.
	probe := lstat(t, fsys, "/probe")
	if a := lstat(t, fsys, "/dmk/p"); a.Ctime.Before(probe.Ctime) || !a.Mtime.Equal(a.Ctime) {
		t.Errorf("/dmk/p: ctime %v mtime %v, want equal and not before %v", a.Ctime, a.Mtime, probe.Ctime)
	}
}
