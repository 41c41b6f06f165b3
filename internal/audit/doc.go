// Package audit is desk's audit journal: who did what, allowed or refused,
// changing which files, and proof that the record was not edited since.
//
// # Records
//
// A Record is one audited event: an API request (KindAPI), an MCP request
// (KindMCP), an execution's end (KindExec), a policy decision (KindPolicy),
// an approval (KindApproval) or another administrative action (KindAdmin).
// It carries the time; the actor ("admin", or the token's id, also in
// TokenID); the client's Labels (the X-Desk-Agent, X-Desk-Session,
// X-Desk-Model and X-Desk-Turn headers, or desk/agent, desk/session,
// desk/model and desk/turn in an MCP request's _meta; what the client says
// about itself, not authenticated); the workspace; the action (the API
// route's operation id, the MCP method, "execution") and its arguments
// (Args: the method and path, the query, an execution's source and its
// environment's names, a tool's name and input); the policy Decision and
// its Rule; the Outcome ("ok", an error code, an execution's status); and
// the Changes: the ranges of the workspace's change-journal sequence
// numbers (package vfs) the call caused, with the Paths they touched. A
// file change traces back to its call (Filter.Path, or a record whose
// ranges hold the change's number) and a call forward to its changes (its
// ranges, read from GET …/changes).
//
// Bounds (normalize, at Append): MaxArgs arguments of MaxArgBytes each,
// MaxErrorBytes of error text, MaxLabelBytes per label, MaxSpans ranges
// (further ones widen the last) and MaxPaths paths; what is cut marks the
// record Truncated. Secrets: an argument whose name says credential
// (token, secret, password, key, authorization, cookie...) is replaced by
// Redacted; every other argument and the error text go through
// Options.Redact, which desk gives the workspace's egress secrets
// (api.SecretRedactor: each value becomes [secret NAME]). Request bodies
// other than those arguments, response bodies and the Authorization header
// are never recorded.
//
// # Storage and the hash chains
//
// A Store is one SQLite file per host, DATA/audit.db (FileName), opened by
// desk serve and by each of its workers (each append is one BEGIN IMMEDIATE
// transaction, so the processes' appends are serialised; WAL,
// synchronous=NORMAL: a record survives the process's crash as soon as
// Append returns, and a power loss loses at most the last transactions,
// never the chain's consistency). It holds one hash chain per workspace
// and one for the host (Workspace ""): each record's N is its position in
// its chain, its Prev the previous record's Hash, and its Hash the SHA-256
// of Prev and the record's canonical JSON (every field but ID and Hash).
// The indexed columns queries use are checked against the hashed JSON.
// Verify walks every chain and reports a record modified, inserted,
// removed or reordered, and a chain cut at its end; the chain heads it
// returns, kept elsewhere (desk audit verify prints them), also detect a
// rewrite of a whole chain by someone who can recompute the hashes, which
// a hash chain alone cannot.
//
// Append-only from the API's point of view: nothing in desk updates or
// deletes a record except retention and a workspace's deletion.
//
// # Retention and deletion
//
// Records older than Options.Retention (DefaultRetention, 90 days; desk
// serve --audit-retention) are removed at Open and hourly (Trim); the
// chain remembers the number and hash of its newest removed record, from
// which Verify starts. DeleteWorkspace removes a workspace's records and
// its chain (desk ws rm), with secure_delete on and the write-ahead log
// checkpointed, so that no byte of them remains in the files; the host's
// chain keeps the record of the deletion (who, when, the name). A chain
// per workspace is what lets one be deleted without breaking the others.
//
// Which chain a record joins: the workspace's; a token's call on another
// workspace joins the token's own workspace's chain (naming the other in
// its arguments), and an unauthenticated call the host's, so that no chain
// is made for a workspace that no one may use.
//
// # Queries
//
// Query selects by workspace, actor (or token id), session label, action,
// changed path and time, in ID order with a cursor (at most 1000 a page);
// Follow streams new records (this process's appends wake it at once,
// other processes' at its next poll). GET /v1/audit and desk audit are
// built on them.
//
// # Cost
//
// One append is one SQLite transaction: BenchmarkAuditOverhead (package
// api) measures what it adds to a request and the journal's size per
// 100,000 records (docs/benchmarks.md).
package audit
