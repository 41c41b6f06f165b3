package api_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/jsvm"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell"
	"github.com/desk-dev/desk/internal/workspace"
)

// policyEnv is a server with the shell and js backends, the workspaces'
// rules in DATA/policy and approvals timing out after timeout.
type policyEnv struct {
	c     *client.Client
	url   string
	admin string
	ap    *policy.Approvals
}

func newPolicyEnv(t *testing.T, timeout time.Duration) *policyEnv {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st := policy.OpenStore(dir)
	ap := policy.NewApprovals(policy.ApprovalOptions{Timeout: timeout})
	js, err := jsvm.New(jsvm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(ctx, host.Options{DataDir: dir, Workspace: workspace.Options{
		Backends: map[string]run.Backend{"shell": shell.New(shell.Options{}), "js": js},
		Run:      run.Options{DefaultBackend: "shell", Gate: run.PolicyGate(run.PolicyConfig{Store: st, Approvals: ap})},
	}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.Open(ctx, dir, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(h, a, api.Options{Logger: slog.New(slog.DiscardHandler), Policy: st, Approvals: ap})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		srv.Shutdown(ctx, nil)
		ts.Close()
	})
	c, err := client.New(ts.URL, a.AdminToken(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &policyEnv{c: c, url: ts.URL, admin: a.AdminToken(), ap: ap}
}

func (e *policyEnv) token(t *testing.T, req client.TokenRequest) *client.Client {
	t.Helper()
	m, err := e.c.MintToken(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(e.url, m.Secret, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// doneWhenRules: read everything but .env, write only src/, run tests but
// ask before git push (issue 18's done-when token).
var doneWhenRules = client.Rules{
	Paths:    []client.PathRule{{Pattern: "**/.env", Access: "deny"}, {Pattern: "src/**", Access: "write"}, {Pattern: "/**", Access: "read"}},
	Commands: []client.CommandRule{{Pattern: "git push *", Action: "ask"}, {Pattern: "curl *", Action: "deny"}},
}

func putFile(t *testing.T, c *client.Client, p, data string) error {
	t.Helper()
	_, err := c.WriteFile(context.Background(), "w", p, strings.NewReader(data), client.WriteOptions{})
	return err
}

// waitPending waits for the workspace's first pending approval.
func waitPending(t *testing.T, c *client.Client) client.Approval {
	t.Helper()
	// wait= answers once a call is pending (its minute is the hang guard)
	l, err := c.WaitApprovals(context.Background(), "w", api.MaxApprovalWait, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Approvals) == 0 {
		t.Fatal("no approval became pending")
	}
	return l.Approvals[0]
}

// TestRules_DoneWhen is issue 18's done-when scenario end to end over the
// HTTP API: a token that may read everything but .env, write only src/,
// run tests but must ask before git push — through the file routes, the
// tools, the shell and js backends, with approvals decided by another
// token holding the approve scope.
func TestRules_DoneWhen(t *testing.T) {
	ctx := context.Background()
	e := newPolicyEnv(t, time.Hour)
	if _, err := e.c.CreateWorkspace(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"/workspace/src", "/workspace/x"} {
		if _, err := e.c.Mkdir(ctx, "w", d, 0o755, true); err != nil {
			t.Fatal(err)
		}
	}
	for p, d := range map[string]string{"/workspace/.env": "SECRET=hunter2\n", "/workspace/README": "hello\n", "/workspace/src/a.go": "package a\n", "/workspace/x/.env": "B=1\n"} {
		if err := putFile(t, e.c, p, d); err != nil {
			t.Fatal(err)
		}
	}
	agent := e.token(t, client.TokenRequest{Workspace: "w", Scopes: []string{"read", "write", "exec"}, Rules: &doneWhenRules})
	approver := e.token(t, client.TokenRequest{Workspace: "w", Scopes: []string{"approve"}})
	reader := e.token(t, client.TokenRequest{Workspace: "w", Scopes: []string{"read"}})

	t.Run("file API", func(t *testing.T) {
		_, err := agent.ReadFile(ctx, "w", "/workspace/.env")
		wantCode(t, "read .env", err, 404, "ENOENT")
		_, err = agent.ReadFile(ctx, "w", "x/.env")
		wantCode(t, "read a deeper .env", err, 404, "ENOENT")
		if b, err := agent.ReadFile(ctx, "w", "README"); err != nil || string(b) != "hello\n" {
			t.Fatalf("read README: %q %v", b, err)
		}
		wantCode(t, "write README", putFile(t, agent, "README", "x"), 403, "EACCES")
		wantCode(t, "write .env", putFile(t, agent, ".env", "x"), 404, "ENOENT")
		if err := putFile(t, agent, "src/b.go", "package a\n"); err != nil {
			t.Fatalf("write src/b.go: %v", err)
		}
		l, err := agent.ReadDir(ctx, "w", "/workspace", "", 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range l.Entries {
			if x.Name == ".env" {
				t.Fatal(".env listed")
			}
		}
		// The admin is bound by the workspace's rules only (none here).
		if b, err := e.c.ReadFile(ctx, "w", ".env"); err != nil || !strings.Contains(string(b), "hunter2") {
			t.Fatalf("admin read: %q %v", b, err)
		}
	})
	t.Run("tools", func(t *testing.T) {
		res, err := agent.CallTool(ctx, "w", "read", json.RawMessage(`{"path":".env"}`), nil)
		if err != nil || !res.IsError || strings.Contains(string(res.Structured)+toolText(res), "hunter2") {
			t.Fatalf("read tool of .env: %+v %v", res, err)
		}
		res, err = agent.CallTool(ctx, "w", "write", json.RawMessage(`{"path":"README","content":"x"}`), nil)
		if err != nil || !res.IsError {
			t.Fatalf("write tool outside src: %+v %v", res, err)
		}
		res, err = agent.CallTool(ctx, "w", "grep", json.RawMessage(`{"pattern":"hunter2"}`), nil)
		if err != nil || strings.Contains(string(res.Structured)+toolText(res), ".env") {
			t.Fatalf("grep finds .env: %+v %v", res, err)
		}
		res, err = agent.CallTool(ctx, "w", "write", json.RawMessage(`{"path":"src/c.go","content":"package a\n"}`), nil)
		if err != nil || res.IsError {
			t.Fatalf("write tool in src: %+v %v", res, err)
		}
	})
	t.Run("shell", func(t *testing.T) {
		r, err := agent.Run(ctx, "w", client.ExecRequest{Source: "cat .env; echo x > README; echo y > src/d.go && cat src/d.go; ls -a"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.Stdout, "hunter2") || strings.Contains(r.Stdout, ".env") || !strings.Contains(r.Stdout, "y\n") {
			t.Fatalf("stdout %q", r.Stdout)
		}
		if !strings.Contains(r.Stderr, "No such file") || !strings.Contains(r.Stderr, "ermission denied") {
			t.Fatalf("stderr %q", r.Stderr)
		}
		_, err = agent.Run(ctx, "w", client.ExecRequest{Source: "curl http://127.0.0.1:1/"})
		wantCode(t, "curl", err, 403, "policy_denied")
		_, err = agent.Run(ctx, "w", client.ExecRequest{Source: `x=curl; $x http://127.0.0.1:1/`})
		wantCode(t, "a dynamic command", err, 403, "policy_denied")
	})
	t.Run("js", func(t *testing.T) {
		src := `import fs from "node:fs/promises";
let out = [];
try { out.push(await fs.readFile("/workspace/.env", "utf8")); } catch (e) { out.push(e.code); }
try { await fs.writeFile("/workspace/README", "x"); out.push("wrote"); } catch (e) { out.push(e.code); }
await fs.writeFile("/workspace/src/e.js", "1");
out.push((await fs.readdir("/workspace")).includes(".env") ? "listed" : "hidden");
console.log(out.join(" "));`
		r, err := agent.Run(ctx, "w", client.ExecRequest{Backend: "js", Source: src})
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(r.Stdout) != "ENOENT EACCES hidden" {
			t.Fatalf("js: %q %q", r.Stdout, r.Stderr)
		}
	})
	t.Run("ask, approve", func(t *testing.T) {
		done := make(chan client.Result, 1)
		errc := make(chan error, 1)
		go func() {
			r, err := agent.Run(ctx, "w", client.ExecRequest{Source: "go test ./... 2>/dev/null; echo pushing; git push origin main"})
			done <- r
			errc <- err
		}()
		p := waitPending(t, approver)
		if p.Status != "pending_approval" || p.Decision.Rule != "ask git push *" || !strings.Contains(p.Subject, "git push origin main") || p.Requester == "" || p.Requester == "admin" {
			t.Fatalf("pending: %+v", p)
		}
		_, err := reader.Approve(ctx, "w", p.ID)
		wantCode(t, "an approver without the scope", err, 403, "forbidden")
		_, err = agent.Approve(ctx, "w", p.ID)
		wantCode(t, "the agent approves itself", err, 403, "forbidden")
		a, err := approver.Approve(ctx, "w", p.ID)
		if err != nil || a.Status != "approved" || a.Approver == "" {
			t.Fatalf("approve: %+v %v", a, err)
		}
		r := <-done
		if err := <-errc; err != nil || !strings.Contains(r.Stdout, "pushing") {
			t.Fatalf("after approval: %+v %v", r, err)
		}
		_, err = approver.Approve(ctx, "w", p.ID)
		wantCode(t, "approve twice", err, 404, "not_found")
	})
	t.Run("ask, deny", func(t *testing.T) {
		errc := make(chan error, 1)
		go func() {
			_, err := agent.Run(ctx, "w", client.ExecRequest{Source: "git push"})
			errc <- err
		}()
		p := waitPending(t, approver)
		if _, err := e.c.Deny(ctx, "w", p.ID); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "denied", <-errc, 403, "approval_denied")
	})
}

func toolText(r *client.ToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	if r.Error != nil {
		b.WriteString(r.Error.Message)
	}
	return b.String()
}

// TestRules_Timeout: an execution nobody approves fails after the timeout
// with approval_timeout, and is no longer listed.
func TestRules_Timeout(t *testing.T) {
	ctx := context.Background()
	e := newPolicyEnv(t, time.Millisecond)
	if _, err := e.c.CreateWorkspace(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.SetRules(ctx, "w", client.Rules{Commands: []client.CommandRule{{Pattern: "git push *", Action: "ask"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.Run(ctx, "w", client.ExecRequest{Source: "git push"})
	wantCode(t, "timeout", err, 408, "approval_timeout")
	if l, err := e.c.ListApprovals(ctx, "w"); err != nil || len(l.Approvals) != 0 {
		t.Fatalf("listed: %+v %v", l, err)
	}
	// A wait that ends with nothing pending answers the empty list, with
	// the version of an unchanged list; a wait past the bound or a bad
	// version is refused.
	l, err := e.c.WaitApprovals(ctx, "w", time.Millisecond, 0)
	if err != nil || len(l.Approvals) != 0 || l.Version == 0 {
		t.Fatalf("wait: %+v %v", l, err)
	}
	if l2, err := e.c.WaitApprovals(ctx, "w", time.Millisecond, l.Version); err != nil || l2.Version != l.Version {
		t.Fatalf("wait with version %d: %+v %v", l.Version, l2, err)
	}
	_, err = e.c.WaitApprovals(ctx, "w", 2*time.Minute, 0)
	wantCode(t, "wait past the bound", err, 400, "invalid")
}

// TestRules_Routes: the rules routes' access and validation, and the
// workspace's rules binding every caller, the admin included.
func TestRules_Routes(t *testing.T) {
	ctx := context.Background()
	e := newPolicyEnv(t, time.Hour)
	if _, err := e.c.CreateWorkspace(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.SetRules(ctx, "w", client.Rules{Paths: []client.PathRule{{Pattern: "x", Access: "all"}}})
	wantCode(t, "bad access", err, 400, "invalid")
	_, err = e.c.SetRules(ctx, "nope", doneWhenRules)
	wantCode(t, "no workspace", err, 404, "not_found")
	ws := client.Rules{Paths: []client.PathRule{{Pattern: "/workspace/.git/hooks/**", Access: "deny"}}, Commands: []client.CommandRule{{Pattern: "rm -rf /workspace", Action: "deny"}}}
	if _, err := e.c.SetRules(ctx, "w", ws); err != nil {
		t.Fatal(err)
	}
	tok := e.token(t, client.TokenRequest{Workspace: "w", Scopes: []string{"read", "write", "exec"}})
	if r, err := tok.GetRules(ctx, "w"); err != nil || len(r.Rules.Paths) != 1 || r.Rules.Commands[0].Pattern != "rm -rf /workspace" {
		t.Fatalf("get: %+v %v", r, err)
	}
	_, err = tok.SetRules(ctx, "w", client.Rules{})
	wantCode(t, "a token sets rules", err, 403, "forbidden")
	_, err = e.c.Mkdir(ctx, "w", "/workspace/.git/hooks", 0o755, true)
	wantCode(t, "admin makes the hooks", err, 404, "ENOENT")
	wantCode(t, "admin writes a hook", putFile(t, e.c, "/workspace/.git/hooks/pre-commit", "x"), 404, "ENOENT")
	_, err = e.c.Run(ctx, "w", client.ExecRequest{Source: "rm -rf /workspace"})
	wantCode(t, "admin rm -rf", err, 403, "policy_denied")
	_, err = tok.Run(ctx, "w", client.ExecRequest{Source: "bash -c 'rm -rf /workspace'"})
	wantCode(t, "bash -c", err, 403, "policy_denied")
	_, err = e.c.MintToken(ctx, client.TokenRequest{Workspace: "w", Scopes: []string{"read"}, Rules: &client.Rules{Commands: []client.CommandRule{{Pattern: "", Action: "deny"}}}})
	wantCode(t, "mint with a bad rule", err, 400, "invalid")
	m, err := e.c.MintToken(ctx, client.TokenRequest{Workspace: "w", Scopes: []string{"read", "approve"}, Rules: &doneWhenRules})
	if err != nil || m.Token.Rules == nil || len(m.Token.Rules.Paths) != 3 {
		t.Fatalf("mint: %+v %v", m, err)
	}
	if err := e.c.DeleteRules(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Mkdir(ctx, "w", "/workspace/.git/hooks", 0o755, true); err != nil {
		t.Fatal(err)
	}
	if err := putFile(t, e.c, "/workspace/.git/hooks/pre-commit", "x"); err != nil {
		t.Fatalf("after delete: %v", err)
	}
}

// TestRules_HidingAttempts: the attempts to hide a denied command from the
// parse, through the API and run's Gate on the shell backend: each is
// refused before anything runs (caught, or dynamic and decided by the
// strictest rule); internal/policy's TestSet_Script has the table.
func TestRules_HidingAttempts(t *testing.T) {
	ctx := context.Background()
	e := newPolicyEnv(t, time.Hour)
	if _, err := e.c.CreateWorkspace(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.SetRules(ctx, "w", client.Rules{Commands: []client.CommandRule{{Pattern: "curl *", Action: "deny"}}}); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`eval "$(echo Y3VybCB4 | base64 -d)"`,
		"alias c='curl'\nc x",
		`command curl x`,
		`env A=1 curl x`,
		`echo x | xargs curl`,
		`find . -exec curl {} \;`,
		`x='curl y'; bash -c "$x"`,
		`bash -c 'curl x'`,
		`f() { curl "$@"; }; f x`,
		`echo $(curl x)`,
		`c=curl; $c x`,
	} {
		_, err := e.c.Run(ctx, "w", client.ExecRequest{Source: "touch /workspace/ran; " + src})
		wantCode(t, src, err, 403, "policy_denied")
	}
	if _, err := e.c.Stat(ctx, "w", "/workspace/ran"); err == nil {
		t.Fatal("a refused script ran")
	}
	if r, err := e.c.Run(ctx, "w", client.ExecRequest{Source: "echo fine"}); err != nil || r.Stdout != "fine\n" {
		t.Fatalf("allowed: %+v %v", r, err)
	}
}
