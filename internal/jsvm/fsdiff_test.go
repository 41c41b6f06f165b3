package jsvm

import (
	"context"
	_ "embed"
	"os"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

//go:embed testdata/fsdiff.mjs
var fsdiffModule string

// fsEntry is one entry of the differential test's fixture.
type fsEntry struct {
	path    string
	kind    byte // 'f' file, 'd' directory, 'l' symlink, 'h' hard link
	content string
	mode    os.FileMode
}

var fsFixture = []fsEntry{
	{"a.txt", 'f', "alpha\n", 0o644},
	{"b.txt", 'f', "beta\n", 0o644},
	{"empty.txt", 'f', "", 0o644},
	{"bin.dat", 'f', "a\xff\xe2\x82A\xed\xa0\x80\xc3", 0o644},
	{"exec.sh", 'f', "#!/bin/sh\necho hi\n", 0o755},
	{"hard1.txt", 'f', "hard\n", 0o644},
	{"hard1b.txt", 'h', "hard1.txt", 0},
	{"dir", 'd', "", 0o755},
	{"dir/f.txt", 'f', "f\n", 0o644},
	{"dir/sub", 'd', "", 0o755},
	{"dir/sub/g.txt", 'f', "g\n", 0o644},
	{"dir2", 'd', "", 0o755},
	{"dir2/x.txt", 'f', "x\n", 0o644},
	{"emptydir", 'd', "", 0o755},
	{"link-a", 'l', "a.txt", 0},
	{"link-b", 'l', "b.txt", 0},
	{"link-dir", 'l', "dir", 0},
	{"link-dir2", 'l', "dir", 0},
	{"dangling", 'l', "nowhere", 0},
	{"dangling-dir", 'l', "nodir", 0},
	{"loop1", 'l', "loop2", 0},
	{"loop2", 'l', "loop1", 0},
}

// writeFixtureHost writes entries under dir on the host.
func writeFixtureHost(t testing.TB, dir string, entries []fsEntry) {
	t.Helper()
	for _, e := range entries {
		p := filepath.Join(dir, e.path)
		var err error
		switch e.kind {
		case 'f':
			if err = os.WriteFile(p, []byte(e.content), e.mode); err == nil {
				err = os.Chmod(p, e.mode)
			}
		case 'd':
			if err = os.Mkdir(p, e.mode); err == nil {
				err = os.Chmod(p, e.mode)
			}
		case 'l':
			err = os.Symlink(e.content, p)
		case 'h':
			err = os.Link(filepath.Join(dir, e.content), p)
		}
		if err != nil {
			t.Fatalf("host fixture %s: %v", e.path, err)
		}
	}
}

// writeFixtureStore writes entries under dir in the store.
func writeFixtureStore(t testing.TB, fsys *vfs.FS, dir string, entries []fsEntry) {
	t.Helper()
	ctx := context.Background()
	for _, e := range entries {
		p := path.Join(dir, e.path)
		var err error
		switch e.kind {
		case 'f':
			if err = fsys.WriteFile(ctx, p, []byte(e.content), e.mode); err == nil {
				err = fsys.Chmod(ctx, p, e.mode)
			}
		case 'd':
			if err = fsys.Mkdir(ctx, p, e.mode); err == nil {
				err = fsys.Chmod(ctx, p, e.mode)
			}
		case 'l':
			err = fsys.Symlink(ctx, e.content, p)
		case 'h':
			err = fsys.Link(ctx, path.Join(dir, e.content), p)
		}
		if err != nil {
			t.Fatalf("store fixture %s: %v", e.path, err)
		}
	}
}

// TestFSDifferential runs testdata/fsdiff.mjs, which calls every
// node:fs/promises function on success and failure paths, under Node on a
// temporary directory and under the js backend on a workspace with the same
// files, and compares every line: results, error codes, errno, syscall,
// path, dest and messages, and the final tree.
func TestFSDifferential(t *testing.T) {
	hostDir := t.TempDir()
	writeFixtureHost(t, hostDir, fsFixture)
	want, werr, code := runNode(t, hostDir, fsdiffModule, "", nil)
	if code != 0 || werr != "" {
		t.Fatalf("node: exit %d, stderr:\n%s", code, werr)
	}

	fsys := newStore(t, nil)
	writeFixtureStore(t, fsys, "/workspace", fsFixture)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := runJS(ctx, sharedBackend(t), fsys, job{src: fsdiffModule})
	if r.err != nil || r.stderr != "" {
		t.Fatalf("desk: %v, stderr:\n%s", r.err, r.stderr)
	}
	diffLines(t, "fsdiff.mjs", r.stdout, want)
	if t.Failed() {
		t.Logf("node output:\n%s", want)
	}
}
