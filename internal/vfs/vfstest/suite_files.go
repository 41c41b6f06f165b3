package vfstest

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// testOpenFlags checks OpenFile's flags and errors, case by case.
func testOpenFlags(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=hello", "d/", "d/g=x", "l->f", "ld->d", "dangling->t", "dangling2->t2", "loop->loop",
		"sf->f/", "sd->d/", "snew->new4/", "sdeep->d/new5/", "snodir->nodir/x/", "sfx->f/x/", "sl->l/", "sdot->d/./")
	must(t, "Chmod", fsys.Chmod(ctx, "/f", 0o600))
	for _, tc := range []struct {
		name string
		flag int
		perm fs.FileMode
		want syscall.Errno
		// check runs after a successful open, with the handle.
		check func(t *testing.T, f File)
	}{
		{name: "/nope", flag: os.O_RDONLY, want: syscall.ENOENT},
		{name: "/nope", flag: os.O_WRONLY, want: syscall.ENOENT},
		{name: "/nope", flag: os.O_RDWR | os.O_TRUNC, want: syscall.ENOENT},
		{name: "/new", flag: os.O_WRONLY | os.O_CREATE, perm: 0o640, check: func(t *testing.T, f File) {
			checkMode(t, fsys, "/new", vfs.S_IFREG|0o640)
			checkContent(t, fsys, "/new", []byte{})
		}},
		{name: "/f", flag: os.O_RDWR | os.O_CREATE, perm: 0o777, check: func(t *testing.T, f File) {
			checkMode(t, fsys, "/f", vfs.S_IFREG|0o600) // perm only applies to a new file
			checkContent(t, fsys, "/f", []byte("hello"))
		}},
		{name: "/f", flag: os.O_RDWR | os.O_CREATE | os.O_EXCL, perm: 0o644, want: syscall.EEXIST},
		{name: "/d", flag: os.O_RDONLY | os.O_CREATE | os.O_EXCL, perm: 0o644, want: syscall.EEXIST},
		{name: "/l", flag: os.O_RDWR | os.O_CREATE | os.O_EXCL, perm: 0o644, want: syscall.EEXIST},
		{name: "/dangling", flag: os.O_WRONLY | os.O_CREATE | os.O_EXCL, perm: 0o644, want: syscall.EEXIST},
		{name: "/dangling", flag: os.O_RDONLY, want: syscall.ENOENT},
		{name: "/dangling2", flag: os.O_WRONLY | os.O_CREATE, perm: 0o604, check: func(t *testing.T, f File) {
			// O_CREATE without O_EXCL follows a dangling symlink and creates its target.
			checkMode(t, fsys, "/t2", vfs.S_IFREG|0o604)
			checkMode(t, fsys, "/dangling2", vfs.S_IFLNK|0o777)
		}},
		{name: "/nope/x", flag: os.O_WRONLY | os.O_CREATE, perm: 0o644, want: syscall.ENOENT},
		{name: "/f/x", flag: os.O_WRONLY | os.O_CREATE, perm: 0o644, want: syscall.ENOTDIR},
		{name: "/f/x", flag: os.O_RDONLY, want: syscall.ENOTDIR},
		{name: "/f/", flag: os.O_RDONLY, want: syscall.ENOTDIR},
		{name: "/f/", flag: os.O_WRONLY | os.O_CREATE, perm: 0o644, want: syscall.EISDIR},
		{name: "/new2/", flag: os.O_WRONLY | os.O_CREATE, perm: 0o644, want: syscall.EISDIR},
		{name: "/l/", flag: os.O_RDONLY, want: syscall.ENOTDIR},
		// O_CREAT through a symlink whose target ends in "/": the target is a
		// name to create with a trailing slash, EISDIR once its parent
		// resolves, whatever the name is (the kernel's open_last_lookups).
		{name: "/sf", flag: os.O_WRONLY | os.O_CREATE, perm: 0o644, want: syscall.EISDIR},
		{name: "/sd", flag: os.O_WRONLY | os.O_CREATE, perm: 0o644, want: syscall.EISDIR},
		{name: "/sd", flag: os.O_RDONLY | os.O_CREATE, perm: 0o644, want: syscall.EISDIR},
		{name: "/snew", flag: os.O_WRONLY | os.O_CREATE | os.O_TRUNC, perm: 0o644, want: syscall.EISDIR},
		{name: "/sdeep", flag: os.O_RDWR | os.O_CREATE, perm: 0o644, want: syscall.EISDIR},
		{name: "/sl", flag: os.O_RDWR | os.O_CREATE, perm: 0o644, want: syscall.EISDIR},
		{name: "/sdot", flag: os.O_RDWR | os.O_CREATE, perm: 0o644, want: syscall.EISDIR},
		{name: "/snodir", flag: os.O_WRONLY | os.O_CREATE, perm: 0o644, want: syscall.ENOENT},
		{name: "/sfx", flag: os.O_WRONLY | os.O_CREATE, perm: 0o644, want: syscall.ENOTDIR},
		{name: "/snew", flag: os.O_RDONLY, want: syscall.ENOENT},
		{name: "/sf", flag: os.O_RDONLY, want: syscall.ENOTDIR},
		{name: "/sd", flag: os.O_RDONLY, check: func(t *testing.T, f File) {
			fi, err := f.Stat()
			must(t, "File.Stat", err)
			if !fi.IsDir() {
				t.Errorf("File.Stat of /sd: mode %v, want a directory", fi.Mode())
			}
		}},
		{name: "/d", flag: os.O_WRONLY, want: syscall.EISDIR},
		{name: "/d", flag: os.O_RDWR, want: syscall.EISDIR},
		{name: "/d", flag: os.O_RDONLY | os.O_CREATE, perm: 0o644, want: syscall.EISDIR},
		{name: "/d", flag: os.O_WRONLY | os.O_TRUNC, want: syscall.EISDIR},
		{name: "/d", flag: os.O_RDONLY, check: func(t *testing.T, f File) {
			fi, err := f.Stat()
			must(t, "File.Stat", err)
			if !fi.IsDir() {
				t.Errorf("File.Stat of /d: mode %v, want a directory", fi.Mode())
			}
		}},
		{name: "/d/", flag: os.O_RDONLY | syscall.O_DIRECTORY},
		{name: "/ld/g", flag: os.O_RDONLY, check: func(t *testing.T, f File) {
			checkRead(t, f, "x")
		}},
		{name: "/f", flag: os.O_RDONLY | syscall.O_DIRECTORY, want: syscall.ENOTDIR},
		{name: "/l", flag: os.O_RDONLY | syscall.O_NOFOLLOW, want: syscall.ELOOP},
		{name: "/loop", flag: os.O_RDONLY, want: syscall.ELOOP},
		{name: "/loop", flag: os.O_WRONLY | os.O_CREATE, perm: 0o644, want: syscall.ELOOP},
		{name: "/ld", flag: os.O_RDONLY | syscall.O_NOFOLLOW, want: syscall.ELOOP},
		{name: "/l", flag: os.O_RDONLY, check: func(t *testing.T, f File) {
			checkRead(t, f, "hello")
		}},
		{name: "/trunc", flag: os.O_WRONLY | os.O_TRUNC, check: func(t *testing.T, f File) {
			checkContent(t, fsys, "/trunc", []byte{})
		}},
		{name: "/trunc-through-link", flag: os.O_RDWR | os.O_TRUNC, check: func(t *testing.T, f File) {
			checkContent(t, fsys, "/trunc-target", []byte{})
		}},
		// Linux truncates even when the file is opened read-only.
		{name: "/trunc-rdonly", flag: os.O_RDONLY | os.O_TRUNC, check: func(t *testing.T, f File) {
			checkContent(t, fsys, "/trunc-rdonly", []byte{})
		}},
		{name: "/new3", flag: os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_EXCL, perm: 0o400, check: func(t *testing.T, f File) {
			if _, err := f.Write([]byte("abc")); err != nil {
				t.Errorf("Write to a new file created 0400: %s", describeErr(err))
			}
			checkMode(t, fsys, "/new3", vfs.S_IFREG|0o400)
			checkContent(t, fsys, "/new3", []byte("abc"))
		}},
	} {
		name := strings.ReplaceAll(strings.TrimPrefix(tc.name, "/"), "/", "_")
		t.Run(fmt.Sprintf("%s_%s", name, flagString(tc.flag)), func(t *testing.T) {
			writeFile(t, fsys, "/trunc", "data")
			writeFile(t, fsys, "/trunc-target", "data")
			writeFile(t, fsys, "/trunc-rdonly", "data")
			if _, err := fsys.Lstat(ctx, "/trunc-through-link"); err != nil {
				symlink(t, fsys, "trunc-target", "/trunc-through-link")
			}
			f, err := fsys.OpenFile(ctx, tc.name, tc.flag, tc.perm)
			if !checkErr(t, "OpenFile", err, tc.want) || err != nil {
				if f != nil {
					t.Errorf("OpenFile failed but returned a non-nil File %v", f)
				}
				return
			}
			defer f.Close()
			if tc.check != nil {
				tc.check(t, f)
			}
		})
	}
}

// checkRead reads f to the end and compares.
func checkRead(t testing.TB, f File, want string) {
	t.Helper()
	got, err := io.ReadAll(f)
	if checkErr(t, "read", err, 0) && string(got) != want {
		t.Errorf("read %q, want %q", got, want)
	}
}

// testHandleModes checks what a handle may do given its access mode.
func testHandleModes(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=hello", "d/")
	buf := make([]byte, 4)

	r := openFile(t, fsys, "/f", os.O_RDONLY, 0)
	_, err := r.Write([]byte("x"))
	checkErr(t, "Write on O_RDONLY", err, syscall.EBADF)
	_, err = r.WriteAt([]byte("x"), 0)
	checkErr(t, "WriteAt on O_RDONLY", err, syscall.EBADF)
	checkErr(t, "Truncate on O_RDONLY", r.Truncate(0), syscall.EINVAL)
	checkRead(t, r, "hello")

	w := openFile(t, fsys, "/f", os.O_WRONLY, 0)
	_, err = w.Read(buf)
	checkErr(t, "Read on O_WRONLY", err, syscall.EBADF)
	_, err = w.ReadAt(buf, 0)
	checkErr(t, "ReadAt on O_WRONLY", err, syscall.EBADF)
	n, err := w.Write([]byte("J"))
	if !checkErr(t, "Write on O_WRONLY", err, 0) || n != 1 {
		t.Errorf("Write on O_WRONLY wrote %d, want 1", n)
	}
	must(t, "Truncate on O_WRONLY", w.Truncate(4))
	checkContent(t, fsys, "/f", []byte("Jell"))

	rw := openFile(t, fsys, "/f", os.O_RDWR, 0)
	if _, err := rw.WriteAt([]byte("H"), 0); err != nil {
		t.Errorf("WriteAt on O_RDWR: %s", describeErr(err))
	}
	checkRead(t, rw, "Hell")

	d := openFile(t, fsys, "/d", os.O_RDONLY, 0)
	_, err = d.Read(buf)
	checkErr(t, "Read on a directory", err, syscall.EISDIR)
	_, err = d.ReadAt(buf, 0)
	checkErr(t, "ReadAt on a directory", err, syscall.EISDIR)
	_, err = d.Write([]byte("x"))
	checkErr(t, "Write on a directory", err, syscall.EBADF)
	checkErr(t, "Truncate on a directory", d.Truncate(0), syscall.EINVAL)
	fi, err := d.Stat()
	must(t, "Stat", err)
	if !fi.IsDir() || fi.Name() != "d" {
		t.Errorf("File.Stat of /d: name %q mode %v", fi.Name(), fi.Mode())
	}
	checkErr(t, "Sync on a directory", d.Sync(), 0)
	must(t, "Sync", rw.Sync())
	must(t, "Close", r.Close())
	must(t, "Close", w.Close())
	_, err = fsys.OpenFile(ctx, "/f", os.O_RDWR, 0)
	checkErr(t, "OpenFile after close", err, 0)
}

// testClosed checks that a closed handle reports EBADF for everything.
func testClosed(t *testing.T, fsys FS) {
	ctx := t.Context()
	writeFile(t, fsys, "/f", "hello")
	f, err := fsys.OpenFile(ctx, "/f", os.O_RDWR, 0)
	must(t, "OpenFile", err)
	must(t, "Close", f.Close())
	buf := make([]byte, 4)
	_, err = f.Read(buf)
	checkErr(t, "Read after Close", err, syscall.EBADF)
	_, err = f.Write(buf)
	checkErr(t, "Write after Close", err, syscall.EBADF)
	_, err = f.ReadAt(buf, 0)
	checkErr(t, "ReadAt after Close", err, syscall.EBADF)
	_, err = f.WriteAt(buf, 0)
	checkErr(t, "WriteAt after Close", err, syscall.EBADF)
	_, err = f.Seek(0, io.SeekStart)
	checkErr(t, "Seek after Close", err, syscall.EBADF)
	checkErr(t, "Truncate after Close", f.Truncate(0), syscall.EBADF)
	checkErr(t, "Sync after Close", f.Sync(), syscall.EBADF)
	_, err = f.Stat()
	checkErr(t, "Stat after Close", err, syscall.EBADF)
	checkErr(t, "Close after Close", f.Close(), syscall.EBADF)
	checkContent(t, fsys, "/f", []byte("hello"))
}

// testAppend checks O_APPEND: every write goes to the end, whatever the offset.
func testAppend(t *testing.T, fsys FS) {
	ctx := t.Context()
	writeFile(t, fsys, "/f", "hello")
	f := openFile(t, fsys, "/f", os.O_RDWR|os.O_APPEND, 0)
	seek := func(f File, off int64, whence int, want int64) {
		t.Helper()
		got, err := f.Seek(off, whence)
		if checkErr(t, "Seek", err, 0) && got != want {
			t.Errorf("Seek(%d, %d) = %d, want %d", off, whence, got, want)
		}
	}
	// A new O_APPEND handle starts at 0, for reading.
	seek(f, 0, io.SeekCurrent, 0)
	_, err := f.Write([]byte("XY"))
	must(t, "Write", err)
	seek(f, 0, io.SeekCurrent, 7)
	checkContent(t, fsys, "/f", []byte("helloXY"))
	seek(f, 1, io.SeekStart, 1)
	buf := make([]byte, 3)
	if n, err := f.Read(buf); err != nil || string(buf[:n]) != "ell" {
		t.Errorf("Read after Seek on O_APPEND: %q, %s", buf[:n], describeErr(err))
	}
	_, err = f.Write([]byte("Z"))
	must(t, "Write", err)
	checkContent(t, fsys, "/f", []byte("helloXYZ"))
	seek(f, 0, io.SeekCurrent, 8)

	// On Linux, pwrite(2) on an O_APPEND descriptor ignores the offset and appends
	// (see BUGS in pwrite(2)); the descriptor's offset is not moved.
	seek(f, 2, io.SeekStart, 2)
	n, err := f.WriteAt([]byte("AB"), 0)
	if !checkErr(t, "WriteAt on O_APPEND", err, 0) || n != 2 {
		t.Errorf("WriteAt on O_APPEND wrote %d, want 2", n)
	}
	checkContent(t, fsys, "/f", []byte("helloXYZAB"))
	seek(f, 0, io.SeekCurrent, 2)

	// Two appenders interleave at the end.
	g := openFile(t, fsys, "/f", os.O_WRONLY|os.O_APPEND, 0)
	_, err = g.Write([]byte("1"))
	must(t, "Write", err)
	_, err = f.Write([]byte("2"))
	must(t, "Write", err)
	_, err = g.Write([]byte("3"))
	must(t, "Write", err)
	checkContent(t, fsys, "/f", []byte("helloXYZAB123"))

	// A plain writer overwrites at its offset; the appender still goes to the end.
	p := openFile(t, fsys, "/f", os.O_WRONLY, 0)
	_, err = p.Write([]byte("HE"))
	must(t, "Write", err)
	_, err = f.Write([]byte("!"))
	must(t, "Write", err)
	checkContent(t, fsys, "/f", []byte("HElloXYZAB123!"))

	// O_APPEND after a truncation through another handle writes at the new end.
	must(t, "Truncate", fsys.Truncate(ctx, "/f", 2))
	_, err = g.Write([]byte("+"))
	must(t, "Write", err)
	checkContent(t, fsys, "/f", []byte("HE+"))

	// O_APPEND|O_CREATE makes a new file.
	h := openFile(t, fsys, "/new", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	_, err = h.Write([]byte("a"))
	must(t, "Write", err)
	_, err = h.Write([]byte("b"))
	must(t, "Write", err)
	checkContent(t, fsys, "/new", []byte("ab"))
}

// testReadWriteSeek checks sequential I/O and Seek.
func testReadWriteSeek(t *testing.T, fsys FS) {
	f := openFile(t, fsys, "/f", os.O_RDWR|os.O_CREATE, 0o644)
	seek := func(off int64, whence int, want int64, wantErr syscall.Errno) {
		t.Helper()
		got, err := f.Seek(off, whence)
		if checkErr(t, fmt.Sprintf("Seek(%d, %d)", off, whence), err, wantErr) && wantErr == 0 && got != want {
			t.Errorf("Seek(%d, %d) = %d, want %d", off, whence, got, want)
		}
	}
	read := func(size int, want string, wantErr error) {
		t.Helper()
		buf := make([]byte, size)
		n, err := f.Read(buf)
		if string(buf[:n]) != want || err != wantErr {
			t.Errorf("Read(%d) = %q, %s; want %q, %v", size, buf[:n], describeErr(err), want, wantErr)
		}
	}
	n, err := f.Write([]byte("hello world"))
	if err != nil || n != 11 {
		t.Fatalf("Write = %d, %s", n, describeErr(err))
	}
	seek(0, io.SeekCurrent, 11, 0)
	read(4, "", io.EOF)
	read(0, "", nil)
	seek(0, io.SeekStart, 0, 0)
	read(5, "hello", nil)
	seek(1, io.SeekCurrent, 6, 0)
	read(100, "world", nil)
	read(100, "", io.EOF)
	seek(-5, io.SeekEnd, 6, 0)
	read(1, "w", nil)
	read(1, "o", nil)
	seek(-2, io.SeekCurrent, 6, 0)
	read(2, "wo", nil)

	// Negative results and bad whence are EINVAL and leave the offset alone.
	seek(-1, io.SeekStart, 0, syscall.EINVAL)
	seek(-100, io.SeekEnd, 0, syscall.EINVAL)
	seek(-100, io.SeekCurrent, 0, syscall.EINVAL)
	seek(0, 42, 0, syscall.EINVAL)
	seek(0, io.SeekCurrent, 8, 0)

	// Seeking past the end is allowed and changes nothing until a write, which
	// leaves a hole that reads as zeros.
	seek(100, io.SeekStart, 100, 0)
	fi, err := f.Stat()
	must(t, "Stat", err)
	if fi.Size() != 11 {
		t.Errorf("size after Seek past the end: %d, want 11", fi.Size())
	}
	read(10, "", io.EOF)
	seek(3, io.SeekEnd, 14, 0)
	_, err = f.Write([]byte("!"))
	must(t, "Write", err)
	seek(0, io.SeekCurrent, 15, 0)
	checkContent(t, fsys, "/f", []byte("hello world\x00\x00\x00!"))
	fi, err = f.Stat()
	must(t, "Stat", err)
	if fi.Size() != 15 || fi.Name() != "f" || fi.Mode() != 0o644 {
		t.Errorf("File.Stat: name %q size %d mode %v, want f 15 -rw-r--r--", fi.Name(), fi.Size(), fi.Mode())
	}

	// Overwrite in place, byte by byte.
	seek(0, io.SeekStart, 0, 0)
	for _, c := range []byte("HELLO") {
		if n, err := f.Write([]byte{c}); n != 1 || err != nil {
			t.Fatalf("Write 1 byte = %d, %s", n, describeErr(err))
		}
	}
	read(1, " ", nil)
	checkContent(t, fsys, "/f", []byte("HELLO world\x00\x00\x00!"))
	must(t, "Sync", f.Sync())

	// Two handles have independent offsets and see each other's writes.
	g := openFile(t, fsys, "/f", os.O_RDWR, 0)
	buf := make([]byte, 5)
	if _, err := io.ReadFull(g, buf); err != nil || string(buf) != "HELLO" {
		t.Errorf("second handle read %q, %s", buf, describeErr(err))
	}
	seek(0, io.SeekStart, 0, 0)
	_, err = f.Write([]byte("j"))
	must(t, "Write", err)
	if _, err := g.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(g, buf); err != nil || string(buf) != "jELLO" {
		t.Errorf("second handle read %q, %s, want jELLO", buf, describeErr(err))
	}
}

// testReadAtWriteAt checks positioned I/O.
func testReadAtWriteAt(t *testing.T, fsys FS) {
	writeFile(t, fsys, "/f", "0123456789")
	f := openFile(t, fsys, "/f", os.O_RDWR, 0)
	readAt := func(size int, off int64, want string, wantErr syscall.Errno, wantEOF bool) {
		t.Helper()
		buf := make([]byte, size)
		n, err := f.ReadAt(buf, off)
		what := fmt.Sprintf("ReadAt(%d bytes, %d)", size, off)
		if wantEOF {
			if err != io.EOF {
				t.Errorf("%s: error %s, want io.EOF", what, describeErr(err))
			}
		} else if n == size && err == io.EOF {
			// io.ReaderAt allows io.EOF with a full read at the end.
		} else {
			checkErr(t, what, err, wantErr)
		}
		if string(buf[:n]) != want {
			t.Errorf("%s = %q, want %q", what, buf[:n], want)
		}
	}
	readAt(4, 0, "0123", 0, false)
	readAt(4, 3, "3456", 0, false)
	readAt(10, 0, "0123456789", 0, false)
	readAt(4, 8, "89", 0, true)
	readAt(4, 10, "", 0, true)
	readAt(4, 1000, "", 0, true)
	readAt(0, 1000, "", 0, false)
	readAt(4, -1, "", syscall.EINVAL, false)
	_, err := f.WriteAt([]byte("x"), -1)
	checkErr(t, "WriteAt(-1)", err, syscall.EINVAL)

	// Neither moves the offset.
	if _, err := f.Seek(3, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	readAt(2, 0, "01", 0, false)
	if n, err := f.WriteAt([]byte("ab"), 20); n != 2 || err != nil {
		t.Errorf("WriteAt past the end = %d, %s", n, describeErr(err))
	}
	if off, err := f.Seek(0, io.SeekCurrent); off != 3 || err != nil {
		t.Errorf("offset after ReadAt and WriteAt: %d, %s; want 3", off, describeErr(err))
	}
	checkContent(t, fsys, "/f", []byte("0123456789\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00ab"))
	readAt(6, 8, "89\x00\x00\x00\x00", 0, false)

	// An empty write does not extend the file.
	if n, err := f.WriteAt(nil, 1000); n != 0 || err != nil {
		t.Errorf("empty WriteAt = %d, %s", n, describeErr(err))
	}
	if n, err := f.Write(nil); n != 0 || err != nil {
		t.Errorf("empty Write = %d, %s", n, describeErr(err))
	}
	fi, err := f.Stat()
	must(t, "Stat", err)
	if fi.Size() != 22 {
		t.Errorf("size after empty writes: %d, want 22", fi.Size())
	}
	// Overwrite across the old end.
	if _, err := f.WriteAt([]byte("XYZ"), 21); err != nil {
		t.Fatal(err)
	}
	checkContent(t, fsys, "/f", []byte("0123456789\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00aXYZ"))
}

// testTruncate checks Truncate on handles and paths.
func testTruncate(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=hello world", "d/", "l->f", "dangling->nope")
	f := openFile(t, fsys, "/f", os.O_RDWR, 0)
	must(t, "Truncate", f.Truncate(5))
	checkContent(t, fsys, "/f", []byte("hello"))
	must(t, "Truncate", f.Truncate(8))
	checkContent(t, fsys, "/f", []byte("hello\x00\x00\x00"))
	// Bytes cut off do not come back when the file grows again.
	must(t, "Truncate", f.Truncate(2))
	must(t, "Truncate", f.Truncate(7))
	checkContent(t, fsys, "/f", []byte("he\x00\x00\x00\x00\x00"))
	checkErr(t, "File.Truncate(-1)", f.Truncate(-1), syscall.EINVAL)
	// The offset does not move; writing past the new end leaves a hole.
	if off, err := f.Seek(0, io.SeekCurrent); off != 0 || err != nil {
		t.Errorf("offset after Truncate: %d, %s; want 0", off, describeErr(err))
	}
	if _, err := f.Seek(9, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	must(t, "Truncate", f.Truncate(1))
	if _, err := f.Write([]byte("!")); err != nil {
		t.Fatal(err)
	}
	checkContent(t, fsys, "/f", []byte("h\x00\x00\x00\x00\x00\x00\x00\x00!"))
	fi, err := f.Stat()
	must(t, "Stat", err)
	if fi.Size() != 10 {
		t.Errorf("size %d, want 10", fi.Size())
	}

	// By path.
	writeFile(t, fsys, "/f", "hello world")
	must(t, "Truncate", fsys.Truncate(ctx, "/f", 2))
	checkContent(t, fsys, "/f", []byte("he"))
	must(t, "Truncate", fsys.Truncate(ctx, "/f", 3*4096+5))
	checkContent(t, fsys, "/f", append([]byte("he"), make([]byte, 3*4096+3)...))
	must(t, "Truncate", fsys.Truncate(ctx, "/l", 1))
	checkContent(t, fsys, "/f", []byte("h"))
	if a := lstat(t, fsys, "/l"); a.Size != 1 || !a.IsSymlink() {
		t.Errorf("Lstat /l after Truncate through it: mode %#o size %d", a.Mode, a.Size)
	}
	must(t, "Truncate", fsys.Truncate(ctx, "/f", 0))
	checkContent(t, fsys, "/f", []byte{})
	for _, tc := range []struct {
		name string
		size int64
		want syscall.Errno
	}{
		{"/d", 0, syscall.EISDIR},
		{"/f", -1, syscall.EINVAL},
		{"/nope", 0, syscall.ENOENT},
		{"/dangling", 0, syscall.ENOENT},
		{"/f/x", 0, syscall.ENOTDIR},
		{"/f/", 0, syscall.ENOTDIR},
	} {
		checkErr(t, fmt.Sprintf("Truncate(%s, %d)", tc.name, tc.size), fsys.Truncate(ctx, tc.name, tc.size), tc.want)
	}
	// Growing a file far is cheap: the new range is a hole.
	must(t, "Truncate", fsys.Truncate(ctx, "/f", 1<<30))
	buf := make([]byte, 8)
	if n, err := f.ReadAt(buf, 1<<30-4); n != 4 || err != io.EOF || !bytes.Equal(buf[:n], make([]byte, 4)) {
		t.Errorf("ReadAt at the end of a 1 GiB hole = %q, %s; want 4 zeros, EOF", buf[:n], describeErr(err))
	}
	must(t, "Truncate", fsys.Truncate(ctx, "/f", 0))
}

// testReadFileWriteFile checks the whole-file helpers.
func testReadFileWriteFile(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "d/", "l->f", "empty=")
	must(t, "WriteFile", fsys.WriteFile(ctx, "/f", []byte("hello world"), 0o600))
	checkContent(t, fsys, "/f", []byte("hello world"))
	checkMode(t, fsys, "/f", vfs.S_IFREG|0o600)
	// Rewriting truncates and keeps the mode.
	must(t, "WriteFile", fsys.WriteFile(ctx, "/f", []byte("bye"), 0o777))
	checkContent(t, fsys, "/f", []byte("bye"))
	checkMode(t, fsys, "/f", vfs.S_IFREG|0o600)
	must(t, "WriteFile", fsys.WriteFile(ctx, "/l", []byte("via link"), 0o644))
	checkContent(t, fsys, "/f", []byte("via link"))
	// Through a symlink whose target ends in "/": EISDIR, as open(O_CREAT).
	build(t, fsys, "/", "sf->f/", "snew->new/")
	checkErr(t, "WriteFile /sf", fsys.WriteFile(ctx, "/sf", []byte("x"), 0o644), syscall.EISDIR)
	checkErr(t, "WriteFile /snew", fsys.WriteFile(ctx, "/snew", make([]byte, 70001), 0o644), syscall.EISDIR)
	checkContent(t, fsys, "/f", []byte("via link"))
	checkMode(t, fsys, "/l", vfs.S_IFLNK|0o777)
	checkContent(t, fsys, "/empty", []byte{})
	must(t, "WriteFile", fsys.WriteFile(ctx, "/f", nil, 0o644))
	checkContent(t, fsys, "/f", []byte{})

	_, err := fsys.ReadFile(ctx, "/nope")
	checkErr(t, "ReadFile /nope", err, syscall.ENOENT)
	_, err = fsys.ReadFile(ctx, "/d")
	checkErr(t, "ReadFile /d", err, syscall.EISDIR)
	_, err = fsys.ReadFile(ctx, "/f/")
	checkErr(t, "ReadFile /f/", err, syscall.ENOTDIR)
	checkErr(t, "WriteFile /d", fsys.WriteFile(ctx, "/d", []byte("x"), 0o644), syscall.EISDIR)
	checkErr(t, "WriteFile /nope/x", fsys.WriteFile(ctx, "/nope/x", []byte("x"), 0o644), syscall.ENOENT)
	checkErr(t, "WriteFile /f/x", fsys.WriteFile(ctx, "/f/x", []byte("x"), 0o644), syscall.ENOTDIR)
}

// testUnlinked checks that an open file outlives its names.
func testUnlinked(t *testing.T, fsys FS) {
	ctx := t.Context()
	writeFile(t, fsys, "/f", "hello")
	f := openFile(t, fsys, "/f", os.O_RDWR, 0)
	must(t, "Remove", fsys.Remove(ctx, "/f"))
	checkMissing(t, fsys, "/f")
	buf := make([]byte, 5)
	if n, err := f.ReadAt(buf, 0); n != 5 || string(buf) != "hello" || (err != nil && err != io.EOF) {
		t.Errorf("ReadAt on an unlinked file = %q, %s", buf[:n], describeErr(err))
	}
	if _, err := f.WriteAt([]byte("!!"), 5); err != nil {
		t.Errorf("WriteAt on an unlinked file: %s", describeErr(err))
	}
	buf = make([]byte, 10)
	if n, err := f.ReadAt(buf, 0); string(buf[:n]) != "hello!!" || err != io.EOF {
		t.Errorf("ReadAt on an unlinked file = %q, %s; want hello!!, EOF", buf[:n], describeErr(err))
	}
	fi, err := f.Stat()
	must(t, "File.Stat", err)
	if a := attrOf(t, fi); a.Nlink != 0 || a.Size != 7 {
		t.Errorf("File.Stat of an unlinked file: nlink %d size %d, want 0 7", a.Nlink, a.Size)
	}
	must(t, "Truncate", f.Truncate(3))
	// A new file at the name is a different file.
	writeFile(t, fsys, "/f", "new")
	if _, err := f.WriteAt([]byte("P"), 0); err != nil {
		t.Fatal(err)
	}
	checkContent(t, fsys, "/f", []byte("new"))
	buf = make([]byte, 10)
	if n, _ := f.ReadAt(buf, 0); string(buf[:n]) != "Pel" {
		t.Errorf("unlinked file holds %q, want Pel", buf[:n])
	}
	ents, err := fsys.ReadDir(ctx, "/")
	must(t, "ReadDir", err)
	if len(ents) != 1 || ents[0].Name != "f" {
		t.Errorf("ReadDir / = %v, want just the new f", ents)
	}
	must(t, "Close", f.Close())

	// Replaced by a rename: the old handle keeps the old content.
	writeFile(t, fsys, "/g", "old")
	g := openFile(t, fsys, "/g", os.O_RDONLY, 0)
	writeFile(t, fsys, "/h", "new")
	must(t, "Rename", fsys.Rename(ctx, "/h", "/g", 0))
	checkRead(t, g, "old")
	if fi, err := g.Stat(); err != nil || attrOf(t, fi).Nlink != 0 {
		t.Errorf("File.Stat of a file renamed over: %v, %s; want nlink 0", fi, describeErr(err))
	}
	checkContent(t, fsys, "/g", []byte("new"))

	// Renamed while open: the handle follows the file.
	writeFile(t, fsys, "/r", "")
	r := openFile(t, fsys, "/r", os.O_WRONLY, 0)
	must(t, "Mkdir", fsys.Mkdir(ctx, "/sub", 0o755))
	must(t, "Rename", fsys.Rename(ctx, "/r", "/sub/s", 0))
	if _, err := r.Write([]byte("moved")); err != nil {
		t.Fatal(err)
	}
	checkContent(t, fsys, "/sub/s", []byte("moved"))

	// One of two names removed: the handle writes reach the other.
	writeFile(t, fsys, "/a", "")
	a := openFile(t, fsys, "/a", os.O_WRONLY, 0)
	must(t, "Link", fsys.Link(ctx, "/a", "/b"))
	must(t, "Remove", fsys.Remove(ctx, "/a"))
	if _, err := a.Write([]byte("shared")); err != nil {
		t.Fatal(err)
	}
	checkContent(t, fsys, "/b", []byte("shared"))
	if fi, err := a.Stat(); err != nil || attrOf(t, fi).Nlink != 1 {
		t.Errorf("File.Stat after removing one of two names: %s; want nlink 1", describeErr(err))
	}

	// A removed directory can stay open.
	must(t, "Mkdir", fsys.Mkdir(ctx, "/gone", 0o755))
	d := openFile(t, fsys, "/gone", os.O_RDONLY, 0)
	must(t, "Remove", fsys.Remove(ctx, "/gone"))
	if fi, err := d.Stat(); err != nil || attrOf(t, fi).Nlink != 0 {
		t.Errorf("File.Stat of a removed directory: %s; want nlink 0", describeErr(err))
	}
}

// randomBytes returns n pseudo-random bytes from a fixed seed.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// testLargeFile writes a few MiB in odd-sized pieces and reads it back at odd
// offsets.
func testLargeFile(t *testing.T, fsys FS) {
	data := randomBytes(1, 3<<20+12345)
	f := openFile(t, fsys, "/big", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	sizes := []int{1, 7, 4093, 65537, 1<<20 + 3, 3, 131071}
	for off, i := 0, 0; off < len(data); i++ {
		n := min(sizes[i%len(sizes)], len(data)-off)
		w, err := f.Write(data[off : off+n])
		if err != nil || w != n {
			t.Fatalf("Write %d bytes at %d = %d, %s", n, off, w, describeErr(err))
		}
		off += n
	}
	fi, err := f.Stat()
	must(t, "Stat", err)
	if fi.Size() != int64(len(data)) {
		t.Errorf("size %d, want %d", fi.Size(), len(data))
	}
	for _, r := range []struct{ off, n int }{
		{0, 1}, {1, 4095}, {4095, 2}, {65535, 3}, {65536, 65536}, {1<<20 - 1, 1<<20 + 2},
		{123457, 999983}, {len(data) - 5, 5}, {0, len(data)},
	} {
		buf := make([]byte, r.n)
		n, err := f.ReadAt(buf, int64(r.off))
		if n != r.n || (err != nil && err != io.EOF) || !bytes.Equal(buf, data[r.off:r.off+r.n]) {
			t.Errorf("ReadAt(%d bytes, %d) = %d, %s; content equal: %v", r.n, r.off, n, describeErr(err), bytes.Equal(buf[:n], data[r.off:r.off+n]))
		}
	}
	// Past the end: partial data and io.EOF.
	buf := make([]byte, 100)
	n, err := f.ReadAt(buf, int64(len(data)-30))
	if n != 30 || err != io.EOF || !bytes.Equal(buf[:n], data[len(data)-30:]) {
		t.Errorf("ReadAt across the end = %d, %s; want 30, EOF", n, describeErr(err))
	}
	must(t, "Close", f.Close())
	got := readFile(t, fsys, "/big")
	if !bytes.Equal(got, data) {
		t.Errorf("ReadFile of %d random bytes differs (got %d bytes)", len(data), len(got))
	}
}

// testOverwriteMiddle overwrites odd ranges inside a file and checks the rest.
func testOverwriteMiddle(t *testing.T, fsys FS) {
	ctx := t.Context()
	model := randomBytes(2, 1<<20+17)
	must(t, "WriteFile", fsys.WriteFile(ctx, "/f", model, 0o644))
	f := openFile(t, fsys, "/f", os.O_RDWR, 0)
	for i, r := range []struct{ off, n int }{
		{4093, 9}, {65530, 70000}, {1<<20 - 3, 10}, {0, 1}, {131071, 131073}, {1<<20 + 10, 20}, {500000, 3},
	} {
		patch := randomBytes(uint64(100+i), r.n)
		if i%2 == 0 {
			if n, err := f.WriteAt(patch, int64(r.off)); n != r.n || err != nil {
				t.Fatalf("WriteAt(%d bytes, %d) = %d, %s", r.n, r.off, n, describeErr(err))
			}
		} else {
			if _, err := f.Seek(int64(r.off), io.SeekStart); err != nil {
				t.Fatal(err)
			}
			if n, err := f.Write(patch); n != r.n || err != nil {
				t.Fatalf("Write(%d bytes) at %d = %d, %s", r.n, r.off, n, describeErr(err))
			}
		}
		if end := r.off + r.n; end > len(model) {
			model = append(model, make([]byte, end-len(model))...)
		}
		copy(model[r.off:], patch)
		got := readFile(t, fsys, "/f")
		if !bytes.Equal(got, model) {
			at := -1
			for j := range min(len(got), len(model)) {
				if got[j] != model[j] {
					at = j
					break
				}
			}
			t.Fatalf("after writing %d bytes at %d: content differs (len %d, want %d; first difference at %d)", r.n, r.off, len(got), len(model), at)
		}
	}
	// Shrink into the middle of a patched range and grow again.
	must(t, "Truncate", f.Truncate(65540))
	must(t, "Truncate", f.Truncate(200000))
	model = append(model[:65540], make([]byte, 200000-65540)...)
	checkContent(t, fsys, "/f", model)
}

// testSparse checks that holes read as zeros and cost no blocks.
func testSparse(t *testing.T, fsys FS) {
	f := openFile(t, fsys, "/s", os.O_RDWR|os.O_CREATE, 0o644)
	const far = 5 << 20
	if _, err := f.WriteAt([]byte("end"), far); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("start"), 0); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	must(t, "Stat", err)
	a := attrOf(t, fi)
	if a.Size != far+3 {
		t.Errorf("size %d, want %d", a.Size, far+3)
	}
	if a.Blocks*512 >= far {
		t.Errorf("blocks %d (%d bytes) for a file that is almost all hole", a.Blocks, a.Blocks*512)
	}
	buf := make([]byte, 1<<20)
	for off := int64(4096); off < far; off += int64(len(buf)) {
		n, err := f.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			t.Fatalf("ReadAt %d: %s", off, describeErr(err))
		}
		for i, c := range buf[:n] {
			if c != 0 && off+int64(i) < far {
				t.Fatalf("hole byte at %d is %#x", off+int64(i), c)
			}
		}
	}
	buf = make([]byte, 9)
	if n, err := f.ReadAt(buf, far-5); string(buf[:n]) != "\x00\x00\x00\x00\x00end" || err != io.EOF {
		t.Errorf("ReadAt at the end = %q, %s", buf[:n], describeErr(err))
	}
}
