package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
)

// TestAudit_DetachedToolRefusals: a detached execution started by the exec
// tool (the API's tool route, served by the workspace's worker and by a
// server without workers) is recorded when it ends, long after the tool
// call returned: one execution record (its status, exit code and CPU time)
// and the policy records of the path refusals its programs met through the
// mount after the call's record, naming the execution, the call's actor
// and its session label.
func TestAudit_DetachedToolRefusals(t *testing.T) {
	sandboxtest.Require(t)
	for _, workers := range []string{"true", "false"} {
		t.Run("workers="+workers, func(t *testing.T) {
			t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
			data, _ := sandboxData(t)
			u, _, _ := startServe(t, "--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn", "--workers="+workers)
			mustDesk(t, nil, "ws", "create", "demo")
			mustDesk(t, nil, "exec", "demo", "--", "mkdir -p /workspace/secret && echo s > /workspace/secret/f")
			mustDesk(t, nil, "ws", "policy", "demo", "--path", "deny secret/**")
			ctx := context.Background()
			admin, err := client.FromEnvironment(client.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tok, err := admin.MintToken(ctx, client.TokenRequest{Workspace: "demo", Scopes: []string{"read", "write", "exec"}})
			if err != nil {
				t.Fatal(err)
			}
			c, err := client.New(u, tok.Secret, client.Options{Header: map[string][]string{audit.HeaderSession: {"svc"}}})
			if err != nil {
				t.Fatal(err)
			}
			// The service waits for /workspace/go, then reads the denied
			// files (three refusals of one rule) and ends.
			script := `while [ ! -e /workspace/go ]; do sleep 0.02; done; for i in 1 2 3; do cat /workspace/secret/f 2>/dev/null || echo refused; done`
			in, _ := json.Marshal(map[string]any{"command": script, "detached": true, "backend": "sandbox"})
			res, err := c.CallTool(ctx, "demo", "exec", in, nil)
			if err != nil || res.IsError {
				t.Fatalf("exec tool: %+v %v", res, err)
			}
			var out struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			}
			if err := json.Unmarshal(res.Structured, &out); err != nil || out.ID == "" || out.Status != "running" {
				t.Fatalf("exec tool's result: %s %v", res.Structured, err)
			}
			mustDesk(t, nil, "exec", "demo", "--", "touch /workspace/go")
			var recs []audit.Record
			defer func() {
				if t.Failed() {
					e, err := admin.GetExecution(ctx, "demo", out.ID)
					t.Logf("execution %+v %v", e.Execution, err)
					for _, l := range strings.Split(mustDesk(t, nil, "audit", "demo", "--json"), "\n") {
						if !strings.Contains(l, `"action":"audit"`) {
							t.Log(l)
						}
					}
				}
			}()
			// Each query is a record of its own: ask every 50 ms.
			pollEvery(t, 50*time.Millisecond, 2*time.Minute, "the detached execution's records", func() bool {
				recs = nil
				o, _, code := desk(t, nil, "audit", "demo", "--json")
				if code != 0 {
					return false
				}
				for _, l := range strings.Split(strings.TrimSpace(o), "\n") {
					var r audit.Record
					if json.Unmarshal([]byte(l), &r) == nil && arg(r, "execution") == out.ID {
						recs = append(recs, r)
					}
				}
				kinds := map[string]bool{}
				for _, r := range recs {
					kinds[r.Kind] = true
				}
				return kinds[audit.KindExec] && kinds[audit.KindPolicy]
			})
			for _, r := range recs {
				if r.Actor != tok.Token.ID || r.Labels.Session != "svc" {
					t.Errorf("record %s %s: actor %q session %q, want the tool call's %q svc", r.Kind, r.Action, r.Actor, r.Labels.Session, tok.Token.ID)
				}
				switch r.Kind {
				case audit.KindExec:
					if r.Outcome != "completed" || arg(r, "exit_code") != "0" || arg(r, "backend") != "sandbox" || arg(r, "cpu_us") == "" {
						t.Errorf("the execution's record: %+v", r)
					}
				case audit.KindPolicy:
					n, _ := strconv.Atoi(arg(r, "count"))
					if r.Decision != "denied" || r.Rule != "deny secret/**" || !strings.HasPrefix(arg(r, "subject"), "/workspace/secret") || n < 1 {
						t.Errorf("the refusal's record: %+v", r)
					}
				}
			}
			if o, _, code := desk(t, nil, "audit", "verify"); code != 0 {
				t.Errorf("audit verify: %d %s", code, o)
			}
		})
	}
}

// pollEvery waits until cond holds, asking every tick, for at most d (a
// hang guard).
func pollEvery(t *testing.T, tick, d time.Duration, what string, cond func() bool) {
	t.Helper()
	tk := time.NewTicker(tick)
	defer tk.Stop()
	deadline := time.After(d)
	for !cond() {
		select {
		case <-tk.C:
		case <-deadline:
			t.Fatalf("waited %v (hang guard) for %s", d, what)
		}
	}
}
