package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/audit"
)

// TestApprovals_ServerKilled: an execution held for approval when desk
// serve is killed (-9) cannot go on (its request and process are gone);
// the server started next on the same data directory finds the approval
// its predecessor left pending, fails it as abandoned with an approval
// record saying why, and no longer lists it.
func TestApprovals_ServerKilled(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	const token = "approval-restart-admin-token-0123456789"
	srv := startDeskProcess(t, data, token, "--workers=false")
	t.Setenv(envURL, srv.url)
	t.Setenv(envToken, token)
	mustDesk(t, nil, "ws", "create", "demo")
	mustDesk(t, nil, "ws", "policy", "demo", "--command", "ask echo held*")
	held := make(chan int, 1)
	go func() {
		_, _, code := desk(t, nil, "exec", "demo", "--", "echo held-across-restart")
		held <- code
	}()
	if out := mustDesk(t, nil, "approve", "demo", "--wait", "1m"); !strings.Contains(out, "held-across-restart") {
		t.Fatalf("pending: %q", out)
	}
	srv.kill()
	if code := <-held; code == 0 {
		t.Fatal("the held execution succeeded although its server was killed")
	}

	srv2 := startDeskProcess(t, data, token, "--workers=false")
	t.Setenv(envURL, srv2.url)
	if out := mustDesk(t, nil, "approve", "demo"); strings.Contains(out, "held-across-restart") {
		t.Fatalf("the restarted server still lists the dead call: %q", out)
	}
	var found []audit.Record
	for _, l := range strings.Split(strings.TrimSpace(mustDesk(t, nil, "audit", "demo", "--json")), "\n") {
		var r audit.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Kind == audit.KindApproval {
			found = append(found, r)
		}
	}
	if len(found) != 1 || found[0].Outcome != "abandoned" || found[0].Rule != "ask echo held*" || !strings.Contains(found[0].Error, "restart") ||
		!strings.Contains(arg(found[0], "subject"), "held-across-restart") {
		t.Fatalf("approval records: %+v\n%s", found, srv2.log.String())
	}
	if !strings.Contains(srv2.log.String(), "approval abandoned") {
		t.Errorf("the restarted server's log says nothing:\n%s", srv2.log.String())
	}
}
