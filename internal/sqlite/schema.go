package sqlite

import (
	"errors"
	"fmt"
)

// Tx runs fn in a write transaction of c (BEGIN IMMEDIATE): committed when
// fn returns nil, rolled back otherwise or when the commit fails.
func (c *Conn) Tx(fn func() error) error {
	if err := c.Run("BEGIN IMMEDIATE"); err != nil {
		return err
	}
	if err := fn(); err != nil {
		c.Run("ROLLBACK")
		return err
	}
	if err := c.Run("COMMIT"); err != nil {
		c.Run("ROLLBACK")
		return err
	}
	return nil
}

// Schema identifies a database file of desk's: its application_id, the
// schema version (user_version) this program writes, and the statements
// that make (idempotently: CREATE ... IF NOT EXISTS) its tables.
type Schema struct {
	AppID   int64
	Version int64
	SQL     string
	// What names the file in errors ("share index").
	What string
}

// Claim checks, in one write transaction, that c's file is s's database
// (or a new, empty one, which it marks as s's), and runs s.SQL. A file of
// another application, or one of s's with a newer version, is refused.
func (c *Conn) Claim(s Schema) error {
	return c.Tx(func() error {
		var app, ver, tables int64
		if err := c.Query("PRAGMA application_id", nil, func(st *Stmt) { app = st.Int64(0) }); err != nil {
			return fmt.Errorf("not an SQLite database (%w)", err)
		}
		if err := c.Query("PRAGMA user_version", nil, func(st *Stmt) { ver = st.Int64(0) }); err != nil {
			return err
		}
		if err := c.Query("SELECT count(*) FROM sqlite_master WHERE type = 'table'", nil, func(st *Stmt) { tables = st.Int64(0) }); err != nil {
			return err
		}
		switch {
		case app == s.AppID && ver > s.Version:
			return fmt.Errorf("%s schema version %d is newer than this program's %d", s.What, ver, s.Version)
		case app == s.AppID:
		case app == 0 && tables == 0:
			if err := c.Exec(fmt.Sprintf("PRAGMA application_id=%d; PRAGMA user_version=%d", s.AppID, s.Version)); err != nil {
				return err
			}
		default:
			return errors.New("not a desk " + s.What + " (move it away to start with an empty one)")
		}
		return c.Exec(s.SQL)
	})
}
