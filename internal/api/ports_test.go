package api_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/api/sandboxports"
	"github.com/desk-dev/desk/internal/sandbox"
)

// portsEnv is an API server with the sandbox backend and port links, a
// workspace "w" running a python http.server on 8000 and a WebSocket echo
// on 9000 as services.
type portsEnv struct {
	ts    *httptest.Server
	admin *client.Client
	key   []byte
	token string // a workspace token of w with exec
	rtok  string // a read-only one
}

func newPortsEnv(t testing.TB) *portsEnv {
	ctx := context.Background()
	e := &portsEnv{key: []byte(strings.Repeat("k", 32))}
	links, err := api.OpenPortLinks(filepath.Join(t.TempDir(), "port-links.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := newSandboxServer(t, sandboxConfig{cgroupParent: "desk-api-test", api: func(sb *sandbox.Backend) api.Options {
		return api.Options{Ports: api.PortConfig{Dialer: sandboxports.New(sb), LinkKey: e.key, Links: links}}
	}})
	e.ts, e.admin = s.ts, s.c
	if _, err := e.admin.CreateWorkspace(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		tok    *string
		scopes []string
	}{{&e.token, []string{"exec", "read"}}, {&e.rtok, []string{"read"}}} {
		m, err := e.admin.MintToken(ctx, client.TokenRequest{Workspace: "w", Scopes: x.scopes})
		if err != nil {
			t.Fatal(err)
		}
		*x.tok = m.Secret
	}
	echo, err := os.ReadFile("../sandbox/testdata/ws_echo.py")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"/workspace/site/index.html": "<h1>preview</h1>\n", "/workspace/ws_echo.py": string(echo)} {
		if _, err := e.admin.WriteFile(ctx, "w", name, strings.NewReader(body), client.WriteOptions{Parents: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []struct{ id, src, ready string }{
		{"web", "cd site && exec python3 -u -m http.server 8000 --bind 127.0.0.1", "Serving HTTP"},
		{"echo", "exec python3 -u ws_echo.py 9000", "listening"},
	} {
		if _, err := e.admin.Exec(ctx, "w", client.ExecRequest{Source: s.src, Backend: sandbox.ID, Detached: true, ID: s.id}); err != nil {
			t.Fatal(err)
		}
		waitServiceOutput(t, e.admin, "w", s.id, s.ready)
	}
	return e
}

// waitServiceOutput follows execution id's events until its output holds
// want (both print once they listen); a deadline guards the wait.
func waitServiceOutput(t testing.TB, c *client.Client, ws, id, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := c.Events(ctx, ws, id, client.EventsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out strings.Builder
	for !strings.Contains(out.String(), want) {
		ev, err := s.Next()
		if err != nil {
			t.Fatalf("%s's events (output so far %q): %v", id, out.String(), err)
		}
		out.Write(ev.Data)
	}
}

// get GETs the preview path p with the bearer token tok ("" none) and
// returns the status and body.
func (e *portsEnv) get(t *testing.T, hc *http.Client, p, tok string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("GET", e.ts.URL+p, nil)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", p, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header
}

func TestPorts_Preview(t *testing.T) {
	e := newPortsEnv(t)
	ctx := context.Background()
	const preview = "/v1/workspaces/w/ports/8000/"

	// Listed, with their executions.
	l, err := e.admin.Ports(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	found := map[int]client.Port{}
	for _, p := range l.Ports {
		found[p.Port] = p
	}
	if p := found[8000]; p.Execution != "web" || p.Preview != preview || p.Addr != "127.0.0.1" {
		t.Errorf("port 8000: %+v", p)
	}

	// With a workspace token: the page, and what the service saw.
	if code, body, _ := e.get(t, nil, preview+"index.html", e.token); code != 200 || body != "<h1>preview</h1>\n" {
		t.Errorf("GET with a token: %d %q", code, body)
	}
	if code, body, _ := e.get(t, nil, preview, e.token); code != 200 || !strings.Contains(body, "preview") {
		t.Errorf("GET / with a token: %d %q", code, body)
	}
	// …/ports/8000 redirects to the directory.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if code, _, h := e.get(t, noFollow, strings.TrimSuffix(preview, "/"), e.token); code != http.StatusMovedPermanently || h.Get("Location") != preview {
		t.Errorf("GET without the slash: %d %q", code, h.Get("Location"))
	}
	// Refused: no token, a read-only token, a bad link, another port's link.
	for _, c := range []struct {
		what, path, tok string
		code            int
	}{
		{"no token", preview, "", 401},
		{"read-only token", preview, e.rtok, 403},
		{"a forged link", preview + "?desk_link=AAAAAAAAAAAAAA.AAAA", "", 401},
		{"another port's link", preview + "?desk_link=" + api.SignPortLink(e.key, "w", 9000, time.Now().Add(time.Hour)), "", 403},
		{"a link signed with another key", preview + "?desk_link=" + api.SignPortLink([]byte(strings.Repeat("x", 32)), "w", 8000, time.Now().Add(time.Hour)), "", 401},
		{"an expired link", preview + "?desk_link=" + api.SignPortLink(e.key, "w", 8000, time.Now().Add(-time.Second)), "", 410},
		{"nothing on the port", "/v1/workspaces/w/ports/8001/", e.token, 502},
	} {
		if code, body, _ := e.get(t, nil, c.path, c.tok); code != c.code || strings.Contains(body, "preview") {
			t.Errorf("%s: %d %q, want %d", c.what, code, body, c.code)
		}
	}

	// A link made through the API: the first request carries it in the
	// query and gets the cookie; a browser's next requests (a cookie jar
	// here) need nothing else.
	link, err := e.admin.SharePort(ctx, "w", client.PortLinkRequest{Port: 8000, ExpiresIn: 600})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link.URL, e.ts.URL+preview+"?desk_link=") || time.Until(link.Expires) > 601*time.Second || time.Until(link.Expires) < 590*time.Second {
		t.Errorf("link: %+v", link)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if code, body, _ := e.get(t, browser, link.Path, ""); code != 200 || !strings.Contains(body, "preview") {
		t.Errorf("GET the link: %d %q", code, body)
	}
	if code, body, _ := e.get(t, browser, preview+"index.html", ""); code != 200 || body != "<h1>preview</h1>\n" {
		t.Errorf("GET with the link's cookie: %d %q", code, body)
	}
	// Revoked, the link stops at once, its cookie too; another link of
	// the same port still works.
	other, err := e.admin.SharePort(ctx, "w", client.PortLinkRequest{Port: 8000})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.admin.RevokePortLink(ctx, "w", link.ID); err != nil {
		t.Fatal(err)
	}
	if code, body, _ := e.get(t, browser, preview+"index.html", ""); code != 410 || !strings.Contains(body, "revoked") {
		t.Errorf("GET with a revoked link's cookie: %d %q", code, body)
	}
	if code, _, _ := e.get(t, nil, link.Path, ""); code != 410 {
		t.Errorf("GET a revoked link: %d", code)
	}
	if code, body, _ := e.get(t, nil, other.Path, ""); code != 200 || !strings.Contains(body, "preview") {
		t.Errorf("GET another link: %d %q", code, body)
	}
	_, err = e.admin.SharePort(ctx, "w", client.PortLinkRequest{Port: 8000, ExpiresIn: 8 * 24 * 3600})
	wantCode(t, "a link of 8 days", err, 400, api.CodeInvalid)
	ro, _ := client.New(e.ts.URL, e.rtok, client.Options{})
	_, err = ro.SharePort(ctx, "w", client.PortLinkRequest{Port: 8000})
	wantCode(t, "a link from a read-only token", err, 403, api.CodeForbidden)

	// What the service gets: the path below the port, the query without the
	// link, no credentials (the token, the link, its cookie), Host
	// localhost:PORT, the X-Forwarded headers.
	req, _ := http.NewRequest("GET", e.ts.URL+"/v1/workspaces/w/ports/9000/a/b%20c?x=1&desk_link="+url.QueryEscape(api.SignPortLink(e.key, "w", 9000, time.Now().Add(time.Minute)))+"&y=2", nil)
	req.Header.Set("Cookie", "other=1; desk_link_9000=secret-cookie")
	req.Header.Set("X-Custom", "kept")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	headBytes, _ := io.ReadAll(res.Body)
	res.Body.Close()
	head := string(headBytes)
	if res.StatusCode != 400 || !strings.HasPrefix(head, "GET /a/b%20c?x=1&y=2 HTTP/1.1\r\n") || !strings.Contains(head, "Host: localhost:9000\r\n") ||
		!strings.Contains(head, "X-Forwarded-Prefix: /v1/workspaces/w/ports/9000\r\n") || !strings.Contains(head, "X-Custom: kept\r\n") ||
		!strings.Contains(head, "Cookie: other=1\r\n") || strings.Contains(head, "desk_link") || strings.Contains(head, "secret-cookie") || !strings.Contains(head, "X-Forwarded-For") {
		t.Errorf("the service got %d:\n%s", res.StatusCode, head)
	}
	if c := res.Header.Get("Set-Cookie"); !strings.HasPrefix(c, "desk_link_9000=") || !strings.Contains(c, "Path=/v1/workspaces/w/ports/9000/") || !strings.Contains(c, "HttpOnly") {
		t.Errorf("Set-Cookie: %q", c)
	}
	req, _ = http.NewRequest("GET", e.ts.URL+"/v1/workspaces/w/ports/9000/", nil)
	req.Header.Set("Authorization", "Bearer "+e.token)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	headBytes, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if strings.Contains(string(headBytes), "Authorization") || strings.Contains(string(headBytes), e.token) {
		t.Errorf("the service got the token:\n%s", headBytes)
	}

	// A WebSocket echo through the preview URL, with the token, then with
	// the link.
	for _, o := range []struct {
		what string
		u    string
		h    http.Header
	}{
		{"token", "/v1/workspaces/w/ports/9000/echo", http.Header{"Authorization": {"Bearer " + e.token}}},
		{"link", "/v1/workspaces/w/ports/9000/echo?desk_link=" + url.QueryEscape(api.SignPortLink(e.key, "w", 9000, time.Now().Add(time.Minute))), nil},
	} {
		wsc, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.ts.URL, "http")+o.u, &websocket.DialOptions{HTTPHeader: o.h})
		if err != nil {
			t.Fatalf("websocket with a %s: %v", o.what, err)
		}
		for _, msg := range []string{"hello", strings.Repeat("y", 70_000)} {
			if err := wsc.Write(ctx, websocket.MessageBinary, []byte(msg)); err != nil {
				t.Fatal(err)
			}
			wsc.SetReadLimit(1 << 20)
			typ, got, err := wsc.Read(ctx)
			if err != nil || typ != websocket.MessageBinary || string(got) != msg {
				t.Errorf("websocket (%s) echo of %d bytes: %v %d bytes %v", o.what, len(msg), typ, len(got), err)
			}
		}
		wsc.Close(websocket.StatusNormalClosure, "")
	}
	if _, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.ts.URL, "http")+"/v1/workspaces/w/ports/9000/echo", nil); err == nil {
		t.Errorf("a websocket without a token was accepted")
	}
}

// TestPorts_Forward: raw TCP connections to the sandbox's ports through
// GET …/port-forward/{port} (what desk port-forward does per connection).
func TestPorts_Forward(t *testing.T) {
	e := newPortsEnv(t)
	ctx := context.Background()
	c, err := client.New(e.ts.URL, e.token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.DialPort(ctx, "w", 8000)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(conn, "GET /index.html HTTP/1.0\r\nHost: x\r\n\r\n")
	all, err := io.ReadAll(bufio.NewReader(conn))
	conn.Close()
	if err != nil || !strings.HasPrefix(string(all), "HTTP/1.0 200") || !strings.HasSuffix(string(all), "<h1>preview</h1>\n") {
		t.Errorf("HTTP over the forward: %q, %v", all, err)
	}
	// A WebSocket over a forwarded connection.
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return c.DialPort(ctx, "w", 9000) }}}
	wsc, _, err := websocket.Dial(ctx, "ws://localhost:9000/echo", &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	if err := wsc.Write(ctx, websocket.MessageText, []byte("through the forward")); err != nil {
		t.Fatal(err)
	}
	if _, got, err := wsc.Read(ctx); err != nil || string(got) != "through the forward" {
		t.Errorf("echo: %q %v", got, err)
	}
	wsc.Close(websocket.StatusNormalClosure, "")

	_, err = c.DialPort(ctx, "w", 8001)
	wantCode(t, "nothing on 8001", err, 502, api.CodeBadGateway)
	ro, _ := client.New(e.ts.URL, e.rtok, client.Options{})
	_, err = ro.DialPort(ctx, "w", 8000)
	wantCode(t, "read-only token", err, 403, api.CodeForbidden)
	anon, _ := client.New(e.ts.URL, "", client.Options{})
	_, err = anon.DialPort(ctx, "w", 8000)
	wantCode(t, "no token", err, 401, api.CodeUnauthorized)
}
