package main

import (
	"strings"
	"testing"
)

// TestShell_Piped runs desk shell with piped standard input against desk
// serve with the real sandbox: the input is typed on the remote terminal,
// the shell's files are the workspace's, and desk shell exits with the
// shell's status.
func TestShell_Piped(t *testing.T) {
	_, errb, stop := serveSandboxDemo(t, "--log-level", "warn")
	out, errs, code := desk(t, []byte("echo made-$((6*7)) > f; cat /workspace/f; tty; exit 3\n"), "shell", "demo", "--term", "vt100")
	if code != 3 || !strings.Contains(out, "made-42\r\n/dev/pts/") {
		t.Errorf("desk shell: exit %d, want 3\nstdout: %q\nstderr: %s", code, out, errs)
	}
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "shell", "--", "cat /workspace/f"); got != "made-42\n" {
		t.Errorf("the shell backend reads %q", got)
	}
	wantFail(t, 1, "(not_found)", "shell", "nope")
	wantFail(t, 2, "missing argument", "shell")
	if code := stop(); code != 0 {
		t.Errorf("desk serve: exit %d; stderr:\n%s", code, errb.String())
	}
}

// TestShell_NoSandbox: a server without the sandbox backend refuses shells
// with a clear error.
func TestShell_NoSandbox(t *testing.T) {
	s := newTestServer(t)
	s.use(t)
	mustDesk(t, nil, "ws", "create", "demo")
	wantFail(t, 1, "(not_implemented)", "shell", "demo")
	if out := mustDesk(t, nil, "shell", "-h"); !strings.Contains(out, "usage: desk shell WS") || !strings.Contains(out, "--term") {
		t.Errorf("desk shell -h:\n%s", out)
	}
}
