package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/testenv"
)

// sandboxData returns a data directory for desk serve or desk mcp --data
// with the sandbox backend, and the sandbox state directory desk makes for
// it (prepared so that the sandbox's root can reach it, and removed at the
// end of the test).
func sandboxData(t *testing.T) (data, state string) {
	t.Helper()
	data = filepath.Join(t.TempDir(), "data")
	state, err := sandboxDir(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	return data, state
}

// serveSandboxDemo needs the sandbox (sandboxtest.Require), gives the test
// a config file of its own, starts desk serve (startServe) on a new data
// directory (sandboxData) with the flags extra, and creates the workspace
// demo; it returns what startServe returns.
func serveSandboxDemo(t *testing.T, extra ...string) (string, *testenv.SyncBuffer, func() int) {
	t.Helper()
	sandboxtest.Require(t)
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	data, _ := sandboxData(t)
	u, errb, stop := startServe(t, append([]string{"--addr", "127.0.0.1:0", "--data", data}, extra...)...)
	mustDesk(t, nil, "ws", "create", "demo")
	return u, errb, stop
}

// TestServe_Sandbox runs desk serve on a fresh data directory with the
// sandbox backend on its real workspace mount (FUSE over the store) and the
// real runc: the shell backend and the sandbox see the same files at the
// same paths, and `desk exec --backend sandbox WS -- npm test` works.
func TestServe_Sandbox(t *testing.T) {
	sandboxtest.Require(t)
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	data, state := sandboxData(t)
	_, errb, stop := startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	if !regexp.MustCompile(`backends=[a-z,]*sandbox[a-z,]*shell`).MatchString(errb.String()) {
		t.Fatalf("startup log:\n%s", errb.String())
	}
	mustDesk(t, nil, "ws", "create", "demo")
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "hostname; echo hi > f; cat /workspace/f; pwd"); got != "demo\nhi\n/workspace\n" {
		t.Errorf("exec --backend sandbox = %q", got)
	}
	// One workspace, two backends, the same paths.
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "shell", "--", "cat /workspace/f; echo from-shell > /workspace/s"); got != "hi\n" {
		t.Errorf("the shell backend reads %q", got)
	}
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "cat s"); got != "from-shell\n" {
		t.Errorf("the sandbox reads %q", got)
	}
	// The sandbox's home is the store's /home/agent: the shell backend reads
	// a dotfile the sandbox wrote there, at the same path.
	mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "echo 'set -o vi' > ~/.inputrc")
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "shell", "--", "cat /home/agent/.inputrc"); got != "set -o vi\n" {
		t.Errorf("the shell backend reads the sandbox's home: %q", got)
	}
	// auto sends what the shell lacks to the sandbox.
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "auto", "--", "getent passwd root | cut -d: -f6"); got != "/home/agent\n" {
		t.Errorf("exec --backend auto = %q", got)
	}

	// An npm project with local dependencies (c → b → a), put into the
	// workspace from the host through the API, packed and installed offline
	// in the sandbox, then npm test.
	src := filepath.Join(t.TempDir(), "proj")
	files := map[string]string{
		"pkgs/a/package.json": `{"name":"a","version":"1.0.0","main":"index.js"}`,
		"pkgs/a/index.js":     `module.exports = () => "a";`,
		"pkgs/b/package.json": `{"name":"b","version":"1.0.0","main":"index.js","dependencies":{"a":"file:/workspace/tgz/a-1.0.0.tgz"}}`,
		"pkgs/b/index.js":     `const a = require("a"); module.exports = () => "b(" + a() + ")";`,
		"pkgs/c/package.json": `{"name":"c","version":"1.0.0","main":"index.js","dependencies":{"a":"file:/workspace/tgz/a-1.0.0.tgz","b":"file:/workspace/tgz/b-1.0.0.tgz"}}`,
		"pkgs/c/index.js":     `const a = require("a"), b = require("b"); module.exports = () => "c(" + b() + "," + a() + ")";`,
		"package.json":        `{"name":"app","version":"1.0.0","private":true,"dependencies":{"c":"file:/workspace/tgz/c-1.0.0.tgz"},"scripts":{"test":"node test.js"}}`,
		"test.js":             `const c = require("c"); if (c() !== "c(b(a),a)") { console.error("got", c()); process.exit(1) } console.log("tests pass:", c());`,
	}
	for name, data := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name := range files {
		dest := "/workspace/" + name
		mustDesk(t, nil, "fs", "-w", "demo", "mkdir", "-p", filepath.Dir(dest))
		mustDesk(t, nil, "fs", "-w", "demo", "put", dest, filepath.Join(src, name))
	}
	npmEnv := []string{"--env", "npm_config_cache=/tmp/npm-cache", "--env", "npm_config_update_notifier=false"}
	mustDesk(t, nil, append(append([]string{"exec", "demo", "--backend", "sandbox"}, npmEnv...),
		"--", "mkdir -p tgz && cd tgz && for p in a b c; do npm pack --silent ../pkgs/$p; done && cd .. && npm install --offline --no-audit --no-fund")...)
	if got := mustDesk(t, nil, append(append([]string{"exec", "--backend", "sandbox"}, npmEnv...), "demo", "--", "npm", "test")...); !strings.Contains(got, "tests pass: c(b(a),a)") {
		t.Errorf("npm test:\n%s", got)
	}
	// What npm installed is in the store, for every backend.
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "shell", "--", "cat node_modules/c/package.json | jq -r .name; ls node_modules"); got != "c\na\nb\nc\n" {
		t.Errorf("node_modules through the shell backend: %q", got)
	}

	if code := stop(); code != 0 {
		t.Errorf("desk serve: exit %d; stderr:\n%s", code, errb.String())
	}
	// The workspace's store is consistent.
	dbs, _ := filepath.Glob(filepath.Join(data, "*", "demo.db"))
	if more, _ := filepath.Glob(filepath.Join(data, "demo.db")); len(more) > 0 {
		dbs = append(dbs, more...)
	}
	if len(dbs) != 1 {
		t.Fatalf("the workspace's database: %v", dbs)
	}
	mustDesk(t, nil, "fs", "-db", dbs[0], "check")
	// Stopping the server stopped the sandbox and unmounted its workspace:
	// no bundle and no mount point is left.
	ents, _ := os.ReadDir(filepath.Join(workerState(state, "demo"), "state"))
	for _, e := range ents {
		if e.Name() != "mnt" {
			t.Errorf("left in the sandbox state directory: %s", e.Name())
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(workerState(state, "demo"), "state", "mnt")); len(ents) != 0 {
		t.Errorf("mount points left: %v", ents)
	}
}
