package wsfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

func TestStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	s := Open(dir, Options{Name: "test store"})
	if _, _, err := s.Read("w", "a.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read before a write: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a read made the directory: %v", err)
	}
	if err := s.Write("w", "a.json", []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	b, v1, err := s.Read("w", "a.json")
	if err != nil || string(b) != `{"a":1}` || v1.Size != 7 || v1.Ino == 0 {
		t.Fatalf("read: %q %+v %v", b, v1, err)
	}
	if sv, err := s.Stat("w", "a.json"); err != nil || sv != v1 {
		t.Fatalf("stat %+v %v, read's %+v", sv, err, v1)
	}
	if err := s.Write("w", "sub/b.json", []byte("x")); err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]os.FileMode{
		dir:                                   0o700 | os.ModeDir,
		filepath.Join(dir, "w"):               0o700 | os.ModeDir,
		filepath.Join(dir, "w", "sub"):        0o700 | os.ModeDir,
		filepath.Join(dir, "w", "a.json"):     0o600,
		filepath.Join(dir, "w", "sub/b.json"): 0o600,
	} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != mode {
			t.Errorf("%s: %v %v, want %v", p, fi.Mode(), err, mode)
		}
	}
	// A replaced document has another Version (another inode) even when its
	// size and time could be the same.
	if err := s.Write("w", "a.json", []byte(`{"a":2}`)); err != nil {
		t.Fatal(err)
	}
	b, v2, err := s.Read("w", "a.json")
	if err != nil || string(b) != `{"a":2}` || v2 == v1 || v2.Ino == v1.Ino {
		t.Fatalf("after a replace: %q %+v (was %+v) %v", b, v2, v1, err)
	}
	if l, err := s.List("w", "."); err != nil || !slices.Equal(l, []string{"a.json", "sub"}) {
		t.Fatalf("list: %q %v", l, err)
	}
	if l, err := s.List("w", "none"); err != nil || l != nil {
		t.Fatalf("list of a missing directory: %q %v", l, err)
	}
	if err := s.Remove("w", "a.json"); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("w", "a.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("second remove: %v", err)
	}
	if err := s.RemoveWorkspace("w"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "w")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("removed workspace: %v", err)
	}
}

func TestStore_badNames(t *testing.T) {
	errMine := errors.New("invalid thing")
	for _, o := range []Options{{}, {Name: "mine", Invalid: errMine}} {
		s := Open(t.TempDir(), o)
		want := ErrBadName
		if o.Invalid != nil {
			want = o.Invalid
		}
		for _, ws := range []string{"", ".", "..", "a/b", "a\x00"} {
			if err := s.Write(ws, "a.json", nil); !errors.Is(err, want) || !strings.Contains(err.Error(), "bad workspace name") {
				t.Errorf("Write(%q): %v", ws, err)
			}
			if _, _, err := s.Read(ws, "a.json"); !errors.Is(err, want) {
				t.Errorf("Read(%q): %v", ws, err)
			}
			if err := s.RemoveWorkspace(ws); !errors.Is(err, want) {
				t.Errorf("RemoveWorkspace(%q): %v", ws, err)
			}
		}
		for _, rel := range []string{"", ".", "..", "../x", "/abs", "a//b", "a/../b", ".tmp-x", "d/.tmp-x"} {
			if err := s.Write("w", rel, nil); !errors.Is(err, want) || !strings.Contains(err.Error(), "bad document name") {
				t.Errorf("Write(%q): %v", rel, err)
			}
			if err := s.Remove("w", rel); !errors.Is(err, want) {
				t.Errorf("Remove(%q): %v", rel, err)
			}
		}
	}
}

// A hostile or damaged file larger than the bound is not read: the error
// is EFBIG and the memory used stays far below the file's size.
func TestStore_oversized(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir, Options{})
	if err := os.MkdirAll(filepath.Join(dir, "w"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "w", "big.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	// 1 GiB, sparse: no disk used.
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var rerr error
	alloc := testenv.Allocated(func() { _, _, rerr = s.Read("w", "big.json") })
	var pe *fs.PathError
	if !errors.As(rerr, &pe) || !errors.Is(rerr, syscall.EFBIG) || pe.Path != p {
		t.Fatalf("read of a 1 GiB document: %v", rerr)
	}
	if alloc > 1<<20 {
		t.Fatalf("read of a 1 GiB document allocated %d bytes", alloc)
	}

	// At the bound exactly it reads; one byte more it does not.
	small := Open(dir, Options{MaxBytes: 100})
	for _, c := range []struct { // in this order: the write below expects the 101 bytes
		n  int
		ok bool
	}{{100, true}, {101, false}} {
		n, ok := c.n, c.ok
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o600); err != nil {
			t.Fatal(err)
		}
		b, _, err := small.Read("w", "big.json")
		if ok && (err != nil || len(b) != n) {
			t.Errorf("%d bytes: %d %v", n, len(b), err)
		}
		if !ok && !errors.Is(err, syscall.EFBIG) {
			t.Errorf("%d bytes over a bound of 100: %d %v", n, len(b), err)
		}
	}
	// Write refuses what Read would not read, and leaves the old one.
	if err := small.Write("w", "big.json", bytes.Repeat([]byte("y"), 101)); !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("write over the bound: %v", err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != 101 {
		t.Fatalf("the refused write changed the file: %v %v", fi, err)
	}
	// A directory where a document should be.
	if err := os.Mkdir(filepath.Join(dir, "w", "d.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Read("w", "d.json"); !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("read of a directory: %v", err)
	}
}

// crashEnv names the directory of the child process TestStore_crash kills
// while it writes.
const crashEnv = "WSFILE_CRASH_DIR"

// TestStore_crash kills (SIGKILL) a writer after it wrote and synced its
// temporary file and before the rename: the old document stays whole, the
// temporary file is not listed, and the next write removes it. A partial
// temporary file (a writer killed in the middle of its write) is handled
// the same.
func TestStore_crash(t *testing.T) {
	if d := os.Getenv(crashEnv); d != "" {
		crashChild(d)
		return
	}
	dir := t.TempDir()
	s := Open(dir, Options{})
	old := []byte(`{"old":true}`)
	if err := s.Write("w", "doc.json", old); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStore_crash$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	cmd.Stderr = os.Stderr
	line, err := testenv.FirstLine(t, cmd)
	if err != nil || line != "synced\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the writer said %q (%v), want synced", line, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the killed writer exited 0")
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, "w", tmpPrefix+"*"))
	if len(tmps) != 1 {
		t.Fatalf("temporary files after the kill: %q, want the killed writer's", tmps)
	}
	if fi, err := os.Stat(tmps[0]); err != nil || fi.Size() != 1<<20 || fi.Mode() != 0o600 {
		t.Fatalf("the killed writer's temporary file: %v %v", fi, err)
	}
	// A writer killed in the middle of its write leaves a part.
	part := filepath.Join(dir, "w", tmpPrefix+"part")
	if err := os.WriteFile(part, []byte(`{"new":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _, err := s.Read("w", "doc.json"); err != nil || !bytes.Equal(b, old) {
		t.Fatalf("after the crash: %q %v, want the old document", b, err)
	}
	if l, err := s.List("w", "."); err != nil || !slices.Equal(l, []string{"doc.json"}) {
		t.Fatalf("list after the crash: %q %v", l, err)
	}
	if err := s.Write("w", "doc.json", []byte(`{"next":1}`)); err != nil {
		t.Fatal(err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, "w", tmpPrefix+"*")); len(tmps) != 0 {
		t.Fatalf("the next write left %q", tmps)
	}
	if b, _, err := s.Read("w", "doc.json"); err != nil || string(b) != `{"next":1}` {
		t.Fatalf("after the next write: %q %v", b, err)
	}
}

func crashChild(dir string) {
	s := Open(dir, Options{})
	testHookSynced = func() {
		fmt.Println("synced")
		select {} // killed here
	}
	err := s.Write("w", "doc.json", bytes.Repeat([]byte("n"), 1<<20))
	fmt.Fprintln(os.Stderr, "the writer was not stopped:", err)
	os.Exit(3)
}

func TestStore_liveTemporaryKept(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir, Options{})
	if err := s.Write("w", "a", []byte("1")); err != nil {
		t.Fatal(err)
	}
	f, err := createLocked(filepath.Join(dir, "w"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := s.Write("w", "a", []byte("2")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.Name()); err != nil {
		t.Fatalf("a live writer's temporary file was removed: %v", err)
	}
}

// Concurrent writers and readers of one document: every read sees one
// whole document that some writer wrote.
func TestStore_concurrent(t *testing.T) {
	s := Open(t.TempDir(), Options{})
	doc := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i)}, 64<<10) }
	if err := s.Write("w", "d", doc(0)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 25 {
				if err := s.Write("w", "d", doc(i)); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				b, _, err := s.Read("w", "d")
				if err != nil {
					errs <- err
					return
				}
				if len(b) != 64<<10 || bytes.Count(b, b[:1]) != len(b) {
					errs <- fmt.Errorf("read a torn document (%d bytes)", len(b))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
