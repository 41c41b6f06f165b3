package initproc

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestForkInGroup_CannotJoin: a program whose group cannot be joined (here a
// descriptor the write fails on, as an older kernel's EACCES would) starts
// all the same, outside it, and the launch says why.
func TestForkInGroup_CannotJoin(t *testing.T) {
	f, err := os.Open(os.DevNull) // read-only: the write fails (EBADF)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pid, why, err := forkInGroup(int(f.Fd()), []string{"/bin/sh", "-c", "exit 7"}, &syscall.ProcAttr{})
	if err != nil {
		t.Fatalf("forkInGroup: %v", err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 7 {
		t.Fatalf("the program: %v, status %v", err, ws)
	}
	if !strings.Contains(why, "join the execution's cgroup") || !strings.Contains(why, "bad file descriptor") {
		t.Errorf("why = %q", why)
	}
}
