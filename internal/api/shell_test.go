package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/workspace"
)

// sandboxShells opens shells with the sandbox backend (what cmd/desk wires).
type sandboxShells struct{ b *sandbox.Backend }

func (s sandboxShells) OpenShell(ctx context.Context, ws *workspace.Workspace, o api.ShellOptions) (api.Terminal, error) {
	sh, err := s.b.Shell(ctx, sandbox.Workspace{FS: ws.FS()}, sandbox.ShellOptions{Rows: o.Rows, Cols: o.Cols, Term: o.Term})
	if err != nil {
		return nil, err
	}
	return sh, nil
}

// shellHeaders are the headers of a WebSocket handshake, for plain requests.
var shellHeaders = []string{"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}

// TestShell_Refused: who may not open a shell, and a server without the
// sandbox backend, are told so before the upgrade.
func TestShell_Refused(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	_, reader := e.mint("w", nil, "read")
	_, shellOnly := e.mint("w", []string{"lines"}, "exec")
	_, execTok := e.mint("w", nil, "exec")
	for _, c := range []struct {
		name, token string
		status      int
		code        string
	}{
		{"no token", "", http.StatusUnauthorized, api.CodeUnauthorized},
		{"read scope", reader, http.StatusForbidden, api.CodeForbidden},
		{"backends without the sandbox", shellOnly, http.StatusForbidden, api.CodeForbidden},
		{"no sandbox backend", execTok, http.StatusNotImplemented, api.CodeNotImplemented},
		{"no sandbox backend (admin)", e.admin, http.StatusNotImplemented, api.CodeNotImplemented},
	} {
		st, body, code := e.raw("GET", "/v1/workspaces/w/shell", c.token, nil, shellHeaders...)
		if st != c.status || code != c.code {
			t.Errorf("%s: %d %s %s, want %d %s", c.name, st, code, body, c.status, c.code)
		}
	}
	// A real WebSocket client gets the same answer.
	_, resp, err := websocket.Dial(bg, e.url+"/v1/workspaces/w/shell", &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + e.admin}},
	})
	if err == nil || resp == nil || resp.StatusCode != http.StatusNotImplemented {
		t.Errorf("dial without a sandbox backend: %v, %+v", err, resp)
	}
}

// shellServer is an API server with the real sandbox backend, its shells
// included.
func shellServer(t *testing.T, configure ...func(*api.ShellConfig)) (url, admin string, c *client.Client) {
	t.Helper()
	s := newSandboxServer(t, sandboxConfig{cgroupParent: "desk-api-shell-test", killGrace: 200 * time.Millisecond, api: func(sb *sandbox.Backend) api.Options {
		cfg := api.ShellConfig{Opener: sandboxShells{sb}}
		for _, f := range configure {
			f(&cfg)
		}
		return api.Options{Shell: cfg}
	}})
	return s.ts.URL, s.admin, s.c
}

// shellConn is a WebSocket shell session of a test.
type shellConn struct {
	t    *testing.T
	ctx  context.Context
	conn *websocket.Conn
	id   string
	out  strings.Builder // terminal bytes so far
}

func dialShell(t *testing.T, url, token, query string) *shellConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg, time.Minute)
	t.Cleanup(cancel)
	conn, resp, err := websocket.Dial(ctx, url+"/v1/workspaces/w/shell"+query, &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + token}},
	})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	return &shellConn{t: t, ctx: ctx, conn: conn, id: resp.Header.Get(api.ShellIDHeader)}
}

func (s *shellConn) send(typ websocket.MessageType, msg string) {
	s.t.Helper()
	if err := s.conn.Write(s.ctx, typ, []byte(msg)); err != nil {
		s.t.Fatalf("send %q: %v", msg, err)
	}
}

// next reads one message: terminal bytes are added to out, a control
// message is returned.
func (s *shellConn) next() (map[string]any, error) {
	typ, b, err := s.conn.Read(s.ctx)
	if err != nil {
		return nil, err
	}
	if typ == websocket.MessageBinary {
		s.out.Write(b)
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		s.t.Fatalf("control message %q: %v", b, err)
	}
	return m, nil
}

// until reads until the terminal's output holds want.
func (s *shellConn) until(want string) {
	s.t.Helper()
	for !strings.Contains(s.out.String(), want) {
		if m, err := s.next(); err != nil || m != nil {
			s.t.Fatalf("waiting for %q: message %v, %v; output so far:\n%s", want, m, err, s.out.String())
		}
	}
}

// TestShell_WebSocket: resize, a command, the exit message and a normal
// close; what the shell wrote is in the workspace, attributed to the
// session; closing the WebSocket kills what a shell left running.
func TestShell_WebSocket(t *testing.T) {
	url, admin, c := shellServer(t)
	if _, err := c.CreateWorkspace(bg, "w"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WriteFile(bg, "w", "/workspace/hello.txt", strings.NewReader("hello from the API\n"), client.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}
	for name, q := range map[string]string{"rows": "?rows=0", "cols": "?cols=x", "term": "?term=a%20b"} {
		_, _, err := websocket.Dial(bg, url+"/v1/workspaces/w/shell"+q, &websocket.DialOptions{
			HTTPHeader: http.Header{"Authorization": {"Bearer " + admin}},
		})
		if err == nil || !strings.Contains(err.Error(), "400") {
			t.Errorf("%s: %v", name, err)
		}
	}
	req, _ := http.NewRequest("GET", url+"/v1/workspaces/w/shell", nil)
	req.Header.Set("Authorization", "Bearer "+admin)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUpgradeRequired {
		t.Errorf("a plain GET: %v, %+v", err, resp)
	} else {
		resp.Body.Close()
	}

	s := dialShell(t, url, admin, "?rows=24&cols=80&term=vt100")
	if !strings.HasPrefix(s.id, "shell-") {
		t.Errorf("%s: %q", api.ShellIDHeader, s.id)
	}
	s.send(websocket.MessageText, `{"type":"resize","rows":40,"cols":132}`)
	s.send(websocket.MessageText, `{"type":"frob"}`)
	s.send(websocket.MessageBinary, "stty size; echo TERM=$TERM; cat /workspace/hello.txt; echo made > /workspace/from-shell; exit 3\n")
	var exit map[string]any
	for exit == nil {
		m, err := s.next()
		if err != nil {
			t.Fatalf("before the exit message: %v; output:\n%s", err, s.out.String())
		}
		switch {
		case m == nil:
		case m["type"] == "error":
			if !strings.Contains(m["message"].(string), "frob") {
				t.Errorf("error message: %v", m)
			}
		default:
			exit = m
		}
	}
	if exit["type"] != "exit" || exit["code"] != float64(3) {
		t.Errorf("exit message %v, want code 3", exit)
	}
	if _, err := s.next(); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("after the exit: %v, want a normal close", err)
	}
	for _, want := range []string{"40 132\r\n", "\r\nTERM=vt100\r\n", "\r\nhello from the API\r\n"} {
		if !strings.Contains(s.out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, s.out.String())
		}
	}
	b, err := c.ReadFile(bg, "w", "/workspace/from-shell")
	if err != nil || string(b) != "made\n" {
		t.Errorf("the file made in the shell: %q, %v", b, err)
	}
	chs, err := c.Changes(bg, "w", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ch := range chs.Changes {
		if ch.Path == "/workspace/from-shell" {
			found = true
			if ch.Actor != s.id {
				t.Errorf("%s %s by %q, want %q", ch.Op, ch.Path, ch.Actor, s.id)
			}
		}
	}
	if !found {
		t.Error("no change for the file made in the shell")
	}

	// Closing the WebSocket hangs the shell up: its background job is gone.
	s = dialShell(t, url, admin, "")
	s.send(websocket.MessageBinary, "sleep 1000 & echo started-$((40+2))\n")
	s.until("started-42")
	// Executions run in the shell's sandbox: they see its job (once it has
	// exec'd sleep), and, after the close, see it gone.
	const count = `count() { n=0; for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = sleep ] && n=$((n+1)); done; }
		for i in $(seq 300); do count; [ $n = %s ] && break; sleep 0.1; done; echo $n`
	res, err := c.Run(bg, "w", client.ExecRequest{Backend: sandbox.ID, Source: fmt.Sprintf(count, "1")})
	if err != nil || res.Stdout != "1\n" {
		t.Fatalf("sleeps while the shell is open: %+v, %v", res, err)
	}
	s.conn.Close(websocket.StatusNormalClosure, "bye")
	res, err = c.Run(bg, "w", client.ExecRequest{Backend: sandbox.ID, Source: fmt.Sprintf(count, "0")})
	if err != nil || res.Stdout != "0\n" {
		t.Errorf("sleeps left after the WebSocket closed: %+v, %v", res, err)
	}
}

// TestShell_EOF: the eof control message ends the input; a shell at its
// prompt exits on it (^D).
func TestShell_EOF(t *testing.T) {
	url, admin, c := shellServer(t)
	if _, err := c.CreateWorkspace(bg, "w"); err != nil {
		t.Fatal(err)
	}
	s := dialShell(t, url, admin, "")
	s.send(websocket.MessageBinary, "PS1='P''ROMPT> '\n")
	s.until("PROMPT> ")
	s.send(websocket.MessageText, `{"type":"eof"}`)
	for {
		m, err := s.next()
		if err != nil {
			t.Fatalf("before the exit message: %v; output:\n%s", err, s.out.String())
		}
		if m != nil {
			if m["type"] != "exit" || m["code"] != float64(0) {
				t.Errorf("message %v, want exit 0", m)
			}
			break
		}
	}
	if _, err := s.next(); !errors.As(err, new(websocket.CloseError)) {
		t.Errorf("after the exit: %v", err)
	}
}

// TestShell_Limits: past ShellConfig.MaxShells a shell is refused (503)
// until one closes; a client that stops answering pings is hung up, and
// what its shell left running goes with it.
func TestShell_Limits(t *testing.T) {
	url, admin, c := shellServer(t, func(cfg *api.ShellConfig) {
		cfg.MaxShells = 1
		cfg.PingInterval = 200 * time.Millisecond
	})
	if _, err := c.CreateWorkspace(bg, "w"); err != nil {
		t.Fatal(err)
	}
	s := dialShell(t, url, admin, "")
	s.send(websocket.MessageBinary, "sleep 1000 & echo started-$((40+2))\n")
	s.until("started-42")
	_, _, err := websocket.Dial(bg, url+"/v1/workspaces/w/shell", &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + admin}},
	})
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a second shell with MaxShells 1: %v, want 503", err)
	}
	// The client stops reading, so it answers no ping: the server hangs the
	// shell up, and its background job is killed with it.
	const count = `count() { n=0; for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = sleep ] && n=$((n+1)); done; }
		for i in $(seq 300); do count; [ $n = 0 ] && break; sleep 0.1; done; echo $n`
	res, err := c.Run(bg, "w", client.ExecRequest{Backend: sandbox.ID, Source: count})
	if err != nil || res.Stdout != "0\n" {
		t.Fatalf("sleeps left after the client stopped answering pings: %+v, %v", res, err)
	}
	// Its slot is free again.
	var conn *websocket.Conn
	for i := 0; ; i++ {
		conn, _, err = websocket.Dial(bg, url+"/v1/workspaces/w/shell", &websocket.DialOptions{
			HTTPHeader: http.Header{"Authorization": {"Bearer " + admin}},
		})
		if err == nil || i == 300 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("a shell after the first was hung up: %v", err)
	}
	conn.CloseNow()
}
