package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestExec_killPS: desk ps lists running executions, desk kill ends one,
// and --service is refused by a backend that cannot run detached executions.
func TestExec_killPS(t *testing.T) {
	newTestServer(t).use(t)
	mustDesk(t, nil, "ws", "create", "demo")
	id := strings.TrimSpace(mustDesk(t, nil, "exec", "--detach", "--id", "blocker", "demo", "--", "echo started\nblock"))
	if id != "blocker" {
		t.Fatalf("exec --detach printed %q", id)
	}
	if got := mustDesk(t, nil, "ps", "demo"); !regexp.MustCompile(`(?m)^ID +STATUS +BACKEND +STARTED +PORTS +SOURCE\nblocker +running +lines +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +echo started…\n$`).MatchString(got) {
		t.Errorf("ps =\n%s", got)
	}
	if got := mustDesk(t, nil, "ps", "-q", "demo"); got != "blocker\n" {
		t.Errorf("ps -q = %q", got)
	}
	mustDesk(t, nil, "kill", "demo", "blocker", "--signal", "INT")
	out, errs, code := desk(t, nil, "attach", "demo", "blocker")
	if out != "started\n" || code != 130 || !strings.Contains(errs, "killed by SIGINT") {
		t.Errorf("attach after kill: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if got := mustDesk(t, nil, "ps", "demo"); strings.Count(got, "\n") != 1 {
		t.Errorf("ps after the kill =\n%s", got)
	}
	if got := mustDesk(t, nil, "ps", "--all", "demo"); !strings.Contains(got, "blocker  cancelled") {
		t.Errorf("ps --all =\n%s", got)
	}
	wantFail(t, 1, "(not_running)", "kill", "demo", "blocker")
	wantFail(t, 1, "(not_found)", "kill", "demo", "nope")
	wantFail(t, 1, "(invalid)", "kill", "demo", "blocker", "--signal", "USR1")
	wantFail(t, 1, "backend lines cannot run detached executions", "exec", "--service", "--backend", "lines", "demo", "--", "echo hi")
	// No backend named: not the default (lines), one that can run services.
	wantFail(t, 1, "no backend that can run detached executions is available", "exec", "--service", "demo", "--", "echo hi")
	wantFail(t, 2, "takes no --stdin", "exec", "--service", "--stdin", "demo", "--", "cat")
}

// TestExec_serviceSandbox runs desk serve with the real sandbox backend and
// starts a service with desk exec --service: it outlives its main shell,
// desk attach follows it live, desk ps lists it, desk kill ends it and its
// processes.
func TestExec_serviceSandbox(t *testing.T) {
	serveSandboxDemo(t, "--log-level", "warn")

	wantFail(t, 1, "backend shell cannot run detached executions", "exec", "--service", "--backend", "shell", "demo", "--", "sleep 1")
	// auto sends a service to the sandbox. The main shell ends at once; the
	// loop it left in the background goes on.
	id := mustDesk(t, nil, "exec", "--service", "--id", "ticker", "demo", "--",
		"echo started; (while sleep 0.05; do echo tick; done) & exit 0")
	if id != "ticker\n" {
		t.Fatalf("exec --service printed %q", id)
	}
	if got := mustDesk(t, nil, "ps", "demo"); !regexp.MustCompile(`(?m)^ticker +running +sandbox\* `).MatchString(got) {
		t.Errorf("ps =\n%s", got)
	}
	// A second execution in the same sandbox sees the service's processes.
	if got := mustDesk(t, nil, "exec", "--backend", "sandbox", "demo", "--", "ps -e -o args= | grep -c '[s]leep 0.05' >/dev/null && echo alive"); got != "alive\n" {
		t.Errorf("a second execution does not see the service's loop: %q", got)
	}

	// attach follows it live; killing it ends the attach with its status.
	w := &watchWriter{want: "tick\ntick\n", seen: make(chan struct{})}
	var errb bytes.Buffer
	done := make(chan int)
	go func() {
		done <- runAttach(context.Background(), []string{"demo", "ticker"}, streams{in: strings.NewReader(""), out: w, err: &errb})
	}()
	<-w.seen
	mustDesk(t, nil, "kill", "demo", "ticker")
	if code := <-done; code != 143 || !strings.HasPrefix(w.String(), "started\ntick\n") || !strings.Contains(errb.String(), "killed by SIGTERM") {
		t.Errorf("attach: exit %d, stdout %q, stderr %q", code, w.String()[:min(len(w.String()), 40)], errb.String())
	}
	if got := mustDesk(t, nil, "exec", "--backend", "sandbox", "demo", "--", "ps -e -o args= | grep -c '[s]leep 0.05' || true"); got != "0\n" {
		t.Errorf("processes of the killed service left: %q", got)
	}
	if got := mustDesk(t, nil, "ps", "demo"); strings.Count(got, "\n") != 1 {
		t.Errorf("ps after the kill =\n%s", got)
	}
}
