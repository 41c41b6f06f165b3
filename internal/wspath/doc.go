// Package wspath is desk's path model: where a relative workspace path
// points, and the directory it points into being there.
//
// A workspace is one POSIX filesystem (the store, internal/vfs). Its
// directory Dir, /workspace, is where work happens: the working directory
// and $HOME of every execution by default, and the only part of the store a
// sandbox sees (mounted at /workspace, so /workspace/x is the same file for
// every backend and every surface). So a relative path means the same thing
// wherever it is given:
//
//   - desk fs verbs (over the API and on a database file), desk exec --cwd;
//   - the HTTP API: the path after …/files/ and …/tree/ in the URL (an
//     absolute one keeps its leading slash: …/files//etc/hosts, or
//     …/files/%2Fetc/hosts),
//     the move and copy targets, the find and grep base (path=), an
//     execution's cwd;
//   - the agent tools' path and cwd arguments, and MCP resource URIs
//     (desk://WS/src/main.go is /workspace/src/main.go; desk://WS//etc/x
//     is /etc/x).
//
// Every one of them calls Resolve: a relative path is taken from Dir, the
// empty path is Dir itself, an absolute path stays absolute (cleaned). What
// each surface refuses before resolving (NUL bytes, ".." in the API's paths,
// malformed quoted names) stays that surface's.
//
// # The directory exists
//
// Ensure makes Dir when it is missing: mode 0755, owned by the store's uid
// and gid 0, which the sandbox's id mapping shows as root inside, the user
// its programs run as (package sandbox). Package workspace calls it on
// every writable Open, so a new workspace has /workspace from its first
// open and one created before this rule gets it on its next open; desk fs
// -db calls it when it opens a database file for writing. An existing Dir is
// left as it is, whatever it is (the sandbox refuses to start on one that is
// not a directory, and says so).
//
// The package imports only the standard library: it is layer 0, usable by
// every surface.
package wspath
