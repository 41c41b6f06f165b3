package mcp_test

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/run"
)

// inMemory connects a go-sdk client to a server over an in-memory transport.
func inMemory(t *testing.T, ws mcp.Workspace, opts mcp.Options, copts *sdk.ClientOptions) *session {
	t.Helper()
	srv, err := mcp.NewServer(bg, ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(bg, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, copts)
	cs, err := c.Connect(bg, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return newSession(t, cs)
}

func TestServer_tools(t *testing.T) {
	fsys, rt := store(t)
	s := inMemory(t, &mcp.StoreWorkspace{WorkspaceName: "demo", FS: fsys, Runtime: rt}, mcp.Options{}, nil)

	lt, err := s.cs.ListTools(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil || tl.Annotations == nil {
			t.Errorf("%s: incomplete definition", tl.Name)
		}
	}
	if strings.Join(names, ",") != "delete,edit,exec,find,grep,ls,read,write" { // the SDK sorts them
		t.Errorf("tools %v", names)
	}
	if init := s.cs.InitializeResult(); init.ServerInfo.Name != "desk" || !strings.Contains(init.Instructions, "/workspace") {
		t.Errorf("initialize: %+v", init.ServerInfo)
	}

	if got := s.okText("write", map[string]any{"path": "src/main.go", "content": "package main\n\nfunc main() {}\n"}); !strings.Contains(got, "created /workspace/src/main.go") {
		t.Errorf("write: %q", got)
	}
	if got := s.okText("read", map[string]any{"path": "src/main.go"}); got != "1\tpackage main\n2\t\n3\tfunc main() {}\n" {
		t.Errorf("read: %q", got)
	}
	res := s.call("read", map[string]any{"path": "src/main.go"})
	if m, ok := res.StructuredContent.(map[string]any); !ok || m["kind"] != "text" || m["revision"] == nil {
		t.Errorf("structured: %#v", res.StructuredContent)
	}
	if got := s.okText("edit", map[string]any{"path": "src/main.go", "edits": []map[string]any{{"old": "func main() {}", "new": "func main() { println(1) }"}}}); !strings.Contains(got, "+func main() { println(1) }") {
		t.Errorf("edit: %q", got)
	}
	if got := s.okText("grep", map[string]any{"query": "println"}); got != "/workspace/src/main.go:3:func main() { println(1) }\n" {
		t.Errorf("grep: %q", got)
	}
	if got := s.okText("find", map[string]any{"pattern": "*.go"}); got != "/workspace/src/main.go\n" {
		t.Errorf("find: %q", got)
	}
	if got := s.okText("ls", map[string]any{"path": "src"}); !strings.HasPrefix(got, "main.go\t") {
		t.Errorf("ls: %q", got)
	}
	if got := s.okText("exec", map[string]any{"command": "cat src/main.go | wc -l"}); !strings.HasPrefix(got, "3\n[exit code 0") {
		t.Errorf("exec: %q", got)
	}
	if got := s.okText("delete", map[string]any{"path": "src", "recursive": true}); got != "deleted directory /workspace/src" {
		t.Errorf("delete: %q", got)
	}
	// Tool failures are results with isError, "code: message".
	if got := s.errText("read", map[string]any{"path": "src/main.go"}); got != "not_found: /workspace/src/main.go does not exist" {
		t.Errorf("error: %q", got)
	}
	if got := s.errText("read", map[string]any{"path": "a", "bogus": 1}); !strings.HasPrefix(got, `invalid: read has no input field "bogus"`) {
		t.Errorf("error: %q", got)
	}
	// An unknown tool is a protocol error.
	if _, err := s.cs.CallTool(bg, &sdk.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("unknown tool: %v", err)
	}

	// Images are image content.
	png := "\x89PNG\r\n\x1a\nrest"
	if err := fsys.WriteFile(bg, "/workspace/p.png", []byte(png), 0o644); err != nil {
		t.Fatal(err)
	}
	res = s.call("read", map[string]any{"path": "p.png"})
	img, ok := res.Content[0].(*sdk.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != png {
		t.Errorf("image: %#v", res.Content[0])
	}
}

func TestServer_progressAndCancel(t *testing.T) {
	fsys, rt := store(t)
	var mu sync.Mutex
	var msgs []string
	three := make(chan struct{})
	copts := &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		msgs = append(msgs, req.Params.Message)
		if len(msgs) == 3 {
			close(three)
		}
		mu.Unlock()
	}}
	s := inMemory(t, &mcp.StoreWorkspace{WorkspaceName: "demo", FS: fsys, Runtime: rt, Options: toolsOpts()}, mcp.Options{}, copts)

	params := &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "for i in 1 2 3; do echo tick $i; sleep 0.05; done"}}
	params.SetProgressToken("p1")
	res, err := s.cs.CallTool(bg, params)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	// The notifications may arrive after the result: wait for them.
	select {
	case <-three:
	case <-time.After(30 * time.Second):
		t.Error("fewer than 3 progress notifications within 30s (hang guard)")
	}
	mu.Lock()
	if len(msgs) < 3 || msgs[0] != "tick 1" || msgs[2] != "tick 3" {
		t.Errorf("progress messages %q", msgs)
	}
	mu.Unlock()

	// Cancelling the call (the client sends notifications/cancelled) kills
	// the execution.
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() {
		_, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "sleep 30"}})
		done <- err
	}()
	waitRunning(t, rt, 1)
	cancel()
	if err := <-done; err == nil {
		t.Error("cancelled call returned no error")
	}
	waitRunning(t, rt, 0)
	list, err := rt.List(bg, run.ListOptions{Status: run.StatusCancelled})
	if err != nil || len(list) != 1 || list[0].Signal != "SIGKILL" {
		t.Errorf("cancelled executions: %v %+v", err, list)
	}
}

// waitRunning waits until rt runs n executions.
func waitRunning(t *testing.T, rt *run.Runtime, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for rt.Running() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d running, want %d", rt.Running(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestServer_resources(t *testing.T) {
	fsys, rt := store(t)
	for _, f := range []struct{ p, data string }{
		{"/workspace/a.txt", "alpha\n"}, {"/workspace/b/c.go", "package b\n"}, {"/workspace/b/d.bin", "\x00\x01\x02"},
		{"/workspace/e.md", "# e\n"}, {"/elsewhere.txt", "not listed\n"},
	} {
		fsys.MkdirAll(bg, f.p[:strings.LastIndexByte(f.p, '/')], 0o755)
		if err := fsys.WriteFile(bg, f.p, []byte(f.data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := inMemory(t, &mcp.StoreWorkspace{WorkspaceName: "demo", FS: fsys, Runtime: rt}, mcp.Options{ResourcePage: 2, MaxResourceBytes: 100}, nil)
	var uris []string
	cursor := ""
	for pages := 0; ; pages++ {
		lr, err := s.cs.ListResources(bg, &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range lr.Resources {
			uris = append(uris, r.URI+" "+r.MIMEType)
		}
		if lr.NextCursor == "" {
			break
		}
		cursor = lr.NextCursor
		if pages > 10 {
			t.Fatal("endless paging")
		}
	}
	want := "desk://demo/a.txt text/plain; charset=utf-8,desk://demo/b/c.go text/x-go; charset=utf-8,desk://demo/b/d.bin ,desk://demo/e.md text/markdown; charset=utf-8"
	if got := strings.Join(uris, ","); got != want {
		t.Errorf("resources:\n%s\nwant\n%s", got, want)
	}
	rr, err := s.cs.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo/a.txt"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "alpha\n" {
		t.Fatalf("read text: %v %+v", err, rr)
	}
	rr, err = s.cs.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo/b/d.bin"})
	if err != nil || string(rr.Contents[0].Blob) != "\x00\x01\x02" {
		t.Fatalf("read blob: %v %+v (%s)", err, rr, base64.StdEncoding.EncodeToString(rr.Contents[0].Blob))
	}
	// Any path can be read, not only listed ones: an absolute one keeps its
	// slash; the long form of a listed one reads the same file.
	if rr, err = s.cs.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo//elsewhere.txt"}); err != nil || rr.Contents[0].Text != "not listed\n" {
		t.Errorf("read outside /workspace: %v", err)
	}
	if rr, err = s.cs.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo//workspace/a.txt"}); err != nil || rr.Contents[0].Text != "alpha\n" {
		t.Errorf("read by the absolute path: %v", err)
	}
	if _, err = s.cs.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo/elsewhere.txt"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("desk://demo/elsewhere.txt is /workspace/elsewhere.txt, which does not exist: %v", err)
	}
	for _, bad := range []string{"desk://demo/nope", "desk://other/a.txt"} {
		if _, err := s.cs.ReadResource(bg, &sdk.ReadResourceParams{URI: bad}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	fsys.WriteFile(bg, "/workspace/big", []byte(strings.Repeat("x", 101)), 0o644)
	if _, err := s.cs.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo/big"}); err == nil || !strings.Contains(err.Error(), "over the 100-byte cap") {
		t.Errorf("big: %v", err)
	}
}

// TestServer_hostileNames: names made directly in the store (not UTF-8, a
// newline, a leading quote) come back through the go-sdk client in their
// quoted form, and that form reads, writes, lists as a resource and deletes
// them.
func TestServer_hostileNames(t *testing.T) {
	fsys, rt := store(t)
	names := []string{"a\nb", "caf\xe9", `"q"`}
	fsys.MkdirAll(bg, "/workspace", 0o755)
	for _, n := range names {
		if err := fsys.WriteFile(bg, "/workspace/"+n, []byte("data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := inMemory(t, &mcp.StoreWorkspace{WorkspaceName: "demo", FS: fsys, Runtime: rt}, mcp.Options{}, nil)
	ls := s.okText("ls", map[string]any{})
	if strings.Count(ls, "\n") != len(names) || strings.ContainsRune(ls, utf8.RuneError) {
		t.Fatalf("ls:\n%s", ls)
	}
	lr, err := s.cs.ListResources(bg, nil)
	if err != nil || len(lr.Resources) != len(names) {
		t.Fatalf("resources: %+v %v", lr, err)
	}
	for _, r := range lr.Resources {
		rr, err := s.cs.ReadResource(bg, &sdk.ReadResourceParams{URI: r.URI})
		if err != nil || rr.Contents[0].Text != "data\n" {
			t.Errorf("read resource %s: %v", r.URI, err)
		}
	}
	for _, n := range names {
		shown := quote.Name(n)
		if !strings.Contains(ls, shown+"\t5\n") {
			t.Errorf("ls lacks %s:\n%s", shown, ls)
		}
		if got := s.okText("read", map[string]any{"path": shown}); !strings.Contains(got, "1\tdata") {
			t.Errorf("read %s: %s", shown, got)
		}
		s.okText("write", map[string]any{"path": shown, "content": "new\n"})
		if b, err := fsys.ReadFile(bg, "/workspace/"+n); err != nil || string(b) != "new\n" {
			t.Errorf("write %s: store has %q, %v", shown, b, err)
		}
		s.okText("delete", map[string]any{"path": shown})
		if got := s.errText("read", map[string]any{"path": shown}); !strings.Contains(got, quote.Path("/workspace/"+n)) || strings.Contains(got, "\n") {
			t.Errorf("read after delete %s: %q", shown, got)
		}
	}
}
