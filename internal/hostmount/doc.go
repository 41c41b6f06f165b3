// Package hostmount mounts a workspace store on a directory of the host for
// people (desk mount): an editor, a file manager or a shell then sees the
// workspace's files there, live both ways, through the same FUSE server as
// the sandbox's mount (package fusefs, with its invalidation from the
// store's journal: what others change shows at the next open, at once).
//
//	m, err := hostmount.New(ctx, store, "/home/me/ws", hostmount.Options{Actor: "mount:ID"})
//	...
//	select {
//	case <-m.Gone(): // unmounted outside: m.Why()
//	case <-done:
//	}
//	m.Unmount()
//
// # The mount point
//
// Check decides what may be a mount point, each refusal a *fs.PathError
// with an errno and a reason: the path must be absolute (EINVAL) and hold
// no symbolic link anywhere (ELOOP: openat2 with RESOLVE_NO_SYMLINKS; give
// the real path), lead to an existing (ENOENT) directory (ENOTDIR) that is
// empty (ENOTEMPTY: a mount would hide what is there) and not on a FUSE
// filesystem (EPERM: a desk mount inside another desk mount could deadlock
// its server; sshfs and the like are refused too), and be neither inside
// nor above a forbidden directory (EPERM: the server's data directory,
// /run/desk; "above" would hide them from the server).
//
// The server usually runs as root and the path may be in a directory
// someone else can write (their home). So nothing is resolved by path
// after the check: New opens the parent directory without symbolic links,
// checks that its entry is the directory checked, and mounts through
// descriptors (fusefs.Options.Parent: mount(2) and umount(2) on
// /proc/self/fd/N of the mount point). A name swapped for a symbolic link
// between the check and the mount cannot put the mount on /etc, and a path
// changed afterwards cannot make the unmount take anything else.
//
// # Who can use it
//
// The mount belongs to the mounting user: root, for desk serve. Without
// Options.AllowOther the kernel lets only that user in (every other user,
// even to stat the directory, gets EACCES). With it, every user may, and
// the kernel checks each access against the stored modes and owners
// (default_permissions), as on a local filesystem: what the API or the
// shell backend wrote is root's, readable by others as its mode says, not
// writable by them. Files created through the mount belong to their
// creator's uid and gid. /etc/fuse.conf's user_allow_other does not apply:
// it governs fusermount, the setuid helper of unprivileged mounters, and
// this package mounts with mount(2) directly.
//
// # Its end
//
// Unmount unmounts (a busy mount is detached and its connection aborted,
// so it never waits for the programs using it; their later accesses fail
// with ENOTCONN) and stops the server; everything written through the
// mount is in the store when it returns (fusefs closes the handles the
// kernel still held). Gone is closed, with Why, when the mount goes away
// by other means: umount or fusermount -u (the FUSE connection ends), or
// umount -l while in use (the mount leaves the mount table but the
// connection lives on: a watcher polls /proc/self/mountinfo, whose POLLPRI
// marks every change of the table, on a raw descriptor (an *os.File would
// join the Go runtime's epoll set, whose waits consume the table's events).
//
// # After a crash
//
// A process that dies with mounts up (a worker killed by the OOM killer)
// leaves them mounted, dead: the kernel aborts the connection when the
// last /dev/fuse descriptor closes, and every access fails with ENOTCONN.
// With Options.Records each live mount has a record (mount point and
// connection number) in a directory; Records.Cleanup, called when the
// recording processes are gone, aborts and detaches each recorded mount
// still in the table with the same connection (reached through its parent,
// without symbolic links) and removes the records.
//
// # Limits
//
// One watcher goroutine and one FUSE server per mount; the number of
// mounts is bounded by the caller (the API: per workspace and per server).
// Records are read up to 64 KiB. The FUSE server's limits are fusefs's
// (Options.FUSE).
//
// # Not done
//
// No mapping of owners (every file root's unless created through the
// mount): a person who wants to write the API's files through the mount
// chmods or chowns them (the mount's setattr works for root). Mounting
// on a directory a FUSE filesystem serves is refused rather than
// supported. A mount someone makes on top of this one, on the same
// directory, is not detected: umount(2) on the mount point reaches the
// topmost mount, so Unmount would take that one, and then report this one
// busy after fusefs's UnmountTimeout.
package hostmount
