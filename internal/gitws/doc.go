// Package gitws is git over the workspace store: the git command of the
// shell backend (and, later, of the js backend and the tools), run
// in-process on the store with github.com/go-git/go-git/v5 for the object
// database, pack files, the index format, configuration parsing and the
// smart protocol, and this package's own porcelain for the command lines,
// their output and exit statuses.
//
// # The store as a billy filesystem
//
// Billy is a go-billy v5 filesystem over a directory of the vfs store:
// every call goes straight to the store with the command's context, so
// go-git reads and writes .git in the store (nothing is copied to the host,
// no temporary directory is used). File locks (go-git locks refs and
// packed-refs) are in-process mutexes per file, which is enough because a
// store is open in one process at a time; they and the tree cache are kept
// per open store (vfs.FS.Attached), not in package variables. The index and
// configuration files are written with vfs.WriteFile, which replaces
// content atomically; go-git's other O_TRUNC writes in .git are staged and
// renamed over the file, which readers see atomically.
//
// While commit and add run, loose objects are buffered in memory (at most
// 32 MiB) and written together in one store transaction before any ref or
// the index is written; reads see them at once. A checkout (clone,
// checkout, switch, reset --hard) writes regular files up to 1,024 or
// 16 MiB per store transaction.
//
// Billy6 is the same adapter as a go-billy v6 filesystem, for go-git v6's
// server side (package artifact serves published repositories with it); it
// shares Billy's paths, errors and locks.
//
// # Published repositories
//
// FindRepo finds the repository at a directory (dir/.git, or dir itself
// when bare), CurrentBranch reads HEAD's branch, and UpdateWorkTree moves a
// work tree and index from one commit to another as git's read-tree -m -u
// (the code behind checkout): what package artifact runs for a push to the
// checked-out branch, refusing with ErrWorkTreeChanged, naming the paths,
// when local changes would be overwritten.
//
// # Commands
//
// Main(env, argv) runs one command line: the global options -C, -c,
// --git-dir, then init, clone, status (long, -s, --porcelain v1 and v2, -b,
// -u, --ignored), add (-A, -u, -f, -n, -N, paths and globs), rm, mv, commit
// (-m, -F, -a, --amend, --author, --date, --allow-empty, paths), log
// (--oneline, -n, --format/--pretty with the common placeholders, --stat,
// -p, --name-only, --name-status, ranges, paths, --all, --reverse), diff
// (work tree, --cached, a revision, two revisions, A..B, A...B, --stat,
// --numstat, --shortstat, --name-only, --name-status, -U, --exit-code,
// --quiet), show, branch, checkout, switch, reset (--soft, --mixed, --hard,
// paths), restore, tag (lightweight, annotated), rev-parse, ls-files,
// cat-file, hash-object, write-tree, symbolic-ref, update-ref, config
// (local, the per-workspace global file $HOME/.gitconfig, -c), clean, merge
// (fast-forward, three-way with git's conflict markers, --no-ff,
// --ff-only, --abort), fetch (git's "From" table with forced updates, the
// remote-tracking refs' reflogs, FETCH_HEAD for merge, checkout and
// rev-parse), pull (fast-forward and merge), push (--force, -q,
// --delete, -u, tags, new branches), reflog (show [-n N] [REF[@{N}]],
// exists), remote (add, remove, -v, get-url,
// set-url), stash (push with -m, -u, -k and paths, save, list, show [-p]
// [-u], apply [--index], pop, drop, clear), format-patch (-<n>, <since>,
// ranges, --root, --stdout, -o, -n/-N, --start-number, --subject-prefix,
// --rfc, -v, -k, --signature, --no-signature, --suffix, --numbered-files,
// -p, --zero-commit, -q), apply (--check, --stat, --numstat, --summary,
// --cached, --index, -R, -p<n>, --allow-empty, -v), cherry-pick and
// revert of one commit (-n, -x, --no-edit, --continue, --abort, --quit),
// am (an mbox as format-patch writes it, from files or stdin; -q), grep
// and describe (below). Supported says which
// subcommands exist; the shell's router sends a script using any other
// (rebase, bisect, ...) to the sandbox, where the real git runs on the
// same .git.
//
// # Stash
//
// A stash is the commits git makes, with the same ids: the index ("index
// on <branch>: <short> <subject>"), the untracked files with -u, and the
// work tree on top (parents HEAD, the index commit and the untracked
// commit), named by refs/stash and its reflog, which is the stash list
// (stash@{n} resolves in every revision). So the real git in the sandbox
// lists, shows and pops a stash pushed here, and the other way round.
// Apply merges the stash into the work tree with the merge code of merge
// (mergeFiles), as git's merge-recursive does: its messages, "Updated
// upstream" and "Stashed changes" as the conflict labels, the result tree
// stored as git stores it, the entry kept on a conflict; without --index
// the changes end unstaged except added files, as in git. Not here: -p,
// --staged, -a (--all), --pathspec-from-file, stash branch, stash create
// and store.
//
// # Format-patch
//
// A patch is byte-identical to the real git 2.39.5's for text files: the
// mbox "From <id> Mon Sep 17 00:00:00 2001" line, From (RFC 2047 encoded
// when not ASCII, quoted when it holds an RFC 822 special), Date in RFC
// 2822 form, Subject with [PATCH n/m] numbering (folded at 78 columns as
// git folds it, RFC 2047 encoded and split at 76 when not ASCII), the MIME
// headers of an 8-bit message, the body, "---", the 72-column diffstat
// and summary, the patch and the signature. The signature is "-- " and
// the version gitVersion ("2.39.5", the git this package follows and git
// version reports), so patches made here and by the sandbox's git agree;
// format.signature, --signature and --no-signature change it as in git.
// Merges are skipped, as git skips them. Not here: --cover-letter,
// --thread, --in-reply-to, --base, --attach/--inline, binary patches
// (git writes "GIT binary patch" data; here a binary file gets "Binary
// files differ", which git apply rejects).
//
// # Apply
//
// git apply reads a unified patch (git's, with its modes, new and deleted
// files, renames and copies; or a traditional diff -u), from files or
// stdin; text around the patches (a mail, a signature) is skipped, so
// format-patch output applies, a series patching one file twice too.
// Each hunk must match exactly (git applies without fuzz), searched from
// its line outwards, a hunk at the top or without trailing context only
// there. Every file patch is applied in memory first: when one fails,
// each failure is reported as git reports it ("error: patch failed:
// <path>:<line>" then "error: <path>: patch does not apply", "No such
// file or directory", "already exists in working directory", "does not
// match index"), the status is 1 and nothing is written. A corrupt patch
// is "fatal: corrupt patch at line N" (128). In a subdirectory only the
// patches below it apply, as in git. Not here: --3way, --reject,
// --directory, --include/--exclude, --recount, --unidiff-zero, binary
// patches (an error naming the file), whitespace warnings and fixes.
//
// # Cherry-pick and revert
//
// One commit's change (revert: its reverse) is merged into HEAD with
// mergeFiles, as git's sequencer does with ort: the same messages, the
// conflict labels "HEAD" and "<short> (<subject>)" ("parent of ..." for a
// revert), the same commit (the picked commit's author, -x's "(cherry
// picked from commit ...)", revert's "Revert" message) and output. A
// conflict leaves the markers, CHERRY_PICK_HEAD or REVERT_HEAD and
// MERGE_MSG, git's error and hints, status 1; git commit or --continue
// concludes it as git does (the picked author kept; --continue strips the
// "# Conflicts" comment, commit --no-edit keeps it, as in git), --abort
// resets. A conflicted merge (here and in git merge) stores the tree of
// its result as ort does. Not here: several commits or ranges, -m
// (mainline), --skip, -e, -s, --ff, strategies; status does not show a
// cherry-pick in progress, and a refused pick stores no merged tree
// (ort stores one before it finds the local change in the way).
//
// # Am
//
// git am splits an mbox at format-patch's From lines, reads each
// message's From (RFC 2047 and quoted names decoded), Date and Subject
// ("[PATCH n/m]" and "Re:" dropped), takes the text up to "---" as the
// message's body, applies the patch to the index and the work tree with
// apply's code (git apply --index) and commits with the mail's author
// and date: the commits are the ones git am makes. A dirty index is
// refused as in git. A patch that does not apply stops am with status 128
// after "Patch failed at NNNN <subject>"; the patches before it stay
// committed, as in git, but no session is kept: --continue, --skip,
// --abort and --show-current-patch are not implemented (git keeps
// .git/rebase-apply for them), nor -3, -s, -k.
//
// # Grep
//
// git grep searches the index's regular files (symlinks and submodules
// are passed over, a conflicted path once) with the work tree's content,
// as git does (a tracked file deleted from the work tree is passed over);
// --cached the index's blobs; revisions after the pattern their trees,
// each line prefixed "<rev>:"; --untracked adds the untracked files (and
// the ignored ones with --no-exclude-standard); --no-index searches the
// working directory as a plain directory (.git passed over). Without a
// path only the working directory's subtree is searched and names are
// relative to it (--full-name: to the top). Pathspecs are git's: paths,
// globs whose "*" crosses "/", ":!x"/":^x"/":(exclude)x", ":/x". As in
// git, options stop at the pattern ("option '-n' must come before
// non-option arguments"), the arguments after it are revisions up to the
// first that is not one, and a path given without "--" must exist.
// Options: -e (several, or'ed), -f, -G (default), -E, -F, -P (RE2's
// syntax), -i, -w (git's rule: a match must be a whole word of ASCII
// letters, digits and "_", else the search goes on after the next
// non-word byte, "^" no longer matching there), -v, -n, --column, -h, -H,
// -l/--name-only, -L, -c, -o, -q, -m/--max-count (the after-context of
// the last match still shown, as git), -A, -B, -C, -NUM with git's "--"
// between groups and files, -z, -a, -I, --heading, --break, --color=never.
// A file with a NUL in its first 8000 bytes is "Binary file X matches".
// The status is 0 when something matched (-L: when a file was listed),
// 1 otherwise. Basic and extended expressions are translated to RE2 by
// internal/posixre (the shell's grep's translator), matched
// leftmost-longest as POSIX regexec does; back-references are refused.
// Not here: --and, --or, --not, --all-match, -p, -W, --recurse-submodules,
// -O, textconv, attributes (binary is only the NUL test), colors.
//
// git grep is bounded: a file or blob over Env.MaxObjectBytes is skipped
// with a warning, the expressions together are at most 1 MiB and 500,000
// RE2 instructions (posixre.Check, before any program is built), a run
// reads at most MaxGrepFiles files and MaxGrepBytes bytes (then stops
// with a fatal error after what it printed), and it stops when the
// context is done (checked per file and every 4096 lines).
//
// # Describe
//
// git describe names a commit (HEAD by default) by the nearest tag it
// reaches: the tag itself when the commit is tagged, else
// "<tag>-<n>-g<abbrev>", n the commits reachable from it and not from the
// tag. The search is git's: a walk in commit date order (ties in git's
// insertion order) keeping the first 10 tags met (--candidates), each
// tag's depth counted as git counts it, the walk finished for the best;
// annotated tags only unless --tags, an annotated tag preferred over a
// lightweight one on the same commit and the newer of two annotated. So
// merges are described as git describes them. Options: --tags, --always,
// --long, --abbrev=N (0: the tag alone), --dirty[=mark] (a tracked change
// in the index or the work tree, untracked files aside), --exact-match,
// --first-parent, --candidates. Errors are git's: "No names found, cannot
// describe anything." (128), "No annotated tags can describe '<id>'.
// However, there were unannotated tags: try --tags.", "No tags can
// describe '<id>'. Try --always, or create some tags.", "no tag exactly
// matches '<id>'". The abbreviation is the first N hex digits (7 by
// default), not lengthened to be unique, as everywhere in this package.
// Not here: --all, --contains, --match, --exclude, --broken. A walk visits
// at most 1,000,000 commits.
//
// Output, exit statuses and the first line of errors follow git 2.39; the
// differential table in internal/shell (git_table_test.go) runs every row
// through this package and through the real git and compares stdout, the
// exit status and the repository left behind as the real git reads it (git
// fsck --strict, every ref, every commit and tree, status, the index).
// Commits made here have the ids the real git gives the same content,
// identity and dates. internal/api's TestGit_interchange works on one
// repository with this package (the shell backend) and the real git in the
// sandbox on the FUSE mount: each reads the other's commits, index and
// conflicts (a merge conflict left by one is resolved by the other), and
// the real git's fsck --strict stays clean.
//
// # Status without reading files
//
// The index keeps each file's stat data (mtime, ctime, size, inode, uid,
// gid) from the store's attributes. Versions 2 and 3 are decoded here
// (go-git's decoder, for version 4 and mandatory extensions, is several
// times slower). Status, diff and add compare the work
// tree's attributes (one ReadDirFiles query per directory) with it and read
// a file only when they differ or when the file changed at or after the
// index was written (git's racy rule); a file found unchanged gets its stat
// data refreshed, as git status does. HEAD's tree, flattened to every
// file by path, is cached by hash across commands (a tree named by its hash
// never changes), so a clean status decodes no tree objects; the cache is
// bounded by MaxTreeCacheEntries files. bench_test.go compares status,
// diff, commit, log and clone with the real git on tmpfs and ext4
// (docs/benchmarks.md).
//
// # Remotes and the network
//
// clone, fetch, pull and push reach a repository elsewhere in the same
// store (a path or file:// URL) through go-git's in-process server over
// billy, and http(s) smart-HTTP remotes through Env.HTTPClient only: that
// client is where the workspace's egress policy plugs in (issue 14), and
// when it is nil http(s) remotes are refused with a clear error. go-git's
// transports are chosen from one global table by URL scheme; each
// operation registers its own transport under a one-time token behind a
// single "deskws" scheme, so no operation uses go-git's defaults (which run
// host binaries for file:// and reach any host for http). ssh:// and git://
// are refused.
//
// Credentials for an http(s) remote come only from Env.Credentials, asked
// once per operation with the remote's URL and sent as HTTP basic
// authentication (a token goes in the password). It is the seam for the
// workspace's secrets: issue 14's secret broker supplies it. A URL with
// user information is refused (its password is never echoed), nothing is
// written to .git/config, and a remote that asks for authentication fails
// with git's "Authentication failed for '<url>'", saying when the secrets
// hold nothing for it. The tests run clone, fetch, pull and push against
// the real git http-backend under net/http/cgi on 127.0.0.1, with and
// without basic authentication, including pushes rejected as git rejects
// them ("fetch first", "non-fast-forward").
//
// # Known differences from git
//
// Rename detection is exact only (same blob): git's similarity-based
// renames are not detected. The index is written without extensions (no
// cache tree, no untracked cache), version 2 (3 with intent-to-add). The
// diff is a shortest edit script (internal/textdiff, minimal mode) without
// git's indent heuristic, so an ambiguous hunk can be placed differently;
// hunk headers use git's default function-name rule. Not implemented:
// rebase, bisect, submodules,
// hooks, sparse checkout, shallow fetch beyond --depth on clone, the
// editor (commit and tag need -m or -F), pull --rebase, reflog expire and
// delete, ORIG_HEAD, and --depth over a file:// URL within the workspace
// (go-git v5's in-process server has no shallow support; over http it
// works; a local path ignores --depth with git's warning, as git does).
// FETCH_HEAD lists the remote-tracking branches the refspecs match after
// the fetch, so one left behind by a branch deleted upstream (no --prune)
// is listed too, where git lists only what the remote advertised: listing
// the remote again would cost a second round trip per fetch.
//
// Reflogs are written in git's words ("commit: subject", "checkout: moving
// from main to v1", "reset: moving to HEAD~1", "merge topic: Fast-forward",
// "clone: from URL", ...), so git reflog, NAME@{N}, @{-1}, `checkout -` and
// the detached HEAD's "at"/"from" description agree with the real git on one
// repository, whichever git wrote the entries.
//
// # Limits
//
// A blob read into memory (diff, merge, show) is bounded by
// Env.MaxObjectBytes (the shell's MaxReadBytes, 64 MiB by default); a
// configuration or ignore file by 1 MiB; a reflog keeps its newest 1 MiB.
package gitws
