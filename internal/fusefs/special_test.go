package fusefs_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// specialHelper runs the helpers of this file in a child process (see
// TestMain): ok is false for a name that is not one of them.
func specialHelper(name, p string) (ok bool, err error) {
	switch name {
	case "socket-serve":
		// Bind a UNIX socket at p, say so, answer one connection's line
		// in upper case.
		l, err := net.Listen("unix", p)
		if err != nil {
			return true, err
		}
		defer l.Close()
		fmt.Println("listening")
		c, err := l.Accept()
		if err != nil {
			return true, err
		}
		defer c.Close()
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return true, err
		}
		_, err = c.Write([]byte(strings.ToUpper(line)))
		return true, err
	case "socket-dial":
		c, err := net.Dial("unix", p)
		if err != nil {
			return true, err
		}
		defer c.Close()
		if _, err := c.Write([]byte("ping over the mount\n")); err != nil {
			return true, err
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		fmt.Print(line)
		return true, err
	}
	return false, nil
}

// TestFIFOAcrossProcesses makes a FIFO on the mount with mkfifo(1) and pipes
// 200,000 lines from one process (seq) to another (cat) through it: the
// kernel does the piping, the store holds only the inode.
func TestFIFOAcrossProcesses(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := e.path("fifo")
	if out, err := exec.CommandContext(ctx, "mkfifo", "-m", "0620", p).CombinedOutput(); err != nil {
		t.Fatalf("mkfifo: %v: %s", err, out)
	}
	fi, err := e.store.Lstat(ctx, "/fifo")
	must(t, "store Lstat", err)
	if a := fi.Attr(); a.Mode != vfs.S_IFIFO|0o620 || a.Size != 0 {
		t.Fatalf("the store's /fifo: mode %#o size %d", a.Mode, a.Size)
	}
	var st unix.Stat_t
	must(t, "lstat", unix.Lstat(p, &st))
	if st.Mode != syscall.S_IFIFO|0o620 {
		t.Fatalf("lstat through the mount: mode %#o", st.Mode)
	}
	// The reader starts first and blocks in open until the writer comes.
	reader := exec.CommandContext(ctx, "cat", p)
	var out strings.Builder
	reader.Stdout = &out
	must(t, "start cat", reader.Start())
	writer := exec.CommandContext(ctx, "sh", "-c", `seq 1 200000 > "$1"`, "sh", p)
	if b, err := writer.CombinedOutput(); err != nil {
		t.Fatalf("writer: %v: %s", err, b)
	}
	must(t, "cat", reader.Wait())
	var want strings.Builder
	for i := 1; i <= 200000; i++ {
		want.WriteString(strconv.Itoa(i))
		want.WriteByte('\n')
	}
	if out.String() != want.String() {
		t.Fatalf("read %d bytes through the FIFO, want %d", out.Len(), want.Len())
	}
	fi, err = e.store.Lstat(ctx, "/fifo")
	must(t, "store Lstat", err)
	if fi.Attr().Size != 0 {
		t.Fatalf("the FIFO's size in the store after piping: %d", fi.Attr().Size)
	}
	// The in-process view: the store does not pipe.
	if _, err := e.store.Open(ctx, "/fifo"); !isErrno(err, syscall.ENXIO) {
		t.Fatalf("store Open of the FIFO: %v, want ENXIO", err)
	}
	must(t, "rm", os.Remove(p))
}

// TestSocketAcrossProcesses binds a UNIX socket on the mount in one process
// and connects to it by path from another.
func TestSocketAcrossProcesses(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := e.path("sock")
	srv := exec.CommandContext(ctx, os.Args[0], "-test.run=^$", p)
	srv.Env = append(os.Environ(), helperEnv+"=socket-serve")
	srv.Stderr = os.Stderr
	stdout, err := srv.StdoutPipe()
	must(t, "pipe", err)
	must(t, "start server", srv.Start())
	defer srv.Wait()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "listening" {
		t.Fatalf("server: %q %v", lines.Text(), lines.Err())
	}
	fi, err := e.store.Lstat(ctx, "/sock")
	must(t, "store Lstat", err)
	if fi.Attr().Mode&vfs.S_IFMT != vfs.S_IFSOCK {
		t.Fatalf("the store's /sock: mode %#o", fi.Attr().Mode)
	}
	if out := helper(t, "socket-dial", p); out != "PING OVER THE MOUNT\n" {
		t.Fatalf("client got %q", out)
	}
	must(t, "server", srv.Wait())
	// The listener's Close unlinks the path (net.UnixListener), through the mount.
	if _, err := e.store.Lstat(ctx, "/sock"); !isErrno(err, syscall.ENOENT) {
		t.Fatalf("the socket after the server closed it: %v, want ENOENT", err)
	}
}

// TestDeviceNode makes device nodes with mknod(2) on the mount: the store
// keeps their numbers, and the mount (nodev) refuses to open them.
func TestDeviceNode(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	ctx := context.Background()
	for _, d := range []struct {
		name  string
		mode  uint32
		major uint32
		minor uint32
	}{
		{"null", syscall.S_IFCHR | 0o644, 1, 3},
		{"disk", syscall.S_IFBLK | 0o640, 8, 16},
		{"big", syscall.S_IFCHR | 0o600, 4095, 1<<20 - 1},
	} {
		p := e.path(d.name)
		must(t, "mknod", unix.Mknod(p, d.mode, int(unix.Mkdev(d.major, d.minor))))
		var st unix.Stat_t
		must(t, "lstat", unix.Lstat(p, &st))
		if st.Mode != d.mode || unix.Major(st.Rdev) != d.major || unix.Minor(st.Rdev) != d.minor {
			t.Errorf("%s through the mount: mode %#o rdev %d:%d", d.name, st.Mode, unix.Major(st.Rdev), unix.Minor(st.Rdev))
		}
		fi, err := e.store.Lstat(ctx, "/"+d.name)
		must(t, "store Lstat", err)
		if a := fi.Attr(); a.Mode != d.mode || a.Rdev != unix.Mkdev(d.major, d.minor) {
			t.Errorf("%s in the store: mode %#o rdev %#x", d.name, a.Mode, a.Rdev)
		}
		if _, err := os.Open(p); !isErrno(err, syscall.EACCES) {
			t.Errorf("open %s on a nodev mount: %v, want EACCES", d.name, err)
		}
	}
	// A number made in the store reaches the kernel the same.
	must(t, "store Mknod", e.store.Mknod(ctx, "/tty", vfs.S_IFCHR|0o620, unix.Mkdev(136, 300)))
	var st unix.Stat_t
	must(t, "lstat", unix.Lstat(e.path("tty"), &st))
	if unix.Major(st.Rdev) != 136 || unix.Minor(st.Rdev) != 300 {
		t.Errorf("/tty through the mount: rdev %d:%d, want 136:300", unix.Major(st.Rdev), unix.Minor(st.Rdev))
	}
}

func isErrno(err error, want syscall.Errno) bool {
	var e syscall.Errno
	for err != nil {
		if x, ok := err.(syscall.Errno); ok {
			e = x
			break
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			break
		}
		err = u.Unwrap()
	}
	return e == want
}
