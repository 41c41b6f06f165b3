package fusefs_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// helperEnv names the helper a re-executed test binary runs (see TestMain).
const helperEnv = "FUSEFS_TEST_HELPER"

// TestMain runs a helper instead of the tests when the binary is re-executed
// by a test: a process that maps or locks files on the mount must not be the
// process serving it (a page fault on a mapping blocks its thread outside any
// system call, which can stop the Go runtime's garbage collector and with it
// the server).
func TestMain(m *testing.M) {
	if h := os.Getenv(helperEnv); h != "" {
		if err := runHelper(h, os.Args[len(os.Args)-1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runHelper runs helper name on path p.
func runHelper(name, p string) error {
	switch name {
	case "mmap-write":
		// Map the file shared and writable, write through the mapping.
		fd, err := unix.Open(p, unix.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		m, err := unix.Mmap(fd, 0, 8192, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			return fmt.Errorf("mmap: %w", err)
		}
		if string(m[:5]) != "hello" {
			return fmt.Errorf("mapping reads %q", m[:5])
		}
		copy(m[0:], "HELLO")
		copy(m[5000:], "mapped")
		if err := unix.Msync(m, unix.MS_SYNC); err != nil {
			return fmt.Errorf("msync: %w", err)
		}
		return unix.Munmap(m)
	case "mmap-read":
		// Print what a private read-only mapping sees.
		fd, err := unix.Open(p, unix.O_RDONLY, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		m, err := unix.Mmap(fd, 0, 4096, unix.PROT_READ, unix.MAP_PRIVATE)
		if err != nil {
			return fmt.Errorf("mmap: %w", err)
		}
		fmt.Print(strings.TrimRight(string(m), "\x00"))
		return unix.Munmap(m)
	case "mmap-watch":
		// Keep a shared mapping and print its start every time a line
		// arrives on stdin: the parent changes the file in between.
		fd, err := unix.Open(p, unix.O_RDONLY, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		m, err := unix.Mmap(fd, 0, 4096, unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return fmt.Errorf("mmap: %w", err)
		}
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Println(strings.TrimRight(string(m[:16]), "\x00"))
		}
		return unix.Munmap(m)
	case "posix-lock":
		// Try a write lock held by the parent process: must conflict.
		fd, err := unix.Open(p, unix.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		lk := unix.Flock_t{Type: unix.F_WRLCK}
		err = unix.FcntlFlock(uintptr(fd), unix.F_SETLK, &lk)
		fmt.Print(unix.ErrnoName(errorsErrno(err)))
		return nil
	}
	if ok, err := specialHelper(name, p); ok {
		return err
	}
	if name == "crash-serve" {
		return crashServe(p)
	}
	return fmt.Errorf("unknown helper %q", name)
}

func errorsErrno(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}

// helper runs the test binary as helper name on path p and returns its output.
func helper(t *testing.T, name, p string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$", p)
	cmd.Env = append(os.Environ(), helperEnv+"="+name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper %s: %v: %s", name, err, out)
	}
	return string(out)
}

// TestMmap maps files on the mount in another process: shared writable
// mappings reach the store, and a mapping sees what the store holds.
func TestMmap(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	ctx := context.Background()
	must(t, "write", os.WriteFile(e.path("m"), append([]byte("hello"), make([]byte, 8192-5)...), 0o644))
	helper(t, "mmap-write", e.path("m"))
	got, err := e.store.ReadFile(ctx, "/m")
	must(t, "read", err)
	if string(got[:5]) != "HELLO" || string(got[5000:5006]) != "mapped" || len(got) != 8192 {
		t.Fatalf("store after shared mapping: %q ... %q (%d bytes)", got[:5], got[5000:5006], len(got))
	}
	must(t, "write", e.store.WriteFile(ctx, "/m", []byte("from the store"), 0o644))
	if out := helper(t, "mmap-read", e.path("m")); out != "from the store" {
		t.Fatalf("mapping reads %q", out)
	}

	// A mapping that stays in place sees writes made in the store.
	must(t, "write", e.store.WriteFile(ctx, "/w", append([]byte("version one"), make([]byte, 4096)...), 0o644))
	cmd := exec.Command(os.Args[0], "-test.run=^$", e.path("w"))
	cmd.Env = append(os.Environ(), helperEnv+"=mmap-watch")
	stdin, err := cmd.StdinPipe()
	must(t, "pipe", err)
	stdout, err := cmd.StdoutPipe()
	must(t, "pipe", err)
	cmd.Stderr = os.Stderr
	must(t, "start", cmd.Start())
	defer cmd.Wait()
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)
	next := func() string {
		fmt.Fprintln(stdin)
		if !lines.Scan() {
			t.Fatalf("helper stopped: %v", lines.Err())
		}
		return lines.Text()
	}
	if got := next(); got != "version one" {
		t.Fatalf("mapping reads %q", got)
	}
	h, err := e.store.OpenFile(ctx, "/w", os.O_WRONLY, 0)
	must(t, "open", err)
	_, err = h.WriteAt([]byte("VERSION TWO"), 0)
	must(t, "write", err)
	must(t, "close", h.Close())
	e.sync(t)
	if got := next(); got != "VERSION TWO" {
		t.Fatalf("mapping still reads %q after a store write", got)
	}
}

// TestLocks: flock and OFD locks conflict between two open files of one
// process, POSIX locks between processes. The kernel keeps the lock tables
// (the server does not ask for lock requests), which is right as long as every
// process that locks a workspace file does so through this mount.
func TestLocks(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	must(t, "write", os.WriteFile(e.path("l"), []byte("x"), 0o644))
	open := func() int {
		fd, err := unix.Open(e.path("l"), unix.O_RDWR, 0)
		must(t, "open", err)
		t.Cleanup(func() { unix.Close(fd) })
		return fd
	}
	a, b := open(), open()

	must(t, "flock a", unix.Flock(a, unix.LOCK_EX|unix.LOCK_NB))
	if err := unix.Flock(b, unix.LOCK_EX|unix.LOCK_NB); err != unix.EWOULDBLOCK {
		t.Fatalf("second exclusive flock: %v, want EWOULDBLOCK", err)
	}
	if err := unix.Flock(b, unix.LOCK_SH|unix.LOCK_NB); err != unix.EWOULDBLOCK {
		t.Fatalf("shared flock under exclusive: %v, want EWOULDBLOCK", err)
	}
	must(t, "unlock a", unix.Flock(a, unix.LOCK_UN))
	must(t, "flock b", unix.Flock(b, unix.LOCK_EX|unix.LOCK_NB))
	must(t, "unlock b", unix.Flock(b, unix.LOCK_UN))

	lk := unix.Flock_t{Type: unix.F_WRLCK}
	must(t, "OFD lock a", unix.FcntlFlock(uintptr(a), unix.F_OFD_SETLK, &lk))
	lk2 := unix.Flock_t{Type: unix.F_RDLCK}
	if err := unix.FcntlFlock(uintptr(b), unix.F_OFD_SETLK, &lk2); err != unix.EAGAIN {
		t.Fatalf("conflicting OFD lock: %v, want EAGAIN", err)
	}
	lk.Type = unix.F_UNLCK
	must(t, "OFD unlock", unix.FcntlFlock(uintptr(a), unix.F_OFD_SETLK, &lk))

	lk = unix.Flock_t{Type: unix.F_WRLCK}
	must(t, "POSIX lock", unix.FcntlFlock(uintptr(a), unix.F_SETLK, &lk))
	if got := helper(t, "posix-lock", e.path("l")); got != "EAGAIN" {
		t.Fatalf("POSIX lock from another process: %q, want EAGAIN", got)
	}
}

// TestUnlinkedOpenFile: a file keeps working while open after its last name
// goes, through the mount or in the store; it is deleted when the last
// descriptor closes.
func TestUnlinkedOpenFile(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	ctx := context.Background()
	for _, how := range []string{"mount", "store"} {
		t.Run(how, func(t *testing.T) {
			p := e.path("u-" + how)
			f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
			must(t, "create", err)
			defer f.Close()
			_, err = f.Write([]byte("before"))
			must(t, "write", err)
			if how == "mount" {
				must(t, "remove", os.Remove(p))
			} else {
				must(t, "remove", e.store.Remove(ctx, "/u-"+how))
				e.sync(t)
			}
			if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("name still there: %v", err)
			}
			_, err = f.Write([]byte(" and after"))
			must(t, "write after unlink", err)
			buf := make([]byte, 64)
			n, _ := f.ReadAt(buf, 0)
			if string(buf[:n]) != "before and after" {
				t.Fatalf("read %q", buf[:n])
			}
			fi, err := f.Stat()
			must(t, "fstat", err)
			if st := fi.Sys().(*syscall.Stat_t); st.Nlink != 0 || st.Size != 16 {
				t.Fatalf("fstat: nlink %d size %d", st.Nlink, st.Size)
			}
			must(t, "fchmod", f.Chmod(0o600))
			must(t, "ftruncate", f.Truncate(3))
			must(t, "close", f.Close())
			st, err := e.store.Stats(ctx)
			must(t, "stats", err)
			if st.Files != 0 {
				t.Fatalf("%d files left in the store after the last close", st.Files)
			}
		})
	}
}

// TestRenameFlags: renameat2 with RENAME_NOREPLACE, RENAME_EXCHANGE and
// RENAME_WHITEOUT.
func TestRenameFlags(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	must(t, "write", os.WriteFile(e.path("a"), []byte("A"), 0o644))
	must(t, "write", os.WriteFile(e.path("b"), []byte("B"), 0o644))
	must(t, "mkdir", os.MkdirAll(e.path("d/sub"), 0o755))
	rename := func(a, b string, flags uint) error {
		return unix.Renameat2(unix.AT_FDCWD, e.path(a), unix.AT_FDCWD, e.path(b), flags)
	}
	if err := rename("a", "b", unix.RENAME_NOREPLACE); err != unix.EEXIST {
		t.Fatalf("noreplace over existing: %v", err)
	}
	must(t, "noreplace to new", rename("a", "c", unix.RENAME_NOREPLACE))
	must(t, "exchange files", rename("c", "b", unix.RENAME_EXCHANGE))
	if readFile(t, e.path("c")) != "B" || readFile(t, e.path("b")) != "A" {
		t.Fatal("files not exchanged")
	}
	must(t, "exchange file and dir", rename("b", "d", unix.RENAME_EXCHANGE))
	if st := stat(t, e.path("b")); st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Nlink != 3 {
		t.Fatalf("b after exchange: mode %o nlink %d", st.Mode, st.Nlink)
	}
	if readFile(t, e.path("d")) != "A" {
		t.Fatal("d after exchange")
	}
	if err := rename("b", "b/sub", unix.RENAME_EXCHANGE); err != unix.EINVAL {
		t.Fatalf("exchange with descendant: %v", err)
	}
	if err := rename("c", "zz", unix.RENAME_EXCHANGE); err != unix.ENOENT {
		t.Fatalf("exchange with missing: %v", err)
	}
	// RENAME_WHITEOUT (overlayfs's, over an upper layer here) leaves a
	// character device 0:0 at the old name; not with RENAME_EXCHANGE.
	if err := rename("c", "d", unix.RENAME_WHITEOUT|unix.RENAME_EXCHANGE); err != unix.EINVAL {
		t.Fatalf("whiteout with exchange: %v", err)
	}
	must(t, "write", os.WriteFile(e.path("w"), []byte("W"), 0o644))
	must(t, "whiteout", rename("w", "w2", unix.RENAME_WHITEOUT))
	if st := stat(t, e.path("w")); st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != 0 || readFile(t, e.path("w2")) != "W" {
		t.Fatalf("after the whiteout rename: w mode %o rdev %d", st.Mode, st.Rdev)
	}
	ctx := context.Background()
	if fi, err := e.store.Lstat(ctx, "/w"); err != nil || fi.Mode()&os.ModeCharDevice == 0 || fi.Attr().Rdev != 0 {
		t.Fatalf("store /w: %v %v", fi, err)
	}
	if got, _ := e.store.ReadFile(ctx, "/d"); string(got) != "A" {
		t.Fatalf("store /d = %q", got)
	}
	if fi, err := e.store.Stat(ctx, "/b/sub"); err != nil || !fi.IsDir() {
		t.Fatalf("store /b/sub: %v", err)
	}
}

// TestLongNames: names of NAME_MAX bytes and paths up to PATH_MAX work; one
// byte more is ENAMETOOLONG.
func TestLongNames(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	ctx := context.Background()
	long := strings.Repeat("n", 255)
	must(t, "create 255", os.WriteFile(e.path(long), []byte("x"), 0o644))
	must(t, "rename 255", os.Rename(e.path(long), e.path(strings.Repeat("m", 255))))
	if names := dirNames(t, e.mnt); len(names) != 1 || names[0] != strings.Repeat("m", 255) {
		t.Fatalf("readdir: %v", names)
	}
	if err := os.WriteFile(e.path(strings.Repeat("n", 256)), nil, 0o644); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Fatalf("256-byte name: %v", err)
	}
	if _, err := e.store.Stat(ctx, "/"+strings.Repeat("m", 255)); err != nil {
		t.Fatal(err)
	}

	// A path of PATH_MAX-1 bytes (the kernel's limit with the NUL), made of
	// 200-byte directories under the mount point.
	host := e.mnt
	comp := strings.Repeat("d", 200)
	for len(host)+1+len(comp)+1+40 < unix.PathMax-1 {
		host += "/" + comp
	}
	must(t, "mkdir deep", os.MkdirAll(host, 0o755))
	last := strings.Repeat("f", unix.PathMax-1-len(host)-1)
	p := host + "/" + last
	if len(p) != unix.PathMax-1 {
		t.Fatalf("built a %d-byte path", len(p))
	}
	must(t, "create at PATH_MAX", os.WriteFile(p, []byte("deep"), 0o644))
	if got := readFile(t, p); got != "deep" {
		t.Fatalf("got %q", got)
	}
	rel := strings.TrimPrefix(p, e.mnt)
	if got, err := e.store.ReadFile(ctx, rel); err != nil || string(got) != "deep" {
		t.Fatalf("store %s: %q %v", rel[:20], got, err)
	}
	if err := os.WriteFile(p+"x", nil, 0o644); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Fatalf("PATH_MAX path: %v", err)
	}
	// Below a directory reached by a descriptor, a name whose store path would
	// pass the store's path limit is ENAMETOOLONG too.
	dfd, err := unix.Open(host, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	must(t, "open dir", err)
	storeLen := len(host) - len(e.mnt)
	z := strings.Repeat("z", 255)
	for {
		err := unix.Mkdirat(dfd, z, 0o755)
		if storeLen+1+len(z) > vfs.DefaultMaxPathLen {
			if err != unix.ENAMETOOLONG {
				t.Fatalf("mkdirat making a %d-byte store path: %v", storeLen+1+len(z), err)
			}
			break
		}
		must(t, "mkdirat", err)
		next, err := unix.Openat(dfd, z, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		must(t, "openat", err)
		unix.Close(dfd)
		dfd, storeLen = next, storeLen+1+len(z)
	}
	unix.Close(dfd)
}

// TestSeekDataHole: lseek SEEK_DATA and SEEK_HOLE on a sparse file.
func TestSeekDataHole(t *testing.T) {
	const cs = 64 << 10
	e := newEnv(t, vfs.Options{ChunkSize: cs}, fusefs.Options{})
	f, err := os.Create(e.path("sparse"))
	must(t, "create", err)
	defer f.Close()
	_, err = f.WriteAt([]byte("data"), 0)
	must(t, "write", err)
	_, err = f.WriteAt([]byte("more"), 10*cs+7)
	must(t, "write", err)
	must(t, "truncate", f.Truncate(20*cs))
	fd := int(f.Fd())
	for _, tc := range []struct {
		off    int64
		whence int
		want   int64
		err    error
	}{
		{0, unix.SEEK_DATA, 0, nil},
		{0, unix.SEEK_HOLE, cs, nil},
		{cs, unix.SEEK_DATA, 10 * cs, nil},
		{10*cs + 1, unix.SEEK_DATA, 10*cs + 1, nil},
		{10 * cs, unix.SEEK_HOLE, 11 * cs, nil},
		{11 * cs, unix.SEEK_DATA, 0, unix.ENXIO},
		{19 * cs, unix.SEEK_HOLE, 19 * cs, nil},
		{20 * cs, unix.SEEK_HOLE, 0, unix.ENXIO},
	} {
		got, err := unix.Seek(fd, tc.off, tc.whence)
		if err != tc.err || err == nil && got != tc.want {
			t.Errorf("lseek(%d, %d) = %d, %v; want %d, %v", tc.off, tc.whence, got, err, tc.want, tc.err)
		}
	}
}

// TestXattrs: get, set, list and remove through the mount, with sizes and
// flags as xattr(7) says.
func TestXattrs(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	p := e.path("x")
	must(t, "write", os.WriteFile(p, nil, 0o644))
	must(t, "set", unix.Setxattr(p, "user.one", []byte("1"), 0))
	must(t, "set", unix.Setxattr(p, "user.two", []byte("22"), unix.XATTR_CREATE))
	if err := unix.Setxattr(p, "user.two", []byte("x"), unix.XATTR_CREATE); err != unix.EEXIST {
		t.Fatalf("XATTR_CREATE on existing: %v", err)
	}
	if err := unix.Setxattr(p, "user.three", []byte("x"), unix.XATTR_REPLACE); err != unix.ENODATA {
		t.Fatalf("XATTR_REPLACE on missing: %v", err)
	}
	if n, err := unix.Getxattr(p, "user.two", nil); err != nil || n != 2 {
		t.Fatalf("size query: %d %v", n, err)
	}
	if _, err := unix.Getxattr(p, "user.two", make([]byte, 1)); err != unix.ERANGE {
		t.Fatalf("small buffer: %v", err)
	}
	buf := make([]byte, 64)
	n, err := unix.Listxattr(p, buf)
	must(t, "list", err)
	if got := string(buf[:n]); got != "user.one\x00user.two\x00" {
		t.Fatalf("list %q", got)
	}
	must(t, "remove", unix.Removexattr(p, "user.one"))
	if _, err := unix.Getxattr(p, "user.one", buf); err != unix.ENODATA {
		t.Fatalf("get removed: %v", err)
	}
	if err := unix.Setxattr(p, "bogus.ns", nil, 0); err != unix.EOPNOTSUPP {
		t.Fatalf("unknown namespace: %v", err)
	}
	if v, err := e.store.Getxattr(context.Background(), "/x", "user.two"); err != nil || string(v) != "22" {
		t.Fatalf("store: %q %v", v, err)
	}
}

// TestFallocate: extending, keeping the size, punching and zeroing.
func TestFallocate(t *testing.T) {
	const cs = 4 << 10
	e := newEnv(t, vfs.Options{ChunkSize: cs}, fusefs.Options{})
	f, err := os.Create(e.path("fa"))
	must(t, "create", err)
	defer f.Close()
	fd := int(f.Fd())
	must(t, "fallocate", unix.Fallocate(fd, 0, 0, 3*cs))
	if fi, _ := f.Stat(); fi.Size() != 3*cs {
		t.Fatalf("size after fallocate %d", fi.Size())
	}
	must(t, "keep size", unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, 0, 10*cs))
	if fi, _ := f.Stat(); fi.Size() != 3*cs {
		t.Fatalf("size after KEEP_SIZE %d", fi.Size())
	}
	_, err = f.WriteAt(bytes.Repeat([]byte{'x'}, 3*cs), 0)
	must(t, "write", err)
	must(t, "punch", unix.Fallocate(fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, cs, cs))
	must(t, "fsync", f.Sync())
	got, _ := e.store.ReadFile(context.Background(), "/fa")
	want := append(append(bytes.Repeat([]byte{'x'}, cs), make([]byte, cs)...), bytes.Repeat([]byte{'x'}, cs)...)
	if !bytes.Equal(got, want) {
		t.Fatalf("after punch: store content differs")
	}
	if off, err := unix.Seek(fd, 0, unix.SEEK_HOLE); err != nil || off != cs {
		t.Fatalf("punched hole at %d, %v", off, err)
	}
	buf := make([]byte, 3*cs)
	n, _ := f.ReadAt(buf, 0)
	if !bytes.Equal(buf[:n], want) {
		t.Fatalf("mount reads stale pages after punch")
	}
	must(t, "zero range", unix.Fallocate(fd, unix.FALLOC_FL_ZERO_RANGE, 2*cs+10, 2*cs))
	if fi, _ := f.Stat(); fi.Size() != 4*cs+10 {
		t.Fatalf("size after ZERO_RANGE %d", fi.Size())
	}
	if err := unix.Fallocate(fd, unix.FALLOC_FL_COLLAPSE_RANGE, 0, cs); err != unix.EOPNOTSUPP {
		t.Fatalf("collapse: %v", err)
	}
}

// TestTimes: utimensat with UTIME_OMIT and UTIME_NOW (touch -a, touch -m).
func TestTimes(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	ctx := context.Background()
	p := e.path("t")
	must(t, "write", os.WriteFile(p, nil, 0o644))
	old := time.Date(2001, 1, 1, 0, 0, 0, 123456789, time.UTC)
	must(t, "chtimes", os.Chtimes(p, old, old))
	attr := func() vfs.Attr {
		fi, err := e.store.Stat(ctx, "/t")
		must(t, "stat", err)
		return fi.Attr()
	}
	now := unix.Timespec{Nsec: unix.UTIME_NOW}
	omit := unix.Timespec{Nsec: unix.UTIME_OMIT}
	must(t, "touch -a", unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{now, omit}, 0))
	if a := attr(); !a.Mtime.Equal(old) || time.Since(a.Atime) > time.Minute {
		t.Fatalf("touch -a: atime %v mtime %v", a.Atime, a.Mtime)
	}
	must(t, "chtimes", os.Chtimes(p, old, old))
	must(t, "touch -m", unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{omit, now}, 0))
	if a := attr(); !a.Atime.Equal(old) || time.Since(a.Mtime) > time.Minute {
		t.Fatalf("touch -m: atime %v mtime %v", a.Atime, a.Mtime)
	}
	st := stat(t, p)
	if st.Atim.Nano() != old.UnixNano() {
		t.Fatalf("mount atime %v", time.Unix(st.Atim.Unix()))
	}
	// Symlinks: lutimes changes the link itself.
	must(t, "symlink", os.Symlink("t", e.path("l")))
	must(t, "lutimes", unix.UtimesNanoAt(unix.AT_FDCWD, e.path("l"), []unix.Timespec{unix.NsecToTimespec(old.UnixNano()), unix.NsecToTimespec(old.UnixNano())}, unix.AT_SYMLINK_NOFOLLOW))
	if fi, _ := e.store.Lstat(ctx, "/l"); !fi.ModTime().Equal(old) {
		t.Fatalf("lutimes: %v", fi.ModTime())
	}
}

// TestUnmountBusy: Unmount returns even while a process holds a file open or
// has a directory open in the mount; later accesses fail.
func TestUnmountBusy(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{UnmountTimeout: 5 * time.Second})
	must(t, "write", os.WriteFile(e.path("f"), []byte("x"), 0o644))
	f, err := os.OpenFile(e.path("f"), os.O_RDWR, 0)
	must(t, "open", err)
	defer f.Close()
	_, err = f.Write([]byte("y"))
	must(t, "write", err)
	done := make(chan error, 1)
	go func() { done <- e.srv.Unmount() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("unmount: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Unmount hangs on a busy mount")
	}
	if _, err := f.Write([]byte("z")); err == nil {
		t.Fatal("write after unmount succeeded")
	}
	// The handle the kernel never released was closed, and its write kept.
	if got, err := e.store.ReadFile(context.Background(), "/f"); err != nil || string(got) != "y" {
		t.Fatalf("store: %q %v", got, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(e.mnt, &st); err == nil && st.Type == 0x65735546 {
		t.Fatal("still mounted")
	}
}

// TestStatfs reports the store's quota.
func TestStatfs(t *testing.T) {
	e := newEnv(t, vfs.Options{QuotaBytes: 1 << 30, MaxInodes: 1000}, fusefs.Options{})
	var st unix.Statfs_t
	must(t, "statfs", unix.Statfs(e.mnt, &st))
	if st.Bsize != 4096 || st.Blocks != (1<<30)/4096 || st.Files != 1000 || st.Namelen != 255 {
		t.Fatalf("statfs %+v", st)
	}
}

// TestReadDirLarge lists a directory larger than a page, with seeks back.
func TestReadDirLarge(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{DirPage: 16})
	ctx := context.Background()
	err := e.store.Batch(ctx, func(b *vfs.Batch) error {
		for i := range 100 {
			if err := b.WriteFile(fmt.Sprintf("/f%03d", i), nil, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	must(t, "batch", err)
	names := dirNames(t, e.mnt)
	if len(names) != 100 || names[0] != "f000" || names[99] != "f099" {
		t.Fatalf("readdir: %d names", len(names))
	}
	d, err := os.Open(e.mnt)
	must(t, "open", err)
	defer d.Close()
	first, err := d.Readdirnames(50)
	must(t, "readdir", err)
	_, err = d.Seek(0, 0)
	must(t, "rewind", err)
	again, err := d.Readdirnames(-1)
	must(t, "readdir", err)
	if len(again) != 100 || again[0] != first[0] {
		t.Fatalf("after rewind: %d names", len(again))
	}
}

// TestUnsupported: what the store cannot represent fails with the errno the
// package documentation gives, and what the kernel can do alone still works.
func TestUnsupported(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	must(t, "write", os.WriteFile(e.path("f"), []byte("content"), 0o644))
	// FIFOs, sockets and devices are supported since issue 21 (special_test.go).
	must(t, "mknod regular", unix.Mknod(e.path("reg"), unix.S_IFREG|0o600, 0))
	if st := stat(t, e.path("reg")); st.Mode != unix.S_IFREG|0o600 {
		t.Errorf("mknod regular: mode %o", st.Mode)
	}
	if _, err := unix.Open(e.mnt, unix.O_TMPFILE|unix.O_RDWR, 0o600); err != unix.EOPNOTSUPP {
		t.Errorf("O_TMPFILE: %v", err)
	}
	// POSIX ACLs are passed through as opaque xattrs (the server does not ask
	// the kernel for ACL support): stored, read back, not enforced.
	acl := []byte{2, 0, 0, 0, 1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff, 4, 0, 4, 0, 0xff, 0xff, 0xff, 0xff, 0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}
	must(t, "set ACL", unix.Setxattr(e.path("f"), "system.posix_acl_access", acl, 0))
	buf := make([]byte, 64)
	if n, err := unix.Getxattr(e.path("f"), "system.posix_acl_access", buf); err != nil || !bytes.Equal(buf[:n], acl) {
		t.Errorf("get ACL: %x %v", buf[:n], err)
	}
	if st := stat(t, e.path("f")); st.Mode&0o777 != 0o644 {
		t.Errorf("mode after ACL: %o", st.Mode&0o777)
	}
	// copy_file_range is done by the kernel when the server does not offer it.
	src, err := os.Open(e.path("f"))
	must(t, "open", err)
	defer src.Close()
	dst, err := os.Create(e.path("g"))
	must(t, "create", err)
	n, err := unix.CopyFileRange(int(src.Fd()), nil, int(dst.Fd()), nil, 7, 0)
	must(t, "copy_file_range", err)
	must(t, "close", dst.Close())
	if n != 7 || readFile(t, e.path("g")) != "content" {
		t.Errorf("copy_file_range copied %d bytes", n)
	}
	if _, err := unix.IoctlGetInt(int(src.Fd()), unix.TIOCGWINSZ); err != unix.ENOTTY {
		t.Errorf("ioctl: %v", err)
	}
}

// TestInvalidationLatency checks that a change made in the store directly
// shows in a stat the kernel had cached, without Sync, and logs how long it
// took. Nothing signals the kernel's cache being dropped, so it polls the
// stat; the deadline is a hang guard, not a latency bound.
func TestInvalidationLatency(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	ctx := context.Background()
	must(t, "write", os.WriteFile(e.path("f"), nil, 0o600))
	var worst time.Duration
	for i := range 50 {
		mode := uint32(0o600 + i%2*0o44)
		stat(t, e.path("f")) // cached
		start := time.Now()
		must(t, "chmod", e.store.Chmod(ctx, "/f", vfs.UnixToFileMode(mode)))
		for stat(t, e.path("f")).Mode&0o777 != mode {
			if time.Since(start) > 30*time.Second {
				t.Fatalf("stat still stale after %v (hang guard): the store's chmod did not invalidate the kernel's attributes", time.Since(start))
			}
			time.Sleep(20 * time.Microsecond)
		}
		worst = max(worst, time.Since(start))
	}
	t.Logf("a store chmod reached a cached stat within %v (worst of 50, chmod itself included)", worst)
}

// TestIDMap: with an id map, the store keeps a sandbox's own ids and the
// kernel sees host ids; creations by a process of the sandbox's range belong
// to its id inside.
func TestIDMap(t *testing.T) {
	const host = 200000
	e := newEnv(t, vfs.Options{}, fusefs.Options{IDMap: fusefs.IDMap{Host: host, Count: 65536}, AllowOther: true})
	ctx := context.Background()
	s := e.store
	must(t, "write", s.WriteFile(ctx, "/root-owned", nil, 0o644))
	must(t, "write", s.WriteFile(ctx, "/far", nil, 0o644))
	must(t, "chown", s.Chown(ctx, "/far", 70000, 7))
	if st := stat(t, e.path("root-owned")); st.Uid != host || st.Gid != host {
		t.Errorf("store 0:0 served as %d:%d", st.Uid, st.Gid)
	}
	if st := stat(t, e.path("far")); st.Uid != host+65534 || st.Gid != host+7 {
		t.Errorf("store 70000:7 served as %d:%d", st.Uid, st.Gid)
	}
	owner := func(name string) (uint32, uint32) {
		fi, err := s.Lstat(ctx, name)
		must(t, "lstat", err)
		a := fi.Attr()
		return a.Uid, a.Gid
	}
	must(t, "chown", os.Chown(e.path("root-owned"), host+5, host+6))
	if u, g := owner("/root-owned"); u != 5 || g != 6 {
		t.Errorf("chown to host ids: store %d:%d", u, g)
	}
	must(t, "chown", os.Chown(e.path("root-owned"), 1000, -1))
	if u, _ := owner("/root-owned"); u != 65534 {
		t.Errorf("chown to a host id outside the range: store %d", u)
	}
	// Host root is outside the range: its files belong to nobody inside.
	must(t, "write", os.WriteFile(e.path("by-host-root"), nil, 0o644))
	if u, g := owner("/by-host-root"); u != 65534 || g != 65534 {
		t.Errorf("created by host root: store %d:%d", u, g)
	}
	// A process running as the sandbox's root creates files owned by 0.
	for p := e.mnt; p != "/" && p != "/tmp"; p = filepath.Dir(p) {
		must(t, "chmod", os.Chmod(p, 0o755)) // let the other uid reach the mount
	}
	must(t, "chmod", os.Chmod(e.mnt, 0o777))
	cmd := exec.Command("/bin/sh", "-c", "echo hi > "+e.path("by-sandbox-root")+" && mkdir "+e.path("dir"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: host, Gid: host + 1}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as uid %d: %v: %s", host, err, out)
	}
	if u, g := owner("/by-sandbox-root"); u != 0 || g != 1 {
		t.Errorf("created by the sandbox's root: store %d:%d", u, g)
	}
	if u, g := owner("/dir"); u != 0 || g != 1 {
		t.Errorf("mkdir by the sandbox's root: store %d:%d", u, g)
	}
	// Permissions are checked with the host ids: the sandbox's root may not
	// write a file of the sandbox's uid 5 with mode 0644.
	must(t, "chmod", os.Chmod(e.path("root-owned"), 0o644))
	cmd = exec.Command("/bin/sh", "-c", "echo x >> "+e.path("root-owned"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: host, Gid: host}}
	if err := cmd.Run(); err == nil {
		t.Errorf("uid %d wrote a file of uid %d with mode 0644", host, host+5)
	}
}

// TestReadDirInParts: without directory handles (the server refuses
// OPENDIR), a listing the kernel reads in many requests, from several opens
// that each read only part of it, is whole and in order; a directory left
// half read, then removed and forgotten by the kernel, leaves the server
// serving.
func TestReadDirInParts(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{DirPage: 64})
	ctx := context.Background()
	const n = 3000
	var want []string
	err := e.store.Batch(ctx, func(b *vfs.Batch) error {
		if err := b.Mkdir("/big", 0o755); err != nil {
			return err
		}
		for i := range n {
			name := fmt.Sprintf("entry-with-a-longish-name-%05d", i)
			want = append(want, name)
			if err := b.WriteFile("/big/"+name, nil, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	must(t, "batch", err)
	// Several opens, each reading a part: the kernel fills its cache of the
	// listing across them, continuing at the offset where it stopped, and
	// the server continues from the page where the previous request stopped
	// (no reread from the start).
	rereads := e.srv.Rereads()
	var got []string
	for len(got) < n {
		d, err := os.Open(e.path("big"))
		must(t, "open", err)
		if len(got) > 0 {
			// A new open starts at offset 0 again; skip what was read.
			_, err := d.Readdirnames(len(got))
			must(t, "skip", err)
		}
		part, err := d.Readdirnames(700)
		if err != nil && err != io.EOF {
			t.Fatal(err)
		}
		got = append(got, part...)
		d.Close()
		if len(part) == 0 {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("read in parts: %d names, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
	if all := dirNames(t, e.path("big")); !slices.Equal(all, want) {
		t.Fatalf("read at once: %d names, want %d", len(all), len(want))
	}
	if n := e.srv.Rereads() - rereads; n != 0 {
		t.Errorf("the listing was read again from its start %d times", n)
	}

	// Half read, removed, forgotten.
	must(t, "mkdir", os.Mkdir(e.path("half"), 0o755))
	for i := range 200 {
		must(t, "create", os.WriteFile(e.path(fmt.Sprintf("half/%03d", i)), nil, 0o644))
	}
	d, err := os.Open(e.path("half"))
	must(t, "open", err)
	_, err = d.Readdirnames(10)
	must(t, "readdir", err)
	d.Close()
	must(t, "remove", os.RemoveAll(e.path("half")))
	must(t, "drop caches", os.WriteFile("/proc/sys/vm/drop_caches", []byte("2"), 0))
	if all := dirNames(t, e.path("big")); len(all) != n {
		t.Fatalf("after a half-read directory was removed: %d names", len(all))
	}
}

// firstDiff is the first index at which a and b differ.
func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
