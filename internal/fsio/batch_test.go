package fsio_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/vfs"
)

// openWSWith is openWS with store options.
func openWSWith(t *testing.T, opts vfs.Options) *vfs.FS {
	t.Helper()
	fsys, err := vfs.Open(context.Background(), filepath.Join(t.TempDir(), "ws.db"), opts)
	if err != nil {
		t.Fatalf("vfs.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := fsys.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return fsys
}

// randomBody returns n bytes that no other call returns.
func randomBody(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return string(b)
}

// batchSettings are batch bounds small enough to put batch boundaries all
// over the test trees, and to stream some of their files.
var batchSettings = []struct {
	name string
	opts fsio.ImportOptions
}{
	{"defaults", fsio.ImportOptions{}},
	{"one entry a batch", fsio.ImportOptions{BatchEntries: 1}},
	{"three entries", fsio.ImportOptions{BatchEntries: 3}},
	{"small bytes", fsio.ImportOptions{BatchEntries: 5, BatchBytes: 20, BatchFileSize: 16}},
	{"stream all", fsio.ImportOptions{BatchFileSize: 1}},
}

// TestImport_BatchBoundaries imports the round-trip tree with batch bounds
// that cut it in many places, from a host directory and from a tar archive,
// and checks that the result is the same as with one big batch.
func TestImport_BatchBoundaries(t *testing.T) {
	ctx := context.Background()
	src, _ := makeHostTree(t)
	want := hostTree(t, src)
	hostContents(t, src, want)
	var archive []byte
	for _, bs := range batchSettings {
		t.Run(bs.name, func(t *testing.T) {
			opts := bs.opts
			opts.Owners = asRoot
			ws := openWS(t)
			sum, err := fsio.ImportDir(ctx, ws, src, "/a/b", opts)
			if err != nil {
				t.Fatalf("ImportDir: %v", err)
			}
			// readlink(2) moved the atimes of the host's symlinks; put them back
			// for the next import.
			for rel, n := range want {
				if n.Type == "symlink" {
					setTimes(t, filepath.Join(src, rel), time.Unix(0, n.Atime), time.Unix(0, n.Mtime))
				}
			}
			if sum.Files != 11 || sum.Hardlinks != 2 || sum.Symlinks != 5 || sum.Dirs != 8 {
				t.Errorf("summary = %+v", sum)
			}
			got := wsTree(t, ws, "/a/b")
			compareTrees(t, "host dir → workspace", want, got)
			if archive == nil {
				var buf bytes.Buffer
				if _, err := fsio.ExportTar(ctx, ws, "/a/b", &buf, fsio.ExportOptions{}); err != nil {
					t.Fatal(err)
				}
				archive = buf.Bytes()
			}
			wsContents(t, ws, "/a/b", got)
			compareTrees(t, "host dir → workspace (contents)", want, got)

			// The tar import goes into an existing directory: the merge path.
			ws2 := openWS(t)
			if _, err := fsio.ImportTar(ctx, ws2, bytes.NewReader(archive), "/", opts); err != nil {
				t.Fatalf("ImportTar: %v", err)
			}
			got2 := wsTree(t, ws2, "/")
			compareTrees(t, "tar → workspace", want, got2)
			wsContents(t, ws2, "/", got2)
			compareTrees(t, "tar → workspace (contents)", want, got2)
			if c, err := ws2.Check(ctx); err != nil || !c.OK() {
				t.Errorf("Check: %v %v", c, err)
			}
		})
	}
}

// TestImportTar_HardlinksAcrossBatches links to targets written in an earlier
// batch, queued in the same batch, and streamed outside any batch.
func TestImportTar_HardlinksAcrossBatches(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	big := randomBody(rng, 5000)
	data := makeTar(t,
		tarEntry{name: "a", body: "first"},
		tarEntry{name: "same", typ: tar.TypeLink, link: "a"}, // a is in this batch
		tarEntry{name: "dir/c", body: "second"},
		tarEntry{name: "dir/x", body: "filler"},
		tarEntry{name: "earlier", typ: tar.TypeLink, link: "a"}, // a is in an earlier batch
		tarEntry{name: "dir/earlier-c", typ: tar.TypeLink, link: "dir/c"},
		tarEntry{name: "big", body: big}, // streamed
		tarEntry{name: "big-link", typ: tar.TypeLink, link: "big"},
		tarEntry{name: "b", body: "replacement"},
		tarEntry{name: "b-link2", typ: tar.TypeLink, link: "b"},
	)
	for _, opts := range []fsio.ImportOptions{
		{BatchEntries: 3, BatchFileSize: 1000},
		{BatchEntries: 1},
		{},
	} {
		t.Run(fmt.Sprint(opts.BatchEntries), func(t *testing.T) {
			fsys := openWS(t)
			sum, err := fsio.ImportTar(ctx, fsys, bytes.NewReader(data), "/d", opts)
			if err != nil {
				t.Fatalf("ImportTar: %v", err)
			}
			if sum.Files != 5 || sum.Hardlinks != 5 {
				t.Errorf("summary %+v, want 5 files and 5 hard links", sum)
			}
			groups := [][]string{
				{"a", "same", "earlier"},
				{"dir/c", "dir/earlier-c"},
				{"big", "big-link"},
				{"b", "b-link2"},
			}
			contents := []string{"first", "second", big, "replacement"}
			for i, names := range groups {
				var ino uint64
				for _, name := range names {
					fi, err := fsys.Lstat(ctx, "/d/"+name)
					if err != nil {
						t.Fatal(err)
					}
					a := fi.Attr()
					if a.Nlink != uint32(len(names)) {
						t.Errorf("%s: nlink %d, want %d", name, a.Nlink, len(names))
					}
					if ino == 0 {
						ino = a.Ino
					} else if a.Ino != ino {
						t.Errorf("%s is not a link to %s", name, names[0])
					}
					got, err := fsys.ReadFile(ctx, "/d/"+name)
					if err != nil || string(got) != contents[i] {
						t.Errorf("ReadFile(%s) = %d bytes, %v; want %d bytes", name, len(got), err, len(contents[i]))
					}
				}
			}
		})
	}
}

// TestImport_FailureInBatch makes the store refuse an entry in the middle of
// a batch and checks that the error names
// that entry and that the workspace is left as it was.
func TestImport_FailureInBatch(t *testing.T) {
	ctx := context.Background()
	files := func(n int, prefix string) []tarEntry {
		var es []tarEntry
		for i := range n {
			es = append(es, tarEntry{name: fmt.Sprintf("%s%02d", prefix, i), body: "small"})
		}
		return es
	}
	cat := func(parts ...[]tarEntry) []tarEntry {
		var out []tarEntry
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name    string
		store   vfs.Options
		entries []tarEntry
		entry   string // the entry the error must name
		errno   syscall.Errno
	}{
		{"file too large", vfs.Options{MaxFileSize: 1000},
			cat(files(5, "a"), []tarEntry{{name: "sub/big", body: strings.Repeat("x", 1001)}}, files(5, "b")),
			"sub/big", syscall.EFBIG},
		{"xattr name too long", vfs.Options{},
			cat(files(5, "a"), []tarEntry{{name: "bad", body: "x", pax: map[string]string{
				"SCHILY.xattr.user." + strings.Repeat("n", 300): "v"}}}, files(5, "b")),
			"bad", syscall.ERANGE},
		{"name too long", vfs.Options{MaxNameLen: 40}, // the staging directory's name has 29 bytes
			cat(files(5, "a"), []tarEntry{{name: "sub/" + strings.Repeat("n", 41), body: "x"}}, files(5, "b")),
			"sub/" + strings.Repeat("n", 41), syscall.ENAMETOOLONG},
		{"directory attributes", vfs.Options{},
			cat(files(5, "a"), []tarEntry{{name: "d/", typ: tar.TypeDir, pax: map[string]string{
				"SCHILY.xattr.user.big": strings.Repeat("v", vfs.DefaultMaxXattrSize+1)}}}, files(5, "d/b")),
			"d/", syscall.E2BIG},
	}
	for _, c := range cases {
		for _, batch := range []int{0, 4} { // one batch, or a failure in a later batch
			t.Run(fmt.Sprintf("%s/%d", c.name, batch), func(t *testing.T) {
				fsys := openWSWith(t, c.store)
				seedWorkspace(t, fsys)
				before := wsTree(t, fsys, "/")
				for _, dest := range []string{"/dst", "/new/dest"} {
					_, err := fsio.ImportTar(ctx, fsys, bytes.NewReader(makeTar(t, c.entries...)), dest,
						fsio.ImportOptions{BatchEntries: batch})
					var ee *fsio.EntryError
					if !errors.As(err, &ee) || ee.Entry != c.entry || !errors.Is(err, c.errno) {
						t.Errorf("import into %s: err = %v, want an EntryError for %q with %v", dest, err, c.entry, c.errno)
					}
					unchanged(t, fsys, before)
					before = wsTree(t, fsys, "/") // unchanged read the files: their atimes moved
				}
			})
		}
	}
}

// TestImport_FailureAtCommit exceeds the quota, which the store detects only
// when a batch commits: the error must still name the entry that does not
// fit, and the workspace must be left as it was.
func TestImport_FailureAtCommit(t *testing.T) {
	ctx := context.Background()
	const quota, fileSize = 100_000, 10_000
	fsys := openWSWith(t, vfs.Options{QuotaBytes: quota})
	seedWorkspace(t, fsys)
	st, err := fsys.Statfs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Files of distinct random content: the first that does not fit is number k.
	k := int((quota - st.UsedBytes) / fileSize)
	rng := rand.New(rand.NewPCG(5, 6))
	var entries []tarEntry
	for i := range k + 5 {
		entries = append(entries, tarEntry{name: fmt.Sprintf("f%02d", i), body: randomBody(rng, fileSize)})
	}
	before := wsTree(t, fsys, "/")
	for _, batch := range []int{0, 3} {
		_, err := fsio.ImportTar(ctx, fsys, bytes.NewReader(makeTar(t, entries...)), "/dst", fsio.ImportOptions{BatchEntries: batch})
		var ee *fsio.EntryError
		if want := fmt.Sprintf("f%02d", k); !errors.As(err, &ee) || ee.Entry != want || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("BatchEntries %d: err = %v, want ENOSPC for %q", batch, err, want)
		}
		unchanged(t, fsys, before)
		before = wsTree(t, fsys, "/") // unchanged read the files: their atimes moved
	}
}

// TestImport_CommitsPerBatch checks that small entries share commits: every
// transaction stamps its journal records with one reading of the store's
// clock, which ticks at every reading here.
func TestImport_CommitsPerBatch(t *testing.T) {
	ctx := context.Background()
	var tick atomic.Int64
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	fsys := openWSWith(t, vfs.Options{Now: func() time.Time { return base.Add(time.Duration(tick.Add(1)) * time.Microsecond) }})
	const dirs, perDir, batch = 4, 50, 20
	var entries []tarEntry
	for d := range dirs {
		entries = append(entries, tarEntry{name: fmt.Sprintf("d%d/", d), typ: tar.TypeDir, mode: 0o750})
		for f := range perDir {
			entries = append(entries, tarEntry{name: fmt.Sprintf("d%d/f%02d", d, f), body: "content", mode: 0o600,
				pax: map[string]string{"SCHILY.xattr.user.n": fmt.Sprint(f)}})
		}
	}
	since := fsys.Seq()
	sum, err := fsio.ImportTar(ctx, fsys, bytes.NewReader(makeTar(t, entries...)), "/imp", fsio.ImportOptions{BatchEntries: batch})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != dirs*perDir || sum.Xattrs != dirs*perDir {
		t.Errorf("summary %+v", sum)
	}
	txs := map[time.Time]bool{}
	for {
		chs, err := fsys.Changes(ctx, since, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(chs) == 0 {
			break
		}
		for _, ch := range chs {
			txs[ch.Time] = true
		}
		since = chs[len(chs)-1].Seq
	}
	// The entries and the directory attributes, in batches, plus a few for
	// the staging directory and the final rename.
	limit := (len(entries)+dirs+batch-1)/batch + 6
	if len(txs) > limit {
		t.Errorf("%d transactions for %d entries, want at most %d", len(txs), len(entries), limit)
	}
	t.Logf("%d entries in %d transactions", len(entries), len(txs))
	fi, err := fsys.Lstat(ctx, "/imp/d3/f49")
	if err != nil || fi.Mode() != 0o600 || fi.ModTime().UnixNano() != time.Unix(1600000000, 5).UnixNano() {
		t.Errorf("Lstat(/imp/d3/f49) = %v, %v", fi, err)
	}
}

// TestImportDir_CancelMidway cancels an import between batches.
func TestImportDir_CancelMidway(t *testing.T) {
	host := t.TempDir()
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(host, fmt.Sprintf("f%02d", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys := openWS(t)
	seedWorkspace(t, fsys)
	before := wsTree(t, fsys, "/")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := fsio.ImportDir(ctx, fsys, host, "/dst", fsio.ImportOptions{
		BatchEntries:     7,
		ProgressInterval: time.Nanosecond,
		Progress: func(p fsio.Progress) {
			if p.Entries >= 30 {
				cancel()
			}
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	unchanged(t, fsys, before)
}
