// Package host serves the workspaces of one data directory: it creates,
// lists and deletes them, opens a workspace on first use, hands out leases,
// closes workspaces that have been idle for a while (hibernation), and bounds
// how many are open at once.
//
// # Concepts
//
//   - Data directory (Options.DataDir, default ./desk-data): created with mode
//     0700 if missing; workspaces live in its "workspaces" directory, one SQLite
//     file each (see package workspace for the layout). Open locks the directory
//     against a second server process with an flock on <data>/host.lock
//     (ErrLocked), which also holds the pid.
//   - Lease: Acquire returns one; while any lease on a workspace is held, the host
//     does not close it. Release gives it back (idempotently). Do wraps
//     Acquire/Release around a function.
//   - Idle: an open workspace without leases. It sits on an LRU list and has an
//     idle timer (Options.IdleTimeout, default 5 minutes).
//   - Hibernation: when the timer fires the workspace is closed. A hibernated
//     workspace has no entry in the host at all: no memory, no goroutine, no file
//     descriptor — it is a file on disk. The next Acquire reopens it,
//     transparently. HibernateIdle does the same for every idle workspace at
//     once. A workspace with executions running (a detached one, a service,
//     outlives the call that started it) is not hibernated: its timer is set
//     again, and neither HibernateIdle nor eviction closes it.
//   - Slots: at most Options.MaxOpen (default 64) stores are open at once. A
//     workspace being opened, open, or being closed holds a slot (a Create with
//     CreateOptions holds one while it writes the store). When an Acquire needs a
//     slot and none is free, the least recently released idle workspace is
//     evicted (closed) and its slot passes to the caller, who finishes closing it
//     before opening. If every slot is in use the Acquire fails with
//     ErrTooManyOpen rather than waiting: the caller decides whether to retry.
//     Each open workspace costs ~7 file descriptors and up to the store's caches
//     (vfs Options) in memory, hence the bound.
//
// # Lifecycle of a name in the host
//
// The host keeps an entry per name only while it is doing something with it.
// The transitions:
//
//	no entry  → opening    Acquire (after checking that the file exists, taking a slot)
//	opening   → open       the store opened and Attach succeeded; all waiters get leases
//	opening   → no entry   the open failed; all waiters get the error
//	open      ⇄ idle       the last Release / the next Acquire
//	idle      → busy       idle timer, HibernateIdle, eviction, Delete
//	open      → busy       Close (leased workspaces too)
//	busy      → no entry   the store is closed (and, for Delete, the files removed)
//	no entry  → busy       Create; Delete of a workspace that is not open
//
// While a name's entry is opening or busy, other operations on that name wait
// for it (Acquire joins an open in progress instead of opening again; anything
// arriving during a close waits for the close to finish, then starts over), so
// the open, close, create and delete of one name never overlap, and many
// goroutines acquiring one workspace open it once. Delete refuses, with
// ErrInUse, a workspace that has leases or is being opened: it never waits for
// users to go away (an HTTP client that holds a stream open would block it
// indefinitely), and an idle open workspace is closed and then deleted.
//
// # Disk space
//
// Open makes one vfs.Space for the data directory (unless Options.Workspace.VFS
// has one) and every workspace's store shares it: the reserve file
// (vfs.ReserveFile, Options.ReserveBytes) that lets deletes and truncates run
// on a full disk, and the bound on the data directory across every workspace
// (Options.MaxDataBytes, default none), enforced at each write as the quota
// is, and shown in each store's Statfs and in Stats. Open measures the data
// directory once (an lstat per file) when a bound is set; Delete takes a
// workspace's files off it. Each store logs through Options.Logger with a
// "workspace" attribute. See vfs's doc.go, "Disk space".
//
// Create only reserves the name (an empty file and a directory sync, ~1 ms on
// ext4); the first Acquire writes the store's schema. CreateOptions that fix
// store parameters make Create write the store at once.
//
// # A workspace's own quota
//
// Options.StoreLimits, if set, gives a workspace's own QuotaBytes and
// MaxInodes as its store opens (0: Options.Workspace.VFS's, StoreQuota);
// desk serve reads them from package policy's Store. A change while the
// store is open is the caller's (vfs.FS.SetLimits).
//
// # In a worker
//
// desk serve's worker processes (package worker) each run a host of their
// own over the same data directory for one workspace: Options.NoLock (the
// front holds the data directory's lock) and Options.OnHibernate (the
// worker offers to exit when its workspace hibernates).
//
// # Lock order
//
// Host.mu is the host's only lock and guards the entry table, the idle list,
// the slot count and the counters. It is held only for bookkeeping: never
// while a store is opened or closed, Attach runs, a file is touched, or a
// channel is waited on. It is taken after nothing and before only the Clock's
// own lock (AfterFunc and Timer.Stop are called with it held, so a Clock must
// not call into the Host from those; its callbacks run later, without locks).
// Workspace and vfs locks are only ever taken with Host.mu released.
//
// # Invariants
//
//   - At most one entry per name; a name without an entry is closed.
//   - The slot count is the number of entries holding a slot, and never exceeds
//     MaxOpen; a store is open only while its entry holds a slot.
//   - An entry is on the idle list exactly when it is open with no leases and the
//     host is not closed; it has a timer then if IdleTimeout > 0.
//   - A workspace with leases is closed only by Close.
//   - A timer that fires late (its Stop came too late) checks that its entry is
//     still the one in the table, open, without leases and idle since the timer
//     was set (a generation number); otherwise it does nothing.
//   - Close closes every open workspace, leased or not, waits for every open,
//     close, create and delete in progress, then releases the data directory;
//     afterwards every method fails with ErrClosed.
//
// # Known deadlocks
//
// An Attach function must not Acquire, Delete or Create its own workspace:
// those wait for the open that is running Attach. Holding a lease while
// calling Delete on the same name is not a deadlock: Delete returns ErrInUse.
//
// # Errors
//
// Wrapped "verb noun: %w" with sentinels: ErrBadName (the name breaks
// workspace.NameRule; the message quotes the rule), ErrNotFound, ErrExists,
// ErrInUse, ErrTooManyOpen, ErrClosed, ErrLocked (another server has the data
// directory), vfs.ErrLocked (another process, such as `desk fs`, has the
// store open). The first four are package workspace's values, so errors.Is
// works with either package's names. For an HTTP adapter: ErrBadName 400,
// ErrNotFound 404, ErrExists and ErrInUse 409, ErrTooManyOpen 503 (retry
// later), ErrClosed 503, vfs.ErrLocked 409.
//
// # Costs
//
// With no leases and no idle workspaces the host holds its entry table (empty)
// and one descriptor (the lock). List reads the workspaces directory and stats
// the page it returns, opening nothing; 10,000 workspaces list in pages of up
// to MaxListLimit. TestHost_ManyWorkspaces checks 2,000 idle workspaces hold
// no descriptor; BenchmarkHost10000 creates 10,000, measures reopening a
// hibernated one and the process's memory with all closed (docs/benchmarks.md).
package host
