package main

import (
	"strings"
	"testing"
)

// TestServe_Rules is issue 18's done-when scenario through the CLI against
// a real desk serve with worker processes: the admin sets the workspace's
// rules (desk ws policy), mints a token that may read everything but .env,
// write only src/, run tests but must ask before git push (desk token mint
// --path/--command), and an approver token; the agent's executions are
// bound by it, its git push waits until desk approve (or desk deny).
func TestServe_Rules(t *testing.T) {
	s := startTenantServer(t)
	t.Setenv(envURL, s.url)
	t.Setenv(envToken, s.token)
	as := func(tok string, args ...string) (string, string, int) {
		t.Helper()
		a := append([]string{args[0], args[1], "--url", s.url, "--token", tok}, args[2:]...)
		return desk(t, nil, a...)
	}
	mustDesk(t, nil, "ws", "create", "demo")
	mustDesk(t, nil, "exec", "demo", "--", "mkdir -p src .git/hooks; printf 'SECRET=hunter2\\n' > .env; echo hi > README")
	out := mustDesk(t, nil, "ws", "policy", "demo", "--path", "deny /workspace/.git/hooks/**", "--command", "deny rm -rf /workspace")
	if !strings.Contains(out, "deny /workspace/.git/hooks/**") || !strings.Contains(out, "deny rm -rf /workspace") || !strings.Contains(out, "none (") {
		t.Fatalf("ws policy: %q", out)
	}
	if _, errs, code := desk(t, nil, "ws", "policy", "demo", "--path", "maybe x"); code == 0 || !strings.Contains(errs, "want read, write or deny") {
		t.Fatalf("a bad rule: %d %q", code, errs)
	}
	agent := strings.TrimSpace(mustDesk(t, nil, "token", "mint", "-w", "demo", "--scopes", "read,write,exec",
		"--path", "deny **/.env", "--path", "write src/**", "--path", "read /**", "--command", "ask git push *"))
	approver := strings.TrimSpace(mustDesk(t, nil, "token", "mint", "-w", "demo", "--scopes", "approve"))

	if out, _, code := as(agent, "exec", "demo", "--", "cat .env"); code == 0 || strings.Contains(out, "hunter2") {
		t.Fatalf("cat .env: %d %q", code, out)
	}
	if _, _, code := as(agent, "exec", "demo", "--", "echo x > README"); code == 0 {
		t.Fatal("wrote README")
	}
	if out, errs, code := as(agent, "exec", "demo", "--", "echo x > src/a && cat src/a README && ls -a"); code != 0 || out != "x\nhi\n.\n..\n.git\nREADME\nsrc\n" {
		t.Fatalf("src: %d %q %q", code, out, errs)
	}
	if _, errs, code := as(agent, "exec", "demo", "--", "rm -rf /workspace"); code == 0 || !strings.Contains(errs, "policy_denied") {
		t.Fatalf("the workspace's rule binds the token: %d %q", code, errs)
	}
	if _, errs, code := as(agent, "exec", "demo", "--", "echo > .git/hooks/pre-push"); code == 0 || !strings.Contains(errs, "No such file") {
		t.Fatalf("hooks: %d %q", code, errs)
	}

	// git push waits for an approval.
	pending := func() string {
		t.Helper()
		// --wait answers once a call is pending (a minute is the hang guard)
		out, errs, code := as(approver, "approve", "demo", "--wait", "1m")
		if code != 0 {
			t.Fatalf("desk approve demo --wait 1m: %d %q", code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) < 2 || !strings.Contains(lines[1], "ask git push *") {
			t.Fatalf("pending: %q", out)
		}
		return strings.Fields(lines[1])[0]
	}
	type res struct {
		out, errs string
		code      int
	}
	push := func() chan res {
		c := make(chan res, 1)
		go func() {
			o, e, code := desk(t, nil, "exec", "demo", "--url", s.url, "--token", agent, "--", "echo pushing; git push origin main")
			c <- res{o, e, code}
		}()
		return c
	}
	c := push()
	id := pending()
	if _, errs, code := as(agent, "approve", "demo", id); code == 0 || !strings.Contains(errs, "forbidden") {
		t.Fatalf("the agent approves itself: %d %q", code, errs)
	}
	if out, errs, code := as(approver, "approve", "demo", id); code != 0 || !strings.HasPrefix(out, "approved "+id) {
		t.Fatalf("approve: %d %q %q", code, out, errs)
	}
	if r := <-c; !strings.Contains(r.out, "pushing") {
		t.Fatalf("approved push: %+v", r)
	}
	c = push()
	id = pending()
	if out, errs, code := as(approver, "deny", "demo", id); code != 0 || !strings.HasPrefix(out, "denied "+id) {
		t.Fatalf("deny: %d %q %q", code, out, errs)
	}
	if r := <-c; r.code == 0 || strings.Contains(r.out, "pushing") || !strings.Contains(r.errs, "approval_denied") {
		t.Fatalf("denied push: %+v", r)
	}
}

// TestServe_RulesSandbox: the done-when token's rules hold in the sandbox,
// through its workspace mount (a denied path is EACCES there), also for a
// process that left its execution's session and environment; command
// rules hold for the sandbox backend; an interactive shell is refused.
func TestServe_RulesSandbox(t *testing.T) {
	srvURL, _, _ := serveSandboxDemo(t)
	mustDesk(t, nil, "exec", "demo", "--", "mkdir -p src x; printf 'SECRET=hunter2\\n' > .env; cp .env x/.env; echo hi > README")
	agent := strings.TrimSpace(mustDesk(t, nil, "token", "mint", "-w", "demo", "--scopes", "read,write,exec",
		"--path", "deny **/.env", "--path", "write src/**", "--path", "read /**", "--command", "ask git push *", "--command", "deny curl *"))
	sb := func(src string) (string, string, int) {
		t.Helper()
		return desk(t, nil, "exec", "demo", "--url", srvURL, "--token", agent, "--backend", "sandbox", "--", src)
	}
	for _, src := range []string{"cat /workspace/.env", "cat x/.env", "setsid -w env -i /bin/cat /workspace/.env", "ln -s .env src/l; cat src/l", "cp .env src/copy"} {
		if out, errs, code := sb(src); code == 0 || strings.Contains(out, "hunter2") || !strings.Contains(errs, "ermission denied") {
			t.Fatalf("%s: %d %q %q", src, code, out, errs)
		}
	}
	if _, errs, code := sb("echo x > README"); code == 0 || !strings.Contains(errs, "ermission denied") {
		t.Fatalf("write README: %d %q", code, errs)
	}
	if out, errs, code := sb("echo y > src/a && cat src/a README"); code != 0 || out != "y\nhi\n" {
		t.Fatalf("src: %d %q %q", code, out, errs)
	}
	if _, errs, code := sb("curl -sS http://127.0.0.1:1/"); code == 0 || !strings.Contains(errs, "policy_denied") {
		t.Fatalf("curl: %d %q", code, errs)
	}
	// The admin's executions are bound by the workspace's rules only.
	if out := mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "cat .env"); !strings.Contains(out, "hunter2") {
		t.Fatalf("admin: %q", out)
	}
	mustDesk(t, nil, "ws", "policy", "demo", "--path", "read /workspace/README")
	if _, errs, code := desk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "echo x >> README"); code == 0 || !strings.Contains(errs, "ermission denied") {
		t.Fatalf("admin writes a read-only file: %d %q", code, errs)
	}
}
