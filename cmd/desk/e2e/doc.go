// Package e2e holds desk's end-to-end test of its MCP server with the
// official TypeScript MCP client (@modelcontextprotocol/sdk), and the
// tool-call latency benchmark. The Node side lives in testdata/ (its
// node_modules installed by `make test-setup`, which `make test` and .ci/run
// run: `npm ci --prefix cmd/desk/e2e/testdata` when the lock file is newer
// than the install; `make run` does not); the test builds desk, starts `desk serve`, and drives `desk
// mcp` over stdio and /mcp/{ws} over streamable HTTP through a scripted
// coding session. Without Node or the installed client the test is skipped,
// unless DESK_REQUIRE_MCP_E2E=1. TestMCP_Latency measures N calls each of
// read, grep and exec (echo) over both transports and logs p50/p99:
// DESK_MCP_BENCH=N, 20 by default.
package e2e
