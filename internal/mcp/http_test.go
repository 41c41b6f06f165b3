package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
)

// httpEnv is a host with workspaces demo and other, tokens, and the MCP
// handler at /mcp/{ws} on a test server.
type httpEnv struct {
	t      *testing.T
	h      *host.Host
	a      *auth.Store
	url    string
	tokens map[string]string // by name
	ids    map[string]string
}

func newHTTPEnv(t *testing.T) *httpEnv {
	t.Helper()
	dir := t.TempDir()
	h, err := host.Open(bg, host.Options{DataDir: dir, Workspace: wsOptions()})
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.Open(bg, dir, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ws := range []string{"demo", "other"} {
		if _, err := h.Create(bg, ws, host.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	hd, err := mcp.NewHandler(h, a, mcp.HandlerOptions{Tools: toolsOpts()})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp/{ws}", hd)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { srv.Close(); h.Close(); a.Close() })
	e := &httpEnv{t: t, h: h, a: a, url: srv.URL, tokens: map[string]string{"admin": a.AdminToken()}, ids: map[string]string{}}
	mint := func(name, ws string, scopes []auth.Scope, backends []string) {
		tok, secret, err := a.Mint(bg, auth.MintOptions{Workspace: ws, Scopes: scopes, Backends: backends})
		if err != nil {
			t.Fatal(err)
		}
		e.tokens[name], e.ids[name] = secret, tok.ID
	}
	mint("all", "demo", []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopeExec}, nil)
	mint("ro", "demo", []auth.Scope{auth.ScopeRead}, nil)
	mint("wo", "demo", []auth.Scope{auth.ScopeWrite}, nil)
	mint("execjs", "demo", []auth.Scope{auth.ScopeRead, auth.ScopeExec}, []string{"shell"})
	mint("otherws", "other", []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopeExec}, nil)
	return e
}

// connect opens a session on workspace ws with the named token.
func (e *httpEnv) connect(ws, token string) (*session, error) {
	e.t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: e.url + "/mcp/" + ws, HTTPClient: &http.Client{Transport: testenv.Headers(nil, "Authorization", "Bearer "+e.tokens[token])}, MaxRetries: -1}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(bg, tr, nil)
	if err != nil {
		return nil, err
	}
	e.t.Cleanup(func() { cs.Close() })
	return newSession(e.t, cs), nil
}

// runtime returns workspace ws's runtime; its lease is held to the test's
// end.
func (e *httpEnv) runtime(ws string) *run.Runtime {
	e.t.Helper()
	l, err := e.h.Acquire(bg, ws)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(l.Release)
	return l.Workspace().Runtime()
}

// mustConnect is connect, failing the test on an error.
func (e *httpEnv) mustConnect(ws, token string) *session {
	e.t.Helper()
	s, err := e.connect(ws, token)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func toolNames(t *testing.T, s *session) string {
	lt, err := s.cs.ListTools(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, tl := range lt.Tools {
		n = append(n, tl.Name)
	}
	return strings.Join(n, ",")
}

func TestHTTP_session(t *testing.T) {
	e := newHTTPEnv(t)
	s := e.mustConnect("demo", "all")
	if got := toolNames(t, s); got != "delete,edit,exec,find,grep,ls,read,write" {
		t.Errorf("tools: %s", got)
	}
	s.okText("write", map[string]any{"path": "hello.txt", "content": "hi\n"})
	if got := s.okText("exec", map[string]any{"command": "cat hello.txt"}); !strings.HasPrefix(got, "hi\n") {
		t.Errorf("exec: %q", got)
	}
	rr, err := s.cs.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo/hello.txt"})
	if err != nil || rr.Contents[0].Text != "hi\n" {
		t.Errorf("resource: %v", err)
	}
	// The admin token may use any workspace.
	as := e.mustConnect("demo", "admin")
	if got := as.okText("read", map[string]any{"path": "hello.txt"}); got != "1\thi\n" {
		t.Errorf("admin read: %q", got)
	}
}

func TestHTTP_scopes(t *testing.T) {
	e := newHTTPEnv(t)
	ro := e.mustConnect("demo", "ro")
	if got := toolNames(t, ro); got != "find,grep,ls,read" {
		t.Errorf("read-only tools: %s", got)
	}
	// A tool not offered is unknown to the session.
	if _, err := ro.cs.CallTool(bg, &sdk.CallToolParams{Name: "write", Arguments: map[string]any{"path": "x", "content": "y"}}); err == nil {
		t.Error("read-only token wrote")
	}
	wo := e.mustConnect("demo", "wo")
	// Write-only: write and delete, but not edit (it shows content) nor resources.
	if got := toolNames(t, wo); got != "delete,write" {
		t.Errorf("write-only tools: %s", got)
	}
	if lr, err := wo.cs.ListResources(bg, nil); err == nil && len(lr.Resources) > 0 {
		t.Error("write-only token listed resources")
	}
	if _, err := wo.cs.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo/x"}); err == nil {
		t.Error("write-only token read a resource")
	}
	ex := e.mustConnect("demo", "execjs")
	// A token limited to some backends must name one.
	if got := ex.errText("exec", map[string]any{"command": "echo hi"}); !strings.Contains(got, "forbidden") || !strings.Contains(got, "name one") {
		t.Errorf("exec without backend: %q", got)
	}
	if got := ex.okText("exec", map[string]any{"command": "echo hi", "backend": "shell"}); !strings.HasPrefix(got, "hi\n") {
		t.Errorf("exec on shell: %q", got)
	}
}

func TestHTTP_authFailures(t *testing.T) {
	e := newHTTPEnv(t)
	post := func(ws, token string) (int, string, http.Header) {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
		req, _ := http.NewRequest("POST", e.url+"/mcp/"+ws, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	tests := []struct {
		name, ws, token string
		status          int
		code            string
	}{
		{"no token", "demo", "", 401, "unauthorized"},
		{"garbage token", "demo", "nope", 401, "unauthorized"},
		{"unknown token", "demo", "desk_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 401, "unauthorized"},
		{"other workspace's token", "demo", e.tokens["otherws"], 403, "forbidden"},
		{"bad workspace name", "Bad..Name", e.tokens["admin"], 400, "bad_name"},
		{"no such workspace", "ghost", e.tokens["admin"], 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, body, h := post(tt.ws, tt.token)
			var eb struct {
				Error struct{ Code, Message string }
			}
			json.Unmarshal([]byte(body), &eb)
			if st != tt.status || eb.Error.Code != tt.code {
				t.Errorf("%d %s, want %d %s", st, body, tt.status, tt.code)
			}
			if st == 401 && h.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
	if st, _, _ := post("demo", e.tokens["all"]); st != 200 {
		t.Errorf("valid token: %d", st)
	}
	// The go-sdk client reports the failure at connect.
	if _, err := e.connect("demo", "otherws"); err == nil {
		t.Error("connected with another workspace's token")
	}

	// A token revoked during a session stops working at once.
	s := e.mustConnect("demo", "all")
	s.okText("ls", map[string]any{})
	if err := e.a.Revoke(bg, e.ids["all"]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.cs.CallTool(bg, &sdk.CallToolParams{Name: "ls", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(strings.ToLower(err.Error()), "unauthorized") {
		t.Errorf("revoked token: %v", err)
	}
}

// TestHTTP_sessionBelongsToToken: another token cannot use a session.
func TestHTTP_sessionBelongsToToken(t *testing.T) {
	e := newHTTPEnv(t)
	cs, sessionID := e.connectWithID("ro")
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write","arguments":{"path":"x","content":"y"}}}`
	req, _ := http.NewRequest("POST", e.url+"/mcp/demo", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
	req.Header.Set("Authorization", "Bearer "+e.tokens["all"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("another token on the session: %d", resp.StatusCode)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// connectWithID connects to workspace demo with the named token and returns
// the session and its id (Mcp-Session-Id, as the server gave it when the
// session began); the session is closed at the test's end.
func (e *httpEnv) connectWithID(token string) (*sdk.ClientSession, string) {
	e.t.Helper()
	var mu sync.Mutex
	var id string
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+e.tokens[token])
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err == nil && resp.Header.Get("Mcp-Session-Id") != "" {
			mu.Lock()
			if id == "" {
				id = resp.Header.Get("Mcp-Session-Id")
			}
			mu.Unlock()
		}
		return resp, err
	})}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(bg, &sdk.StreamableClientTransport{Endpoint: e.url + "/mcp/demo", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { cs.Close() })
	mu.Lock()
	defer mu.Unlock()
	if id == "" {
		e.t.Fatal("no session id")
	}
	return cs, id
}

// TestHTTP_cancel: cancelling a call over streamable HTTP kills its execution.
func TestHTTP_cancel(t *testing.T) {
	e := newHTTPEnv(t)
	s := e.mustConnect("demo", "all")
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() {
		_, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "sleep 30"}})
		done <- err
	}()
	rt := e.runtime("demo")
	waitRunning(t, rt, 1)
	cancel()
	<-done
	waitRunning(t, rt, 0)
}

// TestHTTP_deleteSessionCancels: ending a session (DELETE) kills the
// executions of its running calls instead of waiting for them (the SDK
// closes a session only once its calls have returned).
func TestHTTP_deleteSessionCancels(t *testing.T) {
	e := newHTTPEnv(t)
	cs, sessionID := e.connectWithID("all")
	done := make(chan struct{})
	go func() {
		defer close(done)
		cs.CallTool(bg, &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "sleep 30"}})
	}()
	rt := e.runtime("demo")
	waitRunning(t, rt, 1)
	del := func(token string) int {
		req, _ := http.NewRequest("DELETE", e.url+"/mcp/demo", nil)
		req.Header.Set("Mcp-Session-Id", sessionID)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// Another token may not end the session, nor its calls.
	if st := del(e.tokens["admin"]); st != http.StatusForbidden {
		t.Errorf("DELETE by another token: %d", st)
	}
	if rt.Running() != 1 {
		t.Fatal("another token's DELETE stopped the call")
	}
	if st := del(e.tokens["all"]); st >= 300 {
		t.Errorf("DELETE: %d", st)
	}
	waitRunning(t, rt, 0)
	<-done
	cs.Close()
}
