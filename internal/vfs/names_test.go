package vfs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/sqlite"
	"github.com/desk-dev/desk/internal/vfs"
)

// namesAgree checks that ReadDirNames lists every directory below dir as
// ReadDirPage does, with the type bits of ReadDirPage's modes, in pages of
// n, and returns the entries seen.
func namesAgree(t *testing.T, f *vfs.FS, dir string, n int) int {
	t.Helper()
	ctx := context.Background()
	seen := 0
	var walk func(string)
	walk = func(d string) {
		var names, full []vfs.DirEntry
		for after := ""; ; {
			p, err := f.ReadDirNames(ctx, d, after, n)
			if err != nil {
				t.Fatalf("ReadDirNames %s: %v", d, err)
			}
			names = append(names, p...)
			if len(p) < n {
				break
			}
			after = p[len(p)-1].Name
		}
		full, err := f.ReadDir(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if len(names) != len(full) {
			t.Fatalf("%s: %d names, %d entries", d, len(names), len(full))
		}
		for i, e := range full {
			if g := names[i]; g.Name != e.Name || g.Ino != e.Ino || g.Mode != e.Mode&vfs.S_IFMT {
				t.Errorf("%s: ReadDirNames %+v, ReadDirPage %+v", d, g, e)
			}
			if e.Mode&vfs.S_IFMT == vfs.S_IFDIR {
				walk(strings.TrimSuffix(d, "/") + "/" + e.Name)
			}
		}
		seen += len(full)
	}
	walk(dir)
	return seen
}

// dentryTypes counts the entries of the store at path whose type is
// recorded (nonzero) and those whose type is not.
func dentryTypes(t *testing.T, path string) (typed, untyped int64) {
	t.Helper()
	c, err := sqlite.Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Query("SELECT sum(type != 0), sum(type = 0) FROM dentries", nil, func(st *sqlite.Stmt) {
		typed, untyped = st.Int64(0), st.Int64(1)
	}); err != nil {
		t.Fatal(err)
	}
	return typed, untyped
}

// TestMigrateV5 opens a store version 5 wrote (testdata/store-v5.db.gz, made
// by the code before entries recorded their type: a directory tree with an
// inline file with an xattr, a chunked one, a symlink, a FIFO and a hard
// link): Open upgrades it to version 6 without rewriting an entry, ReadDirNames gives
// the old entries' types from their inodes and the new entries' from the
// entries, renames and links record the type, a tree copy of old entries
// works, and Check passes throughout and after a reopen.
func TestMigrateV5(t *testing.T) {
	ctx := context.Background()
	path := oldStore(t, "testdata/store-v5.db.gz", 5)
	f, err := vfs.Open(ctx, path, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantUpgraded(t, path)
	checkOK(t, f)
	if n := namesAgree(t, f, "/", 2); n != 8 {
		t.Errorf("%d entries in the old store, want 8", n)
	}
	if typed, untyped := dentryTypes(t, path); typed != 0 || untyped != 8 {
		t.Errorf("after the upgrade: %d typed, %d untyped entries; want none rewritten", typed, untyped)
	}
	for _, step := range []func() error{
		func() error { return f.WriteFile(ctx, "/d/new", []byte("n"), 0o644) },
		func() error { return f.Rename(ctx, "/d/mid", "/d/sub/mid", 0) },
		func() error { return f.Rename(ctx, "/d/sub/x", "/d/small", 0) }, // over an old entry
		func() error { return f.Link(ctx, "/d/fifo", "/d/fifo2") },
		func() error {
			return f.CopyTree(ctx, "/d", "/copy", vfs.CopyOptions{PreserveLinks: true, PreserveXattrs: true})
		},
		func() error { return f.Rename(ctx, "/copy/link", "/copy/sub", vfs.RenameExchange) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
		checkOK(t, f)
		namesAgree(t, f, "/", 3)
	}
	// /copy/sub and /copy/link were exchanged.
	if v, err := f.Getxattr(ctx, "/copy/link/hard", "user.tag"); err != nil || string(v) != "v" {
		t.Errorf("the copy's xattr: %q %v", v, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = vfs.Open(ctx, path, vfs.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOK(t, f)
	namesAgree(t, f, "/", 100)
	f.Close()
}

// TestReadDirNames: names and types of every kind of file, pages, a
// directory with changes waiting for their commit (committed first, as by
// ReadDirPage), and the caller's path rules.
func TestReadDirNames(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	copyFixture(t, ctx, f)
	if n := namesAgree(t, f, "/", 1); n != 16 {
		t.Errorf("%d entries, want 16", n)
	}
	b := f.WithBatching(1 << 40)
	for i := range 5 {
		if err := b.WriteFile(ctx, fmt.Sprintf("/src/a/p%d", i), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Mkdir(ctx, "/src/a/pd", 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := b.ReadDirNames(ctx, "/src/a", "", 100)
	if err != nil || len(ents) != 10 {
		t.Fatalf("listing with pending changes: %d entries %v, want 10", len(ents), err)
	}
	namesAgree(t, b, "/", 4)
	ents, err = f.ReadDirNames(vfs.WithAccess(ctx, copyDeny{"/src/a/inline", false}), "/src/a", "", 100)
	if err != nil || len(ents) != 9 {
		t.Fatalf("listing with a path hidden: %d entries %v, want 9", len(ents), err)
	}
	for _, e := range ents {
		if e.Name == "inline" {
			t.Errorf("a hidden entry listed")
		}
	}
	if _, err := f.ReadDirNames(ctx, "/src/small", "", 10); vfs.Errno(err) == 0 {
		t.Errorf("ReadDirNames of a file: no error")
	}
}
