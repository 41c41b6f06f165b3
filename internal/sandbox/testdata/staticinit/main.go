// Command staticinit is the sandbox's init alone, for the tests that run an
// image without a C library: TestImage_NoLibc builds it with CGO_ENABLED=0
// (a static binary) and uses it as Options.InitPath, as desk's own static
// build (make build) would be.
package main

import (
	"os"

	"github.com/desk-dev/desk/internal/sandbox/initproc"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "sandbox-init" {
		os.Stderr.WriteString("staticinit: run by the sandbox backend only\n")
		os.Exit(2)
	}
	os.Exit(initproc.Main(os.Args[2:], os.Stderr))
}
