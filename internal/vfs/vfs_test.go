package vfs_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
)

// adapter makes *vfs.FS satisfy vfstest.FS (whose methods return interfaces).
type adapter struct{ *vfs.FS }

func (a adapter) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	fi, err := a.FS.Stat(ctx, name)
	if err != nil {
		return nil, err
	}
	return fi, nil
}

func (a adapter) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	fi, err := a.FS.Lstat(ctx, name)
	if err != nil {
		return nil, err
	}
	return fi, nil
}

func (a adapter) OpenFile(ctx context.Context, name string, flag int, perm fs.FileMode) (vfstest.File, error) {
	h, err := a.FS.OpenFile(ctx, name, flag, perm)
	if err != nil {
		return nil, err
	}
	return fileAdapter{h}, nil
}

type fileAdapter struct{ *vfs.File }

func (h fileAdapter) Stat() (fs.FileInfo, error) {
	fi, err := h.File.Stat()
	if err != nil {
		return nil, err
	}
	return fi, nil
}

var _ vfstest.FS = adapter{}

// storeAt opens a new store with opts and returns its path too, for a test
// that closes and reopens it. The test closes it.
func storeAt(t *testing.T, opts vfs.Options) (*vfs.FS, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ws.db")
	f, err := vfs.Open(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f, path
}

func openStore(t testing.TB, opts vfs.Options) *vfs.FS {
	t.Helper()
	f, err := vfs.Open(context.Background(), filepath.Join(t.TempDir(), "ws.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rep, err := f.Check(context.Background())
		if err != nil {
			t.Errorf("check: %v", err)
		} else if !rep.OK() {
			t.Errorf("check found problems: %v", rep.Problems)
		}
		if err := f.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return f
}

// TestConformance runs the vfstest suite against the vfs (a small chunk size
// makes multi-chunk paths common). The same suite runs against the kernel in
// package vfstest.
//
// The "nocache" variant shrinks the in-memory cache to a few entries so that
// nearly every lookup reads SQLite: it checks that what is stored round-trips
// (the cache would otherwise hide an encoding bug).
func TestConformance(t *testing.T) {
	for _, v := range []struct {
		name string
		opts vfs.Options
	}{
		{"4KiB", vfs.Options{ChunkSize: 4 << 10}},
		{"64KiB", vfs.Options{ChunkSize: 64 << 10}},
		{"nocache", vfs.Options{ChunkSize: 4 << 10, CacheEntries: 2}},
		{"deferred", vfs.Options{ChunkSize: 4 << 10}},
		{"deferred-nocache", vfs.Options{ChunkSize: 4 << 10, CacheEntries: 2}},
	} {
		t.Run(v.name, func(t *testing.T) {
			vfstest.Run(t, func(t *testing.T) vfstest.FS {
				f := openStore(t, v.opts)
				if strings.HasPrefix(v.name, "deferred") {
					// Every mutation deferred, with a delay long enough
					// that only the store's own rules commit.
					f = f.WithCommitDelay(time.Minute)
				}
				return adapter{f}
			})
		})
	}
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// FuzzOps applies random operation sequences to the vfs and to a kernel temp
// directory and fails on any difference.
func FuzzOps(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"))
	f.Add([]byte("mkdir a; write a/b; rename a c; link; symlink; remove; truncate 1234567"))
	f.Fuzz(func(t *testing.T, prog []byte) {
		store := adapter{openStore(t, vfs.Options{ChunkSize: 4 << 10})}
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o755); err != nil { // the vfs root's mode
			t.Fatal(err)
		}
		// A program is at most 200 small operations: one that runs for a
		// minute is stuck. Fail with every goroutine's stack rather than hang.
		watchdog := time.AfterFunc(time.Minute, func() {
			buf := make([]byte, 1<<20)
			panic("FuzzOps: program stuck for a minute:\n" + string(buf[:runtime.Stack(buf, true)]))
		})
		defer watchdog.Stop()
		vfstest.Diff(t, store, vfstest.OS(dir), prog)
	})
}

func TestIOFS(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.MkdirAll(ctx, "/src/pkg/sub", 0o755))
	must(f.WriteFile(ctx, "/src/a.go", []byte("package a\n"), 0o644))
	must(f.WriteFile(ctx, "/src/pkg/b.txt", bytes.Repeat([]byte("b"), 200000), 0o600))
	must(f.WriteFile(ctx, "/src/pkg/sub/empty", nil, 0o644))
	must(f.Mkdir(ctx, "/src/emptydir", 0o700))
	if err := fstest.TestFS(f.IOFS(ctx), "src/a.go", "src/pkg/b.txt", "src/pkg/sub/empty", "src/emptydir"); err != nil {
		t.Fatal(err)
	}
}

// TestErrno checks the errno of each failure class directly on the vfs (the
// conformance suite compares most of them with the kernel; these are the ones
// the kernel cannot show: limits, read-only stores, closed stores).
func TestErrno(t *testing.T) {
	ctx := context.Background()
	long := string(bytes.Repeat([]byte("x"), 256))
	tests := []struct {
		name string
		opts vfs.Options
		prep func(f *vfs.FS) error
		op   func(f *vfs.FS) error
		want syscall.Errno
	}{
		{"ENOENT stat", vfs.Options{}, nil, func(f *vfs.FS) error { _, err := f.Stat(ctx, "/nope"); return err }, syscall.ENOENT},
		{"ENOENT empty path", vfs.Options{}, nil, func(f *vfs.FS) error { _, err := f.Stat(ctx, ""); return err }, syscall.ENOENT},
		{"EINVAL NUL in path", vfs.Options{}, nil, func(f *vfs.FS) error { _, err := f.Stat(ctx, "/a\x00b"); return err }, syscall.EINVAL},
		{"EEXIST mkdir", vfs.Options{}, func(f *vfs.FS) error { return f.Mkdir(ctx, "/d", 0o755) }, func(f *vfs.FS) error { return f.Mkdir(ctx, "/d", 0o755) }, syscall.EEXIST},
		{"ENOTDIR through file", vfs.Options{}, func(f *vfs.FS) error { return f.WriteFile(ctx, "/f", nil, 0o644) }, func(f *vfs.FS) error { _, err := f.Stat(ctx, "/f/x"); return err }, syscall.ENOTDIR},
		{"EISDIR write dir", vfs.Options{}, func(f *vfs.FS) error { return f.Mkdir(ctx, "/d", 0o755) }, func(f *vfs.FS) error { return f.WriteFile(ctx, "/d", nil, 0o644) }, syscall.EISDIR},
		{"ENOTEMPTY rmdir", vfs.Options{}, func(f *vfs.FS) error { return f.MkdirAll(ctx, "/d/e", 0o755) }, func(f *vfs.FS) error { return f.Remove(ctx, "/d") }, syscall.ENOTEMPTY},
		{"EINVAL rename into self", vfs.Options{}, func(f *vfs.FS) error { return f.MkdirAll(ctx, "/d/e", 0o755) }, func(f *vfs.FS) error { return f.Rename(ctx, "/d", "/d/e/x", 0) }, syscall.EINVAL},
		{"EBUSY remove root", vfs.Options{}, nil, func(f *vfs.FS) error { return f.Remove(ctx, "/") }, syscall.EBUSY},
		{"EBUSY removeall root", vfs.Options{}, nil, func(f *vfs.FS) error { return f.RemoveAll(ctx, "/..") }, syscall.EBUSY},
		{"ELOOP", vfs.Options{}, func(f *vfs.FS) error { return f.Symlink(ctx, "/l", "/l") }, func(f *vfs.FS) error { _, err := f.Stat(ctx, "/l"); return err }, syscall.ELOOP},
		{"ENAMETOOLONG name", vfs.Options{}, nil, func(f *vfs.FS) error { return f.Mkdir(ctx, "/"+long, 0o755) }, syscall.ENAMETOOLONG},
		{"ENAMETOOLONG path", vfs.Options{MaxPathLen: 64}, nil, func(f *vfs.FS) error { return f.MkdirAll(ctx, "/"+long[:30]+"/"+long[:40], 0o755) }, syscall.ENAMETOOLONG},
		{"EFBIG write", vfs.Options{MaxFileSize: 1000}, nil, func(f *vfs.FS) error { return f.WriteFile(ctx, "/big", make([]byte, 1001), 0o644) }, syscall.EFBIG},
		{"EFBIG truncate", vfs.Options{MaxFileSize: 1000}, func(f *vfs.FS) error { return f.WriteFile(ctx, "/f", nil, 0o644) }, func(f *vfs.FS) error { return f.Truncate(ctx, "/f", 1001) }, syscall.EFBIG},
		{"EDQUOT quota", vfs.Options{QuotaBytes: 100 << 10}, nil, func(f *vfs.FS) error { return f.WriteFile(ctx, "/big", randBytes(200<<10), 0o644) }, syscall.EDQUOT},
		{"EDQUOT inodes", vfs.Options{MaxInodes: 3}, func(f *vfs.FS) error { return f.Mkdir(ctx, "/a", 0o755) }, func(f *vfs.FS) error {
			if err := f.Mkdir(ctx, "/b", 0o755); err != nil {
				return err
			}
			return f.Mkdir(ctx, "/c", 0o755)
		}, syscall.EDQUOT},
		{"ENODATA xattr", vfs.Options{}, func(f *vfs.FS) error { return f.WriteFile(ctx, "/f", nil, 0o644) }, func(f *vfs.FS) error { _, err := f.Getxattr(ctx, "/f", "user.x"); return err }, syscall.ENODATA},
		{"EOPNOTSUPP xattr namespace", vfs.Options{}, func(f *vfs.FS) error { return f.WriteFile(ctx, "/f", nil, 0o644) }, func(f *vfs.FS) error { return f.Setxattr(ctx, "/f", "bogus.x", nil, 0) }, syscall.EOPNOTSUPP},
		{"E2BIG xattr", vfs.Options{}, func(f *vfs.FS) error { return f.WriteFile(ctx, "/f", nil, 0o644) }, func(f *vfs.FS) error { return f.Setxattr(ctx, "/f", "user.x", make([]byte, 65537), 0) }, syscall.E2BIG},
		{"EINVAL rename flags", vfs.Options{}, nil, func(f *vfs.FS) error { return f.Rename(ctx, "/a", "/b", vfs.RenameExchange|vfs.RenameNoReplace) }, syscall.EINVAL},
		{"EPERM link dir", vfs.Options{}, func(f *vfs.FS) error { return f.Mkdir(ctx, "/d", 0o755) }, func(f *vfs.FS) error { return f.Link(ctx, "/d", "/e") }, syscall.EPERM},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := openStore(t, tc.opts)
			if tc.prep != nil {
				if err := tc.prep(f); err != nil {
					t.Fatalf("prep: %v", err)
				}
			}
			err := tc.op(f)
			var pe *fs.PathError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v (%T), want *fs.PathError with %v", err, err, tc.want)
			}
			// ENOSPC says which bound was reached (an error reading as the errno).
			if vfs.Errno(pe.Err) != tc.want || tc.want != syscall.EDQUOT && pe.Err != tc.want {
				t.Fatalf("got errno %v (%#v), want %v", pe.Err, pe.Err, tc.want)
			}
		})
	}
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// TestLimitsLeaveNothingBehind: a write that hits a limit leaves the old content
// and no partial state.
func TestLimitsLeaveNothingBehind(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{QuotaBytes: 1 << 20, ChunkSize: 4 << 10, DirtyBytes: 64 << 10})
	old := randBytes(100 << 10)
	if err := f.WriteFile(ctx, "/f", old, 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := f.Stats(ctx)
	// Large enough to go through the staging path before failing.
	_, err := f.WriteFileFrom(ctx, "/f", bytes.NewReader(randBytes(2<<20)), 0o644)
	if vfs.Errno(err) != syscall.EDQUOT || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v, want EDQUOT (and ENOSPC)", err)
	}
	got, err := f.ReadFile(ctx, "/f")
	if err != nil || !bytes.Equal(got, old) {
		t.Fatalf("old content not intact: %v", err)
	}
	after, _ := f.Stats(ctx)
	if after.UniqueBytes != before.UniqueBytes || after.Files != before.Files {
		t.Fatalf("stats changed: before %+v after %+v", before, after)
	}
}

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	f, path := storeAt(t, vfs.Options{})
	if err := f.WriteFile(ctx, "/f", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A second writer is refused while the first holds the store.
	if _, err := vfs.Open(ctx, path, vfs.Options{}); !errors.Is(err, vfs.ErrLocked) {
		t.Fatalf("second open: got %v, want ErrLocked", err)
	}
	f.Close()
	ro, err := vfs.Open(ctx, path, vfs.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if b, err := ro.ReadFile(ctx, "/f"); err != nil || string(b) != "x" {
		t.Fatalf("read: %q %v", b, err)
	}
	for name, op := range map[string]func() error{
		"write":  func() error { return ro.WriteFile(ctx, "/g", nil, 0o644) },
		"mkdir":  func() error { return ro.Mkdir(ctx, "/d", 0o755) },
		"remove": func() error { return ro.Remove(ctx, "/f") },
		"create": func() error { _, err := ro.Create(ctx, "/h"); return err },
	} {
		if vfs.Errno(op()) != syscall.EROFS {
			t.Errorf("%s: want EROFS", name)
		}
	}
	if _, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "missing.db"), vfs.Options{ReadOnly: true}); err == nil {
		t.Fatal("read-only open of a missing store succeeded")
	}
}

// TestDedupAndGC: identical content is stored once; removing every reference
// frees the chunks without any explicit GC call.
func TestDedupAndGC(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	data := randBytes(1 << 20)
	for _, n := range []string{"/a", "/b", "/c"} {
		if err := f.WriteFile(ctx, n, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := f.Stats(ctx)
	if st.UniqueBytes != 1<<20 || st.StoredBytes != 3<<20 || st.DedupRatio != 3 {
		t.Fatalf("dedup: %+v", st)
	}
	// A sparse file costs nothing for its hole.
	h, err := f.Create(ctx, "/sparse")
	if err != nil {
		t.Fatal(err)
	}
	h.WriteAt([]byte("end"), 1<<30)
	h.Close()
	st2, _ := f.Stats(ctx)
	if st2.UniqueBytes != st.UniqueBytes+3 {
		t.Fatalf("sparse file stored %d bytes", st2.UniqueBytes-st.UniqueBytes)
	}
	for _, n := range []string{"/a", "/b", "/c", "/sparse"} {
		if err := f.Remove(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	st, _ = f.Stats(ctx)
	if st.UniqueBytes != 0 || st.Chunks != 0 {
		t.Fatalf("after remove: %+v", st)
	}
}

// TestOverwriteMiddleTouchesFewChunks: writing 1 MiB in the middle of a 64 MiB
// file adds only the chunks it covers.
func TestOverwriteMiddleTouchesFewChunks(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	if err := f.WriteFile(ctx, "/big", randBytes(64<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := f.Stats(ctx)
	h, err := f.OpenFile(ctx, "/big", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.WriteAt(randBytes(1<<20), 32<<20); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := f.Stats(ctx)
	if after.Chunks != before.Chunks || after.UniqueBytes != before.UniqueBytes {
		t.Fatalf("chunk count changed: before %+v after %+v", before, after)
	}
	changes, _ := f.Changes(ctx, before.JournalSeq, 10)
	if len(changes) != 1 || changes[0].Off != 32<<20 || changes[0].Len != 1<<20 {
		t.Fatalf("journal: %+v", changes)
	}
}

func TestJournalSubscribe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := openStore(t, vfs.Options{})
	ch, errf := f.Subscribe(ctx, f.Seq())
	go func() {
		f.Mkdir(ctx, "/d", 0o755)
		f.WriteFile(ctx, "/d/f", []byte("x"), 0o644)
		f.Rename(ctx, "/d/f", "/d/g", 0)
	}()
	var got []string
	for c := range ch {
		got = append(got, string(c.Op)+" "+c.Path)
		if len(got) == 4 {
			cancel()
		}
	}
	if err := errf(); err != nil {
		t.Fatal(err)
	}
	want := []string{"mkdir /d", "create /d/f", "write /d/f", "rename /d/g"}
	if len(got) < 4 {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestJournalRetention(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{JournalKeep: 10})
	for i := 0; i < 2000; i++ {
		if err := f.WriteFile(ctx, "/f", []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Changes(ctx, 1, 10); !errors.Is(err, vfs.ErrJournalTruncated) {
		t.Fatalf("got %v, want ErrJournalTruncated", err)
	}
	chs, err := f.Changes(ctx, f.Seq()-5, 10)
	if err != nil || len(chs) != 5 {
		t.Fatalf("recent changes: %v %d", err, len(chs))
	}
}

// TestStreamingWrite: WriteFileFrom of a large stream keeps the old content
// visible until the new content is complete.
func TestStreamingWrite(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{DirtyBytes: 256 << 10})
	if err := f.WriteFile(ctx, "/f", []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := f.Link(ctx, "/f", "/g"); err != nil {
		t.Fatal(err)
	}
	data := randBytes(5<<20 + 17)
	pr, pw := io.Pipe()
	done := make(chan error)
	go func() {
		_, err := f.WriteFileFrom(ctx, "/f", pr, 0o600)
		done <- err
	}()
	pw.Write(data[:3<<20])
	if b, _ := f.ReadFile(ctx, "/g"); string(b) != "old" {
		t.Fatalf("partial content visible: %d bytes", len(b))
	}
	pw.Write(data[3<<20:])
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, _ := f.ReadFile(ctx, "/g")
	if !bytes.Equal(got, data) {
		t.Fatal("hard link does not see new content")
	}
	fi, _ := f.Stat(ctx, "/f")
	if fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode changed to %v", fi.Mode())
	}
}

// TestBatch: a batch commits all its changes together, sees its own changes,
// and rolls everything back on an error.
func TestBatch(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	seq := f.Seq()
	mtime := time.Date(2001, 2, 3, 4, 5, 6, 789, time.UTC)
	err := f.Batch(ctx, func(b *vfs.Batch) error {
		for _, step := range []error{
			b.MkdirAll("/a/b", 0o755),
			b.WriteFile("/a/b/f", []byte("hello"), 0o640),
			b.Chmod("/a/b/f", 0o600|fs.ModeSetuid),
			b.Lchown("/a/b/f", 7, 8),
			b.Utimens("/a/b/f", mtime, mtime, false),
			b.Symlink("f", "/a/b/l"),
			b.Link("/a/b/f", "/a/h"),
			b.Setxattr("/a/b/f", "user.k", []byte("v"), 0),
			b.Rename("/a/h", "/a/h2", 0),
		} {
			if step != nil {
				return step
			}
		}
		fi, err := b.Lstat("/a/b/f")
		if err != nil {
			return err
		}
		if a := fi.Attr(); a.Nlink != 2 || a.Uid != 7 {
			t.Errorf("inside the batch: %+v", a)
		}
		if _, err := b.Lstat("/missing"); vfs.Errno(err) != syscall.ENOENT {
			t.Errorf("lstat missing: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat(ctx, "/a/b/l")
	if err != nil {
		t.Fatal(err)
	}
	a := fi.Attr()
	// Chown cleared the set-user-ID bit, as on Linux.
	if a.Mode != vfs.S_IFREG|0o600 || a.Uid != 7 || a.Gid != 8 || !a.Mtime.Equal(mtime) || a.Nlink != 2 {
		t.Fatalf("after batch: %+v", a)
	}
	if b, _ := f.ReadFile(ctx, "/a/h2"); string(b) != "hello" {
		t.Fatalf("content %q", b)
	}
	chs, _ := f.Changes(ctx, seq, 100)
	if len(chs) < 9 {
		t.Fatalf("journal has %d changes for the batch", len(chs))
	}
	// A failing batch leaves nothing behind.
	seq = f.Seq()
	err = f.Batch(ctx, func(b *vfs.Batch) error {
		b.WriteFile("/new", []byte("x"), 0o644)
		b.Remove("/a/b/f")
		if err := b.Mkdir("/a", 0o755); vfs.Errno(err) != syscall.EEXIST {
			t.Errorf("mkdir existing: %v", err)
		}
		if err := b.Mkdir("/other", 0o755); vfs.Errno(err) != syscall.EEXIST {
			t.Errorf("poisoned batch: %v", err)
		}
		return nil
	})
	if vfs.Errno(err) != syscall.EEXIST {
		t.Fatalf("batch error: %v", err)
	}
	if _, err := f.Stat(ctx, "/new"); vfs.Errno(err) != syscall.ENOENT {
		t.Fatalf("rolled-back file exists: %v", err)
	}
	if _, err := f.Stat(ctx, "/a/b/f"); err != nil {
		t.Fatalf("rolled-back remove: %v", err)
	}
	if f.Seq() != seq {
		t.Fatalf("journal advanced by a rolled-back batch")
	}
}

// TestGroupCommit: concurrent writers share commits; a failing call in a group
// fails alone; every acknowledged write is there.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{GroupMax: 8})
	const workers, each = 8, 60
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			for i := 0; i < each; i++ {
				name := "/w" + itoa(w) + "-" + itoa(i)
				if err := f.WriteFile(ctx, name, []byte(name), 0o644); err != nil {
					errs <- err
					return
				}
				// Fails (EEXIST) in the middle of others' successful calls.
				if err := f.Mkdir(ctx, name, 0o755); vfs.Errno(err) != syscall.EEXIST {
					errs <- fmt.Errorf("mkdir over a file: %v", err)
					return
				}
				if i%10 == 0 {
					if err := f.Remove(ctx, name); err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ents, err := f.ReadDir(ctx, "/")
	if err != nil {
		t.Fatal(err)
	}
	if want := workers * (each - each/10); len(ents) != want {
		t.Fatalf("%d files, want %d", len(ents), want)
	}
	for _, e := range ents {
		if b, err := f.ReadFile(ctx, "/"+e.Name); err != nil || string(b) != "/"+e.Name {
			t.Fatalf("%s: %q %v", e.Name, b, err)
		}
	}
}

// TestConcurrentReadersAndWriters: readers run while writers replace, rename and
// remove files. A reader sees either ENOENT or one whole version of a file, never
// a mix; the store checks clean at the end. Run with -race in CI.
func TestConcurrentReadersAndWriters(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := openStore(t, vfs.Options{ChunkSize: 4 << 10, DirtyBytes: 32 << 10})
	const files = 8
	version := func(v int) []byte { return bytes.Repeat([]byte{byte('a' + v%26)}, 3000+v%7*10000) }
	for i := 0; i < files; i++ {
		if err := f.WriteFile(ctx, "/f"+itoa(i), version(0), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 16)
	done := make(chan struct{})
	var writers, readers int
	for w := 0; w < 2; w++ {
		writers++
		go func(w int) {
			defer func() { done <- struct{}{} }()
			for v := 1; ctx.Err() == nil && v < 200; v++ {
				name := "/f" + itoa((v+w)%files)
				var err error
				switch v % 4 {
				case 0, 1:
					err = f.WriteFile(ctx, name, version(v), 0o644)
				case 2:
					err = f.Rename(ctx, name, name+".tmp", 0)
					if err == nil {
						err = f.Rename(ctx, name+".tmp", name, 0)
					}
				case 3:
					h, herr := f.OpenFile(ctx, name, os.O_RDWR|os.O_CREATE, 0o644)
					if herr != nil {
						err = herr
						break
					}
					_, err = h.WriteAt([]byte("x"), 0)
					if cerr := h.Close(); err == nil {
						err = cerr
					}
				}
				if err != nil && vfs.Errno(err) != syscall.ENOENT {
					errs <- fmt.Errorf("writer %d op %d: %w", w, v, err)
					return
				}
			}
		}(w)
	}
	for r := 0; r < 4; r++ {
		readers++
		go func(r int) {
			defer func() { done <- struct{}{} }()
			for i := 0; ctx.Err() == nil; i++ {
				name := "/f" + itoa(i%files)
				b, err := f.ReadFile(ctx, name)
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					if vfs.Errno(err) != syscall.ENOENT {
						errs <- fmt.Errorf("reader %d: %w", r, err)
						return
					}
					continue
				}
				// Whole version (possibly with the 'x' a handle wrote at 0).
				if len(b) > 1 && bytes.Count(b[1:], b[1:2]) != len(b)-1 {
					errs <- fmt.Errorf("reader %d: mixed content in %s", r, name)
					return
				}
				if _, err := f.ReadDir(ctx, "/"); err != nil && ctx.Err() == nil {
					errs <- err
					return
				}
				if _, err := f.Stat(ctx, name); err != nil && vfs.Errno(err) != syscall.ENOENT && ctx.Err() == nil {
					errs <- err
					return
				}
			}
		}(r)
	}
	for i := 0; i < writers; i++ {
		select {
		case err := <-errs:
			cancel()
			t.Fatal(err)
		case <-done:
		}
	}
	cancel()
	for i := 0; i < readers; i++ {
		select {
		case err := <-errs:
			t.Fatal(err)
		case <-done:
		}
	}
}

// TestCloseReleasesEverything: a closed store holds no goroutine and no file
// descriptor (the host relies on this to keep idle workspaces free).
func TestCloseReleasesEverything(t *testing.T) {
	ctx := context.Background()
	countFDs := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatalf("count descriptors: %v", err)
		}
		return len(ents)
	}
	dir := t.TempDir()
	// Warm up package-level state (pools, the SQLite module) before counting.
	f, err := vfs.Open(ctx, filepath.Join(dir, "warm.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fd0 := countFDs()
	for i := 0; i < 20; i++ {
		f, err := vfs.Open(ctx, filepath.Join(dir, "ws"+itoa(i)+".db"), vfs.Options{CheckpointBytes: 1 << 10})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.WriteFile(ctx, "/f", randBytes(100<<10), 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := f.Open(ctx, "/f")
		if err != nil {
			t.Fatal(err)
		}
		h.Read(make([]byte, 10))
		// Left open on purpose: Close must release it too.
		if _, err := f.ReadDir(ctx, "/"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Descriptors are closed by Close itself. The store's goroutines
	// (checkpointer, commit timers) are told to stop by Close but exit on
	// their own time, and nothing signals a goroutine's exit: poll for them,
	// counting only goroutines running the store's code (so the runtime's
	// and the test framework's do not count), with a generous hang guard.
	if fd := countFDs(); fd > fd0 {
		t.Errorf("after 20 open/close cycles: %d descriptors, %d before", fd, fd0)
	}
	deadline := time.Now().Add(30 * time.Second)
	for storeGoroutines() != "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling /proc-like state: no event exists
	}
	if g := storeGoroutines(); g != "" {
		t.Fatalf("after 20 open/close cycles, 30 s later, the store's goroutines still run:\n%s", g)
	}
}

// storeGoroutines returns the stacks of the goroutines running code of
// package vfs (not vfs_test), "" when there are none.
func storeGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "desk/internal/vfs.") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}

func TestOpen_BadOptions(t *testing.T) {
	for name, o := range map[string]vfs.Options{
		"chunk not a power of two": {ChunkSize: 5000},
		"chunk too small":          {ChunkSize: 1024},
		"page too big":             {PageSize: 1 << 17},
		"negative quota":           {QuotaBytes: -1},
		"name limit over 255":      {MaxNameLen: 300},
		"path limit over 8192":     {MaxPathLen: 8193},
		"negative readers":         {Readers: -2},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ws.db")
			f, err := vfs.Open(context.Background(), path, o)
			if err == nil {
				f.Close()
				t.Fatal("Open accepted bad options")
			}
			if _, serr := os.Stat(path); serr == nil {
				if fi, _ := os.Stat(path); fi.Size() != 0 {
					t.Errorf("bad options left a database behind")
				}
			}
		})
	}
}

// TestRecords: records and their logs survive a reopen, list in id order, and
// stay out of the filesystem and its journal.
func TestRecords(t *testing.T) {
	ctx := context.Background()
	f, path := storeAt(t, vfs.Options{})
	seq := f.Seq()
	rs := f.Records()
	for _, id := range []string{"b", "a", "c"} {
		if err := rs.Put(ctx, "exec", id, []byte("v-"+id)); err != nil {
			t.Fatal(err)
		}
	}
	if first, err := rs.AppendLog(ctx, "exec", "a", []byte("one"), []byte("two")); err != nil || first != 1 {
		t.Fatalf("append: %d %v", first, err)
	}
	err := rs.Batch(ctx, func(b *vfs.RecordBatch) error {
		if first, err := b.AppendLog("exec", "a", []byte("three")); err != nil || first != 3 {
			t.Errorf("batch append: %d %v", first, err)
		}
		return b.Put("exec", "a", []byte("done"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if f.Seq() != seq {
		t.Fatal("records changed the file journal")
	}
	f.Close()
	f, err = vfs.Open(ctx, path, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs = f.Records()
	recs, err := rs.List(ctx, "exec", "", 10)
	if err != nil || len(recs) != 3 || recs[0].ID != "a" || string(recs[0].Value) != "done" || recs[2].ID != "c" {
		t.Fatalf("list: %+v %v", recs, err)
	}
	log, err := rs.ReadLog(ctx, "exec", "a", 2, 10)
	if err != nil || len(log) != 2 || log[0].Seq != 2 || string(log[1].Data) != "three" {
		t.Fatalf("log: %+v %v", log, err)
	}
	if err := rs.TrimLog(ctx, "exec", "a", 3); err != nil {
		t.Fatal(err)
	}
	if log, _ := rs.ReadLog(ctx, "exec", "a", 0, 10); len(log) != 1 || log[0].Seq != 3 {
		t.Fatalf("after trim: %+v", log)
	}
	// Trimmed to empty, the numbering still goes on.
	if err := rs.TrimLog(ctx, "exec", "a", 100); err != nil {
		t.Fatal(err)
	}
	if first, err := rs.AppendLog(ctx, "exec", "a", []byte("four")); err != nil || first != 4 {
		t.Fatalf("append after emptying trim: %d %v", first, err)
	}
	if err := rs.Delete(ctx, "exec", "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Get(ctx, "exec", "a"); !errors.Is(err, vfs.ErrNoRecord) {
		t.Fatalf("deleted record: %v", err)
	}
	if log, _ := rs.ReadLog(ctx, "exec", "a", 0, 10); len(log) != 0 {
		t.Fatalf("log outlived its record: %+v", log)
	}
}

// TestJournalActor: changes carry the actor of the context that made them,
// including handle writes flushed at Close.
func TestJournalActor(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	seq := f.Seq()
	a := vfs.WithActor(ctx, "exec-1")
	if err := f.WriteFile(a, "/x", []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := f.OpenFile(vfs.WithActor(ctx, "exec-2"), "/y", os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	h.Write([]byte("2"))
	h.Close()
	f.Mkdir(ctx, "/z", 0o755)
	chs, _ := f.Changes(ctx, seq, 100)
	var got []string
	for _, c := range chs {
		got = append(got, string(c.Op)+" "+c.Path+" "+c.Actor)
	}
	want := []string{"create /x exec-1", "write /x exec-1", "create /y exec-2", "write /y exec-2", "mkdir /z "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestMaxDirtyBytes: unflushed writes of all open files together stay bounded;
// past the bound writers flush (so most of the data is already stored before
// any Close).
func TestMaxDirtyBytes(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{DirtyBytes: 8 << 20, MaxDirtyBytes: 2 << 20})
	var hs []*vfs.File
	for i := 0; i < 16; i++ {
		h, err := f.Create(ctx, "/f"+itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Write(randBytes(1 << 20)); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	st, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 16 MiB written, at most ~2 MiB (plus one writer's last write) unflushed.
	if st.UniqueBytes < 13<<20 {
		t.Fatalf("only %d bytes stored before Close: unflushed writes are not bounded", st.UniqueBytes)
	}
	for _, h := range hs {
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAtimeDeferred: a read updates atime (relatime) without a transaction of
// its own; Stat sees it at once and it is stored by the next commit or Close.
func TestAtimeDeferred(t *testing.T) {
	ctx := context.Background()
	f, path := storeAt(t, vfs.Options{})
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := f.WriteFile(ctx, "/f", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Chtimes(ctx, "/f", old, old); err != nil {
		t.Fatal(err)
	}
	seq := f.Seq()
	if _, err := f.ReadFile(ctx, "/f"); err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat(ctx, "/f")
	if !fi.Attr().Atime.After(old) {
		t.Fatalf("atime not updated by the read: %v", fi.Attr().Atime)
	}
	if f.Seq() != seq {
		t.Fatalf("a read wrote the journal")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := vfs.Open(ctx, path, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ = f.Stat(ctx, "/f")
	if !fi.Attr().Atime.After(old) {
		t.Fatalf("deferred atime lost at Close: %v", fi.Attr().Atime)
	}
	if !fi.Attr().Mtime.Equal(old) {
		t.Fatalf("mtime changed: %v", fi.Attr().Mtime)
	}
}
