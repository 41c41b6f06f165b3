package initproc

import (
	"bytes"
	"encoding/binary"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// These tests run the init for real, as a child process (this test binary,
// started with the init's subcommand) on one end of a socket pair, and play
// the host on the other end with raw frames: the handshake, the requests
// that need no program, and hostile frames. They start no program: outside
// a sandbox's pid namespace the init's sweep of escaped processes would
// reach the host's. The sandbox package's tests run it as the init of real
// runc sandboxes.

const initCommand = "sandbox-init"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == initCommand {
		os.Exit(Main(os.Args[2:], os.Stderr))
	}
	os.Exit(m.Run())
}

// config is a valid Config.
func config() wire.Config {
	return wire.Config{Version: wire.Version, OutputWindow: 256 << 10, DetachedBuffer: 64 << 10, MaxDetached: 4,
		KillGrace: time.Second, DrainTimeout: time.Second, OOMScoreAdj: 500}
}

// child is a running init and the host's end of its socket.
type child struct {
	t      *testing.T
	cmd    *exec.Cmd
	conn   net.Conn
	r      *wire.Reader
	stderr bytes.Buffer
	done   chan error
}

// startInit starts the init with a socket as its file descriptor 3 (none
// when noSocket).
func startInit(t *testing.T, noSocket bool) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{t: t, cmd: exec.Command(exe, initCommand), done: make(chan error, 1)}
	c.cmd.Stderr = &c.stderr
	if !noSocket {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		host, init := os.NewFile(uintptr(fds[0]), "host"), os.NewFile(uintptr(fds[1]), "init")
		defer init.Close()
		defer host.Close()
		c.conn, err = net.FileConn(host)
		if err != nil {
			t.Fatal(err)
		}
		c.r = wire.NewReader(c.conn)
		c.cmd.ExtraFiles = []*os.File{init}
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.done <- c.cmd.Wait() }()
	t.Cleanup(func() {
		if c.conn != nil {
			c.conn.Close()
		}
		c.cmd.Process.Kill()
		<-c.done
	})
	return c
}

// send writes frames to the init.
func (c *child) send(fs ...wire.Frame) {
	c.t.Helper()
	for _, f := range fs {
		if err := wire.Write(c.conn, f); err != nil {
			c.t.Fatalf("send %s: %v", f.Type, err)
		}
	}
}

// next reads the init's next frame, with a hang guard.
func (c *child) next() wire.Frame {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	f, err := c.r.Next()
	if err != nil {
		c.t.Fatalf("read from the init: %v (hang guard: 30s)\nstderr: %s", err, c.stderr.String())
	}
	return f
}

// handshake sends a valid Config and checks the Ready answer.
func (c *child) handshake() {
	c.t.Helper()
	c.send(wire.JSON(wire.TConfig, 0, config()))
	f := c.next()
	var r wire.Ready
	if f.Type != wire.TReady || wire.Decode(f, &r) != nil || r.Version != wire.Version || r.PID != c.cmd.Process.Pid {
		c.t.Fatalf("answer to Config: %s %s, want ready with version %d and pid %d", f.Type, f.Payload, wire.Version, c.cmd.Process.Pid)
	}
}

// exit waits for the init to exit and returns its status and stderr.
func (c *child) exit() (int, string) {
	c.t.Helper()
	select {
	case <-c.done:
		c.done <- nil // for the cleanup
	case <-time.After(30 * time.Second):
		c.t.Fatalf("the init did not exit within 30s (hang guard)\nstderr: %s", c.stderr.String())
	}
	return c.cmd.ProcessState.ExitCode(), c.stderr.String()
}

func TestMain_Arguments(t *testing.T) {
	var stderr bytes.Buffer
	if code := Main([]string{"extra"}, &stderr); code != 2 || !strings.Contains(stderr.String(), `unexpected arguments ["extra"]`) {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

func TestInit_NoSocket(t *testing.T) {
	c := startInit(t, true)
	if code, stderr := c.exit(); code != 1 || !strings.Contains(stderr, "open control socket: file descriptor 3 is not a socket") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestInit_Requests: after the handshake, the requests that need no program
// get their answers, malformed starts get an Error frame (and the init goes
// on), and the end of the connection ends the init with status 0.
func TestInit_Requests(t *testing.T) {
	c := startInit(t, false)
	c.handshake()
	c.send(wire.Frame{Type: wire.TList, Stream: 1})
	if f := c.next(); f.Type != wire.TListed || f.Stream != 1 || string(f.Payload) != `{"detached":[]}` {
		t.Errorf("list: %s %d %s", f.Type, f.Stream, f.Payload)
	}
	for _, tc := range []struct {
		name string
		f    wire.Frame
		want string
	}{
		{"no program", wire.JSON(wire.TStart, 2, wire.Start{ID: "x"}), "start: no program or no id"},
		{"no id", wire.JSON(wire.TStart, 3, wire.Start{Argv: []string{"/bin/true"}}), "start: no program or no id"},
		{"detached terminal", wire.JSON(wire.TStart, 4, wire.Start{ID: "x", Argv: []string{"/bin/sh"}, Detached: true, Terminal: &wire.Terminal{Rows: 24, Cols: 80}}), "cannot be detached"},
		{"terminal too large", wire.JSON(wire.TStart, 5, wire.Start{ID: "x", Argv: []string{"/bin/sh"}, Terminal: &wire.Terminal{Rows: 0, Cols: 80}}), "window size of 1 to 65535"},
		{"bad signal", wire.JSON(wire.TSignal, 6, wire.Signal{Signal: 99, ID: "x"}), "signal 99: invalid"},
		{"unknown detached", wire.JSON(wire.TSignal, 7, wire.Signal{Signal: int(syscall.SIGTERM), ID: "nope"}), "signal nope: no such detached execution"},
		{"attach unknown", wire.JSON(wire.TAttach, 8, wire.Attach{ID: "nope"}), "attach nope: no such detached execution"},
	} {
		c.send(tc.f)
		f := c.next()
		var e wire.Error
		if f.Type != wire.TError || f.Stream != tc.f.Stream || wire.Decode(f, &e) != nil || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %s on %d: %s, want an error containing %q", tc.name, f.Type, f.Stream, f.Payload, tc.want)
		}
	}
	// Credit, stdin and resize for streams that do not exist are dropped.
	c.send(wire.Count(wire.TCredit, 42, 10), wire.Frame{Type: wire.TStdin, Stream: 42, Payload: []byte("x")},
		wire.JSON(wire.TResize, 42, wire.Resize{Terminal: wire.Terminal{Rows: 1, Cols: 1}}), wire.Frame{Type: wire.TList, Stream: 9})
	if f := c.next(); f.Type != wire.TListed || f.Stream != 9 {
		t.Errorf("after frames for no stream: %s on %d", f.Type, f.Stream)
	}
	c.conn.Close()
	if code, stderr := c.exit(); code != 0 || stderr != "" {
		t.Errorf("after the host left: exit %d, stderr %q", code, stderr)
	}
}

// TestInit_HostileFrames: a bad Config, or a malformed or unexpected frame
// after it, ends the init with status 1 and a protocol error that says what
// it was.
func TestInit_HostileFrames(t *testing.T) {
	raw := func(length uint32, typ wire.Type, rest ...byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, length)
		b = append(b, byte(typ), 0, 0, 0, 1)
		return append(b, rest...)
	}
	badVersion := config()
	badVersion.Version++
	noWindow := config()
	noWindow.OutputWindow = 0
	for _, tc := range []struct {
		name      string
		handshake bool
		frame     []byte
		want      string
	}{
		{"config: wrong version", false, wire.Append(nil, wire.JSON(wire.TConfig, 0, badVersion)), "check config: protocol version"},
		{"config: a limit missing", false, wire.Append(nil, wire.JSON(wire.TConfig, 0, noWindow)), "a limit is missing"},
		{"config: not JSON", false, wire.Append(nil, wire.Frame{Type: wire.TConfig, Payload: []byte("{")}), "decode config frame"},
		{"config: another frame first", false, wire.Append(nil, wire.Frame{Type: wire.TList}), "read config: got a list frame"},
		{"config: truncated", false, raw(20, wire.TConfig, '{'), "read config: unexpected EOF"},
		{"a frame of the init's own", true, wire.Append(nil, wire.Frame{Type: wire.TStdout, Stream: 1, Payload: []byte("x")}), "unexpected stdout frame"},
		{"an unknown type", true, raw(5, 200), "unknown type 200"},
		{"a huge length", true, raw(0xffffffff, wire.TStdin), "length 4294967295"},
		{"a short credit", true, wire.Append(nil, wire.Frame{Type: wire.TCredit, Stream: 1, Payload: []byte{1}}), "decode credit frame: 1 bytes"},
		{"a start that is not JSON", true, wire.Append(nil, wire.Frame{Type: wire.TStart, Stream: 1, Payload: []byte(`{"argv":`)}), "decode start frame"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startInit(t, false)
			if tc.handshake {
				c.handshake()
			}
			if _, err := c.conn.Write(tc.frame); err != nil {
				t.Fatal(err)
			}
			if tc.want == "read config: unexpected EOF" {
				c.conn.(*net.UnixConn).CloseWrite()
			}
			code, stderr := c.exit()
			if code != 1 || !strings.Contains(stderr, tc.want) || (!strings.Contains(stderr, "sandbox protocol error") && !strings.Contains(tc.want, "EOF")) {
				t.Errorf("exit %d, stderr %q, want 1 and a protocol error containing %q", code, stderr, tc.want)
			}
		})
	}
}

// TestStdinPipe_Window: the host may not send more stdin than the window
// beyond what the program has read; the end of input may come any number of
// times.
func TestStdinPipe_Window(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	p := newStdinPipe(nil, 1, w, 10)
	if !p.push(make([]byte, 6)) || !p.push(make([]byte, 4)) {
		t.Fatal("the window refused its own size")
	}
	if p.push([]byte{1}) {
		t.Error("a byte beyond the window was accepted")
	}
	for range 3 {
		if !p.push(nil) {
			t.Error("the end of input was refused")
		}
	}
}
