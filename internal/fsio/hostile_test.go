package fsio_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fsio"
)

// zipEntry describes one entry for makeZip.
type zipEntry struct {
	name  string
	body  string
	mode  uint32 // Unix mode with type bits; 0: a regular file 0644 (or a directory if name ends in /)
	extra []byte
	flags uint16
	raw   *zip.FileHeader // CreateRaw with this header and body as the raw data
}

func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.raw != nil {
			w, err := zw.CreateRaw(e.raw)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(w, e.body)
			continue
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o100644
			if strings.HasSuffix(e.name, "/") {
				mode = 0o040755
			}
		}
		fh := &zip.FileHeader{Name: e.name, Method: zip.Deflate, CreatorVersion: 3 << 8, ExternalAttrs: mode << 16,
			Modified: time.Unix(1600000000, 0), Extra: e.extra, Flags: e.flags}
		w, err := zw.CreateHeader(fh)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// deskLink is desk's zip hard link field naming target.
func deskLink(target string) []byte {
	b := make([]byte, 4, 4+len(target))
	binary.LittleEndian.PutUint16(b, 0x6b64)
	binary.LittleEndian.PutUint16(b[2:], uint16(len(target)))
	return append(b, target...)
}

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

// bigZeroTar is a tar holding one file of n zero bytes, written without
// holding them.
func bigZeroTar(t *testing.T, n int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: "zeros", Mode: 0o644, Size: n, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(tw, zeroReader{}, n); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// specialTar is a tar whose first record is a header record of type typ
// (a PAX header, a GNU long name) holding body, which archive/tar refuses
// to write when it is over its limit, followed by a small file.
func specialTar(t *testing.T, typ byte, body string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "special", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}); err != nil {
		t.Fatal(err)
	}
	io.WriteString(tw, body)
	if err := tw.WriteHeader(&tar.Header{Name: "after", Mode: 0o644, Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	b := buf.Bytes()
	// Retype the first header and fix its checksum (the sum of the header's
	// bytes with the checksum field as spaces, in octal).
	b[156] = typ
	copy(b[148:156], "        ")
	sum := 0
	for _, c := range b[:512] {
		sum += int(c)
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// hostileCase is one archive that must be refused.
type hostileCase struct {
	name string
	data func(t *testing.T) []byte
	opts fsio.ImportOptions
	is   error  // the error must wrap this (nil: any error)
	msg  string // and contain this
	// hostOnly: refused by ExtractHost only (a workspace takes a device).
	hostOnly bool
}

func hostileCases() []hostileCase {
	good := tarEntry{name: "ok.txt", body: "fine"}
	tarOf := func(es ...tarEntry) func(*testing.T) []byte {
		return func(t *testing.T) []byte { return makeTar(t, es...) }
	}
	zipOf := func(es ...zipEntry) func(*testing.T) []byte {
		return func(t *testing.T) []byte { return makeZip(t, es...) }
	}
	manyDirs := func(n, nameLen int) func(*testing.T) []byte {
		return func(t *testing.T) []byte {
			var es []tarEntry
			for i := range n {
				es = append(es, tarEntry{name: fmt.Sprintf("%0*d/", nameLen, i), typ: tar.TypeDir, mode: 0o755})
			}
			return makeTar(t, es...)
		}
	}
	deep := strings.Repeat(strings.Repeat("d", 100)+"/", 42) + "f"
	return []hostileCase{
		{name: "tar dotdot", data: tarOf(good, tarEntry{name: "../x", body: "evil"}), is: fsio.ErrUnsafePath, msg: `"../x"`},
		{name: "tar absolute", data: tarOf(good, tarEntry{name: "/abs", body: "evil"}), is: fsio.ErrUnsafePath, msg: "absolute"},
		{name: "tar symlink then file through it", data: tarOf(good, tarEntry{name: "l", typ: tar.TypeSymlink, link: "/"}, tarEntry{name: "l/evil.txt", body: "evil"}), is: syscall.ENOTDIR, msg: "symlink"},
		{name: "tar symlink then dir through it", data: tarOf(tarEntry{name: "l", typ: tar.TypeSymlink, link: ".."}, tarEntry{name: "l/sub/", typ: tar.TypeDir}), is: syscall.ENOTDIR, msg: "symlink"},
		{name: "tar char device", data: tarOf(good, tarEntry{name: "null", typ: tar.TypeChar}), is: fsio.ErrSpecialFile, msg: "character device", hostOnly: true},
		{name: "tar block device", data: tarOf(good, tarEntry{name: "sda", typ: tar.TypeBlock}), is: syscall.EPERM, msg: "block device", hostOnly: true},
		{name: "tar huge PAX header", data: func(t *testing.T) []byte {
			rec := "comment=" + strings.Repeat("c", 2<<20) + "\n"
			rec = fmt.Sprintf("%d %s", len(rec)+8, rec)
			return specialTar(t, tar.TypeXHeader, rec)
		}, is: fsio.ErrLimit, msg: "header record"},
		{name: "tar huge GNU long name", data: func(t *testing.T) []byte {
			return specialTar(t, tar.TypeGNULongName, strings.Repeat("n/", 1<<20)+"x")
		}, is: fsio.ErrLimit, msg: "MaxHeaderLen"},
		{name: "tar duplicate file", data: tarOf(tarEntry{name: "a", body: "1"}, tarEntry{name: "a", body: "2"}), is: syscall.EEXIST, msg: "same name"},
		{name: "tar duplicate dir", data: tarOf(tarEntry{name: "d/", typ: tar.TypeDir}, tarEntry{name: "d/", typ: tar.TypeDir}), is: syscall.EEXIST, msg: "same name"},
		{name: "tar duplicate root", data: tarOf(tarEntry{name: "./", typ: tar.TypeDir}, tarEntry{name: ".", typ: tar.TypeDir}), is: syscall.EEXIST, msg: "same name"},
		{name: "tar file then dir of the same name", data: tarOf(tarEntry{name: "a", body: "1"}, tarEntry{name: "a/", typ: tar.TypeDir}), is: syscall.EEXIST},
		{name: "tar hard link outside", data: tarOf(good, tarEntry{name: "h", typ: tar.TypeLink, link: "../keep.txt"}), is: fsio.ErrUnsafePath, msg: "hard link target"},
		{name: "tar hard link to a name not in the archive", data: tarOf(good, tarEntry{name: "h", typ: tar.TypeLink, link: "keep.txt"}), msg: "not an earlier entry"},
		{name: "tar hard link to a directory", data: tarOf(tarEntry{name: "d/", typ: tar.TypeDir}, tarEntry{name: "h", typ: tar.TypeLink, link: "d"}), msg: "hard link target \"d\""},
		{name: "tar hard link through a symlink", data: tarOf(good, tarEntry{name: "l", typ: tar.TypeSymlink, link: "/"}, tarEntry{name: "h", typ: tar.TypeLink, link: "l/keep.txt"}), msg: "not an earlier entry"},
		{name: "tar name element too long", data: tarOf(tarEntry{name: strings.Repeat("x", 256), body: "x"}), is: syscall.ENAMETOOLONG},
		{name: "tar path too long", data: tarOf(tarEntry{name: deep, body: "x"}), is: syscall.ENAMETOOLONG},
		{name: "tar symlink target too long", data: tarOf(tarEntry{name: "l", typ: tar.TypeSymlink, link: strings.Repeat("t/", 2100)}), is: syscall.ENAMETOOLONG},
		{name: "tar xattr too large", data: tarOf(tarEntry{name: "x", body: "x", pax: map[string]string{"SCHILY.xattr.user.big": strings.Repeat("v", 65<<10)}}), is: syscall.E2BIG},
		{name: "tar root as a file", data: tarOf(tarEntry{name: ".", body: "x"}), msg: `"."`},
		{name: "tar over MaxEntries", data: manyDirs(20, 3), opts: fsio.ImportOptions{MaxEntries: 10}, is: fsio.ErrLimit, msg: "MaxEntries"},
		{name: "tar over MaxMetaBytes", data: manyDirs(300, 200), opts: fsio.ImportOptions{MaxMetaBytes: 64 << 10}, is: fsio.ErrLimit, msg: "MaxMetaBytes"},
		{name: "tgz bomb over MaxBytes", data: func(t *testing.T) []byte { return bigZeroTar(t, 64<<20) }, opts: fsio.ImportOptions{MaxBytes: 1 << 20}, is: fsio.ErrLimit, msg: "MaxBytes"},
		{name: "tgz with a bad checksum", data: func(t *testing.T) []byte {
			b := gz(t, makeTar(t, good))
			b[len(b)-6] ^= 0xff // the CRC-32 in the trailer
			return b
		}, msg: "checksum"},
		{name: "tar cut short", data: func(t *testing.T) []byte {
			b := makeTar(t, tarEntry{name: "a", body: strings.Repeat("a", 5000)}, tarEntry{name: "b", body: "b"})
			return b[:2048]
		}},

		{name: "zip dotdot", data: zipOf(zipEntry{name: "ok.txt", body: "ok"}, zipEntry{name: "../evil", body: "x"}), is: fsio.ErrUnsafePath},
		{name: "zip dotdot inside", data: zipOf(zipEntry{name: "a/../../evil", body: "x"}), is: fsio.ErrUnsafePath},
		{name: "zip absolute", data: zipOf(zipEntry{name: "/etc/evil", body: "x"}), is: fsio.ErrUnsafePath},
		{name: "zip symlink then file through it", data: zipOf(zipEntry{name: "l", body: "/", mode: 0o120777}, zipEntry{name: "l/evil", body: "x"}), is: syscall.ENOTDIR},
		{name: "zip char device", data: zipOf(zipEntry{name: "null", mode: 0o020666}), is: fsio.ErrSpecialFile},
		{name: "zip socket", data: zipOf(zipEntry{name: "sock", mode: 0o140666}), is: fsio.ErrSpecialFile},
		{name: "zip bomb over MaxBytes", data: zipOf(zipEntry{name: "zeros", body: strings.Repeat("\x00", 64<<20)}), opts: fsio.ImportOptions{MaxBytes: 1 << 20}, is: fsio.ErrLimit, msg: "declare"},
		{name: "zip that lies about its size", data: func(t *testing.T) []byte {
			var comp bytes.Buffer
			fw, _ := flate.NewWriter(&comp, flate.BestCompression)
			big := strings.Repeat("\x00", 8<<20)
			fw.Write([]byte(big))
			fw.Close()
			return makeZip(t, zipEntry{raw: &zip.FileHeader{Name: "liar", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE([]byte(big)),
				CompressedSize64: uint64(comp.Len()), UncompressedSize64: 10, CreatorVersion: 3 << 8, ExternalAttrs: 0o100644 << 16}, body: comp.String()})
		}, opts: fsio.ImportOptions{MaxBytes: 1 << 20}},
		{name: "zip duplicate entries", data: zipOf(zipEntry{name: "a", body: "1"}, zipEntry{name: "a", body: "2"}), is: syscall.EEXIST},
		{name: "zip hard link outside", data: zipOf(zipEntry{name: "a", body: "1"}, zipEntry{name: "h", body: "1", extra: deskLink("../keep.txt")}), is: fsio.ErrUnsafePath},
		{name: "zip hard link to a later entry", data: zipOf(zipEntry{name: "h", body: "1", extra: deskLink("a")}, zipEntry{name: "a", body: "1"}), msg: "not an earlier entry"},
		{name: "zip encrypted", data: zipOf(zipEntry{name: "secret", body: "x", flags: 1}), is: fsio.ErrNotArchive, msg: "encrypted"},
		{name: "zip over MaxEntries", data: func(t *testing.T) []byte {
			var es []zipEntry
			for i := range 50 {
				es = append(es, zipEntry{name: fmt.Sprintf("f%d", i), body: "x"})
			}
			return makeZip(t, es...)
		}, opts: fsio.ImportOptions{MaxEntries: 10}, is: fsio.ErrLimit, msg: "MaxEntries"},
		{name: "zip directory over MaxMetaBytes", data: func(t *testing.T) []byte {
			var es []zipEntry
			for i := range 400 {
				es = append(es, zipEntry{name: fmt.Sprintf("%0200d", i), body: "x"})
			}
			return makeZip(t, es...)
		}, opts: fsio.ImportOptions{MaxMetaBytes: 64 << 10}, is: fsio.ErrLimit, msg: "MaxMetaBytes"},
		{name: "zip cut short", data: func(t *testing.T) []byte {
			b := makeZip(t, zipEntry{name: "a", body: "aaaa"}, zipEntry{name: "b", body: "bbbb"})
			return b[:len(b)-30]
		}, is: fsio.ErrNotArchive},
		{name: "not an archive", data: func(*testing.T) []byte { return bytes.Repeat([]byte("no archive here\n"), 64) }, is: fsio.ErrNotArchive},
		{name: "empty", data: func(*testing.T) []byte { return nil }, is: fsio.ErrNotArchive},
	}
}

func checkHostileErr(t *testing.T, c hostileCase, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("the archive was accepted")
	}
	t.Logf("refused: %v", err)
	if c.is != nil && !errors.Is(err, c.is) {
		t.Errorf("error %q does not wrap %v", err, c.is)
	}
	if !strings.Contains(err.Error(), c.msg) {
		t.Errorf("error %q does not mention %q", err, c.msg)
	}
}

// TestImportArchive_Hostile: every hostile archive is refused with a clear
// error and leaves the workspace as it was: the same tree (listing and every
// attribute but ctime), the same contents, a clean Check.
func TestImportArchive_Hostile(t *testing.T) {
	for _, c := range hostileCases() {
		if c.hostOnly {
			continue // TestSpecialFiles covers the workspace's side
		}
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			fsys := openWS(t)
			seedWorkspace(t, fsys)
			before := wsTree(t, fsys, "/")
			_, err := fsio.ImportArchive(ctx, fsys, bytes.NewReader(c.data(t)), "/dst", c.opts)
			checkHostileErr(t, c, err)
			unchanged(t, fsys, before)
			if res, err := fsys.Check(ctx); err != nil || !res.OK() {
				t.Errorf("Check: %v %v", res, err)
			}
		})
	}
}

// TestExtractHost_Hostile: the same archives leave a host directory as it
// was, merged into or not.
func TestExtractHost_Hostile(t *testing.T) {
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			parent := t.TempDir()
			dst := filepath.Join(parent, "dst")
			if err := os.MkdirAll(filepath.Join(dst, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, "keep.txt"), []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Unix(1500000000, 0)
			for _, p := range []string{dst, filepath.Join(dst, "sub"), parent} {
				setTimes(t, p, old, old)
			}
			before := hostTree(t, parent)
			for _, target := range []string{dst, filepath.Join(dst, "new")} {
				_, err := fsio.ExtractHost(ctx, bytes.NewReader(c.data(t)), target, c.opts)
				checkHostileErr(t, c, err)
				compareTrees(t, "host directory", before, hostTree(t, parent))
			}
		})
	}
}
