// Package auth decides who may call the desk HTTP API: one admin token for the
// whole host, and workspace tokens, each confined to one workspace and a set
// of scopes, that the admin mints and revokes.
//
// # Tokens
//
// The admin token is 32 random bytes in base64url (43 characters). Open
// generates it on the first start into <data>/admin.token (mode 0600; the
// caller prints it once) and reads it from there afterwards, unless
// Options.AdminToken gives one, which is then used and never written.
//
// A workspace token reads "desk_<id>_<secret>": id is 16 hex digits, secret 32
// random bytes in base64url. The id finds the token in O(1); the secret is
// compared in constant time with the SHA-256 digest kept for it. The secret
// itself is never stored: Mint returns it once.
//
// A token carries a workspace name, scopes (read, write, exec; independent of
// one another: write does not imply read) and, for exec, the backends it may
// run (none listed: every backend). Revoke marks a token revoked; it stops
// working at once and stays listed.
//
// # Storage
//
// Tokens live in <data>/host.db, an SQLite database (mode 0600, through
// internal/sqlite) with one table, tokens(id, token), whose token column is
// the token's JSON (digest, workspace, scopes, backends, created, revoked);
// the file carries its own application id ("dskt"), so another SQLite file is
// never taken for it. Every Mint and Revoke is one transaction, durable when
// it returns (rollback journal, synchronous=FULL). All tokens are also held in
// memory, so Authenticate does no I/O; only this process opens the file (an
// flock keeps others out: a second Open fails with "in use").
//
// Before, host.db was a whole workspace store (internal/vfs) with the tokens
// as records of kind "token". Open migrates such a file in place on its first
// open: in one transaction it copies the token records into the table and
// drops every other table (a crash leaves either layout whole), then leaves
// WAL mode and vacuums. A host.db that is neither empty, nor a token store,
// nor the old layout is refused with an error naming it, and left alone. At most Options.MaxTokens (default 10,000)
// records are kept: past it, Mint drops the oldest revoked tokens, and fails
// with ErrTooMany if none is revoked.
//
// # Errors
//
// Wrapped "verb noun: %w" around ErrUnauthorized (missing, malformed, unknown
// or revoked token: HTTP 401), ErrForbidden (a valid token outside its
// workspace or scopes: 403), ErrNotFound (Revoke or Get of an unknown id: 404),
// ErrInvalid (bad mint request: 400) and ErrTooMany (409).
package auth
