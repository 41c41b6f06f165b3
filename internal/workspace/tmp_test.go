package workspace_test

import (
	"testing"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell"
	"github.com/desk-dev/desk/internal/workspace"
)

// TestWorkspace_ShellTmp: the shell backend has a /tmp (the store's,
// wspath.Tmp): the idioms that write there work, and what one execution
// left in it the next one reads, also after a reopen.
func TestWorkspace_ShellTmp(t *testing.T) {
	data := t.TempDir()
	opts := workspace.Options{Backends: map[string]run.Backend{"shell": shell.New(shell.Options{})}}
	ws := create(t, data, "tmp", opts)
	exec := func(ws *workspace.Workspace, script string) *run.Result {
		t.Helper()
		ex, err := ws.Runtime().Exec(ctx, script, run.ExecOptions{Backend: "shell"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := ex.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", script, res.ExitCode, res.Stdout, res.Stderr)
		}
		return res
	}
	exec(ws, "mkdir src && echo hi > src/a.txt && tar czf /tmp/src.tgz src && sort -o /tmp/sorted src/a.txt")
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(ctx, data, "tmp", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	res := exec(ws, "stat -c '%A %U' /tmp; tar tzf /tmp/src.tgz; cat /tmp/sorted")
	if want := "drwxrwxrwt root\nsrc/\nsrc/a.txt\nhi\n"; res.Stdout != want {
		t.Errorf("second execution: %q, want %q", res.Stdout, want)
	}
}
