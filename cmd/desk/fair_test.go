package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/testenv"
)

// Fair shares against a real desk serve with workers (the tenant server of
// tenant_test.go): every bound refuses its holder with 429 (a workspace's
// or a token's share) or 503 (the server's), naming the bound and its flag,
// while another workspace still gets its slot; freeing one gives it back.

// startFairServer is a tenant server with the sandbox backend when
// sandboxed (its state directory removed after the server stopped).
func startFairServer(t *testing.T, sandboxed bool, extra ...string) *tenantServer {
	t.Helper()
	if !sandboxed {
		return startTenantServer(t, extra...)
	}
	sandboxtest.Require(t)
	data, _ := sandboxData(t)
	return startTenantServerAt(t, data, append([]string{"--sandbox", "runc"}, extra...)...)
}

// startTiers starts a fair server (startFairServer) whose bound --max-FLAG
// admits 3 on the server, 2 per workspace and 1 per token
// (--max-FLAG-per-workspace, --max-FLAG-per-token), with the workspaces a, b
// and c, and mints two tokens of a: the first's id and token, the second's
// token.
func startTiers(t *testing.T, sandboxed bool, flag string) (s *tenantServer, id1, t1, t2 string) {
	t.Helper()
	s = startFairServer(t, sandboxed, "--max-"+flag, "3", "--max-"+flag+"-per-workspace", "2", "--max-"+flag+"-per-token", "1")
	for _, ws := range []string{"a", "b", "c"} {
		mustDeskAt(t, s, "ws", "create", ws)
	}
	id1, t1 = s.mint(t, "a")
	_, t2 = s.mint(t, "a")
	return s, id1, t1, t2
}

// echoIn runs "echo in WS" in the sandbox of ws and waits for its record;
// its Status holds the HTTP status too, and its Error the response's body.
func (s *tenantServer) echoIn(t *testing.T, ws string) execRecord {
	t.Helper()
	code, b := s.api(t, "POST", "/v1/workspaces/"+ws+"/executions?wait=1", map[string]any{"source": "echo in " + ws, "backend": "sandbox"})
	var r execRecord
	json.Unmarshal(b, &r)
	r.Status, r.Error = fmt.Sprintf("%d %s", code, r.Status), r.Error+string(b)
	return r
}

// call sends one request with token and returns the status and body.
func (s *tenantServer) call(t *testing.T, token, method, path string, body any, header ...string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang guard
	defer cancel()
	return s.request(t, ctx, token, method, path, body, header...)
}

// mint makes a workspace token of ws with every scope: its id and secret.
func (s *tenantServer) mint(t *testing.T, ws string) (id, secret string) {
	t.Helper()
	code, b := s.api(t, "POST", "/v1/tokens", map[string]any{"workspace": ws, "scopes": []string{"read", "write", "exec"}})
	var m struct {
		Token struct {
			ID string `json:"id"`
		} `json:"token"`
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal(b, &m); code != 201 || err != nil {
		t.Fatalf("mint a token of %s: %d %s", ws, code, b)
	}
	return m.Token.ID, m.Secret
}

// start starts an execution as token and returns the status, the
// execution's id and the body.
func (s *tenantServer) start(t *testing.T, token, ws string, req map[string]any) (int, string, []byte) {
	t.Helper()
	code, b := s.call(t, token, "POST", "/v1/workspaces/"+ws+"/executions", req)
	var r execRecord
	json.Unmarshal(b, &r)
	return code, r.ID, b
}

// mustStart starts an execution that must be admitted.
func (s *tenantServer) mustStart(t *testing.T, token, ws string, req map[string]any) string {
	t.Helper()
	code, id, b := s.start(t, token, ws, req)
	if code != 201 {
		t.Fatalf("start in %s: %d %s", ws, code, b)
	}
	return id
}

// end kills execution id of ws and waits for its end (its event stream
// ends with its exit event).
func (s *tenantServer) end(t *testing.T, ws, id string) {
	t.Helper()
	if code, b := s.api(t, "POST", "/v1/workspaces/"+ws+"/executions/"+id+"/kill", map[string]any{"signal": "KILL"}); code != 202 {
		t.Fatalf("kill %s: %d %s", id, code, b)
	}
	code, b := s.call(t, s.token, "GET", "/v1/workspaces/"+ws+"/executions/"+id+"/events", nil, "Accept", "application/x-ndjson")
	if code != 200 || !bytes.Contains(b, []byte(`"type":"exit"`)) {
		t.Fatalf("events of %s: %d %s", id, code, b)
	}
}

// wantRefused checks a refusal: status, code too_many and the message.
func wantRefused(t *testing.T, what string, code int, body []byte, status int, msg string) {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	json.Unmarshal(body, &e)
	if code != status || e.Error.Code != "too_many" || e.Error.Message != msg {
		t.Fatalf("%s: %d %s, want %d too_many %q", what, code, body, status, msg)
	}
}

// metric reads one value of the server's /metrics: name{kind="kind"}.
func (s *tenantServer) metric(t *testing.T, name, kind string) float64 {
	t.Helper()
	code, b := s.api(t, "GET", "/metrics", nil)
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	prefix := name + `{kind="` + kind + `"} `
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}

var (
	jsLoop  = map[string]any{"source": "for (;;) {}", "backend": "js", "timeout": "10m"}
	sleeper = map[string]any{"source": "sleep 600", "backend": "shell", "timeout": "10m"}
	service = map[string]any{"source": "sleep 3000", "backend": "sandbox", "detached": true}
)

// TestFair_JS: js executions per token, per workspace and on the server;
// a worker killed while it holds server-wide js slots gives them back.
func TestFair_JS(t *testing.T) {
	s, id1, t1, t2 := startTiers(t, false, "js")

	first := s.mustStart(t, t1, "a", jsLoop)
	code, _, b := s.start(t, t1, "a", jsLoop)
	wantRefused(t, "t1's second", code, b, 429, "token "+id1+" holds 1 of its 1 running js executions in workspace a (--max-js-per-token)")
	s.mustStart(t, t2, "a", jsLoop) // another token of a has its own share
	code, _, b = s.start(t, s.token, "a", jsLoop)
	wantRefused(t, "a's third (the admin's)", code, b, 429, "workspace a holds 2 of its 2 running js executions (--max-js-per-workspace)")
	s.mustStart(t, s.token, "b", jsLoop) // b is not refused because of a
	code, _, b = s.start(t, s.token, "c", jsLoop)
	wantRefused(t, "c, the server full", code, b, 503, "the server holds 3 of its 3 running js executions, across all workspaces (--max-js)")
	// Shell executions are not js: c still runs them.
	if r := s.exec(t, "c", "echo still", ""); r.Stdout != "still\n" {
		t.Fatalf("c's shell execution: %+v", r)
	}
	// An end gives the token its share back.
	s.end(t, "a", first)
	s.mustStart(t, t1, "a", jsLoop)

	// a's worker dies holding two of the server's three slots: they come
	// back (its executions are gone with it).
	if held := s.metric(t, "desk_slots_held", "js"); held != 3 {
		t.Fatalf("%v js slots held, want 3", held)
	}
	if err := syscall.Kill(workerOf(t, s.cmd.Process.Pid, "a"), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, time.Minute, "the dead worker's slots to come back", func() bool { return s.metric(t, "desk_slots_held", "js") == 1 })
	s.mustStart(t, s.token, "c", jsLoop)
	s.mustStart(t, s.token, "a", jsLoop) // a's next worker
}

// TestFair_Executions: running executions of every backend per token and
// per workspace (no server-wide bound: each workspace's worker has its
// own memory, CPU and pids limits).
func TestFair_Executions(t *testing.T) {
	s := startFairServer(t, false, "--max-executions-per-workspace", "2", "--max-executions-per-token", "1")
	mustDeskAt(t, s, "ws", "create", "a")
	mustDeskAt(t, s, "ws", "create", "b")
	id1, t1 := s.mint(t, "a")
	_, t2 := s.mint(t, "a")
	first := s.mustStart(t, t1, "a", sleeper)
	code, _, b := s.start(t, t1, "a", jsLoop) // js counts too
	wantRefused(t, "t1's second", code, b, 429, "token "+id1+" holds 1 of its 1 running executions in workspace a (--max-executions-per-token)")
	s.mustStart(t, t2, "a", sleeper)
	code, _, b = s.start(t, s.token, "a", sleeper)
	wantRefused(t, "a's third (the admin's)", code, b, 429, "workspace a holds 2 of its 2 running executions (--max-executions-per-workspace)")
	s.mustStart(t, s.token, "b", sleeper)
	s.mustStart(t, s.token, "b", sleeper)
	s.end(t, "a", first)
	s.mustStart(t, t1, "a", sleeper)
}

// TestFair_Services: services per token, per workspace and on the server.
func TestFair_Services(t *testing.T) {
	s, id1, t1, t2 := startTiers(t, true, "services")
	first := s.mustStart(t, t1, "a", service)
	code, _, b := s.start(t, t1, "a", service)
	wantRefused(t, "t1's second", code, b, 429, "token "+id1+" holds 1 of its 1 services in workspace a (--max-services-per-token)")
	s.mustStart(t, t2, "a", service)
	code, _, b = s.start(t, s.token, "a", service)
	wantRefused(t, "a's third (the admin's)", code, b, 429, "workspace a holds 2 of its 2 services (--max-services-per-workspace)")
	bsvc := s.mustStart(t, s.token, "b", service)
	code, _, b = s.start(t, s.token, "c", service)
	wantRefused(t, "c, the server full", code, b, 503, "the server holds 3 of its 3 services, across all workspaces (--max-services)")
	if r := s.exec(t, "c", "echo still", ""); r.Stdout != "still\n" {
		t.Fatalf("c's execution: %+v", r)
	}
	// An end gives the token its share back, and the server its slot.
	s.end(t, "a", first)
	s.mustStart(t, t1, "a", service)
	code, _, b = s.start(t, s.token, "c", service)
	wantRefused(t, "c, the server still full", code, b, 503, "the server holds 3 of its 3 services, across all workspaces (--max-services)")
	s.end(t, "b", bsvc)
	s.mustStart(t, s.token, "c", service)
}

// TestFair_ServiceLife: a service lives at most --max-service-life: one
// that asks for no timeout gets it, one that asks for more is refused, and
// one past it ends timed out, which frees its share.
func TestFair_ServiceLife(t *testing.T) {
	s := startFairServer(t, true, "--max-service-life", "2s", "--max-services-per-workspace", "1")
	mustDeskAt(t, s, "ws", "create", "a")
	code, _, b := s.start(t, s.token, "a", map[string]any{"source": "sleep 3000", "backend": "sandbox", "detached": true, "timeout": "1h"})
	if code != 400 || !strings.Contains(string(b), "timeout") {
		t.Fatalf("a service asking to outlive --max-service-life: %d %s", code, b)
	}
	id := s.mustStart(t, s.token, "a", service)
	code, b = s.api(t, "GET", "/v1/workspaces/a/executions/"+id, nil)
	var rec struct {
		TimeoutNS int64 `json:"timeout_ns"`
	}
	if json.Unmarshal(b, &rec) != nil || rec.TimeoutNS != int64(2*time.Second) {
		t.Fatalf("a service without a timeout: %d %s, want --max-service-life's", code, b)
	}
	code, b = s.call(t, s.token, "GET", "/v1/workspaces/a/executions/"+id+"/events", nil, "Accept", "application/x-ndjson")
	if code != 200 || !bytes.Contains(b, []byte(`"status":"timed-out"`)) {
		t.Fatalf("the service past its life: %d %s", code, b)
	}
	s.mustStart(t, s.token, "a", service) // its share is free again
}

// TestFair_Shells: interactive shells per token, per workspace and on the
// server.
func TestFair_Shells(t *testing.T) {
	s, id1, t1, t2 := startTiers(t, true, "shells")
	open := func(token, ws string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
		defer cancel()
		conn, _, err := websocket.Dial(ctx, s.url+"/v1/workspaces/"+ws+"/shell", &websocket.DialOptions{
			HTTPHeader: http.Header{"Authorization": {"Bearer " + token}},
		})
		if err != nil {
			t.Fatalf("open a shell in %s: %v", ws, err)
		}
		t.Cleanup(func() { conn.CloseNow() })
	}
	refused := func(token, ws string, status int, msg string) {
		t.Helper()
		code, b := s.call(t, token, "GET", "/v1/workspaces/"+ws+"/shell", nil, "Connection", "Upgrade", "Upgrade", "websocket",
			"Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		wantRefused(t, "a shell in "+ws, code, b, status, msg)
	}
	open(t1, "a")
	refused(t1, "a", 429, "token "+id1+" holds 1 of its 1 interactive shells in workspace a (--max-shells-per-token)")
	open(t2, "a")
	refused(s.token, "a", 429, "workspace a holds 2 of its 2 interactive shells (--max-shells-per-workspace)")
	open(s.token, "b")
	refused(s.token, "c", 503, "the server holds 3 of its 3 interactive shells, across all workspaces (--max-shells)")
}

// TestFair_Sandboxes: live sandboxes on the server (a workspace has at most
// one): an idle one is stopped when another workspace needs its slot, a
// busy one is not, and the workspace that finds every slot busy is refused
// before its execution starts.
func TestFair_Sandboxes(t *testing.T) {
	s := startFairServer(t, true, "--max-sandboxes", "1")
	for _, ws := range []string{"a", "b"} {
		mustDeskAt(t, s, "ws", "create", ws)
	}
	idle := func() bool { return s.metric(t, "desk_slots_idle", "sandbox") == 1 }
	if r := s.echoIn(t, "a"); r.Stdout != "in a\n" {
		t.Fatalf("a: %+v", r)
	}
	pollUntil(t, time.Minute, "a's idle sandbox to be marked idle", idle)
	// b takes a's slot: a's idle sandbox is stopped for it.
	if r := s.echoIn(t, "b"); r.Stdout != "in b\n" {
		t.Fatalf("b, with a's sandbox idle: %+v", r)
	}
	if held := s.metric(t, "desk_slots_held", "sandbox"); held != 1 {
		t.Fatalf("%v sandbox slots held", held)
	}
	if !strings.Contains(s.log.String(), "reclaimed: another workspace needed its slot") {
		t.Errorf("a's sandbox was not stopped as reclaimed; the log:\n%s", s.log.String())
	}
	// b's sandbox busy with a service: a is refused before it starts.
	svc := s.mustStart(t, s.token, "b", service)
	code, _, b := s.start(t, s.token, "a", map[string]any{"source": "echo in a", "backend": "sandbox"})
	wantRefused(t, "a with b's sandbox busy", code, b, 503, "the server holds 1 of its 1 live sandboxes, across all workspaces (--max-sandboxes)")
	if r := s.exec(t, "a", "echo shell", ""); r.Stdout != "shell\n" {
		t.Fatalf("a's shell execution: %+v", r)
	}
	// The service's end leaves b's sandbox idle: a gets the slot again.
	s.end(t, "b", svc)
	pollUntil(t, time.Minute, "b's sandbox to be marked idle", idle)
	if r := s.echoIn(t, "a"); r.Stdout != "in a\n" {
		t.Fatalf("a after b's service ended: %+v", r)
	}
}

// TestFair_InProcessSandboxes: without workers the sandbox backend bounds
// live sandboxes itself (the least recently used idle one stopped past
// --max-sandboxes); every one busy, a sandbox execution is refused with the
// same 503 as with workers, before it starts.
func TestFair_InProcessSandboxes(t *testing.T) {
	s := startFairServer(t, true, "--workers=false", "--max-sandboxes", "1")
	for _, ws := range []string{"a", "b"} {
		mustDeskAt(t, s, "ws", "create", ws)
	}
	if r := s.echoIn(t, "a"); r.Stdout != "in a\n" {
		t.Fatalf("a: %+v", r)
	}
	if r := s.echoIn(t, "b"); r.Stdout != "in b\n" {
		t.Fatalf("b, with a's sandbox idle: %+v", r)
	}
	svc := s.mustStart(t, s.token, "b", service)
	code, _, b := s.start(t, s.token, "a", map[string]any{"source": "echo in a", "backend": "sandbox"})
	wantRefused(t, "a with b's sandbox busy", code, b, 503, "the server holds 1 of its 1 live sandboxes, across all workspaces (--max-sandboxes)")
	s.end(t, "b", svc)
	if r := s.echoIn(t, "a"); r.Stdout != "in a\n" {
		t.Fatalf("a after b's service ended: %+v", r)
	}
}

// TestFair_InProcess: the same shares without workers (every workspace in
// desk serve's process, the server-wide pool there).
func TestFair_InProcess(t *testing.T) {
	s := startFairServer(t, false, "--workers=false", "--max-js", "2", "--max-js-per-workspace", "1")
	for _, ws := range []string{"a", "b", "c"} {
		mustDeskAt(t, s, "ws", "create", ws)
	}
	first := s.mustStart(t, s.token, "a", jsLoop)
	code, _, b := s.start(t, s.token, "a", jsLoop)
	wantRefused(t, "a's second", code, b, 429, "workspace a holds 1 of its 1 running js executions (--max-js-per-workspace)")
	s.mustStart(t, s.token, "b", jsLoop)
	code, _, b = s.start(t, s.token, "c", jsLoop)
	wantRefused(t, "c, the server full", code, b, 503, "the server holds 2 of its 2 running js executions, across all workspaces (--max-js)")
	s.end(t, "a", first)
	s.mustStart(t, s.token, "c", jsLoop)
}

// TestFair_Settings: --settings gives desk serve's flags from a JSON file;
// the command line wins; a name that is no flag is refused.
func TestFair_Settings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "serve.json")
	os.WriteFile(file, []byte(`{"max-js-per-workspace": 1, "max-js": 5, "log-level": "info", "workers": false}`), 0o600)
	s := startFairServer(t, false, "--settings", file, "--max-js", "1")
	mustDeskAt(t, s, "ws", "create", "a")
	mustDeskAt(t, s, "ws", "create", "b")
	s.mustStart(t, s.token, "a", jsLoop)
	code, _, b := s.start(t, s.token, "a", jsLoop)
	wantRefused(t, "a's second", code, b, 429, "workspace a holds 1 of its 1 running js executions (--max-js-per-workspace)")
	code, _, b = s.start(t, s.token, "b", jsLoop)
	wantRefused(t, "b, the server full", code, b, 503, "the server holds 1 of its 1 running js executions, across all workspaces (--max-js)")

	os.WriteFile(file, []byte(`{"max-jss": 1}`), 0o600)
	wantFail(t, 2, `"max-jss" is not a flag of desk serve`, "serve", "--settings", file, "--data", filepath.Join(dir, "data"))
	os.WriteFile(file, []byte(`{"max-js": -1}`), 0o600)
	wantFail(t, 2, "--max-js must not be negative", "serve", "--settings", file, "--data", filepath.Join(dir, "data"))
}

// cpuTicks is the CPU time (user + system, in clock ticks) pid has used,
// its threads included.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14
	st, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	return ut + st
}

// cpuLoad starts a desk serve whose workers have CPU weight weight, not in
// a test cgroup of its own, so that the workers of two such servers are
// sibling cgroups; it runs 4 CPU-bound js loops in its workspace and
// returns its worker's pid.
func cpuLoad(t *testing.T, weight int) int {
	t.Helper()
	testenv.NeedRoot(t)
	const token = "fair-cpu-admin-token-0123456789"
	p := startDeskProcess(t, filepath.Join(t.TempDir(), "data"), token,
		"--sandbox", "off", "--worker-memory", strconv.Itoa(512<<20), "--worker-cpu-weight", strconv.Itoa(weight))
	s := &tenantServer{deskProcess: p, token: token}
	if code, b := s.api(t, "POST", "/v1/workspaces", map[string]any{"name": "a"}); code != 201 {
		t.Fatalf("create: %d %s", code, b)
	}
	for range 4 {
		s.mustStart(t, s.token, "a", jsLoop)
	}
	return workerOf(t, p.cmd.Process.Pid, "a")
}

// cpuRatio is the CPU time worker b used over worker a's while both
// contend, measured over 4 CPU-seconds of the two.
func cpuRatio(t *testing.T, a, b int) float64 {
	t.Helper()
	a0, b0 := cpuTicks(t, a), cpuTicks(t, b)
	var da, db int64
	pollUntil(t, 2*time.Minute, "4 CPU-seconds used by the two workers", func() bool {
		da, db = cpuTicks(t, a)-a0, cpuTicks(t, b)-b0
		return da+db >= 400 // USER_HZ is 100
	})
	t.Logf("CPU ticks over the measure: %d and %d", da, db)
	return float64(db) / float64(max(da, 1))
}

// TestFair_CPUSharedByWeight: CPU is shared by weight between workers
// (--worker-cpu-weight, a cgroup per worker): two workers, each running
// more CPU-bound loops than the machine has cores, get CPU in the ratio of
// their weights — about 1/4 for weights 100 and 400, about 1 for equal
// weights. Ratios of CPU time measured under contention, no clock.
func TestFair_CPUSharedByWeight(t *testing.T) {
	t.Run("100 against 400", func(t *testing.T) {
		heavy, light := cpuLoad(t, 400), cpuLoad(t, 100)
		for pid, w := range map[int]int{heavy: 400, light: 100} {
			if g := cpuGroup(t, pid); !strings.HasPrefix(path.Base(g), "desk-worker-") || !strings.HasSuffix(g, "-"+strconv.Itoa(pid)) {
				t.Fatalf("worker %d (weight %d) is in cpu cgroup %q, not one of its own", pid, w, g)
			}
		}
		r := cpuRatio(t, heavy, light)
		t.Logf("CPU of the weight-100 worker over the weight-400 one: %.2f", r)
		if r > 0.5 {
			t.Errorf("the weight-100 worker got %.2f of the weight-400 one's CPU, want about 0.25 (at most 0.5)", r)
		}
	})
	t.Run("equal weights", func(t *testing.T) {
		r := cpuRatio(t, cpuLoad(t, 100), cpuLoad(t, 100))
		t.Logf("CPU of one weight-100 worker over another: %.2f", r)
		if r < 0.5 || r > 2 {
			t.Errorf("two workers of equal weight got CPU in the ratio %.2f, want about 1", r)
		}
	})
}

// cpuGroup is pid's cgroup in the cpu controller (v1) or its v2 group.
func cpuGroup(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	v2 := ""
	for line := range strings.Lines(string(b)) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			v2 = parts[2]
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "cpu" {
				return parts[2]
			}
		}
	}
	return v2
}
