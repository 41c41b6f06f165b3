package notify

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// answererEnv makes the test binary the host's side of TestAnswerLaunch:
// it takes one listener on fd 3, answers its launch and sends the token
// back.
const answererEnv = "DESK_NOTIFY_TEST_ANSWERER"

func TestMain(m *testing.M) {
	// The main goroutine keeps the main thread: a goroutine that ends
	// locked to its thread ends the thread, and the filter with it
	// (withFilter relies on it), but the main thread cannot end and would
	// keep the filter for good.
	runtime.LockOSThread()
	if os.Getenv(answererEnv) == "1" {
		os.Exit(answerer())
	}
	os.Exit(m.Run())
}

func answerer() int {
	c, err := net.FileConn(os.NewFile(3, "notify"))
	if err != nil {
		return 2
	}
	token, fd, err := Take(c.(*net.UnixConn))
	if err != nil {
		return 3
	}
	answered, err := AnswerLaunch(fd)
	if err != nil || !answered {
		return 4
	}
	if SendToken(c.(*net.UnixConn), token) != nil {
		return 5
	}
	return 0
}

// pair is a connected SOCK_SEQPACKET pair.
func pair(t *testing.T) (*net.UnixConn, *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fds[0]), "a")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	other := os.NewFile(uintptr(fds[1]), "b")
	t.Cleanup(func() { c.Close(); other.Close() })
	return c.(*net.UnixConn), other
}

// conn wraps f as a connection.
func conn(t *testing.T, f *os.File) *net.UnixConn {
	t.Helper()
	c, err := net.FileConn(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.UnixConn)
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestPassTake: a listener passed with its token arrives as a working
// duplicate with the same token; a message of another shape is refused
// and the descriptors it carried are closed; a closed end is io.EOF.
func TestPassTake(t *testing.T) {
	a, bf := pair(t)
	b := conn(t, bf)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := Pass(a, 0x0102030405060708, int(w.Fd())); err != nil {
		t.Fatal(err)
	}
	token, fd, err := Take(b)
	if err != nil || token != 0x0102030405060708 {
		t.Fatalf("Take: %#x, %v", token, err)
	}
	if _, err := unix.Write(fd, []byte("x")); err != nil {
		t.Fatalf("write the duplicate: %v", err)
	}
	unix.Close(fd)
	var got [1]byte
	if n, err := r.Read(got[:]); n != 1 || err != nil || got[0] != 'x' {
		t.Fatalf("read: %d %v %q", n, err, got)
	}

	before := openFDs(t)
	for _, tc := range []struct {
		name string
		data []byte
		fds  []int
	}{
		{"no descriptor", make([]byte, TokenSize), nil},
		{"short", []byte{1, 2, 3}, []int{int(w.Fd())}},
		{"long", make([]byte, TokenSize+3), []int{int(w.Fd())}},
		{"two descriptors", make([]byte, TokenSize), []int{int(w.Fd()), int(r.Fd())}},
	} {
		var oob []byte
		if tc.fds != nil {
			oob = unix.UnixRights(tc.fds...)
		}
		if _, _, err := a.WriteMsgUnix(tc.data, oob, nil); err != nil {
			t.Fatal(err)
		}
		if _, fd, err := Take(b); !errors.Is(err, ErrMessage) || fd != -1 {
			t.Errorf("%s: fd %d, %v; want ErrMessage", tc.name, fd, err)
		}
	}
	if after := openFDs(t); after != before {
		t.Errorf("open descriptors: %d before the refused messages, %d after", before, after)
	}

	if err := SendToken(a, 42); err != nil {
		t.Fatal(err)
	}
	if token, fd, err := Receive(b); err != nil || token != 42 || fd != -1 {
		t.Fatalf("Receive a token: %d, fd %d, %v", token, fd, err)
	}
	if err := Pass(a, 43, int(w.Fd())); err != nil {
		t.Fatal(err)
	}
	if token, fd, err := Receive(b); err != nil || token != 43 || fd < 0 {
		t.Fatalf("Receive a descriptor: %d, fd %d, %v", token, fd, err)
	} else {
		unix.Close(fd)
	}
	if _, err := a.Write([]byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Receive(b); !errors.Is(err, ErrMessage) {
		t.Errorf("a short token: %v", err)
	}
	a.Close()
	if _, _, err := Take(b); err != io.EOF {
		t.Errorf("Take after close: %v, want io.EOF", err)
	}
	if _, _, err := Receive(b); err != io.EOF {
		t.Errorf("Receive after close: %v, want io.EOF", err)
	}
}

// execFilter asks about every execve.
func execFilter(t *testing.T) unix.SockFprog {
	t.Helper()
	raw, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_EXECVE, SkipFalse: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_USER_NOTIF},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		f[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
}

// withFilter runs fn on a new thread that carries execFilter and ends
// with fn, giving fn the filter's listener (fn closes it).
func withFilter(t *testing.T, fn func(listener int) error) error {
	t.Helper()
	prog := execFilter(t)
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends, and its filter with it
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			ch <- err
			return
		}
		fd, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
			unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
		if errno != 0 {
			ch <- fmt.Errorf("install the filter: %w", errno)
			return
		}
		ch <- fn(int(fd))
	}()
	return <-ch
}

// TestAnswerLaunch: a program forked (vfork) from a thread with an exec
// filter runs once another process, given the listener, answered its exec,
// and the token comes back — the init's launch, with the test binary as
// the host.
func TestAnswerLaunch(t *testing.T) {
	a, bf := pair(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), answererEnv+"=1")
	cmd.ExtraFiles = []*os.File{bf}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bf.Close()
	var pid int
	err = withFilter(t, func(listener int) error {
		err := Pass(a, 7, listener)
		unix.Close(listener) // the answerer has its own
		if err != nil {
			return err
		}
		// Were the answerer to fail, its exit would close the last
		// listener and the exec would fail (ENOSYS), not hang.
		pid, err = syscall.ForkExec("/bin/true", []string{"true"}, &syscall.ProcAttr{})
		return err
	})
	if err != nil {
		t.Fatalf("launch under the filter: %v", err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
		t.Fatalf("true: %v, status %v", err, ws)
	}
	if token, fd, err := Receive(a); err != nil || token != 7 || fd != -1 {
		t.Fatalf("the answer: token %d, %v", token, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the answerer: %v", err)
	}
}

// TestAnswerLaunch_nobody: when every user of the filter is gone before any
// exec (a fork that failed), AnswerLaunch returns false.
func TestAnswerLaunch_nobody(t *testing.T) {
	var kept int
	if err := withFilter(t, func(listener int) error { kept = listener; return nil }); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(kept)
	// The thread that carried the filter has ended.
	if answered, err := AnswerLaunch(kept); answered || err != nil {
		t.Fatalf("AnswerLaunch: %v, %v; want false, nil", answered, err)
	}
}
