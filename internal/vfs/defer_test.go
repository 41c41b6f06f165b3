package vfs

import (
	"bytes"
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestFS_WithCommitDelay checks deferred commits: a deferred change is visible
// at once to every kind of read, is not in the journal (not committed) until
// something commits it, and a failing deferred change leaves the others alone.
func TestFS_WithCommitDelay(t *testing.T) {
	bg := context.Background()
	f, err := Open(bg, t.TempDir()+"/x.db", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.WriteFile(bg, "/f", []byte("hello world"), 0o644); err != nil {
		t.Fatal(err)
	}
	df := f.WithCommitDelay(time.Hour) // only something else commits
	seq := f.Seq()
	pending := func(want bool) {
		t.Helper()
		if got := f.pendOn.Load(); got != want {
			t.Fatalf("pending = %v, want %v", got, want)
		}
	}

	t.Run("visible-not-committed", func(t *testing.T) {
		if err := df.Mkdir(bg, "/d", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := df.WriteFile(bg, "/d/a", nil, 0o600); err != nil {
			t.Fatal(err)
		}
		pending(true)
		if f.Seq() != seq {
			t.Fatalf("journal moved to %d before a commit", f.Seq())
		}
		fi, err := f.Stat(bg, "/d/a")
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("stat of a deferred create: %v %v", fi, err)
		}
		d, err := f.Stat(bg, "/d")
		if err != nil {
			t.Fatal(err)
		}
		if a, err := f.LookupAt(bg, d.Attr().Ino, "a"); err != nil || a.Ino != fi.Attr().Ino {
			t.Fatalf("lookup: %v %v", a, err)
		}
		if err := df.Mkdir(bg, "/d", 0o755); Errno(err) != syscall.EEXIST {
			t.Fatalf("mkdir again: %v", err)
		}
		if _, err := f.Stat(bg, "/d/a"); err != nil {
			t.Fatalf("a failed deferred change undid another: %v", err)
		}
		pending(true)
		// A listing reads the database: it commits first.
		ents, err := f.ReadDir(bg, "/d")
		if err != nil || len(ents) != 1 || ents[0].Name != "a" {
			t.Fatalf("readdir: %v %v", ents, err)
		}
		pending(false)
		chs, err := f.Changes(bg, seq, 100)
		if err != nil || len(chs) != 3 || chs[0].Op != OpMkdir || chs[1].Op != OpCreate || chs[2].Op != OpWrite {
			t.Fatalf("journal after the commit: %+v %v", chs, err)
		}
	})

	t.Run("remove-rename", func(t *testing.T) {
		if err := df.Rename(bg, "/d/a", "/d/b", 0); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Stat(bg, "/d/a"); Errno(err) != syscall.ENOENT {
			t.Fatalf("old name after a deferred rename: %v", err)
		}
		if err := df.Remove(bg, "/d/b"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Stat(bg, "/d/b"); Errno(err) != syscall.ENOENT {
			t.Fatalf("removed name: %v", err)
		}
		pending(true)
		if err := f.Commit(bg); err != nil {
			t.Fatal(err)
		}
		pending(false)
	})

	t.Run("content-and-xattrs", func(t *testing.T) {
		if err := df.Truncate(bg, "/f", 5); err != nil {
			t.Fatal(err)
		}
		if err := df.Setxattr(bg, "/f", "user.k", []byte("v"), 0); err != nil {
			t.Fatal(err)
		}
		pending(true)
		if v, err := f.Getxattr(bg, "/f", "user.k"); err != nil || string(v) != "v" {
			t.Fatalf("getxattr of a deferred setxattr: %q %v", v, err)
		}
		pending(false) // the read needed the database
		if err := df.Truncate(bg, "/f", 2); err != nil {
			t.Fatal(err)
		}
		pending(true)
		b, err := f.ReadFile(bg, "/f")
		if err != nil || !bytes.Equal(b, []byte("he")) {
			t.Fatalf("content after a deferred truncate: %q %v", b, err)
		}
	})

	t.Run("durable-joins", func(t *testing.T) {
		if err := df.Mkdir(bg, "/e", 0o755); err != nil {
			t.Fatal(err)
		}
		pending(true)
		s0 := f.Seq()
		if err := f.Mkdir(bg, "/g", 0o755); err != nil { // not deferred: commits both
			t.Fatal(err)
		}
		pending(false)
		if f.Seq() != s0+2 {
			t.Fatalf("journal at %d, want %d", f.Seq(), s0+2)
		}
	})

	t.Run("handle-sync-is-durable", func(t *testing.T) {
		h, err := df.OpenFile(bg, "/e/h", os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		pending(true)
		if _, err := h.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := h.Sync(); err != nil {
			t.Fatal(err)
		}
		pending(false)
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("delay-expires", func(t *testing.T) {
		short := f.WithCommitDelay(5 * time.Millisecond)
		seq := f.Seq()
		if err := short.Mkdir(bg, "/timed", 0o755); err != nil {
			t.Fatal(err)
		}
		// Only the delay's timer commits now: wait for the commit (Wait
		// commits nothing itself), with a deadline only as a hang guard.
		guard, cancel := context.WithTimeout(bg, time.Minute)
		defer cancel()
		if err := f.Wait(guard, seq); err != nil {
			t.Fatalf("no commit a minute after a 5 ms delay: %v", err)
		}
		pending(false)
	})

	if err := df.Mkdir(bg, "/at-close", 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := f.Check(bg)
	if err != nil || !rep.OK() {
		t.Fatalf("check: %v %v", err, rep.Problems)
	}
}

// TestFS_WithCommitDelayClose checks that Close commits deferred changes.
func TestFS_WithCommitDelayClose(t *testing.T) {
	bg := context.Background()
	path := t.TempDir() + "/x.db"
	f, err := Open(bg, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WithCommitDelay(time.Hour).Mkdir(bg, "/kept", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if f, err = Open(bg, path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Stat(bg, "/kept"); err != nil {
		t.Fatalf("a deferred change did not survive Close: %v", err)
	}
}

// TestFS_WithCommitDelayHandles checks what a handle's delay covers: a
// handle with no delay (d <= 0) commits every change before it returns, and
// records written through a deferring handle's store are durable at once
// (they commit what is pending with them).
func TestFS_WithCommitDelayHandles(t *testing.T) {
	bg := context.Background()
	f, err := Open(bg, t.TempDir()+"/x.db", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, d := range []time.Duration{0, -time.Second} {
		seq := f.Seq()
		if err := f.WithCommitDelay(d).Mkdir(bg, "/now"+d.String(), 0o755); err != nil {
			t.Fatal(err)
		}
		if f.pendOn.Load() || f.Seq() != seq+1 {
			t.Fatalf("WithCommitDelay(%v): pending %v, seq %d -> %d; want committed", d, f.pendOn.Load(), seq, f.Seq())
		}
	}
	df := f.WithCommitDelay(time.Hour)
	seq := f.Seq()
	if err := df.Mkdir(bg, "/later", 0o755); err != nil {
		t.Fatal(err)
	}
	if !f.pendOn.Load() || f.Seq() != seq {
		t.Fatal("a change through the deferring handle was committed at once")
	}
	if err := df.Records().Put(bg, "k", "id", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if f.pendOn.Load() || f.Seq() != seq+1 {
		t.Fatalf("a record write left changes pending (pending %v, seq %d)", f.pendOn.Load(), f.Seq())
	}
}

// TestFS_WithBatching_listings checks that a listing of a directory the
// pending transaction did not change reads without committing it (with the
// modes of its entries as applied), while a listing of a changed directory
// commits first and shows the change; and that a Close through the
// batching handle leaves the data pending, visible to readers.
func TestFS_WithBatching_listings(t *testing.T) {
	bg := context.Background()
	f, err := Open(bg, t.TempDir()+"/x.db", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, d := range []string{"/src", "/dst"} {
		if err := f.Mkdir(bg, d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.WriteFile(bg, "/src/a", []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := f.WithBatching(time.Hour) // only something else commits
	h, err := b.Create(bg, "/dst/copy")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Write([]byte("data")); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Chmod(bg, "/src/a", 0o600); err != nil {
		t.Fatal(err)
	}
	if !f.pendOn.Load() {
		t.Fatal("Close through a batching handle committed")
	}
	seq := f.Seq()
	ents, err := f.ReadDir(bg, "/src")
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name != "a" || ents[0].Mode != S_IFREG|0o600 {
		t.Fatalf("listing of /src: %+v, want a with mode 0600 (the pending chmod)", ents)
	}
	if f.Seq() != seq || !f.pendOn.Load() {
		t.Fatal("listing an unchanged directory committed the pending changes")
	}
	ents, err = f.ReadDir(bg, "/dst")
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name != "copy" {
		t.Fatalf("listing of /dst: %+v, want copy", ents)
	}
	if f.Seq() == seq || f.pendOn.Load() {
		t.Fatal("listing a changed directory did not commit first")
	}
	if got, err := f.ReadFile(bg, "/dst/copy"); err != nil || string(got) != "data" {
		t.Fatalf("read the file closed through the batching handle: %q, %v", got, err)
	}
}
