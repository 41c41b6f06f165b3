package sandbox

import (
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// TestConn_HostileInit plays a hostile init on the other end of the host's
// connection: each way of flooding or confusing the host ends the
// connection with a protocol error that says what happened, instead of
// growing the host's memory or being taken for something else.
func TestConn_HostileInit(t *testing.T) {
	const window = 1024
	for _, tc := range []struct {
		name   string
		frames func(yield func(wire.Frame) bool)
		want   string
	}{
		{"empty frames without end", func(yield func(wire.Frame) bool) {
			for yield(wire.Frame{Type: wire.TOK, Stream: 1}) {
			}
		}, "stream 1 sent more than its window"},
		{"output beyond the window", func(yield func(wire.Frame) bool) {
			for yield(wire.Frame{Type: wire.TStdout, Stream: 1, Payload: make([]byte, wire.MaxData)}) {
			}
		}, "stream 1 sent more than its window"},
		{"a host's frame", func(yield func(wire.Frame) bool) {
			yield(wire.JSON(wire.TStart, 1, wire.Start{ID: "x"}))
		}, "start from the init"},
		{"an unknown type", func(yield func(wire.Frame) bool) {
			yield(wire.Frame{Type: 99, Stream: 1})
		}, "unknown type 99"},
		{"two readies", func(yield func(wire.Frame) bool) {
			yield(wire.JSON(wire.TReady, 0, wire.Ready{Version: wire.Version}))
			yield(wire.JSON(wire.TReady, 0, wire.Ready{Version: wire.Version}))
		}, "a second ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, init := net.Pipe()
			defer init.Close()
			k := newConn(host, window, nil)
			k.open() // stream 1, never consumed
			go tc.frames(func(f wire.Frame) bool { return wire.Write(init, f) == nil })
			select {
			case <-k.done:
			case <-time.After(30 * time.Second):
				t.Fatal("the connection still lives after 30s of hostile frames (hang guard)")
			}
			if err := k.Err(); !errors.Is(err, wire.ErrProtocol) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("connection ended with %v, want a protocol error about %q", err, tc.want)
			}
		})
	}
}

// TestConn_DrainKeepsFramesSent: frames the init wrote before the host ends
// the connection (a sandbox stopping because its init was killed) reach
// their stream before the end does. The frames are in the socket's buffer
// before the reader starts, so the end always comes first: a close there
// would lose them (the backend then took a started program for one that
// never started, and ran it again on a new sandbox).
func TestConn_DrainKeepsFramesSent(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	hostFile, initFile := os.NewFile(uintptr(fds[0]), "host"), os.NewFile(uintptr(fds[1]), "init")
	defer initFile.Close()
	host, err := net.FileConn(hostFile)
	hostFile.Close()
	if err != nil {
		t.Fatal(err)
	}
	k := makeConn(host, 1024, nil)
	s := k.open()
	for _, f := range []wire.Frame{
		wire.JSON(wire.TStarted, s.id, wire.Started{PID: 42}),
		{Type: wire.TStdout, Stream: s.id, Payload: []byte("last words\n")},
	} {
		if err := wire.Write(initFile, f); err != nil {
			t.Fatal(err)
		}
	}
	// initFile stays open, as the runtime's copy of the init's end does:
	// the end of what there is to read comes from the host's side.
	stopping := errors.New("the sandbox is stopping")
	k.drain(stopping)
	go k.read()
	for _, want := range []wire.Type{wire.TStarted, wire.TStdout} {
		f, err := s.next(nil, nil)
		if err != nil || f.Type != want {
			t.Fatalf("got %s (%v), want the %s the init sent before the end", f.Type, err, want)
		}
	}
	if _, err := s.next(nil, nil); err != stopping {
		t.Fatalf("after the frames: %v, want the reason it ended (%v)", err, stopping)
	}
}
