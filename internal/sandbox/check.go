package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Available reports whether sandboxes can run on this host with runtime
// (empty: DefaultRuntime): the runtime is installed, desk runs as root (the
// backend drives the runtime as root and maps the sandbox's root to an
// unprivileged uid range) and the kernel offers user namespaces. The error
// wraps ErrNoSandbox and says what is missing. It starts nothing; a sandbox
// can still fail to start for reasons only a start reveals (reported then).
func Available(runtime string) error {
	if runtime == "" {
		runtime = DefaultRuntime
	}
	if _, err := exec.LookPath(runtime); err != nil {
		return fmt.Errorf("%w: the OCI runtime %q is not installed (apt-get install runc)", ErrNoSandbox, runtime)
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: desk is not running as root (rootless runtimes are not supported)", ErrNoSandbox)
	}
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		return fmt.Errorf("%w: the kernel has no user namespaces", ErrNoSandbox)
	}
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return fmt.Errorf("%w: user namespaces are disabled (sysctl user.max_user_namespaces=0)", ErrNoSandbox)
	}
	return nil
}
