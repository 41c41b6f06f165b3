package search

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/glob"
	"github.com/desk-dev/desk/internal/vfs"
)

// untimed is the MaxTime of the tests of the other limits: a hang guard, so
// that a loaded machine (CI under -race) cannot make them meet MaxTime
// first.
const untimed = time.Hour

func newFS(t *testing.T) *vfs.FS {
	t.Helper()
	fsys, err := vfs.Open(context.Background(), filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// put writes files (a trailing "/" makes a directory) in one batch.
func put(t *testing.T, fsys *vfs.FS, files map[string]string) {
	t.Helper()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	err := fsys.Batch(context.Background(), func(b *vfs.Batch) error {
		for _, n := range names {
			if strings.HasSuffix(n, "/") {
				if err := b.MkdirAll(n, 0o755); err != nil {
					return err
				}
				continue
			}
			if err := b.MkdirAll(filepath.Dir(n), 0o755); err != nil {
				return err
			}
			if err := b.WriteFile(n, []byte(files[n]), 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// heap samples the live heap while a call runs (from its callbacks) and
// after it: peak is the most seen above the start.
type heap struct {
	start uint64
	peak  uint64
	n     int
}

func newHeap() *heap {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return &heap{start: m.HeapAlloc}
}

// sample reads the heap every 1000th call.
func (h *heap) sample() {
	if h.n++; h.n%1000 != 1 {
		return
	}
	h.read()
}

func (h *heap) read() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > h.start && m.HeapAlloc-h.start > h.peak {
		h.peak = m.HeapAlloc - h.start
	}
}

func (h *heap) check(t *testing.T, limit uint64) {
	t.Helper()
	h.read()
	t.Logf("heap peak %d KiB above the start", h.peak>>10)
	if h.peak > limit {
		t.Errorf("the heap grew by %d bytes, over %d", h.peak, limit)
	}
}

func wantLimit(t *testing.T, err error, limit string) {
	t.Helper()
	le, ok := AsLimit(err)
	if !ok || le.Limit != limit || !errors.Is(err, ErrLimit) {
		t.Fatalf("got %v, want the %s limit", err, limit)
	}
}

func TestWalkOrderAndFrom(t *testing.T) {
	fsys := newFS(t)
	put(t, fsys, map[string]string{"/r/b/x": "", "/r/a": "", "/r/b/a/z": "", "/r/c/": "", "/r/b.txt": ""})
	visit := func(from string) []string {
		var got []string
		w := &Walk{FS: fsys, Limits: Limits{MaxTime: untimed}, From: from, Visit: func(p string, f *vfs.DirFile) (bool, error) {
			got = append(got, p)
			return true, nil
		}}
		if err := w.Run(context.Background(), "/r"); err != nil {
			t.Fatal(err)
		}
		return got
	}
	all := []string{"/r/a", "/r/b", "/r/b/a", "/r/b/a/z", "/r/b/x", "/r/b.txt", "/r/c"}
	if got := visit(""); !slices.Equal(got, all) {
		t.Errorf("walk: %q, want %q", got, all)
	}
	for i, from := range all {
		if got := visit(from); !slices.Equal(got, all[i:]) {
			t.Errorf("walk from %s: %q, want %q", from, got, all[i:])
		}
	}
}

// TestWalk_wideDirectory: a directory of 100,000 entries walked with a
// MaxEntries of 10,000 stops at it, holding one page at a time.
func TestWalk_wideDirectory(t *testing.T) {
	fsys := newFS(t)
	err := fsys.Batch(context.Background(), func(b *vfs.Batch) error {
		if err := b.MkdirAll("/wide", 0o755); err != nil {
			return err
		}
		for i := range 100_000 {
			if err := b.WriteFile(fmt.Sprintf("/wide/f%06d", i), []byte("x"), 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := newHeap()
	n := 0
	w := &Walk{FS: fsys, Limits: Limits{MaxEntries: 10_000, MaxTime: untimed}, Load: true, Visit: func(p string, f *vfs.DirFile) (bool, error) {
		n++
		h.sample()
		return true, nil
	}}
	wantLimit(t, w.Run(context.Background(), "/wide"), "MaxEntries")
	if n != 10_000 || w.Last != "/wide/f009999" {
		t.Errorf("visited %d entries, the last %s", n, w.Last)
	}
	h.check(t, 16<<20)
}

// TestWalk_deepTree: a tree 1,000 levels deep with 30 files of 4 KiB
// beside each directory (31,000 entries) is walked whole in memory that
// does not grow with its depth: the pages above are not held (they would
// come to 120 MiB). The bound includes the store's own inode cache.
func TestWalk_deepTree(t *testing.T) {
	fsys := newFS(t)
	content := []byte(strings.Repeat("k", 4096))
	err := fsys.Batch(context.Background(), func(b *vfs.Batch) error {
		dir := "/deep"
		for range 1000 {
			dir += "/d"
			if err := b.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			for i := range 10 {
				// "e…" names sort after "d": the page that holds them
				// is read when the walk goes down. (Ten a level: the
				// build's cost grows with depth × files, and under the
				// race detector thirty took minutes.)
				if err := b.WriteFile(fmt.Sprintf("%s/e%03d", dir[:len(dir)-2], i), content, 0o644); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := newHeap()
	n, depth := 0, 0
	w := &Walk{FS: fsys, Limits: Limits{MaxTime: untimed}, Load: true, Visit: func(p string, f *vfs.DirFile) (bool, error) {
		n++
		depth = max(depth, strings.Count(p, "/"))
		h.sample()
		return true, nil
	}}
	if err := w.Run(context.Background(), "/deep"); err != nil {
		t.Fatal(err)
	}
	if n != 11_000 || depth != 1001 {
		t.Errorf("visited %d entries, %d deep", n, depth)
	}
	h.check(t, 64<<20)
	w = &Walk{FS: fsys, Limits: Limits{MaxEntries: 5000, MaxTime: untimed}, Load: true, Visit: func(string, *vfs.DirFile) (bool, error) { return true, nil }}
	wantLimit(t, w.Run(context.Background(), "/deep"), "MaxEntries")
}

func TestWalk_context(t *testing.T) {
	fsys := newFS(t)
	put(t, fsys, map[string]string{"/r/a": "", "/r/b": ""})
	ctx, cancel := context.WithCancel(context.Background())
	w := &Walk{FS: fsys, Limits: Limits{MaxTime: untimed}, Visit: func(string, *vfs.DirFile) (bool, error) {
		cancel()
		return true, nil
	}}
	w2 := *w
	if err := w.Run(ctx, "/r"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: %v", err)
	}
	w2.Limits.MaxTime = time.Nanosecond
	if err := w2.Run(context.Background(), "/r"); err != nil {
		wantLimit(t, err, "MaxTime")
	} else {
		t.Error("a walk with MaxTime 1ns ended without its limit")
	}
}

func TestFind_globStars(t *testing.T) {
	fsys := newFS(t)
	files := map[string]string{}
	for i := range 200 {
		files[fmt.Sprintf("/r/%s/f%d.go", strings.Repeat("d/", i%40), i)] = ""
	}
	put(t, fsys, files)
	g, err := glob.Compile("**/**/**/**/d/**/**/f1?.go", false)
	if err != nil {
		t.Fatal(err)
	}
	h := newHeap()
	var got []string
	err = Find(context.Background(), fsys, "/r", g, Limits{MaxTime: untimed}, func(p string, f *vfs.DirFile) bool {
		got = append(got, Rel("/r", p))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 { // f10..f19

		t.Errorf("found %q", got)
	}
	h.check(t, 16<<20)
}

func TestCompile_limits(t *testing.T) {
	h := newHeap()
	for _, q := range []string{
		"[a-y]{0,1000}z",
		`(a|b){1000}`,
		`\pL{999}x{999}y{100}`,
	} {
		if _, err := Compile(q, false, false, Limits{}); !errors.Is(err, ErrRegexpTooLarge) {
			t.Errorf("Compile(%.40q): %v, want ErrRegexpTooLarge", q, err)
		}
	}
	// Go's parser refuses some itself (nested repeats over 1000).
	for _, q := range []string{"(?:x{1000}){1000}", "(?:a{40}){40}", "(?:(?:(?:a{1000}){1000}){1000}){1000}"} {
		if _, err := Compile(q, false, false, Limits{}); err == nil {
			t.Errorf("Compile(%.40q) succeeded", q)
		}
	}
	if _, err := Compile(strings.Repeat("a", 1025), true, false, Limits{}); !errors.Is(err, ErrRegexpTooLarge) {
		t.Errorf("a 1025-byte query: %v", err)
	}
	if _, err := Compile(strings.Repeat(".", 1024), true, true, Limits{}); err != nil {
		t.Errorf("a 1024-byte literal query: %v", err)
	}
	if _, err := Compile("a(", false, false, Limits{}); err == nil || errors.Is(err, ErrLimit) {
		t.Errorf("a syntax error: %v", err)
	}
	h.check(t, 16<<20)
}

func grepAll(t *testing.T, g *Grep, root string) ([]string, error) {
	t.Helper()
	var got []string
	g.Hit = func(h *Hit) bool {
		got = append(got, fmt.Sprintf("%s:%d:%s", h.Path, h.N, h.Text))
		return true
	}
	err := g.Run(context.Background(), root)
	return got, err
}

func TestGrep(t *testing.T) {
	fsys := newFS(t)
	put(t, fsys, map[string]string{
		"/r/a.go": "package a\r\nfunc A() {}\n", "/r/b/c.go": "x\nfunc C()\ny\n", "/r/bin": "func\x00",
		"/r/big": strings.Repeat("func\n", 100), "/r/n.txt": "func N",
	})
	re, err := Compile("func", true, false, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	inc, _ := glob.Compile("**/*.go", false)
	g := &Grep{FS: fsys, Limits: Limits{MaxTime: untimed}, Re: re, Include: inc, Context: 1}
	var ctx []string
	g.Hit = func(h *Hit) bool {
		for _, l := range h.Before {
			ctx = append(ctx, fmt.Sprintf("%d-%s", l.N, l.Text))
		}
		ctx = append(ctx, fmt.Sprintf("%d:%s", h.N, h.Text))
		for _, l := range h.After {
			ctx = append(ctx, fmt.Sprintf("%d-%s", l.N, l.Text))
		}
		return true
	}
	if err := g.Run(context.Background(), "/r"); err != nil {
		t.Fatal(err)
	}
	want := []string{"1-package a", "2:func A() {}", "1-x", "2:func C()", "3-y"}
	if !slices.Equal(ctx, want) || g.Files != 2 {
		t.Errorf("got %q (%d files), want %q", ctx, g.Files, want)
	}

	g = &Grep{FS: fsys, Re: re, Limits: Limits{MaxFileBytes: 100, MaxTime: untimed}}
	got, err := grepAll(t, g, "/r")
	if err != nil || len(got) != 3 || g.Skipped != 2 {
		t.Errorf("got %q, %v, %d skipped", got, err, g.Skipped)
	}
	// A cursor resumes where a page ended.
	var page []string
	g = &Grep{FS: fsys, Limits: Limits{MaxTime: untimed}, Re: re, Hit: func(h *Hit) bool {
		if len(page) == 2 {
			return false
		}
		page = append(page, fmt.Sprintf("%s:%d", h.Path, h.N))
		return true
	}}
	if err := g.Run(context.Background(), "/r"); err != nil || g.Next != (Cursor{"/r/big", 0}) {
		t.Errorf("page %q, next %v, %v", page, g.Next, err)
	}
	g = &Grep{FS: fsys, Limits: Limits{MaxTime: untimed}, Re: re, After: Cursor{"/r/b/c.go", 1}}
	got, _ = grepAll(t, g, "/r")
	if len(got) != 102 || got[0] != "/r/b/c.go:2:func C()" {
		t.Errorf("resumed: %d hits from %q", len(got), got[:1])
	}
}

// TestGrep_maxBytes: a tree of 100 files of 1 MiB with a MaxBytes of 8 MiB
// stops after 8 files with a cursor at the ninth, and the pages cover the
// tree.
func TestGrep_maxBytes(t *testing.T) {
	fsys := newFS(t)
	files := map[string]string{}
	body := strings.Repeat("abcdefgh\n", (1<<20)/9-1) + "needle\n" // under 1 MiB
	for i := range 100 {
		files[fmt.Sprintf("/r/f%03d", i)] = body
	}
	put(t, fsys, files)
	re, _ := Compile("needle", true, false, Limits{})
	h := newHeap()
	total, pages := 0, 0
	after := Cursor{}
	for {
		g := &Grep{FS: fsys, Re: re, After: after, Limits: Limits{MaxBytes: 8 << 20, MaxTime: untimed}}
		got, err := grepAll(t, g, "/r")
		h.sample()
		total += len(got)
		pages++
		if err == nil {
			break
		}
		wantLimit(t, err, "MaxBytes")
		if len(got) != 8 {
			t.Fatalf("page %d: %d hits", pages, len(got))
		}
		after = g.Next
	}
	if total != 100 || pages != 13 {
		t.Errorf("%d hits in %d pages", total, pages)
	}
	h.check(t, 32<<20)
}

// TestGrep_hugeLine: an 8 MiB file of one line, searched with the most
// costly expression the limits let through (over a minute of matching),
// ends at MaxTime, and so does a context that ends meanwhile.
func TestGrep_hugeLine(t *testing.T) {
	fsys := newFS(t)
	put(t, fsys, map[string]string{"/r/one": strings.Repeat("a", 8<<20)})
	// (A class at the end, not a "z": a required literal the file lacks
	// would answer at once, through the prefilter.)
	re, err := Compile("[a-y]{0,900}[z{]", false, false, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHeap()
	g := &Grep{FS: fsys, Re: re, Limits: Limits{MaxTime: 50 * time.Millisecond}}
	got, err := grepAll(t, g, "/r")
	wantLimit(t, err, "MaxTime")
	if len(got) != 0 || g.Next != (Cursor{"/r/one", 0}) {
		t.Errorf("got %q, next %v", got, g.Next)
	}
	// A context that ends while the match runs (its deadline passes mid-way:
	// matching takes over a minute) ends the search with its error. (Not a
	// goroutine cancelling once g.Files moves: that read raced with Run.)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	g = &Grep{FS: fsys, Re: re, Hit: func(*Hit) bool { return true }}
	if err := g.Run(ctx, "/r/one"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("context ended: %v", err)
	}
	if g.Files != 1 {
		t.Errorf("the context ended the search before it reached the file (%d files)", g.Files)
	}
	h.check(t, 48<<20)
}
