package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/sandbox"
)

// TestServe_Sandbox runs desk serve with the sandbox backend, a host
// directory per workspace standing in for the FUSE mount.
func TestServe_Sandbox(t *testing.T) {
	if err := sandbox.Available(""); err != nil {
		if os.Getenv("DESK_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("DESK_REQUIRE_SANDBOX=1 but %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	root := t.TempDir()
	for d := root; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o711)
	}
	old := sandboxMount
	t.Cleanup(func() { sandboxMount = old })
	sandboxMount = func(ctx context.Context, ws sandbox.Workspace) (sandbox.Mount, error) {
		dir := filepath.Join(root, ws.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return sandbox.Mount{}, err
		}
		return sandbox.Mount{Dir: dir}, os.Chown(dir, sandbox.DefaultHostID, sandbox.DefaultHostID)
	}
	data := filepath.Join(t.TempDir(), "data")
	state, err := sandboxDir(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	_, errb, stop := startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	if !strings.Contains(errb.String(), "backends=sandbox,shell") {
		t.Fatalf("startup log:\n%s", errb.String())
	}
	mustDesk(t, nil, "ws", "create", "demo")
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "hostname; echo hi > f; cat /workspace/f"); got != "demo\nhi\n" {
		t.Errorf("exec --backend sandbox = %q", got)
	}
	// auto sends what the shell lacks to the sandbox.
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "auto", "--", "getent passwd root | cut -d: -f6"); got != "/root\n" {
		t.Errorf("exec --backend auto = %q", got)
	}
	if code := stop(); code != 0 {
		t.Errorf("desk serve: exit %d; stderr:\n%s", code, errb.String())
	}
	// Stopping the server stopped the sandbox: no bundle is left.
	ents, _ := os.ReadDir(filepath.Join(state, "state"))
	for _, e := range ents {
		t.Errorf("left in the sandbox state directory: %s", e.Name())
	}
}
