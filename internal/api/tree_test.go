package api_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/fsio/fsiotest"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

func compareHost(t *testing.T, what string, want, got map[string]fsiotest.Node, view func(string, *fsiotest.Node) bool) {
	t.Helper()
	norm := func(m map[string]fsiotest.Node) map[string]fsiotest.Node {
		out := map[string]fsiotest.Node{}
		for k, n := range m {
			if view == nil || view(k, &n) {
				out[k] = n
			}
		}
		return out
	}
	w, g := norm(want), norm(got)
	for k, wn := range w {
		if gn, ok := g[k]; !ok {
			t.Errorf("%s: %q missing", what, k)
		} else if !reflect.DeepEqual(wn, gn) {
			t.Errorf("%s: %q differs:\n want %+v\n  got %+v", what, k, wn, gn)
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			t.Errorf("%s: unexpected %q", what, k)
		}
	}
}

// makeHostTree builds a real tree: modes (setuid, sticky, a read-only
// directory), symlinks, hard links, a multi-chunk file, an empty directory,
// and distinct times with nanoseconds.
func makeHostTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "src")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"", "empty", "a/b/c", "sticky", "ro"} {
		must(os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	file := func(rel, data string, perm os.FileMode) {
		p := filepath.Join(root, rel)
		must(os.WriteFile(p, []byte(data), 0o600))
		must(os.Chmod(p, perm))
	}
	file("hello.txt", "hello\n", 0o644)
	file("empty.txt", "", 0o600)
	file("run.sh", "#!/bin/sh\necho hi\n", 0o755)
	file("setuid", "s", 0o755|os.ModeSetuid)
	file("a/b/c/deep.txt", "deep", 0o640)
	file("ro/inside", "read only dir", 0o444)
	file("héllo wörld", "unicode", 0o644)
	big := make([]byte, 1<<20+12345)
	rng := rand.New(rand.NewChaCha8([32]byte{7}))
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	must(os.WriteFile(filepath.Join(root, "a/big.bin"), big, 0o644))
	file("a/h1", "linked", 0o644)
	must(os.Link(filepath.Join(root, "a/h1"), filepath.Join(root, "h2")))
	must(os.Link(filepath.Join(root, "a/h1"), filepath.Join(root, "a/b/h3")))
	must(os.Symlink("hello.txt", filepath.Join(root, "l-rel")))
	must(os.Symlink("/etc/hostname", filepath.Join(root, "l-abs")))
	must(os.Symlink("no/such", filepath.Join(root, "l-dangling")))
	must(os.Symlink("a/b", filepath.Join(root, "l-dir")))
	must(os.Chmod(filepath.Join(root, "sticky"), 0o777|os.ModeSticky))
	must(os.Chmod(filepath.Join(root, "ro"), 0o555))
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "ro"), 0o755) })
	base := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	fsiotest.SetTimes(t, root, func(i int) (time.Time, time.Time) {
		mt := base.Add(time.Duration(i)*time.Hour + time.Duration(i*137+11)*100*time.Nanosecond + 7)
		return mt.Add(time.Minute), mt
	})
	return root
}

// download reads a whole tree download.
func download(t *testing.T, c *client.Client, ws, p, format string) []byte {
	t.Helper()
	tr, err := c.GetTree(bg, ws, p, client.GetTreeOptions{Format: format})
	if err != nil {
		t.Fatalf("GetTree(%s, %s): %v", p, format, err)
	}
	defer tr.Close()
	b, err := io.ReadAll(tr)
	if err != nil {
		t.Fatalf("GetTree(%s, %s): read: %v", p, format, err)
	}
	return b
}

// withFS runs fn on the workspace's store (through a lease of the host).
func (e *env) withFS(ws string, fn func(fsys *vfs.FS)) {
	e.t.Helper()
	l, err := e.h.Acquire(bg, ws)
	if err != nil {
		e.t.Fatal(err)
	}
	defer l.Release()
	fn(l.Workspace().FS())
}

// TestTree_RoundTrip uploads a real host tree through the API in each
// format and downloads it back in the same format, with GNU tar and
// Info-ZIP as the other end and the kernel's view of the trees as the
// judge: content, modes, mtimes (ns for tar, s for Info-ZIP, 100 ns for
// desk's zip), symlinks and hard links.
func TestTree_RoundTrip(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	src := makeHostTree(t)
	want := fsiotest.HostTree(t, src)

	for _, f := range []string{client.FormatTar, client.FormatTgz} {
		t.Run(f, func(t *testing.T) {
			args := []string{"--format=pax", "-cf", "-", "."}
			if f == client.FormatTgz {
				args = append([]string{"-z"}, args...)
			}
			archive := testenv.Tool(t, src, nil, "tar", args...)
			dest := "/up-" + f
			sum, err := e.c.PutTree(bg, "w", dest, bytes.NewReader(archive), client.TreeOptions{})
			if err != nil {
				t.Fatalf("PutTree: %v", err)
			}
			if sum.Hardlinks != 2 || sum.Symlinks != 4 || sum.Path != dest {
				t.Errorf("summary %+v", sum)
			}
			back := download(t, e.c, "w", dest, f)
			if f == client.FormatTgz && !bytes.HasPrefix(back, []byte{0x1f, 0x8b}) {
				t.Errorf("a tgz download does not begin with the gzip magic number")
			}
			out := t.TempDir()
			t.Cleanup(func() { fsiotest.MakeWritable(out) })
			xargs := []string{"-xpf", "-"}
			if f == client.FormatTgz {
				xargs = append([]string{"-z"}, xargs...)
			}
			testenv.Tool(t, out, back, "tar", xargs...)
			compareHost(t, "GNU tar → API → GNU tar", want, fsiotest.HostTree(t, out), nil)
		})
	}

	t.Run("zip", func(t *testing.T) {
		zipFile := filepath.Join(t.TempDir(), "src.zip")
		testenv.Tool(t, src, nil, "zip", "-q", "-r", "-y", zipFile, ".")
		zipped, err := os.ReadFile(zipFile)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.PutTree(bg, "w", "/up-zip", bytes.NewReader(zipped), client.TreeOptions{Format: client.FormatZip}); err != nil {
			t.Fatalf("PutTree(zip): %v", err)
		}
		back := download(t, e.c, "w", "/up-zip", client.FormatZip)
		out := filepath.Join(t.TempDir(), "out")
		t.Cleanup(func() { fsiotest.MakeWritable(out) })
		backFile := filepath.Join(t.TempDir(), "back.zip")
		if err := os.WriteFile(backFile, back, 0o644); err != nil {
			t.Fatal(err)
		}
		testenv.Tool(t, "/", nil, "unzip", "-q", "-K", backFile, "-d", out)
		// Info-ZIP keeps seconds and no hard links, and unzip sets no
		// symlink's time; zip stores no root entry.
		infoZip := func(name string, n *fsiotest.Node) bool {
			n.Links, n.Mtime = "", n.Mtime/1e9*1e9
			if n.Type == "symlink" {
				n.Mtime = 0
			}
			return name != "."
		}
		compareHost(t, "zip → API → unzip", want, fsiotest.HostTree(t, out), infoZip)

		// The whole tree (from a tar) as desk's zip: hard links and times to
		// 100 ns too, extracted by desk's own extractor.
		tarball := testenv.Tool(t, src, nil, "tar", "--format=pax", "-cf", "-", ".")
		if _, err := e.c.PutTree(bg, "w", "/full", bytes.NewReader(tarball), client.TreeOptions{}); err != nil {
			t.Fatal(err)
		}
		dz := download(t, e.c, "w", "/full", client.FormatZip)
		ext := filepath.Join(t.TempDir(), "ext")
		t.Cleanup(func() { fsiotest.MakeWritable(ext) })
		if _, err := fsio.ExtractHost(bg, bytes.NewReader(dz), ext, fsio.ImportOptions{}); err != nil {
			t.Fatalf("ExtractHost: %v", err)
		}
		hundredNs := func(_ string, n *fsiotest.Node) bool { n.Mtime = n.Mtime / 100 * 100; return true }
		compareHost(t, "tar → API → desk zip", want, fsiotest.HostTree(t, ext), hundredNs)
		// unzip reads desk's zip as well (hard links as copies).
		out2 := filepath.Join(t.TempDir(), "out2")
		t.Cleanup(func() { fsiotest.MakeWritable(out2) })
		if err := os.WriteFile(backFile, dz, 0o644); err != nil {
			t.Fatal(err)
		}
		testenv.Tool(t, "/", nil, "unzip", "-q", "-K", backFile, "-d", out2)
		compareHost(t, "tar → API → desk zip → unzip", want, fsiotest.HostTree(t, out2), infoZip)
	})

	// A single file downloads as an archive of one entry.
	b := download(t, e.c, "w", "/up-tar/hello.txt", client.FormatTar)
	tr := tar.NewReader(bytes.NewReader(b))
	hdr, err := tr.Next()
	if err != nil || hdr.Name != "hello.txt" || hdr.Mode != 0o644 {
		t.Errorf("single-file download: %+v, %v", hdr, err)
	}
	e.withFS("w", func(fsys *vfs.FS) {
		if res, err := fsys.Check(bg); err != nil || !res.OK() {
			t.Errorf("Check: %v %v", res, err)
		}
	})
}

// wsState is a workspace's listing with every attribute but ctime.
func wsState(t *testing.T, fsys *vfs.FS) string {
	t.Helper()
	var b strings.Builder
	var walk func(p string)
	walk = func(p string) {
		fi, err := fsys.Lstat(bg, p)
		if err != nil {
			t.Fatal(err)
		}
		a := fi.Attr()
		fmt.Fprintf(&b, "%s %o %d %d %d %d %d\n", p, a.Mode, a.Size, a.Nlink, a.Uid, a.Mtime.UnixNano(), a.Atime.UnixNano())
		if a.IsDir() {
			ents, err := fsys.ReadDir(bg, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, de := range ents {
				walk(path.Join(p, de.Name))
			}
		}
	}
	walk("/")
	return b.String()
}

func tarOf(t *testing.T, hdrs ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range hdrs {
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		body := h.Linkname
		if h.Typeflag == tar.TypeReg {
			h.Linkname = ""
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			io.WriteString(tw, body)
		}
	}
	tw.Close()
	return buf.Bytes()
}

// reg is a regular file header whose content is data (tarOf writes it).
func reg(name, data string) *tar.Header {
	return &tar.Header{Name: name, Typeflag: tar.TypeReg, Linkname: data}
}

// TestTree_Hostile: hostile archives are refused over the API with their
// status and code, and the workspace is left exactly as it was (its listing
// with every attribute, and the store's Check).
func TestTree_Hostile(t *testing.T) {
	e := newEnv(t, envOpts{api: api.Options{Tree: api.TreeOptions{MaxBytes: 4 << 20, MaxEntries: 1000}}})
	e.mkws("w")
	if _, err := e.c.PutTree(bg, "w", "/dst", bytes.NewReader(tarOf(t, reg("keep.txt", "keep"), &tar.Header{Name: "sub/", Typeflag: tar.TypeDir, Mode: 0o755})), client.TreeOptions{}); err != nil {
		t.Fatal(err)
	}
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	w, _ := zw.Create("zeros")
	w.Write(make([]byte, 64<<20))
	zw.Close()
	var gzBomb bytes.Buffer
	gw := gzip.NewWriter(&gzBomb)
	tw := tar.NewWriter(gw)
	tw.WriteHeader(&tar.Header{Name: "zeros", Typeflag: tar.TypeReg, Mode: 0o644, Size: 64 << 20})
	tw.Write(make([]byte, 64<<20))
	tw.Close()
	gw.Close()
	var dupZip bytes.Buffer
	zw = zip.NewWriter(&dupZip)
	for range 2 {
		w, _ := zw.Create("same")
		io.WriteString(w, "x")
	}
	zw.Close()
	// A zip holds no device numbers: its device entries are refused (a
	// tar's are imported; fsio's TestSpecialFiles).
	var devZip bytes.Buffer
	zw = zip.NewWriter(&devZip)
	fh := &zip.FileHeader{Name: "null"}
	fh.SetMode(fs.ModeDevice | fs.ModeCharDevice | 0o644)
	zw.CreateHeader(fh)
	zw.Close()
	long := tarOf(t, reg("a", strings.Repeat("a", 5000)), reg("b", "b"))
	var badSum bytes.Buffer
	gw = gzip.NewWriter(&badSum)
	gw.Write(tarOf(t, reg("a", "1")))
	gw.Close()
	badSumBytes := badSum.Bytes()
	badSumBytes[len(badSumBytes)-6] ^= 0xff // the trailer's CRC-32
	many := make([]*tar.Header, 1100)
	for i := range many {
		many[i] = &tar.Header{Name: fmt.Sprintf("d%d/", i), Typeflag: tar.TypeDir, Mode: 0o755}
	}
	cases := []struct {
		name   string
		body   []byte
		ctype  string
		status int
		code   string
		msg    string
	}{
		{"dotdot", tarOf(t, reg("ok", "ok"), reg("../evil", "x")), "", 400, api.CodeBadArchive, "../evil"},
		{"absolute", tarOf(t, reg("/etc/evil", "x")), "", 400, api.CodeBadArchive, "absolute"},
		{"symlink then file", tarOf(t, &tar.Header{Name: "l", Typeflag: tar.TypeSymlink, Linkname: "/"}, reg("l/evil", "x")), "", 400, api.CodeBadArchive, "symlink"},
		{"device in a zip", devZip.Bytes(), "application/zip", 400, api.CodeBadArchive, "skip_special=1"},
		{"duplicate", tarOf(t, reg("a", "1"), reg("a", "2")), "", 400, api.CodeBadArchive, "EEXIST"},
		{"duplicate zip", dupZip.Bytes(), "application/zip", 400, api.CodeBadArchive, "EEXIST"},
		{"hard link outside", tarOf(t, &tar.Header{Name: "h", Typeflag: tar.TypeLink, Linkname: "../keep.txt"}), "", 400, api.CodeBadArchive, "hard link"},
		{"hard link to no entry", tarOf(t, &tar.Header{Name: "h", Typeflag: tar.TypeLink, Linkname: "keep.txt"}), "", 400, api.CodeBadArchive, "not an earlier entry"},
		{"name too long", tarOf(t, reg(strings.Repeat("n", 300), "x")), "", 400, "ENAMETOOLONG", "over 255"},
		{"file over a directory", tarOf(t, reg("sub", "x")), "", 400, "EISDIR", "not replaced"},
		{"zip bomb", bomb.Bytes(), "application/zip", 413, api.CodeTooLarge, "MaxBytes"},
		{"gzip bomb", gzBomb.Bytes(), "application/gzip", 413, api.CodeTooLarge, "MaxBytes"},
		{"too many entries", tarOf(t, many...), "", 413, api.CodeTooLarge, "MaxEntries"},
		{"not an archive", []byte(strings.Repeat("hello\n", 200)), "", 400, api.CodeBadArchive, "not an archive"},
		{"cut short", long[:2048], "", 400, api.CodeBadArchive, "cut short"},
		{"bad gzip checksum", badSumBytes, "", 400, api.CodeBadArchive, "checksum"},
		{"tar sent as zip", tarOf(t, reg("a", "1")), "application/zip", 400, api.CodeBadArchive, "not a zip"},
		{"unknown type", []byte("x"), "text/plain", 415, api.CodeInvalid, "Content-Type"},
	}
	var before string
	e.withFS("w", func(fsys *vfs.FS) { before = wsState(t, fsys) })
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := []string{}
			if c.ctype != "" {
				hdr = append(hdr, "Content-Type", c.ctype)
			}
			status, body, code := e.raw("PUT", "/v1/workspaces/w/tree//dst", e.admin, bytes.NewReader(c.body), hdr...)
			if status != c.status || code != c.code || !strings.Contains(string(body), c.msg) {
				t.Errorf("got %d %s %s; want %d %s mentioning %q", status, code, body, c.status, c.code, c.msg)
			}
			e.withFS("w", func(fsys *vfs.FS) {
				if after := wsState(t, fsys); after != before {
					t.Errorf("the workspace changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
				if res, err := fsys.Check(bg); err != nil || !res.OK() {
					t.Errorf("Check: %v %v", res, err)
				}
			})
		})
	}
}

// TestTree_Errors: requests that are wrong before any archive is read.
func TestTree_Errors(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	if _, err := e.c.WriteFile(bg, "w", "/f", strings.NewReader("x"), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.GetTree(bg, "w", "/missing", client.GetTreeOptions{})
	wantCode(t, "GET missing", err, 404, "ENOENT")
	_, err = e.c.GetTree(bg, "w", "/", client.GetTreeOptions{Format: "rar"})
	wantCode(t, "GET format=rar", err, 400, api.CodeInvalid)
	_, err = e.c.PutTree(bg, "w", "/f", bytes.NewReader(tarOf(t, reg("a", "1"))), client.TreeOptions{})
	wantCode(t, "PUT onto a file", err, 400, "ENOTDIR")
	_, err = e.c.PutTree(bg, "w", "/f/under", bytes.NewReader(tarOf(t, reg("a", "1"))), client.TreeOptions{})
	wantCode(t, "PUT under a file", err, 400, "ENOTDIR")
	_, read := e.mint("w", nil, "read")
	rc := e.client(read)
	_, err = rc.PutTree(bg, "w", "/x", bytes.NewReader(tarOf(t, reg("a", "1"))), client.TreeOptions{})
	wantCode(t, "PUT with a read token", err, 403, "forbidden")
	if b := download(t, rc, "w", "/", ""); len(b) == 0 {
		t.Errorf("GET with a read token: empty")
	}
	_, err = e.c.GetTree(bg, "w", "/../x", client.GetTreeOptions{})
	if err == nil {
		t.Errorf("GET with ..: no error")
	}

	// 201 for a new directory, 200 for a merge; skip_special skips a device.
	status, body, _ := e.raw("PUT", "/v1/workspaces/w/tree//new", e.admin, bytes.NewReader(tarOf(t, reg("a", "1"))))
	if status != http.StatusCreated {
		t.Errorf("PUT into a new directory: %d %s", status, body)
	}
	dev := tarOf(t, reg("b", "2"), &tar.Header{Name: "null", Typeflag: tar.TypeChar})
	sum, err := e.c.PutTree(bg, "w", "/new", bytes.NewReader(dev), client.TreeOptions{SkipSpecial: true})
	if err != nil || sum.Skipped != 1 || len(sum.Warnings) != 1 || sum.Files != 1 {
		t.Errorf("PUT with skip_special: %+v, %v", sum, err)
	}
	e.withFS("w", func(fsys *vfs.FS) {
		for _, p := range []string{"/new/a", "/new/b"} {
			if _, err := fsys.Lstat(bg, p); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
		ents, _ := fsys.ReadDir(bg, "/")
		for _, de := range ents {
			if strings.HasPrefix(de.Name, ".desk-import-") {
				t.Errorf("staging directory left: %s", de.Name)
			}
		}
	})
}
