package sqlite

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/ncruces/go-sqlite3"
)

// Conn is one database connection with a cache of prepared statements.
type Conn struct {
	c     *sqlite3.Conn
	stmts map[string]*Stmt
}

// Open opens the database file at path. A read-only connection never creates or
// writes the file.
func Open(path string, readOnly bool) (*Conn, error) {
	flags := sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE | sqlite3.OPEN_NOFOLLOW | sqlite3.OPEN_EXRESCODE | sqlite3.OPEN_URI
	if readOnly {
		flags = sqlite3.OPEN_READONLY | sqlite3.OPEN_NOFOLLOW | sqlite3.OPEN_EXRESCODE | sqlite3.OPEN_URI
	}
	c, err := sqlite3.OpenFlags(uri(path), flags)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	return &Conn{c: c, stmts: make(map[string]*Stmt)}, nil
}

// uri is the URI that opens path with the WAL-buffering VFS (walVFS).
func uri(path string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	if strings.HasPrefix(path, "//") {
		path = "/" + strings.TrimLeft(path, "/") // not an authority
	}
	return "file:" + r.Replace(path) + "?vfs=" + walVFSName
}

// Exec runs one or more statements that return no rows.
func (c *Conn) Exec(sql string) error { return c.c.Exec(sql) }

// Run runs one statement without parameters through the statement cache, for
// statements run often (BEGIN, COMMIT, SAVEPOINT...): it skips re-parsing them.
func (c *Conn) Run(sql string) error {
	st, err := c.Prep(sql)
	if err != nil {
		return err
	}
	return st.Exec()
}

// Prep returns a cached prepared statement for sql, reset and with bindings
// cleared. The statement stays owned by the connection: do not Close it.
func (c *Conn) Prep(sql string) (*Stmt, error) {
	if s, ok := c.stmts[sql]; ok {
		return s, nil
	}
	st, tail, err := c.c.Prepare(sql)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", sql, err)
	}
	if tail != "" {
		st.Close()
		return nil, fmt.Errorf("prepare %q: trailing SQL %q", sql, tail)
	}
	s := &Stmt{s: st}
	c.stmts[sql] = s
	return s, nil
}

// Query runs sql (through the statement cache) with args bound and calls row
// for each row it returns; the statement is reset afterwards.
func (c *Conn) Query(sql string, args []any, row func(st *Stmt)) error {
	st, err := c.Prep(sql)
	if err != nil {
		return err
	}
	defer st.Reset()
	if err := st.Bind(args...); err != nil {
		return err
	}
	for st.Step() {
		row(st)
	}
	return st.Err()
}

// Changes is the number of rows changed by the last statement.
func (c *Conn) Changes() int64 { return c.c.Changes() }

// LastInsertRowID is the rowid of the last inserted row.
func (c *Conn) LastInsertRowID() int64 { return c.c.LastInsertRowID() }

// InTx reports whether a transaction is open.
func (c *Conn) InTx() bool { return !c.c.GetAutocommit() }

// Close finalises every cached statement and closes the connection.
func (c *Conn) Close() error {
	var errs []error
	for _, s := range c.stmts {
		errs = append(errs, s.s.Close())
	}
	c.stmts = nil
	errs = append(errs, c.c.Close())
	return errors.Join(errs...)
}

// Stmt is a prepared statement. Bind parameters are numbered from 1, columns from 0.
type Stmt struct {
	s *sqlite3.Stmt
	// bigBind is set when a large blob is bound, so Reset releases it.
	bigBind bool
}

// bigBlob is the size from which a bound blob is released at Reset rather
// than kept until the next Bind.
const bigBlob = 4096

// Bind binds args in order to parameters 1..n: every parameter, every time
// (Reset does not clear bindings; see there). Supported types: int, int64,
// uint32, uint64, string, []byte, bool and nil.
func (s *Stmt) Bind(args ...any) error {
	if n := s.s.BindCount(); len(args) != n {
		return fmt.Errorf("bind: %d arguments for %d parameters", len(args), n)
	}
	for i, a := range args {
		var err error
		p := i + 1
		switch v := a.(type) {
		case int:
			err = s.s.BindInt64(p, int64(v))
		case int64:
			err = s.s.BindInt64(p, v)
		case uint32:
			err = s.s.BindInt64(p, int64(v))
		case uint64:
			err = s.s.BindInt64(p, int64(v))
		case string:
			err = s.s.BindText(p, v)
		case []byte:
			if v == nil {
				v = []byte{}
			}
			if len(v) >= bigBlob {
				s.bigBind = true
			}
			err = s.s.BindBlob(p, v)
		case bool:
			err = s.s.BindBool(p, v)
		case nil:
			err = s.s.BindNull(p)
		default:
			err = fmt.Errorf("bind: unsupported type %T", a)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Step advances to the next row; false means done or error (see Err).
func (s *Stmt) Step() bool { return s.s.Step() }

// Err is the error of the last Step, if any.
func (s *Stmt) Err() error { return s.s.Err() }

// Reset resets the statement so it can be reused. Bindings are kept (the
// next Bind replaces them all) unless a large blob was bound: clearing them
// every time would make SQLite re-prepare the statement at its next step
// whenever a parameter that can steer the query plan held 0 or 1 (its
// sqlite3_clear_bindings marks such statements expired), which made small
// reads three times slower.
func (s *Stmt) Reset() error {
	err := s.s.Reset()
	if s.bigBind {
		s.s.ClearBindings()
		s.bigBind = false
	}
	return err
}

// Exec binds args, runs the statement to completion and resets it.
func (s *Stmt) Exec(args ...any) error {
	if err := s.Bind(args...); err != nil {
		s.Reset()
		return err
	}
	for s.s.Step() {
	}
	err := s.s.Err()
	if rerr := s.Reset(); err == nil {
		err = rerr
	}
	return err
}

// Int64 returns column col as an integer.
func (s *Stmt) Int64(col int) int64 { return s.s.ColumnInt64(col) }

// Text returns column col as a string.
func (s *Stmt) Text(col int) string { return s.s.ColumnText(col) }

// Blob appends column col to buf and returns it.
func (s *Stmt) Blob(col int, buf []byte) []byte { return s.s.ColumnBlob(col, buf) }

// RawBlob returns column col without copying; valid only until the next Step or Reset.
func (s *Stmt) RawBlob(col int) []byte { return s.s.ColumnRawBlob(col) }

// IsNull reports whether column col is NULL.
func (s *Stmt) IsNull(col int) bool { return s.s.ColumnType(col) == sqlite3.NULL }

// IsBusy reports whether err is SQLite's BUSY or LOCKED condition.
func IsBusy(err error) bool {
	return errors.Is(err, sqlite3.BUSY) || errors.Is(err, sqlite3.LOCKED)
}

// IsFull reports whether err is SQLite's FULL condition (the disk is full),
// or an I/O error SQLite reports with ENOSPC or EDQUOT as its cause (growing
// the shared-memory index, say).
func IsFull(err error) bool {
	if errors.Is(err, sqlite3.FULL) {
		return true
	}
	var e *sqlite3.Error
	if !errors.As(err, &e) || e.Unwrap() == nil {
		return false
	}
	return errors.Is(e.Unwrap(), syscall.ENOSPC) || errors.Is(e.Unwrap(), syscall.EDQUOT)
}
