package vfs

import (
	"context"
	"fmt"
	"time"
)

// Deferred commits.
//
// A mutation made through a handle from WithCommitDelay returns as soon as it is
// applied: its changes are in the writer's open transaction, and every reader
// of the store sees them at once (through the pending transaction's view),
// but they are not durable yet. The transaction stays open for further
// deferred mutations and is committed, all of them at once, by whichever comes
// first: the delay of the earliest one, a mutation without delay (from any
// caller: it joins the transaction, and returns after the commit), Commit, a
// read that must see the database (a directory listing, content or xattrs the
// transaction changed, the journal, records), or Close. So commits are shared
// by a sequential caller, as group commit shares them between concurrent ones.
//
// The promise is weaker than a plain mutation's, and ordered: a deferred
// change can be lost by a crash within its delay, but never out of order. What
// survives a crash is always a prefix of the applied changes, so any durable
// mutation (from any caller) made after a deferred one makes it durable too.
//
// Readers see the pending transaction through a view published after each
// group: the inodes and entries it changed (checked before the cache), the
// inodes whose content or xattrs it changed, and whether anything is pending.
// Reads answered from the database commit first when they could see the
// difference (reader). Inside the transaction, requests see its overlay as
// usual.

// maxDeferred and maxDeferredBytes bound a pending transaction: past them, the
// next group commits. 4 MiB of written data keeps a large file's write in
// transactions that fit the writer's page cache (64 MiB ones spilled it:
// writing 64 MiB through the mount took ~10% longer on tmpfs).
const (
	maxDeferred      = 4096
	maxDeferredBytes = 4 << 20
)

// WithCommitDelay returns a handle on the same store whose mutations may
// return before they are durable: each is applied at once (visible to every
// reader of the store) and committed with whatever else is pending at most d
// later, or earlier when anything else commits. A crash within d can lose it,
// but only together with every change applied after it. The FUSE server uses
// it so that a sequence of metadata operations (create, mkdir, unlink,
// rename, chmod) shares commits. Files opened through the handle keep its
// delay for their metadata changes (a truncation); their written data is
// durable at File.Sync and File.Close, and Commit and Records are always
// durable when they return. d <= 0 gives a handle whose mutations are all
// durable when they return, as Open's.
func (f *FS) WithCommitDelay(d time.Duration) *FS {
	return &FS{core: f.core, delay: max(d, 0)}
}

// WithBatching returns a handle for one unit of work, such as an execution
// of the shell or js backend, whose changes share commits: it is
// WithCommitDelay(d), and in addition a File's Close through it does not
// make the file's data durable before it returns: the flush is applied
// (visible to every reader at once) and committed with the rest, at most d
// later or earlier when anything else commits. File.Sync is still durable
// when it returns, and so are Commit and Records. The unit ends with Commit,
// which makes everything it did durable; a crash before then can lose its
// newest changes, in order (what survives is the state after some prefix of
// them), never a change that a durable call from anyone made later than it.
// internal/run hands one to every execution and commits at its end. d <= 0
// gives a handle whose mutations are all durable when they return.
func (f *FS) WithBatching(d time.Duration) *FS {
	if d <= 0 {
		return &FS{core: f.core}
	}
	return &FS{core: f.core, delay: d, lazyClose: true}
}

// Base returns the handle Open returned for this store, whose changes are
// durable when they return: the same pointer from every handle of the store
// (WithCommitDelay, WithBatching), so it also identifies the store.
func (f *FS) Base() *FS { return f.base }

// closeDelay is the commit delay of a File's Close through f.
func (f *FS) closeDelay() time.Duration {
	if f.lazyClose {
		return f.delay
	}
	return 0
}

// commitNow commits whatever is pending (deferred changes, access times,
// deletions of unlinked inodes) and waits until it is durable.
func (f *FS) commitNow(ctx context.Context, op string) error {
	return f.updateWith(ctx, 0, op, "", func(t *tx) error {
		t.noop = true // nothing to admit: the changes pending were admitted as they ran
		return nil
	})
}

// Commit makes every change applied so far durable (deferred mutations, see
// WithCommitDelay, and deletions of unlinked files waiting for a commit). It
// returns an error if a deferred change was lost because its commit failed
// since the last call.
func (f *FS) Commit(ctx context.Context) error {
	if f.opts.ReadOnly {
		return nil
	}
	var err error
	if f.pendOn.Load() || f.pendingDrops() {
		err = f.commitNow(ctx, "commit")
	}
	f.vmu.Lock()
	lost := f.lostErr
	f.lostErr = nil
	f.vmu.Unlock()
	if err == nil && lost != nil {
		err = asPathErr("commit", "", fmt.Errorf("deferred changes lost: %w", lost))
	}
	return err
}

// pendView is what readers see of the pending transaction.
type pendView struct {
	inodes  map[uint64]*inode // changed inodes; nil = deleted
	dents   map[dkey]uint64   // changed entries; 0 = removed
	xattr   map[uint64]bool   // inodes whose xattrs changed
	content map[uint64]bool   // inodes whose content changed
	dirs    map[uint64]bool   // directories with a changed entry
}

// keepPending leaves t open for more deferred requests (wmu is held): its
// changes so far are published to readers, and its commit is scheduled at
// most delay from now.
func (f *FS) keepPending(t *tx, delay time.Duration) {
	f.pend = t
	f.vmu.Lock()
	v := f.view
	if v == nil {
		v = &pendView{inodes: make(map[uint64]*inode), dents: make(map[dkey]uint64),
			xattr: make(map[uint64]bool), content: make(map[uint64]bool), dirs: make(map[uint64]bool)}
		f.view = v
	}
	for _, u := range t.touched[t.viewed:] {
		if u.inl {
			continue // content: readers commit first (contentNew below)
		}
		if u.dent {
			v.dents[u.k] = t.dents[u.k]
			v.dirs[u.k.parent] = true
			continue
		}
		if in := t.inodes[u.ino]; in != nil {
			cp := *in
			v.inodes[u.ino] = &cp
		} else {
			v.inodes[u.ino] = nil
		}
	}
	t.viewed = len(t.touched)
	for _, ino := range t.xattrNew {
		v.xattr[ino] = true
	}
	for _, ino := range t.contentNew {
		v.content[ino] = true
	}
	t.xattrNew, t.contentNew = t.xattrNew[:0], t.contentNew[:0]
	f.pendOn.Store(true)
	f.vmu.Unlock()
	if delay < 0 {
		return // no new deferred request: the schedule stands
	}
	deadline := time.Now().Add(delay)
	if f.pendTimer == nil {
		f.pendTimer = time.AfterFunc(delay, f.commitPending)
	} else if f.pendDeadline.IsZero() || deadline.Before(f.pendDeadline) {
		f.pendTimer.Reset(delay)
	} else {
		return
	}
	f.pendDeadline = deadline
}

// endPending drops the view once the pending transaction is committed (its
// changes are in the cache) or lost (err, n deferred requests). wmu is held.
func (f *FS) endPending(err error, n int) {
	f.vmu.Lock()
	f.view = nil
	f.pendOn.Store(false)
	if err != nil && n > 0 {
		f.lostErr = err
	}
	f.vmu.Unlock()
	if f.pendTimer != nil && !f.pendDeadline.IsZero() {
		f.pendTimer.Stop()
	}
	f.pendDeadline = time.Time{}
}

// commitPending commits the pending transaction (its delay expired).
func (f *FS) commitPending() {
	if f.pendOn.Load() && !f.closed.Load() {
		f.commitNow(context.Background(), "commit")
	}
}

// viewInode looks ino up in the pending transaction's view: found is false when
// the transaction did not change it (the cache and database are current).
func (f *FS) viewInode(ino uint64) (in inode, ok, found bool) {
	f.vmu.RLock()
	defer f.vmu.RUnlock()
	if f.view == nil {
		return inode{}, false, false
	}
	p, found := f.view.inodes[ino]
	if !found || p == nil {
		return inode{}, false, found
	}
	return *p, true, true
}

// viewDent looks k up in the pending transaction's view.
func (f *FS) viewDent(k dkey) (ino uint64, found bool) {
	f.vmu.RLock()
	defer f.vmu.RUnlock()
	if f.view == nil {
		return 0, false
	}
	ino, found = f.view.dents[k]
	return ino, found
}

// syncFor commits the pending transaction first (with ctx) if it changed what
// a read of ino's xattrs (xattr) or content would see in the database.
func (f *FS) syncFor(ctx context.Context, ino uint64, xattr bool) error {
	if !f.pendOn.Load() {
		return nil
	}
	f.vmu.RLock()
	need := f.view != nil && (xattr && f.view.xattr[ino] || !xattr && f.view.content[ino])
	f.vmu.RUnlock()
	if !need {
		return nil
	}
	return f.commitNow(ctx, "commit")
}

// listingView tells a directory listing of dir how the pending transaction
// bears on it: commit is set when it changed an entry of dir (the listing
// must read the database with it committed); otherwise the listing may read
// the committed entries and take their modes from mode (nil when nothing is
// pending), so that a batch of changes elsewhere costs a listing no commit.
func (f *FS) listingView(dir uint64) (commit bool, mode func(ino uint64) (uint32, bool)) {
	if !f.pendOn.Load() {
		return false, nil
	}
	f.vmu.RLock()
	defer f.vmu.RUnlock()
	if f.view == nil {
		return false, nil
	}
	if f.view.dirs[dir] {
		return true, nil
	}
	return false, func(ino uint64) (uint32, bool) {
		in, _, found := f.viewInode(ino)
		return in.Mode, found
	}
}
