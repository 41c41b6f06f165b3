// Package search is desk's one implementation of find and grep over a
// workspace store: the bounded walk, the grep engine and the size checks of
// expressions. The API's find and grep endpoints and the find and grep
// tools are thin adapters over it (paging, output shapes); the shell's
// grep and rg check their expressions with CheckRegexp. It is layer 1: it
// imports internal/vfs and internal/glob (and mvdan.cc/sh/v3/pattern at
// most, which archtest enforces).
//
// # Walk
//
// Walk visits a tree depth first in name (byte) order without following
// symlinks. Each directory is read in pages of 128 entries with their
// attributes (and, for grep, the content of small files) in one statement
// (vfs.ReadDirFiles). A page is dropped when the walk goes down into a
// subdirectory and the listing is read again after it, so a walk holds one
// page whatever the depth of the tree. Walk.From starts a walk at a path
// (the API's grep cursor) without reading what comes before it
// (an ancestor of From that is no longer a directory is passed over), and
// FindAfter resumes a find after a path, returning the last entry visited:
// the tools' cursors, with which a walk stopped at MaxEntries goes on.
//
// # Grep
//
// Grep searches one file or the regular files of a tree for a Regexp, a
// line at a time (lines split at "\n", a trailing "\r" dropped), with
// context lines, an include glob and a cursor to resume at. Binary files
// (a NUL in the first 8000 bytes) and files over MaxFileBytes are skipped
// and counted. Where the expression requires a literal (Prefilter: the
// longest it must contain; case-insensitive where folding stays ASCII), it
// is found over the whole file with bytes.Index and the expression runs
// only on the lines holding it (not at all for a literal query); the
// shell's grep uses the same Prefilter over its blocks. Otherwise a file is
// first matched whole in multi-line mode, 64 KiB of
// whole lines at a time, so files without a match cost one scan; lines and
// texts over 64 KiB are matched through a reader that stops when the call's
// context is done, so one huge line cannot hold a call past it.
//
// # Limits
//
// Limits bound every call; a zero field takes its default:
//
//	MaxEntries       100,000  directory entries a walk visits
//	MaxBytes         64 MiB   file bytes one grep reads
//	MaxFileBytes     8 MiB    grep skips larger files (counted)
//	MaxPatternBytes  1024     a grep query (globs: the callers check it)
//	MaxRegexpInsts   2000     the compiled program of a query
//	MaxTime          30s      one call
//
// A walk or grep that reaches MaxEntries, MaxBytes or MaxTime stops with a
// *LimitError (errors.Is ErrLimit) naming the limit; what it found until
// then stands, and Grep.Next says where to go on (Line EndLine: after a
// whole file, which a resumed search does not read again). A query over
// MaxPatternBytes or MaxRegexpInsts is refused by Compile with an error
// wrapping ErrRegexpTooLarge; the size is estimated from the parse tree
// before a program is built, so "(?:x{1000}){1000}" costs nothing. RE2
// matching is linear in the text, but each byte can cost a step per
// instruction ("[a-y]{0,1000}z" on a megabyte of "a" takes over a minute
// in Go's regexp): the instruction cap keeps a line's cost bounded, and
// MaxTime and the context the rest. Every call honours its context: the
// walk checks it at each page, grep every 1024 lines and inside long lines.
package search
