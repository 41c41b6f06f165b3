package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A Requirement is the name of a DESK_REQUIRE_* environment variable. When
// it is "1", a test that lacks the facility fails instead of skipping.
type Requirement string

// The requirements, one per facility (see the package documentation).
const (
	Sandbox Requirement = "DESK_REQUIRE_SANDBOX"
	FUSE    Requirement = "DESK_REQUIRE_FUSE"
	Root    Requirement = "DESK_REQUIRE_ROOT"
	Shells  Requirement = "DESK_REQUIRE_SHELLS"
	Node    Requirement = "DESK_REQUIRE_NODE"
	MCPE2E  Requirement = "DESK_REQUIRE_MCP_E2E"
	// FSSuites covers the external filesystem suites (stress-ng, fio,
	// CPython's tests) that internal/fusefs/suites runs through a mount.
	FSSuites Requirement = "DESK_REQUIRE_FS_SUITES"
)

// Required reports whether the requirement's variable is "1".
func (r Requirement) Required() bool { return os.Getenv(string(r)) == "1" }

// Need does nothing when missing is nil. Otherwise it fails t when r is
// required, and skips it when not, with missing as the reason.
func Need(t testing.TB, r Requirement, missing error) {
	t.Helper()
	if missing == nil {
		return
	}
	if r.Required() {
		t.Fatalf("%s=1, but %v", r, missing)
	}
	t.Skipf("skipping (%s=1 makes this a failure): %v", r, missing)
}

// ErrNotRoot is the error NeedRoot gives when the process is not euid 0.
var ErrNotRoot = errors.New("the test process is not running as root (euid 0)")

// NeedRoot needs the process to run as root (Root).
func NeedRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		Need(t, Root, ErrNotRoot)
	}
}

// FUSEAvailable returns nil when this process can mount FUSE with mount(2):
// it runs as root and /dev/fuse is a character device.
func FUSEAvailable() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("mounting FUSE with mount(2): %w", ErrNotRoot)
	}
	fi, err := os.Stat("/dev/fuse")
	if err != nil {
		return fmt.Errorf("no FUSE device (modprobe fuse): %w", err)
	}
	if fi.Mode()&os.ModeCharDevice == 0 {
		return errors.New("/dev/fuse is not a character device")
	}
	return nil
}

// NeedFUSE needs a FUSE mount to be possible (FUSE).
func NeedFUSE(t testing.TB) {
	t.Helper()
	Need(t, FUSE, FUSEAvailable())
}

// GoTool returns the go command that runs the tests: go test puts its
// GOROOT/bin first on PATH. It fails t when there is none.
func GoTool(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("find the go command: %v", err)
	}
	return p
}

// GOROOT returns the root of the Go tree that runs the tests, as `go env
// GOROOT` reports it. Its src directory always exists: go test builds the
// standard library from it. It fails t when go env fails.
func GOROOT(t testing.TB) string {
	t.Helper()
	out, err := exec.Command(GoTool(t), "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		t.Fatal("go env GOROOT: empty")
	}
	return dir
}

// TraversableDir returns a fresh t.TempDir whose ancestors up to
// os.TempDir are made mode 0711, so that an unprivileged uid (the root of a
// sandbox, mapped to one on the host) can reach paths inside it.
func TraversableDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatalf("make %s traversable: %v", d, err)
		}
	}
	return dir
}
