// Package share keeps share links: frozen copies of workspace files behind
// unguessable URLs that anyone holding one may GET, without a token, until
// the link expires or is revoked. desk serve's API makes them (POST
// /v1/workspaces/{ws}/shares, the publish tool) and serves them at
// /s/{token}; docs/api.md is the user's manual.
//
// # Layout
//
// A Store lives in a directory (desk serve: DATA/shares):
//
//   - index.db: one SQLite table (WAL mode, via internal/sqlite) of the
//     shares: id, the SHA-256 of the link's token (never the token), the
//     workspace, path, size, content digest, content type, disposition,
//     creation, expiry, revocation, and where the content is.
//   - blobs/XX/SHA256: the content, one file per distinct content
//     (content-addressed: two shares of the same bytes share one file).
//   - tmp/: spool files of shares being made.
//
// Several processes open the same directory at once: desk serve's front
// serves, lists and revokes links and sweeps; each workspace's worker
// makes them (it holds the workspace's store). Every change of the index
// is a BEGIN IMMEDIATE transaction, which SQLite serialises across
// processes, and content files are created (a hard link from the spool
// file) and removed (when no share holds them any more) only inside those
// transactions, so a removal never races a new share of the same bytes.
// A reader sees every commit at its next statement: a revocation or an
// expiry takes effect at the front's next request, whoever made it.
//
// # Links and tokens
//
// A link's token is TokenBytes (24) random bytes, base64url (192 bits);
// the index keeps only its SHA-256, so Create returns the URL once, like an
// API token's secret. Local links are BaseURL/s/TOKEN. With Options.Remote
// (package s3remote) the content is put in an S3 bucket as PREFIX/WS/ID
// with its content type and disposition, and the link is the bucket's
// presigned GET URL, signed at the share's creation (the store's clock)
// and valid for the share's life, which the S3 server enforces.
//
// # Life
//
// A share lives TTL (DefaultTTL, 1 h; at most MaxTTL, 7 days). Open
// answers ErrGone from its expiry or revocation on (the API: 410 gone), and
// ErrNotFound for a token the index does not know (404). Revoke removes the
// content at once (a download already under way finishes from its open
// file); Sweep removes the content of expired shares and forgets shares
// ended more than Retain (24 h) ago, after which their links are 404.
// DeleteWorkspace forgets all of a workspace's shares (desk serve calls it
// when the workspace is deleted).
//
// # Content
//
// Create copies the source to a spool file while hashing it, so what the
// link serves is the file as it was then; later writes, renames and
// deletion change nothing. The content type is internal/mediatype's: by
// the name's extension, else sniffed from the first bytes.
//
// # Limits
//
// MaxFileBytes (1 GiB) per file, checked before the copy when the size is
// known and during it; MaxShares (1000) shares per workspace, ended ones
// included (the oldest ended are forgotten first to make room);
// MaxWorkspaceBytes (8 GiB) of live shares' content per workspace. Past
// them: ErrTooLarge, ErrTooMany.
//
// # Errors
//
// ErrNotFound, ErrGone, ErrTooLarge, ErrTooMany, ErrInvalid (a bad expiry,
// disposition or path), ErrClosed, each wrapped "verb noun: %w"; a path
// that is a directory or not a regular file is an *fs.PathError (EISDIR,
// EINVAL), and a missing one the store's ENOENT.
package share
