package fusefs

import (
	"context"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

// node is one inode of the store as go-fuse knows it: files, directories and
// symlinks alike (the store refuses what does not apply to a type). Its
// identity is the store's inode number and generation (StableAttr); the inode
// number is also the FUSE node id, so the kernel, go-fuse and the store agree on
// it and the journal follower can address the kernel's inodes directly.
type node struct {
	gofs.Inode
	srv *Server

	mu  sync.Mutex
	pin *handle // keeps an inode that lost its last name while the kernel holds it
}

var (
	_ gofs.NodeLookuper       = (*node)(nil)
	_ gofs.NodeGetattrer      = (*node)(nil)
	_ gofs.NodeSetattrer      = (*node)(nil)
	_ gofs.NodeOpener         = (*node)(nil)
	_ gofs.NodeCreater        = (*node)(nil)
	_ gofs.NodeMknoder        = (*node)(nil)
	_ gofs.NodeMkdirer        = (*node)(nil)
	_ gofs.NodeSymlinker      = (*node)(nil)
	_ gofs.NodeLinker         = (*node)(nil)
	_ gofs.NodeUnlinker       = (*node)(nil)
	_ gofs.NodeRmdirer        = (*node)(nil)
	_ gofs.NodeRenamer        = (*node)(nil)
	_ gofs.NodeReadlinker     = (*node)(nil)
	_ gofs.NodeGetxattrer     = (*node)(nil)
	_ gofs.NodeSetxattrer     = (*node)(nil)
	_ gofs.NodeListxattrer    = (*node)(nil)
	_ gofs.NodeRemovexattrer  = (*node)(nil)
	_ gofs.NodeStatfser       = (*node)(nil)
	_ gofs.NodeOpendirHandler = (*node)(nil)
	_ gofs.NodeOnForgetter    = (*node)(nil)
)

// pinChild keeps the inode the kernel knows as name alive before an unlink,
// rmdir or rename may take its last name: on Linux an inode lives while the
// kernel references it (a process may be about to open it, or have it as its
// working directory), and the store would delete it at once. The pin goes when
// the kernel forgets the inode. The kernel holds the directory locked during
// these calls, so go-fuse's view of its children is current.
func (n *node) pinChild(name string) {
	ch := n.GetChild(name)
	if ch == nil || ch.StableAttr().Mode&syscall.S_IFMT == syscall.S_IFLNK {
		return // unknown to the kernel; a symlink cannot be opened
	}
	c, ok := ch.Operations().(*node)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pin != nil {
		return
	}
	flags := syscall.O_RDONLY
	if ch.StableAttr().Mode&syscall.S_IFMT != syscall.S_IFREG && ch.StableAttr().Mode&syscall.S_IFMT != syscall.S_IFDIR {
		flags = unix.O_PATH // a FIFO, socket or device: the store opens those only so
	}
	f, err := n.srv.store.OpenIno(n.srv.ctx, c.ref(), flags)
	if err != nil {
		return // gone already
	}
	c.pin = n.srv.newHandle(f, 0)
}

// OnForget releases the pin: the kernel no longer references the inode.
func (n *node) OnForget() {
	n.mu.Lock()
	h := n.pin
	n.pin = nil
	n.mu.Unlock()
	if h != nil {
		h.Release(context.Background())
	}
}

// ino is the store's inode number of n.
func (n *node) ino() uint64 { return n.StableAttr().Ino }

// ref names n for the store, with the path go-fuse's tree gives it as a hint.
func (n *node) ref() vfs.Node { return vfs.Node{Ino: n.ino(), Path: n.path()} }

// path is a path of n in go-fuse's tree of known inodes ("" if the tree does
// not reach it from the root). The store checks it before trusting it.
func (n *node) path() string {
	var parts []string
	cur := &n.Inode
	for !cur.IsRoot() {
		name, parent := cur.Parent()
		if parent == nil || len(parts) > 2048 {
			return ""
		}
		parts = append(parts, name)
		cur = parent
	}
	slices.Reverse(parts)
	return "/" + strings.Join(parts, "/")
}

// child returns the go-fuse inode for a with a filled in out; go-fuse keeps the
// existing one when it already knows the inode (a hard link, a race).
func (n *node) child(ctx context.Context, a vfs.Attr, out *fuse.EntryOut) *gofs.Inode {
	n.srv.fillAttr(a, &out.Attr)
	return n.NewInode(ctx, &node{srv: n.srv}, gofs.StableAttr{Mode: a.Mode & syscall.S_IFMT, Ino: a.Ino, Gen: a.Gen})
}

// fillAttr converts store attributes to FUSE ones.
func (s *Server) fillAttr(a vfs.Attr, out *fuse.Attr) {
	out.Ino = a.Ino
	out.Size = uint64(a.Size)
	out.Blocks = uint64(a.Blocks)
	out.Atime, out.Atimensec = split(a.Atime)
	out.Mtime, out.Mtimensec = split(a.Mtime)
	out.Ctime, out.Ctimensec = split(a.Ctime)
	out.Mode = a.Mode
	out.Nlink = a.Nlink
	out.Uid, out.Gid = s.opts.IDMap.toKernel(a.Uid, s.opts.IDMap.UID), s.opts.IDMap.toKernel(a.Gid, s.opts.IDMap.GID)
	out.Blksize = 4096
	out.Rdev = fuseDev(a.Rdev)
}

// split gives a time as FUSE carries it: seconds (two's complement for times
// before 1970, as the kernel reads them) and nanoseconds.
func split(t time.Time) (uint64, uint32) {
	return uint64(t.Unix()), uint32(t.Nanosecond())
}

// Lookup finds name in directory n.
func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if e := n.allow(ctx, name, false); e != 0 {
		return nil, e
	}
	a, err := n.srv.store.LookupAt(n.srv.ctx, n.ino(), name)
	if err != nil {
		return nil, n.srv.errno("lookup", err)
	}
	return n.child(ctx, a, out), 0
}

// Getattr reports n's attributes, including writes not yet committed.
func (n *node) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if e := n.allow(ctx, "", false); e != 0 {
		return e
	}
	a, err := n.srv.store.StatIno(n.srv.ctx, n.ino())
	if err != nil {
		return n.srv.errno("getattr", err)
	}
	n.srv.fillAttr(a, &out.Attr)
	return 0
}

// Setattr changes mode, owner, size and times (chmod, chown, truncate,
// utimensat with UTIME_NOW and UTIME_OMIT).
func (n *node) Setattr(ctx context.Context, f gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if e := n.allow(ctx, "", true); e != 0 {
		return e
	}
	var sa vfs.SetAttr
	if m, ok := in.GetMode(); ok {
		sa.Mode = &m
	}
	if u, ok := in.GetUID(); ok {
		u = n.srv.opts.IDMap.toStore(u, n.srv.opts.IDMap.UID)
		sa.Uid = &u
	}
	if g, ok := in.GetGID(); ok {
		g = n.srv.opts.IDMap.toStore(g, n.srv.opts.IDMap.GID)
		sa.Gid = &g
	}
	if sz, ok := in.GetSize(); ok {
		size := int64(sz)
		sa.Size = &size
	}
	if in.Valid&fuse.FATTR_ATIME != 0 {
		t := vfs.UtimeNow
		if in.Valid&fuse.FATTR_ATIME_NOW == 0 {
			t = time.Unix(int64(in.Atime), int64(in.Atimensec))
		}
		sa.Atime = &t
	}
	if in.Valid&fuse.FATTR_MTIME != 0 {
		t := vfs.UtimeNow
		if in.Valid&fuse.FATTR_MTIME_NOW == 0 {
			t = time.Unix(int64(in.Mtime), int64(in.Mtimensec))
		}
		sa.Mtime = &t
	}
	a, err := n.srv.store.SetattrIno(n.srv.writeCtx(ctx), n.ref(), sa)
	if err != nil {
		return n.srv.errno("setattr", err)
	}
	n.srv.fillAttr(a, &out.Attr)
	// go-fuse sets no timeout on a SETATTR reply; without one the kernel
	// would ask for the attributes again at the next stat.
	out.SetTimeout(n.srv.opts.AttrTimeout)
	return 0
}

// storeFlags are the open(2) flags the store sees: the kernel has dealt with
// creation, and with truncation (it sends a SETATTR).
func storeFlags(flags uint32) int {
	return int(flags) &^ (syscall.O_CREAT | syscall.O_EXCL | syscall.O_TRUNC | syscall.O_NOCTTY |
		syscall.O_DIRECT | syscall.O_SYNC | syscall.O_DSYNC | syscall.O_NOFOLLOW)
}

// Open opens regular file n. It first waits (up to Options.SyncTimeout) until
// the invalidations of every change committed before it have reached the
// kernel, so an open sees what the store held when it started; the kernel's
// page cache is then kept (FOPEN_KEEP_CACHE), since changes by others are
// invalidated from the journal. See openStore for stale inodes.
func (n *node) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	if e := n.allow(ctx, "", flags&syscall.O_ACCMODE != syscall.O_RDONLY); e != 0 {
		return nil, 0, e
	}
	synced := n.srv.nt.waitFor(ctx, n.srv.store.Seq(), n.srv.opts.SyncTimeout)
	octx := n.srv.ctx
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY {
		octx = n.srv.writeCtx(ctx) // the handle's writes carry the opener's actor
	}
	f, errno := n.openStore(octx, "open", storeFlags(flags))
	if errno != 0 {
		return nil, 0, errno
	}
	if !synced {
		// The journal follower is late: drop this file's pages and attributes
		// here, so the open still sees the store as it is.
		n.srv.invalContent(n.ino(), 0, 0)
	}
	open := uint32(fuse.FOPEN_KEEP_CACHE)
	if flags&syscall.O_ACCMODE == syscall.O_RDONLY {
		// Nothing to commit at close: spare the FLUSH round trip.
		open |= fuse.FOPEN_NOFLUSH
	}
	return n.srv.newHandle(f, flags), open, 0
}

// openStore opens n in the store. The kernel found n by a path walk that may
// have used a name someone else has since removed or replaced (the
// invalidation was on its way): an inode the store no longer has, or one left
// with no name by others, is ESTALE, which makes the kernel walk the path again
// and open what is there now. An inode this mount unlinked itself stays
// openable while the kernel holds it (pinChild), as on a local filesystem.
func (n *node) openStore(ctx context.Context, op string, flags int) (*vfs.File, syscall.Errno) {
	f, err := n.srv.store.OpenIno(ctx, n.ref(), flags)
	if err != nil {
		if e := n.srv.errno(op, err); e != syscall.ENOENT {
			return nil, e
		}
		return nil, syscall.ESTALE
	}
	n.mu.Lock()
	pinned := n.pin != nil
	n.mu.Unlock()
	if !pinned && !n.IsRoot() {
		if fi, err := f.Stat(); err == nil && fi.Attr().Nlink == 0 {
			f.Close()
			return nil, syscall.ESTALE
		}
	}
	return f, 0
}

// Create creates and opens regular file name. The kernel sends it when its
// cache says the name is missing; if the store has the name after all (someone
// else just made it) and the caller did not ask for O_EXCL, the answer is
// ESTALE, so the kernel looks the name up again and opens what is there.
func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	if e := n.allow(ctx, name, true); e != 0 {
		return nil, nil, 0, e
	}
	f, err := n.srv.store.CreateAt(n.srv.ownerCtx(ctx), n.ref(), name, storeFlags(flags), vfs.UnixToFileMode(mode&0o7777))
	if err != nil {
		e := n.srv.errno("create", err)
		if e == syscall.EEXIST && flags&syscall.O_EXCL == 0 {
			e = syscall.ESTALE
		}
		return nil, nil, 0, e
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, 0, n.srv.errno("create", err)
	}
	return n.child(ctx, fi.Attr(), out), n.srv.newHandle(f, flags), fuse.FOPEN_KEEP_CACHE, 0
}

// Mknod makes a FIFO, a socket (bind(2) makes one through mknod), a device
// or an empty regular file. The kernel gives them their meaning: it pipes a
// FIFO opened through the mount, binds and connects a socket, and reaches a
// device (unless the mount is nodev), and sends none of that I/O here.
func (n *node) Mknod(ctx context.Context, name string, mode uint32, dev uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if e := n.allow(ctx, name, true); e != 0 {
		return nil, e
	}
	a, err := n.srv.store.MknodAt(n.srv.ownerCtx(ctx), n.ref(), name, mode, storeDev(dev))
	if err != nil {
		return nil, n.srv.errno("mknod", err)
	}
	return n.child(ctx, a, out), 0
}

// storeDev converts a device number as FUSE carries it (the kernel's
// new_encode_dev: 12 bits of major, 20 of minor) to the store's (unix.Mkdev).
func storeDev(dev uint32) uint64 {
	major := (dev & 0xfff00) >> 8
	minor := dev&0xff | (dev>>12)&0xfff00
	return unix.Mkdev(major, minor)
}

// fuseDev is the inverse of storeDev; a number beyond what the kernel can hold
// (a major over 4095 or a minor over 2^20-1, from an archive) is cut to it.
func fuseDev(dev uint64) uint32 {
	major, minor := unix.Major(dev)&0xfff, unix.Minor(dev)&0xfffff
	return minor&0xff | major<<8 | (minor&^0xff)<<12
}

// Mkdir creates directory name.
func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if e := n.allow(ctx, name, true); e != 0 {
		return nil, e
	}
	a, err := n.srv.store.MkdirAt(n.srv.ownerCtx(ctx), n.ref(), name, vfs.UnixToFileMode(mode&0o7777))
	if err != nil {
		return nil, n.srv.errno("mkdir", err)
	}
	return n.child(ctx, a, out), 0
}

// Symlink creates symlink name pointing at target.
func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if e := n.allow(ctx, name, true); e != 0 {
		return nil, e
	}
	a, err := n.srv.store.SymlinkAt(n.srv.ownerCtx(ctx), target, n.ref(), name)
	if err != nil {
		return nil, n.srv.errno("symlink", err)
	}
	return n.child(ctx, a, out), 0
}

// Link adds name as another name of target.
func (n *node) Link(ctx context.Context, target gofs.InodeEmbedder, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if e := n.allow(ctx, name, true); e != 0 {
		return nil, e
	}
	if t, ok := target.(*node); ok {
		if e := t.allow(ctx, "", true); e != 0 {
			return nil, e
		}
	}
	t, ok := target.(*node)
	if !ok {
		return nil, syscall.EXDEV
	}
	a, err := n.srv.store.LinkAt(n.srv.writeCtx(ctx), t.ref(), n.ref(), name)
	if err != nil {
		return nil, n.srv.errno("link", err)
	}
	return n.child(ctx, a, out), 0
}

// Unlink removes name (not a directory).
func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	if e := n.allow(ctx, name, true); e != 0 {
		return e
	}
	n.pinChild(name)
	return n.srv.errno("unlink", n.srv.store.RemoveAt(n.srv.writeCtx(ctx), n.ref(), name, false))
}

// Rmdir removes the empty directory name.
func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	if e := n.allow(ctx, name, true); e != 0 {
		return e
	}
	n.pinChild(name)
	return n.srv.errno("rmdir", n.srv.store.RemoveAt(n.srv.writeCtx(ctx), n.ref(), name, true))
}

// Rename is renameat2(2) with RENAME_NOREPLACE, RENAME_EXCHANGE and
// RENAME_WHITEOUT (the whiteout, a character device 0:0, made in the same
// store transaction: overlayfs needs it of an upper layer on FUSE).
func (n *node) Rename(ctx context.Context, name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if e := n.allow(ctx, name, true); e != 0 {
		return e
	}
	if np, ok := newParent.(*node); ok {
		if e := np.allow(ctx, newName, true); e != 0 {
			return e
		}
	}
	np, ok := newParent.(*node)
	if !ok {
		return syscall.EXDEV
	}
	const known = uint32(vfs.RenameNoReplace | vfs.RenameExchange | vfs.RenameWhiteout)
	if flags&^known != 0 {
		return syscall.EINVAL
	}
	if flags&^uint32(vfs.RenameWhiteout) == 0 {
		np.pinChild(newName) // the destination may lose its last name
	}
	wctx := n.srv.writeCtx(ctx)
	if flags&uint32(vfs.RenameWhiteout) != 0 {
		wctx = n.srv.ownerCtx(ctx) // the whiteout is the caller's
	}
	err := n.srv.store.RenameAt(wctx, n.ref(), name, np.ref(), newName, vfs.RenameFlags(flags))
	return n.srv.errno("rename", err)
}

// Readlink returns the target of symlink n.
func (n *node) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	if e := n.allow(ctx, "", false); e != 0 {
		return nil, e
	}
	t, err := n.srv.store.ReadlinkIno(n.srv.ctx, n.ino())
	if err != nil {
		return nil, n.srv.errno("readlink", err)
	}
	return []byte(t), 0
}

// Getxattr copies attribute attr into dest (its size when dest is empty;
// ERANGE when dest is too small).
func (n *node) Getxattr(ctx context.Context, attr string, dest []byte) (uint32, syscall.Errno) {
	if e := n.allow(ctx, "", false); e != 0 {
		return 0, e
	}
	v, err := n.srv.store.GetxattrIno(n.srv.ctx, n.ino(), attr)
	if err != nil {
		return 0, n.srv.errno("getxattr", err)
	}
	return sized(v, dest)
}

// Listxattr copies the NUL-terminated attribute names into dest.
func (n *node) Listxattr(ctx context.Context, dest []byte) (uint32, syscall.Errno) {
	if e := n.allow(ctx, "", false); e != 0 {
		return 0, e
	}
	names, err := n.srv.store.ListxattrIno(n.srv.ctx, n.ino())
	if err != nil {
		return 0, n.srv.errno("listxattr", err)
	}
	var b []byte
	for _, nm := range names {
		b = append(append(b, nm...), 0)
	}
	return sized(b, dest)
}

// sized answers a getxattr/listxattr-style request for v into dest.
func sized(v, dest []byte) (uint32, syscall.Errno) {
	if len(dest) == 0 {
		return uint32(len(v)), 0
	}
	if len(dest) < len(v) {
		return uint32(len(v)), syscall.ERANGE
	}
	return uint32(copy(dest, v)), 0
}

// Setxattr sets attribute attr (flags: XATTR_CREATE, XATTR_REPLACE).
func (n *node) Setxattr(ctx context.Context, attr string, data []byte, flags uint32) syscall.Errno {
	if e := n.allow(ctx, "", true); e != 0 {
		return e
	}
	return n.srv.errno("setxattr", n.srv.store.SetxattrIno(n.srv.writeCtx(ctx), n.ref(), attr, data, int(flags)))
}

// Removexattr removes attribute attr.
func (n *node) Removexattr(ctx context.Context, attr string) syscall.Errno {
	if e := n.allow(ctx, "", true); e != 0 {
		return e
	}
	return n.srv.errno("removexattr", n.srv.store.RemovexattrIno(n.srv.writeCtx(ctx), n.ref(), attr))
}

// Statfs reports the store's space in 4 KiB blocks: free is the smallest of
// the quota left, the free space of the disk holding the store (beyond its
// reserve) and the data directory's bound left; the size is used plus free
// (see vfs.StatFS).
func (n *node) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	st, err := n.srv.store.Statfs(n.srv.ctx)
	if err != nil {
		return n.srv.errno("statfs", err)
	}
	const bs = 4096
	out.Bsize, out.Frsize = bs, bs
	out.Blocks = uint64((st.UsedBytes + st.FreeBytes) / bs)
	out.Bfree = uint64(st.FreeBytes / bs)
	out.Bavail = out.Bfree
	out.Files = uint64(st.Files)
	out.Ffree = uint64(st.FilesFree)
	out.NameLen = uint32(st.NameMax)
	return 0
}

// OpendirHandle opens directory n for reading. The kernel keeps the listing
// (FOPEN_CACHE_DIR): it drops it by itself when the directory changes through
// the mount, and the journal follower drops it when others change it (and
// the attributes with it, so that a listing filled while another writer
// changed the directory is dropped at the next open, whose permission check
// fetches the new mtime, which no longer matches the listing's). As Open, it
// first waits until the invalidations of changes committed before it were
// sent.
func (n *node) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	if e := n.allow(ctx, "", false); e != 0 {
		return nil, 0, e
	}
	// Without OPENDIR (rawFS) this opens the handle a READDIRPLUS reads
	// through, while the kernel holds the directory: waiting for the journal
	// follower there could deadlock with its invalidation of the directory.
	synced := n.srv.raw.noOpendir.Load() || n.srv.nt.waitFor(ctx, n.srv.store.Seq(), n.srv.opts.SyncTimeout)
	f, errno := n.openStore(n.srv.ctx, "opendir", syscall.O_RDONLY|syscall.O_DIRECTORY)
	if errno != 0 {
		return nil, 0, errno
	}
	if !synced {
		n.srv.invalDir(n.ino())
	}
	return &dirHandle{n: n, h: n.srv.newHandle(f, 0)}, fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE, 0
}
