// Package api is the desk HTTP API: an http.Handler (Server) over a
// *host.Host and its token store (*auth.Store), JSON over HTTP under /v1,
// with event streams as Server-Sent Events or NDJSON. docs/api.md is the
// user's manual; this is the implementer's.
//
// # Routes
//
// One table, routes(), lists every route: method, path pattern, operation id
// (the label in logs and metrics), who may call it, the scope it needs, the
// query parameters and the schemas of its body and response. New registers
// the table in an http.ServeMux (plus a catch-all that answers not_found),
// and the OpenAPI 3 document served at /openapi.json is generated from the
// same table and from the wire types of package client, so the two cannot
// disagree; TestOpenAPI_Routes checks it against the mux by requesting every
// documented route.
//
// # Requests
//
// Every route but /healthz authenticates the bearer token (auth.Store); a
// route on {ws} checks that the principal may use that workspace with the
// route's scope (read, write or exec; the admin may do anything), then, if
// the handler uses the open workspace, takes a lease (host.Acquire) for the
// request's duration. An execution takes a lease of its own that it releases
// when it ends, so its workspace is not hibernated under it. File paths come
// after /files/ in the URL; ".." elements and NUL bytes are refused
// (bad_path), and the store confines everything else. A relative path (the
// URL's, to, cwd, path=) is taken from /workspace (cleanPath calls
// wspath.Resolve, the one rule of every surface); an absolute one keeps its
// slash, files//etc/x or files/%2Fetc/x: ServeHTTP rewrites the doubled form
// to the escaped one before routing (absoluteFilePath), since the mux would
// clean it into a redirect to another file. Paths in and out are in the shown
// form of client/quote (cleanPath unquotes; responses quote every name and
// path), so names that are not UTF-8 survive JSON. A file GET carries its
// media type (package mediatype: the extension, else the first 512 bytes,
// read before the range is sought), nosniff, a sandbox CSP and X-Desk-Type.
//
// # Executions: stdin streams and foreground
//
// An execution started with stdin_stream takes its stdin from PUT
// …/executions/{id}/stdin: handleStdin hands the request body, without the
// progress rule (the route is paced: its pace is the program's), to
// run.Execution.CopyStdin, which writes it into a pipe the backend reads, so
// the body is read only as fast as the program takes it. A foreground
// execution is killed by run when nobody holds it for
// run.Options.ForegroundGrace; the event stream handler and the wait=1 start
// request hold it while they run (CopyStdin holds it too).
//
// # Ports
//
// ports.go serves the preview URLs (…/ports/{port}/{path...}, every method,
// proxied with httputil.ReverseProxy: upgrades pass), the raw forward
// (…/port-forward/{port}: the request is hijacked after the dial succeeds
// and spliced with the PortDialer's connection, half-closes passed on),
// the port list and the links. The dial is Options.Ports.Dialer's (desk
// serve: the sandbox backend's DialPort, through the sandbox's init); one
// http.Transport pools the connections, keyed by a host name made of a
// digest of the workspace name and the port (never resolved), the dial
// finding its workspace in the request's context. Access accPort: a
// bearer token allowed exec on {ws}, or a port link (query desk_link or the
// cookie desk_link_PORT), which stands for a principal with exec on {ws}
// alone (token id port-link-…); the front checks either and forwards the
// request with that principal to the worker. Links are checked by their
// signature: base64url(0x02, id, expiry, port, workspace) "."
// base64url(HMAC-SHA256 under Options.Ports.LinkKey) (links made before ids
// lack the 0x02 and id, and still verify); expired ones are 410 gone.
// portlinks.go's PortLinks (Options.Ports.Links) records the links made,
// without their tokens, in a file the front owns, so that a link can be
// listed and revoked by id (DELETE …/port-links/{id}); a revoked id is 410
// gone, checked in memory after the signature. At most MaxPortLinks
// unexpired links are recorded; expired ones drop out.
//
// images.go serves POST /v1/images/pull and GET /v1/images (admin) through
// Options.Images, the machine's image store (desk serve: package image's,
// adapted in cmd/desk); without one they answer 501.
//
// # Errors
//
// Handlers return errors; classify maps them to a status and a stable code:
// *Error values of this package, the sentinels of auth, host, run and vfs
// (errors.Is), *http.MaxBytesError (too_large), and store errors
// (*fs.PathError with a syscall.Errno) to the errno name ("ENOENT"). The body
// is {"error": {"code", "message"}}. Anything unrecognised is 500 internal
// and logged.
//
// # Trees
//
// tree.go serves PUT and GET /v1/workspaces/{ws}/tree/{path...} with
// internal/fsio: an upload (tar, tgz or zip, by Content-Type or first bytes)
// is imported all or nothing under Options.Tree's limits, taking one of the
// MaxUploads slots; an error of fsio is mapped by treeError (a limit is
// too_large, an unsafe or damaged archive bad_archive, an errno its name). A
// download streams ExportArchive through a 64 KiB buffer; an error after the
// headers goes in the X-Desk-Error trailer, the counts of a good one in
// X-Desk-Summary.
//
// # Streams
//
// Execution events and the followed change feed are streams: SSE when the
// request accepts text/event-stream (id: = event or change number, so a
// client's Last-Event-ID resumes after it), NDJSON otherwise. A heartbeat
// (an SSE comment or an empty line) is sent every Options.Heartbeat when idle.
// Streams end when the execution's exit event is sent, when the client goes,
// or at Shutdown, which sends an error event (unavailable) first.
//
// # Limits
//
// Every limit is an Options field with a documented default: JSON body size,
// upload size, uploads at once, header size and header and idle timeouts
// (NewHTTPServer), the progress rule of request bodies (progressBody: each
// BodyReadTimeout must bring BodyMinBytes, else 408 and the connection is
// closed), tree uploads (Options.Tree: content bytes, entries, kept
// memory), page sizes, entries walked per
// find/grep/copy, grep file and byte budgets, line and pattern lengths. The
// workspace's own limits (vfs, run, host) apply beneath.
//
// # Observability
//
// One slog line per request (method, route, path, status, duration, bytes,
// workspace, principal, error). Prometheus metrics at /metrics (admin):
// request counts and latency histograms by route, method and status; open
// workspaces and the host's counters; executions started, running and ended
// by backend and status (those started through this API); open streams.
//
// # Front and workers
//
// With Options.Workers the server is desk serve's front: it authenticates
// and authorises every request as above, answers the routes that need no
// open workspace itself, and forwards every route marked lease (and MCP's
// tool calls and file reads) to the workspace's worker process (package
// worker) with the principal in a header, after checking that the
// workspace exists. A worker that cannot be reached or died answers 502
// or 503 unavailable with the reason. A worker's own server is made with
// Options.WorkerKey: it has no token store, serves only requests that
// carry its key, takes the principal from the front, checks the route's
// scope again and logs requests at debug level (the front logs them).
// Deleting a workspace stops its worker first (409 in_use while requests
// are in flight).
//
// # Share links
//
// Options.Shares is the share store (package share). Making a share reads
// the workspace's file, so POST .../shares is a lease route (a worker's,
// in desk serve); listing, revoking and GET /s/{token} are not: the front
// answers them from the store, which it and the workers open in the same
// directory, so a link is served without waking a worker and a revocation
// holds at the front's next request. GET /s/{token} is public (the token
// is the capability) and uses http.ServeContent for ranges, If-None-Match
// (the ETag is the content's SHA-256) and HEAD; an ended share is 410 gone.
// Deleting a workspace revokes and forgets its shares. The tool sets get
// the store as the publish tool's Publisher (share.Workspace).
//
// # Published repositories
//
// Options.Artifacts is the artifact store (package artifact). Publishing
// (POST .../artifacts) checks the path holds a repository, so it is a
// lease route; listing, deleting and the tokens' routes are the front's.
// The git routes (/git/{ws}/{repo}/info/refs, git-upload-pack,
// git-receive-pack) are public as routes: their credential is an artifact
// token in basic auth, which the front checks (a refusal wakes no worker)
// before it forwards the request as it came to the workspace's worker; the
// worker checks it again and serves git from its store (artifact.Server).
// Their errors are plain text, which git shows as "remote: ..."; 401 sends
// WWW-Authenticate: Basic. The receive-pack route is paced (its body is
// read at go-git's pace). Deleting a workspace forgets its artifacts.
//
// # Creating a workspace from git
//
// POST /v1/workspaces with from {git, ref, depth} (gitimport.go) creates
// the workspace, stores its egress policy when the request has one, and
// runs git clone into /workspace as a shell-backend execution in it
// (through the workspace's worker on a front, the runtime otherwise), so
// the clone has the workspace's network, fair shares and records. The
// request waits for the clone (201), or with an Accept for a stream gets
// the clone's output as "progress" events and then "created". A failed or
// abandoned clone deletes the workspace (and its policy) before the
// answer: 403 forbidden for an egress refusal, 502 clone_failed otherwise.
//
// # Local mounts
//
// POST /v1/workspaces/{ws}/mounts (admin only: it mounts on the server's
// own filesystem, as the server's user) mounts the workspace through FUSE
// on a directory of the server's machine (package hostmount) and answers
// with a stream, for as long as the mount lasts: a "mounted" event (with
// the mount's id), keep-alives, and at the end "unmounted" (reason
// "request": DELETE …/mounts/{id}, which returns once unmounted; reason
// "outside": umount, fusermount -u). The mount is unmounted whenever its
// request ends: the client goes away, or Shutdown, which unmounts and then
// ends the stream with an error event (unavailable). Mounts are served
// where the workspace's store is: with workers, by its worker, whose
// request stays in flight meanwhile (so neither the workspace nor the
// worker hibernates). Options.Mounts bounds them: Max per server, counted
// by the server that receives the requests (the front), and
// MaxPerWorkspace, counted where they are served (409 too_many past
// either). A mount point inside the data directory (or another of
// Mounts.Forbidden) is refused; each live mount leaves a record in
// Mounts.RecordDir/WS, so that a front can detach what a worker that died
// left (hostmount.Records.Cleanup).
//
// # Fair shares
//
// Options.Fair (a fair.Ledger) bounds the interactive shells each token
// and workspace holds, and server-wide through the ledger's Host; the
// executions' shares are decided where they start (the workspace's Admit,
// wired by cmd/desk), whatever route starts them, with the token named in
// the context (mcp.WithTokenBackends sets fair.WithToken). A
// *fair.LimitError is 429 too_many for a token's or a workspace's share
// and 503 too_many for a server-wide bound, its message naming the bound
// and its setting. /metrics reports the server-wide slots (desk_slots_*,
// by kind) of the front's worker pool, or of Options.HostSlots.
//
// # Shutdown
//
// Shutdown cancels the server's context (ending streams and waits; mounts
// unmount), shuts the http.Server down (no new connections, requests in
// flight finish) and, at the same time, stops the workers
// (Options.Workers): a worker told to stop ends its own streams first
// (the http.Server of NewHTTPServer cancels the server's context when it
// shuts down), so the streams forwarded through the front end too,
// instead of holding the front's shutdown until its deadline. It then
// waits for the mounts served here to be unmounted and closes the host,
// which stops running executions and records them as stopped, and the
// token store.
package api
