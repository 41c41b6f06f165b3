package main

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/audit"
)

// TestAudit_PathRefusals: a path rule's refusals leave policy records in
// the audit journal — who, which path, which rule, which access — through
// the file API, the shell and the sandbox's mount (where the kernel looks the
// denied directory up first), aggregated per call: a
// loop reading 40 denied files is one record with its count, not 40.
func TestAudit_PathRefusals(t *testing.T) {
	serveSandboxDemo(t, "--log-level", "warn")
	mustDesk(t, nil, "exec", "demo", "--", "mkdir -p /workspace/secret /workspace/docs && for i in $(seq 40); do echo $i > /workspace/secret/f$i; done; echo d > /workspace/docs/a")
	mustDesk(t, nil, "ws", "policy", "demo", "--path", "deny secret/**", "--path", "read docs/**")

	t.Setenv("DESK_SESSION", "api")
	if _, _, code := desk(t, nil, "fs", "-w", "demo", "cat", "/workspace/secret/f1"); code == 0 {
		t.Fatal("the API read a denied file")
	}
	t.Setenv("DESK_SESSION", "shell")
	if out := mustDesk(t, nil, "exec", "demo", "--", "n=0; for i in $(seq 40); do cat /workspace/secret/f$i 2>/dev/null && n=$((n+1)); done; echo $n read"); out != "0 read\n" {
		t.Fatalf("shell: %q", out)
	}
	t.Setenv("DESK_SESSION", "sandbox")
	if out, _, _ := desk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "cat /workspace/secret/f2 2>/dev/null || echo no-read; echo x > /workspace/docs/a 2>/dev/null || echo no-write"); out != "no-read\nno-write\n" {
		t.Fatalf("sandbox: %q", out)
	}

	got := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(mustDesk(t, nil, "audit", "demo", "--json")), "\n") {
		var r audit.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Kind != audit.KindPolicy || r.Action != "path" {
			continue
		}
		if r.Actor == "" || r.Labels.Session == "" {
			t.Errorf("a refusal's record names no actor or session: %+v", r)
		}
		n, _ := strconv.Atoi(arg(r, "count"))
		if n < 1 {
			t.Errorf("count %q in %+v", arg(r, "count"), r)
		}
		line := r.Decision + " " + r.Rule + " " + arg(r, "access") + " " + arg(r, "subject") + " " + arg(r, "layer")
		if r.Labels.Session == "shell" {
			// Every read of the loop, in one record (each read may walk
			// the path more than once: at least 40).
			if n < 40 {
				t.Errorf("the shell's loop: count %d, want at least 40", n)
			}
		}
		got[r.Labels.Session] = append(got[r.Labels.Session], line)
	}
	for _, s := range got {
		sort.Strings(s)
	}
	want := map[string][]string{
		"api":     {"denied deny secret/** read /workspace/secret/f1 workspace"},
		"shell":   {"denied deny secret/** read /workspace/secret/f1 workspace"},
		"sandbox": {"denied deny secret/** read /workspace/secret workspace", "denied read docs/** write /workspace/docs/a workspace"},
	}
	for s, w := range want {
		if strings.Join(got[s], "\n") != strings.Join(w, "\n") {
			t.Errorf("session %s: policy records\n%s\nwant\n%s", s, strings.Join(got[s], "\n"), strings.Join(w, "\n"))
		}
	}
}
