package cgroup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// TestMain doubles as the memory hog the OOM test puts in a group.
func TestMain(m *testing.M) {
	if n, err := strconv.Atoi(os.Getenv("CGROUP_TEST_HOG_MIB")); err == nil {
		io.ReadAll(os.Stdin) // the test closes it once the hog is in its group
		var keep [][]byte
		for i := 0; i < n; i++ {
			b := make([]byte, 1<<20)
			for j := range b {
				b[j] = 1
			}
			keep = append(keep, b)
		}
		fmt.Println(len(keep))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func name(t *testing.T) string {
	return fmt.Sprintf("desk-cgroup-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
}

func TestNew_LimitsWritten(t *testing.T) {
	testenv.NeedRoot(t)
	g, err := New(name(t), Limits{MemoryBytes: 96 << 20, CPUWeight: 50, Pids: 77})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	read := func(file string) string {
		for _, d := range g.Dirs() {
			if b, err := os.ReadFile(filepath.Join(d, file)); err == nil {
				return strings.TrimSpace(string(b))
			}
		}
		return ""
	}
	if g.v2 {
		for f, want := range map[string]string{"memory.max": strconv.Itoa(96 << 20), "cpu.weight": "50", "pids.max": "77"} {
			if got := read(f); got != want {
				t.Errorf("%s = %q, want %q", f, got, want)
			}
		}
	} else {
		for f, want := range map[string]string{"memory.limit_in_bytes": strconv.Itoa(96 << 20), "cpu.shares": "512", "pids.max": "77"} {
			if got := read(f); got != want {
				t.Errorf("%s = %q, want %q", f, got, want)
			}
		}
	}
}

func TestGroup_OOMKillCountedAndOnlyInGroup(t *testing.T) {
	testenv.NeedRoot(t)
	g, err := New(name(t), Limits{MemoryBytes: 64 << 20, Pids: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "CGROUP_TEST_HOG_MIB=256")
	// The hog allocates only once its stdin ends, after it is in the group.
	r, w, _ := os.Pipe()
	cmd.Stdin = r
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if err := g.Add(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	w.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if err == nil || !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the hog was not OOM-killed: %v", err)
	}
	if n := g.OOMKills(); n < 1 {
		t.Errorf("OOMKills = %d after an OOM kill", n)
	}
	if err := g.Remove(); err != nil {
		t.Errorf("Remove after the process exited: %v", err)
	}
}

func TestNew_BadNames(t *testing.T) {
	for _, n := range []string{"", ".", "..", "a/b", "x\x00"} {
		if _, err := New(n, Limits{}); err == nil {
			t.Errorf("New(%q) succeeded", n)
		}
	}
	if _, err := New("ok", Limits{CPUWeight: 10001}); err == nil {
		t.Error("a CPU weight over 10000 was accepted")
	}
}
