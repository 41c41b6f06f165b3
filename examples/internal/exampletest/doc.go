// Package exampletest is the examples' test harness (see exampletest.go):
// Start runs a real `desk serve` built from this module on a loopback port,
// and Server.NeedSandbox skips a test (fails it under DESK_REQUIRE_SANDBOX)
// when the server offers no sandbox. Only tests import it.
package exampletest
