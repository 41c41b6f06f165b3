package vfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/sqlite"
)

// A store's side of disk space (see Space): admission of writes, the mapping
// of a full disk to ENOSPC, one log line when the store runs out of space and
// one when it has space again, and its share of a Space's bound.

// roomState is the store's disk-space state.
type roomState struct {
	// low is set when a write failed for lack of space and cleared when a
	// write that adds content commits: the transitions are logged. While it
	// is set, WithCommitDelay is ignored, so that a delete is durable (and
	// retried, if the disk is full) before it returns.
	low atomic.Bool
	mu  sync.Mutex // guards disk
	// pageSize is the database's page size once read (pageSize).
	pageSize atomic.Int64
	// disk is the store's files' size (StoreBytes) as last reported to the
	// Space's bound.
	disk int64
	// memo is the last room measure (admit); guarded by wmu.
	memo roomMemo
}

// slackPages is what a change that adds no content (a create, rename, chmod,
// a journal row) needs free: a few B-tree pages, in the WAL and the database.
const slackPages = 8

// full reports whether err is SQLite finding the disk full (SQLITE_FULL, or
// ENOSPC/EDQUOT under an SQLite error), as opposed to a bound desk enforces.
func full(err error) bool {
	var se *spaceError
	if errors.As(err, &se) {
		return se.cause != nil
	}
	return sqlite.IsFull(err)
}

// diskFullWhy is the reason of the ENOSPC of a write SQLite could not make.
const diskFullWhy = "the disk holding the store is full"

// room is what this store may still add on disk, and which bound that is
// (LimitDisk or LimitDataDir): the filesystem's free space beyond the
// reserve, or the Space's bound left, plus the store's own free pages (c is
// the writer).
func (f *FS) room(c *sqlite.Conn) (int64, string, spaceState, error) {
	var free int64
	by := LimitDisk
	var st spaceState
	if s := f.opts.Space; s != nil {
		var err error
		if free, by, st, err = s.room(); err != nil {
			return 0, "", st, err
		}
	} else {
		var sfs unix.Statfs_t
		if err := unix.Statfs(filepath.Dir(f.path), &sfs); err != nil {
			return 0, "", st, fmt.Errorf("statfs: %w", err)
		}
		free = int64(sfs.Bavail) * sfs.Bsize
		st.DiskTotal, st.DiskAvail = int64(sfs.Blocks)*sfs.Bsize, free
	}
	// The store's free pages are room; the pages the WAL holds beyond the
	// database file's end are owed: the next checkpoint grows the file by them.
	var n [2]int64
	for i, q := range []string{"PRAGMA freelist_count", "PRAGMA page_count"} {
		v, err := queryInt(c, q)
		if err != nil {
			return 0, "", st, err
		}
		n[i] = v
	}
	ps, err := f.pageSize(c)
	if err != nil {
		return 0, "", st, err
	}
	freePages, pages := n[0], n[1]
	var fi unix.Stat_t
	if err := unix.Stat(f.path, &fi); err != nil {
		return 0, "", st, fmt.Errorf("stat: %w", err)
	}
	return free + freePages*ps - max(pages*ps-fi.Size, 0), by, st, nil
}

// owed is how much the next checkpoint grows the database file by: the
// pages the WAL holds beyond its end (c sees the committed state).
func (f *FS) owed(c *sqlite.Conn) int64 {
	pages, err := queryInt(c, "PRAGMA page_count")
	if err != nil {
		return 0
	}
	ps, err := f.pageSize(c)
	if err != nil {
		return 0
	}
	var fi unix.Stat_t
	if unix.Stat(f.path, &fi) != nil {
		return 0
	}
	return max(pages*ps-fi.Size, 0)
}

// pageSize is the store's page size (fixed at creation), read once.
func (f *FS) pageSize(c *sqlite.Conn) (int64, error) {
	if ps := f.sp.pageSize.Load(); ps > 0 {
		return ps, nil
	}
	ps, err := queryInt(c, "PRAGMA page_size")
	if err == nil && ps > 0 {
		f.sp.pageSize.Store(ps)
	}
	return ps, err
}

// why is the reason an ENOSPC gives for a bound (LimitDisk, LimitDataDir).
func (f *FS) why(by string) string {
	if by == LimitDataDir {
		return fmt.Sprintf("the data directory's bound of %d bytes is reached", f.opts.Space.limit)
	}
	return diskFullWhy
}

// admitMark is what admit compares a request's effect against: t's content
// bytes, live inodes, dropped inodes and unlinked open inodes before it.
type admitMark struct {
	used, ninodes       int64
	dying, unlinkedOpen int
}

func (t *tx) admitMark() admitMark {
	return admitMark{t.used, t.ninodes, len(t.dying), t.unlinkedOpen}
}

// admit checks the request that just ran in t (b: t before it) against the
// disk space. A request that frees content, or inodes without adding
// content, always passes; so does one that unlinked the last name of an
// inode still open (a handle, or through the mount the kernel's reference
// until its FORGET) without adding content, although it frees nothing yet:
// a delete must work on a full disk, and the space comes back when the
// inode goes. A request that changes nothing (commitNow, which commits what
// earlier requests did and were admitted for) passes too. Otherwise the
// room is measured after it ran (so the database pages it added are counted,
// as owed to the database file) and must hold what the requests of t that
// added content will add to the WAL, this one's included, and a few pages.
//
// A measure serves more than one request (roomMemo): a request that adds no
// content reuses its transaction's, and any request, in this transaction or
// a later one, reuses the store's last one while the requests since it
// added at most admitReuse bytes, number fewer than admitReuseN, it is less
// than admitAge old, and it left more than admitMargin beyond what they
// added: far from the bound, a statfs, a stat and two PRAGMAs per small file
// bought nothing. Deletions since are not counted (the room only grows);
// while the store is short of space every request measures.
func (t *tx) admit(b admitMark) error {
	d := t.used - b.used
	nothing := t.noop && d == 0 && t.ninodes == b.ninodes
	t.noop = false
	deletes := d == 0 && (t.ninodes < b.ninodes || len(t.dying) > b.dying || t.unlinkedOpen > b.unlinkedOpen)
	if nothing || d < 0 || deletes {
		return nil
	}
	f := t.f
	need := d + slackPages*int64(f.opts.PageSize)
	m := &f.sp.memo
	fresh := m.known && m.n < admitReuseN && time.Since(m.at) < admitAge && !f.sp.low.Load()
	if !t.roomKnown && fresh {
		// What earlier transactions added since the measure is owed.
		t.roomKnown, t.roomFree, t.roomBy = true, m.free-m.since, m.by
	}
	reuse := t.roomKnown && (d == 0 || fresh && m.since+d <= admitReuse && t.roomFree-t.walNeed-need > admitMargin)
	if t.measureRoom {
		reuse, t.measureRoom = false, false
	}
	if !reuse {
		free, by, _, err := f.room(t.c)
		if err != nil {
			return err
		}
		t.roomKnown, t.roomFree, t.roomBy = true, free, by
		*m = roomMemo{known: true, free: free, by: by, at: time.Now()}
	}
	if left := t.roomFree - t.walNeed; need > left {
		return errNoSpace(t.roomBy, fmt.Sprintf("%s: %d bytes free, %d needed", f.why(t.roomBy), max(left, 0), need))
	}
	t.walNeed += d
	m.since += d
	m.n++
	return nil
}

// roomMemo is the store's last room measure (admit), guarded by wmu: the
// room then, which bound it was, when, and the content bytes and requests
// admitted since.
type roomMemo struct {
	known bool
	free  int64
	by    string
	at    time.Time
	since int64
	n     int
}

// The reuse of a room measure by later requests (admit): at most admitReuse
// bytes and admitReuseN requests since it, younger than admitAge, with more
// than admitMargin left. admitReuseN requests of slackPages pages each (16
// MiB with 8 KiB pages) stay well inside the margin whatever metadata they
// add; the age bounds what other writers on the disk can take meanwhile.
const (
	admitReuse  = 256 << 10
	admitReuseN = 256
	admitMargin = 64 << 20
	admitAge    = time.Second
)

// quotaError is the ENOSPC of the store's own quota of unique content bytes.
func (f *FS) quotaError() error {
	return errNoSpace(LimitQuota, fmt.Sprintf("the workspace's quota of %d bytes is reached", f.quotaBytes()))
}

// noteNoSpace logs, once until the store has space again, that a write
// failed for lack of space.
func (f *FS) noteNoSpace(err error) {
	var se *spaceError
	if !errors.As(err, &se) || f.sp.low.Swap(true) {
		return
	}
	f.log.Warn("workspace out of space: writes fail with ENOSPC (EDQUOT for its quota); deletes and truncates still work",
		"store", f.path, "reason", se.why)
}

// noteSpace logs that the store has space again after noteNoSpace.
func (f *FS) noteSpace() {
	if f.sp.low.Load() && f.sp.low.Swap(false) {
		f.log.Info("workspace has space again", "store", f.path)
	}
}

// measure reports a change in the size of the store's files, with what the
// next checkpoint adds to them (c, when not nil, sees the committed state),
// to the Space's bound. It costs a stat of each file and runs only when a
// bound is set.
func (f *FS) measure(c *sqlite.Conn) {
	s := f.opts.Space
	if s == nil || s.limit == 0 {
		return
	}
	n := StoreBytes(f.path)
	if c != nil {
		n += f.owed(c)
	}
	f.sp.mu.Lock()
	d := n - f.sp.disk
	f.sp.disk = n
	f.sp.mu.Unlock()
	s.add(d)
}

// measureBase records the store's size when it opens, already counted by the
// Space.
func (f *FS) measureBase() {
	if s := f.opts.Space; s != nil && s.limit > 0 {
		f.sp.disk = StoreBytes(f.path)
	}
}

// retryFull runs again, once each and alone, the requests of group that a
// full disk failed (wmu is held):
//   - SQLite found the disk full: the Space releases its reserve first, so a
//     delete that shared its transaction with a write, or that needed the
//     reserve, then succeeds, and a write fails admission;
//   - admit refused a write for lack of room on the disk or under the bound
//     while the WAL is larger than that write: the WAL is checkpointed and
//     truncated first (a WAL that grew while the checkpointer lagged holds
//     disk space that the write may then have).
func (f *FS) retryFull(group []*request) {
	var again []*request
	release, truncate := false, false
	for _, r := range group {
		if r.err == nil || r.retried {
			continue
		}
		var se *spaceError
		switch {
		case full(r.err):
			release = true
		case errors.As(r.err, &se) && (se.by == LimitDisk || se.by == LimitDataDir) && f.pend == nil && !f.closed.Load():
			if fi, err := os.Stat(f.path + "-wal"); err != nil || fi.Size() < slackPages*int64(f.opts.PageSize) {
				continue
			}
			truncate = true
		default:
			continue
		}
		again = append(again, r)
	}
	if len(again) == 0 {
		return
	}
	if release {
		f.noteNoSpace(again[0].err) // and no more deferred commits meanwhile
		f.opts.Space.release()
		f.kickCheckpoint()
	}
	if truncate && f.pend == nil {
		if err := f.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil && !sqlite.IsBusy(err) {
			f.checkpointFull(err)
		}
		f.measure(f.w)
	}
	for _, r := range again {
		r.err, r.after, r.retried = nil, nil, true
		f.commitGroup([]*request{r})
	}
}

// checkpointFull reports (and logs) whether err is a checkpoint's failure on a
// full disk: the WAL keeps the changes, so nothing is lost, and the caller
// does not report it as an error.
func (f *FS) checkpointFull(err error) bool {
	if err == nil {
		return false
	}
	var sfs unix.Statfs_t
	if unix.Statfs(filepath.Dir(f.path), &sfs) != nil {
		return false
	}
	if int64(sfs.Bavail)*sfs.Bsize >= slackPages*int64(f.opts.PageSize) && !errors.Is(err, syscall.ENOSPC) {
		return false
	}
	f.log.Warn("checkpoint stopped by a full disk; the WAL keeps the changes", "store", f.path, "error", err)
	return true
}

// statfs builds Statfs's answer from the store's usage and its room on disk.
func (f *FS) statfs(used, inodes, room int64, roomBy string, sp spaceState) StatFS {
	free, by := max(f.quotaBytes()-used, 0), LimitQuota
	if room < free {
		free, by = room, roomBy
	}
	ffree := max(f.maxInodes()-inodes, 0)
	if free < slackPages*int64(f.opts.PageSize) {
		ffree = 0 // no room for another inode's rows
	}
	return StatFS{
		BlockSize: 512, Blocks: (used + free) / 512, BlocksFree: free / 512,
		Files: f.maxInodes(), FilesFree: ffree, NameMax: int64(f.opts.MaxNameLen),
		ChunkSize: f.chunkSize, ReadOnly: f.opts.ReadOnly,
		QuotaBytes: f.quotaBytes(), UsedBytes: used, InodesInUse: inodes,
		FreeBytes: free, LimitedBy: by,
		DiskBytes: sp.DiskTotal, DiskFreeBytes: sp.DiskAvail,
		ReserveBytes: sp.Reserve, ReserveHeld: sp.Held,
		DataDirBytes: sp.Used, DataDirLimit: sp.Limit,
	}
}

// What bounds StatFS.FreeBytes.
const (
	LimitQuota   = "quota"   // the store's QuotaBytes
	LimitDisk    = "disk"    // the filesystem holding the store
	LimitDataDir = "datadir" // the Space's bound on the data directory
)
