// Package artifact publishes workspaces' git repositories: a name for a
// repository of a workspace, tokens to reach it, and git's smart-HTTP
// protocol served from the workspace's store. desk serve's API makes and
// lists them (/v1/workspaces/{ws}/artifacts) and serves git at
// /git/{ws}/{name}.git; docs/api.md is the user's manual.
//
// # The index
//
// A Store lives in a directory (desk serve: DATA/artifacts) holding
// index.db, one SQLite database (WAL mode, via internal/sqlite) of two
// tables: the artifacts (workspace, name, path, creation) and their tokens
// (id, the SHA-256 of the secret, scope, creation, expiry, revocation).
// desk serve's front and each workspace's worker open the same directory:
// every change is a BEGIN IMMEDIATE transaction, which SQLite serialises
// across processes, and a read sees every commit at its next statement, so
// a revocation holds at the next request whoever made it.
//
// # Tokens
//
// A token names one artifact and a scope: ScopeRead (clone, fetch) or
// ScopeWrite (also push). Its secret is TokenPrefix and TokenBytes (24)
// random bytes in base64url; the index keeps only its digest, so Mint
// returns it once. It lives DefaultTTL (24 h) unless asked, at most MaxTTL
// (30 days). Authorize answers ErrUnauthorized for a missing, unknown,
// expired or revoked token (saying which), ErrForbidden for a read token
// asked to write, ErrNotFound for an unknown artifact.
//
// # Serving git
//
// Server.Serve answers one smart-HTTP request (Service tells which) from a
// workspace's *vfs.FS with go-git v6's server side
// (plumbing/transport.UploadPack and ReceivePack, stateless RPC, protocols
// v0 to v2, negotiation, shallow and deepen, side-band) over
// gitws.Billy6, the store as a go-billy v6 filesystem. The repository is
// the artifact's Path: a work tree holding .git, or a bare repository. It
// is served in place: nothing is copied, so a fetch sees the workspace's
// latest commits and a push lands in the store (and in its change
// journal) like any other write.
//
// A push passes desk's rules before any ref moves (the PreReceive hook;
// a refusal is the reason git shows for each ref): updates must be
// fast-forwards, even forced ones; the checked-out branch may not be
// deleted; an update of the checked-out branch moves the index and work
// tree with it (gitws.UpdateWorkTree, git's two-way merge), and is refused
// when that would overwrite a local change or an untracked file.
//
// # Limits
//
// MaxArtifacts (100) per workspace; MaxTokens (100) per artifact, ended
// ones included (the oldest ended are forgotten to make room). A push's
// body at most Server.MaxPushBytes (DefaultMaxPushBytes, 1 GiB), a fetch's
// at most MaxRequestBytes (16 MiB), after gzip decoding: ErrTooLarge. A
// clone reads the repository's pack files whole into memory at their first
// open, at most MaxPackCacheBytes (256 MiB) per request (past it they are
// read from the store); packs are sent without recomputed deltas unless
// Server.Deltas.
//
// # Errors
//
// ErrNotFound, ErrExists, ErrInvalid, ErrTooMany, ErrUnauthorized,
// ErrForbidden, ErrTooLarge, ErrClosed, each wrapped "verb noun: %w".
package artifact
