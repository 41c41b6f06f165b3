package vfs

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/sqlite"
)

// CopyOptions says what CopyTree keeps of the source. The zero value copies
// as GNU cp -r does: every copy gets the caller's owner (WithOwner; the
// group of a set-group-ID destination directory, as a creation there
// does), the permission bits of its source less Umask (regular files and
// special files keep only the rwx bits; directories keep all 12 before the
// umask), and the current time as all four times; a symlink is copied as a
// symlink; each name of a hard link becomes a file of its own; xattrs are
// not copied.
type CopyOptions struct {
	// Umask is cleared from the permission bits of copies (not with
	// PreserveMode; not from symlinks, which are always 0777).
	Umask uint32
	// PreserveMode keeps all 12 permission bits (cp -p, --preserve=mode).
	PreserveMode bool
	// PreserveTimes keeps atime and mtime (cp -p); ctime and btime are the
	// copy's own, as on any filesystem.
	PreserveTimes bool
	// PreserveOwner keeps uid and gid (cp -p run as root).
	PreserveOwner bool
	// PreserveLinks keeps hard links within the tree: names of one inode
	// in the source name one inode in the copy (cp -a, --preserve=links).
	PreserveLinks bool
	// PreserveXattrs copies extended attributes (cp -a, --preserve=xattr).
	PreserveXattrs bool
	// MaxEntries, when positive, bounds the entries below src (the root
	// not counted) like CopyTreeMax: more is E2BIG, and nothing is copied.
	MaxEntries int
}

// CopyTreeMax bounds the entries one CopyTree copies (a larger tree is
// E2BIG, and nothing is copied): the copy is one transaction, and the
// names it journals are held in memory until it commits.
const CopyTreeMax = 1 << 20

// CopyTree copies the directory src (a final symlink is not followed: it is
// ENOTDIR) and everything below it to dst, which must not exist (EEXIST)
// and whose parent must be a directory, in one transaction: when it
// returns nil the whole copy is durable (it commits whatever deferred
// changes are pending with it), and when it fails nothing of it exists
// (crash included: TestCopyTreeCrash). dst inside src is EINVAL.
//
// Content is shared, not copied: a copied file's chunk rows point at the
// source's chunks (their reference counts go up), so the copy adds no
// chunk bytes and writes none to the chunk file; inline content (small
// files) is copied with its row and counts against the quota as a write
// of it would. The quota is checked before anything is written: a copy
// whose inodes or inline bytes would pass it fails with EDQUOT (reading
// as ENOSPC), as does one the disk has no room for.
//
// The caller's path rules (WithAccess) are checked for every name: each
// source path as a read, each destination path as a write; the first one
// refused is the call's error and nothing is copied (a caller that wants
// GNU cp's behaviour, copying what it may and reporting the rest, copies
// file by file then). Every created name is journalled as its own change
// (OpMkdir, OpCreate, OpSymlink, OpMknod; OpLink for a preserved hard
// link), as the same copy made call by call would be. Unflushed handle
// writes to files of the tree are flushed first; the copy shows the tree
// as it was when the transaction began, reads no content and does not
// change the source's access times.
//
// Rows are written with a few statements per directory (an INSERT ...
// SELECT each for its inodes, entries, chunk references and xattrs), not a
// statement per file: see docs/decisions.md, "Tree copy in the store".
func (f *FS) CopyTree(ctx context.Context, src, dst string, o CopyOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := f.flushAll(ctx); err != nil {
		return asPathErr("copy", src, err)
	}
	return f.updateWith(ctx, 0, "copy", dst, func(t *tx) error {
		return t.opCopyTree(src, dst, &o)
	})
}

// flushAll flushes every open inode's unflushed writes, with the handle's
// commit delay.
func (f *FS) flushAll(ctx context.Context) error {
	f.omu.Lock()
	inos := make([]uint64, 0, len(f.opens))
	for ino, o := range f.opens {
		if !o.dying {
			inos = append(inos, ino)
		}
	}
	f.omu.Unlock()
	for _, ino := range inos {
		if err := f.flushIno(ctx, ino, f.delay); err != nil {
			return err
		}
	}
	return nil
}

// copyDir is one source directory of a tree copy and its copy: its entries
// in name order, the i-th copied as inode base+i.
type copyDir struct {
	src, dst         uint64
	srcPath, dstPath string
	base             uint64
	names            []string
	modes            []uint32     // the source entries' modes
	subdirs          []int        // indexes of directories
	subs             []*copyDir   // their plans, in subdirs' order
	slow             []int        // indexes copied row by row (copySlow)
	slowInos         []uint64     // their source inodes
	linked           map[int]bool // entries made as hard links (PreserveLinks)
	chunked          bool         // some entry has chunk rows
}

// copyPlan is a tree copy's plan, made before anything is written.
type copyPlan struct {
	o       *CopyOptions
	uid     uint32
	gid     uint32 // of every copy without PreserveOwner
	um      uint32 // permission bits kept (^Umask)
	dirs    []*copyDir
	entries int
	inline  int64
	links   map[uint64]copyLink // PreserveLinks: source inode → its first copy
}

type copyLink struct {
	ino  uint64
	path string
}

// mode is the copy's mode of a source mode.
func (p *copyPlan) mode(m uint32) uint32 {
	typ := m & S_IFMT
	switch {
	case p.o.PreserveMode || typ == S_IFLNK:
		return m
	case typ == S_IFDIR:
		return typ | m&0o7777&p.um
	}
	return typ | m&0o777&p.um
}

// copyListQuery lists a source directory for the plan: per entry its name,
// inode, mode, link count, inline size and whether it has chunk rows.
const copyListQuery = `SELECT d.name, d.ino, i.mode, i.nlink, coalesce(length(i.data), 0),
		i.data IS NULL AND i.blocks > 0 AND (i.mode & 61440) = 32768
	FROM dentries d LEFT JOIN inodes i ON i.ino = d.ino WHERE d.parent = ? ORDER BY d.name`

func (t *tx) opCopyTree(src, dst string, o *CopyOptions) error {
	f := t.f
	sp, _, err := f.cleanPath("copy", src)
	if err != nil {
		return err
	}
	rs, err := f.walkPathAs(t, sp, false, false)
	if err != nil {
		return err
	}
	if a := t.access; a != nil {
		if e := a.AllowPath(sp, false); e != 0 {
			return e
		}
		if rs.path != "" && rs.path != sp {
			if e := a.AllowPath(rs.path, false); e != 0 {
				return e
			}
		}
	}
	if rs.ino == 0 {
		return syscall.ENOENT
	}
	if !rs.in.IsDir() {
		return syscall.ENOTDIR
	}
	dp, _, err := f.cleanPath("copy", dst)
	if err != nil {
		return err
	}
	rd, err := f.walk(t, dp, false)
	if err != nil {
		return err
	}
	if rd.ino != 0 {
		return syscall.EEXIST
	}
	if rd.path == rs.path || strings.HasPrefix(rd.path, strings.TrimSuffix(rs.path, "/")+"/") {
		return syscall.EINVAL
	}
	parent, err := t.inode(rd.parent)
	if err != nil {
		return err
	}
	if parent.Nlink == 0 {
		return syscall.ENOENT
	}
	// The copies' group: a directory made under a set-group-ID one gets
	// the bit, so the whole copy is made with the parent's group.
	p := &copyPlan{o: o, uid: t.uid, gid: t.gid, um: ^o.Umask & 0o7777}
	if parent.Mode&S_ISGID != 0 {
		p.gid = parent.Gid
	}
	if o.PreserveLinks {
		p.links = map[uint64]copyLink{}
	}
	root := &copyDir{src: rs.ino, srcPath: rs.path, dstPath: rd.path}
	if err := t.planCopy(p, root); err != nil {
		return err
	}

	// Up front, before anything is written: the inode limit and the quota.
	n := int64(p.entries + 1)
	if f.inodes+t.ninodes+n > f.maxInodes() {
		return errNoSpace(LimitQuota, fmt.Sprintf("the workspace's limit of %d inodes is reached", f.maxInodes()))
	}
	if p.inline > 0 && f.used+t.used+p.inline > f.quotaBytes() {
		return f.quotaError()
	}
	// Inode numbers: the root, then each directory's entries in a run.
	root.dst = f.nextIno
	next := root.dst + 1
	for _, d := range p.dirs {
		d.base = next
		next += uint64(len(d.names))
	}
	f.nextIno = next // never reused, even if the transaction rolls back
	t.ninodes += n
	t.used += p.inline
	t.rawRows = true
	t.measureRoom = true

	// The root's row (its source may be changed by this transaction: row by
	// row), its entry in the parent (through the overlay: the parent's
	// cached listing must learn it) and the parent's link count and times.
	if err := t.copyRow(p, rs.ino, root.dst); err != nil {
		return err
	}
	if err := t.addDent(rd.parent, rd.name, root.dst, S_IFDIR); err != nil {
		return err
	}
	parent.Nlink++
	parent.Mtime, parent.Ctime = t.now, t.now
	t.put(parent)
	t.log(Change{Op: OpMkdir, Ino: root.dst, Parent: rd.parent, Name: rd.name, Path: rd.path})
	for _, d := range p.dirs {
		if err := t.copyEntries(p, d); err != nil {
			return err
		}
	}
	return nil
}

// planCopy lists root and, breadth first, the directories below it,
// checking the caller's path rules and counting what the copy adds.
func (t *tx) planCopy(p *copyPlan, root *copyDir) error {
	queue := []*copyDir{root}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		p.dirs = append(p.dirs, d)
		var rerr error
		err := t.c.Query(copyListQuery, []any{d.src}, func(st *sqlite.Stmt) {
			if rerr != nil {
				return
			}
			name, ino := st.Text(0), uint64(st.Int64(1))
			mode, nlink := uint32(st.Int64(2)), st.Int64(3)
			inl, chunked := st.Int64(4), st.Int64(5) != 0
			slow := false
			in, changed := t.inodes[ino]
			if _, ok := t.inl[ino]; ok || changed || st.IsNull(2) {
				// Changed by this transaction (its row is written at
				// commit): copied from what the transaction sees.
				slow = true
				if in == nil {
					rerr = internalError("copy: an entry names an inode the transaction deleted")
					return
				}
				mode, nlink = in.Mode, int64(in.Nlink)
				v, err := t.inlineOf(ino)
				if err != nil {
					rerr = err
					return
				}
				inl = int64(len(v.data))
				chunked = in.IsRegular() && v.data == nil && in.Blocks > 0
			}
			if p.links != nil && mode&S_IFMT != S_IFDIR && nlink > 1 {
				slow = true
			}
			i := len(d.names)
			d.names = append(d.names, name)
			d.modes = append(d.modes, mode)
			if slow {
				d.slow = append(d.slow, i)
				d.slowInos = append(d.slowInos, ino)
			}
			d.chunked = d.chunked || chunked
			p.inline += inl
			if mode&S_IFMT == S_IFDIR {
				sub := &copyDir{src: ino, srcPath: joinPath(d.srcPath, name), dstPath: joinPath(d.dstPath, name)}
				d.subdirs = append(d.subdirs, i)
				d.subs = append(d.subs, sub)
				queue = append(queue, sub)
			}
		})
		if err == nil {
			err = rerr
		}
		if err != nil {
			return err
		}
		p.entries += len(d.names)
		if p.entries > CopyTreeMax || p.o.MaxEntries > 0 && p.entries > p.o.MaxEntries {
			return syscall.E2BIG
		}
		if t.access != nil {
			for _, name := range d.names {
				if e := t.access.AllowPath(joinPath(d.srcPath, name), false); e != 0 {
					return e
				}
				if e := t.access.AllowPath(joinPath(d.dstPath, name), true); e != 0 {
					return e
				}
			}
		}
	}
	return nil
}

// The statements of a directory's copy. ?1 is the source directory, ?2 the
// copy's inode number of its first entry (entry rn, from 1, becomes ?2 +
// rn - 1), ?3 the copy of the directory; %s is the filter leaving out the
// entries copied row by row (copySlow), ?13 their inodes as a JSON array.
const (
	copyEntriesSub = `(SELECT d.name AS name, d.ino AS sino, d.type AS type, row_number() OVER (ORDER BY d.name) AS rn
		FROM dentries d WHERE d.parent = ?1) x`
	copyInodesSQL = `INSERT INTO inodes(ino, gen, mode, nlink, uid, gid, size, blocks, atime, atime_ns, mtime, mtime_ns,
			ctime, ctime_ns, btime, btime_ns, target, rdev, data, data_hash)
		SELECT ?2 + x.rn - 1, ?4,
			CASE WHEN ?5 OR (i.mode & 61440) = 40960 THEN i.mode
				WHEN (i.mode & 61440) = 16384 THEN (i.mode & 61440) | (i.mode & 4095 & ?6)
				ELSE (i.mode & 61440) | (i.mode & 511 & ?6) END,
			CASE WHEN (i.mode & 61440) = 16384 THEN i.nlink ELSE 1 END,
			CASE WHEN ?7 THEN i.uid ELSE ?8 END, CASE WHEN ?7 THEN i.gid ELSE ?9 END,
			i.size, i.blocks,
			CASE WHEN ?10 THEN i.atime ELSE ?11 END, CASE WHEN ?10 THEN i.atime_ns ELSE ?12 END,
			CASE WHEN ?10 THEN i.mtime ELSE ?11 END, CASE WHEN ?10 THEN i.mtime_ns ELSE ?12 END,
			?11, ?12, ?11, ?12, i.target, i.rdev, i.data, i.data_hash
		FROM ` + copyEntriesSub + ` JOIN inodes i ON i.ino = x.sino %s ORDER BY x.rn`
	copyDentriesSQL = `INSERT INTO dentries(parent, name, ino, type) SELECT ?3, x.name, ?2 + x.rn - 1, x.type FROM ` + copyEntriesSub + ` %s`
	copyChunksSQL   = `INSERT INTO file_chunks(ino, idx, chunk) SELECT ?2 + x.rn - 1, fc.idx, fc.chunk
		FROM ` + copyEntriesSub + ` JOIN file_chunks fc ON fc.ino = x.sino %s`
	copyRefsSQL = `UPDATE chunks SET refs = refs + y.n FROM (SELECT fc.chunk AS id, count(*) AS n
		FROM ` + copyEntriesSub + ` JOIN file_chunks fc ON fc.ino = x.sino %s GROUP BY fc.chunk) y WHERE chunks.id = y.id`
	copyXattrsSQL = `INSERT INTO xattrs(ino, name, value) SELECT ?2 + x.rn - 1, xa.name, xa.value
		FROM ` + copyEntriesSub + ` JOIN xattrs xa ON xa.ino = x.sino %s`
	copyFilterSQL = `WHERE x.sino NOT IN (SELECT value FROM json_each(?13))`
)

// copySQL is one of the statements above with or without the filter.
func copySQL(q string, filter bool) string {
	if filter {
		return fmt.Sprintf(q, copyFilterSQL)
	}
	return fmt.Sprintf(q, "")
}

// copyEntries copies d's entries into its copy: the rows of the entries
// not changed by this transaction with a statement per table, the others
// row by row; and journals each.
func (t *tx) copyEntries(p *copyPlan, d *copyDir) error {
	for j, i := range d.subdirs {
		d.subs[j].dst = d.base + uint64(i)
	}
	if len(d.names) == 0 {
		return nil
	}
	o := p.o
	filter := len(d.slow) > 0
	if len(d.slow) < len(d.names) {
		var slow string
		if filter {
			var b strings.Builder
			b.WriteByte('[')
			for i, ino := range d.slowInos {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.FormatUint(ino, 10))
			}
			b.WriteByte(']')
			slow = b.String()
		}
		// n is the statement's highest parameter without the filter.
		run := func(q string, n int, extra ...any) error {
			a := append([]any{d.src, d.base, d.dst}, extra...)[:n]
			if filter {
				for len(a) < 12 {
					a = append(a, nil)
				}
				a = append(a, slow)
			}
			return t.exec(copySQL(q, filter), a...)
		}
		now, ns := t.now.Unix(), int64(t.now.Nanosecond())
		if err := run(copyInodesSQL, 12, int64(t.f.seq+1), o.PreserveMode, int64(p.um), o.PreserveOwner, int64(p.uid), int64(p.gid),
			o.PreserveTimes, now, ns); err != nil {
			return err
		}
		if err := run(copyDentriesSQL, 3); err != nil {
			return err
		}
		if d.chunked {
			if err := run(copyChunksSQL, 2); err != nil {
				return err
			}
			if err := run(copyRefsSQL, 1); err != nil {
				return err
			}
		}
		if o.PreserveXattrs {
			if err := run(copyXattrsSQL, 2); err != nil {
				return err
			}
		}
	}
	for k, i := range d.slow {
		if err := t.copySlow(p, d, i, d.slowInos[k]); err != nil {
			return err
		}
	}
	for i, name := range d.names {
		if d.linked[i] {
			continue // journalled as a link by copySlow
		}
		t.log(Change{Op: createOp(d.modes[i]), Ino: d.base + uint64(i), Parent: d.dst, Name: name, Path: joinPath(d.dstPath, name)})
	}
	return nil
}

// copySlow copies entry i of d, source inode ino, row by row: a preserved
// hard link to a copy made already, or a copy of the row as this
// transaction sees it.
func (t *tx) copySlow(p *copyPlan, d *copyDir, i int, ino uint64) error {
	dst := d.base + uint64(i)
	path := joinPath(d.dstPath, d.names[i])
	if p.links != nil && d.modes[i]&S_IFMT != S_IFDIR {
		if l, ok := p.links[ino]; ok {
			if err := t.exec("INSERT INTO dentries(parent, name, ino, type) VALUES (?, ?, ?, ?)", d.dst, d.names[i], l.ino, d.modes[i]&S_IFMT); err != nil {
				return err
			}
			if err := t.exec("UPDATE inodes SET nlink = nlink + 1 WHERE ino = ?", l.ino); err != nil {
				return err
			}
			t.ninodes-- // its inode number goes unused
			if d.linked == nil {
				d.linked = map[int]bool{}
			}
			d.linked[i] = true
			t.log(Change{Op: OpLink, Ino: l.ino, Parent: d.dst, Name: d.names[i], Path: path, OldPath: l.path})
			return nil
		}
		p.links[ino] = copyLink{dst, path}
	}
	if err := t.copyRow(p, ino, dst); err != nil {
		return err
	}
	return t.exec("INSERT INTO dentries(parent, name, ino, type) VALUES (?, ?, ?, ?)", d.dst, d.names[i], dst, d.modes[i]&S_IFMT)
}

// copyRow writes inode dst as a copy of src as this transaction sees it,
// with its inline content, chunk references and (PreserveXattrs) xattrs.
func (t *tx) copyRow(p *copyPlan, src, dst uint64) error {
	in, err := t.inode(src)
	if err != nil {
		return err
	}
	v, err := t.inlineOf(src)
	if err != nil {
		return err
	}
	c := in.Attr
	c.Ino, c.Gen, c.Mode = dst, t.f.seq+1, p.mode(in.Mode)
	if !c.IsDir() {
		c.Nlink = 1
	}
	if !p.o.PreserveOwner {
		c.Uid, c.Gid = p.uid, p.gid
	}
	if !p.o.PreserveTimes {
		c.Atime, c.Mtime = t.now, t.now
	}
	c.Ctime, c.Btime = t.now, t.now
	var target, data, hash any
	if in.IsSymlink() {
		target = []byte(in.target)
	}
	if v.data != nil {
		data, hash = v.data, v.hash[:]
	}
	if err := t.exec(inodeInsertData, c.Ino, c.Gen, c.Mode, c.Nlink, c.Uid, c.Gid, c.Size, c.Blocks,
		c.Atime.Unix(), c.Atime.Nanosecond(), c.Mtime.Unix(), c.Mtime.Nanosecond(),
		c.Ctime.Unix(), c.Ctime.Nanosecond(), c.Btime.Unix(), c.Btime.Nanosecond(), target, int64(c.Rdev), data, hash); err != nil {
		return err
	}
	if in.IsRegular() && v.data == nil && in.Blocks > 0 {
		if err := t.exec(`INSERT INTO file_chunks(ino, idx, chunk) SELECT ?, idx, chunk FROM file_chunks WHERE ino = ?`, dst, src); err != nil {
			return err
		}
		if err := t.exec(`UPDATE chunks SET refs = refs + y.n FROM (SELECT chunk AS id, count(*) AS n FROM file_chunks
			WHERE ino = ? GROUP BY chunk) y WHERE chunks.id = y.id`, src); err != nil {
			return err
		}
	}
	if p.o.PreserveXattrs {
		if err := t.exec(`INSERT INTO xattrs(ino, name, value) SELECT ?, name, value FROM xattrs WHERE ino = ?`, dst, src); err != nil {
			return err
		}
	}
	return nil
}

// exec runs a statement through the writer's statement cache.
func (t *tx) exec(q string, args ...any) error {
	st, err := t.c.Prep(q)
	if err != nil {
		return err
	}
	return st.Exec(args...)
}

// createOp is the journal's operation for creating a file of mode m.
func createOp(m uint32) Op {
	switch m & S_IFMT {
	case S_IFDIR:
		return OpMkdir
	case S_IFREG:
		return OpCreate
	case S_IFLNK:
		return OpSymlink
	}
	return OpMknod
}

// joinPath joins a cleaned absolute directory path and a name.
func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}
