// Package testenv is the one place where a test decides whether a facility
// the host lacks skips it or fails it, and where tests find the Go toolchain.
// Only tests, and the test-helper packages (internal/vfs/vfstest,
// internal/sandbox/sandboxtest), import it; internal/archtest enforces that.
//
// # Requirements
//
// A test that needs something the host may lack (runc, /dev/fuse, root,
// bash and the GNU tools, Node.js) asks for it with Need, passing the error
// that says what is missing (nil when it is there). Without the facility the
// test is skipped, with the reason, unless the facility's DESK_REQUIRE_*
// variable is "1": then the test fails, with the same reason. CI (.ci/run)
// sets every variable of this package, so in CI no such test can skip:
//
//	DESK_REQUIRE_SANDBOX  runc, root, user namespaces, /dev/fuse, and the
//	                      tools the sandbox's workload tests run (/usr/bin/git, ...)
//	DESK_REQUIRE_FUSE     root and /dev/fuse: fusefs mounts with mount(2)
//	DESK_REQUIRE_ROOT     the tests run as euid 0 (the Chown conformance tests
//	                      of the kernel's filesystem)
//	DESK_REQUIRE_SHELLS   bash and the GNU tools the shell's tables are
//	                      confirmed against
//	DESK_REQUIRE_NODE     Node.js 20 or newer, for the js backend's
//	                      differential tests
//	DESK_REQUIRE_MCP_E2E  node and the TypeScript MCP client
//	                      (npm ci --prefix cmd/desk/e2e/testdata)
//	DESK_REQUIRE_FS_SUITES stress-ng, fio and CPython's test suite, the
//	                      external suites internal/fusefs/suites runs
//
// A skip that no variable covers must be impossible in CI: go test -short,
// benchmarks, or an opt-in measurement CI does not ask for.
//
// # The toolchain
//
// GoTool and GOROOT find the go command that runs the tests (go test puts
// its GOROOT/bin first on PATH) and its GOROOT, as `go env GOROOT` reports
// it, instead of the deprecated runtime.GOROOT.
//
// # Small shared helpers
//
// Allocated measures what a call allocates (the hostile-input tests'
// memory bounds); SyncBuffer collects a child's or a server goroutine's
// output that the test reads while it runs; Clock is a settable clock for
// a store's Options.Now; FirstLine starts a child process and reads the
// first line it prints; Fetch sends a plain HTTP request and reads the
// answer, Headers sets a client's headers (its bearer token) on each
// request; Tool runs a host program that is a test's oracle; ClosedPort is
// a loopback port nothing listens on.
package testenv
