package fsio_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/fsio/fsiotest"
)

// FuzzImportArchive feeds arbitrary bytes to the archive reader, into a
// workspace and into a host directory. Whatever the input: the store checks
// clean; a refused archive leaves the workspace as it was; an accepted one
// changes nothing outside the destination; and the host directory beside
// the destination never gets anything but the destination.
//
//	go test -run '^$' -fuzz FuzzImportArchive -fuzztime 60s ./internal/fsio/
func FuzzImportArchive(f *testing.F) {
	seeds := [][]byte{
		makeTar(f, tarEntry{name: "./", typ: tar.TypeDir, mode: 0o750}, tarEntry{name: "a.txt", body: "new a"}, tarEntry{name: "sub/b", body: "b"},
			tarEntry{name: "l", typ: tar.TypeSymlink, link: "a.txt"}, tarEntry{name: "h", typ: tar.TypeLink, link: "a.txt"}),
		makeTar(f, tarEntry{name: "l", typ: tar.TypeSymlink, link: "/"}, tarEntry{name: "l/evil", body: "x"}),
		makeTar(f, tarEntry{name: "../x", body: "x"}),
		makeTar(f, tarEntry{name: "dir", body: "replaces a workspace directory?"}),
		makeTar(f, tarEntry{name: "d/", typ: tar.TypeDir}, tarEntry{name: "d/", typ: tar.TypeDir}),
		makeTar(f, tarEntry{name: "x", body: "x", pax: map[string]string{"SCHILY.xattr.user.a": "v"}}),
		makeZip(f, zipEntry{name: "z/", mode: 0o040700}, zipEntry{name: "z/f", body: "zip content"}, zipEntry{name: "s", body: "z/f", mode: 0o120777},
			zipEntry{name: "hl", body: "zip content", extra: deskLink("z/f")}),
		makeZip(f, zipEntry{name: "../evil", body: "x"}),
		makeZip(f, zipEntry{name: "dev", mode: 0o020644}),
	}
	for _, s := range seeds {
		f.Add(s)
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(s)
		zw.Close()
		f.Add(buf.Bytes())
	}
	f.Add([]byte{})
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		opts := fsio.ImportOptions{MaxEntries: 500, MaxBytes: 1 << 20, MaxMetaBytes: 1 << 20, TempDir: t.TempDir(), SkipSpecial: len(data)%2 == 0}
		fsys := openWS(t)
		seedWorkspace(t, fsys)
		before := wsTree(t, fsys, "/")
		_, err := fsio.ImportArchive(ctx, fsys, bytes.NewReader(data), "/dst", opts)
		if err != nil {
			unchanged(t, fsys, before)
		} else {
			after := wsTree(t, fsys, "/")
			outside := func(name string, _ *node) bool { return name != "dst" && !strings.HasPrefix(name, "dst/") }
			compareTrees(t, "outside the destination", mapTree(before, outside), mapTree(after, outside))
		}
		if res, cerr := fsys.Check(ctx); cerr != nil || !res.OK() {
			t.Fatalf("Check after import (err %v): %v %v", err, res, cerr)
		}

		parent := t.TempDir()
		dst := filepath.Join(parent, "dst")
		_, err = fsio.ExtractHost(ctx, bytes.NewReader(data), dst, opts)
		ents, rerr := os.ReadDir(parent)
		if rerr != nil {
			t.Fatal(rerr)
		}
		switch {
		case err != nil && len(ents) != 0:
			t.Fatalf("a refused extraction (%v) left %v", err, ents)
		case err == nil && (len(ents) != 1 || ents[0].Name() != "dst"):
			t.Fatalf("an extraction left %v beside the destination", ents)
		}
		fsiotest.MakeWritable(parent)
	})
}
