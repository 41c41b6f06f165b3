package vfs

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
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
	actor   string          // who the current request acts for (WithActor)
	access  Access          // the current request's path rules (WithAccess)
	span    *ChangeSpan     // the current request's (WithChangeSpan)
	spans   []spanMark      // the changes that belong to a ChangeSpan
	after   []func()        // run when the request returns (committed, or applied if deferred), outside wmu
	created map[uint64]bool // inodes created by this transaction (INSERT, not UPDATE)
	// inl holds the inline content (inodes.data) this transaction set, by
	// inode, written with the inode's row at commit (inline.go).
	inl   map[uint64]inlineVal
	drops map[uint64]struct{} // pending deletions it took (applyDrops), queued again if it fails
	// The chunk file's slots this transaction wrote (given back if it rolls
	// back) and freed (reusable after it commits; slots.go).
	slotsNew, slotsFreed []int64
	// lazy is set by a request that only adds chunks to a staging inode
	// (nlink 0, collected by recover after a crash: WriteFileFrom's batches
	// before the last); eager is set once any other request succeeded in
	// the transaction. A transaction with no eager request commits without
	// the chunk file's fdatasync (it only starts the writeback): no name
	// can reach its chunks before a later commit, which syncs (slots.go).
	lazy, eager bool

	// touched records every change to the overlay (inodes, dents) with the
	// value it replaced, in order: a failing request is undone by walking its
	// records back (savepoint), and a transaction kept open for deferred
	// requests shows readers what it changed (publishView).
	touched []undoRec
	viewed  int // touched[:viewed] are in the published view
	// Inodes whose xattrs or content this transaction changed, for the
	// published view.
	xattrIno   map[uint64]bool
	contentIno map[uint64]bool
	// The inodes added to xattrIno and contentIno since the view was last
	// published, so that publishing costs what is new, not the whole
	// transaction (it cost O(n²) over a batch of n files).
	xattrNew, contentNew []uint64
	deferred             int // requests applied but not yet committed (deferred commits)

	// Disk space (admit, room.go): the room last measured, and the content
	// the admitted requests add to the WAL.
	roomKnown bool
	roomFree  int64
	roomBy    string
	walNeed   int64
	// noop is set by a request that changes nothing (commitNow): admit then
	// passes it whatever the room, and clears it for the next request.
	noop bool
	// rawRows is set once the transaction wrote rows outside its overlay
	// (CopyTree): reads through the writer connection then no longer fill
	// the cache, which must only hold committed state.
	rawRows bool
	// measureRoom makes the next admit measure the room whatever its memo
	// says (a request that adds rows in bulk, CopyTree).
	measureRoom bool
	// unlinkedOpen counts the inodes that lost their last name but stay for
	// their open handles (unlinked): admit passes such a delete.
	unlinkedOpen int
}

// undoRec is one change to a transaction's overlay and the value it replaced.
type undoRec struct {
	dent bool
	inl  bool      // the inline content of ino changed (dent false)
	data inlineVal // previous inline content (inl, had)
	ino  uint64    // inode changed (dent false)
	k    dkey      // entry changed (dent true)
	in   *inode    // previous inode value (had: present in the overlay)
	dino uint64    // previous entry value
	had  bool
}

// A request is one caller's mutation waiting for a group commit.
type request struct {
	ctx    context.Context
	op     string
	path   string
	fn     func(t *tx) error
	err    error
	after  []func()
	delay  time.Duration // > 0: the request may be answered before its commit (deferred)
	done   chan struct{}
	leader bool // set when the request is woken to lead the next group
	// retried is set when the request runs again after a full disk failed
	// its transaction (retryFull).
	retried bool
}

// update runs fn in a write transaction and commits it. The change is durable
// (survives kill -9 of the process) when update returns nil.
//
// Group commit: callers that arrive while a commit is in progress queue up; the
// next leader runs all queued functions in one SQLite transaction, each inside
// its own savepoint (so one failing function rolls back only itself), and
// commits once. Every caller returns only after the commit that holds its
// change, so durability is the same as one transaction per call.
func (f *FS) update(ctx context.Context, op, path string, fn func(t *tx) error) error {
	return f.updateWith(ctx, f.delay, op, path, fn)
}

// updateWith is update with the commit delay given (0: durable when it returns).
func (f *FS) updateWith(ctx context.Context, delay time.Duration, op, path string, fn func(t *tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if f.opts.ReadOnly {
		return perr(op, path, syscall.EROFS)
	}
	r := &request{ctx: ctx, op: op, path: path, fn: fn, delay: delay, done: make(chan struct{})}
	f.gmu.Lock()
	f.queue = append(f.queue, r)
	lead := !f.leading
	if lead {
		f.leading = true
	}
	f.gmu.Unlock()
	if !lead {
		<-r.done
		if !r.leader {
			return f.finishRequest(r)
		}
		// Woken to lead: our own request is still queued.
	}
	for {
		f.gmu.Lock()
		group := f.queue
		if len(group) > f.opts.GroupMax {
			group = group[:f.opts.GroupMax]
		}
		f.queue = f.queue[len(group):]
		f.gmu.Unlock()
		f.wmu.Lock()
		f.commitGroup(group)
		f.retryFull(group)
		f.wmu.Unlock()
		mine := false
		for _, g := range group {
			if g == r {
				mine = true
				continue
			}
			close(g.done)
		}
		if mine {
			break
		}
	}
	// Hand leadership to the oldest waiter, if any.
	f.gmu.Lock()
	if len(f.queue) > 0 {
		next := f.queue[0]
		next.leader = true
		close(next.done)
	} else {
		f.leading = false
	}
	f.gmu.Unlock()
	return f.finishRequest(r)
}

func (f *FS) finishRequest(r *request) error {
	if r.err != nil {
		f.noteNoSpace(r.err)
		return r.err
	}
	for _, fn := range r.after {
		fn()
	}
	return nil
}

// commitGroup runs every request of the group in one transaction; wmu is held.
//
// The transaction is the pending one when deferred requests left one open
// (see WithCommitDelay), else a new one. When every request of the group is
// deferred, the transaction stays open: their changes are published to
// readers (publishView) and committed later, by the next group with a request
// that is not deferred, by Commit, or when the earliest delay expires.
func (f *FS) commitGroup(group []*request) {
	fail := func(err error) {
		for _, r := range group {
			if r.err == nil {
				r.err = asPathErr(r.op, r.path, err)
			}
		}
	}
	if f.closed.Load() {
		for _, r := range group {
			r.err = perr(r.op, r.path, syscall.EBADF)
		}
		return
	}
	t := f.pend
	fresh := t == nil
	if fresh {
		t = &tx{f: f, c: f.w, now: f.opts.Now(), inodes: make(map[uint64]*inode), dents: make(map[dkey]uint64)}
		if err := f.w.Run("BEGIN IMMEDIATE"); err != nil {
			fail(err)
			return
		}
	}
	t.applyDrops()
	ok, deferAll := 0, true
	var delay time.Duration = -1
	var broken error // a full disk failed the transaction itself
	for _, r := range group {
		if broken != nil {
			r.err = asPathErr(r.op, r.path, broken)
			continue
		}
		if err := r.ctx.Err(); err != nil {
			r.err = err
			continue
		}
		d, deferred := r.delay, r.delay > 0
		if f.sp.low.Load() {
			deferred = false // short of space: a delete is durable, and retried, before it returns
		}
		if !deferred {
			deferAll = false
		}
		if !fresh || len(group) > 1 {
			t.now = f.opts.Now()
			r.err = t.savepoint(r)
		} else {
			t.uid, t.gid = owner(r.ctx)
			t.actor, t.access, t.span = actorOf(r.ctx), accessOf(r.ctx), spanOf(r.ctx)
			before := t.admitMark()
			t.lazy = false
			err := r.fn(t)
			t.eager = t.eager || !t.lazy
			if err == nil && t.used > 0 && f.used+t.used > f.quotaBytes() {
				err = f.quotaError() // checked now: a deferred request is answered before finish
			}
			if err == nil {
				err = t.admit(before)
			}
			if err != nil {
				r.err = asPathErr(r.op, r.path, err)
			}
		}
		if r.err != nil && full(r.err) {
			// SQLite may have rolled the whole transaction back: nothing
			// more runs in it (retryFull runs the requests again).
			broken = r.err
			continue
		}
		if r.err == nil {
			r.after = t.after
			t.after = nil
			ok++
			if deferred {
				t.deferred++
				if delay < 0 || d < delay {
					delay = d
				}
			}
		}
	}
	if broken != nil {
		for _, r := range group {
			if r.err == nil {
				r.err = asPathErr(r.op, r.path, broken)
			}
		}
		f.pend = nil
		f.w.Run("ROLLBACK")
		t.slotUndo(slotMark{})
		t.clearDying(0)
		t.requeueDrops()
		f.endPending(broken, t.deferred)
		return
	}
	if fresh && ok == 0 {
		f.w.Run("ROLLBACK")
		t.slotUndo(slotMark{})
		t.clearDying(0)
		t.requeueDrops()
		return
	}
	if deferAll && t.deferred < maxDeferred && t.used < maxDeferredBytes {
		if ok > 0 || t.deferred > 0 {
			f.keepPending(t, delay)
			return
		}
	}
	if err := f.commitTx(t); err != nil {
		fail(err)
	}
}

// commitTx finishes and commits t (wmu is held), installs its changes in the
// cache and publishes its journal entries. If t held deferred requests whose
// callers were answered already, a failure loses their changes: it is kept
// for the next Commit to report.
func (f *FS) commitTx(t *tx) error {
	f.pend = nil
	t.applyAtimes()
	err := t.finish()
	if err == nil && f.slots != nil {
		if t.eager {
			// The slots' bytes are durable before the rows naming them can
			// be, this transaction's and those of staging commits before
			// it (slots.go). Nothing unsynced: no system call.
			err = f.slots.sync()
		} else {
			f.slots.writeback(t.slotsNew) // a staging batch: synced by a later commit
		}
	}
	unknown := false
	if err == nil {
		if err = f.w.Run("COMMIT"); err != nil {
			f.cache.reset() // the outcome is unknown
			unknown = true
		}
	}
	if err != nil {
		f.w.Run("ROLLBACK")
		if unknown {
			// Rows may name the slots it wrote: they stay taken (and the
			// freed ones unused) until the next Open rebuilds the list.
			t.slotsNew, t.slotsFreed = nil, nil
		}
		t.slotUndo(slotMark{})
		t.clearDying(0)
		t.requeueDrops()
		f.endPending(err, t.deferred)
		return err
	}
	if f.slots != nil && len(t.slotsFreed) > 0 {
		f.slots.committed(t.slotsFreed)
		if f.sp.low.Load() {
			f.walSynced() // short of space: the room is back before the delete returns
		} else {
			f.kickCheckpoint() // which makes the commit durable and frees them
		}
	}
	f.cache.apply(t.inodes, t.dents, t.created)
	f.endPending(nil, t.deferred)
	t.clearDying(0)
	if f.ckptKick != nil {
		// Every 64 commits, and every quarter of CheckpointBytes of content
		// (so that on a small disk the WAL stays near CheckpointBytes).
		f.walGrow += max(t.used, 0)
		if f.commits++; f.commits%64 == 0 || f.walGrow > f.opts.CheckpointBytes/4 || t.used < -1<<20 {
			f.walGrow = 0
			f.kickCheckpoint()
		}
	}
	if t.used != 0 {
		f.measure(f.w)
	}
	if t.used > 0 {
		f.noteSpace()
	}
	f.used += t.used
	f.usedPub.Store(f.used)
	f.inodes += t.ninodes
	if n := len(t.changes); n > 0 {
		f.seq = t.changes[n-1].Seq
		if f.minSeq == 0 {
			f.minSeq = t.changes[0].Seq
		}
		f.tail.add(t.changes, f.minSeq)
		for _, m := range t.spans {
			m.s.add(&t.changes[m.i])
		}
		f.publish(f.seq)
	}
	return nil
}

// savepoint runs one request of a group inside a savepoint, undoing both the
// SQL and the overlay if it fails.
func (t *tx) savepoint(r *request) error {
	if err := t.c.Run("SAVEPOINT req"); err != nil {
		return asPathErr(r.op, r.path, err)
	}
	mark, smark := len(t.touched), t.slotMark()
	nch, used, nin, ndying := len(t.changes), t.used, t.ninodes, len(t.dying)
	before := t.admitMark()
	t.uid, t.gid = owner(r.ctx)
	t.actor, t.access, t.span = actorOf(r.ctx), accessOf(r.ctx), spanOf(r.ctx)
	t.lazy = false
	err := r.fn(t)
	t.eager = t.eager || !t.lazy
	if err == nil && t.used > used && t.f.used+t.used > t.f.quotaBytes() {
		err = t.f.quotaError()
	}
	if err == nil {
		err = t.admit(before)
	}
	if err != nil {
		t.c.Run("ROLLBACK TO req")
		t.c.Run("RELEASE req")
		t.undoTo(mark)
		t.slotUndo(smark)
		t.changes, t.used, t.ninodes = t.changes[:nch], used, nin
		for len(t.spans) > 0 && t.spans[len(t.spans)-1].i >= nch {
			t.spans = t.spans[:len(t.spans)-1]
		}
		t.clearDying(ndying)
		t.after = nil
		return asPathErr(r.op, r.path, err)
	}
	if err := t.c.Run("RELEASE req"); err != nil {
		return asPathErr(r.op, r.path, err)
	}
	return nil
}

// finish writes changed inode rows and journal entries and enforces the quota.
func (t *tx) finish() error {
	f := t.f
	if t.used > 0 && f.used+t.used > f.quotaBytes() {
		return f.quotaError()
	}
	if len(t.inodes) > 0 {
		if err := t.writeInodes(); err != nil {
			return err
		}
	}
	if len(t.changes) > 0 {
		st, err := t.c.Prep(`INSERT INTO journal(seq, time, op, ino, parent, name, path, old_parent, old_name, old_path, off, len, actor)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`)
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
				ch.OldParent, ch.OldName, ch.OldPath, ch.Off, ch.Len, ch.Actor); err != nil {
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

// The statements that write an inode row at commit: with or without its
// inline content (inodes.data), which most changes (a chmod, a rename's
// ctime, a parent's mtime) leave as it is.
const (
	inodeInsert     = "INSERT INTO inodes(" + inodeCols + ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
	inodeInsertData = "INSERT INTO inodes(" + inodeCols + ", data, data_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
	inodeUpdate     = `UPDATE inodes SET gen = ?2, mode = ?3, nlink = ?4, uid = ?5, gid = ?6, size = ?7, blocks = ?8,
			atime = ?9, atime_ns = ?10, mtime = ?11, mtime_ns = ?12, ctime = ?13, ctime_ns = ?14, btime = ?15, btime_ns = ?16,
			target = ?17, rdev = ?18 WHERE ino = ?1`
	inodeUpdateData = `UPDATE inodes SET gen = ?2, mode = ?3, nlink = ?4, uid = ?5, gid = ?6, size = ?7, blocks = ?8,
			atime = ?9, atime_ns = ?10, mtime = ?11, mtime_ns = ?12, ctime = ?13, ctime_ns = ?14, btime = ?15, btime_ns = ?16,
			target = ?17, rdev = ?18, data = ?19, data_hash = ?20 WHERE ino = ?1`
)

// writeInodes writes the changed inode rows, in inode order, each with its
// inline content when this transaction set it.
func (t *tx) writeInodes() error {
	inos := make([]uint64, 0, len(t.inodes))
	for ino := range t.inodes {
		inos = append(inos, ino)
	}
	slices.Sort(inos)
	args := make([]any, 20)
	for _, ino := range inos {
		in := t.inodes[ino]
		var q string
		n := 18
		v, data := t.inl[ino]
		switch {
		case in == nil:
			st, err := t.c.Prep("DELETE FROM inodes WHERE ino = ?")
			if err != nil {
				return err
			}
			if err := st.Exec(ino); err != nil {
				return err
			}
			continue
		case t.created[ino] && data:
			q, n = inodeInsertData, 20
		case t.created[ino]:
			q = inodeInsert
		case data:
			q, n = inodeUpdateData, 20
		default:
			q = inodeUpdate
		}
		st, err := t.c.Prep(q)
		if err != nil {
			return err
		}
		var target any
		if in.IsSymlink() {
			target = []byte(in.target)
		}
		args = append(args[:0], in.Ino, in.Gen, in.Mode, in.Nlink, in.Uid, in.Gid, in.Size, in.Blocks,
			in.Atime.Unix(), in.Atime.Nanosecond(), in.Mtime.Unix(), in.Mtime.Nanosecond(),
			in.Ctime.Unix(), in.Ctime.Nanosecond(), in.Btime.Unix(), in.Btime.Nanosecond(), target, int64(in.Rdev))
		if n == 20 {
			var d, h any
			if v.data != nil {
				d, h = v.data, v.hash[:]
			}
			args = append(args, d, h)
		}
		if err := st.Exec(args...); err != nil {
			return err
		}
	}
	// Inline content of an inode whose row is otherwise unchanged (setInline
	// puts the inode, so this is only a guard).
	for ino, v := range t.inl {
		if _, ok := t.inodes[ino]; ok {
			continue
		}
		st, err := t.c.Prep("UPDATE inodes SET data = ?, data_hash = ? WHERE ino = ?")
		if err != nil {
			return err
		}
		var d, h any
		if v.data != nil {
			d, h = v.data, v.hash[:]
		}
		if err := st.Exec(d, h, ino); err != nil {
			return err
		}
	}
	return nil
}

// clearDying drops the deletion marks set since t.dying[from:].
func (t *tx) clearDying(from int) {
	if len(t.dying) <= from {
		return
	}
	t.f.omu.Lock()
	for _, ino := range t.dying[from:] {
		if o := t.f.opens[ino]; o != nil && o.dying {
			delete(t.f.opens, ino)
		}
	}
	t.f.omu.Unlock()
	t.dying = t.dying[:from]
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
	in, ok, err := t.getInode(ino)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, syscall.ENOENT
	}
	return &in, nil
}

// peek is inode by value, for the path walk.
func (t *tx) peek(ino uint64) (inode, error) {
	if in, ok := t.inodes[ino]; ok {
		if in == nil {
			return inode{}, syscall.ENOENT
		}
		return *in, nil
	}
	in, ok, err := t.getInode(ino)
	if err != nil {
		return in, err
	}
	if !ok {
		return in, syscall.ENOENT
	}
	return in, nil
}

// lookup returns the inode (parent, name) names in this transaction, or 0.
func (t *tx) lookup(parent uint64, name string) (uint64, error) {
	k := dkey{parent, name}
	if ino, ok := t.dents[k]; ok {
		return ino, nil
	}
	if t.rawRows {
		if ino, ok := t.f.cache.getDent(k); ok {
			return ino, nil
		}
		return loadDent(t.c, k)
	}
	return t.f.getDentVia(t.c, k)
}

// getInode reads ino's row outside the overlay: from the cache, else
// through the writer connection (filling the cache unless rawRows).
func (t *tx) getInode(ino uint64) (inode, bool, error) {
	if t.rawRows {
		if in, ok := t.f.cache.getInode(ino); ok {
			return in, true, nil
		}
		return loadInode(t.c, ino)
	}
	return t.f.getInodeVia(t.c, ino)
}

// put records in as changed; it is written at commit.
func (t *tx) put(in *inode) { t.setInode(in.Ino, in) }

// setInode sets the overlay's inode ino (nil: deleted), recording the change.
func (t *tx) setInode(ino uint64, in *inode) {
	old, had := t.inodes[ino]
	t.touched = append(t.touched, undoRec{ino: ino, in: old, had: had})
	t.inodes[ino] = in
}

// setDentOverlay sets the overlay's entry k (0: removed), recording the change.
func (t *tx) setDentOverlay(k dkey, ino uint64) {
	old, had := t.dents[k]
	t.touched = append(t.touched, undoRec{dent: true, k: k, dino: old, had: had})
	t.dents[k] = ino
}

// undoTo reverts the overlay changes recorded after touched[:mark].
func (t *tx) undoTo(mark int) {
	for i := len(t.touched) - 1; i >= mark; i-- {
		u := t.touched[i]
		switch {
		case u.inl && u.had:
			t.inl[u.ino] = u.data
		case u.inl:
			delete(t.inl, u.ino)
		case u.dent && u.had:
			t.dents[u.k] = u.dino
		case u.dent:
			delete(t.dents, u.k)
		case u.had:
			t.inodes[u.ino] = u.in
		default:
			delete(t.inodes, u.ino)
		}
	}
	t.touched = t.touched[:mark]
	t.viewed = min(t.viewed, mark)
}

// xattrChanged and contentChanged note, for readers of a deferred
// transaction's view, that ino's xattrs or content are not the committed ones.
func (t *tx) xattrChanged(ino uint64) {
	if t.xattrIno == nil {
		t.xattrIno = make(map[uint64]bool)
	}
	if !t.xattrIno[ino] {
		t.xattrIno[ino] = true
		t.xattrNew = append(t.xattrNew, ino)
	}
}

func (t *tx) contentChanged(ino uint64) {
	if t.contentIno == nil {
		t.contentIno = make(map[uint64]bool)
	}
	if !t.contentIno[ino] {
		t.contentIno[ino] = true
		t.contentNew = append(t.contentNew, ino)
	}
}

// addDent adds the entry (parent, name) → ino, an inode of mode m (its
// type is recorded in the entry).
func (t *tx) addDent(parent uint64, name string, ino uint64, m uint32) error {
	st, err := t.c.Prep("INSERT INTO dentries(parent, name, ino, type) VALUES (?, ?, ?, ?)")
	if err != nil {
		return err
	}
	if err := st.Exec(parent, name, ino, m&S_IFMT); err != nil {
		return err
	}
	t.setDentOverlay(dkey{parent, name}, ino)
	return nil
}

// setDent points the entry (parent, name) at ino, an inode of mode m.
func (t *tx) setDent(parent uint64, name string, ino uint64, m uint32) error {
	st, err := t.c.Prep("UPDATE dentries SET ino = ?, type = ? WHERE parent = ? AND name = ?")
	if err != nil {
		return err
	}
	if err := st.Exec(ino, m&S_IFMT, parent, name); err != nil {
		return err
	}
	t.setDentOverlay(dkey{parent, name}, ino)
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
	t.setDentOverlay(dkey{parent, name}, 0)
	return nil
}

// newInode allocates an inode with the given type and permission bits.
func (t *tx) newInode(mode uint32) (*inode, error) {
	f := t.f
	if f.inodes+t.ninodes+1 > f.maxInodes() {
		return nil, errNoSpace(LimitQuota, fmt.Sprintf("the workspace's limit of %d inodes is reached", f.maxInodes()))
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
	if t.created == nil {
		t.created = make(map[uint64]bool)
	}
	t.created[ino] = true
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
	t.unlinkedOpen++
	// Kept for its open handles; if they all close before this commit lands,
	// their last close still saw a name, so the inode is dropped afterwards.
	f, ino := t.f, in.Ino
	t.after = append(t.after, func() { f.dropUnlinked(ino) })
	return nil
}

// dropInode deletes an inode with its content and xattrs.
func (t *tx) dropInode(ino uint64) error {
	in, err := t.inode(ino)
	if err != nil {
		return err
	}
	if err := t.truncateChunks(in, 0); err != nil {
		return err
	}
	st, err := t.c.Prep("DELETE FROM xattrs WHERE ino = ?")
	if err != nil {
		return err
	}
	if err := st.Exec(ino); err != nil {
		return err
	}
	t.setInode(ino, nil)
	t.ninodes--
	return nil
}

// log records a change for the journal, tagged with the current caller's actor.
func (t *tx) log(ch Change) {
	ch.Actor = t.actor
	t.changes = append(t.changes, ch)
	if t.span != nil {
		t.spans = append(t.spans, spanMark{len(t.changes) - 1, t.span})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
