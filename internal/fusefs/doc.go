// Package fusefs serves a workspace store (package vfs) as a FUSE filesystem,
// so that real programs (a sandbox's processes) see the workspace as a
// directory while every other backend keeps using the store directly.
//
//	srv, err := fusefs.Mount(ctx, store, "/mnt/ws", fusefs.Options{AllowOther: true})
//	...
//	defer srv.Unmount()
//
// Mount uses mount(2) on /dev/fuse directly, so it needs root or
// CAP_SYS_ADMIN; there is no fusermount fallback. The server is
// multi-threaded: the kernel's requests are served concurrently, and the store
// serialises what must be serialised.
//
// The /dev/fuse descriptor is opened close-on-exec (O_CLOEXEC, atomically)
// and mounted by this package, then handed to go-fuse as its "/dev/fd/N"
// mount point; Unmount unmounts it. (go-fuse's own direct mount opens the
// device without O_CLOEXEC: every program the process started meanwhile,
// a sandbox's runc among them, inherited it and kept the connection alive
// after the server died, so a process waiting on the mount never woke.)
// AbortConnection aborts a connection by number through fusectl: what a
// server that finds a dead mount of its predecessor uses to release the
// processes waiting on it. Server.Connection is a mount's number.
//
// # The mount point
//
// By default the mount point is a path, resolved at mount(2) and again at
// the unmount. With Options.Parent (an open directory holding the mount
// point) it is reached through descriptors only: the mount point is the
// parent's entry of that name, opened without following a symbolic link,
// mounted and unmounted as /proc/self/fd/N (which names exactly that
// directory; umount(2) resolves it to the mount on it), and statted as the
// name in the parent. A less privileged user who can change the path (a
// directory of theirs) cannot redirect the mount or its unmount: package
// hostmount mounts people's directories so. Options.ReadOnly mounts with
// MS_RDONLY: the kernel refuses every change through the mount (EROFS);
// changes made to the store elsewhere still show.
//
// Unmount unmounts; a mount still busy is detached, and its connection
// aborted so the serve loops end. A mount detached from outside while in
// use (umount -l) keeps its connection (the open files still reach the
// server): Unmount aborts that connection too, rather than wait for
// UnmountTimeout.
//
// # Identity
//
// A FUSE node is a store inode: its FUSE node id and st_ino are the store's
// inode number, its generation the store's generation (go-fuse's
// ExternalNodeID; store inode numbers are never reused). So the kernel, go-fuse
// and the store agree on identity, hard links are one kernel inode with one
// attribute cache and one page cache, and the journal follower can address any
// inode the kernel holds by number.
//
// Every operation reaches the store by inode number (vfs.FS.LookupAt, OpenIno,
// CreateAt, RenameAt, SetattrIno, ...), never by re-resolving a path, so
// renames made elsewhere cannot redirect an operation, and a file open after
// losing its last name keeps working. The store journals changes with paths:
// the server passes the path go-fuse's tree of known inodes gives a node as a
// hint (vfs.Node), which the store checks inside its transaction before
// trusting it (a stale hint costs a search, never a wrong result). The journal
// follower keeps go-fuse's tree in step with renames and removals made
// elsewhere so the hints stay right.
//
// # What is implemented
//
// lookup, getattr, setattr (chmod, chown, truncate, utimensat with UTIME_NOW
// and UTIME_OMIT), create, mknod (regular files, FIFOs, sockets, character
// and block devices: see Special files), open, read, write, flush,
// fsync, release, mkdir, rmdir, unlink, rename (RENAME_NOREPLACE,
// RENAME_EXCHANGE), link, symlink, readlink, opendir/readdir/readdirplus with
// seekdir, fsyncdir, statfs (the store's space in 4 KiB blocks: free is the
// smallest of the quota left, the disk's free space beyond the data
// directory's reserve and its bound left; see vfs.StatFS), xattrs
// (get, set, list, remove; the store's namespaces and limits), fallocate
// (see below), lseek with SEEK_DATA and SEEK_HOLE (holes are whole chunks
// never written or written as zeros), and mmap, shared and writable included.
// There is no writeback cache: each write(2) reaches the store, so the one
// that crosses the workspace's quota fails with EDQUOT (the store flushes
// near its quota), and a program sees it at the write, not only at close.
//
// # Special files
//
// mknod(2), mkfifo(3) and bind(2) of a UNIX socket make an inode in the store
// (vfs.FS.MknodAt: its type, mode, owner and device number); the kernel does
// the rest. A FIFO opened through the mount is a kernel pipe between the
// processes that open it (the server sees no read or write); a socket bound
// to a path in the mount accepts connections by that path while the binding
// process keeps it (the kernel finds the socket through its inode, which it
// keeps while the socket is bound); a device node reaches the kernel's driver,
// which a mount with nodev (go-fuse's default) refuses to open (EACCES), and
// making one needs CAP_MKNOD in the caller, as anywhere. Device numbers
// travel in FUSE's 32 bits (12 of major, 20 of minor); the store keeps 64
// (unix.Mkdev), and a larger number from an archive is cut to what FUSE
// carries. The in-process backends see such files in listings and stats, but
// opening one through the store is ENXIO (vfs.FS.OpenFile).
//
// Writes go into the store through a store file handle as they arrive: the
// store keeps them per inode (bounded by vfs.Options.DirtyBytes, then flushed)
// and commits them at every close(2) (FLUSH), at fsync and at release, so when
// close or fsync returns the data is durable and journaled. O_SYNC and O_DSYNC
// handles commit after every write. O_APPEND writes go to the store's end of
// the file, which is right even when the kernel's idea of the size is behind a
// change made elsewhere. A file opened read-only has nothing to commit at
// close: its open asks the kernel not to send FLUSH (FOPEN_NOFLUSH), which
// saves a round trip per open.
//
// # Durability
//
// What the mount promises is what a local filesystem promises, in the store's
// terms:
//
//   - Data written through a descriptor is durable when close(2) or fsync(2)
//     returns on it (the flush commits), as above.
//   - A change of metadata (create, mknod, mkdir, symlink, link, unlink,
//     rmdir, rename, chmod, chown, utimes, truncate, xattrs) is answered once
//     it is applied to the store, where every user of the store sees it at
//     once, and is committed with the changes that follow it at most
//     Options.CommitDelay (2 ms) later (vfs.FS.WithCommitDelay). A stream of
//     them (tar x, mkdir -p, rm -r) so costs a commit per few milliseconds
//     rather than one per system call.
//   - It is durable sooner when anything else commits: fsync, fdatasync or
//     fsyncdir on any file of the mount, a close that commits data, any
//     change to the store from elsewhere (the shell backend, the API, the
//     record of an execution's end), Unmount.
//   - Changes become durable in the order they were made: kill -9 of the
//     server within CommitDelay of a change can lose it, but only with every
//     change made after it, never out of order (vfs.TestCrashKill9Deferred).
//     So everything an execution did through the mount is durable once its
//     end is recorded in the store.
//
// Options.CommitDelay negative commits every change before answering, as the
// store's own calls do.
//
// An inode this mount unlinks (or renames over) while the kernel holds it is
// pinned with a store handle until the kernel forgets it, as a local
// filesystem keeps an inode its caches or a process's working directory still
// reference; the store deletes it with the pin.
//
// Locks: the server does not ask the kernel for lock requests, so flock(2),
// POSIX (fcntl) and OFD locks are kept by the kernel for the mount, with their
// full semantics (conflicts, release on close, F_GETLK, deadlock detection).
// They are not visible to backends that use the store directly, which take no
// locks.
//
// Permissions are checked by the kernel from the stored modes and owners
// (default_permissions); the server trusts what reaches it. Files and
// directories a process creates belong to its uid and gid (or to the
// directory's group when it is set-group-ID). For a sandbox whose user
// namespace maps its ids to a range of host ids, Options.IDMap serves the
// store's ids shifted into that range and shifts the ids the kernel sends
// back, so the store keeps the ids the sandbox's processes see.
// IDMap.UID and GID, when set, make a sandbox user the workspace's owner:
// store id 0 and that id exchange places (the sandbox backend sets them to
// a non-root image user's ids).
//
// # Attribution
//
// Changes made through the mount are journaled with Options.Actor, or, when
// Options.ActorOf names one for the calling process, with that actor: a
// sandbox backend names the execution the process belongs to, so that the
// execution's change set (run.Changes) holds what it wrote through the
// mount. A file opened for writing keeps its opener's actor for every write
// through that open file description, whoever writes.
//
// # Caching and invalidation
//
// The kernel caches names (Options.EntryTimeout), missing names
// (NegativeTimeout), attributes (AttrTimeout), file pages (every open keeps
// the page cache, FOPEN_KEEP_CACHE, and pages are dropped only on request,
// FUSE_EXPLICIT_INVAL_DATA) and directory listings (FOPEN_CACHE_DIR: the
// kernel drops a listing itself when the directory changes through the
// mount, or when at an open the directory's mtime differs from the one the
// listing was read with). Directories have no handles: the server refuses
// the first OPENDIR with ENOSYS, after which the kernel (5.1 and later) sends
// no OPENDIR or RELEASEDIR at all and caches every listing, and READDIRPLUS
// requests are served through handles the server keeps per directory and
// offset (see rawFS), so a warm walk costs one request per directory. The
// timeouts can be long because nothing goes stale silently:
//
//   - What the mount itself changes, the kernel knows: it updates its caches
//     from the replies (one kernel inode per store inode, so every name of a
//     hard-linked file shows the new nlink, mode, owner and ctime).
//   - What others change (the shell backend, the API, a sync), the journal
//     follower learns from the store's change journal (vfs.FS.Subscribe) and
//     pushes to the kernel at once, skipping changes journaled with the
//     mount's own actors (Options.Actor, and those Options.ActorOf named).
//     Per change:
//     write: the attributes and the pages of the written range
//     (NotifyContent); truncate: the attributes and the pages from the new
//     size on; setattr (mode, owner, times, xattrs): the attributes; create,
//     mkdir, symlink: the name (a cached "missing") and the directory's
//     attributes and listing (every change of a directory's entries drops
//     both; an open's permission check then fetches the new mtime, so a
//     listing the kernel filled while the change happened is dropped too,
//     at the next open); link: the same, plus the inode's attributes (nlink
//     and ctime for every name); remove: NotifyDelete when the inode is gone
//     (the kernel also drops its link count), otherwise the name and the
//     inode's attributes; rename: both names, the inode, both directories,
//     and an inode it replaced (as a remove); exchange: both names, both
//     inodes, both directories.
//   - Those invalidations are asynchronous: the follower wakes on every
//     commit, normally within microseconds. An open of a file first waits
//     until the invalidations of every change committed before it have been
//     sent (at most Options.SyncTimeout; after that it drops the file's
//     pages itself), so a program that opens a file sees the store as it was
//     when the open started: close-to-open consistency, as NFS gives. A
//     descriptor already open, a stat, a path lookup or a directory listing
//     served from the kernel's caches can see a change made elsewhere
//     microseconds late: directories are read without OPENDIR (below), so
//     there is no request to wait in.
//     Server.Sync waits until everything committed before the call has been
//     invalidated, for a caller that changed the store and then starts a
//     process on the mount.
//   - The path walk of an open may have used a name the follower was about to
//     invalidate. An open that finds its inode gone from the store, or left
//     with no name by others, answers ESTALE, and the kernel walks the path
//     again (with revalidation) and opens what is there now. A create that
//     finds the name taken (the kernel thought it missing) does the same
//     unless O_EXCL was asked for.
//   - Writes through a store handle that are not flushed yet (a shell command
//     still writing) are journaled when they are flushed: the mount sees them
//     then, as another NFS client would.
//   - If the follower ever falls behind the journal's retention
//     (vfs.ErrJournalTruncated), it invalidates every name and inode go-fuse
//     knows and continues from the present.
//   - The kernel unhashes an invalidated entry even when it is in use, so a
//     process whose working directory it is sees getcwd fail (ENOENT). A
//     name created by others is therefore not invalidated when go-fuse's
//     tree shows the kernel already looked up the new inode under it. A
//     lookup still in flight when the follower sends the invalidation is
//     not seen (the kernel applies the invalidation after it): a directory
//     made by others while a process is entering it can lose its entry
//     under that process. FUSE_EXPIRE_ONLY would fix it; go-fuse v2.12.1
//     cannot send it. A caller that calls Sync after its changes and before
//     starting the process (the sandbox backend does, before every
//     execution) is not exposed.
//
// # Tracing
//
// Options.Tracer counts every request the kernel sends, per opcode: count,
// errors (a LOOKUP of a missing name is one), bytes of READ and WRITE, and
// the server's time on it (total, mean, p50/p90/p99 from a histogram of four
// buckets per power of two, max); Tracer.Stats reads it at any time and
// TraceStats.Sub gives what was served between two readings. With
// Options.TraceOut the table is also written at Unmount. The server's time
// is from go-fuse's call into the filesystem to its return: what a request
// costs beyond it (the kernel's queueing, waking a reader, copying) is the
// caller's elapsed time minus it. `desk bench fs --trace` prints it per
// benchmark row (docs/benchmarks.md).
//
// # Errors
//
// Store errors are *fs.PathError values carrying a syscall.Errno; the server
// finds the errno with errors.As however the error is wrapped and returns it.
// An internal failure (EIO) or an error without an errno is logged
// (Options.Logger) and returned as EIO; ENOSYS is never returned for an
// implemented operation (the kernel would stop sending it). Interrupts are
// ignored: store operations are short and complete.
//
// # Limits
//
// Every limit is an Options field with a documented default: cache timeouts,
// the request size (MaxWrite, 1 MiB), the kernel's readahead (1 MiB, against
// FUSE's 128 KiB), asynchronous requests in flight, the
// directory page read from the store, the open's wait for invalidations, the
// unmount's wait. Names are limited to 255 bytes; an entry whose store path
// would pass the store's MaxPathLen (8192 from the store's root, twice
// PATH_MAX: a path of PATH_MAX−1 bytes relative to the mount, or to a
// directory of it bound elsewhere as a sandbox's /workspace, fits) is
// ENAMETOOLONG, so every file stays
// reachable by path from the other backends (through the mount, a path can
// only get that long through a descriptor or a working directory).
//
// # Not supported
//
//   - O_TMPFILE (EOPNOTSUPP).
//   - fallocate does not reserve space (the store deduplicates content, so a
//     later write can still fail with ENOSPC); mode 0 extends the size,
//     FALLOC_FL_KEEP_SIZE alone does nothing, PUNCH_HOLE and ZERO_RANGE write
//     zeros (whole zero chunks are stored as holes); COLLAPSE_RANGE,
//     INSERT_RANGE and UNSHARE_RANGE are EOPNOTSUPP.
//   - Birth time (no statx), ioctls (ENOTTY),
//     copy_file_range offload (the kernel falls back to copying).
//   - POSIX ACLs are not enforced: the server does not ask for ACL support, so
//     the kernel passes system.posix_acl_* through as plain xattrs (stored and
//     read back) and checks permissions from the mode bits alone.
//   - Opening /proc/self/fd/N of a file removed by someone else (not through
//     this mount) is ESTALE; the open descriptor itself keeps working.
//   - Access times follow the store's relatime rules; the kernel's cached
//     atime is refreshed with the other attributes.
//
// # Deadlocks
//
// The process serving a mount must not fault on a mapping of a file in it (the
// faulting thread blocks outside a system call, which can stop the Go garbage
// collector and with it the server), nor start a child whose working directory
// or inherited descriptors are on it (go-fuse documents the cases); the tests
// run such work in a child process. The journal follower's invalidations can
// wait for a directory lock held by a process whose request is being served;
// no request waits for the follower except open, which the kernel never sends
// while holding a directory lock, and even that only for Options.SyncTimeout.
//
// # Path rules
//
// Options.AccessOf gives each calling process's path rules (a vfs.Access:
// package policy's, per execution in a sandbox). The server checks every
// lookup, getattr, open, readlink, xattr read and opendir as a read, and
// every change (create, mknod, mkdir, symlink, link, unlink, rmdir,
// rename, setattr, setxattr, removexattr, opens for writing) as a write,
// by the node's path in go-fuse's tree. A denied path is EACCES, never
// ENOENT: a negative entry would be kept by the kernel for every process,
// whose rules differ. What the kernel answers from its caches is not
// asked: a cached entry or listing can show a name and its attributes,
// never content (every open is asked). See access.go.
package fusefs
