// Package vfs is the workspace store: a POSIX-like filesystem held in one SQLite
// database file. It is the single source of truth for a workspace; every
// execution backend (the in-process shell, the JavaScript isolate, the FUSE mount
// a sandbox sees) reads and writes it.
//
// # Model
//
// A store holds inodes (regular files, directories, symlinks, and the special
// files: FIFOs, UNIX sockets, character and block devices, see Special files)
// with all 12 permission bits, owner, size, link count, nanosecond atime/mtime/ctime/btime and
// a generation; directory entries (parent, name) → inode, so a file may have
// several names (hard links); symlink targets; extended attributes. Paths are
// absolute and lexically cleaned ("/a/../b" is "/b", ".." never leaves "/");
// symlinks are then resolved physically, as the kernel does, with at most 40 per
// lookup (ELOOP). A trailing slash asks for a directory and follows a final
// symlink (Stat, Open, Link's source), except where the kernel resolves only
// the parent: Remove, Rename, Mkdir, Symlink and Mknod act on the name itself,
// so Remove("l/") or Rename("l/", ...) of a symlink l is ENOTDIR and never
// touches what l points to. Every failure is a *fs.PathError whose Err is a syscall.Errno
// (ENOENT, EEXIST, ENOTDIR, EISDIR, ENOTEMPTY, EINVAL, ELOOP, ENAMETOOLONG, EFBIG,
// ENOSPC, EROFS, ...); internal failures (SQLite, disk) read as EIO and keep
// their cause, except a full disk, which reads as ENOSPC (see Disk space). The conformance suite in vfstest runs the same tests against the
// store and against the kernel (package os on a temporary directory), so the
// behaviour matches Linux, down to the order in which errors are checked.
//
// # Special files
//
// Mknod (and MknodAt, Batch.Mknod) makes a FIFO, a socket or a device as
// mknod(2) does, with the kernel's checks in its order (vfstest's Mknod* and
// Special* tests run against the kernel). Such an inode has a type, mode,
// owner, times, names and, for a device, a device number (Attr.Rdev, as
// unix.Mkdev makes it), and nothing else: no content, size 0. Their I/O is the
// kernel's, through a FUSE mount (a FIFO pipes between the processes that
// open it there; a socket is bound and connected by its inode). The store does
// not play the kernel: OpenFile, ReadFile and WriteFile of one are ENXIO, and
// syscall.O_PATH (unix.O_PATH) opens one for Stat and Close only. user.*
// xattrs are refused on them as on symlinks (EPERM), Truncate is EINVAL.
//
// # Schema versions
//
// The schema's version is PRAGMA user_version (schemaVersion, schema.go). A
// writable Open upgrades an older store, one migration per version, each in
// its own transaction (migrations); a read-only Open of an older store and any
// Open of a newer one are refused. Version 2 (issue 21) added inodes.rdev,
// version 3 (issues 20, 21) inodes.data and data_hash, inline content,
// version 4 (issue 20) chunks.slot, the chunk file, version 5 (issue 21)
// xattr_bytes, each inode's xattr bytes kept by triggers (MaxXattrBytes is
// checked without summing the inode's attributes), version 6 (issue 20)
// dentries.type, each entry's file type (ReadDirNames).
//
// # Content
//
// File content is cut into fixed-size chunks (Options.ChunkSize, 64 KiB by
// default, fixed when the store is created), each stored once per store under its
// SHA-256 with a reference count. A file is a list (index → chunk); a missing
// index is a hole and reads as zeros, so sparse files cost nothing, and an
// all-zero chunk is stored as a hole. Writing in the middle of a file replaces
// only the chunks it touches. A chunk whose last reference goes is deleted in the
// same transaction: there is no garbage collector to run.
//
// A regular file of at most Options.InlineMax bytes (DefaultInlineMax, 2 KiB;
// fixed when the store is created) keeps its content in its inode row
// instead (inline content, inline.go): chunk 0 held in the row with its
// SHA-256, written by the row's own INSERT or UPDATE, so a small file costs
// its directory entry, its inode row and its journal row, and no chunk rows.
// A write that leaves a file within the inline size stores it inline, one
// that takes it past moves it out into chunk 0; a truncation that shrinks a
// chunked file leaves it chunked. Inline bytes count against the quota as
// chunk bytes do and are not deduplicated (Stats.InlineFiles, InlineBytes).
//
// # The chunk file
//
// A chunk of exactly the chunk size (the bulk of every large file) is not
// stored in SQLite but in the chunk file beside the database (path +
// ChunkFileSuffix, "-chunks", mode 0600, slots.go), in a slot of the chunk
// size at slot × chunk size that its row names (chunks.slot). The
// transaction that creates the row writes the bytes with pwrite and
// fdatasyncs the file before its COMMIT (a staging batch of WriteFileFrom,
// whose rows no name reaches, leaves the sync to the commit that names
// them), so every byte is written once (the WAL carries only the row; a
// checkpoint copies no content) and a named row never names bytes that a
// crash, kill -9 or power loss, can have lost. A read is
// a pread straight into the caller's buffer. Smaller chunks (a file's tail)
// and inline content stay in SQLite; a store from before version 4 keeps
// its old chunks in chunk_data and reads them as before.
//
// A slot whose chunk loses its last reference is freed when that commit
// is done, but reused only when (a) every read that began before the commit
// has finished (each read enters an epoch before its statement starts and
// leaves it after its pread), and (b) the freeing commit is durable (the
// checkpointer fsyncs the WAL; with the disk short of space the commit does
// it at once, so a delete gives its room back before it returns). A freed
// slot is hole-punched (FALLOC_FL_PUNCH_HOLE) before it is reused, so its
// disk space goes back to the filesystem; a rolled-back write's slots are
// free at once. Open rebuilds the free list from the rows: whatever no row
// names (bytes written by a transaction a crash cut short) is free and
// punched, and the file is cut after the last named slot. Check verifies
// every slot's bytes against its chunk's hash, that no two chunks share a
// slot, and that a chunk has its bytes in exactly one place. Stats.SlotChunks
// and ChunkFileBytes (its disk space) show it. The file belongs to the
// workspace as the -wal does (removed, counted and excluded from imports with
// it).
//
// # Tree copies
//
// CopyTree copies a directory tree in one transaction with a few
// statements per directory (INSERT ... SELECT of its entries' inode rows,
// entries, chunk references and xattrs), not a request per file: content
// is shared by chunk reference (no bytes written; inline content is copied
// with its row and counts against the quota), the quota and inode limit
// are checked before anything is written, every created path is
// journalled, and a crash leaves all of the copy or none of it
// (TestCopyTreeCrash). CopyOptions chooses GNU cp -r's or -a's semantics.
// See copytree.go and docs/decisions.md.
//
// # Transactions, durability and group commit
//
// Every mutation runs in one SQLite transaction (WAL mode, synchronous=NORMAL):
// when a call returns nil its change has been written to the WAL with write(2),
// so it survives kill -9 of the process (TestCrashKill9 kills a writer at random
// points and checks). Handle writes (File.Write, WriteAt) are the exception, as
// on any filesystem: they are buffered per inode (visible to every handle and to
// Stat at once) and become durable at File.Sync, File.Close, or when
// Options.DirtyBytes of them accumulate; Options.SyncWrites makes every write
// durable before it returns.
//
// Concurrent callers share commits: a caller that arrives while a commit is in
// progress queues, and the next leader runs all queued mutations in one
// transaction, each in its own savepoint (a failing call rolls back alone), then
// commits once and wakes them. Batch puts many changes of one caller into one
// commit, all or nothing. WriteFile and WriteFileFrom replace content atomically:
// large content is staged in an unnamed inode and swapped in at the end.
//
// A caller that does not need each change durable before it returns can say
// so by making its changes through a handle from FS.WithCommitDelay (the FUSE
// server does, for metadata changes): such a change returns once applied, visible to every reader, and the writer's
// transaction stays open for the changes that follow it, committed together
// at most the delay later or as soon as anything else commits (a change
// without delay from any caller, Commit, a handle's Sync or Close, a read
// that needs the database to hold it (a listing of a directory they changed;
// other listings read around them), Close). A crash can lose such changes,
// but only the newest ones, in order: what survives is always the state after
// some prefix of the changes (TestCrashKill9Deferred). See defer.go.
//
// A unit of work that makes many changes (an execution of the shell or js
// backend, an API copy of a tree) takes a handle from FS.WithBatching: it is
// WithCommitDelay, and a File's Close through it is deferred too (its data
// commits with the rest), so a cp -r of 1,000 files commits a few times, not
// 2,000. The unit ends with Commit, the durability barrier: internal/run
// commits at every execution's end, before recording it. File.Sync stays
// durable when it returns. TestCrashKill9Batched kills such a writer: what
// survives is a prefix of its operations, the last possibly in part (a file
// created but not yet written), and everything up to the last Commit. Base
// returns the store's own handle (the same from every handle), for callers
// that identify a store by its pointer. This is the batch API for other
// packages (a checkout, an import of many files): WithBatching, then Commit;
// or Batch for all-or-nothing.
//
// WriteFileFrom reads and hashes its next batch of DirtyBytes while the
// previous one commits (TestWALBounded: with the defaults, 256 MiB written in
// 8 MiB files leave a WAL of 16 MiB at steady state). Full-size chunks reach
// the disk once, in the chunk file (see The chunk file). Its batches before
// the last commit into an unnamed stage without the chunk file's fdatasync
// (they start the writeback); the commit that names the chunks, or any
// other commit after them, syncs it: one fdatasync per WriteFileFrom.
//
// The frames of a transaction reach the WAL with one write(2) per commit: the
// store's connections use SQLite's own VFS with the WAL's writes gathered in
// memory until the commit frame is complete (package internal/sqlite,
// walVFS), which SQLite would otherwise write with two calls per page.
//
// Every method passes its context to the queries and commits it causes (a
// read that must commit deferred changes first commits with the reader's
// context). A File keeps its opener's context values, without its
// cancellation, for the reads and commits its methods cause. Only Close and
// the store's own timers (a deferred commit's delay, pending deletions of
// unlinked inodes) commit with a background context: no caller is waiting.
//
// The database file and its -wal, -shm and journal files are created mode
// 0600, and narrowed to it when found wider (the driver alone makes the -wal
// and -shm 0644): a store's files are its owner's only.
//
// Checkpoints (copying the WAL into the database file, with fsync) run in a
// background goroutine on their own connection, never in a caller's commit.
//
// # Cache
//
// An in-memory cache of inodes and directory entries (positive and negative)
// keeps lookups and Stat off SQLite. It always equals the committed state: a
// commit applies its changes to the cache before the writer lock is released,
// and a reader filling a miss stores its result only if no commit was applied
// meanwhile (a version check), so a stale row can never land. Inside a write
// transaction, reads see the transaction's own changes through an overlay and
// fill misses through the writer connection. While deferred changes wait for
// their commit, readers look at what they changed (a view of the open
// transaction) before the cache. A directory whose every entry is cached
// (created since Open, or listed whole) answers a lookup of a missing name
// without a query. The cache is bounded (Options.CacheEntries); eviction only
// costs a later database read.
//
// # Path checks
//
// A caller's path rules (package policy's, which the store does not know)
// ride on its context: WithAccess(ctx, a). Every walk of a name consults
// a.AllowPath for the name given and for the name reached (symlinks
// resolved): as a read outside a transaction, as a write inside one (every
// transaction walk is a change's); so do write opens of existing files,
// each directory MkdirAll makes, and the listings (ReadDir, ReadDirPage,
// ReadDirFiles leave out what may not be read, refilling pages so a short
// page still means the end). The errno a returns is the call's error. The
// inode methods (*At, *Ino: the FUSE server's) do not consult it; their
// caller does (package fusefs, Options.AccessOf). See access.go.
//
// # Journal
//
// Every mutation appends a numbered Change (op, inode, parent and name, path,
// old path for renames, byte range for writes) in the same transaction, so the
// journal never disagrees with the data. Changes reads since a cursor, Wait
// blocks for new ones, Subscribe streams them. The journal keeps the newest
// Options.JournalKeep changes; an older cursor gets ErrJournalTruncated. The
// newest few thousand changes are also kept in memory as their commit left
// them, so a follower that keeps up (Subscribe, a FUSE mount's invalidations)
// reads them without a query; an older cursor is answered from the table.
//
// # Records
//
// Records (FS.Records) is not part of the filesystem: it keeps durable named
// values, each with an append-only log, in the same database for the layers
// above (internal/run's execution records and output). Records are outside the
// namespace, the journal, Stats and the quota; their writes share the group
// commit with file changes and are never deferred. See records.go.
//
// # Renames and readers
//
// A file replaced by renaming another over it is never absent to a reader,
// as rename(2) guarantees: a walk that fails with ENOENT while a commit was
// applied walks again, and an open that finds the old inode being deleted by
// the uncommitted rename waits for that commit and opens the new one
// (TestRenameOverIsAtomicForReaders).
//
// # Attached values
//
// Attached keeps a value per open store for the layers above (package gitws
// keeps its file locks and tree cache there), shared by every handle of the
// store and gone when it closes, instead of package-level maps keyed by
// store.
//
// # Open-but-unlinked files
//
// An inode that loses its last name while a handle is open stays (nlink 0) until
// the last handle closes. Its deletion then rides along with the next commit
// (or an empty commit shortly after, if none comes), rather than costing a
// transaction of its own; meanwhile it is unreachable, and Stats and Statfs
// make pending deletions first. After a crash such inodes are removed at the
// next Open.
//
// # Inode numbers
//
// Besides paths, the store can be addressed as the kernel addresses a
// filesystem, by inode number (for the FUSE server): LookupAt, CreateAt,
// MkdirAt, MknodAt, SymlinkAt, LinkAt, RemoveAt and RenameAt name an entry by its
// directory's inode and a name; StatIno, OpenIno, SetattrIno, ReadlinkIno and
// the *xattrIno methods name an inode. Nothing is resolved but the numbers
// given, inside the transaction that acts on them, so a concurrent rename
// cannot redirect a call, and OpenIno reaches a file that is open with no name
// left. A Node carries a path the caller believes the inode has, for the
// journal; the store checks it with a walk in the transaction and, if it is
// stale, finds a current name by searching the directory entries (a scan per
// level: there is no index by inode), so journal paths are always current and
// rename's ancestry checks always exact.
//
// # Layout
//
// One type, FS, serves two ways of naming files, and each has its own files:
//
//   - The path API names files by absolute path, resolved on every call:
//     ops.go (Stat, Mkdir, Mknod, Remove, Rename, Chmod, xattrs, ReadDir,
//     Statfs, ReadDirNames, ...), file.go (Open, Create, OpenFile, Truncate), rw.go (ReadFile,
//     WriteFile, WriteFileFrom), dirfiles.go (ReadDirFiles), copytree.go (CopyTree), iofs.go (IOFS),
//     and batch.go, the same operations inside one transaction.
//   - The inode API names an inode by number (methods ending in Ino) or an
//     entry by its directory's number and a name (methods ending in At), as
//     the kernel does: ino.go, and nothing else is in it (see Inode numbers).
//   - The store as a whole: store.go (Open, Close, Path, ChunkSize, Options),
//     defer.go (WithCommitDelay, Commit), journal.go (Seq, Changes, Wait,
//     Subscribe), check.go (Check, Stats).
//
// A new method goes into the file of its group. Both APIs end in the same
// transaction operations (tx.create, tx.mkdir, tx.rename, ... in ops.go and
// content.go), so they cannot differ in behaviour, only in how they find the
// inode: path.go walks paths, ino.go checks inode numbers. Beneath them are
// tx.go (transactions and group commit), openfile.go (open inodes and
// handle writes), content.go (chunks), inline.go (inline content) and cache.go. Records (records.go) is a
// type of its own.
//
// # Locks and their order
//
// A goroutine takes the store's locks in this order, outermost first, and
// never the other way round:
//
//  1. File.mu, one per handle (its offset and directory cursor).
//  2. openInode.mu, one per open inode (its unflushed chunks and size). At
//     most one is held at a time. A flush holds it and then commits, so it
//     comes before the commit locks; work that needs one after a commit goes
//     into tx.after, which runs in the caller's goroutine once wmu is
//     released.
//  3. gmu, the group-commit queue. It is held only to queue a request or hand
//     leadership on, and released before wmu is taken: never held while
//     waiting for anything.
//  4. wmu, the writer connection and the state it guards (next inode number,
//     journal sequence, quota counters, the pending deferred transaction).
//     Functions run under it (transaction bodies) must not call public FS
//     methods (they would queue behind themselves) and must not take an
//     openInode.mu or File.mu.
//  5. The leaves, each guarding one table, taken alone or under any of the
//     above, and never holding another lock: omu (open inodes), amu (access
//     times waiting for a commit), dmu (deletions of unlinked inodes waiting
//     for a commit), vmu (the pending transaction's view for readers; a
//     commit writes it under wmu, readers read it under openInode.mu or
//     nothing), nmu (the channel that wakes Wait), rmu (creating read
//     connections; Close takes it under wmu), cache.mu (the inode and entry
//     cache), tail.mu (the in-memory journal tail), sp.mu (the store's size
//     last reported to its Space) and Space.mu (shared by the stores of a
//     data directory: the reserve and the bound's count).
//
// Waiting for a read connection (the pool of Options.Readers) is not a lock
// but can block, so nothing waits for one while holding wmu: Check holds a
// read connection and then takes wmu (to start its snapshot between
// commits), and Close waits for the read connections only after releasing
// wmu (it did so holding wmu before issue 12: a Check running into Close
// could hang both).
//
// Timers (a deferred commit's delay, pending deletions) commit from their
// own goroutine, holding nothing. The order was checked by reading every
// Lock call in the package (issue 12); no test enforces it.
//
// # Limits
//
// Every limit is an Options field with a documented default: file size (EFBIG),
// quota of unique stored bytes and number of inodes (EDQUOT, reading as
// ENOSPC too; and the disk, see Disk space), name length 255 and
// path length from the store's root 8192, twice PATH_MAX, so that a path of
// PATH_MAX−1 bytes relative to a mount whose root is deeper in the store
// (a sandbox's /workspace) works; symlink targets are bounded by PATH_MAX
// (ENAMETOOLONG), xattr size (E2BIG) and total per inode
// (ENOSPC). A call that hits a limit changes nothing.
//
// # Disk space
//
// Every ENOSPC the store returns is a *fs.PathError whose Err reads as
// ENOSPC (vfs.Errno, errors.Is) and whose message says which bound was
// reached: the disk ("the disk holding the store is full: N bytes free, M
// needed") or the data directory's bound. The workspace's own quota and
// inode limit read as EDQUOT for vfs.Errno ("disk quota exceeded (the
// workspace's quota of N bytes is reached)") and still match ENOSPC with
// errors.Is. A handle's write flushes at once when the committed bytes and
// all open files' unflushed bytes could pass QuotaBytes, so the write that
// crosses the quota fails, not only the Close that many programs ignore.
// SetLimits changes QuotaBytes and MaxInodes of an open store (a
// workspace's own limits, set by its admin): from the next write on;
// nothing stored is removed when they fall below what is used. SQLITE_FULL, and ENOSPC or EDQUOT from the host under
// an SQLite error, become the same ENOSPC (internal/sqlite tags the WAL's
// failed writes as SQLITE_FULL; SQLite's Go VFS would report a plain I/O
// error).
//
// Writes are admitted before they commit (admit, room.go). A request that
// frees content, or inodes without adding content (remove, rmdir, truncate,
// overwriting with less, rename over a file), is always admitted. One that
// adds content is measured after it ran: the room is the filesystem's free
// space beyond the reserve (or the Space's bound left, if smaller), plus the
// store's free pages, less the pages the WAL holds beyond the database
// file's end (the next checkpoint adds them to the file); it must hold what
// the transaction's admitted requests add to the WAL and a few pages
// (slackPages). A request that adds no content (create, mkdir, rename,
// chmod) needs those few pages, measured once per transaction. The cost is
// a statfs(2), a stat(2) and two PRAGMAs per request that adds content
// (about 23 µs inside a transaction on the shared 2-core machine, where a
// statfs or a stat alone takes about 4 µs). A measure serves the requests
// after it, in its transaction and later ones, while they add at most 256
// KiB and number fewer than 256, it is less than a second old and it left
// more than 64 MiB beyond what they added (small files far from the bound
// measure once per 256); near the bound, or short of space, every request
// measures.
//
// Options.Space, shared by the stores of one data directory (the host makes
// one; with SpaceOptions.Shared the bound's count lives in a mapped file,
// UsedFile, that the processes serving the directory add to atomically, so
// the bound holds across desk serve's workers), keeps a reserve file (ReserveFile, DefaultReserve) whose blocks are
// not counted as free. When SQLite still finds the disk full (something
// else filled it, or a write's B-tree pages outgrew the estimate), the
// transaction is rolled back and every request in it fails with ENOSPC;
// the Space empties the reserve file and each of those requests runs once
// more, alone: a delete then has the reserve's room, a write fails
// admission (the reserve, released, is still not free space). The reserve
// is allocated again when the filesystem has twice its size free. A write
// that admit refused while the WAL holds more than a few pages gets a
// TRUNCATE checkpoint and one more try: a WAL that grew while the
// checkpointer lagged behind holds disk space. journal_size_limit is
// CheckpointBytes, and the checkpointer is kicked every quarter of
// CheckpointBytes of content, so on a small disk the WAL stays near it.
//
// The Space's bound (SpaceOptions.Limit) counts the disk space (st_blocks)
// of the files below its directory, measured once by OpenSpace and then
// reported by each store after commits that change content, checkpoints and
// Close (with what its next checkpoint adds); Space.Removed takes off a
// removed store. The figures are exact within what is in flight: a
// checkpoint running, or commits since the last report.
//
// Freed content becomes free pages of the store's file. A store is in
// SQLite's incremental auto-vacuum mode (since issue 21; an older store after
// Compact, which converts it with one VACUUM): when its free pages hold more
// than a quarter of CheckpointBytes, the checkpointer frees up to 256 of them
// at a time (PRAGMA incremental_vacuum on the writer, between commits) and
// checkpoints, which cuts the file. Below that they stay, reused by the
// store's own writes, and so they do while less than CheckpointBytes is left
// outside the store (a nearly full disk or bound: they are the room of its
// next checkpoint, which could not finish if it had to grow the file). The WAL is checkpointed past CheckpointBytes (16 MiB
// by default since issue 20; it was 64), truncated
// past four times it, and cut back to CheckpointBytes when it restarts
// (journal_size_limit), so that the file plus the WAL stay within the live
// pages plus about 4¼ CheckpointBytes (TestSpaceReclaimed: 1 GiB written and
// deleted in 4,096 files leaves 5 MiB on disk for 3 MiB of live content).
// Stats reports LiveBytes (pages in use), FileBytes, WALBytes and
// ReclaimableBytes (free pages). An older store gives nothing back before
// Compact: its deletes give the host's disk no room.
//
// A store logs (Options.Logger) once when a write fails for lack of space,
// and once when a write that adds content commits again; the Space logs the
// release of the reserve and its return. While a store is out of space,
// WithCommitDelay is ignored: a delete is durable, and retried if needed,
// before it returns. A checkpoint a full disk stops is logged, not an error
// (the WAL keeps the changes), Close included.
//
// Statfs reports the free space as the smallest of the quota left, the room
// above (with the store's free pages) and the bound left (LimitedBy names
// it), the size as the space used plus that, the filesystem's own size and
// free space, the reserve and the bound. FilesFree is 0 when there is no
// room for another inode.
//
// # Processes
//
// One process opens a store at a time (an flock on the database file; a second
// Open gets ErrLocked), because the cache assumes it sees every write. ReadOnly
// stores take a shared lock and refuse every mutation with EROFS.
package vfs
