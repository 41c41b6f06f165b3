// Package archtest enforces the architecture of the repository with tests; it
// has no code of its own.
//
// deps_test.go runs `go list -deps -json ./...` and checks every import of every
// package of the module (test imports included) against the layer table of
// docs/architecture.md:
//
//	layer -2 internal/testenv (the DESK_REQUIRE_* logic; any test may use it)
//	layer -1 internal/sqlite (the SQLite driver's seam)
//	layer -1 internal/glob, internal/posixre (leaves: patterns)
//	layer 0  internal/vfs, internal/policy, internal/textdiff (and client, the public Go client)
//	layer 1  internal/run, internal/fusefs, internal/gitws, internal/fsio
//	layer 2  internal/shell, internal/jsvm, internal/sandbox (the backends)
//	layer 3  internal/tools, internal/workspace
//	layer 4  internal/host, internal/auth
//	layer 5  internal/api, internal/mcp
//	cmd/desk may import anything; nothing imports it
//
// A package may import packages of lower layers and of its own subtree
// (internal/shell/cmds may import internal/shell and the other way round).
// Backends never import each other. Only internal/sqlite imports the SQLite
// driver (github.com/ncruces/go-sqlite3 and its subpackages, tests included),
// and it imports nothing else but the standard library and golang.org/x/sys;
// internal/vfs and its subtree import only the standard library,
// golang.org/x/sys and internal/sqlite; client and internal/textdiff (a
// leaf: the one line diff) import only the standard library (their tests
// may use internal/testenv too). A package that
// is not in the table fails the test: add it to the table (and to
// docs/architecture.md) with its layer.
//
// The test helpers (internal/testenv, internal/sandbox/sandboxtest,
// internal/vfs/vfstest) are imported only by tests and by each other, and
// internal/testenv imports only the standard library.
package archtest
