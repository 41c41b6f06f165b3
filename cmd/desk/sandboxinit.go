package main

import (
	"io"

	"github.com/desk-dev/desk/internal/sandbox/initproc"
)

// runSandboxInit is the hidden subcommand "sandbox-init": the init of a
// sandbox (internal/sandbox/initproc). The sandbox backend runs this binary,
// bound read-only at /.desk/init, as the first process of each sandbox; it
// takes no arguments and reads its configuration from file descriptor 3. It
// is not listed in the usage: run by hand it only explains itself and fails.
func runSandboxInit(args []string, stderr io.Writer) int {
	return initproc.Main(args, stderr)
}
