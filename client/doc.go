// Package client is the Go client of the desk HTTP API (see docs/api.md and
// the server's /openapi.json), and the wire types the server sends. It imports
// only the standard library, so any Go program can use it.
//
//	c, err := client.New("http://127.0.0.1:7878", token, client.Options{})
//	_, err = c.CreateWorkspace(ctx, "notes")
//	_, err = c.WriteFile(ctx, "notes", "todo.txt", strings.NewReader("milk\n"), client.WriteOptions{})
//	res, err := c.Run(ctx, "notes", client.ExecRequest{Backend: "shell", Source: "cat todo.txt"})
//
// FromEnvironment finds the server as the desk commands do: $DESK_URL and
// $DESK_TOKEN, else the config file `desk serve` writes for the local user
// (ConfigPath, ReadConfig; Resolve gives the lookup's result and where the
// URL came from). The runnable examples in examples/ use it.
//
// # Paths
//
// A relative workspace path is taken from /workspace by the server, as on
// every desk surface ("todo.txt" is /workspace/todo.txt, the execution's
// default working directory); an absolute one stays absolute. File methods
// send an absolute path with its leading slash escaped (…/files/%2Fetc/x),
// a relative one as it is.
//
// # Coverage
//
// Workspaces (CreateWorkspace, ListWorkspaces, GetWorkspace, DeleteWorkspace,
// WorkspaceStats), files (Stat, ReadDir, Open, OpenRange, ReadFile,
// WriteFile streaming from an io.Reader, Mkdir, Move, Copy, Chmod, Remove,
// Find, Grep), executions (Exec, Run = start and wait, WriteStdin streaming
// an io.Reader as the stdin of one started with StdinStream, GetExecution,
// ListExecutions, Events, Kill, Dispose), the change feed (Changes,
// FollowChanges), local mounts (Mount, a stream of MountEvent, and
// Unmount; admin), tokens (MintToken, ListTokens, RevokeToken) and Health,
// OpenAPI and Metrics.
//
// # Streams
//
// Events and FollowChanges return a Stream read with Next, in NDJSON (the
// default) or Server-Sent Events. An event stream ends with io.EOF after the
// execution's exit event; to re-attach after a broken connection, call Events
// again with From set to the stream's LastID+1 (over SSE the server also
// honours Last-Event-ID). A stream the server ends with an error (shutdown,
// a change cursor older than the journal) returns an *Error from Next.
//
// # Errors
//
// Every error response becomes an *Error with the HTTP status, a stable code
// and a message: the errno name for filesystem errors ("ENOENT", "EEXIST",
// "ENOTDIR", ...) or a named code ("bad_name", "bad_path", "not_found",
// "exists", "busy", "too_large", "unauthorized", "forbidden",
// "journal_truncated", "invalid", ...). ErrorCode extracts the code.
package client
