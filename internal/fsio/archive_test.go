package fsio_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/fsio/fsiotest"
	"github.com/desk-dev/desk/internal/testenv"
)

// gnuTarCreate archives the host directory dir with GNU tar (PAX, with
// user xattrs), optionally gzip-compressed.
func gnuTarCreate(t *testing.T, dir string, gz bool) []byte {
	t.Helper()
	args := []string{"--format=pax", "--xattrs", "--xattrs-include=user.*", "-cf", "-", "."}
	if gz {
		args = append([]string{"-z"}, args...)
	}
	return testenv.Tool(t, dir, nil, "tar", args...)
}

// gnuTarExtract extracts an archive (plain or gzip) with GNU tar into a new
// host directory, keeping permissions, owners (as root) and user xattrs.
func gnuTarExtract(t *testing.T, data []byte, gz bool) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsiotest.MakeWritable(out) })
	args := []string{"--xattrs", "--xattrs-include=user.*", "-xpf", "-"}
	if gz {
		args = append([]string{"-z"}, args...)
	}
	testenv.Tool(t, out, data, "tar", args...)
	return out
}

// mapTree returns a copy of tr with f applied to every node (f returning
// false drops the node).
func mapTree(tr tree, f func(name string, n *node) bool) tree {
	out := tree{}
	for name, n := range tr {
		if f(name, &n) {
			out[name] = n
		}
	}
	return out
}

// noAtimes clears atimes: GNU tar and unzip set the time of extraction.
func noAtimes(_ string, n *node) bool { n.Atime = 0; return true }

// zipView is what a zip keeps of a tree, read by another tool: no xattrs,
// no hard links, mtime in seconds.
func zipView(_ string, n *node) bool {
	n.Xattrs, n.Links, n.Atime = nil, "", 0
	n.Mtime = n.Mtime / 1e9 * 1e9
	return true
}

// deskZipView is what a zip written by desk keeps when desk reads it: all
// but xattrs, and times to 100 ns.
func deskZipView(_ string, n *node) bool {
	n.Xattrs = nil
	n.Mtime = n.Mtime / 100 * 100
	n.Atime = n.Atime / 100 * 100
	return true
}

// withoutFIFO builds the test tree without its FIFO (which the zip tool
// would try to read) and describes it.
func withoutFIFO(t *testing.T) (string, tree) {
	t.Helper()
	src, _ := makeHostTree(t)
	before := hostTree(t, src)
	if err := os.Remove(filepath.Join(src, "fifo")); err != nil {
		t.Fatal(err)
	}
	setTimes(t, src, time.Unix(0, before["."].Atime), time.Unix(0, before["."].Mtime))
	want := hostTree(t, src)
	hostContents(t, src, want)
	return src, want
}

// TestArchive_RoundTrip_GNUTar: a real host tree archived by GNU tar (plain
// and gzip) is imported, checked against the kernel's view of the tree,
// exported in the same format and extracted by GNU tar, and the result is
// checked against the kernel's view again; a second import of desk's own
// archive checks what GNU tar does not restore (atimes).
func TestArchive_RoundTrip_GNUTar(t *testing.T) {
	for _, f := range []fsio.Format{fsio.FormatTar, fsio.FormatTgz} {
		t.Run(string(f), func(t *testing.T) {
			ctx := context.Background()
			src, _ := makeHostTree(t)
			want := hostTree(t, src) // before tar reads the files (and moves their atimes)
			archive := gnuTarCreate(t, src, f == fsio.FormatTgz)
			hostContents(t, src, want)

			ws := openWS(t)
			var warnings []string
			sum, err := fsio.ImportArchive(ctx, ws, bytes.NewReader(archive), "/in", fsio.ImportOptions{
				Owners: asRoot, Warn: func(m string) { warnings = append(warnings, m) },
			})
			if err != nil {
				t.Fatalf("ImportArchive: %v", err)
			}
			if sum.Skipped != 0 || sum.Special != 1 || len(warnings) != 0 {
				t.Errorf("skipped %d, special %d, warnings %q; want the FIFO imported", sum.Skipped, sum.Special, warnings)
			}
			if sum.Hardlinks != 2 || sum.Symlinks != 5 {
				t.Errorf("summary %+v, want 2 hard links and 5 symlinks", sum)
			}
			got := wsTree(t, ws, "/in")
			compareTrees(t, "GNU tar → workspace", want, got)

			var out bytes.Buffer
			if _, err := fsio.ExportArchive(ctx, ws, "/in", &out, f, fsio.ExportOptions{}); err != nil {
				t.Fatalf("ExportArchive: %v", err)
			}
			wsContents(t, ws, "/in", got)
			compareTrees(t, "GNU tar → workspace (contents)", want, got)

			ext := gnuTarExtract(t, out.Bytes(), f == fsio.FormatTgz)
			back := hostTree(t, ext)
			hostContents(t, ext, back)
			compareTrees(t, "workspace → GNU tar", mapTree(want, noAtimes), mapTree(back, noAtimes))

			// desk's archive into a second workspace: atimes too.
			ws2 := openWS(t)
			if _, err := fsio.ImportArchive(ctx, ws2, bytes.NewReader(out.Bytes()), "/", fsio.ImportOptions{Owners: asRoot}); err != nil {
				t.Fatalf("ImportArchive of the export: %v", err)
			}
			compareTrees(t, "workspace → workspace", want, wsTree(t, ws2, "/"))
			if c, err := ws2.Check(ctx); err != nil || !c.OK() {
				t.Errorf("Check: %v %v", c, err)
			}
		})
	}
}

// TestArchive_RoundTrip_Zip: a real host tree zipped by Info-ZIP zip is
// imported and checked against the kernel's view (what a zip keeps);
// exported as a zip and extracted by Info-ZIP unzip, and checked again;
// and desk's zip, read back by desk, keeps everything but xattrs: hard
// links and times to 100 ns included.
func TestArchive_RoundTrip_Zip(t *testing.T) {
	ctx := context.Background()
	src, want := withoutFIFO(t)
	// GNU tar first: it records the atimes as they were before it read the
	// files (zip would move them first).
	tarball := gnuTarCreate(t, src, false)

	// Info-ZIP → workspace. zip stores no entry for the root directory.
	zipPath := filepath.Join(t.TempDir(), "info.zip")
	testenv.Tool(t, src, nil, "zip", "-q", "-r", "-y", zipPath, ".")
	zipped, err := os.ReadFile(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	ws := openWS(t)
	if _, err := fsio.ImportArchive(ctx, ws, bytes.NewReader(zipped), "/in", fsio.ImportOptions{Owners: asRoot}); err != nil {
		t.Fatalf("ImportArchive(zip): %v", err)
	}
	noRoot := func(name string, n *node) bool { return name != "." && zipView(name, n) }
	got := wsTree(t, ws, "/in")
	wsContents(t, ws, "/in", got)
	compareTrees(t, "zip → workspace", mapTree(want, noRoot), mapTree(got, noRoot))

	// A workspace with the full tree (from a tar) → desk's zip → unzip.
	full := openWS(t)
	if _, err := fsio.ImportArchive(ctx, full, bytes.NewReader(tarball), "/", fsio.ImportOptions{Owners: asRoot}); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	var warnings []string
	if _, err := fsio.ExportArchive(ctx, full, "/", &z, fsio.FormatZip, fsio.ExportOptions{Warn: func(m string) { warnings = append(warnings, m) }}); err != nil {
		t.Fatalf("ExportArchive(zip): %v", err)
	}
	if _, haveX := want["hello.txt"].Xattrs["user.desk.test"]; haveX && len(warnings) == 0 {
		t.Errorf("no warning about the xattrs a zip cannot carry")
	}
	out := filepath.Join(t.TempDir(), "out")
	zipFile := filepath.Join(t.TempDir(), "desk.zip")
	if err := os.WriteFile(zipFile, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsiotest.MakeWritable(out) })
	args := []string{"-q", "-K", zipFile, "-d", out}
	if asRoot {
		args = append([]string{"-X"}, args...)
	}
	testenv.Tool(t, "/", nil, "unzip", args...)
	back := hostTree(t, out)
	hostContents(t, out, back)
	// unzip writes every name of a hard link as a file of its own, and sets
	// no symlink's time.
	unzipView := func(name string, n *node) bool {
		if n.Type == "symlink" {
			n.Mtime = 0
		}
		return noRoot(name, n)
	}
	compareTrees(t, "workspace → unzip", mapTree(want, unzipView), mapTree(back, unzipView))

	// desk's zip → a second workspace: all but xattrs.
	ws2 := openWS(t)
	sum, err := fsio.ImportArchive(ctx, ws2, bytes.NewReader(z.Bytes()), "/", fsio.ImportOptions{Owners: asRoot})
	if err != nil {
		t.Fatalf("ImportArchive(desk zip): %v", err)
	}
	if sum.Hardlinks != 2 {
		t.Errorf("summary %+v, want 2 hard links", sum)
	}
	got2 := wsTree(t, ws2, "/")
	wsContents(t, ws2, "/", got2)
	compareTrees(t, "workspace → zip → workspace", mapTree(want, deskZipView), mapTree(got2, deskZipView))
}

// TestArchiveHost_ExtractHost: a host tree archived by ArchiveHost is what
// GNU tar and unzip extract, and ExtractHost of a workspace's archive is
// the tree again, as a new directory and merged into an existing one.
func TestArchiveHost_ExtractHost(t *testing.T) {
	ctx := context.Background()
	src, want := withoutFIFO(t)
	wantAgain := hostTree(t, src)
	compareTrees(t, "the source after reading it", mapTree(want, noAtimes), mapTree(wantAgain, noAtimes))

	// readlink(2) moves a symlink's atime (so the second archive records
	// what the first one's reading left); nothing else may move.
	linkAtimes := func(_ string, n *node) bool {
		if n.Type == "symlink" {
			n.Atime = 0
		}
		return true
	}
	for _, f := range []fsio.Format{fsio.FormatTar, fsio.FormatTgz, fsio.FormatZip} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if _, err := fsio.ArchiveHost(ctx, src, &buf, f, fsio.ExportOptions{}); err != nil {
				t.Fatalf("ArchiveHost: %v", err)
			}
			compareTrees(t, "source atimes after ArchiveHost", mapTree(want, linkAtimes), mapTree(hostTree(t, src), linkAtimes))
			if f != fsio.FormatZip {
				ext := gnuTarExtract(t, buf.Bytes(), f == fsio.FormatTgz)
				back := hostTree(t, ext)
				hostContents(t, ext, back)
				compareTrees(t, "ArchiveHost → GNU tar", mapTree(want, noAtimes), mapTree(back, noAtimes))
			}
			// ExtractHost into a new directory.
			dst := filepath.Join(t.TempDir(), "new")
			t.Cleanup(func() { fsiotest.MakeWritable(dst) })
			if _, err := fsio.ExtractHost(ctx, bytes.NewReader(buf.Bytes()), dst, fsio.ImportOptions{Owners: asRoot}); err != nil {
				t.Fatalf("ExtractHost: %v", err)
			}
			view := linkAtimes
			if f == fsio.FormatZip {
				view = func(name string, n *node) bool { return deskZipView(name, n) && linkAtimes(name, n) }
			}
			back := hostTree(t, dst)
			hostContents(t, dst, back)
			compareTrees(t, "ArchiveHost → ExtractHost", mapTree(want, view), mapTree(back, view))
			entries, _ := os.ReadDir(filepath.Dir(dst))
			if len(entries) != 1 {
				t.Errorf("beside the destination: %v, want no staging directory left", entries)
			}
		})
	}

	// Merge into an existing directory: files replaced, others kept.
	dst := filepath.Join(t.TempDir(), "existing")
	t.Cleanup(func() { fsiotest.MakeWritable(dst) })
	if err := os.MkdirAll(filepath.Join(dst, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"hello.txt": "old content", "keep.txt": "kept", "sub/mine": "mine"} {
		if err := os.WriteFile(filepath.Join(dst, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := fsio.ArchiveHost(ctx, src, &buf, fsio.FormatTar, fsio.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := fsio.ExtractHost(ctx, &buf, dst, fsio.ImportOptions{Owners: asRoot}); err != nil {
		t.Fatalf("ExtractHost (merge): %v", err)
	}
	back := hostTree(t, dst)
	hostContents(t, dst, back)
	for _, extra := range []string{"keep.txt", "sub/mine"} {
		if _, ok := back[extra]; !ok {
			t.Errorf("merge lost %s", extra)
		}
		delete(back, extra)
	}
	// The merged directory sub keeps its own times only if the archive's
	// attributes are not applied: they are, so sub matches the source.
	compareTrees(t, "merge", mapTree(want, linkAtimes), mapTree(back, linkAtimes))
}

// TestArchive_SingleFile: a file exports as a one-entry archive in every
// format, under its own or a given name, and imports back.
func TestArchive_SingleFile(t *testing.T) {
	ctx := context.Background()
	ws := openWS(t)
	if err := ws.MkdirAll(ctx, "/d", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile(ctx, "/d/report.pdf", []byte("%PDF-1.4 not really"), 0o640); err != nil {
		t.Fatal(err)
	}
	mt := time.Date(2022, 1, 2, 3, 4, 5, 600, time.UTC)
	if err := ws.Chtimes(ctx, "/d/report.pdf", mt, mt); err != nil {
		t.Fatal(err)
	}
	for _, f := range []fsio.Format{fsio.FormatTar, fsio.FormatTgz, fsio.FormatZip} {
		var buf bytes.Buffer
		if _, err := fsio.ExportArchive(ctx, ws, "/d/report.pdf", &buf, f, fsio.ExportOptions{Name: "copy.pdf"}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ws2 := openWS(t)
		if _, err := fsio.ImportArchive(ctx, ws2, &buf, "/x", fsio.ImportOptions{}); err != nil {
			t.Fatalf("%s: import: %v", f, err)
		}
		fi, err := ws2.Lstat(ctx, "/x/copy.pdf")
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if a := fi.Attr(); a.Mode&0o7777 != 0o640 || !a.Mtime.Equal(mt) {
			t.Errorf("%s: mode %o mtime %v, want 0640 %v", f, a.Mode&0o7777, a.Mtime, mt)
		}
		if b, _ := ws2.ReadFile(ctx, "/x/copy.pdf"); string(b) != "%PDF-1.4 not really" {
			t.Errorf("%s: content %q", f, b)
		}
	}
}
