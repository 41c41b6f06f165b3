package testenv_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// TestGOROOT checks that the Go tree found has the standard library's
// sources, which the GOROOT/src tests read.
func TestGOROOT(t *testing.T) {
	src := filepath.Join(testenv.GOROOT(t), "src", "net", "http")
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("GOROOT has no sources: %v", err)
	}
}

// TestNeed checks that a missing facility fails a test when its variable is
// 1 and skips it otherwise, in a subprocess test of its own.
func TestNeed(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		testenv.Need(t, testenv.Requirement("TESTENV_REQUIRE_X"), os.ErrNotExist)
		return
	}
	for _, tc := range []struct {
		value, want string
	}{
		{"1", "--- FAIL: TestNeed"},
		{"", "--- SKIP: TestNeed"},
	} {
		out := runSelf(t, "TESTENV_CHILD=1", "TESTENV_REQUIRE_X="+tc.value)
		if !strings.Contains(out, tc.want) || !strings.Contains(out, "TESTENV_REQUIRE_X=1") {
			t.Errorf("TESTENV_REQUIRE_X=%q: want %q and the variable named in:\n%s", tc.value, tc.want, out)
		}
	}
}

// runSelf runs TestNeed in this test binary with env added, and returns its
// verbose output.
func runSelf(t *testing.T, env ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestNeed$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.CombinedOutput() // a failing child exits 1: the output says how
	return string(out)
}

// TestSyncBufferTake: Take returns what was written since the last Take,
// while String keeps returning only what is still in the buffer.
func TestSyncBufferTake(t *testing.T) {
	var b testenv.SyncBuffer
	fmt.Fprint(&b, "one ")
	fmt.Fprint(&b, "two")
	if got := b.Take(); got != "one two" {
		t.Fatalf("first Take = %q", got)
	}
	if got := b.Take(); got != "" {
		t.Fatalf("Take after Take = %q, want empty", got)
	}
	fmt.Fprint(&b, "three")
	if got := b.String(); got != "three" {
		t.Fatalf("String = %q", got)
	}
}
