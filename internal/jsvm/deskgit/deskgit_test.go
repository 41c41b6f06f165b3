package deskgit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/gitws/gittest"
	"github.com/desk-dev/desk/internal/jsvm"
	"github.com/desk-dev/desk/internal/jsvm/deskgit"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// env is a store with a run.Runtime whose js backend offers desk:git, and
// whose executions' network is net (nil: none).
type env struct {
	t  *testing.T
	fs *vfs.FS
	rt *run.Runtime
}

func newEnv(t *testing.T, net http.RoundTripper) *env {
	t.Helper()
	ctx := context.Background()
	f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := f.MkdirAll(ctx, "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := jsvm.New(jsvm.Options{HostModules: deskgit.Modules()})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := run.Open(ctx, f, map[string]run.Backend{jsvm.ID: b}, run.Options{DefaultBackend: jsvm.ID,
		Network: func(context.Context, *run.Job) http.RoundTripper { return net }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return &env{t: t, fs: f, rt: rt}
}

// js runs src as a js execution with the test identity and returns its
// result (the module's default export's value in Value).
func (e *env) js(src string) *run.Result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	vars := map[string]string{"HOME": "/workspace"}
	for k, v := range gittest.Identity {
		vars[k] = v
	}
	x, err := e.rt.Exec(ctx, src, run.ExecOptions{Backend: jsvm.ID, Env: vars, Timeout: 2 * time.Minute})
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := x.Wait(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// value runs src, which must succeed, and decodes its value into v.
func (e *env) value(src string, v any) {
	e.t.Helper()
	res := e.js(src)
	if res.ExitCode != 0 || res.Status != run.StatusCompleted {
		e.t.Fatalf("js: status %s exit %d error %q\nstdout: %s\nstderr: %s", res.Status, res.ExitCode, res.Error, res.Stdout, res.Stderr)
	}
	if err := json.Unmarshal(res.Value, v); err != nil {
		e.t.Fatalf("js value %s: %v", res.Value, err)
	}
}

// loopback is the network of an execution whose workspace's policy allows
// the test server at rawURL (127.0.0.1, named exactly).
func loopback(t *testing.T, rawURL string) *egress.Client {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	n, err := egress.New(egress.Options{Workspace: "ws"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	p, err := egress.Parse("allow " + u.Host)
	if err != nil {
		t.Fatal(err)
	}
	return n.Client(egress.Layer{Source: egress.SourceWorkspace, Policy: p})
}

// TestModule clones from a real git http-backend on 127.0.0.1 through the
// execution's egress network, changes the clone, commits, reads status,
// diff, log and branches, pushes, and has the real git confirm the commit
// both in the server's repository and on an exported copy of the store.
func TestModule(t *testing.T) {
	root := t.TempDir()
	bare := gittest.SmallRepo(t, root, "r")
	srv := gittest.Server(t, root)
	e := newEnv(t, loopback(t, srv.URL))
	repoURL := srv.URL + "/r.git"

	var got struct {
		Dir      string
		Log0     []map[string]any
		Status   []map[string]string
		Diff     string
		Cached   string
		Commit   map[string]string
		Log1     []map[string]any
		Clean    []map[string]string
		Branches []map[string]any
		Push     map[string]string
		Head     string
		Named    bool
	}
	e.value(`import git, { clone, status, diff, add, commit, log, branch, checkout, push, revParse } from 'desk:git';
import fs from 'node:fs/promises';
const out = {};
out.Named = typeof git.cli === 'function' && git.clone === clone;
out.Dir = (await clone(`+jsString(repoURL)+`, 'r')).dir;
const o = { cwd: 'r' };
out.Log0 = await log(o);
await fs.writeFile('r/a.txt', 'alpha\nchanged\n');
await fs.writeFile('r/new file.txt', 'new\n');
out.Status = await status(o);
out.Diff = await diff(o);
await add(['a.txt', 'new file.txt'], o);
out.Cached = await diff({ ...o, cached: true, nameStatus: true });
out.Commit = await commit('three\n\nwith a body', o);
out.Log1 = await log({ ...o, n: 2 });
out.Clean = await status(o);
await checkout('topic', { ...o, create: true });
out.Branches = await branch(o);
await checkout('main', o);
out.Push = await push('origin', 'main', o);
out.Head = await revParse('HEAD', o);
export default () => out;`, &got)

	if !got.Named {
		t.Error("the default export and the named exports differ")
	}
	if got.Dir != "/workspace/r" {
		t.Errorf("clone dir %q", got.Dir)
	}
	if len(got.Log0) != 2 || got.Log0[0]["subject"] != "two" || got.Log0[1]["subject"] != "one" {
		t.Errorf("log after clone: %v", got.Log0)
	}
	// (The server's main has the pushed commit on top by now.)
	if h := gittest.Git(t, bare, "rev-parse", "main~2"); got.Log0[1]["hash"] != strings.TrimSpace(h) {
		t.Errorf("log hash %v, the server has %s", got.Log0[1]["hash"], h)
	}
	if c := got.Log0[0]; c["author"] != "A U Thor" || c["email"] != "author@example.com" || c["date"] != "2023-11-14T23:13:20+01:00" {
		t.Errorf("log entry %v", c)
	}
	wantStatus := []map[string]string{{"path": "a.txt", "index": " ", "worktree": "M"}, {"path": "new file.txt", "index": "?", "worktree": "?"}}
	if !equalJSON(got.Status, wantStatus) {
		t.Errorf("status %v, want %v", got.Status, wantStatus)
	}
	if !strings.Contains(got.Diff, "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n alpha\n+changed\n") {
		t.Errorf("diff:\n%s", got.Diff)
	}
	if got.Cached != "M\ta.txt\nA\tnew file.txt\n" {
		t.Errorf("diff --cached --name-status: %q", got.Cached)
	}
	if got.Commit["branch"] != "main" || len(got.Commit["hash"]) != 40 || !strings.Contains(got.Commit["stdout"], "three") {
		t.Errorf("commit: %v", got.Commit)
	}
	if len(got.Log1) != 2 || got.Log1[0]["hash"] != got.Commit["hash"] || got.Log1[0]["message"] != "three\n\nwith a body" || got.Log1[0]["subject"] != "three" {
		t.Errorf("log after commit: %v", got.Log1)
	}
	if ps, _ := got.Log1[0]["parents"].([]any); len(ps) != 1 || ps[0] != got.Log0[0]["hash"] {
		t.Errorf("parents %v, want [%v]", got.Log1[0]["parents"], got.Log0[0]["hash"])
	}
	if len(got.Clean) != 0 {
		t.Errorf("status after commit: %v", got.Clean)
	}
	wantBranches := []map[string]any{{"name": "main", "hash": got.Commit["hash"], "current": false}, {"name": "topic", "hash": got.Commit["hash"], "current": true}}
	if !equalJSON(got.Branches, wantBranches) {
		t.Errorf("branches %v, want %v", got.Branches, wantBranches)
	}
	if !strings.Contains(got.Push["stderr"], "main -> main") {
		t.Errorf("push: %v", got.Push)
	}
	if got.Head != got.Commit["hash"] {
		t.Errorf("revParse HEAD %q, commit %q", got.Head, got.Commit["hash"])
	}

	// The real git: the server's repository has the commit, fsck is clean.
	if h := strings.TrimSpace(gittest.Git(t, bare, "rev-parse", "main")); h != got.Commit["hash"] {
		t.Errorf("the server's main is %s, the js commit %s", h, got.Commit["hash"])
	}
	gittest.Git(t, bare, "fsck", "--strict")
	if msg := gittest.Git(t, bare, "log", "-1", "--format=%B", "main"); msg != "three\n\nwith a body\n\n" {
		t.Errorf("the server's message %q", msg)
	}
	// And on a copy of the store: the same history, a clean status.
	dst := filepath.Join(t.TempDir(), "r")
	gittest.Export(t, e.fs, "/workspace/r", dst)
	gittest.Git(t, dst, "fsck", "--strict")
	if s := gittest.Git(t, dst, "status", "--porcelain"); s != "" {
		t.Errorf("the real git's status of the exported clone: %q", s)
	}
	if l := gittest.Git(t, dst, "log", "--format=%H %s", "main"); !strings.HasPrefix(l, got.Commit["hash"]+" three\n") {
		t.Errorf("the real git's log of the exported clone:\n%s", l)
	}
}

// TestErrors: a failing command rejects with git's message, code ERR_GIT,
// its exit status and stderr; cli returns the status instead; bad
// arguments are TypeErrors' codes; with no network, and with a policy that
// refuses the host, the clone says why.
func TestErrors(t *testing.T) {
	root := t.TempDir()
	gittest.SmallRepo(t, root, "r")
	srv := gittest.Server(t, root)
	var got map[string]any
	newEnv(t, nil).value(`import git from 'desk:git';
const out = {};
const catching = async (k, f) => { try { await f(); out[k] = 'no error'; } catch (e) { out[k] = { message: e.message, code: e.code, exitCode: e.exitCode, stderr: e.stderr, argv: e.argv, isError: e instanceof Error }; } };
await catching('notRepo', () => git.status());
out.cli = await git.cli(['git', 'status']);
out.cliOK = await git.cli(['init', '-q', 'x']);
await catching('badRef', () => git.checkout('nope', { cwd: 'x' }));
await catching('dash', () => git.checkout('--orphan=x', { cwd: 'x' }));
await catching('unknownOption', () => git.log({ cwd: 'x', count: 3 }));
await catching('badType', () => git.log({ cwd: 'x', n: 'three' }));
await catching('noNet', () => git.clone(`+jsString(srv.URL+"/r.git")+`));
await catching('emptyLog', () => git.log({ cwd: 'x' }));
export default () => out;`, &got)
	check := func(k, msg, code string, exit float64) {
		t.Helper()
		m, ok := got[k].(map[string]any)
		if !ok {
			t.Errorf("%s: %v", k, got[k])
			return
		}
		if !strings.Contains(m["message"].(string), msg) || m["code"] != code || m["isError"] != true {
			t.Errorf("%s: %v, want message with %q, code %s", k, m, msg, code)
		}
		if exit != 0 && m["exitCode"] != exit {
			t.Errorf("%s: exitCode %v, want %v", k, m["exitCode"], exit)
		}
	}
	check("notRepo", "not a git repository", "ERR_GIT", 128)
	if m := got["notRepo"].(map[string]any); !strings.HasPrefix(m["stderr"].(string), "fatal: not a git repository") || m["argv"].([]any)[1] != "status" {
		t.Errorf("notRepo: %v", m)
	}
	if c := got["cli"].(map[string]any); c["code"] != float64(128) || !strings.HasPrefix(c["stderr"].(string), "fatal: not a git repository") || c["stdout"] != "" {
		t.Errorf("cli: %v", c)
	}
	if c := got["cliOK"].(map[string]any); c["code"] != float64(0) {
		t.Errorf("cli init: %v", c)
	}
	check("badRef", "did not match any file(s) known to git", "ERR_GIT", 1)
	check("dash", "starts with '-'", "ERR_INVALID_ARG_VALUE", 0)
	check("unknownOption", `unknown option "count"`, "ERR_INVALID_ARG_VALUE", 0)
	check("badType", "option n must be a number", "ERR_INVALID_ARG_TYPE", 0)
	check("noNet", "network access is not configured", "ERR_GIT", 128)
	check("emptyLog", "does not have any commits yet", "ERR_GIT", 128)

	// A policy that does not name the server's address: the egress
	// refusal, naming the host and the policy, is the clone's error.
	n, err := egress.New(egress.Options{Workspace: "ws"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	p, err := egress.Parse("allow example.com")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	var refused map[string]any
	newEnv(t, n.Client(egress.Layer{Source: egress.SourceWorkspace, Policy: p})).value(`import git from 'desk:git';
let out;
try { await git.clone(`+jsString(srv.URL+"/r.git")+`); out = 'no error'; } catch (e) { out = { message: e.message, code: e.code }; }
export default () => out;`, &refused)
	if m, _ := refused["message"].(string); !strings.Contains(m, "desk egress: refused") || !strings.Contains(m, u.Hostname()) || !strings.Contains(m, "the workspace's policy") || refused["code"] != "ERR_GIT" {
		t.Errorf("refused clone: %v", refused)
	}
}

// TestOutputBound: a call whose output passes Module.MaxOutputBytes fails
// with E2BIG instead of growing without bound.
func TestOutputBound(t *testing.T) {
	ctx := context.Background()
	f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.MkdirAll(ctx, "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	m := &deskgit.Module{MaxOutputBytes: 100}
	fns := m.Functions(ctx, &run.Job{FS: f, Cwd: "/workspace", Env: map[string]string{}})
	if _, err := fns["cli"](ctx, json.RawMessage(`[["init","-q"]]`)); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := f.WriteFile(ctx, fmt.Sprintf("/workspace/a-file-with-a-long-name-%d.txt", i), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = fns["cli"](ctx, json.RawMessage(`[["status","--porcelain"]]`))
	var coded interface{ Code() string }
	if err == nil || !errors.As(err, &coded) || coded.Code() != "E2BIG" {
		t.Errorf("status past 100 bytes: %v", err)
	}
	if _, err := fns["cli"](ctx, json.RawMessage(`[["status","--porcelain","--","a-file-with-a-long-name-1.txt"]]`)); err != nil {
		t.Errorf("status within the bound: %v", err)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
