package auth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"

	"github.com/desk-dev/desk/internal/sqlite"
)

// The token table, the whole schema of <data>/host.db. The file is marked
// with its own application id, so that no other SQLite file is taken for it.
const (
	tokenAppID    = 0x64736b74 // "dskt"
	tokenSchemaV  = 1
	tokenSchemaDB = `CREATE TABLE tokens (
	id    TEXT PRIMARY KEY, -- 16 hex digits
	token BLOB NOT NULL     -- the Token as JSON (digest, workspace, scopes, backends, times)
) STRICT`
)

// tokenDB is the token table of one data directory. Its methods are called
// with Store.mu held (or before the Store is shared), so one connection does.
type tokenDB struct {
	path string
	lock *os.File // flock: one process at a time
	c    *sqlite.Conn
}

// openTokenDB opens (creating if needed) the token database at path. A
// host.db written by desk before the token store had a schema of its own (a
// whole vfs store, tokens as records of kind "token") is migrated in place,
// in one transaction, on the first open; any other file is refused.
func openTokenDB(path string) (*tokenDB, error) {
	lf, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lf.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is in use by another process", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	c, err := sqlite.Open(path, false)
	if err != nil {
		lf.Close()
		return nil, err
	}
	d := &tokenDB{path: path, lock: lf, c: c}
	if err := d.init(); err != nil {
		d.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// init checks the file's layout, creating or migrating the schema.
func (d *tokenDB) init() error {
	if err := d.c.Exec("PRAGMA busy_timeout=5000; PRAGMA synchronous=FULL; PRAGMA secure_delete=ON"); err != nil {
		return err
	}
	app, err := d.int("PRAGMA application_id")
	if err != nil {
		return fmt.Errorf("not an SQLite database (%w)", err)
	}
	var tables []string
	err = d.c.Query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", nil,
		func(st *sqlite.Stmt) { tables = append(tables, st.Text(0)) })
	if err != nil {
		return err
	}
	switch {
	case app == tokenAppID:
		if v, err := d.int("PRAGMA user_version"); err != nil {
			return err
		} else if v > tokenSchemaV {
			return fmt.Errorf("token store schema version %d is newer than this program's %d", v, tokenSchemaV)
		}
	case app == 0 && len(tables) == 0:
		if err := d.tx(func() error { return d.createSchema() }); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	case app == 0 && slices.Contains(tables, "records") && slices.Contains(tables, "inodes"):
		if err := d.migrate(tables); err != nil {
			return fmt.Errorf("migrate tokens from the old layout (a vfs store): %w", err)
		}
	default:
		return errors.New("not a desk token store (delete it, or move it away, to start with no tokens)")
	}
	// A migrated file leaves WAL mode; the others are in the default mode already.
	return d.c.Exec("PRAGMA journal_mode=DELETE")
}

func (d *tokenDB) createSchema() error {
	return d.c.Exec(tokenSchemaDB + fmt.Sprintf("; PRAGMA application_id=%d; PRAGMA user_version=%d", tokenAppID, tokenSchemaV))
}

// migrate turns a vfs store holding token records into the token table: the
// records of kind "token" are copied and every other table is dropped, in one
// transaction, so a crash leaves either layout whole. VACUUM then returns the
// space.
func (d *tokenDB) migrate(tables []string) error {
	err := d.tx(func() error {
		if err := d.createSchema(); err != nil {
			return err
		}
		if err := d.c.Exec("INSERT INTO tokens(id, token) SELECT id, CAST(value AS BLOB) FROM records WHERE kind = 'token'"); err != nil {
			return err
		}
		for _, t := range tables {
			if err := d.c.Exec(`DROP TABLE "` + t + `"`); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := d.c.Exec("PRAGMA journal_mode=DELETE"); err != nil {
		return err
	}
	return d.c.Exec("VACUUM")
}

// tx runs fn in one write transaction.
func (d *tokenDB) tx(fn func() error) error {
	if err := d.c.Exec("BEGIN IMMEDIATE"); err != nil {
		return err
	}
	if err := fn(); err != nil {
		d.c.Exec("ROLLBACK")
		return err
	}
	return d.c.Exec("COMMIT")
}

// load calls fn with every stored token's id and JSON, in id order.
func (d *tokenDB) load(fn func(id string, val []byte) error) error {
	var ferr error
	err := d.c.Query("SELECT id, token FROM tokens ORDER BY id", nil, func(st *sqlite.Stmt) {
		if ferr == nil {
			ferr = fn(st.Text(0), st.Blob(1, nil))
		}
	})
	if err != nil {
		return err
	}
	return ferr
}

// put stores the token id's JSON val, deleting the tokens drop in the same
// transaction. It is durable when it returns.
func (d *tokenDB) put(ctx context.Context, id string, val []byte, drop ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.tx(func() error {
		if err := d.deleteIDs(drop); err != nil {
			return err
		}
		st, err := d.c.Prep("INSERT OR REPLACE INTO tokens(id, token) VALUES (?, ?)")
		if err != nil {
			return err
		}
		return st.Exec(id, val)
	})
}

// remove deletes the tokens ids in one transaction (secure_delete: their
// bytes are overwritten in the file).
func (d *tokenDB) remove(ctx context.Context, ids []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.tx(func() error { return d.deleteIDs(ids) })
}

// deleteIDs deletes the tokens ids, inside the caller's transaction.
func (d *tokenDB) deleteIDs(ids []string) error {
	del, err := d.c.Prep("DELETE FROM tokens WHERE id = ?")
	if err != nil {
		return err
	}
	for _, x := range ids {
		if err := del.Exec(x); err != nil {
			return err
		}
	}
	return nil
}

func (d *tokenDB) int(q string) (int64, error) {
	var n int64
	err := d.c.Query(q, nil, func(st *sqlite.Stmt) { n = st.Int64(0) })
	return n, err
}

func (d *tokenDB) close() error {
	err := d.c.Close()
	if cerr := d.lock.Close(); err == nil {
		err = cerr
	}
	return err
}
