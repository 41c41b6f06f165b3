package vfstest_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
)

// newOS returns the kernel's filesystem in a fresh directory whose mode is 0755
// (t.TempDir's mode depends on the umask, which OS changes).
func newOS(t *testing.T) vfstest.FS {
	fsys := vfstest.OS(t.TempDir())
	if err := fsys.Chmod(t.Context(), "/", 0o755); err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestOS runs the suite against the kernel: the oracle must pass all of it.
func TestOS(t *testing.T) {
	vfstest.Run(t, newOS)
}

// FuzzDiff diffs the kernel against itself, which exercises the decoder and the
// engine: any failure is a bug in Diff or in the OS adapter. The seed corpus is in
// testdata/fuzz/FuzzDiff.
func FuzzDiff(f *testing.F) {
	f.Fuzz(func(t *testing.T, prog []byte) {
		vfstest.Diff(t, newOS(t), newOS(t), prog)
	})
}

// fakeTB records a Fatalf instead of stopping the test.
type fakeTB struct {
	*testing.T
	msg string
}

type fatal struct{}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(fatal{})
}

// runDiff runs Diff and returns its failure message, or "".
func runDiff(t *testing.T, a, b vfstest.FS, prog []byte) (msg string) {
	tb := &fakeTB{T: t}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(fatal); !ok {
				panic(r)
			}
			msg = tb.msg
		}
	}()
	vfstest.Diff(tb, a, b, prog)
	return ""
}

// Faulty filesystems, each wrong in one small way that Diff must notice.
type (
	readDirDropsLast struct{ vfstest.FS }
	noReplaceIgnored struct{ vfstest.FS }
	wrongErrno       struct{ vfstest.FS }
	lossyWrite       struct{ vfstest.FS }
	lossyFile        struct{ vfstest.File }
	microMtime       struct{ vfstest.FS }
	xattrCreateLost  struct{ vfstest.FS }
)

func (m readDirDropsLast) ReadDir(ctx context.Context, name string) ([]vfs.DirEntry, error) {
	ents, err := m.FS.ReadDir(ctx, name)
	if len(ents) > 1 {
		ents = ents[:len(ents)-1]
	}
	return ents, err
}

func (m noReplaceIgnored) Rename(ctx context.Context, a, b string, flags vfs.RenameFlags) error {
	return m.FS.Rename(ctx, a, b, flags&^vfs.RenameNoReplace)
}

func (m wrongErrno) Mkdir(ctx context.Context, name string, perm fs.FileMode) error {
	err := m.FS.Mkdir(ctx, name, perm)
	if pe, ok := err.(*fs.PathError); ok && pe.Err == syscall.EEXIST {
		pe.Err = syscall.EPERM
	}
	return err
}

func (m lossyWrite) OpenFile(ctx context.Context, name string, flag int, perm fs.FileMode) (vfstest.File, error) {
	f, err := m.FS.OpenFile(ctx, name, flag, perm)
	if err != nil {
		return nil, err
	}
	return lossyFile{f}, nil
}

func (f lossyFile) WriteAt(p []byte, off int64) (int, error) {
	if len(p) > 1 {
		n, err := f.File.WriteAt(p[:len(p)-1], off)
		return n + 1, err
	}
	return f.File.WriteAt(p, off)
}

func (m microMtime) Chtimes(ctx context.Context, name string, atime, mtime time.Time) error {
	if !mtime.IsZero() && !mtime.Equal(vfs.UtimeOmit) && !mtime.Equal(vfs.UtimeNow) {
		mtime = mtime.Truncate(time.Microsecond)
	}
	return m.FS.Chtimes(ctx, name, atime, mtime)
}

func (m xattrCreateLost) Setxattr(ctx context.Context, name, attr string, value []byte, flags int) error {
	return m.FS.Setxattr(ctx, name, attr, value, 0)
}

// TestDiffDetects checks that Diff fails on each faulty filesystem, and passes on
// the kernel against itself.
func TestDiffDetects(t *testing.T) {
	seeds := map[string][]byte{}
	for _, name := range []string{"dirs", "renames", "handles", "xattrs", "modes-times"} {
		seeds[name] = readSeed(t, name)
	}
	for _, tc := range []struct {
		name string
		wrap func(vfstest.FS) vfstest.FS
		seed string
		want string
	}{
		{"ReadDir drops an entry", func(f vfstest.FS) vfstest.FS { return readDirDropsLast{f} }, "dirs", "op "},
		{"NoReplace ignored", func(f vfstest.FS) vfstest.FS { return noReplaceIgnored{f} }, "renames", "Rename("},
		{"Mkdir EEXIST is EPERM", func(f vfstest.FS) vfstest.FS { return wrongErrno{f} }, "dirs", "EPERM"},
		{"WriteAt loses a byte", func(f vfstest.FS) vfstest.FS { return lossyWrite{f} }, "handles", ""},
		{"mtime to microseconds", func(f vfstest.FS) vfstest.FS { return microMtime{f} }, "modes-times", "mtime="},
		{"XattrCreate ignored", func(f vfstest.FS) vfstest.FS { return xattrCreateLost{f} }, "xattrs", "EEXIST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := runDiff(t, newOS(t), tc.wrap(newOS(t)), seeds[tc.seed])
			if msg == "" {
				t.Fatalf("Diff did not notice")
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("Diff failed with %q, want it to mention %q", msg, tc.want)
			}
			t.Logf("Diff said: %.300s", msg)
		})
	}
	for name, prog := range seeds {
		if msg := runDiff(t, newOS(t), newOS(t), prog); msg != "" {
			t.Errorf("Diff of the kernel against itself failed on seed %s:\n%s", name, msg)
		}
	}
}

// readSeed reads a program from the seed corpus.
func readSeed(t *testing.T, name string) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzDiff", name))
	if err != nil {
		t.Fatal(err)
	}
	_, quoted, ok := strings.Cut(strings.TrimSpace(string(data)), "[]byte(")
	if !ok || !strings.HasSuffix(quoted, ")") {
		t.Fatalf("seed %s: not a go test fuzz v1 []byte file", name)
	}
	prog, err := strconv.Unquote(strings.TrimSuffix(quoted, ")"))
	if err != nil {
		t.Fatalf("seed %s: %v", name, err)
	}
	return []byte(prog)
}
