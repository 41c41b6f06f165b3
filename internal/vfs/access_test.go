package vfs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// prefixAccess is the simplest Access: paths under deny are invisible,
// under ro read-only (package policy's rules are tested through every
// surface in the packages above).
type prefixAccess struct{ deny, ro []string }

func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

func (a prefixAccess) AllowPath(p string, write bool) syscall.Errno {
	switch {
	case under(p, a.deny):
		return syscall.ENOENT
	case write && under(p, a.ro):
		return syscall.EACCES
	}
	return 0
}

func TestWithAccess(t *testing.T) {
	bg := context.Background()
	f, err := vfs.Open(bg, filepath.Join(t.TempDir(), "a.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, d := range []string{"/w/hidden", "/w/ro", "/w/rw"} {
		if err := f.MkdirAll(bg, d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		if err := f.WriteFile(bg, fmt.Sprintf("/w/f%02d", i), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.WriteFile(bg, "/w/.env", []byte("SECRET=1"), 0o600)
	f.WriteFile(bg, "/w/hidden/x", []byte("x"), 0o644)
	f.WriteFile(bg, "/w/ro/x", []byte("x"), 0o644)
	f.Symlink(bg, "/w/.env", "/w/link")
	f.Symlink(bg, "/w/hidden", "/w/dirlink")

	ctx := vfs.WithAccess(bg, prefixAccess{deny: []string{"/w/.env", "/w/hidden", "/w/f03", "/w/f04"}, ro: []string{"/w/ro"}})
	errno := func(err error) syscall.Errno {
		var e syscall.Errno
		if errors.As(err, &e) {
			return e
		}
		return 0
	}
	for _, tc := range []struct {
		name string
		op   func() error
		want syscall.Errno
	}{
		{"read denied", func() error { _, err := f.ReadFile(ctx, "/w/.env"); return err }, syscall.ENOENT},
		{"stat denied", func() error { _, err := f.Stat(ctx, "/w/hidden/x"); return err }, syscall.ENOENT},
		{"through a symlink", func() error { _, err := f.ReadFile(ctx, "/w/link"); return err }, syscall.ENOENT},
		{"through a directory symlink", func() error { _, err := f.ReadFile(ctx, "/w/dirlink/x"); return err }, syscall.ENOENT},
		{"lstat of the link itself", func() error { _, err := f.Lstat(ctx, "/w/link"); return err }, 0},
		{"dotdot", func() error { _, err := f.ReadFile(ctx, "/w/rw/../.env"); return err }, syscall.ENOENT},
		{"write denied", func() error { return f.WriteFile(ctx, "/w/.env", nil, 0o644) }, syscall.ENOENT},
		{"create in denied", func() error { return f.WriteFile(ctx, "/w/hidden/new", nil, 0o644) }, syscall.ENOENT},
		{"read read-only", func() error { _, err := f.ReadFile(ctx, "/w/ro/x"); return err }, 0},
		{"write read-only", func() error { return f.WriteFile(ctx, "/w/ro/x", []byte("y"), 0o644) }, syscall.EACCES},
		{"open read-only for writing", func() error {
			h, err := f.OpenFile(ctx, "/w/ro/x", os.O_WRONLY, 0)
			if err == nil {
				h.Close()
			}
			return err
		}, syscall.EACCES},
		{"remove read-only", func() error { return f.Remove(ctx, "/w/ro/x") }, syscall.EACCES},
		{"rename out of read-only", func() error { return f.Rename(ctx, "/w/ro/x", "/w/rw/x", 0) }, syscall.EACCES},
		{"rename into read-only", func() error { return f.Rename(ctx, "/w/f00", "/w/ro/y", 0) }, syscall.EACCES},
		{"mkdirall into read-only", func() error { return f.MkdirAll(ctx, "/w/ro/a/b", 0o755) }, syscall.EACCES},
		{"chmod read-only", func() error { return f.Chmod(ctx, "/w/ro/x", 0o600) }, syscall.EACCES},
		{"write allowed", func() error { return f.WriteFile(ctx, "/w/rw/x", []byte("y"), 0o644) }, 0},
		{"symlink into read-only", func() error { return f.Symlink(ctx, "x", "/w/ro/l") }, syscall.EACCES},
		{"link a denied file", func() error { return f.Link(ctx, "/w/.env", "/w/rw/env") }, syscall.ENOENT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errno(tc.op()); got != tc.want {
				t.Fatalf("errno %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("listings leave denied entries out", func(t *testing.T) {
		ents, err := f.ReadDir(ctx, "/w")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name)
		}
		got := strings.Join(names, " ")
		if want := "dirlink f00 f01 f02 f05 f06 f07 f08 f09 link ro rw"; got != want {
			t.Fatalf("ReadDir: %s, want %s", got, want)
		}
		// Pages of 3 are refilled past hidden entries: paging sees all.
		paged := pagedNames(t, func(after string) ([]vfs.DirEntry, error) { return f.ReadDirPage(ctx, "/w", after, 3) },
			func(e vfs.DirEntry) string { return e.Name })
		if strings.Join(paged, " ") != got {
			t.Fatalf("paged: %v", paged)
		}
		files := pagedNames(t, func(after string) ([]vfs.DirFile, error) { return f.ReadDirFiles(ctx, "/w", after, 3, 1024) },
			func(e vfs.DirFile) string { return e.Name })
		if strings.Join(files, " ") != got {
			t.Fatalf("ReadDirFiles paged: %v", files)
		}
		// Without the access, everything.
		all, _ := f.ReadDir(bg, "/w")
		if len(all) != len(ents)+4 {
			t.Fatalf("unchecked ReadDir: %d entries", len(all))
		}
	})
}

// pagedNames lists a directory page by page (page(after) gives the entries
// after the name after, three at most), as a caller pages through one: the
// names of every page, until a page short of three.
func pagedNames[E any](t *testing.T, page func(after string) ([]E, error), name func(E) string) []string {
	t.Helper()
	var names []string
	for after := ""; ; {
		ents, err := page(after)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			names = append(names, name(e))
		}
		if len(ents) < 3 {
			return names
		}
		after = name(ents[len(ents)-1])
	}
}
