package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/policy"
	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

var bg = context.Background()

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stdioDesk is desk run in-process with args, its standard input and
// output connected to a go-sdk client.
type stdioDesk struct {
	cs      *sdk.ClientSession
	in      *io.PipeWriter     // desk's standard input
	done    chan int           // desk's exit status, once it returns
	started chan struct{}      // a progress notification came
	errb    testenv.SyncBuffer // desk's standard error
}

// startStdio starts desk with args and connects the client.
func startStdio(t *testing.T, args ...string) *stdioDesk {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	d := &stdioDesk{in: inW, done: make(chan int, 1), started: make(chan struct{}, 1)}
	go func() {
		code := run(args, inR, outW, &d.errb)
		outW.Close()
		d.done <- code
	}()
	copts := &sdk.ClientOptions{ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
		select {
		case d.started <- struct{}{}:
		default:
		}
	}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, copts).Connect(bg, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		inW.Close()
		t.Fatalf("connect: %v (desk said: %s)", err, d.errb.String())
	}
	d.cs = cs
	return d
}

// stdioSession is startStdio's client, and a function that ends the
// session and returns desk's exit status and standard error.
func stdioSession(t *testing.T, args ...string) (*sdk.ClientSession, func() (int, string)) {
	t.Helper()
	d := startStdio(t, args...)
	return d.cs, func() (int, string) {
		d.cs.Close()
		d.in.Close()
		return <-d.done, d.errb.String()
	}
}

func callText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(bg, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestMCP_stdioLocal(t *testing.T) {
	data := t.TempDir()
	wantFail(t, 1, "pass --create", "mcp", "--data", data, "--workspace", "proj")
	wantFail(t, 2, "--workspace NAME is required", "mcp", "--data", data)
	cs, stop := stdioSession(t, "mcp", "--data", data, "--workspace", "proj", "--create")
	lt, err := cs.ListTools(bg, nil)
	if err != nil || len(lt.Tools) != 8 {
		t.Fatalf("tools: %v %d", err, len(lt.Tools))
	}
	if got, isErr := callText(t, cs, "write", map[string]any{"path": "hello.txt", "content": "hello\n"}); isErr || !strings.HasPrefix(got, "created /workspace/hello.txt") {
		t.Errorf("write: %q", got)
	}
	if got, _ := callText(t, cs, "exec", map[string]any{"command": "tr a-z A-Z < hello.txt"}); !strings.HasPrefix(got, "HELLO\n[exit code 0 · shell backend") {
		t.Errorf("exec: %q", got)
	}
	if got, _ := callText(t, cs, "exec", map[string]any{"command": "export default (i) => i.n * 2", "backend": "js", "input": map[string]any{"n": 21}}); !strings.Contains(got, "[value] 42") {
		t.Errorf("exec js: %q", got)
	}
	if got, isErr := callText(t, cs, "read", map[string]any{"path": "nope"}); !isErr || !strings.HasPrefix(got, "not_found:") {
		t.Errorf("read error: %q", got)
	}
	if code, errs := stop(); code != 0 {
		t.Errorf("desk mcp exit %d: %s", code, errs)
	}
	// The data directory holds the workspace afterwards.
	out := mustDesk(t, nil, "fs", "-db", filepath.Join(data, "workspaces", "proj.db"), "cat", "/workspace/hello.txt")
	if out != "hello\n" {
		t.Errorf("fs cat: %q", out)
	}
}

func TestMCP_stdioRemote(t *testing.T) {
	ts := newTestServer(t)
	ts.use(t)
	mustDesk(t, nil, "ws", "create", "demo")
	wantFail(t, 1, "(not_found)", "mcp", "--workspace", "ghost")
	wantFail(t, 2, "--create needs --data", "mcp", "--workspace", "demo", "--create")
	cs, stop := stdioSession(t, "mcp", "--workspace", "demo")
	if got, isErr := callText(t, cs, "write", map[string]any{"path": "r.txt", "content": "remote\n"}); isErr {
		t.Errorf("write: %q", got)
	}
	if got, _ := callText(t, cs, "exec", map[string]any{"command": "echo via server", "backend": "lines"}); !strings.HasPrefix(got, "via server\n") {
		t.Errorf("exec: %q", got)
	}
	rr, err := cs.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo/r.txt"})
	if err != nil || rr.Contents[0].Text != "remote\n" {
		t.Errorf("resource: %v", err)
	}
	if code, errs := stop(); code != 0 {
		t.Errorf("exit %d: %s", code, errs)
	}
	if got := mustDesk(t, nil, "fs", "-w", "demo", "cat", "/workspace/r.txt"); got != "remote\n" {
		t.Errorf("fs cat: %q", got)
	}
	// A read-only token offers the read-only tools.
	out := mustDesk(t, nil, "token", "mint", "--workspace", "demo", "--scopes", "read")
	t.Setenv(envToken, strings.TrimSpace(out))
	cs, stop = stdioSession(t, "mcp", "--workspace", "demo")
	lt, _ := cs.ListTools(bg, nil)
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "find,grep,ls,read" {
		t.Errorf("read-only tools: %v", names)
	}
	stop()
}

func TestTools_schema(t *testing.T) {
	for _, f := range []string{"openai", "anthropic", "mcp", "desk"} {
		out := mustDesk(t, nil, "tools", "schema", "--format", f)
		var v []map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil || len(v) != 9 {
			t.Errorf("%s: %v, %d tools", f, err, len(v))
		}
	}
	out := mustDesk(t, nil, "tools", "schema", "--format", "anthropic", "--read-only")
	if strings.Count(out, `"input_schema"`) != 4 {
		t.Errorf("read-only: %s", out)
	}
	out = mustDesk(t, nil, "tools", "schema", "--backends", "shell")
	if !strings.Contains(out, "- shell: ") || strings.Contains(out, "- sandbox: ") {
		t.Errorf("backends: exec description does not follow --backends")
	}
	wantFail(t, 2, `--format "xml"`, "tools", "schema", "--format", "xml")
}

func TestTools_replay(t *testing.T) {
	data := t.TempDir()
	script := filepath.Join("..", "..", "internal", "tools", "testdata", "session.replay.json")
	out, errs, code := desk(t, nil, "tools", "replay", script, "--data", data, "--workspace", "w", "--create")
	if code != 0 || !strings.HasSuffix(out, "13 of 13 steps passed\n") || !strings.HasPrefix(out, "# a small coding session") {
		t.Errorf("replay: exit %d\n%s\n%s", code, out, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	writeFile(t, bad, `[{"tool":"read","input":{"path":"nope"},"expect":{"contains":["x"]}}]`)
	out, _, code = desk(t, nil, "tools", "replay", bad, "--data", data, "--workspace", "w")
	if code != 1 || !strings.Contains(out, "FAIL 1 read: failed: not_found") || !strings.HasSuffix(out, "0 of 1 steps passed\n") {
		t.Errorf("failing replay: exit %d\n%s", code, out)
	}
	wantFail(t, 1, "no such file", "tools", "replay", bad+".missing", "--data", data, "--workspace", "w")
}

// TestMCP_stdioCloseCancels: a client that closes desk mcp's standard input
// while a call runs gets the execution killed, and desk mcp exits at once.
func TestMCP_stdioCloseCancels(t *testing.T) {
	data := t.TempDir()
	d := startStdio(t, "mcp", "--data", data, "--workspace", "w", "--create")
	cs, started, inW, done := d.cs, d.started, d.in, d.done
	params := &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "echo started; sleep 30"}}
	params.SetProgressToken("p")
	go cs.CallTool(bg, params)
	select {
	case <-started: // the execution runs: its first output came as progress
	case <-time.After(30 * time.Second):
		t.Fatal("no progress from the exec call within 30s (hang guard)")
	}
	inW.Close()
	// The sleep has 30s left: desk mcp must not wait for it.
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("desk mcp did not exit within 20s of its input closing (hang guard; the sleep would end at 30s)")
	}
	// The execution was killed, not left to the next open to fail.
	fsys, err := vfs.Open(bg, filepath.Join(data, "workspaces", "w.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	rt, err := deskrun.Open(bg, fsys, map[string]deskrun.Backend{}, deskrun.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	list, err := rt.List(bg, deskrun.ListOptions{})
	if err != nil || len(list) != 1 || list[0].Status != deskrun.StatusCancelled {
		t.Errorf("executions: %v %+v", err, list)
	}
}

// TestMCP_stdioLocalAuto: desk mcp --data routes --backend auto as desk
// serve does: to the shell when it has every command, and, without a
// sandbox (here turned off, which the log says), to nothing otherwise.
func TestMCP_stdioLocalAuto(t *testing.T) {
	data := t.TempDir()
	cs, stop := stdioSession(t, "mcp", "--data", data, "--workspace", "w", "--create", "--sandbox", "off", "--log-level", "info")
	if got, isErr := callText(t, cs, "exec", map[string]any{"command": "echo routed | tr a-z A-Z", "backend": "auto"}); isErr || !strings.HasPrefix(got, "ROUTED\n[exit code 0 · shell backend") {
		t.Errorf("exec auto: %q", got)
	}
	if got, isErr := callText(t, cs, "exec", map[string]any{"command": "getent passwd root", "backend": "auto"}); !isErr || !strings.Contains(got, "no sandbox backend") {
		t.Errorf("exec auto without a sandbox: %q", got)
	}
	code, errs := stop()
	if code != 0 {
		t.Errorf("desk mcp exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, `msg="no sandbox backend" why="turned off (--sandbox off)"`) {
		t.Errorf("the log does not say why there is no sandbox:\n%s", errs)
	}
}

// TestMCP_stdioLocalSandbox: desk mcp --data offers the sandbox backend when
// the host can run it, on the same files as the other tools, and --backend
// auto sends it what the shell lacks; closing desk mcp stops the sandbox.
func TestMCP_stdioLocalSandbox(t *testing.T) {
	sandboxtest.Require(t)
	data, state := sandboxData(t)
	cs, stop := stdioSession(t, "mcp", "--data", data, "--workspace", "demo", "--create")
	if got, isErr := callText(t, cs, "exec", map[string]any{"command": "hostname; echo hi > f; cat /workspace/f; pwd", "backend": "sandbox"}); isErr || !strings.HasPrefix(got, "demo\nhi\n/workspace\n[exit code 0 · sandbox backend") {
		t.Errorf("exec sandbox: %q", got)
	}
	if got, isErr := callText(t, cs, "read", map[string]any{"path": "f"}); isErr || !strings.Contains(got, "hi") {
		t.Errorf("read what the sandbox wrote: %q", got)
	}
	if got, isErr := callText(t, cs, "exec", map[string]any{"command": "getent passwd root | cut -d: -f6", "backend": "auto"}); isErr || !strings.HasPrefix(got, "/home/agent\n[exit code 0 · sandbox backend") {
		t.Errorf("exec auto: %q", got)
	}
	if code, errs := stop(); code != 0 {
		t.Errorf("desk mcp exit %d: %s", code, errs)
	}
	if ents, _ := os.ReadDir(filepath.Join(state, "state", "mnt")); len(ents) != 0 {
		t.Errorf("mount points left: %v", ents)
	}
}

// TestMCP_stdioLocalQuotas: desk mcp --data applies the execution quotas as
// desk serve does — its flags' defaults, the workspace's own limits over
// them — and records its requests and executions in the data directory's
// audit journal, from which a later session reads the day's CPU back.
func TestMCP_stdioLocalQuotas(t *testing.T) {
	data := t.TempDir()
	args := []string{"mcp", "--data", data, "--workspace", "w", "--sandbox", "off", "--max-cpu-per-execution", "200ms", "--max-cpu-per-day", "300ms"}
	cs, stop := stdioSession(t, append(args, "--create")...)
	for i := range 2 {
		// The shell's bound of 1,000,000 loop iterations takes seconds of CPU.
		if got, _ := callText(t, cs, "exec", map[string]any{"command": "while :; do :; done"}); !strings.Contains(got, "exit code 152") || !strings.Contains(got, "CPU limit of 200ms") {
			t.Errorf("busy loop %d under --max-cpu-per-execution 200ms: %q", i, got)
		}
	}
	// Two loops used 400ms or more of the day's 300ms.
	if got, isErr := callText(t, cs, "exec", map[string]any{"command": "true"}); !isErr || !strings.HasPrefix(got, "busy:") || !strings.Contains(got, "of CPU today") || !strings.Contains(got, "desk mcp --max-cpu-per-day") {
		t.Errorf("an execution past the day's CPU: %v %q, want busy naming the flag", isErr, got)
	}
	if code, errs := stop(); code != 0 {
		t.Fatalf("desk mcp exit %d: %s", code, errs)
	}

	// A new session reads the day back from the journal's records.
	cs, stop = stdioSession(t, args...)
	if got, isErr := callText(t, cs, "exec", map[string]any{"command": "true"}); !isErr || !strings.Contains(got, "of CPU today") {
		t.Errorf("the next session's first execution: %v %q, want refused", isErr, got)
	}
	if code, errs := stop(); code != 0 {
		t.Fatalf("desk mcp exit %d: %s", code, errs)
	}

	// The workspace's own limits hold over the flags.
	if err := policy.OpenStore(data).SetLimits("w", policy.Limits{MaxCPUPerDay: -1}); err != nil {
		t.Fatal(err)
	}
	cs, stop = stdioSession(t, args...)
	if got, isErr := callText(t, cs, "exec", map[string]any{"command": "echo ok"}); isErr || !strings.HasPrefix(got, "ok\n") {
		t.Errorf("with the workspace's own max_cpu_per_day none: %v %q", isErr, got)
	}
	if code, errs := stop(); code != 0 {
		t.Fatalf("desk mcp exit %d: %s", code, errs)
	}

	// The journal: every tool call by actor local, and one execution
	// record per execution with its CPU.
	j, err := audit.Open(filepath.Join(data, audit.FileName), audit.Options{Retention: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	recs, _, err := j.Query(bg, audit.Filter{Workspace: "w", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	calls, execs := 0, map[string]int64{}
	for _, r := range recs {
		if r.Actor != mcp.LocalActor {
			t.Errorf("record %d %s: actor %q, want %q", r.ID, r.Action, r.Actor, mcp.LocalActor)
		}
		args := map[string]string{}
		for _, a := range r.Args {
			args[a.Name] = a.Value
		}
		switch {
		case r.Kind == audit.KindMCP && r.Action == "tools/call":
			calls++
		case r.Kind == audit.KindExec:
			cpu, err := strconv.ParseInt(args["cpu_us"], 10, 64)
			if err != nil {
				t.Errorf("execution record %d: cpu_us %q", r.ID, args["cpu_us"])
			}
			execs[r.Outcome]++
			if r.Outcome == "cpu-limit" && cpu < 200_000 {
				t.Errorf("execution record %d: cpu_us %d of a loop stopped at 200ms", r.ID, cpu)
			}
		}
	}
	// Five tool calls; three executions ran (two loops, echo), two were refused.
	if calls != 5 || execs["cpu-limit"] != 2 || execs["completed"] != 1 || len(execs) != 2 {
		t.Errorf("journal: %d tool calls, executions %v; want 5 and 2 cpu-limit, 1 completed", calls, execs)
	}
	if rep, err := j.Verify(bg, ""); err != nil || len(rep.Problems) > 0 {
		t.Errorf("verify: %v %+v", err, rep.Problems)
	}
}
