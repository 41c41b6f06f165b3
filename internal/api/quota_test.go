package api_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/audit"
)

// TestQuota_ExecsPerMinute: past MaxExecsPerMinute a workspace's next
// execution is 429 too_many, another workspace's is not, and the next
// minute admits again.
func TestQuota_ExecsPerMinute(t *testing.T) {
	e := newEnv(t, envOpts{api: api.Options{MaxExecsPerMinute: 3, MaxCPUPerDay: -1}})
	now := time.Date(2026, 1, 1, 10, 0, 5, 0, time.UTC)
	api.SetQuotaClock(e.srv, func() time.Time { return now })
	e.mkws("w", "v")
	for i := range 3 {
		if _, err := e.c.Run(bg, "w", client.ExecRequest{Source: "echo hi"}); err != nil {
			t.Fatalf("exec %d: %v", i, err)
		}
	}
	_, err := e.c.Run(bg, "w", client.ExecRequest{Source: "echo hi"})
	wantCode(t, "the fourth in a minute", err, 429, api.CodeTooMany)
	if _, err := e.c.Run(bg, "v", client.ExecRequest{Source: "echo hi"}); err != nil {
		t.Fatalf("another workspace: %v", err)
	}
	// The exec tool counts against the same quota.
	in := []byte(`{"command": "echo hi"}`)
	if _, err := e.c.CallTool(bg, "w", "exec", in, nil); err == nil {
		t.Fatal("the exec tool ran past the quota")
	} else {
		wantCode(t, "the exec tool past the quota", err, 429, api.CodeTooMany)
	}
	now = now.Add(time.Minute)
	if _, err := e.c.Run(bg, "w", client.ExecRequest{Source: "echo hi"}); err != nil {
		t.Fatalf("the next minute: %v", err)
	}
	for i := range 2 {
		if res, err := e.c.CallTool(bg, "w", "exec", in, nil); err != nil || res.IsError {
			t.Fatalf("exec tool %d: %+v %v", i, res, err)
		}
	}
	_, err = e.c.CallTool(bg, "w", "exec", in, nil)
	wantCode(t, "the exec tool, fourth in a minute", err, 429, api.CodeTooMany)
}

// TestQuota_CPUPerDay: the CPU time a backend measured is charged to its
// workspace's UTC day; past MaxCPUPerDay executions are refused until the
// next day, also by a new server (a restarted worker) reading the audit
// journal.
func TestQuota_CPUPerDay(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st, err := audit.Open(filepath.Join(dir, audit.FileName), audit.Options{Now: clock, Retention: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := newEnv(t, envOpts{dir: dir, api: api.Options{MaxCPUPerDay: 2 * time.Second, Audit: st}})
	api.SetQuotaClock(e.srv, clock)
	e.mkws("w")
	for _, src := range []string{"usage 1500ms 0s 0", "usage 400ms 200ms 0"} {
		if _, err := e.c.Run(bg, "w", client.ExecRequest{Source: src}); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	_, err = e.c.Run(bg, "w", client.ExecRequest{Source: "echo hi"})
	wantCode(t, "past the day's CPU", err, 429, api.CodeTooMany)

	// A second server over the same data directory and journal (as a new
	// worker would be) reads the day's CPU back.
	e2 := newEnv(t, envOpts{dir: t.TempDir(), api: api.Options{MaxCPUPerDay: 2 * time.Second, Audit: st}})
	api.SetQuotaClock(e2.srv, clock)
	e2.mkws("w")
	_, err = e2.c.Run(bg, "w", client.ExecRequest{Source: "echo hi"})
	wantCode(t, "after a restart", err, 429, api.CodeTooMany)

	now = now.Add(14 * time.Hour) // the next UTC day
	if _, err := e.c.Run(context.Background(), "w", client.ExecRequest{Source: "echo hi"}); err != nil {
		t.Fatalf("the next day: %v", err)
	}
}

// TestQuota_MCPInProcess: the exec tool of an MCP session this server
// serves itself (desk serve --workers=false) counts against the
// workspace's executions per minute, as the exec route does: past the
// quota the tool answers an error naming it, and the exec route is refused
// for the executions MCP started.
func TestQuota_MCPInProcess(t *testing.T) {
	e := newEnv(t, envOpts{api: api.Options{MaxExecsPerMinute: 2, MaxCPUPerDay: -1}})
	now := time.Date(2026, 1, 1, 10, 0, 5, 0, time.UTC)
	api.SetQuotaClock(e.srv, func() time.Time { return now })
	e.mkws("demo")
	_, tok := e.mint("demo", nil, "read", "write", "exec")
	cs := mcpSession(t, e.url+"/mcp/demo", tok, nil)
	exec := func() *sdk.CallToolResult {
		t.Helper()
		r, err := cs.CallTool(bg, &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "echo hi"}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for i := range 2 {
		if r := exec(); r.IsError {
			t.Fatalf("exec over MCP %d: %+v", i, r.Content)
		}
	}
	r := exec()
	if !r.IsError || len(r.Content) == 0 || !strings.Contains(r.Content[0].(*sdk.TextContent).Text, "2 executions this minute") {
		t.Fatalf("the third exec over MCP in a minute of 2: %+v", r.Content)
	}
	_, err := e.c.Run(bg, "demo", client.ExecRequest{Source: "echo hi"})
	wantCode(t, "the exec route after MCP's two", err, 429, api.CodeTooMany)
}
