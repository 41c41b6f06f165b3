package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/tools"
)

func TestAPI_Tools(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("demo", "other")
	_, ro := e.mint("demo", nil, "read")
	_, lim := e.mint("demo", []string{"lines"}, "read", "exec")
	_, oth := e.mint("other", nil, "read", "write", "exec")

	names := func(c *client.Client) string {
		ts, err := c.Tools(bg, "demo")
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, tl := range ts {
			n = append(n, tl.Name)
		}
		return strings.Join(n, ",")
	}
	if got := names(e.c); got != "read,write,edit,ls,find,grep,delete,exec" {
		t.Errorf("admin tools: %s", got)
	}
	if got := names(e.client(ro)); got != "read,ls,find,grep" {
		t.Errorf("read-only tools: %s", got)
	}
	_, err := e.client(oth).Tools(bg, "demo")
	wantCode(t, "tools of another workspace", err, 403, "forbidden")

	call := func(c *client.Client, name, input string) *client.ToolResult {
		t.Helper()
		res, err := c.CallTool(bg, "demo", name, json.RawMessage(input), nil)
		if err != nil {
			t.Fatalf("%s %s: %v", name, input, err)
		}
		return res
	}
	res := call(e.c, "write", `{"path":"a.txt","content":"one\ntwo\n"}`)
	if res.IsError || !strings.HasPrefix(res.Content[0].Text, "created /workspace/a.txt") {
		t.Errorf("write: %+v", res)
	}
	res = call(e.c, "read", `{"path":"a.txt"}`)
	var ro2 tools.ReadOutput
	if err := json.Unmarshal(res.Structured, &ro2); err != nil || res.Content[0].Text != "1\tone\n2\ttwo\n" || ro2.Revision == 0 {
		t.Errorf("read: %+v %v", res, err)
	}
	// A tool failure is a 200 with is_error.
	res = call(e.c, "edit", `{"path":"a.txt","edits":[{"old":"three","new":"3"}]}`)
	if !res.IsError || res.Error.Code != "no_match" || !strings.HasPrefix(res.Content[0].Text, "no_match: ") {
		t.Errorf("edit failure: %+v", res)
	}
	_, err = e.c.CallTool(bg, "demo", "frob", nil, nil)
	wantCode(t, "unknown tool", err, 404, "not_found")
	_, err = e.client(ro).CallTool(bg, "demo", "write", json.RawMessage(`{"path":"b","content":""}`), nil)
	wantCode(t, "write with a read token", err, 403, "forbidden")
	_, err = e.client(lim).CallTool(bg, "demo", "exec", json.RawMessage(`{"command":"echo hi"}`), nil)
	wantCode(t, "exec without naming the allowed backend", err, 403, "forbidden")
	res, err = e.client(lim).CallTool(bg, "demo", "exec", json.RawMessage(`{"command":"echo hi","backend":"lines"}`), nil)
	if err != nil || res.IsError || !strings.HasPrefix(res.Content[0].Text, "hi\n") {
		t.Errorf("exec: %v %+v", err, res)
	}
	_, err = e.c.CallTool(bg, "ghost", "read", json.RawMessage(`{"path":"a"}`), nil)
	wantCode(t, "no such workspace", err, 404, "not_found")
	st, _, code := e.raw("POST", "/v1/workspaces/demo/tools/read", "", strings.NewReader(`{}`))
	if st != 401 || code != "unauthorized" {
		t.Errorf("no token: %d %s", st, code)
	}

	// Streamed: progress lines, then the result.
	var got []string
	res, err = e.c.CallTool(bg, "demo", "exec", json.RawMessage(`{"command":"echo a\nsleep 300ms\necho b"}`), func(p client.ToolProgress) {
		got = append(got, p.Message)
	})
	if err != nil || res.IsError || len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("streamed exec: %v %+v, progress %q", err, res, got)
	}
}

// TestAPI_ToolCancel: a client that goes away kills the execution.
func TestAPI_ToolCancel(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("demo")
	req, _ := http.NewRequest("POST", e.url+"/v1/workspaces/demo/tools/exec", strings.NewReader(`{"command":"echo started\nblock"}`))
	req.Header.Set("Authorization", "Bearer "+e.admin)
	req.Header.Set("Accept", "application/x-ndjson")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	n, _ := resp.Body.Read(buf)
	if !strings.Contains(string(buf[:n]), `"message":"started"`) {
		t.Fatalf("first line %q", buf[:n])
	}
	resp.Body.Close() // goes away
	// The execution exists (it printed); follow its events to its end.
	list, err := e.c.ListExecutions(bg, "demo", client.ListExecutionsOptions{})
	if err != nil || len(list.Executions) != 1 {
		t.Fatalf("executions: %v %+v", err, list)
	}
	id := list.Executions[0].ID
	ctx, cancel := context.WithTimeout(bg, 30*time.Second) // hang guard
	defer cancel()
	s, err := e.c.Events(ctx, "demo", id, client.EventsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for {
		if _, err := s.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("events of %s (the execution was not killed within the hang guard?): %v", id, err)
		}
	}
	if r, err := e.c.GetExecution(bg, "demo", id); err != nil || r.Status != "cancelled" {
		t.Fatalf("execution not killed: %v %+v", err, r)
	}
}

// TestAPI_MCP drives /mcp/{ws} through the API server with the go-sdk
// client, and desk mcp's remote mode (mcp.RemoteWorkspace over the API).
func TestAPI_MCP(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("demo")
	_, rw := e.mint("demo", nil, "read", "write")
	cs := mcpSession(t, e.url+"/mcp/demo", rw, nil)
	r, err := cs.CallTool(bg, &sdk.CallToolParams{Name: "write", Arguments: map[string]any{"path": "m.txt", "content": "via mcp\n"}})
	if err != nil || r.IsError {
		t.Fatalf("write over MCP: %v %+v", err, r)
	}
	if b, err := e.c.ReadFile(bg, "demo", "/workspace/m.txt"); err != nil || string(b) != "via mcp\n" {
		t.Errorf("file through the API: %q %v", b, err)
	}
	st, _, code := e.raw("POST", "/mcp/demo", "", strings.NewReader(`{}`))
	if st != 401 || code != "unauthorized" {
		t.Errorf("no token: %d %s", st, code)
	}

	// The remote workspace: an MCP server whose tools call the API.
	srv, err := mcp.NewServer(bg, &mcp.RemoteWorkspace{Client: e.client(rw), WorkspaceName: "demo"}, mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rc := inMemorySession(t, srv)
	lt, _ := rc.ListTools(bg, nil)
	if len(lt.Tools) != 7 { // no exec scope
		t.Errorf("remote tools: %d", len(lt.Tools))
	}
	r, err = rc.CallTool(bg, &sdk.CallToolParams{Name: "read", Arguments: map[string]any{"path": "m.txt"}})
	if err != nil || r.IsError || r.Content[0].(*sdk.TextContent).Text != "1\tvia mcp\n" {
		t.Errorf("remote read: %v %+v", err, r)
	}
	r, err = rc.CallTool(bg, &sdk.CallToolParams{Name: "read", Arguments: map[string]any{"path": "nope"}})
	if err != nil || !r.IsError || !strings.HasPrefix(r.Content[0].(*sdk.TextContent).Text, "not_found: ") {
		t.Errorf("remote read error: %v %+v", err, r)
	}
	rr, err := rc.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo/m.txt"})
	if err != nil || rr.Contents[0].Text != "via mcp\n" {
		t.Errorf("remote resource: %v", err)
	}
	lr, err := rc.ListResources(bg, nil)
	if err != nil || len(lr.Resources) != 1 {
		t.Errorf("remote resources: %v %+v", err, lr)
	}
}

// mcpSession connects a go-sdk client with options co to the MCP endpoint
// at url, sending the bearer token and the headers hdr (name, value pairs)
// with each request; the session is closed at the test's end.
func mcpSession(t testing.TB, url, token string, co *sdk.ClientOptions, hdr ...string) *sdk.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: testenv.Headers(nil, append([]string{"Authorization", "Bearer " + token}, hdr...)...)}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, co).Connect(bg, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// inMemorySession connects a go-sdk client to srv over in-memory
// transports; both sessions are closed at the test's end.
func inMemorySession(t testing.TB, srv *sdk.Server) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(bg, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(bg, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
