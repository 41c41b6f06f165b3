package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
)

// DefaultRetention is how long records are kept (Options.Retention).
const DefaultRetention = 90 * 24 * time.Hour

// FileName is the journal's file in the data directory.
const FileName = "audit.db"

const (
	appID   = 0x64736b61 // "dska"
	schemaV = 1
	schema  = `CREATE TABLE IF NOT EXISTS records (
	id        INTEGER PRIMARY KEY,
	workspace TEXT NOT NULL,
	n         INTEGER NOT NULL,
	time      INTEGER NOT NULL, -- Unix microseconds
	kind      TEXT NOT NULL,
	action    TEXT NOT NULL,
	actor     TEXT NOT NULL,
	session   TEXT NOT NULL,
	body      TEXT NOT NULL,    -- the record's canonical JSON, without hash
	hash      TEXT NOT NULL,
	UNIQUE (workspace, n)
) STRICT;
CREATE INDEX IF NOT EXISTS records_time ON records(time);
CREATE TABLE IF NOT EXISTS paths (
	id   INTEGER NOT NULL,      -- records.id
	path TEXT NOT NULL,
	PRIMARY KEY (path, id)
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chains (
	workspace TEXT PRIMARY KEY,
	n         INTEGER NOT NULL, -- the newest record's n
	head      TEXT NOT NULL,    -- the newest record's hash
	base_n    INTEGER NOT NULL, -- the newest record removed by retention (0: none)
	base      TEXT NOT NULL     -- its hash: the first kept record's prev
) STRICT;`
)

// Options configure a Store.
type Options struct {
	// Retention: records older than this are removed (Trim, and hourly by
	// the store itself). Default DefaultRetention (90 days); negative: kept
	// forever.
	Retention time.Duration
	// Redact removes secret values from arguments and errors (nil: only the
	// arguments named like credentials are removed).
	Redact Redactor
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Store is the audit journal: one SQLite file per host (FileName in the data
// directory), holding one hash chain per workspace and one for the host.
// Safe for concurrent use, and for use by several processes at once (each
// append is one write transaction).
type Store struct {
	path string
	opts Options

	mu     sync.Mutex // the write connection
	w      *sqlite.Conn
	rmu    sync.Mutex
	r      *sqlite.Conn // the read connection
	closed bool

	notify chan struct{} // closed and replaced at each append (Follow)
	nmu    sync.Mutex

	stop chan struct{}
	wg   sync.WaitGroup
}

// Open opens (creating) the journal at path.
func Open(path string, opts Options) (*Store, error) {
	if opts.Retention == 0 {
		opts.Retention = DefaultRetention
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	w, err := sqlite.Open(path, false)
	if err != nil {
		return nil, fmt.Errorf("open audit journal: %w", err)
	}
	if err := w.Exec("PRAGMA busy_timeout=10000; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=ON"); err != nil {
		w.Close()
		return nil, fmt.Errorf("open audit journal: %w", err)
	}
	if err := w.Claim(sqlite.Schema{AppID: appID, Version: schemaV, SQL: schema, What: "audit journal"}); err != nil {
		w.Close()
		return nil, fmt.Errorf("open audit journal %s: %w", path, err)
	}
	r, err := sqlite.Open(path, false)
	if err == nil {
		if err = r.Exec("PRAGMA busy_timeout=10000; PRAGMA query_only=1"); err != nil {
			r.Close()
		}
	}
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open audit journal: %w", err)
	}
	s := &Store{path: path, opts: opts, w: w, r: r, notify: make(chan struct{}), stop: make(chan struct{})}
	if opts.Retention > 0 {
		if _, err := s.Trim(context.Background(), opts.Now().Add(-opts.Retention)); err != nil {
			s.Close()
			return nil, err
		}
		s.wg.Add(1)
		go s.trimLoop()
	}
	return s, nil
}

func (s *Store) trimLoop() {
	defer s.wg.Done()
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.Trim(context.Background(), s.opts.Now().Add(-s.opts.Retention))
		}
	}
}

// Path is the journal's file.
func (s *Store) Path() string { return s.path }

// Close closes the journal.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.stop)
	s.mu.Unlock()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rmu.Lock()
	defer s.rmu.Unlock()
	return errors.Join(s.w.Close(), s.r.Close())
}

// ErrClosed is returned by a closed store.
var ErrClosed = errors.New("audit journal closed")

// body is the canonical JSON that a record's hash covers: the record with
// Hash and ID empty (ID is the store's row number, not part of the chain).
func body(r *Record) ([]byte, error) {
	c := *r
	c.Hash, c.ID = "", 0
	return json.Marshal(&c)
}

func chainHash(prev string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(prev))
	h.Write([]byte{'\n'})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// Append stores r at the end of its workspace's chain, filling ID, N, Prev
// and Hash (and Time, if zero). Arguments and errors are bounded and
// redacted first (see the Max constants and Options.Redact).
func (s *Store) Append(ctx context.Context, r *Record) error {
	if r.Time.IsZero() {
		r.Time = s.opts.Now()
	}
	normalize(r, s.opts.Redact)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	err := s.w.Tx(func() error {
		var n int64
		prev := ""
		found := false
		if err := s.w.Query("SELECT n, head FROM chains WHERE workspace = ?", []any{r.Workspace}, func(st *sqlite.Stmt) {
			n, prev, found = st.Int64(0), st.Text(1), true
		}); err != nil {
			return err
		}
		r.N, r.Prev = n+1, prev
		b, err := body(r)
		if err != nil {
			return err
		}
		r.Hash = chainHash(prev, b)
		ins, err := s.w.Prep("INSERT INTO records(workspace, n, time, kind, action, actor, session, body, hash) VALUES (?,?,?,?,?,?,?,?,?)")
		if err != nil {
			return err
		}
		if err := ins.Exec(r.Workspace, r.N, r.Time.UnixMicro(), r.Kind, r.Action, r.Actor, r.Labels.Session, string(b), r.Hash); err != nil {
			return err
		}
		r.ID = s.w.LastInsertRowID()
		if len(r.Paths) > 0 {
			pi, err := s.w.Prep("INSERT OR IGNORE INTO paths(id, path) VALUES (?,?)")
			if err != nil {
				return err
			}
			for _, p := range r.Paths {
				if err := pi.Exec(r.ID, p); err != nil {
					return err
				}
			}
		}
		if found {
			up, err := s.w.Prep("UPDATE chains SET n = ?, head = ? WHERE workspace = ?")
			if err != nil {
				return err
			}
			return up.Exec(r.N, r.Hash, r.Workspace)
		}
		up, err := s.w.Prep("INSERT INTO chains(workspace, n, head, base_n, base) VALUES (?,?,?,0,'')")
		if err != nil {
			return err
		}
		return up.Exec(r.Workspace, r.N, r.Hash)
	})
	if err != nil {
		return fmt.Errorf("append audit record: %w", err)
	}
	s.nmu.Lock()
	close(s.notify)
	s.notify = make(chan struct{})
	s.nmu.Unlock()
	return nil
}

// changed returns a channel closed at the next append by this process.
func (s *Store) changed() <-chan struct{} {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	return s.notify
}

// Trim removes the records older than before, keeping each chain
// verifiable: the chain remembers the hash of its newest removed record.
// It returns how many records it removed.
func (s *Store) Trim(ctx context.Context, before time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, ErrClosed
	}
	var removed int64
	err := s.w.Tx(func() error {
		type base struct {
			ws   string
			n    int64
			hash string
		}
		var bases []base
		cut := before.UnixMicro()
		if err := s.w.Query(`SELECT workspace, n, hash FROM records r WHERE time < ?1 AND n = (SELECT max(n) FROM records x WHERE x.workspace = r.workspace AND x.time < ?1)`,
			[]any{cut}, func(st *sqlite.Stmt) { bases = append(bases, base{st.Text(0), st.Int64(1), st.Text(2)}) }); err != nil {
			return err
		}
		for _, b := range bases {
			del, err := s.w.Prep("DELETE FROM paths WHERE id IN (SELECT id FROM records WHERE workspace = ? AND n <= ?)")
			if err != nil {
				return err
			}
			if err := del.Exec(b.ws, b.n); err != nil {
				return err
			}
			dr, err := s.w.Prep("DELETE FROM records WHERE workspace = ? AND n <= ?")
			if err != nil {
				return err
			}
			if err := dr.Exec(b.ws, b.n); err != nil {
				return err
			}
			removed += s.w.Changes()
			up, err := s.w.Prep("UPDATE chains SET base_n = ?, base = ? WHERE workspace = ?")
			if err != nil {
				return err
			}
			if err := up.Exec(b.n, b.hash, b.ws); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("trim audit journal: %w", err)
	}
	return removed, nil
}

// DeleteWorkspace removes every record of workspace ws and its chain, then
// checkpoints the journal's write-ahead log, so that (with secure_delete)
// no byte of them remains in the files.
func (s *Store) DeleteWorkspace(ctx context.Context, ws string) error {
	if ws == "" {
		return errors.New("delete audit records: the host chain is not a workspace's")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	err := s.w.Tx(func() error {
		for _, q := range []string{
			"DELETE FROM paths WHERE id IN (SELECT id FROM records WHERE workspace = ?)",
			"DELETE FROM records WHERE workspace = ?",
			"DELETE FROM chains WHERE workspace = ?",
		} {
			st, err := s.w.Prep(q)
			if err != nil {
				return err
			}
			if err := st.Exec(ws); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = s.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	}
	if err != nil {
		return fmt.Errorf("delete audit records of %s: %w", ws, err)
	}
	return nil
}
