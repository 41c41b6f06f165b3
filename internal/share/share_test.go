package share_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/share"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

func newClock() *testenv.Clock {
	return testenv.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
}

func openStore(t *testing.T, dir string, c *testenv.Clock, o share.Options) *share.Store {
	t.Helper()
	o.Dir, o.BaseURL, o.Now = dir, "http://desk.test/", c.Now
	s, err := share.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func create(t *testing.T, s *share.Store, ws, p, content string, ttl time.Duration) share.Created {
	t.Helper()
	c, err := s.Create(context.Background(), ws, share.Source{Path: p, Content: strings.NewReader(content), TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func token(t *testing.T, c share.Created) string {
	t.Helper()
	tok, ok := strings.CutPrefix(c.URL, "http://desk.test/s/")
	if !ok {
		t.Fatalf("URL %q is not under the base URL", c.URL)
	}
	return tok
}

func readShare(t *testing.T, s *share.Store, tok string) (share.Share, string, error) {
	t.Helper()
	sh, f, err := s.Open(context.Background(), tok)
	if err != nil {
		return sh, "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return sh, string(b), nil
}

func blobs(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(filepath.Join(dir, "blobs"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

func TestCreateOpen(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	s := openStore(t, dir, c, share.Options{})
	cr := create(t, s, "demo", "/workspace/out/report.pdf", "%PDF-1.7 not really", 0)
	if cr.Expires.Sub(cr.Created) != share.DefaultTTL || cr.Disposition != share.Inline || cr.ContentType != "application/pdf" {
		t.Fatalf("created %+v", cr.Share)
	}
	tok := token(t, cr)
	if !share.ValidToken(tok) || len(tok)*6 < 128 {
		t.Fatalf("token %q: want at least 128 bits", tok)
	}
	sh, body, err := readShare(t, s, tok)
	if err != nil || body != "%PDF-1.7 not really" || sh.ID != cr.ID || sh.SHA256 == "" || sh.Size != int64(len(body)) {
		t.Fatalf("open: %+v %q %v", sh, body, err)
	}
	if got := sh.ContentDisposition(); got != `inline; filename=report.pdf` {
		t.Errorf("disposition %q", got)
	}
	// Sniffed when the name says nothing.
	cr2 := create(t, s, "demo", "/workspace/noext", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 0)
	if cr2.ContentType != "image/png" {
		t.Errorf("sniffed type %q", cr2.ContentType)
	}
	for _, bad := range []string{"", "x", tok + "x", strings.Repeat("A", len(tok)-1) + "?"} {
		if _, _, err := s.Open(context.Background(), bad); !errors.Is(err, share.ErrNotFound) {
			t.Errorf("Open(%q) = %v, want ErrNotFound", bad, err)
		}
	}
	// A valid-looking token that nobody made.
	if _, _, err := s.Open(context.Background(), strings.Repeat("A", len(tok))); !errors.Is(err, share.ErrNotFound) {
		t.Errorf("unknown token: %v", err)
	}
}

func TestExpiry(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	s := openStore(t, dir, c, share.Options{Retain: time.Hour})
	cr := create(t, s, "demo", "/a.txt", "hello", 10*time.Minute)
	tok := token(t, cr)
	c.Add(10*time.Minute - time.Nanosecond)
	if _, body, err := readShare(t, s, tok); err != nil || body != "hello" {
		t.Fatalf("just before expiry: %q %v", body, err)
	}
	c.Add(time.Nanosecond)
	if _, _, err := readShare(t, s, tok); !errors.Is(err, share.ErrGone) {
		t.Fatalf("at expiry: %v, want ErrGone", err)
	}
	// The content stays until a sweep, the record for Retain after that.
	if n := blobs(t, dir); n != 1 {
		t.Fatalf("%d blobs before the sweep", n)
	}
	res, err := s.Sweep(context.Background())
	if err != nil || res.Dropped != 1 || res.Forgotten != 0 || blobs(t, dir) != 0 {
		t.Fatalf("sweep: %+v %v, %d blobs", res, err, blobs(t, dir))
	}
	l, _, err := s.List(context.Background(), "demo", "", 0)
	if err != nil || len(l) != 1 || l[0].State(c.Now()) != share.StateExpired {
		t.Fatalf("list after expiry: %+v %v", l, err)
	}
	c.Add(time.Hour)
	if res, err := s.Sweep(context.Background()); err != nil || res.Forgotten != 1 {
		t.Fatalf("second sweep: %+v %v", res, err)
	}
	if _, _, err := readShare(t, s, tok); !errors.Is(err, share.ErrNotFound) {
		t.Fatalf("forgotten: %v, want ErrNotFound", err)
	}
}

func TestTTLBounds(t *testing.T) {
	s := openStore(t, t.TempDir(), newClock(), share.Options{})
	for _, ttl := range []time.Duration{-time.Second, time.Millisecond, share.MaxTTL + time.Second} {
		_, err := s.Create(context.Background(), "demo", share.Source{Path: "/a", Content: strings.NewReader("x"), TTL: ttl})
		if !errors.Is(err, share.ErrInvalid) {
			t.Errorf("ttl %v: %v, want ErrInvalid", ttl, err)
		}
	}
	cr := create(t, s, "demo", "/a", "x", share.MaxTTL)
	if cr.Expires.Sub(cr.Created) != share.MaxTTL {
		t.Errorf("max ttl: %v", cr.Expires.Sub(cr.Created))
	}
	_, err := s.Create(context.Background(), "demo", share.Source{Path: "/a", Content: strings.NewReader("x"), Disposition: "download"})
	if !errors.Is(err, share.ErrInvalid) {
		t.Errorf("bad disposition: %v", err)
	}
	_, err = s.Create(context.Background(), "demo", share.Source{Path: "rel", Content: strings.NewReader("x")})
	if !errors.Is(err, share.ErrInvalid) {
		t.Errorf("relative path: %v", err)
	}
}

func TestRevokeAndDedup(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	s := openStore(t, dir, c, share.Options{})
	a := create(t, s, "demo", "/a.txt", "same bytes", 0)
	b := create(t, s, "demo", "/b.txt", "same bytes", 0)
	if a.SHA256 != b.SHA256 || blobs(t, dir) != 1 {
		t.Fatalf("same content: %s %s, %d blobs", a.SHA256, b.SHA256, blobs(t, dir))
	}
	if _, err := s.Revoke(context.Background(), "other", a.ID); !errors.Is(err, share.ErrNotFound) {
		t.Fatalf("revoke in another workspace: %v", err)
	}
	sh, err := s.Revoke(context.Background(), "demo", a.ID)
	if err != nil || sh.State(c.Now()) != share.StateRevoked {
		t.Fatalf("revoke: %+v %v", sh, err)
	}
	if _, _, err := readShare(t, s, token(t, a)); !errors.Is(err, share.ErrGone) {
		t.Fatalf("revoked: %v", err)
	}
	if _, body, err := readShare(t, s, token(t, b)); err != nil || body != "same bytes" || blobs(t, dir) != 1 {
		t.Fatalf("the other share of the same bytes: %q %v, %d blobs", body, err, blobs(t, dir))
	}
	if _, err := s.Revoke(context.Background(), "demo", a.ID); err != nil {
		t.Fatalf("revoke again: %v", err)
	}
	if _, err := s.Revoke(context.Background(), "demo", b.ID); err != nil || blobs(t, dir) != 0 {
		t.Fatalf("revoke the last holder: %v, %d blobs", err, blobs(t, dir))
	}
	// A download under way when the share is revoked finishes.
	d := create(t, s, "demo", "/d.txt", "downloading", 0)
	_, f, err := s.Open(context.Background(), token(t, d))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := s.Revoke(context.Background(), "demo", d.ID); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "downloading" {
		t.Fatalf("read after revoke: %q %v", b, err)
	}
}

func TestLimits(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	s := openStore(t, dir, c, share.Options{MaxShares: 3, MaxFileBytes: 10, MaxWorkspaceBytes: 25})
	_, err := s.Create(context.Background(), "demo", share.Source{Path: "/big", Content: strings.NewReader(strings.Repeat("x", 11))})
	if !errors.Is(err, share.ErrTooLarge) {
		t.Fatalf("11 bytes: %v, want ErrTooLarge", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(entries) != 0 || blobs(t, dir) != 0 {
		t.Fatalf("a refused share left %d spool files, %d blobs", len(entries), blobs(t, dir))
	}
	a := create(t, s, "demo", "/a", strings.Repeat("a", 10), 0)
	create(t, s, "demo", "/b", strings.Repeat("b", 10), 0)
	_, err = s.Create(context.Background(), "demo", share.Source{Path: "/c", Content: strings.NewReader(strings.Repeat("c", 10))})
	if !errors.Is(err, share.ErrTooMany) {
		t.Fatalf("30 bytes live: %v, want ErrTooMany", err)
	}
	create(t, s, "demo", "/c", "c", 0)
	if _, err := s.Create(context.Background(), "demo", share.Source{Path: "/d", Content: strings.NewReader("d")}); !errors.Is(err, share.ErrTooMany) {
		t.Fatalf("a fourth share: %v, want ErrTooMany", err)
	}
	// Another workspace has its own bounds.
	create(t, s, "other", "/d", "d", 0)
	// An ended share makes room: it is forgotten to keep the bound.
	if _, err := s.Revoke(context.Background(), "demo", a.ID); err != nil {
		t.Fatal(err)
	}
	create(t, s, "demo", "/d", "d", 0)
	l, more, err := s.List(context.Background(), "demo", "", 0)
	if err != nil || more || len(l) != 3 {
		t.Fatalf("list: %d shares, more %v, %v", len(l), more, err)
	}
	for _, sh := range l {
		if sh.ID == a.ID {
			t.Fatalf("the revoked share is still listed after making room")
		}
	}
	// Paging.
	p1, more, err := s.List(context.Background(), "demo", "", 2)
	if err != nil || !more || len(p1) != 2 {
		t.Fatalf("page 1: %d, more %v, %v", len(p1), more, err)
	}
	p2, more, err := s.List(context.Background(), "demo", p1[1].ID, 2)
	if err != nil || more || len(p2) != 1 || p2[0].ID != l[2].ID {
		t.Fatalf("page 2: %+v, more %v, %v", p2, more, err)
	}
}

// TestTwoProcesses opens the same directory twice, as desk serve's front
// and a worker do: a share made by one is served by the other, and a
// revocation by one takes effect at once for the other.
func TestTwoProcesses(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	front := openStore(t, dir, c, share.Options{})
	worker := openStore(t, dir, c, share.Options{})
	cr := create(t, worker, "demo", "/a.txt", "from the worker", 0)
	if _, body, err := readShare(t, front, token(t, cr)); err != nil || body != "from the worker" {
		t.Fatalf("front: %q %v", body, err)
	}
	if _, err := front.Revoke(context.Background(), "demo", cr.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readShare(t, worker, token(t, cr)); !errors.Is(err, share.ErrGone) {
		t.Fatalf("worker after the front's revoke: %v", err)
	}
	// Creates from both at once keep both bounds and both contents.
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		s := front
		if i%2 == 1 {
			s = worker
		}
		wg.Go(func() {
			_, err := s.Create(context.Background(), "demo", share.Source{Path: "/x", Content: strings.NewReader("same")})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := blobs(t, dir); n != 1 {
		t.Fatalf("%d blobs for one content", n)
	}
}

func TestDeleteWorkspace(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	s := openStore(t, dir, c, share.Options{})
	a := create(t, s, "demo", "/a", "a", 0)
	b := create(t, s, "keep", "/b", "b", 0)
	if err := s.DeleteWorkspace(context.Background(), "demo"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readShare(t, s, token(t, a)); !errors.Is(err, share.ErrNotFound) {
		t.Fatalf("share of a deleted workspace: %v", err)
	}
	if l, _, _ := s.List(context.Background(), "demo", "", 0); len(l) != 0 {
		t.Fatalf("a deleted workspace lists %d shares", len(l))
	}
	if _, body, err := readShare(t, s, token(t, b)); err != nil || body != "b" {
		t.Fatalf("another workspace's share: %q %v", body, err)
	}
	if n := blobs(t, dir); n != 1 {
		t.Fatalf("%d blobs", n)
	}
}

// TestPublishFrozen shares a file of a real store: later writes, a
// rename and the removal of the file do not change what the link serves.
func TestPublishFrozen(t *testing.T) {
	ctx := context.Background()
	fsys, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if err := fsys.MkdirAll(ctx, "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	put := func(p, content string) {
		f, err := fsys.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000) // several chunks
	put("/workspace/r.html", string(big))
	c := newClock()
	s := openStore(t, t.TempDir(), c, share.Options{MaxFileBytes: 1 << 20})
	w := share.Workspace{Store: s, Name: "demo"}
	cr, err := w.Publish(ctx, fsys, "/workspace/r.html", time.Hour, share.Attachment)
	if err != nil {
		t.Fatal(err)
	}
	if cr.ContentType != "text/html; charset=utf-8" || cr.ContentDisposition() != "attachment; filename=r.html" {
		t.Fatalf("created %+v", cr.Share)
	}
	put("/workspace/r.html", "changed")
	if err := fsys.Rename(ctx, "/workspace/r.html", "/workspace/s.html", 0); err != nil {
		t.Fatal(err)
	}
	if _, body, err := readShare(t, s, token(t, cr)); err != nil || body != string(big) {
		t.Fatalf("after an edit: %d bytes %v", len(body), err)
	}
	if err := fsys.Remove(ctx, "/workspace/s.html"); err != nil {
		t.Fatal(err)
	}
	if _, body, err := readShare(t, s, token(t, cr)); err != nil || body != string(big) {
		t.Fatalf("after removal: %d bytes %v", len(body), err)
	}
	// What cannot be shared.
	for p, want := range map[string]error{"/workspace": syscall.EISDIR, "/workspace/missing": syscall.ENOENT} {
		if _, err := w.Publish(ctx, fsys, p, 0, ""); !errors.Is(err, want) {
			t.Errorf("publish %s: %v, want %v", p, err, want)
		}
	}
	put("/workspace/huge", string(bytes.Repeat([]byte{1}, 1<<20+1)))
	if _, err := w.Publish(ctx, fsys, "/workspace/huge", 0, ""); !errors.Is(err, share.ErrTooLarge) {
		t.Errorf("publish over the limit: %v", err)
	}
}
