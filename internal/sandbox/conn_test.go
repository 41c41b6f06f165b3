package sandbox

import (
	"errors"
	"net"
	"strings"
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
