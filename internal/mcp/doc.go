// Package mcp serves desk workspaces over the Model Context Protocol with the
// official Go SDK (github.com/modelcontextprotocol/go-sdk, v1.8.0): the agent
// tools of internal/tools as MCP tools, and workspace files as MCP resources.
//
// # Servers and workspaces
//
// NewServer builds an SDK server for one Workspace: what to serve, behind an
// interface with three implementations —
//
//   - HostWorkspace: a workspace of a host in this process; each call leases
//     it (desk serve's /mcp/{ws}, and desk mcp --data DIR);
//   - RemoteWorkspace: a workspace of a running desk serve, through its HTTP
//     API (GET /v1/workspaces/{ws}/tools, POST .../tools/{name}, file reads):
//     desk mcp without --data;
//   - StoreWorkspace: a store and runtime the caller holds (Go programs,
//     tests).
//
// Run the server on any SDK transport: desk mcp uses newline-delimited
// JSON-RPC on standard input and output (sdk.IOTransport); Handler serves
// streamable HTTP.
//
// # Tools
//
// Every tool keeps its definition: description, input and output schemas
// (tools/list), annotations (readOnlyHint, destructiveHint, idempotentHint,
// openWorldHint false). A call's result has the tool's text (and image)
// content and its structured output as structuredContent. A tool failure is
// a result with isError and the text "CODE: message" (not_found, no_match,
// conflict, ...), so the model reads it; an unknown tool is a protocol error.
// When the client sends a progress token, exec's output arrives as
// notifications/progress (the progress count grows with each output event,
// the message is the latest line). A notifications/cancelled for a running
// call cancels its context, which kills the execution (SIGKILL).
//
// # Resources
//
// Files are resources with URIs desk://WORKSPACE/PATH, PATH being a
// workspace path as every surface takes one (package wspath): relative to
// /workspace (desk://demo/src/main.go is /workspace/src/main.go) or absolute
// with its slash (desk://demo//etc/hosts); listed resources use the short
// form. resources/list lists the files
// under /workspace, depth first in name order, Options.ResourcePage (500) at
// a time, the cursor being the find tool's next_cursor (constant cost per
// page; it also goes on past a walk that stopped at the find tool's
// MaxWalk, and a number, as earlier servers gave, is taken as an offset);
// resources/read reads any
// file through the template desk://WORKSPACE/{+path}: text as text, other
// content as a base64 blob, at most Options.MaxResourceBytes (8 MiB; larger:
// use the read tool). MIME types are package mediatype's, as the HTTP
// API's file reads: a fixed extension table (never the machine's
// mime.types), else content sniffing when read. Resources need the
// read tool's permission.
//
// # HTTP and authentication
//
// Handler serves streamable HTTP (stateful sessions, Mcp-Session-Id) for
// /mcp/{ws}; internal/api mounts it in desk serve. Each request is
// authenticated with the bearer token (JSON errors as the rest of the API:
// 401 unauthorized with WWW-Authenticate, 403 forbidden for a token of
// another workspace, 404 not_found for a missing workspace, 400 bad_name),
// and passed to the SDK with the principal in its TokenInfo. A session
// belongs to the token and workspace that opened it (the SDK refuses another
// user with 403). The tools offered are those the token's scopes allow
// (read: read, ls, find, grep; write: write, delete; read and write: edit;
// exec: exec), and every call is checked again against the token of the
// request carrying it (AllowTool: scopes, and the token's backends for exec),
// so a revoked token stops at its next request. Sessions idle for
// HandlerOptions.SessionTimeout (30 minutes) are closed. Servers are cached
// per token and workspace (the SDK consults one per request).
//
// Options.Approvals makes a tool call held for approval ask a client that
// declared the elicitation capability (elicit.go): decline denies, accept
// approves where policy.Approval.MayDecide lets the session's principal
// (the requester only under Policy.ApproveByElicitation), cancel leaves it
// pending. Calls held in a workspace's worker (a RemoteWorkspace session)
// are elicited by relay: the worker reports the hold in the call's
// stream, the answer goes back as an ApprovalDecider's (elicit.go).
//
// With HandlerOptions.Audit every request is a record (AuditMiddleware);
// an execution a HostWorkspace session's tool call starts
// (run.WithStarted) is recorded once the call's record is written and the
// execution has ended (HandlerOptions.ExecEnded: the API's execution
// record), with the path refusals counted after the call's record.
// desk mcp --data, a server made without the HTTP handler, adds
// AuditMiddleware itself: the same records, with actor LocalActor, its
// executions' built by RecordExecution (ExecutionRecord is the one
// execution record, the API's exec route's too).
package mcp
