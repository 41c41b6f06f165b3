package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/workspace"
)

// TestServe_FilesPrivateFromHostUsers runs desk serve with a warm sandbox
// (its workspace mount is allow_other) and checks, as an unprivileged host
// user (a child process with uid and gid 65534), that no file of the
// workspace can be read by path: not through the mount, nor the sandbox's
// /proc root, nor the database files. The directories above the data
// directory are opened up for the test, so the barriers are desk's own.
func TestServe_FilesPrivateFromHostUsers(t *testing.T) {
	sandboxtest.Require(t)
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	data, state := sandboxData(t)
	for d := filepath.Dir(data); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	startServe(t, "--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn")
	mustDesk(t, nil, "ws", "create", "demo")
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "echo secret > s; chmod 644 s; cat s"); got != "secret\n" {
		t.Fatalf("exec = %q", got)
	}
	stateDir := filepath.Join(workerState(state, "demo"), "state")
	mountDir := filepath.Join(stateDir, "mnt")
	var secret []string
	var base string // MountDir/ID
	for _, m := range mountsUnder(t, mountDir) {
		base = filepath.Dir(m.point)
		switch filepath.Base(m.point) {
		case "workspace":
			secret = append(secret, filepath.Join(m.point, "s"))
		case "store":
			secret = append(secret, filepath.Join(m.point, "workspace", "s"))
		}
	}
	if len(secret) != 2 {
		t.Fatalf("mounts below %s: %v, want the sandbox's store and workspace", mountDir, mountsUnder(t, mountDir))
	}
	pids, _ := filepath.Glob(filepath.Join(stateDir, "desk-demo-*", "init.pid"))
	if len(pids) != 1 {
		t.Fatalf("init pid files: %v", pids)
	}
	b, err := os.ReadFile(pids[0])
	if err != nil {
		t.Fatal(err)
	}
	initPID, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	secret = append(secret, fmt.Sprintf("/proc/%d/root/workspace/s", initPID))
	db := filepath.Join(workspace.Dir(data), "demo"+workspace.FileExt)
	secret = append(secret, db, db+"-wal", db+"-shm")
	for _, p := range secret {
		if _, err := os.ReadFile(p); err != nil {
			t.Fatalf("root cannot read %s: %v (the check would prove nothing)", p, err)
		}
	}

	cmd := exec.Command("cat", secret...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("uid 65534 read every file:\n%s", out)
	}
	for _, p := range secret {
		if want := "cat: " + p + ": Permission denied"; !strings.Contains(string(out), want) {
			t.Errorf("uid 65534 reading %s: want EACCES (%q); cat said:\n%s", p, want, out)
		}
	}

	modes := []struct {
		path string
		perm os.FileMode
		gid  int
	}{
		{data, 0o700, 0}, {workspace.Dir(data), 0o700, 0},
		{db, 0o600, 0}, {db + "-wal", 0o600, 0}, {db + "-shm", 0o600, 0},
		{state, 0o710, sandbox.DefaultHostID}, {stateDir, 0o710, sandbox.DefaultHostID},
		{filepath.Join(workerState(state, "demo"), "runc"), 0o700, 0}, {mountDir, 0o700, 0},
		{base, 0o700, 0},
	}
	for _, m := range modes {
		fi, err := os.Lstat(m.path)
		if err != nil {
			t.Error(err)
			continue
		}
		gid := int(fi.Sys().(*syscall.Stat_t).Gid)
		if fi.Mode().Perm() != m.perm || gid != m.gid {
			t.Errorf("%s: mode %04o group %d, want %04o group %d", m.path, fi.Mode().Perm(), gid, m.perm, m.gid)
		}
	}
}
