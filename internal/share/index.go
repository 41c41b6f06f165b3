package share

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
)

// The index: one table in DIR/index.db, marked with its own application id.
const (
	indexAppID   = 0x64736b73 // "dsks"
	indexSchemaV = 1
	indexSchema  = `CREATE TABLE IF NOT EXISTS shares (
	id           TEXT PRIMARY KEY,     -- 16 hex digits
	digest       BLOB NOT NULL UNIQUE, -- SHA-256 of the link's token
	workspace    TEXT NOT NULL,
	path         TEXT NOT NULL,
	size         INTEGER NOT NULL,
	sha256       TEXT NOT NULL,
	content_type TEXT NOT NULL,
	disposition  TEXT NOT NULL,
	created      INTEGER NOT NULL,     -- Unix nanoseconds
	expires      INTEGER NOT NULL,
	revoked      INTEGER,              -- NULL: not revoked
	remote       INTEGER NOT NULL,
	content      TEXT                  -- blob:SHA256 or s3:WS/ID; NULL once removed
) STRICT;
CREATE INDEX IF NOT EXISTS shares_ws ON shares(workspace);
CREATE INDEX IF NOT EXISTS shares_content ON shares(content) WHERE content IS NOT NULL;
CREATE INDEX IF NOT EXISTS shares_expires ON shares(expires);`
)

// readers is how many read connections a process keeps.
const readers = 4

// index is the SQLite index: one write connection behind a mutex, and up
// to readers read connections, opened when first needed (a worker that
// only makes shares never opens one).
type index struct {
	path string
	wmu  sync.Mutex
	w    *sqlite.Conn
	r    chan *sqlite.Conn // idle read connections
	sem  chan struct{}     // one token per read connection open or being opened

	closed atomic.Bool
}

func openIndex(p string) (*index, error) {
	w, err := sqlite.Open(p, false)
	if err != nil {
		return nil, err
	}
	idx := &index{path: p, w: w, r: make(chan *sqlite.Conn, readers), sem: make(chan struct{}, readers)}
	if err := idx.init(); err != nil {
		w.Close()
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return idx, nil
}

// reader returns an idle read connection, or opens one while fewer than
// readers are open, or waits for one.
func (idx *index) reader(ctx context.Context) (*sqlite.Conn, error) {
	select {
	case c := <-idx.r:
		return c, nil
	default:
	}
	select {
	case c := <-idx.r:
		return c, nil
	case idx.sem <- struct{}{}:
		c, err := sqlite.Open(idx.path, false)
		if err == nil {
			if err = c.Exec("PRAGMA busy_timeout=10000; PRAGMA query_only=1"); err != nil {
				c.Close()
			}
		}
		if err != nil {
			<-idx.sem
			return nil, fmt.Errorf("open share index: %w", err)
		}
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (idx *index) init() error {
	c := idx.w
	if err := c.Exec("PRAGMA busy_timeout=10000"); err != nil {
		return err
	}
	if err := c.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"); err != nil {
		return err
	}
	return c.Claim(sqlite.Schema{AppID: indexAppID, Version: indexSchemaV, SQL: indexSchema, What: "share index"})
}

// tx runs fn in a write transaction of the write connection (wmu held or
// not yet shared).
func (idx *index) tx(fn func() error) error { return idx.w.Tx(fn) }

func (idx *index) close() error {
	idx.closed.Store(true)
	var errs []error
	idx.wmu.Lock()
	if idx.w != nil {
		errs = append(errs, idx.w.Close())
		idx.w = nil
	}
	idx.wmu.Unlock()
	for {
		select {
		case c := <-idx.r:
			errs = append(errs, c.Close())
		default:
			return errors.Join(errs...)
		}
	}
}

// tx is a write transaction: what a Store method does inside it.
type tx struct {
	c     *sqlite.Conn
	after []func(context.Context) // run after a successful commit
}

// write runs fn in one write transaction (BEGIN IMMEDIATE: across
// processes, write transactions are serialised, so content is created and
// removed in a known order), then the after functions it queued.
func (idx *index) write(ctx context.Context, fn func(*tx) error) error {
	idx.wmu.Lock()
	if idx.w == nil {
		idx.wmu.Unlock()
		return ErrClosed
	}
	t := &tx{c: idx.w}
	err := idx.tx(func() error { return fn(t) })
	idx.wmu.Unlock()
	if err != nil {
		return err
	}
	for _, f := range t.after {
		f(ctx)
	}
	return nil
}

// read runs fn with a read connection.
func (idx *index) read(ctx context.Context, fn func(c *sqlite.Conn) error) error {
	if idx.closed.Load() {
		return ErrClosed
	}
	c, err := idx.reader(ctx)
	if err != nil {
		return err
	}
	defer func() { idx.r <- c }()
	return fn(c)
}

// columns are the columns scan reads, in order.
const columns = "id, workspace, path, size, sha256, content_type, disposition, created, expires, revoked, remote, content"

// row is a share's id and content key.
type row struct {
	id, content string
}

func scan(st *sqlite.Stmt) (Share, string) {
	sh := Share{
		ID: st.Text(0), Workspace: st.Text(1), Path: st.Text(2), Size: st.Int64(3), SHA256: st.Text(4),
		ContentType: st.Text(5), Disposition: st.Text(6), Created: time.Unix(0, st.Int64(7)), Expires: time.Unix(0, st.Int64(8)),
		Remote: st.Int64(10) != 0,
	}
	if !st.IsNull(9) {
		sh.Revoked = time.Unix(0, st.Int64(9))
	}
	var content string
	if !st.IsNull(11) {
		content = st.Text(11)
	}
	return sh, content
}

// one runs a query expected to return at most one share.
func one(c *sqlite.Conn, sql string, args ...any) (Share, string, error) {
	var sh Share
	var content string
	found := false
	err := c.Query(sql, args, func(st *sqlite.Stmt) { sh, content = scan(st); found = true })
	if err != nil {
		return Share{}, "", fmt.Errorf("read share index: %w", err)
	}
	if !found {
		return Share{}, "", ErrNotFound
	}
	return sh, content, nil
}

func (idx *index) byDigest(ctx context.Context, digest []byte) (sh Share, content string, err error) {
	err = idx.read(ctx, func(c *sqlite.Conn) error {
		sh, content, err = one(c, "SELECT "+columns+" FROM shares WHERE digest = ?", digest)
		return err
	})
	return sh, content, err
}

func (idx *index) byID(ctx context.Context, ws, id string) (sh Share, content string, err error) {
	err = idx.read(ctx, func(c *sqlite.Conn) error {
		sh, content, err = one(c, "SELECT "+columns+" FROM shares WHERE id = ? AND workspace = ?", id, ws)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		err = fmt.Errorf("%w: %s in workspace %s", ErrNotFound, id, ws)
	}
	return sh, content, err
}

func (idx *index) list(ctx context.Context, ws, after string, limit int) (out []Share, more bool, err error) {
	err = idx.read(ctx, func(c *sqlite.Conn) error {
		out, more = nil, false
		return c.Query("SELECT "+columns+" FROM shares WHERE workspace = ? AND rowid > coalesce((SELECT rowid FROM shares WHERE id = ? AND workspace = ?), 0) ORDER BY rowid LIMIT ?",
			[]any{ws, after, ws, limit + 1}, func(st *sqlite.Stmt) {
				if len(out) == limit {
					more = true
					return
				}
				sh, _ := scan(st)
				out = append(out, sh)
			})
	})
	if err != nil {
		return nil, false, fmt.Errorf("list shares: %w", err)
	}
	return out, more, nil
}

func (t *tx) byID(ws, id string) (Share, string, error) {
	sh, content, err := one(t.c, "SELECT "+columns+" FROM shares WHERE id = ? AND workspace = ?", id, ws)
	if errors.Is(err, ErrNotFound) {
		err = fmt.Errorf("%w: %s in workspace %s", ErrNotFound, id, ws)
	}
	return sh, content, err
}

func (t *tx) insert(sh Share, digest []byte, content string) error {
	st, err := t.c.Prep("INSERT INTO shares(id, digest, workspace, path, size, sha256, content_type, disposition, created, expires, revoked, remote, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)")
	if err != nil {
		return err
	}
	return st.Exec(sh.ID, digest, sh.Workspace, sh.Path, sh.Size, sh.SHA256, sh.ContentType, sh.Disposition,
		sh.Created.UnixNano(), sh.Expires.UnixNano(), sh.Remote, content)
}

// counts returns the workspace's shares, its live ones and their bytes.
func (t *tx) counts(ws string, now time.Time) (total, live int, liveBytes int64, err error) {
	n := now.UnixNano()
	err = t.c.Query("SELECT count(*), count(CASE WHEN revoked IS NULL AND expires > ? THEN 1 END), coalesce(sum(CASE WHEN revoked IS NULL AND expires > ? THEN size END), 0) FROM shares WHERE workspace = ?",
		[]any{n, n, ws}, func(st *sqlite.Stmt) { total, live, liveBytes = int(st.Int64(0)), int(st.Int64(1)), st.Int64(2) })
	return total, live, liveBytes, err
}

func (t *tx) rows(sql string, args ...any) ([]row, error) {
	var out []row
	err := t.c.Query(sql, args, func(st *sqlite.Stmt) {
		r := row{id: st.Text(0)}
		if !st.IsNull(1) {
			r.content = st.Text(1)
		}
		out = append(out, r)
	})
	return out, err
}

// ended returns up to n ended shares of ws, those that ended first first.
func (t *tx) ended(ws string, now time.Time, n int) ([]row, error) {
	return t.rows("SELECT id, content FROM shares WHERE workspace = ? AND (revoked IS NOT NULL OR expires <= ?) ORDER BY min(coalesce(revoked, expires), expires) LIMIT ?", ws, now.UnixNano(), n)
}

func (t *tx) rowsOf(ws string, n int) ([]row, error) {
	return t.rows("SELECT id, content FROM shares WHERE workspace = ? LIMIT ?", ws, n)
}

func (t *tx) endedWithContent(now time.Time, n int) ([]row, error) {
	return t.rows("SELECT id, content FROM shares WHERE content IS NOT NULL AND (revoked IS NOT NULL OR expires <= ?) LIMIT ?", now.UnixNano(), n)
}

func (t *tx) endedBefore(cut time.Time, n int) ([]row, error) {
	c := cut.UnixNano()
	return t.rows("SELECT id, content FROM shares WHERE revoked <= ? OR expires <= ? LIMIT ?", c, c, n)
}

func (t *tx) revoke(id string, now time.Time) error {
	st, err := t.c.Prep("UPDATE shares SET revoked = ? WHERE id = ?")
	if err != nil {
		return err
	}
	return st.Exec(now.UnixNano(), id)
}

func (t *tx) clearContent(id string) error {
	st, err := t.c.Prep("UPDATE shares SET content = NULL WHERE id = ?")
	if err != nil {
		return err
	}
	return st.Exec(id)
}

// contentHeld reports whether a share still holds content key.
func (t *tx) contentHeld(key string) (bool, error) {
	held := false
	err := t.c.Query("SELECT 1 FROM shares WHERE content = ? LIMIT 1", []any{key}, func(*sqlite.Stmt) { held = true })
	return held, err
}

func (t *tx) deleteRows(rows []row) error {
	st, err := t.c.Prep("DELETE FROM shares WHERE id = ?")
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := st.Exec(r.id); err != nil {
			return err
		}
	}
	return nil
}
