package vfs

import (
	"context"
	"errors"
	"time"

	"github.com/desk-dev/desk/internal/vfs/internal/sqlite"
)

// Records are durable named values, each with an append-only log, kept in the
// store's database beside the filesystem for the layers above it (execution
// records and their output, audit). They are not files: they do not appear in
// the namespace, in Stats or in the change journal, and they do not count
// against the quota. Writes go through the same group commit as file changes,
// so a record is durable when the call returns. Kinds and ids are free-form
// strings chosen by the caller.

// ErrNoRecord is returned when a record does not exist.
var ErrNoRecord = errors.New("vfs: no such record")

// Record is one stored value.
type Record struct {
	Kind    string
	ID      string
	Value   []byte
	Updated time.Time
}

// LogEntry is one entry of a record's log, numbered from 1 in append order.
type LogEntry struct {
	Seq  uint64
	Data []byte
}

// PutRecord creates or replaces a record.
func (f *FS) PutRecord(ctx context.Context, kind, id string, value []byte) error {
	return f.update(ctx, "putrecord", kind+"/"+id, func(t *tx) error { return t.putRecord(kind, id, value) })
}

func (t *tx) putRecord(kind, id string, value []byte) error {
	st, err := t.c.Prep("INSERT OR REPLACE INTO records(kind, id, value, updated) VALUES (?, ?, ?, ?)")
	if err != nil {
		return err
	}
	return st.Exec(kind, id, value, t.now.UnixNano())
}

// GetRecord returns a record (ErrNoRecord if absent).
func (f *FS) GetRecord(ctx context.Context, kind, id string) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	c, err := f.reader()
	if err != nil {
		return Record{}, err
	}
	defer f.putReader(c)
	st, err := c.Prep("SELECT value, updated FROM records WHERE kind = ? AND id = ?")
	if err != nil {
		return Record{}, err
	}
	defer st.Reset()
	if err := st.Bind(kind, id); err != nil {
		return Record{}, err
	}
	if !st.Step() {
		if err := st.Err(); err != nil {
			return Record{}, err
		}
		return Record{}, ErrNoRecord
	}
	return Record{Kind: kind, ID: id, Value: st.Blob(0, nil), Updated: time.Unix(0, st.Int64(1))}, nil
}

// ListRecords returns up to limit records of kind whose ids sort after after.
func (f *FS) ListRecords(ctx context.Context, kind, after string, limit int) ([]Record, error) {
	if limit <= 0 {
		limit = 1000
	}
	var out []Record
	err := f.queryRows(ctx, "SELECT id, value, updated FROM records WHERE kind = ? AND id > ? ORDER BY id LIMIT ?",
		[]any{kind, after, limit}, func(st *sqlite.Stmt) {
			out = append(out, Record{Kind: kind, ID: st.Text(0), Value: st.Blob(1, nil), Updated: time.Unix(0, st.Int64(2))})
		})
	return out, err
}

// DeleteRecord deletes a record and its log (deleting a missing one is not an error).
func (f *FS) DeleteRecord(ctx context.Context, kind, id string) error {
	return f.update(ctx, "deleterecord", kind+"/"+id, func(t *tx) error { return t.deleteRecord(kind, id) })
}

func (t *tx) deleteRecord(kind, id string) error {
	for _, q := range []string{"DELETE FROM records WHERE kind = ? AND id = ?", "DELETE FROM record_log WHERE kind = ? AND id = ?",
		"DELETE FROM record_log_seq WHERE kind = ? AND id = ?"} {
		st, err := t.c.Prep(q)
		if err != nil {
			return err
		}
		if err := st.Exec(kind, id); err != nil {
			return err
		}
	}
	return nil
}

// AppendLog appends entries to the log of (kind, id) (the record itself need
// not exist) and returns the sequence number of the first one.
func (f *FS) AppendLog(ctx context.Context, kind, id string, entries ...[]byte) (uint64, error) {
	var first uint64
	err := f.update(ctx, "appendlog", kind+"/"+id, func(t *tx) error {
		var err error
		first, err = t.appendLog(kind, id, entries)
		return err
	})
	return first, err
}

func (t *tx) appendLog(kind, id string, entries [][]byte) (uint64, error) {
	last, err := queryUint(t.c, "SELECT coalesce((SELECT last FROM record_log_seq WHERE kind = ? AND id = ?), 0)", kind, id)
	if err != nil {
		return 0, err
	}
	set, err := t.c.Prep("INSERT OR REPLACE INTO record_log_seq(kind, id, last) VALUES (?, ?, ?)")
	if err != nil {
		return 0, err
	}
	if err := set.Exec(kind, id, last+uint64(len(entries))); err != nil {
		return 0, err
	}
	st, err := t.c.Prep("INSERT INTO record_log(kind, id, seq, data) VALUES (?, ?, ?, ?)")
	if err != nil {
		return 0, err
	}
	for i, e := range entries {
		if err := st.Exec(kind, id, last+1+uint64(i), e); err != nil {
			return 0, err
		}
	}
	return last + 1, nil
}

// ReadLog returns up to limit entries of the log of (kind, id) with Seq >= from.
func (f *FS) ReadLog(ctx context.Context, kind, id string, from uint64, limit int) ([]LogEntry, error) {
	if limit <= 0 {
		limit = 1000
	}
	var out []LogEntry
	err := f.queryRows(ctx, "SELECT seq, data FROM record_log WHERE kind = ? AND id = ? AND seq >= ? ORDER BY seq LIMIT ?",
		[]any{kind, id, from, limit}, func(st *sqlite.Stmt) {
			out = append(out, LogEntry{Seq: uint64(st.Int64(0)), Data: st.Blob(1, nil)})
		})
	return out, err
}

// TrimLog deletes the entries of the log of (kind, id) with Seq < before (to
// bound a log while keeping its numbering).
func (f *FS) TrimLog(ctx context.Context, kind, id string, before uint64) error {
	return f.update(ctx, "trimlog", kind+"/"+id, func(t *tx) error {
		st, err := t.c.Prep("DELETE FROM record_log WHERE kind = ? AND id = ? AND seq < ?")
		if err != nil {
			return err
		}
		return st.Exec(kind, id, before)
	})
}

// PutRecord is FS.PutRecord within the batch.
func (b *Batch) PutRecord(kind, id string, value []byte) error {
	return b.do("putrecord", kind+"/"+id, func() error { return b.t.putRecord(kind, id, value) })
}

// AppendLog is FS.AppendLog within the batch.
func (b *Batch) AppendLog(kind, id string, entries ...[]byte) (uint64, error) {
	var first uint64
	err := b.do("appendlog", kind+"/"+id, func() error {
		var err error
		first, err = b.t.appendLog(kind, id, entries)
		return err
	})
	return first, err
}

// DeleteRecord is FS.DeleteRecord within the batch.
func (b *Batch) DeleteRecord(kind, id string) error {
	return b.do("deleterecord", kind+"/"+id, func() error { return b.t.deleteRecord(kind, id) })
}
