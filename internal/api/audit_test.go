package api_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/mcp"
)

func auditEnv(t *testing.T) (*env, *audit.Store) {
	t.Helper()
	dir := t.TempDir()
	eg := egress.OpenStore(dir)
	st, err := audit.Open(filepath.Join(dir, audit.FileName), audit.Options{Redact: api.SecretRedactor(eg)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newEnv(t, envOpts{dir: dir, api: api.Options{Audit: st, Egress: eg}}), st
}

func (e *env) auditList(query string) []audit.Record {
	e.t.Helper()
	code, b, _ := e.raw("GET", "/v1/audit?"+query, e.admin, nil)
	if code != 200 {
		e.t.Fatalf("GET /v1/audit?%s: %d %s", query, code, b)
	}
	var l api.AuditList
	if err := json.Unmarshal(b, &l); err != nil {
		e.t.Fatal(err)
	}
	return l.Records
}

func actions(rs []audit.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Action+":"+r.Outcome)
	}
	return out
}

func arg(r audit.Record, name string) string {
	for _, a := range r.Args {
		if a.Name == name {
			return a.Value
		}
	}
	return ""
}

// TestAudit_ScriptedSession: a scripted session makes exactly the expected
// records, with the client's labels, the token, the arguments and the
// changes each call made; a file change traces back to its call and the
// call forward to its changes; secrets appear nowhere; the chain verifies;
// deleting the workspace removes its records and leaves the host's record
// of the deletion.
func TestAudit_ScriptedSession(t *testing.T) {
	e, st := auditEnv(t)
	ctx := context.Background()
	e.mkws("w")
	const secret = "sekrit-value-9c1e"
	if _, err := e.c.SetSecret(ctx, "w", "API_KEY", client.SecretRequest{Value: secret, Hosts: []string{"a.example.com"}}); err != nil {
		t.Fatal(err)
	}
	tokID, tok := e.mint("w", nil, "read", "write", "exec")
	labels := []string{"X-Desk-Agent", "claude-code", "X-Desk-Session", "sess-1", "X-Desk-Model", "m-7", "X-Desk-Turn", "3"}
	do := func(method, path, body string, wantCode int) {
		t.Helper()
		var rd *strings.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		var code int
		if rd != nil {
			code, _, _ = e.raw(method, path, tok, rd, labels...)
		} else {
			code, _, _ = e.raw(method, path, tok, nil, labels...)
		}
		if code != wantCode {
			t.Fatalf("%s %s: %d, want %d", method, path, code, wantCode)
		}
	}
	do("PUT", "/v1/workspaces/w/files/a.txt", "hello", 201)
	do("GET", "/v1/workspaces/w/files/a.txt", "", 200)
	do("POST", "/v1/workspaces/w/executions?wait=1", `{"source":"write /workspace/b.txt from-exec\necho `+secret+`"}`, 201)
	do("DELETE", "/v1/workspaces/w/files/a.txt", "", 204)
	do("GET", "/v1/workspaces/w/files/missing", "", 404)
	do("DELETE", "/v1/workspaces/other/files/x", "", 403)

	rs := e.auditList("workspace=w")
	// The admin's creation of the workspace and minting of its token are
	// the workspace's records too.
	want := []string{"createWorkspace:ok", "setSecret:ok", "mintToken:ok", "writeFile:ok", "readFile:ok", "execution:completed", "exec:ok", "deleteFile:ok", "readFile:ENOENT", "deleteFile:forbidden"}
	got := actions(rs)
	if !slices.Equal(got, want) {
		t.Fatalf("records %q, want %q", got, want)
	}
	for _, r := range rs[:3] {
		if r.Actor != "admin" {
			t.Fatalf("the admin's records: %+v", rs[:3])
		}
	}
	rs = rs[3:]
	for _, r := range rs {
		if r.TokenID != tokID || r.Actor != tokID || r.Labels != (audit.Labels{Agent: "claude-code", Session: "sess-1", Model: "m-7", Turn: "3"}) {
			t.Fatalf("record %d: actor %q token %q labels %+v", r.N, r.Actor, r.TokenID, r.Labels)
		}
	}
	put, end, exec := rs[0], rs[2], rs[3]
	if arg(put, "path") != "/v1/workspaces/w/files/a.txt" || arg(put, "method") != "PUT" || len(put.Changes) == 0 || !slices.Contains(put.Paths, "/workspace/a.txt") {
		t.Fatalf("the write's record: %+v", put)
	}
	if len(rs[1].Changes) != 0 {
		t.Fatalf("a read records changes: %+v", rs[1])
	}
	if !slices.Contains(end.Paths, "/workspace/b.txt") || len(end.Changes) == 0 || arg(end, "execution") != arg(exec, "execution") || arg(exec, "execution") == "" ||
		end.Kind != audit.KindExec || arg(end, "exit_code") != "0" || len(exec.Paths) != 0 {
		t.Fatalf("the execution's records: start %+v, end %+v", exec, end)
	}
	if src := arg(exec, "source"); strings.Contains(src, secret) || !strings.Contains(src, "[secret API_KEY]") {
		t.Fatalf("the execution's source is not redacted: %q", src)
	}
	// Forward: the write's changes are in the change journal, on its path.
	chs, err := e.c.Changes(ctx, "w", put.Changes[0].First-1, 100)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ch := range chs.Changes {
		if ch.Seq >= put.Changes[0].First && ch.Seq <= put.Changes[0].Last && ch.Path == "/workspace/a.txt" {
			found = true
		}
	}
	if !found {
		t.Fatalf("the write's span %+v holds no change of its file: %+v", put.Changes, chs.Changes)
	}
	// Back: every call that changed a.txt.
	if got := actions(e.auditList("workspace=w&path=/workspace/a.txt")); !slices.Equal(got, []string{"writeFile:ok", "deleteFile:ok"}) {
		t.Fatalf("calls that changed a.txt: %q", got)
	}
	if got := actions(e.auditList("workspace=w&session=sess-1&action=exec")); !slices.Equal(got, []string{"exec:ok"}) {
		t.Fatalf("session and action filter: %q", got)
	}
	// The refused call on another workspace is in the token's workspace's
	// chain; no chain is made for the other.
	if got := e.auditList("workspace=w&action=deleteFile"); len(got) != 2 || got[1].Outcome != "forbidden" || got[1].TokenID != tokID || arg(got[1], "workspace") != "other" {
		t.Fatalf("the refused call: %+v", got)
	}
	if got := e.auditList("workspace=other"); len(got) != 0 {
		t.Fatalf("a chain for a workspace the token may not use: %+v", got)
	}
	// The host's chain holds only the reads of the journal itself.
	for _, r := range e.auditList("workspace=-") {
		if r.Action != "audit" || r.Actor != "admin" {
			t.Fatalf("host record %+v", r)
		}
	}
	code, b, _ := e.raw("GET", "/v1/audit/verify", e.admin, nil)
	var rep audit.Report
	if code != 200 || json.Unmarshal(b, &rep) != nil || len(rep.Problems) != 0 || len(rep.Chains) != 2 {
		t.Fatalf("verify: %d %s", code, b)
	}
	if code, _, _ := e.raw("GET", "/v1/audit", tok, nil); code != 403 {
		t.Fatalf("a workspace token reads the audit journal: %d", code)
	}
	// Neither the secret nor a token's secret is in the journal's files.
	for _, p := range []string{st.Path(), st.Path() + "-wal"} {
		raw, _ := os.ReadFile(p)
		if strings.Contains(string(raw), secret) || strings.Contains(string(raw), tok) || strings.Contains(string(raw), e.admin) {
			t.Fatalf("%s holds a secret", p)
		}
	}
	// NDJSON export: every record, one per line.
	code, b, _ = e.raw("GET", "/v1/audit?workspace=w", e.admin, nil, "Accept", "application/x-ndjson")
	all := e.auditList("workspace=w&limit=1000") // the export's own record is the last
	if n := strings.Count(string(b), "\n"); code != 200 || n != len(all)-1 || all[len(all)-1].Action != "audit" {
		t.Fatalf("export: %d, %d lines for %d records", code, n, len(all))
	}

	if err := e.c.DeleteWorkspace(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	if got := e.auditList("workspace=w"); len(got) != 0 {
		t.Fatalf("the deleted workspace's records remain: %q", actions(got))
	}
	host := e.auditList("workspace=-&action=deleteWorkspace")
	if len(host) != 1 || arg(host[0], "workspace") != "w" || host[0].Actor != "admin" {
		t.Fatalf("the deletion's record: %+v", host)
	}
	if rep, err := st.Verify(ctx, ""); err != nil || len(rep.Problems) != 0 {
		t.Fatalf("verify after the deletion: %+v %v", rep, err)
	}
}

// TestAudit_MCPLabels: labels flow from an MCP request's _meta (and the
// X-Desk-* headers of its HTTP request); a tool call's record carries the
// changes it made; the labels reach the API through mcp.RemoteWorkspace's
// client too.
func TestAudit_MCPLabels(t *testing.T) {
	e, _ := auditEnv(t)
	e.mkws("demo")
	tokID, rw := e.mint("demo", nil, "read", "write")
	cs := mcpSession(t, e.url+"/mcp/demo", rw, nil, "X-Desk-Agent", "agent-from-header")
	r, err := cs.CallTool(bg, &sdk.CallToolParams{Meta: sdk.Meta{"desk/session": "mcp-sess", "desk/model": "m-1", "desk/turn": 12},
		Name: "write", Arguments: map[string]any{"path": "m.txt", "content": "via mcp\n"}})
	if err != nil || r.IsError {
		t.Fatalf("write over MCP: %v %+v", err, r)
	}
	rs := e.auditList("workspace=demo&action=tools/call")
	if len(rs) != 1 {
		t.Fatalf("tools/call records: %+v", rs)
	}
	got := rs[0]
	if got.Kind != audit.KindMCP || got.TokenID != tokID || got.Labels != (audit.Labels{Agent: "agent-from-header", Session: "mcp-sess", Model: "m-1", Turn: "12"}) {
		t.Fatalf("record %+v", got)
	}
	if arg(got, "tool") != "write" || !strings.Contains(arg(got, "input"), "m.txt") || !slices.Contains(got.Paths, "/workspace/m.txt") || len(got.Changes) == 0 {
		t.Fatalf("the tool call's record: %+v", got)
	}
	if rs := e.auditList("workspace=demo&action=initialize"); len(rs) != 1 || rs[0].Labels.Agent != "agent-from-header" {
		t.Fatalf("initialize: %+v", rs)
	}
	if rs := e.auditList("workspace=demo&path=/workspace/m.txt"); len(rs) != 1 || rs[0].Action != "tools/call" {
		t.Fatalf("the file's calls: %+v", rs)
	}

	// mcp.RemoteWorkspace passes the labels of the MCP request on to the
	// API, whose record of the tool call has them and the changes.
	srv, err := mcp.NewServer(bg, &mcp.RemoteWorkspace{Client: e.client(rw), WorkspaceName: "demo"}, mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	local, err := audit.Open(filepath.Join(t.TempDir(), "local.db"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() }) // after the session's end
	srv.AddReceivingMiddleware(mcp.AuditMiddleware(local, "demo", nil, nil))
	rc := inMemorySession(t, srv)
	r, err = rc.CallTool(bg, &sdk.CallToolParams{Meta: sdk.Meta{"desk/session": "remote-sess"}, Name: "write", Arguments: map[string]any{"path": "n.txt", "content": "x"}})
	if err != nil || r.IsError {
		t.Fatalf("remote write: %v %+v", err, r)
	}
	rs = e.auditList("workspace=demo&session=remote-sess")
	if len(rs) != 1 || rs[0].Action != "callTool" || !slices.Contains(rs[0].Paths, "/workspace/n.txt") {
		t.Fatalf("the API's record of the remote call: %+v", rs)
	}
	if lr, _, _ := local.Query(bg, audit.Filter{Session: "remote-sess"}); len(lr) != 1 || lr[0].Action != "tools/call" {
		t.Fatalf("the remote MCP server's own record: %+v", lr)
	}
}

// TestAudit_MCPToolExecution: an execution started by the exec tool of an
// in-process MCP session (mcp.HandlerOptions.ExecEnded) gets its own
// execution record when it ends, after the call's record, with the call's
// actor and labels: the exec route's figures (status, exit code) for
// tool-run executions too. (The env's backend is runtest's lines.)
func TestAudit_MCPToolExecution(t *testing.T) {
	e, _ := auditEnv(t)
	e.mkws("demo")
	tokID, tok := e.mint("demo", nil, "read", "write", "exec")
	cs := mcpSession(t, e.url+"/mcp/demo", tok, nil)
	r, err := cs.CallTool(bg, &sdk.CallToolParams{Meta: sdk.Meta{"desk/session": "mcp-exec"}, Name: "exec", Arguments: map[string]any{"command": "echo hi"}})
	if err != nil || !r.IsError && r.StructuredContent == nil {
		t.Fatalf("exec over MCP: %v %+v", err, r)
	}
	deadline := time.After(time.Minute) // a hang guard: the record is written as the execution's end is seen
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var rs []audit.Record
	for rs = e.auditList("workspace=demo&action=execution&session=mcp-exec"); len(rs) == 0; rs = e.auditList("workspace=demo&action=execution&session=mcp-exec") {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("no execution record of the MCP call after a minute")
		}
	}
	if len(rs) != 1 {
		t.Fatalf("execution records of the MCP call: %+v", rs)
	}
	got := rs[0]
	if got.Kind != audit.KindExec || got.TokenID != tokID || got.Outcome != "completed" || arg(got, "exit_code") == "" || arg(got, "backend") == "" || arg(got, "execution") == "" {
		t.Fatalf("the execution's record: %+v", got)
	}
}
