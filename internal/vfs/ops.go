package vfs

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
)

type ownerKey struct{}

// WithOwner returns a context whose creations (files, directories, symlinks) are
// owned by uid and gid. Without it new inodes belong to 0:0.
func WithOwner(ctx context.Context, uid, gid uint32) context.Context {
	return context.WithValue(ctx, ownerKey{}, [2]uint32{uid, gid})
}

func owner(ctx context.Context) (uint32, uint32) {
	if v, ok := ctx.Value(ownerKey{}).([2]uint32); ok {
		return v[0], v[1]
	}
	return 0, 0
}

// resolve cleans and walks name against the committed state.
func (f *FS) resolve(ctx context.Context, op, name string, follow bool) (resolved, string, error) {
	return f.resolveAs(ctx, op, name, follow, false)
}

// resolveExisting is resolve for an operation on an existing name: a
// missing one is ENOENT.
func (f *FS) resolveExisting(ctx context.Context, op, name string, follow bool) (resolved, string, error) {
	r, p, err := f.resolve(ctx, op, name, follow)
	if err == nil && r.ino == 0 {
		err = perr(op, name, syscall.ENOENT)
	}
	return r, p, err
}

// resolveAs is resolve, for an open with O_CREAT when create is set
// (walkPathAs).
func (f *FS) resolveAs(ctx context.Context, op, name string, follow, create bool) (resolved, string, error) {
	if err := ctx.Err(); err != nil {
		return resolved{}, "", err
	}
	if f.closed.Load() {
		return resolved{}, "", perr(op, name, syscall.EBADF)
	}
	p, dirOnly, err := f.cleanPath(op, name)
	if err != nil {
		return resolved{}, "", err
	}
	r, err := f.walkCommitted(ctx, p, follow || dirOnly, create)
	if err != nil {
		return r, p, asPathErr(op, name, err)
	}
	if r.ino != 0 && dirOnly && !r.in.IsDir() {
		return r, p, perr(op, name, syscall.ENOTDIR)
	}
	return r, p, nil
}

// maxWalkRetries bounds the walks walkCommitted repeats.
const maxWalkRetries = 16

// walkCommitted walks p against the committed state. The walk reads the
// cache (or the database) one entry at a time, so a commit applied between
// two of its reads can show it a name whose inode the commit just deleted:
// a file renamed over (how git, and every atomic writer, replaces a file)
// would read as absent for that instant, where the kernel guarantees the
// name exists throughout. A walk that fails with ENOENT while a commit was
// applied is therefore repeated, so it sees one state or the other.
func (f *FS) walkCommitted(ctx context.Context, p string, follow, create bool) (resolved, error) {
	for try := 0; ; try++ {
		ver := f.cache.version()
		r, err := f.walkAs(committed{f, ctx}, p, follow, create)
		if err == nil || !errors.Is(err, syscall.ENOENT) || try == maxWalkRetries || f.cache.version() == ver {
			return r, err
		}
	}
}

// walkTx cleans and walks name inside a transaction.
func (f *FS) walkTx(t *tx, op, name string, follow bool) (resolved, bool, error) {
	return f.walkTxAs(t, op, name, follow, false)
}

// walkTxAs is walkTx, for an open with O_CREAT when create is set
// (walkPathAs).
func (f *FS) walkTxAs(t *tx, op, name string, follow, create bool) (resolved, bool, error) {
	p, dirOnly, err := f.cleanPath(op, name)
	if err != nil {
		return resolved{}, false, err
	}
	r, err := f.walkAs(t, p, follow || dirOnly, create)
	if err != nil {
		return r, dirOnly, err
	}
	if r.ino != 0 && dirOnly && !r.in.IsDir() {
		return r, dirOnly, syscall.ENOTDIR
	}
	return r, dirOnly, nil
}

// walkCreate resolves the name a creation (link, symlink) will make, or the
// name remove and rename act on: a final symlink is not followed, even with a
// trailing slash (the kernel's filename_parentat), and dirOnly tells the caller
// the name had one: a creation fails a missing name with ENOENT (an existing
// one is its EEXIST); remove and rename fail an existing non-directory with
// ENOTDIR, each at its point in the kernel's order of checks.
func (f *FS) walkCreate(t *tx, op, name string) (resolved, bool, error) {
	p, dirOnly, err := f.cleanPath(op, name)
	if err != nil {
		return resolved{}, false, err
	}
	r, err := f.walk(t, p, false)
	return r, dirOnly, err
}

// walkNew is walkCreate for a creation (mknod, symlink, link): the name
// must not exist (EEXIST) and, named with a trailing slash, is ENOENT.
func (f *FS) walkNew(t *tx, op, name string) (resolved, error) {
	r, dirOnly, err := f.walkCreate(t, op, name)
	switch {
	case err != nil:
		return r, err
	case r.ino != 0:
		return r, syscall.EEXIST
	case dirOnly:
		return r, syscall.ENOENT
	}
	return r, nil
}

func baseName(p string) string {
	if p == "/" {
		return "/"
	}
	return path.Base(p)
}

// Stat returns the attributes of name, following symlinks.
func (f *FS) Stat(ctx context.Context, name string) (*FileInfo, error) {
	return f.stat(ctx, "stat", name, true)
}

// Lstat returns the attributes of name without following a final symlink.
func (f *FS) Lstat(ctx context.Context, name string) (*FileInfo, error) {
	return f.stat(ctx, "lstat", name, false)
}

func (f *FS) stat(ctx context.Context, op, name string, follow bool) (*FileInfo, error) {
	r, p, err := f.resolveExisting(ctx, op, name, follow)
	if err != nil {
		return nil, err
	}
	return NewFileInfo(baseName(p), f.overlay(r.in).Attr), nil
}

// Mkdir creates a directory with the given permission bits (no umask is applied).
func (f *FS) Mkdir(ctx context.Context, name string, perm fs.FileMode) error {
	return f.update(ctx, "mkdir", name, func(t *tx) error {
		return t.opMkdir(name, perm)
	})
}

func (t *tx) mkdir(parent uint64, name, p string, perm uint32, uid, gid uint32) (uint64, error) {
	// As on Linux, mkdir keeps only the permission and sticky bits; set-group-ID
	// is inherited from the parent (newEntry).
	in, err := t.newEntry(OpMkdir, parent, name, p, S_IFDIR|perm&(0o777|S_ISVTX), uid, gid)
	if err != nil {
		return 0, err
	}
	return in.Ino, nil
}

// newEntry makes the inode of a creation (create, mkdir, mknod, symlink):
// a new inode of mode (its type and permission bits) owned by uid:gid,
// named name in the directory parent (its path p), which must not have
// been removed (ENOENT). In a set-group-ID directory it takes the
// directory's group, and a new directory the set-group-ID bit too. The
// inode returned is the one the transaction holds: what the caller sets in
// it before the transaction ends is what is stored.
func (t *tx) newEntry(op Op, parent uint64, name, p string, mode, uid, gid uint32) (*inode, error) {
	dir, err := t.inode(parent)
	if err != nil {
		return nil, err
	}
	if dir.Nlink == 0 {
		return nil, syscall.ENOENT
	}
	in, err := t.newInode(mode)
	if err != nil {
		return nil, err
	}
	in.Uid, in.Gid = uid, gid
	if dir.Mode&S_ISGID != 0 {
		in.Gid = dir.Gid
		if in.IsDir() {
			in.Mode |= S_ISGID
		}
	}
	if err := t.addDent(parent, name, in.Ino, in.Mode); err != nil {
		return nil, err
	}
	if in.IsDir() {
		dir.Nlink++
	}
	dir.Mtime, dir.Ctime = t.now, t.now
	t.put(dir)
	t.log(Change{Op: op, Ino: in.Ino, Parent: parent, Name: name, Path: p})
	return in, nil
}

// MkdirAll creates name and any missing parents. Existing directories are fine;
// an existing non-directory is ENOTDIR (or EEXIST for the final component).
func (f *FS) MkdirAll(ctx context.Context, name string, perm fs.FileMode) error {
	return f.update(ctx, "mkdir", name, func(t *tx) error {
		return t.opMkdirAll(name, perm)
	})
}

// ReadDir lists a directory in name order.
func (f *FS) ReadDir(ctx context.Context, name string) ([]DirEntry, error) {
	var all []DirEntry
	after := ""
	for {
		page, err := f.ReadDirPage(ctx, name, after, 4096)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) < 4096 {
			return all, nil
		}
		after = page[len(page)-1].Name
	}
}

// ReadDirPage lists up to limit entries of a directory whose names sort after
// after (byte order), in name order. Pass the last name of a page to get the next.
func (f *FS) ReadDirPage(ctx context.Context, name, after string, limit int) ([]DirEntry, error) {
	return f.readDirWith(ctx, name, after, limit, f.listDir)
}

// readDirWith is ReadDirPage and ReadDirNames, with list reading a page of
// the directory's entries.
func (f *FS) readDirWith(ctx context.Context, name, after string, limit int, list func(ctx context.Context, ino uint64, after string, limit int) ([]DirEntry, error)) ([]DirEntry, error) {
	r, limit, err := f.resolveDir(ctx, name, limit)
	if err != nil {
		return nil, err
	}
	if accessOf(ctx) == nil {
		ents, err := list(ctx, r.ino, after, limit)
		if err != nil {
			return nil, asPathErr("readdir", name, err)
		}
		return ents, nil
	}
	// Entries the caller may not see are left out; pages are refilled so
	// that a short page still means the end.
	var out []DirEntry
	for len(out) < limit {
		want := limit - len(out)
		ents, err := list(ctx, r.ino, after, want)
		if err != nil {
			return nil, asPathErr("readdir", name, err)
		}
		if len(ents) > 0 {
			after = ents[len(ents)-1].Name
		}
		n := len(ents)
		out = append(out, visible(ctx, r.path, ents, func(e *DirEntry) string { return e.Name })...)
		if n < want {
			break
		}
	}
	return out, nil
}

// ReadDirNames is ReadDirPage for walks that need names and types only
// (find, du, ls without attributes): each entry's Mode holds its file type
// (the S_IFMT bits) and nothing else, read from the directory entries
// alone (the type is recorded in each entry since schema version 6), not
// from every entry's inode row. It leaves the cache as it is: a walk reads
// each directory once, and filling the cache with it would only evict
// what other callers use.
func (f *FS) ReadDirNames(ctx context.Context, name, after string, limit int) ([]DirEntry, error) {
	return f.readDirWith(ctx, name, after, limit, f.listNames)
}

// listNames is listDir for ReadDirNames. An entry written before schema
// version 6 has no type (0): its inode row gives it.
func (f *FS) listNames(ctx context.Context, ino uint64, after string, limit int) ([]DirEntry, error) {
	out := make([]DirEntry, 0, min(limit, 256))
	const q = `SELECT d.name, d.ino, CASE WHEN d.type != 0 THEN d.type ELSE (SELECT i.mode FROM inodes i WHERE i.ino = d.ino) & 61440 END
		FROM dentries d WHERE d.parent = ? AND d.name > ? ORDER BY d.name LIMIT ?`
	row := func(st *sqlite.Stmt) {
		out = append(out, DirEntry{Name: st.Text(0), Ino: uint64(st.Int64(1)), Mode: uint32(st.Int64(2))})
	}
	// Deferred changes to this directory's entries are committed first, as
	// for listDir; changes to other inodes cannot change a type.
	if commit, _ := f.listingView(ino); commit {
		return out, f.queryRows(ctx, q, []any{ino, after, limit}, row)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	err := f.queryRaw(q, []any{ino, after, limit}, row)
	return out, err
}

func (f *FS) listDir(ctx context.Context, ino uint64, after string, limit int) ([]DirEntry, error) {
	var out []DirEntry
	ver := f.cache.version()
	const q = `SELECT d.name, d.ino, i.mode FROM dentries d JOIN inodes i ON i.ino = d.ino
		WHERE d.parent = ? AND d.name > ? ORDER BY d.name LIMIT ?`
	row := func(st *sqlite.Stmt) {
		out = append(out, DirEntry{Name: st.Text(0), Ino: uint64(st.Int64(1)), Mode: uint32(st.Int64(2))})
	}
	commit, mode := f.listingView(ino)
	if commit || mode == nil {
		err := f.queryRows(ctx, q, []any{ino, after, limit}, row)
		if err == nil && after == "" && len(out) < limit {
			f.cache.fillDir(ver, ino, out) // the whole directory: later misses are absent names
		}
		return out, err
	}
	// Deferred changes are pending, none to this directory's entries: read
	// the committed ones without committing, with the modes as applied.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	err := f.queryRaw(q, []any{ino, after, limit}, row)
	for i := range out {
		if m, ok := mode(out[i].Ino); ok && m != 0 {
			out[i].Mode = m
		}
	}
	return out, err
}

// resolveDir resolves the directory name for a listing of limit entries
// (limit <= 0: 1000, returned).
func (f *FS) resolveDir(ctx context.Context, name string, limit int) (resolved, int, error) {
	r, _, err := f.resolveExisting(ctx, "readdir", name, true)
	switch {
	case err != nil:
		return resolved{}, 0, err
	case !r.in.IsDir():
		return resolved{}, 0, perr("readdir", name, syscall.ENOTDIR)
	}
	if limit <= 0 {
		limit = 1000
	}
	return r, limit, nil
}

// Remove removes a file, symlink or empty directory.
func (f *FS) Remove(ctx context.Context, name string) error {
	return f.update(ctx, "remove", name, func(t *tx) error {
		return t.opRemove(name)
	})
}

// removeEntry unlinks (parent, name) → in. Directories must be empty unless
// recursive is set, in which case their contents go first.
func (t *tx) removeEntry(parent uint64, name, p string, in *inode, recursive bool) error {
	if in.IsDir() {
		if recursive {
			if err := t.removeChildren(in.Ino, p); err != nil {
				return err
			}
		} else {
			empty, err := t.dirEmpty(in.Ino)
			if err != nil {
				return err
			}
			if !empty {
				return syscall.ENOTEMPTY
			}
		}
	}
	if err := t.delDent(parent, name); err != nil {
		return err
	}
	dir, err := t.inode(parent)
	if err != nil {
		return err
	}
	dir.Mtime, dir.Ctime = t.now, t.now
	if in.IsDir() {
		dir.Nlink--
		in.Nlink = 0
	} else {
		in.Nlink--
	}
	t.put(dir)
	t.log(Change{Op: OpRemove, Ino: in.Ino, Parent: parent, Name: name, Path: p})
	return t.unlinked(in)
}

func (t *tx) removeChildren(dir uint64, p string) error {
	for {
		ents, err := t.children(dir, 256)
		if err != nil {
			return err
		}
		if len(ents) == 0 {
			return nil
		}
		for _, e := range ents {
			in, err := t.inode(e.Ino)
			if err != nil {
				return err
			}
			if err := t.removeEntry(dir, e.Name, path.Join(p, e.Name), in, true); err != nil {
				return err
			}
		}
	}
}

// children lists entries of dir as the transaction sees them.
func (t *tx) children(dir uint64, limit int) ([]DirEntry, error) {
	st, err := t.c.Prep("SELECT name, ino FROM dentries WHERE parent = ? ORDER BY name LIMIT ?")
	if err != nil {
		return nil, err
	}
	defer st.Reset()
	if err := st.Bind(dir, limit); err != nil {
		return nil, err
	}
	var out []DirEntry
	for st.Step() {
		out = append(out, DirEntry{Name: st.Text(0), Ino: uint64(st.Int64(1))})
	}
	return out, st.Err()
}

func (t *tx) dirEmpty(dir uint64) (bool, error) {
	n, err := queryInt(t.c, "SELECT EXISTS (SELECT 1 FROM dentries WHERE parent = ?)", dir)
	return n == 0, err
}

// RemoveAll removes name and everything below it, in one transaction. A missing
// name is not an error. The root itself cannot be removed: RemoveAll("/") empties
// it and then reports EBUSY, as os.RemoveAll does on a mount point.
func (f *FS) RemoveAll(ctx context.Context, name string) error {
	rootBusy := false
	err := f.update(ctx, "removeall", name, func(t *tx) error {
		// Like os.RemoveAll, a trailing slash is ignored: "l/" removes the
		// symlink l itself, never what it points to.
		p, _, err := f.cleanPath("removeall", name)
		if err != nil {
			return err
		}
		r, err := f.walk(t, p, false)
		if err != nil {
			if err == syscall.ENOENT {
				return nil
			}
			return err
		}
		if r.ino == 0 {
			return nil
		}
		if r.parent == 0 {
			// Like os.RemoveAll on a mount root: empty it, then fail as rmdir does.
			rootBusy = true
			return t.removeChildren(r.ino, "/")
		}
		return t.removeEntry(r.parent, r.name, r.path, &r.in, true)
	})
	if err == nil && rootBusy {
		return perr("removeall", name, syscall.EBUSY)
	}
	return err
}

// Rename moves oldname to newname atomically, replacing a file or an empty
// directory, with renameat2(2) flags.
func (f *FS) Rename(ctx context.Context, oldname, newname string, flags RenameFlags) error {
	if flags&^(RenameNoReplace|RenameExchange) != 0 || flags == RenameNoReplace|RenameExchange {
		return perr("rename", oldname, syscall.EINVAL)
	}
	return f.update(ctx, "rename", oldname, func(t *tx) error {
		return t.opRename(oldname, newname, flags)
	})
}

func (t *tx) exchange(a, b resolved) error {
	if a.ino == b.ino {
		return nil
	}
	if a.in.IsDir() && strings.HasPrefix(b.path, a.path+"/") {
		return syscall.EINVAL
	}
	if b.in.IsDir() && strings.HasPrefix(a.path, b.path+"/") {
		return syscall.EINVAL
	}
	if err := t.setDent(a.parent, a.name, b.ino, b.in.Mode); err != nil {
		return err
	}
	if err := t.setDent(b.parent, b.name, a.ino, a.in.Mode); err != nil {
		return err
	}
	if a.parent != b.parent && a.in.IsDir() != b.in.IsDir() {
		pa, err := t.inode(a.parent)
		if err != nil {
			return err
		}
		pb, err := t.inode(b.parent)
		if err != nil {
			return err
		}
		if a.in.IsDir() {
			pa.Nlink--
			pb.Nlink++
		} else {
			pa.Nlink++
			pb.Nlink--
		}
		t.put(pa)
		t.put(pb)
	}
	for _, p := range []uint64{a.parent, b.parent} {
		d, err := t.inode(p)
		if err != nil {
			return err
		}
		d.Mtime, d.Ctime = t.now, t.now
		t.put(d)
	}
	for _, ino := range []uint64{a.ino, b.ino} {
		in, err := t.inode(ino)
		if err != nil {
			return err
		}
		in.Ctime = t.now
		t.put(in)
	}
	t.log(Change{Op: OpExchange, Ino: a.ino, Parent: b.parent, Name: b.name, Path: b.path,
		OldParent: a.parent, OldName: a.name, OldPath: a.path})
	return nil
}

// Link creates newname as another name for the inode oldname names (a final
// symlink in oldname is not followed, as with link(2)).
func (f *FS) Link(ctx context.Context, oldname, newname string) error {
	return f.update(ctx, "link", oldname, func(t *tx) error {
		return t.opLink(oldname, newname)
	})
}

// Symlink creates linkname as a symbolic link to target (stored verbatim).
func (f *FS) Symlink(ctx context.Context, target, linkname string) error {
	if target == "" {
		return perr("symlink", linkname, syscall.ENOENT)
	}
	if strings.IndexByte(target, 0) >= 0 {
		return perr("symlink", linkname, syscall.EINVAL)
	}
	if len(target) >= f.symlinkMax() { // the kernel counts the terminating NUL
		return perr("symlink", linkname, syscall.ENAMETOOLONG)
	}
	return f.update(ctx, "symlink", linkname, func(t *tx) error {
		return t.opSymlink(target, linkname)
	})
}

// Mknod creates name as mknod(2) does, with mode's type and permission bits
// (all 12, no umask): a FIFO (S_IFIFO), a UNIX socket (S_IFSOCK, what bind(2)
// makes), a character or block device (S_IFCHR, S_IFBLK, whose device
// number is dev, as unix.Mkdev makes it; dev is ignored for the other types),
// or, with S_IFREG or no type bits, an empty regular file. S_IFDIR is EPERM
// and any other type EINVAL, checked first, as the kernel does. A final
// symlink is not followed: an existing name of any kind is EEXIST. New inodes
// belong to the context's owner (WithOwner), or to the directory's group when
// it is set-group-ID.
//
// The store keeps what the kernel needs to give such an inode its meaning:
// its type, attributes and device number. A FIFO pipes and a socket connects
// only through a FUSE mount, where the kernel does it; Open and OpenFile of
// one in the store are ENXIO (see OpenFile).
func (f *FS) Mknod(ctx context.Context, name string, mode uint32, dev uint64) error {
	if err := mknodType(mode); err != nil {
		return perr("mknod", name, err.(syscall.Errno))
	}
	return f.update(ctx, "mknod", name, func(t *tx) error {
		return t.opMknod(name, mode, dev)
	})
}

// mknodType checks the type of a mknod, as the kernel's may_mknod.
func mknodType(mode uint32) error {
	switch mode & S_IFMT {
	case 0, S_IFREG, S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK:
		return nil
	case S_IFDIR:
		return syscall.EPERM
	}
	return syscall.EINVAL
}

func (t *tx) opMknod(name string, mode uint32, dev uint64) error {
	r, err := t.f.walkNew(t, "mknod", name)
	if err != nil {
		return err
	}
	_, err = t.mknod(r, mode, dev)
	return err
}

// mknod makes the inode of a Mknod at r (a missing name).
func (t *tx) mknod(r resolved, mode uint32, dev uint64) (*inode, error) {
	if mode&S_IFMT == 0 || mode&S_IFMT == S_IFREG {
		return t.create(r.parent, r.name, r.path, mode&permMask, t.uid, t.gid)
	}
	in, err := t.newEntry(OpMknod, r.parent, r.name, r.path, mode&(S_IFMT|permMask), t.uid, t.gid)
	if err != nil {
		return nil, err
	}
	if typ := mode & S_IFMT; typ == S_IFCHR || typ == S_IFBLK {
		in.Rdev = dev
	}
	return in, nil
}

// symlinkMax bounds a symlink target's length, its terminating NUL included,
// as the kernel does.
func (f *FS) symlinkMax() int { return min(f.opts.MaxPathLen, PathMax) }

// Readlink returns a symlink's target.
func (f *FS) Readlink(ctx context.Context, name string) (string, error) {
	r, _, err := f.resolveExisting(ctx, "readlink", name, false)
	if err != nil {
		return "", err
	}
	if !r.in.IsSymlink() {
		return "", perr("readlink", name, syscall.EINVAL)
	}
	return r.in.target, nil
}

// setattr changes one inode found by name in a transaction.
func (f *FS) setattr(ctx context.Context, op, name string, follow bool, fn func(t *tx, in *inode) error) error {
	return f.update(ctx, op, name, func(t *tx) error {
		return t.opSetattr(op, name, follow, fn)
	})
}

// Chmod sets the 12 permission bits (fs.ModeSetuid, ModeSetgid and ModeSticky map
// to the special bits), following symlinks.
func (f *FS) Chmod(ctx context.Context, name string, mode fs.FileMode) error {
	return f.setattr(ctx, "chmod", name, true, chmodFn(mode))
}

func chmodFn(mode fs.FileMode) func(t *tx, in *inode) error {
	return func(t *tx, in *inode) error {
		in.Mode = in.Mode&S_IFMT | FileModeToUnix(mode)
		return nil
	}
}

// Chown sets owner and group (-1 leaves one unchanged), following symlinks. As on
// Linux, changing the owner of a non-directory clears its set-user-ID bit, and the
// set-group-ID bit when group execute is set.
func (f *FS) Chown(ctx context.Context, name string, uid, gid int) error {
	return f.setattr(ctx, "chown", name, true, chownFn(uid, gid))
}

// Lchown is Chown without following a final symlink.
func (f *FS) Lchown(ctx context.Context, name string, uid, gid int) error {
	return f.setattr(ctx, "lchown", name, false, chownFn(uid, gid))
}

func chownFn(uid, gid int) func(t *tx, in *inode) error {
	return func(t *tx, in *inode) error {
		if uid < -1 || gid < -1 || uid > 1<<32-2 || gid > 1<<32-2 {
			return syscall.EINVAL
		}
		if uid >= 0 {
			in.Uid = uint32(uid)
		}
		if gid >= 0 {
			in.Gid = uint32(gid)
		}
		if !in.IsDir() && !in.IsSymlink() {
			in.Mode &^= S_ISUID
			if in.Mode&0o010 != 0 {
				in.Mode &^= S_ISGID
			}
		}
		return nil
	}
}

// Chtimes sets access and modification times, following symlinks. A zero
// time.Time leaves that time unchanged (as os.Chtimes).
func (f *FS) Chtimes(ctx context.Context, name string, atime, mtime time.Time) error {
	if atime.IsZero() {
		atime = UtimeOmit
	}
	if mtime.IsZero() {
		mtime = UtimeOmit
	}
	return f.Utimens(ctx, name, atime, mtime, false)
}

// Utimens sets access and modification times with nanosecond precision;
// UtimeOmit leaves a time unchanged and UtimeNow sets it to the current time.
func (f *FS) Utimens(ctx context.Context, name string, atime, mtime time.Time, nofollow bool) error {
	// Unflushed writes carry their own mtime: commit them first so the explicit
	// times win.
	if r, _, err := f.resolve(ctx, "utimens", name, !nofollow); err == nil && r.ino != 0 {
		if err := f.flushIno(ctx, r.ino, f.closeDelay()); err != nil {
			return asPathErr("utimens", name, err)
		}
	}
	return f.setattr(ctx, "utimens", name, !nofollow, utimensFn(atime, mtime))
}

func utimensFn(atime, mtime time.Time) func(t *tx, in *inode) error {
	return func(t *tx, in *inode) error {
		if !atime.Equal(UtimeOmit) {
			// An access time set explicitly wins over one a read left to be
			// stored at the next commit.
			t.f.amu.Lock()
			delete(t.f.atimes, in.Ino)
			t.f.amu.Unlock()
		}
		setTime(&in.Atime, atime, t.now)
		setTime(&in.Mtime, mtime, t.now)
		return nil
	}
}

func setTime(dst *time.Time, v, now time.Time) {
	switch {
	case v.Equal(UtimeOmit):
	case v.Equal(UtimeNow):
		*dst = now
	default:
		*dst = v
	}
}

// Realpath resolves every symlink in name and returns the canonical absolute path.
func (f *FS) Realpath(ctx context.Context, name string) (string, error) {
	r, _, err := f.resolveExisting(ctx, "realpath", name, true)
	if err != nil {
		return "", err
	}
	return r.path, nil
}

// Statfs reports capacity and usage: the space free is the smallest of the
// quota left, the free space of the filesystem holding the store (beyond the
// Space's reserve, with the store's own free pages) and the Space's bound
// left; the size is what is used plus that.
func (f *FS) Statfs(ctx context.Context) (StatFS, error) {
	if err := ctx.Err(); err != nil {
		return StatFS{}, err
	}
	// Deletions and deferred changes waiting for a commit are made, so the
	// figures are exact.
	if err := f.Commit(ctx); err != nil {
		return StatFS{}, err
	}
	f.wmu.Lock()
	used, inodes := f.used, f.inodes
	var room int64
	var by string
	var sp spaceState
	err := ErrClosed
	if !f.closed.Load() {
		room, by, sp, err = f.room(f.w)
	}
	f.wmu.Unlock()
	if err != nil {
		return StatFS{}, asPathErr("statfs", "/", err)
	}
	return f.statfs(used, inodes, room, by, sp), nil
}

// userXattrRefused reports whether attr is a user.* attribute, which Linux
// allows on regular files and directories only (xattr_permission).
func userXattrRefused(in *inode, attr string) bool {
	return !in.IsRegular() && !in.IsDir() && strings.HasPrefix(attr, "user.")
}

// xattr namespaces Linux knows; others are EOPNOTSUPP.
var xattrNamespaces = []string{"user.", "trusted.", "security.", "system."}

// xattrNameLen checks what the kernel checks before the path lookup.
func xattrNameLen(attr string) error {
	if attr == "" || len(attr) > 255 {
		return syscall.ERANGE
	}
	return nil
}

// xattrNamespace checks what the kernel checks after the path lookup.
func xattrNamespace(attr string) error {
	for _, ns := range xattrNamespaces {
		if strings.HasPrefix(attr, ns) && len(attr) > len(ns) {
			return nil
		}
	}
	return syscall.EOPNOTSUPP
}

// Getxattr returns an extended attribute's value (ENODATA if absent). A final
// symlink is not followed (lgetxattr semantics).
func (f *FS) Getxattr(ctx context.Context, name, attr string) ([]byte, error) {
	if err := xattrNameLen(attr); err != nil {
		return nil, perr("getxattr", name, err.(syscall.Errno))
	}
	r, _, err := f.resolveExisting(ctx, "getxattr", name, false)
	if err != nil {
		return nil, err
	}
	return f.getxattr(ctx, name, r.ino, attr)
}

// getxattr reads attribute attr of inode ino (name labels errors).
func (f *FS) getxattr(ctx context.Context, name string, ino uint64, attr string) ([]byte, error) {
	if err := xattrNamespace(attr); err != nil {
		return nil, perr("getxattr", name, err.(syscall.Errno))
	}
	var value []byte // nil: no such attribute
	err := f.syncFor(ctx, ino, true)
	if err == nil {
		err = f.queryRaw("SELECT value FROM xattrs WHERE ino = ? AND name = ?", []any{ino, attr}, func(st *sqlite.Stmt) {
			value = st.Blob(0, []byte{})
		})
	}
	if err != nil {
		return nil, asPathErr("getxattr", name, err)
	}
	if value == nil {
		return nil, perr("getxattr", name, syscall.ENODATA)
	}
	return value, nil
}

// Setxattr sets an extended attribute. flags may be XattrCreate or XattrReplace.
// user.* attributes are allowed on regular files and directories only
// (EPERM on symlinks, FIFOs, sockets and devices), as on Linux.
func (f *FS) Setxattr(ctx context.Context, name, attr string, value []byte, flags int) error {
	if err := f.checkSetxattr(attr, value, flags); err != nil {
		return perr("setxattr", name, err.(syscall.Errno))
	}
	return f.setattr(ctx, "setxattr", name, false, setxattrFn(attr, value, flags))
}

// checkSetxattr checks what the kernel checks before the path lookup.
func (f *FS) checkSetxattr(attr string, value []byte, flags int) error {
	if err := xattrNameLen(attr); err != nil {
		return err
	}
	if len(value) > f.opts.MaxXattrSize {
		return syscall.E2BIG
	}
	if flags&^(XattrCreate|XattrReplace) != 0 {
		return syscall.EINVAL
	}
	return nil
}

func setxattrFn(attr string, value []byte, flags int) func(t *tx, in *inode) error {
	return func(t *tx, in *inode) error {
		if err := xattrNamespace(attr); err != nil {
			return err
		}
		if userXattrRefused(in, attr) {
			return syscall.EPERM
		}
		// The value's length now (-1: none) and the inode's xattr bytes
		// (xattr_bytes, kept by triggers): two lookups by key, however many
		// attributes the inode has.
		old, err := queryInt(t.c, "SELECT coalesce((SELECT length(value) FROM xattrs WHERE ino = ? AND name = ?), -1)", in.Ino, attr)
		if err != nil {
			return err
		}
		if old >= 0 && flags&XattrCreate != 0 {
			return syscall.EEXIST
		}
		if old < 0 && flags&XattrReplace != 0 {
			return syscall.ENODATA
		}
		total, err := queryInt(t.c, "SELECT coalesce((SELECT bytes FROM xattr_bytes WHERE ino = ?), 0)", in.Ino)
		if err != nil {
			return err
		}
		if old >= 0 {
			total -= int64(len(attr)) + old
		}
		if total+int64(len(attr)+len(value)) > t.f.opts.MaxXattrBytes {
			return syscall.ENOSPC
		}
		st, err := t.c.Prep("INSERT INTO xattrs(ino, name, value) VALUES (?, ?, ?) ON CONFLICT(ino, name) DO UPDATE SET value = excluded.value")
		if err != nil {
			return err
		}
		t.xattrChanged(in.Ino)
		return st.Exec(in.Ino, attr, value)
	}
}

// Listxattr lists extended attribute names in byte order (a final symlink is not followed).
func (f *FS) Listxattr(ctx context.Context, name string) ([]string, error) {
	r, _, err := f.resolveExisting(ctx, "listxattr", name, false)
	if err != nil {
		return nil, err
	}
	return f.listxattr(ctx, name, r.ino)
}

// listxattr lists the attribute names of inode ino (name labels errors).
func (f *FS) listxattr(ctx context.Context, name string, ino uint64) ([]string, error) {
	out := []string{}
	err := f.syncFor(ctx, ino, true)
	if err == nil {
		err = f.queryRaw("SELECT name FROM xattrs WHERE ino = ? ORDER BY name", []any{ino}, func(st *sqlite.Stmt) {
			out = append(out, st.Text(0))
		})
	}
	if err != nil {
		return nil, asPathErr("listxattr", name, err)
	}
	sort.Strings(out)
	return out, nil
}

// Removexattr removes an extended attribute (ENODATA if absent).
func (f *FS) Removexattr(ctx context.Context, name, attr string) error {
	if err := xattrNameLen(attr); err != nil {
		return perr("removexattr", name, err.(syscall.Errno))
	}
	return f.setattr(ctx, "removexattr", name, false, removexattrFn(attr))
}

func removexattrFn(attr string) func(t *tx, in *inode) error {
	return func(t *tx, in *inode) error {
		if err := xattrNamespace(attr); err != nil {
			return err
		}
		if userXattrRefused(in, attr) {
			return syscall.EPERM // as setxattr: user.* is for files and directories only
		}
		st, err := t.c.Prep("DELETE FROM xattrs WHERE ino = ? AND name = ?")
		if err != nil {
			return err
		}
		t.xattrChanged(in.Ino)
		if err := st.Exec(in.Ino, attr); err != nil {
			return err
		}
		if t.c.Changes() == 0 {
			return syscall.ENODATA
		}
		return nil
	}
}

func (t *tx) opMkdir(name string, perm fs.FileMode) error {
	f := t.f
	// A trailing slash does not make mkdir follow a final symlink: an
	// existing name of any type is EEXIST.
	p, _, err := f.cleanPath("mkdir", name)
	if err != nil {
		return err
	}
	r, err := f.walk(t, p, false)
	if err != nil {
		return err
	}
	if r.ino != 0 {
		return syscall.EEXIST
	}
	_, err = t.mkdir(r.parent, r.name, r.path, FileModeToUnix(perm), t.uid, t.gid)
	return err
}

func (t *tx) opRemove(name string) error {
	f := t.f
	// unlink(2) and rmdir(2) do not follow a final symlink, trailing slash
	// or not: "l/" names the symlink, which is not a directory (ENOTDIR,
	// what os.Remove reports from the two), and never removes its target.
	r, dirOnly, err := f.walkCreate(t, "remove", name)
	if err != nil {
		return err
	}
	if r.ino == 0 {
		return syscall.ENOENT
	}
	if r.parent == 0 {
		return syscall.EBUSY
	}
	if dirOnly && !r.in.IsDir() {
		return syscall.ENOTDIR
	}
	return t.removeEntry(r.parent, r.name, r.path, &r.in, false)
}

func (t *tx) opRename(oldname, newname string, flags RenameFlags) error {
	f := t.f
	// As in the kernel (do_renameat2): both parents are resolved first, then a
	// path without a final name ("/") is EBUSY, then the final names are looked
	// at, never following a final symlink, trailing slash or not.
	ro, oldDirOnly, err := f.walkCreate(t, "rename", oldname)
	if err != nil {
		return err
	}
	rn, newDirOnly, err := f.walkCreate(t, "rename", newname)
	if err != nil {
		return err
	}
	if p, _, _ := f.cleanPath("rename", oldname); p == "/" {
		return syscall.EBUSY
	}
	if p, _, _ := f.cleanPath("rename", newname); p == "/" {
		if flags&RenameNoReplace != 0 {
			return syscall.EEXIST
		}
		return syscall.EBUSY
	}
	if ro.ino == 0 {
		return syscall.ENOENT
	}
	if ro.parent == 0 || (rn.ino != 0 && rn.parent == 0) {
		return syscall.EBUSY
	}
	// Then, in the kernel's order: NOREPLACE onto an existing name, EXCHANGE
	// with a missing one or with a non-directory named with a trailing slash,
	// and a non-directory source with a trailing slash on either name (on the
	// new name only when it is not exchanged).
	if rn.ino != 0 && flags&RenameNoReplace != 0 {
		return syscall.EEXIST
	}
	if flags&RenameExchange != 0 {
		if rn.ino == 0 {
			return syscall.ENOENT
		}
		if newDirOnly && !rn.in.IsDir() {
			return syscall.ENOTDIR
		}
	}
	if !ro.in.IsDir() && (oldDirOnly || newDirOnly && flags&RenameExchange == 0) {
		return syscall.ENOTDIR
	}
	return t.rename(ro, rn, flags)
}

// rename moves the existing ro to rn (which may exist) with renameat2 flags.
// Both paths are canonical: ancestry is decided by comparing them.
func (t *tx) rename(ro, rn resolved, flags RenameFlags) error {
	f := t.f
	src := &ro.in
	if flags&RenameExchange != 0 {
		if rn.ino == 0 {
			return syscall.ENOENT
		}
		return t.exchange(ro, rn)
	}
	if rn.ino != 0 && flags&RenameNoReplace != 0 {
		return syscall.EEXIST
	}
	if rn.ino == ro.ino {
		return nil // same inode: POSIX says do nothing
	}
	if src.IsDir() && strings.HasPrefix(rn.path, ro.path+"/") {
		return syscall.EINVAL
	}
	newDir, err := t.inode(rn.parent)
	if err != nil {
		return err
	}
	if newDir.Nlink == 0 {
		return syscall.ENOENT
	}
	if rn.ino != 0 {
		dst := &rn.in
		if strings.HasPrefix(ro.path, rn.path+"/") {
			return syscall.ENOTEMPTY
		}
		switch {
		case src.IsDir() && !dst.IsDir():
			return syscall.ENOTDIR
		case !src.IsDir() && dst.IsDir():
			return syscall.EISDIR
		case dst.IsDir():
			empty, err := t.dirEmpty(dst.Ino)
			if err != nil {
				return err
			}
			if !empty {
				return syscall.ENOTEMPTY
			}
		}
		if err := t.setDent(rn.parent, rn.name, src.Ino, src.Mode); err != nil {
			return err
		}
		if dst.IsDir() {
			dst.Nlink = 0
			newDir, err = t.inode(rn.parent)
			if err != nil {
				return err
			}
			newDir.Nlink--
			t.put(newDir)
		} else {
			dst.Nlink--
		}
		if err := t.unlinked(dst); err != nil {
			return err
		}
	} else if err := t.addDent(rn.parent, rn.name, src.Ino, src.Mode); err != nil {
		return err
	}
	if err := t.delDent(ro.parent, ro.name); err != nil {
		return err
	}
	oldDir, err := t.inode(ro.parent)
	if err != nil {
		return err
	}
	if src.IsDir() && ro.parent != rn.parent {
		oldDir.Nlink--
	}
	oldDir.Mtime, oldDir.Ctime = t.now, t.now
	t.put(oldDir)
	newDir, err = t.inode(rn.parent)
	if err != nil {
		return err
	}
	if src.IsDir() && ro.parent != rn.parent {
		newDir.Nlink++
	}
	newDir.Mtime, newDir.Ctime = t.now, t.now
	t.put(newDir)
	src, err = t.inode(src.Ino)
	if err != nil {
		return err
	}
	src.Ctime = t.now
	t.put(src)
	t.log(Change{Op: OpRename, Ino: src.Ino, Parent: rn.parent, Name: rn.name, Path: rn.path,
		OldParent: ro.parent, OldName: ro.name, OldPath: ro.path})
	ino, p := src.Ino, rn.path
	t.after = append(t.after, func() { f.renamed(ino, p) })
	return nil
}

func (t *tx) opLink(oldname, newname string) error {
	f := t.f
	ro, _, err := f.walkTx(t, "link", oldname, false)
	if err != nil {
		return err
	}
	if ro.ino == 0 {
		return syscall.ENOENT
	}
	// As in the kernel: the new name is checked before the type of the old.
	rn, err := f.walkNew(t, "link", newname)
	if err != nil {
		return err
	}
	_, err = t.link(ro, rn)
	return err
}

// link adds the missing name rn for the inode ro names.
func (t *tx) link(ro, rn resolved) (*inode, error) {
	if ro.in.IsDir() {
		return nil, syscall.EPERM
	}
	dir, err := t.inode(rn.parent)
	if err != nil {
		return nil, err
	}
	if dir.Nlink == 0 {
		return nil, syscall.ENOENT
	}
	if err := t.addDent(rn.parent, rn.name, ro.ino, ro.in.Mode); err != nil {
		return nil, err
	}
	in := ro.in
	in.Nlink++
	in.Ctime = t.now
	t.put(&in)
	dir.Mtime, dir.Ctime = t.now, t.now
	t.put(dir)
	t.log(Change{Op: OpLink, Ino: in.Ino, Parent: rn.parent, Name: rn.name, Path: rn.path, OldPath: ro.path})
	return &in, nil
}

func (t *tx) opSymlink(target, linkname string) error {
	r, err := t.f.walkNew(t, "symlink", linkname)
	if err != nil {
		return err
	}
	_, err = t.symlink(r, target)
	return err
}

// symlink creates the symlink r (a missing name) pointing at target.
func (t *tx) symlink(r resolved, target string) (*inode, error) {
	in, err := t.newEntry(OpSymlink, r.parent, r.name, r.path, S_IFLNK|0o777, t.uid, t.gid)
	if err != nil {
		return nil, err
	}
	in.target = target
	in.Size = int64(len(target))
	return in, nil
}

func (t *tx) opSetattr(op, name string, follow bool, fn func(t *tx, in *inode) error) error {
	f := t.f
	r, _, err := f.walkTx(t, op, name, follow)
	if err != nil {
		return err
	}
	if r.ino == 0 {
		return syscall.ENOENT
	}
	in, err := t.inode(r.ino)
	if err != nil {
		return err
	}
	if err := fn(t, in); err != nil {
		return err
	}
	in.Ctime = t.now
	t.put(in)
	t.log(Change{Op: OpSetattr, Ino: in.Ino, Parent: r.parent, Name: r.name, Path: r.path})
	return nil
}

func (t *tx) opMkdirAll(name string, perm fs.FileMode) error {
	f := t.f
	p, dirOnly, err := f.cleanPath("mkdir", name)
	if err != nil {
		return err
	}
	// Component by component, as os.MkdirAll: an existing directory (through
	// symlinks) is fine; otherwise mkdir, which reports an existing name of any
	// kind (a file, a dangling or looping symlink) as EEXIST. An existing
	// non-directory is ENOTDIR (os.MkdirAll's Stat), except as the final name
	// with a trailing slash: there Stat fails, and mkdir's EEXIST is what
	// os.MkdirAll reports. The walk goes down one level per component (a full
	// walk only for a symlink), so a deep path costs linear time.
	parts := splitPath(p)
	notDir := func(i int) error {
		if dirOnly && i == len(parts)-1 {
			return syscall.EEXIST
		}
		return syscall.ENOTDIR
	}
	cur, curPath := uint64(RootIno), ""
	for i, part := range parts {
		curPath += "/" + part
		if len(part) > f.opts.MaxNameLen {
			return syscall.ENAMETOOLONG
		}
		ino, err := t.lookup(cur, part)
		if err != nil {
			return err
		}
		if ino == 0 {
			if t.access != nil {
				if e := t.access.AllowPath(curPath, true); e != 0 {
					return e
				}
			}
			if cur, err = t.mkdir(cur, part, curPath, FileModeToUnix(perm), t.uid, t.gid); err != nil {
				return err
			}
			continue
		}
		in, err := t.peek(ino)
		if err != nil {
			return err
		}
		switch {
		case in.IsDir():
			cur = ino
		case in.IsSymlink():
			r, err := f.walk(t, curPath, true)
			switch {
			case err == nil && r.ino != 0 && r.in.IsDir():
				cur, curPath = r.ino, r.path
			case err == nil && r.ino != 0:
				return notDir(i)
			default:
				return syscall.EEXIST // dangling or looping: mkdir finds the name taken
			}
		default:
			return notDir(i)
		}
	}
	return nil
}
