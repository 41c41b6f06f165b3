package vfs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
)

// RootIno is the inode number of the root directory.
const RootIno = 1

// FS is one workspace filesystem stored in one SQLite database file.
// It is safe for concurrent use.
//
// An FS is a handle on the store: WithCommitDelay returns another handle on
// the same store whose mutations may return before they are durable. Every
// handle sees the same files; closing one closes the store.
type FS struct {
	*core
	delay time.Duration // > 0: mutations may wait this long for their commit (WithCommitDelay)
	// lazyClose is set on a handle from WithBatching: a File's Close defers
	// its data's commit by delay too.
	lazyClose bool
}

// core is the state of an open store, shared by its handles.
type core struct {
	base      *FS // the handle Open returned (Base)
	opts      Options
	path      string
	chunkSize int64
	inlineMax int64 // regular files up to this size are held inline (0: none); fixed at creation
	// incremental is set when the store is in incremental auto-vacuum mode
	// (reclaim.go); written under wmu (Open, Compact), read by the checkpointer.
	incremental atomic.Bool
	lockFile    *os.File
	log         *slog.Logger
	sp          roomState // disk space (room.go)

	// wmu serialises write transactions on w. While it is held, the committed
	// database state does not change underneath the holder.
	wmu sync.Mutex
	w   *sqlite.Conn
	// Guarded by wmu:
	nextIno uint64
	seq     uint64 // newest journal sequence number
	used    int64  // unique chunk bytes stored
	inodes  int64  // live inodes
	minSeq  uint64 // oldest retained journal sequence
	commits uint64 // commits so far (paces the checkpointer)
	walGrow int64  // content bytes committed since the checkpointer was last kicked

	bufs sync.Pool // chunk-sized buffers (*[]byte) for content (getBuf)

	slots *slotFile // the chunk file (slots.go)

	readers chan *sqlite.Conn
	nreader atomic.Int32
	rmu     sync.Mutex // guards creating readers

	cache *cache

	omu        sync.Mutex
	opens      map[uint64]*openInode // inodes with open handles
	dirtyTotal atomic.Int64          // unflushed bytes of all open inodes
	usedPub    atomic.Int64          // used as of the last commit (read without wmu: writeLocked)
	quota      atomic.Int64          // QuotaBytes in force (limits.go)
	inodeMax   atomic.Int64          // MaxInodes in force (limits.go)

	amu    sync.Mutex
	atimes map[uint64]time.Time // access times waiting for the next commit

	// Deferred commits (defer.go). pend, pendTimer and pendDeadline are
	// guarded by wmu; view and lostErr by vmu.
	pend         *tx // the open transaction of deferred requests
	pendTimer    *time.Timer
	pendDeadline time.Time
	pendOn       atomic.Bool // a transaction is pending (view is set)
	vmu          sync.RWMutex
	view         *pendView
	lostErr      error // a pending transaction's commit failed after its callers were answered

	dmu       sync.Mutex
	drops     map[uint64]struct{} // unlinked inodes closed for good, deleted by the next commit
	dropTimer *time.Timer         // commits drops that found no commit to ride along with

	gmu     sync.Mutex // guards queue and leading (group commit)
	queue   []*request
	leading bool

	ckptKick   chan struct{}
	ckptDone   chan struct{}
	ckptSettle chan chan struct{} // Settle's requests

	tail    journalTail   // the newest changes, for followers
	seqPub  atomic.Uint64 // newest committed seq, published after commit
	notify  chan struct{} // closed and replaced on every commit (guarded by nmu)
	nmu     sync.Mutex
	closing atomic.Bool // Close has begun
	closed  atomic.Bool // no more commits
	closeCh chan struct{}

	attached sync.Map // Attached's values, by key
}

// Open opens (creating if needed, unless opts.ReadOnly) the store at path.
// Only one process may have a store open at a time (ErrLocked otherwise).
func Open(ctx context.Context, path string, opts Options) (*FS, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	f := &FS{core: &core{
		opts:    opts,
		path:    abs,
		cache:   newCache(opts.CacheEntries),
		opens:   make(map[uint64]*openInode),
		notify:  make(chan struct{}),
		closeCh: make(chan struct{}),
		readers: make(chan *sqlite.Conn, opts.Readers),
		log:     opts.Logger,
	}}
	f.base = f
	f.quota.Store(opts.QuotaBytes)
	f.inodeMax.Store(opts.MaxInodes)
	if f.log == nil {
		f.log = slog.Default()
	}
	if err := f.lock(); err != nil {
		return nil, err
	}
	f.measureBase()
	if err := f.openWriter(); err != nil {
		f.unlock()
		return nil, err
	}
	if !opts.ReadOnly {
		f.ckptKick = make(chan struct{}, 1)
		f.ckptDone = make(chan struct{})
		f.ckptSettle = make(chan chan struct{})
		go f.checkpointer()
	}
	return f, nil
}

// checkpointer copies WAL frames into the database file in the background so
// commits never pay for a checkpoint (and its fsync). A commit kicks it; it runs a
// PASSIVE checkpoint (which never blocks readers or the writer) once the WAL has
// grown past CheckpointBytes, and a blocking TRUNCATE one if it grows past four
// times that (readers pinning old frames can keep PASSIVE from finishing). Then
// it reclaims free pages (reclaim). A settle request (tests: Settle) runs a
// round at once and is answered when nothing is left to do.
func (f *FS) checkpointer() {
	defer close(f.ckptDone)
	var c *sqlite.Conn
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	for {
		var settled chan struct{}
		select {
		case <-f.closeCh:
			return
		case <-f.ckptKick:
		case settled = <-f.ckptSettle:
		}
		if c == nil {
			var err error
			if c, err = sqlite.Open(f.path, false); err != nil {
				c = nil
				if settled != nil {
					close(settled)
				}
				continue
			}
			c.Exec(fmt.Sprintf("PRAGMA busy_timeout=100; PRAGMA wal_autocheckpoint=0; PRAGMA journal_size_limit=%d", f.opts.CheckpointBytes))
		}
		for round := 0; ; round++ {
			more := f.checkpointRound(c, settled != nil)
			if !more || round >= settleRounds {
				break
			}
			if settled == nil {
				f.kickCheckpoint() // the rest after whatever queued meanwhile
				break
			}
		}
		if settled != nil {
			close(settled)
		}
	}
}

// settleRounds bounds the rounds one settle request runs.
const settleRounds = 1 << 12

// checkpointRound checkpoints the WAL if it has grown (always, with force)
// and reclaims free pages; it reports whether free pages are left to reclaim.
func (f *FS) checkpointRound(c *sqlite.Conn, force bool) (more bool) {
	fi, err := os.Stat(f.path + "-wal")
	wal := int64(0)
	if err == nil {
		wal = fi.Size()
	}
	if wal >= f.opts.CheckpointBytes || force && wal > 0 {
		f.checkpointFull(c.Exec("PRAGMA wal_checkpoint(PASSIVE)"))
		if wal > 4*f.opts.CheckpointBytes {
			f.wmu.Lock()
			if !f.closed.Load() && f.pend == nil {
				f.checkpointFull(f.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"))
			}
			f.wmu.Unlock()
		}
	}
	f.walSynced()
	more = f.reclaim(c)
	f.measure(c)
	return more
}

func (f *FS) kickCheckpoint() {
	select {
	case f.ckptKick <- struct{}{}:
	default:
	}
}

func (f *FS) lock() error {
	flag := os.O_RDWR | os.O_CREATE
	how := syscall.LOCK_EX
	if f.opts.ReadOnly {
		flag = os.O_RDONLY
		how = syscall.LOCK_SH
	}
	lf, err := os.OpenFile(f.path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	// flock locks are independent of SQLite's POSIX record locks on Linux.
	if err := syscall.Flock(int(lf.Fd()), how|syscall.LOCK_NB); err != nil {
		lf.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("open store %s: %w", f.path, ErrLocked)
		}
		return fmt.Errorf("open store: lock: %w", err)
	}
	f.lockFile = lf
	return nil
}

func (f *FS) unlock() {
	if f.lockFile != nil {
		f.lockFile.Close()
		f.lockFile = nil
	}
}

func (f *FS) openWriter() error {
	c, err := sqlite.Open(f.path, f.opts.ReadOnly)
	if err != nil {
		return err
	}
	if err := f.initDB(c); err != nil {
		c.Close()
		f.slots.close()
		return fmt.Errorf("open store %s: %w", f.path, err)
	}
	f.w = c
	return nil
}

func (f *FS) initDB(c *sqlite.Conn) error {
	if !f.opts.ReadOnly {
		if err := c.Exec(fmt.Sprintf("PRAGMA page_size=%d", f.opts.PageSize)); err != nil {
			return err
		}
		// Incremental auto-vacuum (reclaim.go): it takes effect only in a
		// store that has no tables yet, that is a new one.
		if err := c.Exec("PRAGMA auto_vacuum=INCREMENTAL"); err != nil {
			return err
		}
		if err := c.Exec("PRAGMA journal_mode=WAL"); err != nil {
			return err
		}
	}
	// WAL with synchronous=NORMAL: a commit is a write(2) into the WAL, which
	// survives kill -9 of the process; fsync happens at checkpoints.
	// journal_size_limit: a WAL that restarts after a checkpoint is cut back to
	// CheckpointBytes, so that a burst does not keep its disk space.
	// secure_delete=FAST: a deleted row's bytes are zeroed in its b-tree
	// page at no extra I/O; pages that become free keep theirs until
	// incremental auto-vacuum (reclaim.go) cuts them off the file (ON would
	// rewrite every freed page: a second write of all deleted content).
	if err := c.Exec(fmt.Sprintf("PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000; PRAGMA cache_size=-32768; PRAGMA foreign_keys=OFF; PRAGMA secure_delete=FAST; PRAGMA wal_autocheckpoint=0; PRAGMA journal_size_limit=%d", f.opts.CheckpointBytes)); err != nil {
		return err
	}
	ver, err := queryInt(c, "PRAGMA user_version")
	if err != nil {
		return err
	}
	switch {
	case ver == 0 && f.opts.ReadOnly:
		return fmt.Errorf("not a desk store (empty or uninitialised database)")
	case ver == 0:
		if err := f.createSchema(c); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	case ver > schemaVersion:
		return fmt.Errorf("store schema version %d is newer than this program's %d", ver, schemaVersion)
	case ver < schemaVersion && f.opts.ReadOnly:
		return fmt.Errorf("store schema version %d is older than this program's %d: open it writable once to upgrade it", ver, schemaVersion)
	case ver < schemaVersion:
		if err := migrate(c, ver); err != nil {
			return err
		}
	}
	cs, err := queryInt(c, "SELECT value FROM meta WHERE key='chunk_size'")
	if err != nil {
		return fmt.Errorf("read chunk size: %w", err)
	}
	f.chunkSize = cs
	if f.inlineMax, err = queryInt(c, "SELECT coalesce((SELECT value FROM meta WHERE key='inline_max'), 0)"); err != nil {
		return fmt.Errorf("read inline size: %w", err)
	}
	f.inlineMax = min(max(f.inlineMax, 0), cs)
	av, err := queryInt(c, "PRAGMA auto_vacuum")
	if err != nil {
		return fmt.Errorf("read auto_vacuum: %w", err)
	}
	f.incremental.Store(av == 2)
	if !f.opts.ReadOnly {
		if err := f.recover(c); err != nil {
			return fmt.Errorf("recover: %w", err)
		}
	}
	if f.slots, err = openSlots(c, f.path, f.chunkSize, f.opts.ReadOnly); err != nil {
		return err
	}
	if f.nextIno, err = queryUint(c, "SELECT coalesce(max(ino),0)+1 FROM inodes"); err != nil {
		return err
	}
	if f.seq, err = queryUint(c, "SELECT coalesce(max(seq),0) FROM journal"); err != nil {
		return err
	}
	if f.minSeq, err = queryUint(c, "SELECT coalesce(min(seq),0) FROM journal"); err != nil {
		return err
	}
	if f.used, err = queryInt(c, "SELECT (SELECT coalesce(sum(size),0) FROM chunks) + (SELECT coalesce(sum(length(data)),0) FROM inodes)"); err != nil {
		return err
	}
	f.usedPub.Store(f.used)
	if f.inodes, err = queryInt(c, "SELECT count(*) FROM inodes"); err != nil {
		return err
	}
	f.seqPub.Store(f.seq)
	f.tail.minSeq, f.tail.seq = f.minSeq, f.seq
	return nil
}

func (f *FS) createSchema(c *sqlite.Conn) error {
	if err := c.Exec("BEGIN IMMEDIATE"); err != nil {
		return err
	}
	err := func() error {
		if err := c.Exec(schemaSQL); err != nil {
			return err
		}
		now := f.opts.Now().UnixNano()
		st, err := c.Prep("INSERT INTO meta(key, value) VALUES (?, ?)")
		if err != nil {
			return err
		}
		if err := st.Exec("chunk_size", f.opts.ChunkSize); err != nil {
			return err
		}
		if err := st.Exec("created", now); err != nil {
			return err
		}
		if err := st.Exec("inline_max", max(f.opts.InlineMax, 0)); err != nil {
			return err
		}
		root, err := c.Prep(`INSERT INTO inodes(ino, gen, mode, nlink, uid, gid, size, blocks,
			atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns, btime, btime_ns)
			VALUES (1, 1, ?1, 2, 0, 0, 4096, 0, ?2, ?3, ?2, ?3, ?2, ?3, ?2, ?3)`)
		if err != nil {
			return err
		}
		if err := root.Exec(S_IFDIR|0o755, now/1e9, now%1e9); err != nil {
			return err
		}
		return c.Exec(fmt.Sprintf("PRAGMA user_version=%d", schemaVersion))
	}()
	if err != nil {
		c.Exec("ROLLBACK")
		return err
	}
	return c.Exec("COMMIT")
}

// migrate upgrades a store from schema version ver to schemaVersion, one
// migration per transaction (see migrations).
func migrate(c *sqlite.Conn, ver int64) error {
	for ; ver < schemaVersion; ver++ {
		q, ok := migrations[ver]
		if !ok {
			return fmt.Errorf("migrate store: no migration from schema version %d", ver)
		}
		if err := c.Exec("BEGIN IMMEDIATE"); err != nil {
			return fmt.Errorf("migrate store from version %d: %w", ver, err)
		}
		if err := c.Exec(fmt.Sprintf("%s; PRAGMA user_version=%d", q, ver+1)); err != nil {
			c.Exec("ROLLBACK")
			return fmt.Errorf("migrate store from version %d: %w", ver, err)
		}
		if err := c.Exec("COMMIT"); err != nil {
			c.Exec("ROLLBACK")
			return fmt.Errorf("migrate store from version %d: %w", ver, err)
		}
	}
	return nil
}

// recover removes what a crash can leave behind: inodes that were unlinked while
// open (nlink 0) and, defensively, unreferenced chunks.
func (f *FS) recover(c *sqlite.Conn) error {
	n, err := queryInt(c, "SELECT count(*) FROM inodes WHERE nlink=0")
	if err != nil || n == 0 {
		return err
	}
	if err := c.Exec("BEGIN IMMEDIATE"); err != nil {
		return err
	}
	err = func() error {
		for _, q := range []string{
			`UPDATE chunks SET refs = refs - (SELECT count(*) FROM file_chunks fc
				JOIN inodes i ON i.ino = fc.ino WHERE i.nlink = 0 AND fc.chunk = chunks.id)
			 WHERE id IN (SELECT fc.chunk FROM file_chunks fc JOIN inodes i ON i.ino = fc.ino WHERE i.nlink = 0)`,
			`DELETE FROM file_chunks WHERE ino IN (SELECT ino FROM inodes WHERE nlink = 0)`,
			`DELETE FROM xattrs WHERE ino IN (SELECT ino FROM inodes WHERE nlink = 0)`,
			`DELETE FROM inodes WHERE nlink = 0`,
			`DELETE FROM chunk_data WHERE id IN (SELECT id FROM chunks WHERE refs <= 0)`,
			`DELETE FROM chunks WHERE refs <= 0`,
		} {
			if err := c.Exec(q); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		c.Exec("ROLLBACK")
		return err
	}
	return c.Exec("COMMIT")
}

// Path is the database file's path.
func (f *FS) Path() string { return f.path }

// ChunkSize is the store's content chunk size in bytes.
func (f *FS) ChunkSize() int { return int(f.chunkSize) }

// Options returns the options in effect (defaults filled in; QuotaBytes
// and MaxInodes as SetLimits last set them).
func (f *FS) Options() Options {
	o := f.opts
	o.QuotaBytes, o.MaxInodes = f.quotaBytes(), f.maxInodes()
	return o
}

// Close flushes open files, checkpoints the WAL and closes the store. Handles
// still open are flushed and become unusable.
func (f *FS) Close() error {
	if f.closing.Swap(true) {
		return nil
	}
	var errs []error
	f.omu.Lock()
	opens := make([]*openInode, 0, len(f.opens))
	for _, o := range f.opens {
		opens = append(opens, o)
	}
	f.omu.Unlock()
	for _, o := range opens {
		o.mu.Lock()
		if err := f.flushLocked(context.Background(), o, -1); err != nil {
			errs = append(errs, err)
		}
		o.mu.Unlock()
	}
	// Store deferred access times and changes, wait for queued commits, then
	// refuse new ones.
	if !f.opts.ReadOnly {
		f.amu.Lock()
		pending := len(f.atimes) > 0 || f.pendOn.Load()
		f.amu.Unlock()
		if pending {
			if err := f.commitNow(context.Background(), "close"); err != nil {
				errs = append(errs, err)
			}
		}
	}
	f.dmu.Lock()
	if f.dropTimer != nil {
		f.dropTimer.Stop()
	}
	f.dmu.Unlock()
	f.wmu.Lock()
	if f.pend != nil {
		// A deferred change that arrived after the commit above.
		if err := f.commitTx(f.pend); err != nil {
			errs = append(errs, err)
		}
	}
	if f.pendTimer != nil {
		f.pendTimer.Stop()
	}
	f.closed.Store(true)
	// Unlinked-but-open inodes (and pending drops) are removed now rather than
	// at the next open.
	if !f.opts.ReadOnly {
		if err := f.recover(f.w); err != nil {
			errs = append(errs, err)
		}
		if err := f.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil && !sqlite.IsBusy(err) && !f.checkpointFull(err) {
			errs = append(errs, err)
		}
	}
	close(f.closeCh)
	f.wmu.Unlock()
	if f.ckptDone != nil {
		<-f.ckptDone
	}
	// Wait for the read connections without holding wmu: a holder of one may
	// be waiting for wmu (Check), and a reader never waits for a reader.
	f.rmu.Lock()
	n := int(f.nreader.Load())
	f.rmu.Unlock()
	for i := 0; i < n; i++ {
		c := <-f.readers
		errs = append(errs, c.Close())
	}
	f.wmu.Lock()
	if err := f.w.Close(); err != nil && !f.checkpointFull(err) {
		errs = append(errs, err)
	}
	f.wmu.Unlock()
	if err := f.slots.close(); err != nil {
		errs = append(errs, err)
	}
	f.measure(nil)
	f.unlock()
	f.nmu.Lock()
	close(f.notify)
	f.nmu.Unlock()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// reader borrows a read connection; give it back with putReader. Deferred
// changes are committed first (with ctx), so the connection sees everything
// applied.
func (f *FS) reader(ctx context.Context) (*sqlite.Conn, error) {
	if f.pendOn.Load() {
		if err := f.commitNow(ctx, "commit"); err != nil {
			return nil, err
		}
	}
	return f.readerRaw()
}

// readerRaw is reader without the commit, for reads that know the pending
// transaction did not change what they read (see defer.go).
func (f *FS) readerRaw() (*sqlite.Conn, error) {
	select {
	case c := <-f.readers:
		return c, nil
	default:
	}
	f.rmu.Lock()
	if f.closed.Load() {
		f.rmu.Unlock()
		return nil, ErrClosed
	}
	if int(f.nreader.Load()) < f.opts.Readers {
		c, err := sqlite.Open(f.path, true)
		if err == nil {
			err = c.Exec("PRAGMA busy_timeout=5000; PRAGMA cache_size=-16384; PRAGMA query_only=1")
		}
		if err != nil {
			f.rmu.Unlock()
			return nil, err
		}
		f.nreader.Add(1)
		f.rmu.Unlock()
		return c, nil
	}
	f.rmu.Unlock()
	select {
	case c := <-f.readers:
		return c, nil
	case <-f.closeCh:
		return nil, ErrClosed
	}
}

func (f *FS) putReader(c *sqlite.Conn) { f.readers <- c }

func queryInt(c *sqlite.Conn, q string, args ...any) (int64, error) {
	st, err := c.Prep(q)
	if err != nil {
		return 0, err
	}
	defer st.Reset()
	if err := st.Bind(args...); err != nil {
		return 0, err
	}
	if !st.Step() {
		if err := st.Err(); err != nil {
			return 0, err
		}
		return 0, nil
	}
	return st.Int64(0), nil
}

func queryUint(c *sqlite.Conn, q string, args ...any) (uint64, error) {
	n, err := queryInt(c, q, args...)
	return uint64(n), err
}

// queryRaw is queryRows without the commit of deferred changes (readerRaw),
// for reads that know they do not change what q reads.
func (f *FS) queryRaw(q string, args []any, row func(st *sqlite.Stmt)) error {
	c, err := f.readerRaw()
	if err != nil {
		return err
	}
	defer f.putReader(c)
	return c.Query(q, args, row)
}

// queryRows runs q with args on a read connection and calls row for each row.
func (f *FS) queryRows(ctx context.Context, q string, args []any, row func(st *sqlite.Stmt)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c, err := f.reader(ctx)
	if err != nil {
		return err
	}
	defer f.putReader(c)
	return c.Query(q, args, row)
}
