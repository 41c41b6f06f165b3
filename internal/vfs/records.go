package vfs

import (
	"context"
	"errors"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
)

// Records is the record store kept in a store's database beside the
// filesystem: durable named values, each with an append-only log, for the
// layers above it (execution records and their output). Records are not
// files: they do not appear in the namespace, in Stats or in the change
// journal, and they do not count against the quota. Writes go through the
// same group commit as file changes and are never deferred, so a record is
// durable when the call returns. Kinds and ids are free-form strings chosen by
// the caller. Get one with FS.Records; it is safe for concurrent use and lives
// as long as its FS.
type Records struct{ f *FS }

// Records returns the store's record store.
func (f *FS) Records() *Records { return &Records{f: &FS{core: f.core}} }

// update runs fn as a durable mutation (records are never deferred).
func (r *Records) update(ctx context.Context, op, path string, fn func(t *tx) error) error {
	return r.f.updateWith(ctx, 0, op, path, fn)
}

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

// Put creates or replaces a record.
func (r *Records) Put(ctx context.Context, kind, id string, value []byte) error {
	return r.update(ctx, "putrecord", kind+"/"+id, func(t *tx) error { return t.putRecord(kind, id, value) })
}

func (t *tx) putRecord(kind, id string, value []byte) error {
	st, err := t.c.Prep("INSERT OR REPLACE INTO records(kind, id, value, updated) VALUES (?, ?, ?, ?)")
	if err != nil {
		return err
	}
	return st.Exec(kind, id, value, t.now.UnixNano())
}

// Get returns a record (ErrNoRecord if absent).
func (r *Records) Get(ctx context.Context, kind, id string) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	c, err := r.f.reader(ctx)
	if err != nil {
		return Record{}, err
	}
	defer r.f.putReader(c)
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

// List returns up to limit records of kind whose ids sort after after
// (limit <= 0: 1000).
func (r *Records) List(ctx context.Context, kind, after string, limit int) ([]Record, error) {
	if limit <= 0 {
		limit = 1000
	}
	var out []Record
	err := r.f.queryRows(ctx, "SELECT id, value, updated FROM records WHERE kind = ? AND id > ? ORDER BY id LIMIT ?",
		[]any{kind, after, limit}, func(st *sqlite.Stmt) {
			out = append(out, Record{Kind: kind, ID: st.Text(0), Value: st.Blob(1, nil), Updated: time.Unix(0, st.Int64(2))})
		})
	return out, err
}

// Delete deletes a record and its log (deleting a missing one is not an error).
func (r *Records) Delete(ctx context.Context, kind, id string) error {
	return r.update(ctx, "deleterecord", kind+"/"+id, func(t *tx) error { return t.deleteRecord(kind, id) })
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
func (r *Records) AppendLog(ctx context.Context, kind, id string, entries ...[]byte) (uint64, error) {
	var first uint64
	err := r.update(ctx, "appendlog", kind+"/"+id, func(t *tx) error {
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

// ReadLog returns up to limit entries of the log of (kind, id) with Seq >= from
// (limit <= 0: 1000).
func (r *Records) ReadLog(ctx context.Context, kind, id string, from uint64, limit int) ([]LogEntry, error) {
	if limit <= 0 {
		limit = 1000
	}
	var out []LogEntry
	err := r.f.queryRows(ctx, "SELECT seq, data FROM record_log WHERE kind = ? AND id = ? AND seq >= ? ORDER BY seq LIMIT ?",
		[]any{kind, id, from, limit}, func(st *sqlite.Stmt) {
			out = append(out, LogEntry{Seq: uint64(st.Int64(0)), Data: st.Blob(1, nil)})
		})
	return out, err
}

// TrimLog deletes the entries of the log of (kind, id) with Seq < before (to
// bound a log while keeping its numbering).
func (r *Records) TrimLog(ctx context.Context, kind, id string, before uint64) error {
	return r.update(ctx, "trimlog", kind+"/"+id, func(t *tx) error {
		st, err := t.c.Prep("DELETE FROM record_log WHERE kind = ? AND id = ? AND seq < ?")
		if err != nil {
			return err
		}
		return st.Exec(kind, id, before)
	})
}

// Batch runs fn's record changes in one transaction: they become durable
// together when Batch returns nil, or not at all. The first failing operation
// poisons the batch, as with FS.Batch; fn must not call other methods of the
// store.
func (r *Records) Batch(ctx context.Context, fn func(b *RecordBatch) error) error {
	return r.update(ctx, "batch", "", func(t *tx) error {
		b := &RecordBatch{b: Batch{t: t}}
		if err := fn(b); err != nil {
			return err
		}
		return b.b.err
	})
}

// RecordBatch is a transaction of record changes in progress; see Records.Batch.
type RecordBatch struct{ b Batch }

// Put is Records.Put within the batch.
func (b *RecordBatch) Put(kind, id string, value []byte) error {
	return b.b.do("putrecord", kind+"/"+id, func() error { return b.b.t.putRecord(kind, id, value) })
}

// AppendLog is Records.AppendLog within the batch.
func (b *RecordBatch) AppendLog(kind, id string, entries ...[]byte) (uint64, error) {
	var first uint64
	err := b.b.do("appendlog", kind+"/"+id, func() error {
		var err error
		first, err = b.b.t.appendLog(kind, id, entries)
		return err
	})
	return first, err
}

// Delete is Records.Delete within the batch.
func (b *RecordBatch) Delete(kind, id string) error {
	return b.b.do("deleterecord", kind+"/"+id, func() error { return b.b.t.deleteRecord(kind, id) })
}
