package sandbox

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox/wire"
)

func TestParseListening(t *testing.T) {
	tcp := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1234 1 0000000000000000 100 0 0 10 0
   1: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1235 1 0000000000000000 100 0 0 10 0
   2: 0100007F:1F40 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 1236 1 0000000000000000 100 0 0 10 0
   3: garbage
`
	got := parseListening([]byte(tcp))
	want := []listening{{8000, "127.0.0.1", "1234"}, {80, "0.0.0.0", "1235"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("tcp: %+v, want %+v", got, want)
	}
	tcp6 := `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 99 1 0000000000000000 100 0 0 10 0
`
	if got := parseListening([]byte(tcp6)); len(got) != 1 || got[0] != (listening{8080, "::1", "99"}) {
		t.Errorf("tcp6: %+v", got)
	}
}

// startService starts src as a detached execution and waits for want on its
// stdout.
func (e *env) startService(id, src, want string) *run.Execution {
	e.t.Helper()
	x, err := e.r.Exec(ctx(e.t), src, run.ExecOptions{ID: id, Detached: true})
	if err != nil {
		e.t.Fatal(err)
	}
	waitOutput(e.t.(*testing.T), x, want)
	return x
}

// TestPorts_Forward: a python http.server and a WebSocket echo service in
// the sandbox are reached through DialPort (the init's forwarder, no
// network namespace entered), listed by Ports with their executions, and a
// port nothing listens on, or a stopped sandbox, is refused clearly.
func TestPorts_Forward(t *testing.T) {
	t.Parallel()
	tool(t, "python3")
	e := newEnv(t, Options{})
	if err := os.WriteFile(filepath.Join(e.wsDir, "hello.txt"), []byte("hello from the sandbox\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	echo, err := os.ReadFile("testdata/ws_echo.py")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.wsDir, "ws_echo.py"), echo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.b.DialPort(ctx(t), e.fs, 8000); !errors.Is(err, ErrNotRunning) {
		t.Errorf("dial before any sandbox: %v, want ErrNotRunning", err)
	}
	e.startService("web", "exec python3 -u -c 'import http.server as h, functools as f; s = h.ThreadingHTTPServer((\"127.0.0.1\", 8000), f.partial(h.SimpleHTTPRequestHandler, directory=\"/workspace\")); print(\"serving\", flush=True); s.serve_forever()'", "serving")
	e.startService("echo", "exec python3 -u ws_echo.py 9000", "listening")

	// HTTP through the forwarder, twice on one connection (keep-alive).
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return e.b.DialPort(ctx, e.fs, 8000)
	}}}
	for range 2 {
		res, err := hc.Get("http://sandbox/hello.txt")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(b) != "hello from the sandbox\n" {
			t.Errorf("GET /hello.txt: %d %q", res.StatusCode, b)
		}
	}

	// A raw half-close: the request, then the end of input; the answer still
	// arrives.
	c, err := e.b.DialPort(ctx(t), e.fs, 8000)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET /hello.txt HTTP/1.0\r\n\r\n")
	c.CloseWrite()
	all, _ := io.ReadAll(bufio.NewReader(c))
	c.Close()
	if !strings.HasPrefix(string(all), "HTTP/1.0 200") || !strings.HasSuffix(string(all), "hello from the sandbox\n") {
		t.Errorf("HTTP/1.0 with a half-close: %q", all)
	}

	// A WebSocket echo.
	wsc, _, err := websocket.Dial(ctx(t), "ws://sandbox/echo", &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return e.b.DialPort(ctx, e.fs, 9000) }}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{"ping", strings.Repeat("x", 100_000)} {
		if err := wsc.Write(ctx(t), websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		wsc.SetReadLimit(1 << 20)
		typ, got, err := wsc.Read(ctx(t))
		if err != nil || typ != websocket.MessageText || string(got) != msg {
			t.Errorf("echo of %d bytes: %v %d bytes, %v", len(msg), typ, len(got), err)
		}
	}
	wsc.Close(websocket.StatusNormalClosure, "")

	// Nothing on 8001: refused with the init's reason.
	if _, err := e.b.DialPort(ctx(t), e.fs, 8001); !errors.Is(err, wire.ErrForwardRefused) || !strings.Contains(err.Error(), "nothing listens on port 8001") {
		t.Errorf("dial 8001: %v", err)
	}
	if _, err := e.b.DialPort(ctx(t), e.fs, 0); err == nil {
		t.Errorf("dial port 0 accepted")
	}

	// The listening ports, with the executions that hold them.
	ports, err := e.b.Ports(ctx(t), e.fs)
	if err != nil {
		t.Fatal(err)
	}
	byPort := map[int]Port{}
	for _, p := range ports {
		byPort[p.Port] = p
	}
	if p := byPort[8000]; p.Addr != "127.0.0.1" || p.Execution != "web" || p.Command != "python3" || p.PID == 0 {
		t.Errorf("port 8000: %+v (all: %+v)", p, ports)
	}
	if p := byPort[9000]; p.Execution != "echo" {
		t.Errorf("port 9000: %+v", p)
	}

	// Once the sandbox stops, nothing is reachable.
	if err := e.b.Stop(ctx(t), "ws"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.b.DialPort(ctx(t), e.fs, 8000); !errors.Is(err, ErrNotRunning) {
		t.Errorf("dial after the stop: %v", err)
	}
	if _, err := e.b.Ports(ctx(t), e.fs); !errors.Is(err, ErrNotRunning) {
		t.Errorf("ports after the stop: %v", err)
	}
}
