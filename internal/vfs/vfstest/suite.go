package vfstest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

// Test is one conformance test. It gets a fresh, empty filesystem.
type Test func(t *testing.T, fsys FS)

// Tests are the conformance tests by name. Run runs them all; a package may also
// run a single one directly.
var Tests = map[string]Test{
	"Append":            testAppend,
	"Chmod":             testChmod,
	"Chown":             testChown,
	"Chtimes":           testChtimes,
	"Closed":            testClosed,
	"CreateMode":        testCreateMode,
	"DotDot":            testDotDot,
	"HandleModes":       testHandleModes,
	"LargeFile":         testLargeFile,
	"Link":              testLink,
	"Mkdir":             testMkdir,
	"MknodDevices":      testMknodDevices,
	"MknodErrors":       testMknodErrors,
	"MknodTypes":        testMknodTypes,
	"MkdirAll":          testMkdirAll,
	"ModeBits":          testModeBits,
	"NameMax":           testNameMax,
	"NlinkDir":          testNlinkDir,
	"NotDir":            testNotDir,
	"OpenFlags":         testOpenFlags,
	"OverwriteMiddle":   testOverwriteMiddle,
	"ReadAtWriteAt":     testReadAtWriteAt,
	"ReadDir":           testReadDir,
	"ReadFileWriteFile": testReadFileWriteFile,
	"ReadWriteSeek":     testReadWriteSeek,
	"Realpath":          testRealpath,
	"Remove":            testRemove,
	"RemoveAll":         testRemoveAll,
	"Rename":            testRename,
	"Sparse":            testSparse,
	"SpecialAttrs":      testSpecialAttrs,
	"SpecialNames":      testSpecialNames,
	"SpecialTimes":      testSpecialTimes,
	"Stat":              testStat,
	"Symlink":           testSymlink,
	"SymlinkLimit":      testSymlinkLimit,
	"Times":             testTimes,
	"Truncate":          testTruncate,
	"Unlinked":          testUnlinked,
	"Xattr":             testXattr,
}

// Run runs every test in Tests, sorted by name, as a subtest of t, each against a
// fresh filesystem from newFS. After a test passes, Run also checks the invariants
// of the tree it left behind: every directory's link count is 2 plus its
// subdirectories, every non-directory's link count is the number of names it has,
// and ReadDir agrees with Lstat on inode numbers and modes.
func Run(t *testing.T, newFS func(t *testing.T) FS) {
	for _, name := range slices.Sorted(maps.Keys(Tests)) {
		t.Run(name, func(t *testing.T) {
			fsys := newFS(t)
			Tests[name](t, fsys)
			if !t.Failed() {
				checkInvariants(t, fsys, "/")
			}
		})
	}
}

// errnoName names an errno ("ENOENT"), or "nil" for 0.
func errnoName(e syscall.Errno) string {
	if e == 0 {
		return "nil"
	}
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return fmt.Sprintf("errno(%d)", int(e))
}

// errnoOf extracts the errno of an error returned by an FS: 0 for nil, and ok=false
// when err is not a *fs.PathError carrying a syscall.Errno.
func errnoOf(err error) (errno syscall.Errno, ok bool) {
	if err == nil {
		return 0, true
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return 0, false
	}
	errno, ok = pe.Err.(syscall.Errno)
	if !ok || errno == 0 || !errors.Is(err, errno) {
		return 0, false
	}
	return errno, true
}

// describeErr renders an error with its errno name.
func describeErr(err error) string {
	if err == nil {
		return "nil"
	}
	if e, ok := errnoOf(err); ok {
		return fmt.Sprintf("%s (%v)", errnoName(e), err)
	}
	return fmt.Sprintf("%v (%T, not a *fs.PathError with a syscall.Errno)", err, err)
}

// checkErr reports an error unless err carries exactly the errno want (0: nil).
func checkErr(t testing.TB, what string, err error, want syscall.Errno) bool {
	t.Helper()
	got, ok := errnoOf(err)
	if ok && got == want {
		return true
	}
	t.Errorf("%s: error %s, want %s", what, describeErr(err), errnoName(want))
	return false
}

// must stops the test if err is not nil.
func must(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %s", what, describeErr(err))
	}
}

// attrOf returns the *vfs.Attr behind a FileInfo.
func attrOf(t testing.TB, fi fs.FileInfo) vfs.Attr {
	t.Helper()
	a, ok := fi.Sys().(*vfs.Attr)
	if !ok {
		t.Fatalf("%s: FileInfo.Sys() is %T, want *vfs.Attr", fi.Name(), fi.Sys())
	}
	return *a
}

func stat(t testing.TB, fsys FS, name string) vfs.Attr {
	t.Helper()
	fi, err := fsys.Stat(t.Context(), name)
	must(t, "Stat "+name, err)
	return attrOf(t, fi)
}

func lstat(t testing.TB, fsys FS, name string) vfs.Attr {
	t.Helper()
	fi, err := fsys.Lstat(t.Context(), name)
	must(t, "Lstat "+name, err)
	return attrOf(t, fi)
}

func mkdir(t testing.TB, fsys FS, name string) {
	t.Helper()
	must(t, "Mkdir "+name, fsys.Mkdir(t.Context(), name, 0o755))
}

func writeFile(t testing.TB, fsys FS, name, data string) {
	t.Helper()
	must(t, "WriteFile "+name, fsys.WriteFile(t.Context(), name, []byte(data), 0o644))
}

func symlink(t testing.TB, fsys FS, target, name string) {
	t.Helper()
	must(t, "Symlink "+name, fsys.Symlink(t.Context(), target, name))
}

func readFile(t testing.TB, fsys FS, name string) []byte {
	t.Helper()
	data, err := fsys.ReadFile(t.Context(), name)
	must(t, "ReadFile "+name, err)
	return data
}

func openFile(t testing.TB, fsys FS, name string, flag int, perm fs.FileMode) File {
	t.Helper()
	f, err := fsys.OpenFile(t.Context(), name, flag, perm)
	must(t, fmt.Sprintf("OpenFile %s %s", name, flagString(flag)), err)
	t.Cleanup(func() { f.Close() })
	return f
}

// checkContent compares a file's content.
func checkContent(t testing.TB, fsys FS, name string, want []byte) {
	t.Helper()
	got, err := fsys.ReadFile(t.Context(), name)
	if !checkErr(t, "ReadFile "+name, err, 0) {
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("ReadFile %s = %s, want %s", name, abbrev(got), abbrev(want))
	}
}

// checkMissing reports an error unless name does not exist.
func checkMissing(t testing.TB, fsys FS, name string) {
	t.Helper()
	_, err := fsys.Lstat(t.Context(), name)
	checkErr(t, "Lstat "+name+" (should be gone)", err, syscall.ENOENT)
}

// checkMode compares the full Unix mode (type and permission bits) from Lstat.
func checkMode(t testing.TB, fsys FS, name string, want uint32) {
	t.Helper()
	if got := lstat(t, fsys, name).Mode; got != want {
		t.Errorf("Lstat %s: mode %#o, want %#o", name, got, want)
	}
}

// abbrev renders data for messages, shortening long values.
func abbrev(data []byte) string {
	if len(data) <= 64 {
		return fmt.Sprintf("%q", data)
	}
	return fmt.Sprintf("%q...(%d bytes)", data[:48], len(data))
}

// perm converts Unix permission bits to an fs.FileMode.
func perm(m uint32) fs.FileMode { return vfs.UnixToFileMode(m & 0o7777) }

var flagNames = []struct {
	flag int
	name string
}{
	{os.O_CREATE, "O_CREATE"}, {os.O_EXCL, "O_EXCL"}, {os.O_TRUNC, "O_TRUNC"},
	{os.O_APPEND, "O_APPEND"}, {syscall.O_DIRECTORY, "O_DIRECTORY"},
	{syscall.O_NOFOLLOW, "O_NOFOLLOW"}, {os.O_SYNC, "O_SYNC"},
}

// flagString renders open flags ("O_RDWR|O_CREATE").
func flagString(flag int) string {
	var parts []string
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		parts = append(parts, "O_RDONLY")
	case os.O_WRONLY:
		parts = append(parts, "O_WRONLY")
	case os.O_RDWR:
		parts = append(parts, "O_RDWR")
	default:
		parts = append(parts, "O_ACCMODE")
	}
	rest := flag &^ (os.O_RDONLY | os.O_WRONLY | os.O_RDWR)
	for _, f := range flagNames {
		if rest&f.flag == f.flag {
			parts = append(parts, f.name)
			rest &^= f.flag
		}
	}
	if rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", rest))
	}
	return strings.Join(parts, "|")
}

// build creates entries under dir from a compact spec, in order:
//
//	"d/"        directory (0755)
//	"f=text"    regular file (0644) holding text
//	"l->target" symlink
//	"h=>f"      hard link h to the existing f (relative to dir)
func build(t testing.TB, fsys FS, dir string, spec ...string) {
	t.Helper()
	for _, s := range spec {
		switch {
		case strings.Contains(s, "->"):
			name, target, _ := strings.Cut(s, "->")
			symlink(t, fsys, target, path.Join(dir, name))
		case strings.HasSuffix(s, "/"):
			mkdir(t, fsys, path.Join(dir, s))
		case strings.Contains(s, "=>"):
			name, old, _ := strings.Cut(s, "=>")
			must(t, "Link "+s, fsys.Link(t.Context(), path.Join(dir, old), path.Join(dir, name)))
		case strings.Contains(s, "="):
			name, data, _ := strings.Cut(s, "=")
			writeFile(t, fsys, path.Join(dir, name), data)
		default:
			t.Fatalf("build: bad spec %q", s)
		}
	}
}

// tree renders the tree under dir in the notation of build, sorted by path, with
// " nlink=N" after files with more than one name; a FIFO, socket or device is
// "name|p", "name|s", "name|c" or "name|b".
func tree(t testing.TB, fsys FS, dir string) []string {
	t.Helper()
	var out []string
	var walk func(rel string)
	walk = func(rel string) {
		ents, err := fsys.ReadDir(t.Context(), path.Join(dir, rel))
		must(t, "ReadDir "+path.Join(dir, rel), err)
		for _, e := range ents {
			r := path.Join(rel, e.Name)
			p := path.Join(dir, r)
			a := lstat(t, fsys, p)
			switch a.Mode & vfs.S_IFMT {
			case vfs.S_IFDIR:
				out = append(out, r+"/")
				walk(r)
			case vfs.S_IFLNK:
				target, err := fsys.Readlink(t.Context(), p)
				must(t, "Readlink "+p, err)
				out = append(out, r+"->"+target)
			case vfs.S_IFIFO, vfs.S_IFSOCK, vfs.S_IFCHR, vfs.S_IFBLK:
				s := r + "|" + vfs.ModeString(a.Mode)[:1] // never opened: a FIFO would block
				if a.Nlink > 1 {
					s += fmt.Sprintf(" nlink=%d", a.Nlink)
				}
				out = append(out, s)
			default:
				s := r + "=" + string(readFile(t, fsys, p))
				if a.Nlink > 1 {
					s += fmt.Sprintf(" nlink=%d", a.Nlink)
				}
				out = append(out, s)
			}
		}
	}
	walk("")
	slices.Sort(out)
	return out
}

// checkTree compares tree(dir) with want (in any order).
func checkTree(t testing.TB, fsys FS, dir string, want ...string) {
	t.Helper()
	got := tree(t, fsys, dir)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("tree %s:\n got  %q\n want %q", dir, got, want)
	}
}

// checkInvariants walks the tree under dir and checks link counts and that ReadDir
// agrees with Lstat.
func checkInvariants(t testing.TB, fsys FS, dir string) {
	t.Helper()
	names := map[uint64]int{}  // inode -> names seen
	nlinks := map[uint64]int{} // inode -> nlink
	paths := map[uint64]string{}
	var walk func(p string)
	walk = func(p string) {
		ents, err := fsys.ReadDir(t.Context(), p)
		if !checkErr(t, "ReadDir "+p, err, 0) {
			return
		}
		subdirs := 0
		for _, e := range ents {
			c := path.Join(p, e.Name)
			a := lstat(t, fsys, c)
			if e.Ino != a.Ino || e.Mode != a.Mode {
				t.Errorf("ReadDir %s: entry %q ino %d mode %#o; Lstat says ino %d mode %#o", p, e.Name, e.Ino, e.Mode, a.Ino, a.Mode)
			}
			if a.IsDir() {
				subdirs++
				walk(c)
				continue
			}
			names[a.Ino]++
			nlinks[a.Ino] = int(a.Nlink)
			paths[a.Ino] = c
		}
		if a := lstat(t, fsys, p); int(a.Nlink) != 2+subdirs {
			t.Errorf("directory %s: nlink %d, want 2+%d subdirectories", p, a.Nlink, subdirs)
		}
	}
	walk(dir)
	for ino, n := range names {
		if nlinks[ino] != n {
			t.Errorf("%s: nlink %d, but the tree has %d names for it", paths[ino], nlinks[ino], n)
		}
	}
}
