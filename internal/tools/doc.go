// Package tools is the agent tool set of a workspace, defined once and served
// by MCP (internal/mcp), the HTTP API (POST /v1/workspaces/{ws}/tools/{name})
// and in-process Go code alike: read, write, edit, ls, find, grep, delete,
// exec and publish.
//
// # Definitions
//
// Every tool has a name, a description written for a model (what it does,
// when to prefer it, its limits), a JSON Schema (draft 2020-12) for its input
// and one for its structured output, MCP annotations (read-only, destructive,
// idempotent) and the token scopes a caller needs (read; write; read and
// write for edit, which shows content; exec). Definitions returns them with
// the default options; Set.Tools for a set, whose exec description lists the
// runtime's backends. The schemas are checked against golden files in
// testdata/.
//
// # Calling
//
// New makes a Set over a store and (for exec) its runtime; a Set is cheap,
// so adapters make one per call. Call takes a tool name and its JSON input
// and returns a Result: content for the model (text; an image for read of an
// image) and the structured output. Typed methods (Read, Write, EditFile, Ls,
// Find, Grep, Delete, Exec) do the same for Go callers:
//
//	st := tools.NewState(ws.FS()) // one per open store, kept by its owner
//	set, _ := tools.New(st, ws.Runtime(), tools.Options{})
//	out, err := set.Read(ctx, tools.ReadInput{Path: "main.go"})
//	// out.Text is "1\tpackage main\n..."; err, if any, is a *tools.Error
//
// Every error is an *Error with a stable code (CodeNotFound, CodeNoMatch,
// CodeConflict, ...) and a message that says what to do, never a raw Go
// error; AsError converts store and runtime errors, and the policy's: a
// command a rule denies, an approval denied or timed out are
// CodeForbidden with the policy's message (the rule, the approver), too
// many pending approvals CodeBusy. Input is decoded
// strictly: an unknown field is an error naming the tool's fields.
//
// # Paths
//
// Paths are workspace (store) paths, as the shell and js backends see them;
// a relative path is taken from /workspace (package wspath, the one path
// model of every surface), which is the working directory of executions and
// what the sandbox mounts, so "src/a.go" means the same file to read, to
// `cat src/a.go` in exec, to `desk fs cat src/a.go` and to GET
// …/files/src/a.go. Results give absolute paths.
//
// Names are shown in the form of package client/quote: as they are when
// printable UTF-8 not beginning with a double quote, Go-quoted otherwise
// ("a\nb"), element by element. Every result — text, structured fields,
// diff headers, error messages — shows paths so (quote.Path at the point a
// store path becomes output; AsError quotes its path), and resolve unquotes
// every path argument, so a listed name is always a valid input and no name
// can forge a line.
//
// # Behaviours
//
//   - read: "N\t" line numbers; at most MaxReadLines (2000) lines and
//     MaxReadBytes (256 KiB) per call; lines over MaxLineBytes (2000) cut with
//     a marker; a truncated result names the offset to continue from. A
//     continuation does not read the file's prefix again: the byte offset
//     where a read stopped is remembered per file version (inode, size,
//     mtime, ctime) and the next read seeks there through a handle (a ranged
//     read). PNG, JPEG, GIF and WebP files come back as image content (up to
//     MaxImageBytes); other binary files (a NUL byte or invalid UTF-8 in the
//     first 8000 bytes) as "binary file, N bytes, type X".
//   - write: whole files, at most MaxWriteBytes (2 MiB; the error suggests
//     edit); missing parents are created (0755); an existing file keeps its
//     inode and mode; new files are 0644.
//   - edit: each old must match exactly once (else: how many times and on
//     which lines, or the closest lines); only when there is no exact match,
//     a match ignoring runs of blanks, trailing blanks and typographic quotes
//     is tried and mapped back onto the original bytes; all edits or none;
//     CRLF line endings and a UTF-8 byte-order mark are kept; the result is a
//     unified diff and the new revision. The file is replaced in a vfs.Batch
//     that first checks the file is unchanged since it was read (inode,
//     size, mtime, ctime), so a concurrent writer outside the tools (an
//     execution) makes the edit fail with a conflict instead of being lost.
//   - ls, find, grep: deterministic (depth first, byte order of names), paged
//     by limit and a cursor (offset too, for older callers: it re-reads what
//     it skips). A result that is Truncated or Incomplete carries NextCursor,
//     an opaque position (cursor.go: the tool, the root, the last name or
//     path, a line for grep, the count before it), which the next call
//     resumes from at the cost of its own page: ls lists after the name,
//     find and grep start the walk there (search.FindAfter, Grep.After)
//     without reading what comes before. It is a position in name order, not
//     a snapshot: names created after it are seen, before it or removed are
//     not, nothing twice. find and grep are package search's engine (the
//     API's too): a walk of at most MaxWalk entries that holds one directory
//     page at a time, grep reading at most MaxGrepBytes, both within
//     MaxSearchTime; past any of them the result is Incomplete, says which
//     (grep: and how many files it searched), and NextCursor goes on after
//     the last entry visited, so a bounded walk is never a silent
//     truncation. find and grep's include take package glob's globs (star, ?,
//     [...], {a,b}, and a double star for any depth; a pattern without "/"
//     matches names at any depth). grep is RE2, a query of at most
//     MaxPatternBytes compiling to at most MaxRegexpInsts instructions; it
//     skips binary files and files over MaxGrepFileBytes (counted), cuts
//     lines at MaxGrepLineBytes. ls reads a directory a page at a time and
//     checks ctx between pages.
//   - delete: files, symlinks, empty directories; recursive for the rest;
//     never "/".
//   - publish: a share link to a file (Options.Publisher, the server's share
//     store: package share): a copy frozen now, served without credentials
//     until expires_in seconds pass (default 3600, at most 604800); files up
//     to MaxPublishBytes, the store's bound, as the description states.
//     Offered only with a Publisher; it takes the path's lock shared, like
//     read, so it never copies half of a tool's write.
//   - exec: through run.Runtime (backend, cwd, env, timeout in seconds,
//     stdin, js input); waits for the end; each stream shown up to
//     MaxExecOutput bytes as head and tail with the elided byte count (the
//     execution record keeps up to the runtime's OutputLimit); progress
//     reports (CallOptions.Progress) as output arrives; a cancelled ctx kills
//     the execution (SIGKILL) and waits for its end.
//
// # Revisions
//
// A revision is a change-journal sequence number. read returns the store's
// sequence number from before it read; write and edit the number of their own
// change (found in the journal by the set's actor, Options.Actor). edit's
// expected_revision R fails with CodeConflict when a journal entry after R
// touches the file: its inode or path, or a rename or removal of a directory
// above it (attribute changes do not count). At most MaxRevisionScan entries
// are read; an older R, or one the journal no longer holds, is a conflict
// too (read again).
//
// # Concurrency
//
// Tool calls on one path are serialised: read takes the path's lock shared,
// write, edit and delete exclusively, keyed by the path with symlinks
// resolved. So a write and an edit of the same file never interleave, and a
// read never sees half of a write. The locks and the read offsets are a
// State, one per open store, which its owner keeps and every Set over the
// store shares (the host keeps one per open workspace: host.Lease.Tools). Writes are attributed in the journal to Options.Actor ("tool").
//
// # Limits
//
// Every cap is an Options field with a documented default (see Options),
// except edit's, which are fixed:
//
//   - edit takes at most MaxEdits (100) edits per call (too_large past it);
//     each old and each new is at most MaxEditFileBytes, and so is the text
//     after every edit (too_large, naming the edit). A call's work is thus
//     at most MaxEdits scans of a text under MaxEditFileBytes; an edit that
//     only matches tolerantly also folds the text (9 bytes a byte).
//   - edit's diff is internal/textdiff's minimal one, in O(N+M) memory, up
//     to a cost of textdiff.DefaultMaxCost (4,096) lines deleted plus
//     inserted (lower when (N+M)·D would pass textdiff.DefaultMaxWork,
//     10^8); past that it shows the changed block replaced whole, and the
//     text content says so. Lines found nowhere in the other text do not
//     count, so a block rewritten from scratch gets its exact diff. The diff
//     is GNU's unified format ("\ No newline at end of file" included), so
//     GNU patch applies it; it is cut at MaxDiffBytes.
package tools
