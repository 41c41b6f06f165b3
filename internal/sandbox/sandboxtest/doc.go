// Package sandboxtest is what the tests of the packages above the sandbox
// backend (internal/api, internal/fsbench, cmd/desk) share to run it for
// real: the check that the host can run sandboxes on their FUSE mount
// (skipped, or failed under DESK_REQUIRE_SANDBOX=1, through
// internal/testenv), and the hook that lets a test binary be the sandbox's
// init. Only tests import it. The sandbox package's own tests cannot (it
// imports the sandbox package) and call internal/testenv directly.
package sandboxtest
