package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/sqlite"
)

// TestAudit_Serve drives the audit journal through desk serve with its
// worker processes: the CLI's labels ($DESK_SESSION...), a file change
// traced to its call (desk audit WS --path), the NDJSON export, desk audit
// verify finding a modified record, and ws rm leaving no byte of the
// workspace anywhere in the data directory.
func TestAudit_Serve(t *testing.T) {
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	data := filepath.Join(t.TempDir(), "data")
	startServe(t, "--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn")
	const marker = "zq-audit-marker-51d7"
	mustDesk(t, nil, "ws", "create", "demo")
	mustDesk(t, nil, "ws", "create", "kept")
	var minted struct {
		Token struct {
			ID string `json:"id"`
		} `json:"token"`
	}
	if err := json.Unmarshal([]byte(mustDesk(t, nil, "token", "mint", "--workspace", "demo", "--scopes", "read", "--json")), &minted); err != nil || minted.Token.ID == "" {
		t.Fatalf("token mint: %v %+v", err, minted)
	}
	mustDesk(t, []byte(marker+"-secret\n"), "secret", "set", "demo", "API_KEY", "--host", "a.example.com")
	t.Setenv("DESK_SESSION", "cli-session")
	t.Setenv("DESK_AGENT", "test-agent")
	mustDesk(t, []byte(marker+" content\n"), "fs", "-w", "demo", "put", "/workspace/"+marker+".txt")
	mustDesk(t, nil, "exec", "demo", "--", "echo "+marker+" >> /workspace/"+marker+".txt; echo x > /workspace/other.txt")
	mustDesk(t, []byte("k\n"), "fs", "-w", "kept", "put", "/workspace/k.txt")

	out := mustDesk(t, nil, "audit", "demo", "--path", marker+".txt")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(lines[1], "writeFile") || !strings.Contains(lines[2], "exec") ||
		!strings.Contains(lines[1], "test-agent/cli-session") {
		t.Fatalf("desk audit --path:\n%s", out)
	}
	js := mustDesk(t, nil, "audit", "demo", "--session", "cli-session", "--json")
	var n int
	for _, l := range strings.Split(strings.TrimSpace(js), "\n") {
		var r audit.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Labels.Session != "cli-session" || r.Workspace != "demo" {
			t.Fatalf("--json line %q: %v", l, err)
		}
		n++
	}
	if exp := mustDesk(t, nil, "audit", "export", "demo", "--session", "cli-session"); strings.Count(exp, "\n") != n+1 || n < 2 { // and ls's own record
		t.Fatalf("export: %d lines, ls --json %d", strings.Count(exp, "\n"), n)
	}
	if out, errs, code := desk(t, nil, "audit", "verify"); code != 0 || !strings.Contains(out, "demo") || !strings.Contains(errs, "every record checks") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
	}

	// A modified record is found.
	c, err := sqlite.Open(filepath.Join(data, audit.FileName), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(`PRAGMA busy_timeout=5000; UPDATE records SET body = replace(body, '"outcome":"ok"', '"outcome":"forbidden"') WHERE workspace = 'kept' AND action = 'writeFile'`); err != nil || c.Changes() != 1 {
		t.Fatalf("tamper: %v (%d rows)", err, c.Changes())
	}
	c.Close()
	_, errs, code := desk(t, nil, "audit", "verify")
	if code != 1 || !strings.Contains(errs, "chain kept") || !strings.Contains(errs, "modified") || strings.Contains(errs, "chain demo") {
		t.Fatalf("verify after tampering: exit %d: %s", code, errs)
	}

	// ws rm: nothing of the workspace remains in any file of the data
	// directory (where it was before).
	found := false
	filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(marker)) {
				found = true
			}
		}
		return nil
	})
	if !found {
		t.Fatal("the marker is in no file before ws rm: the check below would check nothing")
	}
	mustDesk(t, nil, "ws", "rm", "demo")
	if out := mustDesk(t, nil, "audit", "demo"); strings.Count(out, "\n") != 1 {
		t.Fatalf("the deleted workspace's records:\n%s", out)
	}
	if out := mustDesk(t, nil, "audit", "-", "--action", "deleteWorkspace"); !strings.Contains(out, "admin") {
		t.Fatalf("the deletion's record:\n%s", out)
	}
	err = filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), marker) || strings.Contains(p, string(filepath.Separator)+"demo") {
			t.Errorf("left behind: %s", p)
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if bytes.Contains(b, []byte(marker)) || bytes.Contains(b, []byte(minted.Token.ID)) {
				t.Errorf("%s holds the deleted workspace's data", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAudit_Rules: the policy's decisions on executions are records of
// their own (denied and allowed, with the rule), next to the execution's,
// through desk serve and its workers.
func TestAudit_Rules(t *testing.T) {
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	data := filepath.Join(t.TempDir(), "data")
	startServe(t, "--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn")
	mustDesk(t, nil, "ws", "create", "demo")
	mustDesk(t, nil, "ws", "policy", "demo", "--command", "deny rm -rf /workspace")
	t.Setenv("DESK_SESSION", "rules-session")
	if _, errs, code := desk(t, nil, "exec", "demo", "--", "rm -rf /workspace"); code == 0 || !strings.Contains(errs, "policy_denied") {
		t.Fatalf("rm -rf /workspace: %d %q", code, errs)
	}
	mustDesk(t, nil, "exec", "demo", "--", "echo ok > /workspace/f")
	var got, execs []string
	for _, l := range strings.Split(strings.TrimSpace(mustDesk(t, nil, "audit", "demo", "--json")), "\n") {
		var r audit.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Kind == audit.KindPolicy:
			got = append(got, r.Decision+" "+r.Rule+" "+arg(r, "subject"))
		case r.Action == "exec" && r.Labels.Session == "rules-session":
			execs = append(execs, r.Outcome+":"+r.Decision)
		}
	}
	if strings.Join(execs, ",") != "policy_denied:denied,ok:" {
		t.Fatalf("the executions' requests: %q", execs)
	}
	want := []string{"denied deny rm -rf /workspace rm -rf /workspace", "allowed  echo ok"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("policy records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func arg(r audit.Record, name string) string {
	for _, a := range r.Args {
		if a.Name == name {
			return a.Value
		}
	}
	return ""
}
