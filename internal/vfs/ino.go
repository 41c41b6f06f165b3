package vfs

import (
	"context"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
)

// This file is the inode API: the store seen by inode number, for callers
// that track inodes rather than paths, as the FUSE server, to which the
// kernel names a file by its inode and a directory entry by its directory's
// inode and a name. Operations by path resolve the path again on every call,
// which races with concurrent renames and cannot reach a file that has lost
// its last name while open; these resolve nothing but the inode numbers they
// are given, inside the transaction that acts on them. The package
// documentation (Layout) says where the rest lives.

// Node names an inode by number. Path is a name the caller believes the inode
// has ("" when it knows none): it labels the journal entries the operation
// writes and its errors, nothing else. Every operation checks it against the
// inode inside its transaction; when it no longer names the inode (a concurrent
// rename) the store finds a current name, so a stale Path costs a search of the
// directory entries, never a wrong result.
type Node struct {
	Ino  uint64
	Path string
}

// SetAttr lists the attributes SetattrIno changes; a nil field is left as it is.
type SetAttr struct {
	Mode *uint32 // the 12 permission bits (type bits are ignored)
	Uid  *uint32
	Gid  *uint32
	Size *int64 // regular files only
	// Atime and Mtime may point at UtimeNow for the current time.
	Atime *time.Time
	Mtime *time.Time
}

// maxSearchDepth bounds the search for a name of an inode (a directory tree
// cannot be deeper than MaxPathLen/2 levels).
const maxSearchDepth = 4096

// loc is a name of an inode: its directory, its name there and its canonical
// path. The zero loc (parent 0, path "") means the inode has no name.
type loc struct {
	parent uint64
	name   string
	path   string
}

// dentFinder returns one directory entry naming ino, if any.
type dentFinder func(ino uint64) (parent uint64, name string, ok bool, err error)

// locate finds a current name of n: n.Path when a walk of it still ends at
// n.Ino, otherwise the name found by searching the directory entries upwards
// from the inode (a scan per level: dentries has no index by inode).
func (f *FS) locate(l lookupFn, find dentFinder, n Node) (loc, error) {
	if n.Ino == RootIno {
		return loc{path: "/"}, nil
	}
	if in, err := l.peek(n.Ino); err == nil && in.Nlink == 0 {
		return loc{}, nil // no name to find
	}
	if n.Path != "" {
		if p, _, err := f.cleanPath("", n.Path); err == nil {
			if r, err := f.walk(l, p, false); err == nil && r.ino == n.Ino && r.parent != 0 {
				return loc{parent: r.parent, name: r.name, path: r.path}, nil
			}
		}
	}
	var names []string
	var first loc
	for cur := n.Ino; cur != RootIno; {
		if len(names) > maxSearchDepth {
			return loc{}, nil
		}
		parent, name, ok, err := find(cur)
		if err != nil {
			return loc{}, err
		}
		if !ok {
			return loc{}, nil // unlinked (or below an unlinked directory)
		}
		if len(names) == 0 {
			first.parent, first.name = parent, name
		}
		names = append(names, name)
		cur = parent
	}
	slices.Reverse(names)
	first.path = "/" + strings.Join(names, "/")
	return first, nil
}

const findDentSQL = "SELECT parent, name FROM dentries WHERE ino = ? LIMIT 1"

// findDent is a dentFinder on the transaction's connection.
func (t *tx) findDent(ino uint64) (uint64, string, bool, error) {
	st, err := t.c.Prep(findDentSQL)
	if err != nil {
		return 0, "", false, err
	}
	defer st.Reset()
	if err := st.Bind(ino); err != nil {
		return 0, "", false, err
	}
	if !st.Step() {
		return 0, "", false, st.Err()
	}
	return uint64(st.Int64(0)), st.Text(1), true, nil
}

// findDent is a dentFinder on a read connection.
func (c committed) findDent(ino uint64) (parent uint64, name string, ok bool, err error) {
	err = c.f.queryRows(c.ctx, findDentSQL, []any{ino}, func(st *sqlite.Stmt) {
		parent, name, ok = uint64(st.Int64(0)), st.Text(1), true
	})
	return parent, name, ok, err
}

// locateTx is locate inside a transaction.
func (t *tx) locate(n Node) (loc, error) { return t.f.locate(t, t.findDent, n) }

// checkName validates a single name component as the kernel's *at calls see it.
func (f *FS) checkName(name string) error {
	switch {
	case name == "":
		return syscall.ENOENT
	case name == "." || name == "..", strings.ContainsAny(name, "/\x00"):
		return syscall.EINVAL
	case len(name) > f.opts.MaxNameLen:
		return syscall.ENAMETOOLONG
	}
	return nil
}

// joinLabel is the path that labels errors about name in a directory known as dir.
func joinLabel(dir, name string) string {
	switch dir {
	case "":
		return name
	case "/":
		return "/" + name
	}
	return dir + "/" + name
}

// resolveAt resolves name in the live directory dir inside t. The result's
// path is canonical (it decides ancestry in rename) and at most MaxPathLen long.
func (t *tx) resolveAt(dir Node, name string) (resolved, error) {
	if err := t.f.checkName(name); err != nil {
		return resolved{}, err
	}
	din, err := t.inode(dir.Ino)
	if err != nil {
		return resolved{}, err
	}
	if !din.IsDir() {
		return resolved{}, syscall.ENOTDIR
	}
	if din.Nlink == 0 {
		return resolved{}, syscall.ENOENT // removed while in use
	}
	where, err := t.locate(dir)
	if err != nil {
		return resolved{}, err
	}
	if where.path == "" {
		return resolved{}, syscall.ENOENT
	}
	p := joinLabel(where.path, name)
	if len(p) > t.f.opts.MaxPathLen {
		return resolved{}, syscall.ENAMETOOLONG
	}
	r := resolved{parent: dir.Ino, name: name, path: p}
	ino, err := t.lookup(dir.Ino, name)
	if err != nil {
		return resolved{}, err
	}
	if ino != 0 {
		in, err := t.peek(ino)
		if err != nil {
			return resolved{}, err
		}
		r.ino, r.in = ino, in
	}
	return r, nil
}

// resolveNew is resolveAt for a name to create: an existing entry is EEXIST.
func (t *tx) resolveNew(dir Node, name string) (resolved, error) {
	r, err := t.resolveAt(dir, name)
	if err == nil && r.ino != 0 {
		err = syscall.EEXIST
	}
	return r, err
}

// LookupAt returns the attributes of the inode name names in directory dir. A
// final symlink is not followed; name is a single component.
func (f *FS) LookupAt(ctx context.Context, dir uint64, name string) (Attr, error) {
	const op = "lookup"
	if err := ctx.Err(); err != nil {
		return Attr{}, err
	}
	if err := f.checkName(name); err != nil {
		return Attr{}, perr(op, name, err.(syscall.Errno))
	}
	din, ok, err := f.getInode(dir)
	if err != nil {
		return Attr{}, asPathErr(op, name, err)
	}
	if !ok {
		return Attr{}, perr(op, name, syscall.ENOENT)
	}
	if !din.IsDir() {
		return Attr{}, perr(op, name, syscall.ENOTDIR)
	}
	ino, err := f.getDent(dkey{dir, name})
	if err != nil {
		return Attr{}, asPathErr(op, name, err)
	}
	if ino == 0 {
		return Attr{}, perr(op, name, syscall.ENOENT)
	}
	in, ok, err := f.getInode(ino)
	if err != nil {
		return Attr{}, asPathErr(op, name, err)
	}
	if !ok {
		return Attr{}, perr(op, name, syscall.ENOENT)
	}
	return f.overlay(in).Attr, nil
}

// StatIno returns the attributes of inode ino (ENOENT if it does not exist).
func (f *FS) StatIno(ctx context.Context, ino uint64) (Attr, error) {
	in, err := f.inodeFor(ctx, "stat", ino)
	if err != nil {
		return Attr{}, err
	}
	return f.overlay(in).Attr, nil
}

// ReadDirIno lists up to limit entries of directory ino whose names sort
// after after, as ReadDirPage (limit <= 0: 1000).
func (f *FS) ReadDirIno(ctx context.Context, ino uint64, after string, limit int) ([]DirEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 1000
	}
	return f.listDir(ctx, ino, after, limit)
}

// OpenIno opens the existing inode n with os.O_* flags (O_CREATE and O_EXCL are
// ignored: the inode exists). It works on a file that has lost its last name
// while a handle keeps it open. A symlink is ELOOP, as with O_NOFOLLOW; a
// FIFO, socket or device ENXIO unless flag holds unix.O_PATH (see OpenFile).
func (f *FS) OpenIno(ctx context.Context, n Node, flag int) (*File, error) {
	const op = "open"
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.closed.Load() {
		return nil, perr(op, n.Path, syscall.EBADF)
	}
	flag &^= os.O_CREATE | os.O_EXCL
	write := flag&(os.O_WRONLY|os.O_RDWR) != 0
	if (write || flag&os.O_TRUNC != 0) && f.opts.ReadOnly {
		return nil, perr(op, n.Path, syscall.EROFS)
	}
	in, ok, err := f.getInode(n.Ino)
	if err != nil {
		return nil, asPathErr(op, n.Path, err)
	}
	if !ok {
		return nil, perr(op, n.Path, syscall.ENOENT)
	}
	if err := openCheck(&in, flag); err != nil {
		return nil, perr(op, n.Path, err.(syscall.Errno))
	}
	var where loc
	trunc := flag&os.O_TRUNC != 0 && in.IsRegular()
	if trunc {
		err = f.update(ctx, op, n.Path, func(t *tx) error {
			cur, err := t.inode(n.Ino)
			if err != nil {
				return err
			}
			if where, err = t.locate(n); err != nil {
				return err
			}
			r := resolved{parent: where.parent, name: where.name, path: where.path, ino: n.Ino, in: *cur}
			if err := f.truncateInTx(t, r, 0); err != nil {
				return err
			}
			tin, err := t.inode(n.Ino)
			if err != nil {
				return err
			}
			in = *tin
			return nil
		})
	} else {
		c := committed{f, ctx}
		where, err = f.locate(c, c.findDent, n)
		err = asPathErr(op, n.Path, err)
	}
	if err != nil {
		return nil, err
	}
	o, err := f.acquire(in, where.path)
	if err != nil {
		return nil, asPathErr(op, n.Path, err)
	}
	if trunc {
		f.contentChanged(in.Ino, true) // as OpenFile: other handles' unflushed writes go
	}
	name := where.path
	if name == "" {
		name = n.Path
	}
	return &File{f: f, ctx: context.WithoutCancel(ctx), o: o, name: name, flag: flag, isDir: in.IsDir()}, nil
}

// CreateAt creates the regular file name in directory dir with permission bits
// perm (no umask) and opens it with os.O_* flags, as open(2) with O_CREAT|O_EXCL:
// an existing name of any kind is EEXIST. New files belong to the context's
// owner (WithOwner), or to the directory's group when it is set-group-ID.
func (f *FS) CreateAt(ctx context.Context, dir Node, name string, flag int, perm fs.FileMode) (*File, error) {
	const op = "open"
	label := joinLabel(dir.Path, name)
	var in inode
	var p string
	err := f.update(ctx, op, label, func(t *tx) error {
		r, err := t.resolveNew(dir, name)
		if err != nil {
			return err
		}
		nin, err := t.create(r.parent, r.name, r.path, FileModeToUnix(perm), t.uid, t.gid)
		if err != nil {
			return err
		}
		in, p = *nin, r.path
		return nil
	})
	if err != nil {
		return nil, err
	}
	o, err := f.acquire(in, p)
	if err != nil {
		return nil, asPathErr(op, label, err)
	}
	flag &^= os.O_CREATE | os.O_EXCL | os.O_TRUNC
	return &File{f: f, ctx: context.WithoutCancel(ctx), o: o, name: p, flag: flag}, nil
}

// MkdirAt creates the directory name in directory dir, as Mkdir, and returns its
// attributes.
func (f *FS) MkdirAt(ctx context.Context, dir Node, name string, perm fs.FileMode) (Attr, error) {
	var a Attr
	err := f.update(ctx, "mkdir", joinLabel(dir.Path, name), func(t *tx) error {
		r, err := t.resolveNew(dir, name)
		if err != nil {
			return err
		}
		ino, err := t.mkdir(r.parent, r.name, r.path, FileModeToUnix(perm), t.uid, t.gid)
		if err != nil {
			return err
		}
		in, err := t.inode(ino)
		if err != nil {
			return err
		}
		a = in.Attr
		return nil
	})
	return a, err
}

// SymlinkAt creates the symlink name in directory dir pointing at target
// (stored verbatim), as Symlink, and returns its attributes.
func (f *FS) SymlinkAt(ctx context.Context, target string, dir Node, name string) (Attr, error) {
	const op = "symlink"
	label := joinLabel(dir.Path, name)
	switch {
	case target == "":
		return Attr{}, perr(op, label, syscall.ENOENT)
	case strings.IndexByte(target, 0) >= 0:
		return Attr{}, perr(op, label, syscall.EINVAL)
	case len(target) >= f.symlinkMax():
		return Attr{}, perr(op, label, syscall.ENAMETOOLONG)
	}
	var a Attr
	err := f.update(ctx, op, label, func(t *tx) error {
		r, err := t.resolveNew(dir, name)
		if err != nil {
			return err
		}
		in, err := t.symlink(r, target)
		if err != nil {
			return err
		}
		a = in.Attr
		return nil
	})
	return a, err
}

// MknodAt creates name in directory dir as Mknod does (a FIFO, socket,
// device or empty regular file; the same checks of the type) and returns its
// attributes.
func (f *FS) MknodAt(ctx context.Context, dir Node, name string, mode uint32, dev uint64) (Attr, error) {
	const op = "mknod"
	label := joinLabel(dir.Path, name)
	if err := mknodType(mode); err != nil {
		return Attr{}, perr(op, label, err.(syscall.Errno))
	}
	var a Attr
	err := f.update(ctx, op, label, func(t *tx) error {
		r, err := t.resolveNew(dir, name)
		if err != nil {
			return err
		}
		in, err := t.mknod(r, mode, dev)
		if err != nil {
			return err
		}
		a = in.Attr
		return nil
	})
	return a, err
}

// LinkAt creates name in directory dir as another name for inode n, as Link,
// and returns the inode's attributes. A directory is EPERM; an inode that has
// lost its last name is ENOENT, as linkat(2) says for files that are not
// O_TMPFILE.
func (f *FS) LinkAt(ctx context.Context, n Node, dir Node, name string) (Attr, error) {
	var a Attr
	err := f.update(ctx, "link", n.Path, func(t *tx) error {
		src, err := t.inode(n.Ino)
		if err != nil {
			return err
		}
		// As the kernel: the new name is checked before the source.
		rn, err := t.resolveNew(dir, name)
		if err != nil {
			return err
		}
		if !src.IsDir() && src.Nlink == 0 {
			return syscall.ENOENT
		}
		where, err := t.locate(n)
		if err != nil {
			return err
		}
		ro := resolved{parent: where.parent, name: where.name, path: where.path, ino: n.Ino, in: *src}
		in, err := t.link(ro, rn)
		if err != nil {
			return err
		}
		a = in.Attr
		return nil
	})
	return a, err
}

// RemoveAt removes name from directory dir: with isDir, as rmdir(2) (a
// non-directory is ENOTDIR, a non-empty directory ENOTEMPTY), otherwise as
// unlink(2) (a directory is EISDIR).
func (f *FS) RemoveAt(ctx context.Context, dir Node, name string, isDir bool) error {
	return f.update(ctx, "remove", joinLabel(dir.Path, name), func(t *tx) error {
		r, err := t.resolveAt(dir, name)
		if err != nil {
			return err
		}
		switch {
		case r.ino == 0:
			return syscall.ENOENT
		case isDir && !r.in.IsDir():
			return syscall.ENOTDIR
		case !isDir && r.in.IsDir():
			return syscall.EISDIR
		}
		return t.removeEntry(r.parent, r.name, r.path, &r.in, false)
	})
}

// RenameAt moves oldname in directory olddir to newname in directory newdir
// atomically, as Rename with renameat2(2) flags; with RenameWhiteout a
// whiteout takes oldname's place in the same transaction.
func (f *FS) RenameAt(ctx context.Context, olddir Node, oldname string, newdir Node, newname string, flags RenameFlags) error {
	label := joinLabel(olddir.Path, oldname)
	if flags&^(RenameNoReplace|RenameExchange|RenameWhiteout) != 0 || flags&RenameExchange != 0 && flags&(RenameNoReplace|RenameWhiteout) != 0 {
		return perr("rename", label, syscall.EINVAL)
	}
	return f.update(ctx, "rename", label, func(t *tx) error {
		ro, err := t.resolveAt(olddir, oldname)
		if err != nil {
			return err
		}
		rn, err := t.resolveAt(newdir, newname)
		if err != nil {
			return err
		}
		if ro.ino == 0 {
			return syscall.ENOENT
		}
		if flags&RenameWhiteout == 0 {
			return t.rename(ro, rn, flags)
		}
		if ro.ino == rn.ino {
			return nil // the same inode: nothing moves (rename(2)), no whiteout
		}
		if err := t.rename(ro, rn, flags&^RenameWhiteout); err != nil {
			return err
		}
		wo, err := t.resolveNew(olddir, oldname)
		if err != nil {
			return err
		}
		_, err = t.mknod(wo, S_IFCHR, 0)
		return err
	})
}

// SetattrIno changes the attributes a lists of inode n and returns the result.
// A size goes first (as Truncate, keeping other handles' unflushed writes below
// it); unflushed writes are committed before times are set, so the times given
// win; mode, owner and times then change in one transaction (as Chmod, Lchown
// and Utimens: a change of owner clears set-user-ID). An empty SetAttr changes
// the ctime only, as chown(2) with -1 for both ids does.
func (f *FS) SetattrIno(ctx context.Context, n Node, a SetAttr) (Attr, error) {
	const op = "setattr"
	empty := a == SetAttr{}
	if a.Size != nil {
		if err := f.truncateIno(ctx, n, *a.Size); err != nil {
			return Attr{}, err
		}
	}
	if a.Atime != nil || a.Mtime != nil {
		if err := f.flushIno(ctx, n.Ino, f.closeDelay()); err != nil {
			return Attr{}, asPathErr(op, n.Path, err)
		}
	}
	if empty || a.Mode != nil || a.Uid != nil || a.Gid != nil || a.Atime != nil || a.Mtime != nil {
		err := f.update(ctx, op, n.Path, func(t *tx) error {
			return t.setattrIno(n, func(t *tx, in *inode) error {
				if a.Mode != nil {
					in.Mode = in.Mode&S_IFMT | *a.Mode&permMask
				}
				if a.Uid != nil || a.Gid != nil {
					uid, gid := -1, -1
					if a.Uid != nil {
						uid = int(*a.Uid)
					}
					if a.Gid != nil {
						gid = int(*a.Gid)
					}
					if err := chownFn(uid, gid)(t, in); err != nil {
						return err
					}
				}
				at, mt := UtimeOmit, UtimeOmit
				if a.Atime != nil {
					at = *a.Atime
				}
				if a.Mtime != nil {
					mt = *a.Mtime
				}
				return utimensFn(at, mt)(t, in)
			})
		})
		if err != nil {
			return Attr{}, err
		}
	}
	attr, err := f.StatIno(ctx, n.Ino)
	if err != nil {
		return Attr{}, asPathErr(op, n.Path, err)
	}
	return attr, nil
}

// truncateIno sets the size of regular file n.
func (f *FS) truncateIno(ctx context.Context, n Node, size int64) error {
	const op = "truncate"
	switch {
	case size < 0:
		return perr(op, n.Path, syscall.EINVAL)
	case size > f.opts.MaxFileSize:
		return perr(op, n.Path, syscall.EFBIG)
	}
	in, ok, err := f.getInode(n.Ino)
	switch {
	case err != nil:
		return asPathErr(op, n.Path, err)
	case !ok:
		return perr(op, n.Path, syscall.ENOENT)
	case in.IsDir():
		return perr(op, n.Path, syscall.EISDIR)
	case !in.IsRegular():
		return perr(op, n.Path, syscall.EINVAL)
	}
	f.omu.Lock()
	o := f.opens[n.Ino]
	f.omu.Unlock()
	if o != nil && !o.dying {
		return asPathErr(op, n.Path, f.truncateOpen(ctx, o, size))
	}
	return f.update(ctx, op, n.Path, func(t *tx) error {
		cur, err := t.inode(n.Ino)
		if err != nil {
			return err
		}
		where, err := t.locate(n)
		if err != nil {
			return err
		}
		return f.truncateInTx(t, resolved{parent: where.parent, name: where.name, path: where.path, ino: n.Ino, in: *cur}, size)
	})
}

// setattrIno applies fn to inode n and journals the change.
func (t *tx) setattrIno(n Node, fn func(t *tx, in *inode) error) error {
	in, err := t.inode(n.Ino)
	if err != nil {
		return err
	}
	if err := fn(t, in); err != nil {
		return err
	}
	where, err := t.locate(n)
	if err != nil {
		return err
	}
	in.Ctime = t.now
	t.put(in)
	t.log(Change{Op: OpSetattr, Ino: in.Ino, Parent: where.parent, Name: where.name, Path: where.path})
	return nil
}

// ReadlinkIno returns the target of symlink ino (EINVAL for other inodes).
func (f *FS) ReadlinkIno(ctx context.Context, ino uint64) (string, error) {
	in, err := f.inodeFor(ctx, "readlink", ino)
	if err != nil {
		return "", err
	}
	if !in.IsSymlink() {
		return "", perr("readlink", "", syscall.EINVAL)
	}
	return in.target, nil
}

// GetxattrIno is Getxattr on inode ino.
func (f *FS) GetxattrIno(ctx context.Context, ino uint64, attr string) ([]byte, error) {
	if err := xattrNameLen(attr); err != nil {
		return nil, perr("getxattr", "", err.(syscall.Errno))
	}
	if _, err := f.inodeFor(ctx, "getxattr", ino); err != nil {
		return nil, err
	}
	return f.getxattr(ctx, "", ino, attr)
}

// ListxattrIno is Listxattr on inode ino.
func (f *FS) ListxattrIno(ctx context.Context, ino uint64) ([]string, error) {
	if _, err := f.inodeFor(ctx, "listxattr", ino); err != nil {
		return nil, err
	}
	return f.listxattr(ctx, "", ino)
}

// SetxattrIno is Setxattr on inode n.
func (f *FS) SetxattrIno(ctx context.Context, n Node, attr string, value []byte, flags int) error {
	if err := f.checkSetxattr(attr, value, flags); err != nil {
		return perr("setxattr", n.Path, err.(syscall.Errno))
	}
	return f.update(ctx, "setxattr", n.Path, func(t *tx) error {
		return t.setattrIno(n, setxattrFn(attr, value, flags))
	})
}

// RemovexattrIno is Removexattr on inode n.
func (f *FS) RemovexattrIno(ctx context.Context, n Node, attr string) error {
	if err := xattrNameLen(attr); err != nil {
		return perr("removexattr", n.Path, err.(syscall.Errno))
	}
	return f.update(ctx, "removexattr", n.Path, func(t *tx) error {
		return t.setattrIno(n, removexattrFn(attr))
	})
}

// inodeFor returns inode ino as applied, for a read-only operation op.
func (f *FS) inodeFor(ctx context.Context, op string, ino uint64) (inode, error) {
	if err := ctx.Err(); err != nil {
		return inode{}, err
	}
	if f.closed.Load() {
		return inode{}, perr(op, "", syscall.EBADF)
	}
	in, ok, err := f.getInode(ino)
	if err != nil {
		return inode{}, asPathErr(op, "", err)
	}
	if !ok {
		return inode{}, perr(op, "", syscall.ENOENT)
	}
	return in, nil
}

// seekDataLocked implements SeekData (hole false) and SeekHole: a chunk is data
// when it is stored or has unflushed writes. o.mu is held.
func (f *FS) seekDataLocked(ctx context.Context, o *openInode, off int64, hole bool) (int64, error) {
	size, err := f.sizeLocked(o)
	if err != nil {
		return 0, err
	}
	if off < 0 || off >= size {
		return 0, syscall.ENXIO
	}
	cs := f.chunkSize
	last := (size - 1) / cs
	idx := off / cs
	// Stored chunks from idx on, in order, merged with the unflushed ones.
	var stored []int64
	// Inline content (inline.go) is chunk 0.
	err = f.queryRows(ctx, `SELECT 0 FROM inodes WHERE ino = ?1 AND ?2 = 0 AND data IS NOT NULL
		UNION ALL SELECT idx FROM file_chunks WHERE ino = ?1 AND idx >= ?2 AND idx <= ?3`,
		[]any{o.ino, idx, last}, func(st *sqlite.Stmt) { stored = append(stored, st.Int64(0)) })
	if err != nil {
		return 0, err
	}
	for i := range o.dirty {
		if i >= idx && i <= last {
			stored = append(stored, i)
		}
	}
	slices.Sort(stored)
	stored = slices.Compact(stored)
	if !hole {
		if len(stored) == 0 {
			return 0, syscall.ENXIO
		}
		return max(off, stored[0]*cs), nil
	}
	for _, s := range stored {
		if s != idx {
			break // idx is a hole
		}
		idx++
	}
	if idx > last {
		return size, nil
	}
	return max(off, idx*cs), nil
}
