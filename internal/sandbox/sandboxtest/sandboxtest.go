package sandboxtest

import (
	"os"
	"testing"

	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/sandbox/initproc"
	"github.com/desk-dev/desk/internal/testenv"
)

// Available returns nil when this host can run sandboxes on their FUSE
// mount with the default runtime, and otherwise what is missing.
func Available() error {
	if err := sandbox.Available(""); err != nil {
		return err
	}
	return sandbox.MountAvailable()
}

// Require needs the host to run sandboxes on their FUSE mount: without it t
// is skipped, or failed under DESK_REQUIRE_SANDBOX=1.
func Require(t testing.TB) {
	t.Helper()
	testenv.Need(t, testenv.Sandbox, Available())
}

// RunInit makes the test binary the sandbox's init: when the backend has
// started it so (its first argument is sandbox.InitCommand, as the desk
// binary's hidden subcommand), RunInit runs the init and exits with its
// status; otherwise it returns. TestMain calls it first.
func RunInit() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		os.Exit(initproc.Main(os.Args[2:], os.Stderr))
	}
}

// InitPath returns the path of the running test binary, for
// sandbox.Options.InitPath (with RunInit in TestMain).
func InitPath(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("find the test binary: %v", err)
	}
	return exe
}
