package api

import (
	"net/http"

	"github.com/desk-dev/desk/internal/auth"
)

// access says who may call a route.
type access int

const (
	accPublic         access = iota // no token
	accAuth                         // any valid token
	accAdmin                        // the admin token
	accScope                        // the admin, or a token for {ws} with the route's scope
	accWorkspace                    // the admin, or a token for {ws} with any scope (the handler checks more)
	accAdminWorkspace               // the admin only, on {ws} (forwarded to its worker like accScope)
	accPort                         // like accScope, or a port link for {ws} and {port} (ports.go)
)

// opMount is the mount route's operation id (the server-wide mount bound
// counts its requests).
const opMount = "mount"

// param is a query parameter, for the OpenAPI document.
type param struct {
	name, typ, desc string
}

// route is one API route. The mux and the OpenAPI document are both built
// from routes(), and TestOpenAPI_Routes checks the two agree.
type route struct {
	method  string
	path    string // ServeMux pattern path: {name} is one segment, {name...} the rest
	op      string // operation id: the metrics and log label
	summary string
	access  access
	scope   auth.Scope
	lease   bool // the handler uses the open workspace
	query   []param
	body    string // request body schema ("" none; "binary" for a raw body)
	// paced: the body arrives at its consumer's pace (an execution's
	// stdin), so the body progress rule does not apply to it.
	paced  bool
	status int    // success status
	resp   string // response schema ("" none; "binary", "stream", "text")
	h      func(*Server, http.ResponseWriter, *http.Request, *call) error
}

var notFoundRoute = route{op: "not_found", access: accAuth, h: func(_ *Server, _ http.ResponseWriter, r *http.Request, _ *call) error {
	return errorf(http.StatusNotFound, CodeNotFound, "no route for %s %s (see /openapi.json)", r.Method, r.URL.Path)
}}

var (
	pAfter    = param{"after", "string", "return items sorting after this one (the next cursor of the previous page)"}
	pLimit    = param{"limit", "integer", "page size (default 100, at most 1000)"}
	pWait     = param{"wait", "boolean", "wait for the execution to end and return its result"}
	pWaitFor  = param{"wait", "string", "a Go duration, at most 60s: answer once a call is pending (with version: once the list's version is no longer that), or after this long with what is"}
	pVersion  = param{"version", "integer", "with wait: the version of an earlier answer, to wait for the next change"}
	pFrom     = param{"from", "integer", "first event number to send (Last-Event-ID takes precedence: its successor)"}
	pSince    = param{"since", "integer", "return changes after this sequence number (Last-Event-ID takes precedence)"}
	pFollow   = param{"follow", "boolean", "stream changes live (SSE or NDJSON, by Accept) instead of returning a page"}
	pStat     = param{"stat", "boolean", "return the entry's attributes (lstat) instead of its content"}
	pMode     = param{"mode", "string", "permission bits in octal (PUT default 0644, mkdir 0755); also the X-Desk-Mode header"}
	pParents  = param{"parents", "boolean", "create missing parent directories"}
	pRecurse  = param{"recursive", "boolean", "delete a directory with its contents"}
	pOp       = param{"op", "string", "mkdir, mknod {type, device}, move, copy or chmod"}
	pStatus   = param{"status", "string", "only executions with this status"}
	pPattern  = param{"pattern", "string", "glob relative to path: * ? [..] {a,b} within a segment, ** for any number of segments"}
	pBase     = param{"path", "string", "directory (or, for grep, file) to search (default /workspace; a relative path is taken from /workspace)"}
	pQuery    = param{"query", "string", "text to find (a RE2 regular expression with regex=1)"}
	pRegex    = param{"regex", "boolean", "query is a regular expression (RE2 syntax)"}
	pICase    = param{"ignore_case", "boolean", "match case-insensitively"}
	pGlob     = param{"glob", "string", "only files whose path (relative to path) matches this glob"}
	pAfterLn  = param{"after_line", "integer", "with after: resume after this line of that file"}
	pService  = param{"service", "string", "git-upload-pack or git-receive-pack"}
	pAfterPth = param{"after", "string", "resume after this path (next_path of the previous page)"}
)

// portProxyRoutes are the preview routes: every method of
// …/ports/{port}/{path...}, proxied to the port's service.
func portProxyRoutes(ws string) []route {
	var rs []route
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		rs = append(rs, route{method: m, path: ws + "/ports/{port}/{path...}", op: "portProxy" + m,
			summary: "A port's preview: " + m + " proxied to the service listening on the port in the workspace's sandbox, WebSocket upgrades included (a workspace token with exec, or a port link)",
			access:  accPort, scope: auth.ScopeExec, lease: true, paced: true, body: "binary", status: 200, resp: "binary", h: (*Server).handlePortProxy})
	}
	return rs
}

func routes() []route {
	ws := "/v1/workspaces/{ws}"
	return append(append([]route{
		{method: "GET", path: "/healthz", op: "healthz", summary: "Liveness check (no token needed)", access: accPublic, status: 200, resp: "Health", h: (*Server).handleHealth},
		{method: "POST", path: "/v1/images/pull", op: "pullImage", summary: "Pull an image from a registry into the machine's image store, verified and bounded; answers once it is unpacked (Accept: application/x-ndjson streams progress lines first) (admin)", access: accAdmin, body: "ImagePullRequest", status: 201, resp: "Image", h: (*Server).handlePullImage},
		{method: "GET", path: "/v1/images", op: "listImages", summary: "The machine's images (admin)", access: accAdmin, status: 200, resp: "ImageList", h: (*Server).handleListImages},
		{method: "GET", path: "/metrics", op: "metrics", summary: "Prometheus metrics (admin)", access: accAdmin, status: 200, resp: "text", h: (*Server).handleMetrics},
		{method: "GET", path: "/openapi.json", op: "openapi", summary: "This OpenAPI document", access: accAuth, status: 200, resp: "object", h: (*Server).handleOpenAPI},

		{method: "POST", path: "/v1/workspaces", op: "createWorkspace", summary: "Create a workspace (admin)", access: accAdmin, body: "WorkspaceRequest", status: 201, resp: "Workspace", h: (*Server).handleCreateWorkspace},
		{method: "GET", path: "/v1/workspaces", op: "listWorkspaces", summary: "List workspaces (a workspace token sees only its own)", access: accAuth, query: []param{pAfter, pLimit}, status: 200, resp: "WorkspaceList", h: (*Server).handleListWorkspaces},
		{method: "GET", path: ws, op: "getWorkspace", summary: "Describe a workspace without opening it", access: accScope, scope: auth.ScopeRead, status: 200, resp: "Workspace", h: (*Server).handleGetWorkspace},
		{method: "DELETE", path: ws, op: "deleteWorkspace", summary: "Delete a workspace and revoke its tokens (admin)", access: accAdmin, status: 204, h: (*Server).handleDeleteWorkspace},
		{method: "POST", path: ws + "/check", op: "checkWorkspace", summary: "Verify every invariant of the workspace's store; the problems found, if any (admin)", access: accAdminWorkspace, lease: true, status: 200, resp: "CheckReport", h: (*Server).handleCheck},
		{method: "GET", path: ws + "/stats", op: "workspaceStats", summary: "Open a workspace and report on its contents", access: accScope, scope: auth.ScopeRead, lease: true, status: 200, resp: "WorkspaceStats", h: (*Server).handleStats},

		{method: "GET", path: ws + "/files/{path...}", op: "readFile", summary: "Stat an entry (stat=1), list a directory (paged) or read a file (Range supported)", access: accScope, scope: auth.ScopeRead, lease: true, query: []param{pStat, pAfter, pLimit}, status: 200, resp: "binary", h: (*Server).handleGetFile},
		{method: "PUT", path: ws + "/files/{path...}", op: "writeFile", summary: "Write a file from the request body (replaced atomically)", access: accScope, scope: auth.ScopeWrite, lease: true, query: []param{pMode, pParents}, body: "binary", status: 200, resp: "FileInfo", h: (*Server).handlePutFile},
		{method: "POST", path: ws + "/files/{path...}", op: "fileOp", summary: "mkdir, mknod {type, mode, device}, move {to}, copy {to} or chmod {mode} (op=...)", access: accScope, scope: auth.ScopeWrite, lease: true, query: []param{pOp, pMode, pParents}, body: "FileOpRequest", status: 200, resp: "FileInfo", h: (*Server).handlePostFile},
		{method: "DELETE", path: ws + "/files/{path...}", op: "deleteFile", summary: "Delete a file, symlink or empty directory (recursive=1: any directory)", access: accScope, scope: auth.ScopeWrite, lease: true, query: []param{pRecurse}, status: 204, h: (*Server).handleDeleteFile},
		{method: "GET", path: ws + "/tree/{path...}", op: "getTree", summary: "Download a directory (or a file) as a tar, tgz or zip archive, streamed", access: accScope, scope: auth.ScopeRead, lease: true, query: []param{pFormat, pNoFollow}, status: 200, resp: "archive", h: (*Server).handleGetTree},
		{method: "PUT", path: ws + "/tree/{path...}", op: "putTree", summary: "Upload a tar (plain or gzip) or zip archive into a directory, all or nothing (201 if the directory was created)", access: accScope, scope: auth.ScopeWrite, lease: true, query: []param{pSkipSpecial, pOwners, pKeepDest}, body: "archive", status: 200, resp: "TreeSummary", h: (*Server).handlePutTree},
		{method: "GET", path: ws + "/find", op: "find", summary: "Find paths matching a glob", access: accScope, scope: auth.ScopeRead, lease: true, query: []param{pPattern, pBase, pLimit}, status: 200, resp: "FindResult", h: (*Server).handleFind},
		{method: "GET", path: ws + "/grep", op: "grep", summary: "Search file contents (binary and oversized files skipped), paged", access: accScope, scope: auth.ScopeRead, lease: true, query: []param{pQuery, pRegex, pICase, pBase, pGlob, pLimit, pAfterPth, pAfterLn}, status: 200, resp: "GrepResult", h: (*Server).handleGrep},

		{method: "POST", path: ws + "/executions", op: "exec", summary: "Start an execution (201 with its record; wait=1: its result)", access: accScope, scope: auth.ScopeExec, lease: true, query: []param{pWait}, body: "ExecRequest", status: 201, resp: "Result", h: (*Server).handleExec},
		{method: "GET", path: ws + "/executions", op: "listExecutions", summary: "List execution records", access: accScope, scope: auth.ScopeRead, lease: true, query: []param{pAfter, pLimit, pStatus}, status: 200, resp: "ExecutionList", h: (*Server).handleListExecutions},
		{method: "GET", path: ws + "/executions/{id}", op: "getExecution", summary: "An execution's record and kept output", access: accScope, scope: auth.ScopeRead, lease: true, status: 200, resp: "Result", h: (*Server).handleGetExecution},
		{method: "PUT", path: ws + "/executions/{id}/stdin", op: "executionStdin", summary: "Stream the body into the stdin of an execution started with stdin_stream, at the program's pace (200 {bytes} once its end reached the program)", access: accScope, scope: auth.ScopeExec, lease: true, body: "binary", paced: true, status: 200, resp: "StdinResult", h: (*Server).handleStdin},
		{method: "GET", path: ws + "/executions/{id}/events", op: "executionEvents", summary: "Stream an execution's events (SSE or NDJSON by Accept), from an event number", access: accScope, scope: auth.ScopeRead, lease: true, query: []param{pFrom}, status: 200, resp: "stream:Event", h: (*Server).handleEvents},
		{method: "POST", path: ws + "/executions/{id}/kill", op: "killExecution", summary: "Kill a running execution", access: accScope, scope: auth.ScopeExec, lease: true, body: "KillRequest", status: 202, resp: "Execution", h: (*Server).handleKill},
		{method: "DELETE", path: ws + "/executions/{id}", op: "disposeExecution", summary: "Delete an ended execution's record and output", access: accScope, scope: auth.ScopeExec, lease: true, status: 204, h: (*Server).handleDispose},
		{method: "GET", path: ws + "/shell", op: "shell", summary: "An interactive shell: bash on a terminal in the workspace's sandbox, over a WebSocket (docs/api.md)", access: accScope, scope: auth.ScopeExec, lease: true, query: shellParams, status: 101, h: (*Server).handleShell},

		{method: "GET", path: ws + "/ports", op: "listPorts", summary: "The TCP ports listening in the workspace's sandbox, with their processes and executions", access: accScope, scope: auth.ScopeRead, lease: true, status: 200, resp: "PortList", h: (*Server).handleListPorts},
		{method: "POST", path: ws + "/port-links", op: "createPortLink", summary: "An expiring preview link to a port: anyone holding it reaches the port's service until it expires or is revoked (docs/api.md)", access: accScope, scope: auth.ScopeExec, body: "PortLinkRequest", status: 201, resp: "PortLink", h: (*Server).handleCreatePortLink},
		{method: "GET", path: ws + "/port-links", op: "listPortLinks", summary: "The workspace's unexpired port links, revoked ones marked (never their URLs)", access: accScope, scope: auth.ScopeExec, status: 200, resp: "PortLinkList", h: (*Server).handleListPortLinks},
		{method: "DELETE", path: ws + "/port-links/{id}", op: "revokePortLink", summary: "Revoke a port link: it is refused (410 gone) from now on", access: accScope, scope: auth.ScopeExec, status: 204, h: (*Server).handleRevokePortLink},
		{method: "GET", path: ws + "/ports/{port}", op: "portRoot", summary: "Redirect to the port's preview, …/ports/{port}/", access: accPort, scope: auth.ScopeExec, status: 301, h: (*Server).handlePortRoot},
		{method: "GET", path: ws + "/port-forward/{port}", op: "portForward", summary: "A TCP connection to a port of the workspace's sandbox over the upgraded request (Upgrade: desk-port-forward; desk port-forward)", access: accScope, scope: auth.ScopeExec, lease: true, status: 101, h: (*Server).handlePortForward},
	}, portProxyRoutes(ws)...), []route{
		{method: "POST", path: ws + "/mounts", op: opMount, summary: "Mount the workspace through FUSE on a directory of the server's machine while the response streams: mounted, keep-alives, unmounted (admin; docs/api.md)", access: accAdminWorkspace, lease: true, body: "MountRequest", status: 200, resp: "stream:MountEvent", h: (*Server).handleMount},
		{method: "DELETE", path: ws + "/mounts/{id}", op: "unmount", summary: "Unmount a mount made by POST …/mounts; returns once it is unmounted (admin)", access: accAdminWorkspace, lease: true, status: 204, h: (*Server).handleUnmount},

		{method: "GET", path: ws + "/changes", op: "changes", summary: "Changes since a cursor (follow=1: streamed live)", access: accScope, scope: auth.ScopeRead, lease: true, query: []param{pSince, pLimit, pFollow}, status: 200, resp: "ChangeList", h: (*Server).handleChanges},

		{method: "GET", path: ws + "/tools", op: "listTools", summary: "The agent tools this token may use, with their JSON Schemas (docs/mcp.md)", access: accWorkspace, lease: true, status: 200, resp: "ToolList", h: (*Server).handleListTools},
		{method: "POST", path: ws + "/tools/{name}", op: "callTool", summary: "Call an agent tool with its JSON input; a tool failure is a 200 with is_error (Accept: application/x-ndjson streams progress lines first)", access: accWorkspace, lease: true, body: "object", status: 200, resp: "ToolResult", h: (*Server).handleCallTool},

		{method: "GET", path: ws + "/policy", op: "getPolicy", summary: "The workspace's egress policy in force (its own, or the server's default)", access: accScope, scope: auth.ScopeRead, status: 200, resp: "PolicyInfo", h: (*Server).handleGetPolicy},
		{method: "PUT", path: ws + "/policy", op: "setPolicy", summary: "Set the workspace's egress policy: text (none, all, allow RULE; RULE) or mode and rules (admin)", access: accAdminWorkspace, body: "PolicyRequest", status: 200, resp: "PolicyInfo", h: (*Server).handleSetPolicy},
		{method: "DELETE", path: ws + "/policy", op: "deletePolicy", summary: "Remove the workspace's egress policy: the server's default applies (admin)", access: accAdminWorkspace, status: 204, h: (*Server).handleDeletePolicy},
		{method: "GET", path: ws + "/rules", op: "getRules", summary: "The workspace's path and command rules (package policy; docs/api.md)", access: accScope, scope: auth.ScopeRead, status: 200, resp: "RulesInfo", h: (*Server).handleGetRules},
		{method: "PUT", path: ws + "/rules", op: "setRules", summary: "Replace the workspace's path and command rules (admin)", access: accAdminWorkspace, body: "Rules", status: 200, resp: "RulesInfo", h: (*Server).handleSetRules},
		{method: "DELETE", path: ws + "/rules", op: "deleteRules", summary: "Remove the workspace's path and command rules (admin)", access: accAdminWorkspace, status: 204, h: (*Server).handleDeleteRules},
		{method: "GET", path: ws + "/limits", op: "getLimits", summary: "The workspace's own limits (quota bytes and inodes, executions per minute, CPU per day) and those in force over the server's", access: accScope, scope: auth.ScopeRead, status: 200, resp: "LimitsInfo", h: (*Server).handleGetLimits},
		{method: "PUT", path: ws + "/limits", op: "setLimits", summary: "Set the workspace's own limits; the open store takes the quota at once (admin)", access: accAdminWorkspace, lease: true, body: "Limits", status: 200, resp: "LimitsInfo", h: (*Server).handleSetLimits},
		{method: "DELETE", path: ws + "/limits", op: "deleteLimits", summary: "Remove the workspace's own limits: the server's hold (admin)", access: accAdminWorkspace, lease: true, status: 200, resp: "LimitsInfo", h: (*Server).handleDeleteLimits},
		{method: "GET", path: ws + "/approvals", op: "listApprovals", summary: "The workspace's calls pending approval: script, rule, who asked (a token with approve); wait=DURATION holds the answer until one is pending", query: []param{pWaitFor, pVersion}, access: accScope, scope: auth.ScopeApprove, lease: true, status: 200, resp: "ApprovalList", h: (*Server).handleListApprovals},
		{method: "POST", path: ws + "/approvals/{id}/approve", op: "approve", summary: "Let a pending call go on (a token with approve, not the one that asked)", access: accScope, scope: auth.ScopeApprove, lease: true, status: 200, resp: "Approval", h: (*Server).handleApprove},
		{method: "POST", path: ws + "/approvals/{id}/deny", op: "deny", summary: "Fail a pending call (a token with approve, not the one that asked)", access: accScope, scope: auth.ScopeApprove, lease: true, status: 200, resp: "Approval", h: (*Server).handleDeny},
		{method: "POST", path: ws + "/approvals/{id}/elicited", op: "elicited", summary: "An MCP client's answer to an elicitation about a pending call, relayed by desk serve's front to the workspace's worker (refused from anyone else)", access: accWorkspace, lease: true, body: "ElicitAnswer", status: 200, resp: "Approval", h: (*Server).handleElicited},
		{method: "GET", path: ws + "/secrets", op: "listSecrets", summary: "List the workspace's secrets: names, hosts, placeholders, never values (admin)", access: accAdminWorkspace, status: 200, resp: "SecretList", h: (*Server).handleListSecrets},
		{method: "PUT", path: ws + "/secrets/{name}", op: "setSecret", summary: "Store a secret bound to hosts; executions see only a placeholder in $NAME (admin)", access: accAdminWorkspace, body: "SecretRequest", status: 200, resp: "Secret", h: (*Server).handleSetSecret},
		{method: "DELETE", path: ws + "/secrets/{name}", op: "deleteSecret", summary: "Delete a secret (admin)", access: accAdminWorkspace, status: 204, h: (*Server).handleDeleteSecret},

		{method: "POST", path: ws + "/shares", op: "createShare", summary: "Share a file: a link anyone holding it may GET until it expires, to a copy frozen now (the URL is shown only in this answer)", access: accScope, scope: auth.ScopeWrite, lease: true, body: "ShareRequest", status: 201, resp: "Share", h: (*Server).handleCreateShare},
		{method: "GET", path: ws + "/shares", op: "listShares", summary: "List the workspace's share links (never their URLs), ended ones while kept", access: accScope, scope: auth.ScopeRead, query: []param{pAfter, pLimit}, status: 200, resp: "ShareList", h: (*Server).handleListShares},
		{method: "DELETE", path: ws + "/shares/{id}", op: "revokeShare", summary: "Revoke a share link: it stops working at once and its copy is removed", access: accScope, scope: auth.ScopeWrite, status: 204, h: (*Server).handleRevokeShare},
		{method: "GET", path: "/s/{token}", op: "getShare", summary: "A share link's content (no token: the link is the capability); Range, If-None-Match and HEAD supported; 410 gone once expired or revoked", access: accPublic, status: 200, resp: "binary", h: (*Server).handleGetShare},

		{method: "POST", path: ws + "/artifacts", op: "createArtifact", summary: "Publish the workspace's git repository (or one at a path) for git clone, fetch and push at /git/{ws}/{name}.git with artifact tokens", access: accScope, scope: auth.ScopeWrite, lease: true, body: "ArtifactRequest", status: 201, resp: "Artifact", h: (*Server).handleCreateArtifact},
		{method: "GET", path: ws + "/artifacts", op: "listArtifacts", summary: "List the workspace's published repositories", access: accScope, scope: auth.ScopeRead, status: 200, resp: "ArtifactList", h: (*Server).handleListArtifacts},
		{method: "DELETE", path: ws + "/artifacts/{name}", op: "deleteArtifact", summary: "Unpublish a repository and forget its tokens (the repository is kept)", access: accScope, scope: auth.ScopeWrite, status: 204, h: (*Server).handleDeleteArtifact},
		{method: "POST", path: ws + "/artifacts/{name}/tokens", op: "createArtifactToken", summary: "Mint a read or write token of a published repository (the secret and the clone URL with it are shown only in this answer)", access: accScope, scope: auth.ScopeWrite, body: "ArtifactTokenRequest", status: 201, resp: "ArtifactToken", h: (*Server).handleCreateArtifactToken},
		{method: "GET", path: ws + "/artifacts/{name}/tokens", op: "listArtifactTokens", summary: "List a published repository's tokens (never their secrets)", access: accScope, scope: auth.ScopeRead, status: 200, resp: "ArtifactTokenList", h: (*Server).handleListArtifactTokens},
		{method: "DELETE", path: ws + "/artifacts/{name}/tokens/{id}", op: "revokeArtifactToken", summary: "Revoke an artifact token: it stops working at once", access: accScope, scope: auth.ScopeWrite, status: 204, h: (*Server).handleRevokeArtifactToken},
		{method: "GET", path: "/git/{ws}/{repo}/info/refs", op: "gitInfoRefs", summary: "git smart HTTP: a published repository's refs (?service=git-upload-pack or git-receive-pack; the artifact token is the basic-auth password)", access: accPublic, query: []param{pService}, status: 200, resp: "binary", h: gitRoute("info/refs")},
		{method: "POST", path: "/git/{ws}/{repo}/git-upload-pack", op: "gitUploadPack", summary: "git smart HTTP: clone and fetch (a read or write artifact token)", access: accPublic, body: "binary", status: 200, resp: "binary", h: gitRoute("git-upload-pack")},
		{method: "POST", path: "/git/{ws}/{repo}/git-receive-pack", op: "gitReceivePack", summary: "git smart HTTP: push (a write artifact token; fast-forwards only; the checked-out branch's work tree follows)", access: accPublic, body: "binary", paced: true, status: 200, resp: "binary", h: gitRoute("git-receive-pack")},

		{method: "POST", path: "/mcp/{ws}", op: "mcpPost", summary: "MCP over streamable HTTP: JSON-RPC messages from the client (bearer: a workspace token)", access: accPublic, body: "object", status: 200, resp: "object", h: (*Server).handleMCP},
		{method: "GET", path: "/mcp/{ws}", op: "mcpGet", summary: "MCP over streamable HTTP: the session's server-to-client event stream", access: accPublic, status: 200, resp: "text", h: (*Server).handleMCP},
		{method: "DELETE", path: "/mcp/{ws}", op: "mcpDelete", summary: "MCP over streamable HTTP: end a session", access: accPublic, status: 200, h: (*Server).handleMCP},

		{method: "GET", path: "/v1/audit", op: "audit", summary: "Audit records, paged by a cursor (Accept: application/x-ndjson: every record selected, as NDJSON; follow=1: then each new one) (admin; docs/api.md)", access: accAdmin, query: []param{pAuWS, pAuActor, pAuSession, pAuAction, pAuPath, pAuSince, pAuUntil, pAuAfter, pLimit, pFollow}, status: 200, resp: "AuditList", h: (*Server).handleAudit},
		{method: "GET", path: "/v1/audit/verify", op: "auditVerify", summary: "Verify the audit journal's hash chains (workspace=: one chain, - the host's); the problems found (admin)", access: accAdmin, query: []param{pAuWS}, status: 200, resp: "AuditReport", h: (*Server).handleAuditVerify},

		{method: "POST", path: "/v1/tokens", op: "mintToken", summary: "Mint a workspace token; the secret is shown only here (admin)", access: accAdmin, body: "TokenRequest", status: 201, resp: "MintedToken", h: (*Server).handleMintToken},
		{method: "GET", path: "/v1/tokens", op: "listTokens", summary: "List workspace tokens (admin)", access: accAdmin, query: []param{pAfter, pLimit}, status: 200, resp: "TokenList", h: (*Server).handleListTokens},
		{method: "DELETE", path: "/v1/tokens/{id}", op: "revokeToken", summary: "Revoke a workspace token (admin)", access: accAdmin, status: 204, h: (*Server).handleRevokeToken},
	}...)
}
