// Package workspace is one named workspace: its store (internal/vfs) and the
// parts built above the store — the execution runtime (internal/run); later
// policy and audit, through a seam (Options.Attach). Package host serves many
// workspaces from one data directory and decides when each is open; this
// package decides what a workspace is and where it lives on disk.
//
// # Names
//
// A workspace name is 1 to 63 bytes from a-z, 0-9, ".", "_" and "-", starts
// with a letter or digit, contains no "..", and is not a Windows device name
// (con, prn, aux, nul, com0-9, lpt0-9) before its first "." (NameRule,
// NamePattern). Lower case only, so two names never collide on a
// case-insensitive filesystem; no device names, so a data directory can be
// copied anywhere. ValidateName checks the rule and every function that takes
// a name calls it first; a rejected name is an error wrapping ErrBadName that
// quotes the name, says what is wrong and states the rule. An accepted name is
// a single path element that cannot start with ".", so its file is always
// directly inside the workspaces directory: FuzzValidateName checks exactly
// that for any input, and that the validator agrees with the written rule.
//
// # Files
//
// Inside a data directory (the host's; ./desk-data by default):
//
//	<data>/
//	  host.lock              the serving process's lock (package host), holds its pid
//	  workspaces/            mode 0700; Dir(data)
//	    <name>.db            the workspace's store, mode 0600; File(data, name)
//	    <name>.db-wal        SQLite's write-ahead log, while the store is open
//	    <name>.db-shm        SQLite's WAL index, while the store is open
//
// So the workspace "notes" of a server started in /srv is the SQLite file
// /srv/desk-data/workspaces/notes.db. Only files named <valid name>.db are
// workspaces (NameOf); anything else in the directory is ignored. When the
// server is stopped, `desk fs` can open a workspace's file directly; while the
// server has it open, a second opener gets vfs.ErrLocked.
//
// # Lifecycle
//
//   - Create reserves a name: it creates an empty database file (O_EXCL, so it
//     fails with ErrExists if the name is taken) and syncs the directory, so the
//     workspace exists durably once Create returns. It costs one empty file until
//     used. Side files left by an interrupted Remove are deleted first.
//   - Open opens the store (vfs.Open; the first Open of a new workspace writes the
//     schema, fixing ChunkSize and PageSize), then calls Options.Attach, if set, to
//     build the runtime. It fails with ErrNotFound for a missing workspace and
//     never creates one. A store opened for writing first loses the staging
//     directories of imports a killed process left (fsio.CleanStaging).
//     It also makes /workspace when it is missing (wspath.Ensure: mode 0755,
//     owned by 0:0, root inside a sandbox; the journal's actor is Actor), so
//     every workspace has it from its first Open, and one made before this
//     rule gets it on its next: relative paths on every surface are taken
//     from it, and it is what a sandbox mounts. The same way it makes /tmp
//     (wspath.Tmp: mode 1777, 0:0), the temporary directory of the shell and
//     js backends, which is a store directory like any other: it persists
//     across executions and restarts and counts against the quota. A
//     sandbox does not see it (its /tmp is its own tmpfs).
//   - Close closes the runtime first (it may still write to the store, for
//     example to close execution records), then the store, which flushes open
//     files, checkpoints the WAL and releases every goroutine, file descriptor and
//     lock. A closed workspace costs nothing (TestClose_ReleasesEverything).
//   - Remove deletes a closed workspace: it takes the store's lock (the same flock
//     vfs.Open takes, so a store open anywhere gives ErrInUse), deletes the
//     database file — the workspace is gone in that one step — then the -wal,
//     -shm and -journal files, and syncs the directory.
//
// # The runtime
//
// Every open workspace has an execution runtime (internal/run) over its store,
// routing to Options.Backends; Open opens it right after the store (marking
// executions a dead server left running as failed) and Close closes it before
// the store (stopping running executions and recording them as stopped).
// Options.Admit, if set, is the runtime's admission control (run.Options.
// Admit) with the workspace bound: fair shares per workspace and
// token (package fair) are decided there. Options.Attach is a further seam, for parts built later (policy, audit): it
// runs after the runtime is open and what it returns is closed first. Its
// Close must release every goroutine and descriptor it started, or the host's
// "an idle workspace costs nothing" stops being true.
//
// # Concurrency and invariants
//
// A Workspace is safe for concurrent use, but nothing in this package counts
// its users: Close it only when nobody uses it (the host's leases do this).
// One process opens a store at a time (vfs takes an flock); within the host,
// one Workspace per name is open at a time. Open, Create and Remove of the
// same name must not race from different goroutines unless the caller
// serialises them (the host does; another process is kept out by the host's
// lock on the data directory and by the store's flock).
//
// # Errors
//
// Errors are wrapped "verb noun: %w" and carry a sentinel for each named
// condition: ErrBadName, ErrNotFound, ErrExists, ErrInUse; vfs.ErrLocked when
// another process has the store open. Store errors (*fs.PathError with a
// syscall.Errno) come through the Workspace's FS unchanged.
package workspace
