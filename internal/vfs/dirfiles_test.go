package vfs_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// TestReadDirFiles checks ReadDirFiles against ReadDirPage, Lstat and
// ReadFile on every kind of entry, and that an open file with unflushed
// writes is left to Open.
func TestReadDirFiles(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{ChunkSize: 4096})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.Mkdir(ctx, "/d", 0o755))
	must(f.WriteFile(ctx, "/d/empty", nil, 0o644))
	must(f.WriteFile(ctx, "/d/small", []byte("hello\n"), 0o600))
	must(f.WriteFile(ctx, "/d/chunk", bytes.Repeat([]byte("c"), 4096), 0o644))
	must(f.WriteFile(ctx, "/d/big", bytes.Repeat([]byte("b"), 5000), 0o644))
	must(f.WriteFile(ctx, "/d/zeros", make([]byte, 300), 0o644)) // stored as a hole
	must(f.WriteFile(ctx, "/d/sparse", nil, 0o644))
	must(f.Truncate(ctx, "/d/sparse", 100))
	must(f.Mkdir(ctx, "/d/sub", 0o755))
	must(f.Symlink(ctx, "small", "/d/link"))
	must(f.Link(ctx, "/d/small", "/d/small2"))

	got, err := f.ReadDirFiles(ctx, "/d", "", 0, 1<<20)
	must(err)
	want, err := f.ReadDirPage(ctx, "/d", "", 0)
	must(err)
	if len(got) != len(want) {
		t.Fatalf("%d entries, ReadDirPage has %d", len(got), len(want))
	}
	for i, e := range got {
		if e.Name != want[i].Name || e.Attr.Ino != want[i].Ino || e.Attr.Mode != want[i].Mode {
			t.Errorf("entry %d = %s ino %d mode %o, ReadDirPage %+v", i, e.Name, e.Attr.Ino, e.Attr.Mode, want[i])
		}
		fi, err := f.Lstat(ctx, "/d/"+e.Name)
		must(err)
		if a := fi.Attr(); a.Size != e.Attr.Size || a.Nlink != e.Attr.Nlink || !a.Mtime.Equal(e.Attr.Mtime) {
			t.Errorf("%s: attr %+v, Lstat %+v", e.Name, e.Attr, a)
		}
		wantLoaded := fi.Mode().IsRegular() && fi.Size() <= 4096
		if e.Loaded != wantLoaded {
			t.Errorf("%s: Loaded = %v, want %v", e.Name, e.Loaded, wantLoaded)
		}
		if e.Loaded {
			data, err := f.ReadFile(ctx, "/d/"+e.Name)
			must(err)
			if !bytes.Equal(e.Data, data) {
				t.Errorf("%s: Data %q, ReadFile %q", e.Name, e.Data, data)
			}
		}
	}

	// Paging: after and limit.
	page, err := f.ReadDirFiles(ctx, "/d", "empty", 2, 1<<20)
	must(err)
	if len(page) != 2 || page[0].Name != "link" || page[1].Name != "small" {
		t.Errorf("page after empty = %v", names(page))
	}
	// maxSize below a file's size leaves it unloaded.
	page, err = f.ReadDirFiles(ctx, "/d", "", 0, 5)
	must(err)
	for _, e := range page {
		if e.Loaded && e.Attr.Size > 5 {
			t.Errorf("%s (%d bytes) loaded with maxSize 5", e.Name, e.Attr.Size)
		}
	}

	// An open file with unflushed writes is not loaded: only Open sees them.
	h, err := f.OpenFile(ctx, "/d/small", 2 /* O_RDWR */, 0)
	must(err)
	if _, err := h.WriteAt([]byte("J"), 0); err != nil {
		t.Fatal(err)
	}
	page, err = f.ReadDirFiles(ctx, "/d", "link", 1, 1<<20)
	must(err)
	if len(page) != 1 || page[0].Name != "small" || page[0].Loaded {
		t.Errorf("open file: %+v", page)
	}
	r, _ := f.Open(ctx, "/d/small")
	b, _ := io.ReadAll(r)
	r.Close()
	if string(b) != "Jello\n" {
		t.Errorf("Open sees %q", b)
	}
	must(h.Close())

	// Errors as ReadDirPage.
	if _, err := f.ReadDirFiles(ctx, "/d/small", "", 0, 10); vfs.Errno(err) != 20 /* ENOTDIR */ {
		t.Errorf("on a file: %v", err)
	}
	if _, err := f.ReadDirFiles(ctx, "/nope", "", 0, 10); vfs.Errno(err) != 2 /* ENOENT */ {
		t.Errorf("on a missing dir: %v", err)
	}
}

// TestReadDirFiles_atime checks that loading a file updates its access time
// as a read does (relatime: the atime was not after the mtime).
func TestReadDirFiles_atime(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	f := openStore(t, vfs.Options{Now: func() time.Time { return now }})
	if err := f.WriteFile(ctx, "/a", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Unix(1_600_000_000, 0)
	if err := f.Chtimes(ctx, "/a", old, old); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	if _, err := f.ReadDirFiles(ctx, "/", "", 0, 100); err != nil {
		t.Fatal(err)
	}
	if err := f.Mkdir(ctx, "/commit", 0o755); err != nil { // deferred atimes ride on the next commit
		t.Fatal(err)
	}
	fi, err := f.Stat(ctx, "/a")
	if err != nil {
		t.Fatal(err)
	}
	if a := fi.Attr().Atime; !a.Equal(now) {
		t.Errorf("atime = %v, want %v", a, now)
	}
}

func names(es []vfs.DirFile) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}
