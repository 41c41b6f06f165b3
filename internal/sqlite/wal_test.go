package sqlite

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWALBuffer checks that a committed transaction is in the WAL file when
// COMMIT returns (nothing left in memory), that another connection reads it,
// and that rollbacks and transactions larger than the buffer work.
func TestWALBuffer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	w, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Exec("PRAGMA page_size=8192; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(k INTEGER PRIMARY KEY, v BLOB)"); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	count := func() int64 {
		t.Helper()
		st, err := r.Prep("SELECT count(*), coalesce(sum(length(v)), 0) FROM t")
		if err != nil {
			t.Fatal(err)
		}
		defer st.Reset()
		if !st.Step() {
			t.Fatal(st.Err())
		}
		return st.Int64(0)
	}
	ins, err := w.Prep("INSERT INTO t(k, v) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	val := bytes.Repeat([]byte("v"), 3000)
	k := 0
	tx := func(rows int, commit bool) {
		t.Helper()
		if err := w.Run("BEGIN IMMEDIATE"); err != nil {
			t.Fatal(err)
		}
		for range rows {
			k++
			if err := ins.Exec(k, val); err != nil {
				t.Fatal(err)
			}
		}
		end := "COMMIT"
		if !commit {
			end = "ROLLBACK"
		}
		if err := w.Run(end); err != nil {
			t.Fatal(err)
		}
		if n := walPending.Load(); n != 0 {
			t.Fatalf("after %s of %d rows: %d bytes still buffered", end, rows, n)
		}
	}
	want := int64(0)
	for i := range 50 {
		tx(1+i%3, true)
		want += int64(1 + i%3)
		if got := count(); got != want {
			t.Fatalf("reader sees %d rows, want %d", got, want)
		}
	}
	tx(5, false)
	if got := count(); got != want {
		t.Fatalf("after rollback: reader sees %d rows, want %d", got, want)
	}
	tx(2000, true) // ~6 MiB: several buffer loads, pages spilled before commit
	want += 2000
	if got := count(); got != want {
		t.Fatalf("after a large transaction: reader sees %d rows, want %d", got, want)
	}
	if err := w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	tx(3, true)
	if got := count(); got != want+3 {
		t.Fatalf("after a checkpoint: reader sees %d rows, want %d", got, want+3)
	}
}

// TestOpenURI checks that a path with URI syntax in it opens that very file.
func TestOpenURI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a?b#c%d e&vfs=x")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "w.db")
	c, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec("PRAGMA journal_mode=WAL; CREATE TABLE t(x)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at its path: %v", err)
	}
}
