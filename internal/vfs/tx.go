package vfs

import (
	"context"
	"errors"
	"io/fs"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/vfs/internal/sqlite"
)

// tx is one write transaction. Reads through it see its own changes (an overlay
// over the committed cache); the changes reach the cache only after COMMIT.
type tx struct {
	f       *FS
	c       *sqlite.Conn
	now     time.Time
	inodes  map[uint64]*inode // changed inodes; nil = deleted
	dents   map[dkey]uint64   // changed entries; 0 = removed
	changes []Change
	used    int64 // delta of unique chunk bytes
	ninodes int64 // delta of live inodes
	dying   []uint64
	uid     uint32 // owner of inodes this transaction creates (WithOwner)
	gid     uint32
	after   []func() // run after a successful commit, outside wmu
}

// update runs fn in a write transaction and commits it. The change is durable
// (survives kill -9 of the process) when update returns nil.
func (f *FS) update(ctx context.Context, op, path string, fn func(t *tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if f.opts.ReadOnly {
		return perr(op, path, syscall.EROFS)
	}
	f.wmu.Lock()
	t, err := f.commit(ctx, op, path, fn)
	f.wmu.Unlock()
	if err != nil {
		return err
	}
	for _, fn := range t.after {
		fn()
	}
	return nil
}

// commit runs fn in a transaction and commits it; wmu is held.
func (f *FS) commit(ctx context.Context, op, path string, fn func(t *tx) error) (*tx, error) {
	if f.closed.Load() {
		return nil, perr(op, path, syscall.EBADF)
	}
	t := &tx{f: f, c: f.w, now: f.opts.Now(), inodes: make(map[uint64]*inode), dents: make(map[dkey]uint64)}
	t.uid, t.gid = owner(ctx)
	if err := f.w.Exec("BEGIN IMMEDIATE"); err != nil {
		return nil, asPathErr(op, path, err)
	}
	err := fn(t)
	if err == nil {
		err = t.finish()
	}
	if err != nil {
		f.w.Exec("ROLLBACK")
		t.clearDying()
		return nil, asPathErr(op, path, err)
	}
	if err := f.w.Exec("COMMIT"); err != nil {
		f.w.Exec("ROLLBACK")
		f.cache.reset()
		t.clearDying()
		return nil, asPathErr(op, path, err)
	}
	f.cache.apply(t.inodes, t.dents)
	t.clearDying()
	if f.ckptKick != nil {
		f.kickCheckpoint()
	}
	f.used += t.used
	f.inodes += t.ninodes
	if n := len(t.changes); n > 0 {
		f.seq = t.changes[n-1].Seq
		if f.minSeq == 0 {
			f.minSeq = t.changes[0].Seq
		}
		f.publish(f.seq)
	}
	return t, nil
}

// finish writes changed inode rows and journal entries and enforces the quota.
func (t *tx) finish() error {
	f := t.f
	if t.used > 0 && f.used+t.used > f.opts.QuotaBytes {
		return syscall.ENOSPC
	}
	if len(t.inodes) > 0 {
		put, err := t.c.Prep("INSERT OR REPLACE INTO inodes(" + inodeCols + ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
		if err != nil {
			return err
		}
		del, err := t.c.Prep("DELETE FROM inodes WHERE ino = ?")
		if err != nil {
			return err
		}
		inos := make([]uint64, 0, len(t.inodes))
		for ino := range t.inodes {
			inos = append(inos, ino)
		}
		sort.Slice(inos, func(i, j int) bool { return inos[i] < inos[j] })
		for _, ino := range inos {
			in := t.inodes[ino]
			if in == nil {
				err = del.Exec(ino)
			} else {
				var target any
				if in.IsSymlink() {
					target = []byte(in.target)
				}
				err = put.Exec(in.Ino, in.Gen, in.Mode, in.Nlink, in.Uid, in.Gid, in.Size, in.Blocks,
					in.Atime.Unix(), in.Atime.Nanosecond(), in.Mtime.Unix(), in.Mtime.Nanosecond(),
					in.Ctime.Unix(), in.Ctime.Nanosecond(), in.Btime.Unix(), in.Btime.Nanosecond(), target)
			}
			if err != nil {
				return err
			}
		}
	}
	if len(t.changes) > 0 {
		st, err := t.c.Prep(`INSERT INTO journal(seq, time, op, ino, parent, name, path, old_parent, old_name, old_path, off, len)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`)
		if err != nil {
			return err
		}
		seq := f.seq
		for i := range t.changes {
			seq++
			ch := &t.changes[i]
			ch.Seq = seq
			ch.Time = t.now
			if err := st.Exec(seq, t.now.UnixNano(), string(ch.Op), ch.Ino, ch.Parent, ch.Name, ch.Path,
				ch.OldParent, ch.OldName, ch.OldPath, ch.Off, ch.Len); err != nil {
				return err
			}
		}
		// Retention: trim in steps so the cost is amortised.
		if keep := uint64(f.opts.JournalKeep); f.minSeq > 0 && seq > keep && seq-keep > f.minSeq+1024 {
			newMin := seq - keep + 1
			if err := t.c.Exec("DELETE FROM journal WHERE seq < " + itoa(int64(newMin))); err != nil {
				return err
			}
			f.minSeq = newMin
		}
	}
	return nil
}

func (t *tx) clearDying() {
	if len(t.dying) == 0 {
		return
	}
	t.f.omu.Lock()
	for _, ino := range t.dying {
		if o := t.f.opens[ino]; o != nil && o.dying {
			delete(t.f.opens, ino)
		}
	}
	t.f.omu.Unlock()
}

// inode returns ino as this transaction sees it.
func (t *tx) inode(ino uint64) (*inode, error) {
	if in, ok := t.inodes[ino]; ok {
		if in == nil {
			return nil, syscall.ENOENT
		}
		cp := *in
		return &cp, nil
	}
	in, ok, err := t.f.getInode(ino)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, syscall.ENOENT
	}
	return &in, nil
}

// lookup returns the inode (parent, name) names in this transaction, or 0.
func (t *tx) lookup(parent uint64, name string) (uint64, error) {
	k := dkey{parent, name}
	if ino, ok := t.dents[k]; ok {
		return ino, nil
	}
	return t.f.getDent(k)
}

// put records in as changed; it is written at commit.
func (t *tx) put(in *inode) { t.inodes[in.Ino] = in }

func (t *tx) addDent(parent uint64, name string, ino uint64) error {
	st, err := t.c.Prep("INSERT INTO dentries(parent, name, ino) VALUES (?, ?, ?)")
	if err != nil {
		return err
	}
	if err := st.Exec(parent, name, ino); err != nil {
		return err
	}
	t.dents[dkey{parent, name}] = ino
	return nil
}

func (t *tx) setDent(parent uint64, name string, ino uint64) error {
	st, err := t.c.Prep("UPDATE dentries SET ino = ? WHERE parent = ? AND name = ?")
	if err != nil {
		return err
	}
	if err := st.Exec(ino, parent, name); err != nil {
		return err
	}
	t.dents[dkey{parent, name}] = ino
	return nil
}

func (t *tx) delDent(parent uint64, name string) error {
	st, err := t.c.Prep("DELETE FROM dentries WHERE parent = ? AND name = ?")
	if err != nil {
		return err
	}
	if err := st.Exec(parent, name); err != nil {
		return err
	}
	t.dents[dkey{parent, name}] = 0
	return nil
}

// newInode allocates an inode with the given type and permission bits.
func (t *tx) newInode(mode uint32) (*inode, error) {
	f := t.f
	if f.inodes+t.ninodes+1 > f.opts.MaxInodes {
		return nil, syscall.ENOSPC
	}
	ino := f.nextIno
	f.nextIno++ // never reused, even if the transaction rolls back
	t.ninodes++
	in := &inode{Attr: Attr{
		Ino: ino, Gen: f.seq + 1, Mode: mode, Nlink: 1,
		Atime: t.now, Mtime: t.now, Ctime: t.now, Btime: t.now,
	}}
	if in.IsDir() {
		in.Nlink = 2
		in.Size = 4096
	}
	t.put(in)
	return in, nil
}

// unlinked handles an inode that lost a name: at nlink 0 it is deleted, unless a
// handle keeps it open (then it is deleted when the last handle closes).
func (t *tx) unlinked(in *inode) error {
	if in.Nlink > 0 {
		in.Ctime = t.now
		t.put(in)
		return nil
	}
	in.Nlink = 0
	if t.f.markDying(in.Ino) {
		t.dying = append(t.dying, in.Ino)
		return t.dropInode(in.Ino)
	}
	in.Ctime = t.now
	t.put(in)
	return nil
}

// dropInode deletes an inode with its content and xattrs.
func (t *tx) dropInode(ino uint64) error {
	if err := t.truncateChunks(&inode{Attr: Attr{Ino: ino}}, 0); err != nil {
		return err
	}
	st, err := t.c.Prep("DELETE FROM xattrs WHERE ino = ?")
	if err != nil {
		return err
	}
	if err := st.Exec(ino); err != nil {
		return err
	}
	t.inodes[ino] = nil
	t.ninodes--
	return nil
}

// log records a change for the journal.
func (t *tx) log(ch Change) { t.changes = append(t.changes, ch) }

func isErrno(err error, e syscall.Errno) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err == e
	}
	return err == e
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
