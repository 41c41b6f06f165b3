package fsio_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/vfs"
)

// node is what the tests compare about one entry of a tree.
type node struct {
	Type   string // "dir", "file", "symlink", "fifo", "socket", "chr", "blk"
	Rdev   uint64 // devices
	Perm   uint32 // the 12 permission bits
	Uid    uint32
	Gid    uint32
	Size   int64 // files only
	Target string
	Mtime  int64 // UnixNano
	Atime  int64 // UnixNano; see compareAtime
	Xattrs map[string]string
	Links  string // names sharing the inode, comma-separated, when more than one
	SHA    string // content hash, filled by the content phase
}

// tree maps "." and slash-separated relative names to nodes.
type tree map[string]node

var asRoot = os.Geteuid() == 0

// openWS opens a new workspace store, closed when the test ends.
func openWS(t *testing.T) *vfs.FS {
	t.Helper()
	return openWSWith(t, vfs.Options{})
}

func groupLinks(tr tree, inos map[string]uint64) {
	by := map[uint64][]string{}
	for name, ino := range inos {
		by[ino] = append(by[ino], name)
	}
	for _, names := range by {
		if len(names) < 2 {
			continue
		}
		sort.Strings(names)
		for _, n := range names {
			nd := tr[n]
			nd.Links = strings.Join(names, ",")
			tr[n] = nd
		}
	}
}

// nodeOf describes the entry p (rel below the root) from its attributes
// (the host's too, in a vfs.Attr), all but a symlink's target and the
// xattrs; a file or a special file with more than one link is noted in inos.
func nodeOf(t *testing.T, p, rel string, a vfs.Attr, inos map[string]uint64) node {
	t.Helper()
	n := node{
		Perm:  a.Mode & 0o7777,
		Uid:   a.Uid,
		Gid:   a.Gid,
		Mtime: a.Mtime.UnixNano(),
		Atime: a.Atime.UnixNano(),
	}
	switch {
	case a.IsDir():
		n.Type = "dir"
	case a.IsRegular():
		n.Type, n.Size = "file", a.Size
	case a.IsSymlink():
		n.Type, n.Perm = "symlink", 0
	case a.IsSpecial():
		n.Type = map[uint32]string{vfs.S_IFIFO: "fifo", vfs.S_IFSOCK: "socket", vfs.S_IFCHR: "chr", vfs.S_IFBLK: "blk"}[a.Mode&vfs.S_IFMT]
		n.Rdev = a.Rdev
	default:
		t.Fatalf("%s: unknown type %#o", p, a.Mode)
	}
	if (a.IsRegular() || a.IsSpecial()) && a.Nlink > 1 {
		inos[rel] = a.Ino
	}
	return n
}

// hostTree describes a host directory without reading file contents and without
// touching atimes (directories are read with O_NOATIME).
func hostTree(t *testing.T, root string) tree {
	t.Helper()
	tr := tree{}
	inos := map[string]uint64{}
	var walk func(p, rel string)
	walk = func(p, rel string) {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		n := nodeOf(t, p, rel, vfs.Attr{
			Ino: st.Ino, Mode: st.Mode, Nlink: uint32(st.Nlink), Uid: st.Uid, Gid: st.Gid, Rdev: st.Rdev, Size: st.Size,
			Mtime: time.Unix(0, st.Mtim.Nano()), Atime: time.Unix(0, st.Atim.Nano()),
		}, inos)
		if n.Type == "symlink" {
			target, err := os.Readlink(p)
			if err != nil {
				t.Fatal(err)
			}
			n.Target = target
			// readlink(2) moves a symlink's atime; put it back.
			setTimes(t, p, time.Unix(0, n.Atime), time.Unix(0, n.Mtime))
		}
		if n.Type == "file" || n.Type == "dir" {
			n.Xattrs = hostXattrs(t, p)
		}
		tr[rel] = n
		if n.Type != "dir" {
			return
		}
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOATIME|syscall.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			walk(filepath.Join(p, name), path.Join(rel, name))
		}
	}
	walk(root, ".")
	groupLinks(tr, inos)
	return tr
}

func hostXattrs(t *testing.T, p string) map[string]string {
	t.Helper()
	sz, err := unix.Llistxattr(p, nil)
	if err != nil || sz == 0 {
		return nil
	}
	buf := make([]byte, sz)
	sz, err = unix.Llistxattr(p, buf)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, name := range strings.Split(string(buf[:sz]), "\x00") {
		if !strings.HasPrefix(name, "user.") {
			continue
		}
		vsz, err := unix.Lgetxattr(p, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		v := make([]byte, vsz)
		vsz, err = unix.Lgetxattr(p, name, v)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(v[:vsz])
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// hostContents fills in SHA for every host file, reading with O_NOATIME.
func hostContents(t *testing.T, root string, tr tree) {
	t.Helper()
	for rel, n := range tr {
		if n.Type != "file" {
			continue
		}
		f, err := os.OpenFile(filepath.Join(root, rel), os.O_RDONLY|syscall.O_NOATIME, 0)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		n.SHA = hex.EncodeToString(h.Sum(nil))
		tr[rel] = n
	}
}

// wsTree describes a workspace directory without reading file contents.
func wsTree(t *testing.T, fsys *vfs.FS, root string) tree {
	t.Helper()
	ctx := context.Background()
	tr := tree{}
	inos := map[string]uint64{}
	var walk func(p, rel string)
	walk = func(p, rel string) {
		fi, err := fsys.Lstat(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		n := nodeOf(t, p, rel, fi.Attr(), inos)
		if n.Type == "symlink" {
			if n.Target, err = fsys.Readlink(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if n.Type == "file" || n.Type == "dir" {
			names, err := fsys.Listxattr(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range names {
				if !strings.HasPrefix(name, "user.") {
					continue
				}
				v, err := fsys.Getxattr(ctx, p, name)
				if err != nil {
					t.Fatal(err)
				}
				if n.Xattrs == nil {
					n.Xattrs = map[string]string{}
				}
				n.Xattrs[name] = string(v)
			}
		}
		tr[rel] = n
		if n.Type != "dir" {
			return
		}
		ents, err := fsys.ReadDir(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			walk(path.Join(p, e.Name), path.Join(rel, e.Name))
		}
	}
	walk(root, ".")
	groupLinks(tr, inos)
	return tr
}

// wsContents fills in SHA for every workspace file.
func wsContents(t *testing.T, fsys *vfs.FS, root string, tr tree) {
	t.Helper()
	for rel, n := range tr {
		if n.Type != "file" {
			continue
		}
		data, err := fsys.ReadFile(context.Background(), path.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		n.SHA = hex.EncodeToString(sum[:])
		tr[rel] = n
	}
}

// compareTrees reports every difference between want and got. Owners are
// compared only when the test runs as root (only root can reproduce them).
func compareTrees(t *testing.T, what string, want, got tree) {
	t.Helper()
	withSHA := false
	for _, n := range got {
		withSHA = withSHA || n.SHA != ""
	}
	norm := func(n node) node {
		if !asRoot {
			n.Uid, n.Gid = 0, 0
		}
		if !withSHA {
			n.SHA = "" // contents not read yet
		}
		return n
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: %q missing", what, name)
			continue
		}
		if w, g := norm(w), norm(g); !reflect.DeepEqual(w, g) {
			t.Errorf("%s: %q differs:\n want %+v\n  got %+v", what, name, w, g)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: unexpected %q", what, name)
		}
	}
}

// setTimes sets a host path's atime and mtime without following symlinks.
func setTimes(t *testing.T, p string, atime, mtime time.Time) {
	t.Helper()
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatal(err)
	}
}

// bigFileSize is the size of the random file in the host tree: several chunks.
const bigFileSize = 3 << 20

// makeHostTree builds a host directory exercising everything import must keep,
// and reports whether user xattrs could be set on it.
func makeHostTree(t *testing.T) (root string, xattrs bool) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "src")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	file := func(rel string, data []byte, perm os.FileMode) {
		t.Helper()
		p := filepath.Join(root, rel)
		must(os.WriteFile(p, data, 0o600))
		must(os.Chmod(p, perm))
	}
	dir := func(rel string) { must(os.MkdirAll(filepath.Join(root, rel), 0o755)) }

	dir(".")
	dir("empty")
	dir("sub/deep/er")
	dir("sticky")
	dir("readonly")
	dir("setgid-dir")
	file("hello.txt", []byte("hello, world\n"), 0o644)
	file("empty.txt", nil, 0o600)
	file("exec.sh", []byte("#!/bin/sh\necho hi\n"), 0o755)
	file("setuid", []byte("suid"), 0o4755|os.ModeSetuid)
	file("setgid", []byte("sgid"), 0o2750|os.ModeSetgid)
	file("all-bits", []byte("all"), 0o777|os.ModeSetuid|os.ModeSetgid|os.ModeSticky)
	if asRoot {
		file("no-perms", []byte("none"), 0) // only root can still read it
	} else {
		file("no-perms", []byte("none"), 0o400)
	}
	file("héllo wörld.txt", []byte("unicode name"), 0o644)
	file("readonly/inside.txt", []byte("in a read-only dir"), 0o444)
	big := make([]byte, bigFileSize)
	rng := rand.New(rand.NewChaCha8([32]byte{1, 2, 3}))
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	file("sub/deep/random.bin", big, 0o640)
	file("sub/hard1", []byte("one inode, three names"), 0o644)
	must(os.Link(filepath.Join(root, "sub/hard1"), filepath.Join(root, "hard2")))
	must(os.Link(filepath.Join(root, "sub/hard1"), filepath.Join(root, "sub/deep/er/hard3")))
	must(os.Symlink("hello.txt", filepath.Join(root, "link-rel")))
	must(os.Symlink("/etc/passwd", filepath.Join(root, "link-abs")))
	must(os.Symlink("does/not/exist", filepath.Join(root, "link-dangling")))
	must(os.Symlink("../..", filepath.Join(root, "sub/deep/link-up")))
	must(os.Symlink("sub", filepath.Join(root, "link-dir")))
	if err := unix.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}

	xattrs = true
	if err := unix.Lsetxattr(filepath.Join(root, "hello.txt"), "user.desk.test", []byte("a value\x00with a NUL"), 0); err != nil {
		if !errors.Is(err, unix.ENOTSUP) {
			t.Fatalf("setxattr: %v", err)
		}
		t.Logf("host filesystem has no user xattrs (%v); xattrs are covered by TestImportTar_Xattrs only", err)
		xattrs = false
	} else {
		must(unix.Lsetxattr(filepath.Join(root, "sub"), "user.dir", []byte("on a directory"), 0))
		must(unix.Lsetxattr(filepath.Join(root, "hello.txt"), "user.empty", nil, 0))
	}
	if asRoot {
		must(os.Lchown(filepath.Join(root, "hello.txt"), 1234, 5678))
		must(os.Lchown(filepath.Join(root, "link-rel"), 4321, 8765))
		must(os.Lchown(filepath.Join(root, "sub/deep"), 42, 43))
		must(os.Chmod(filepath.Join(root, "setuid"), 0o4755|os.ModeSetuid)) // chown cleared nothing here, but be sure
	}

	// Directory modes last (readonly must stay writable while filled), then
	// times bottom-up, every one with distinct nanoseconds.
	must(os.Chmod(filepath.Join(root, "sticky"), 0o777|os.ModeSticky))
	must(os.Chmod(filepath.Join(root, "setgid-dir"), 0o755|os.ModeSetgid))
	must(os.Chmod(filepath.Join(root, "empty"), 0o700))
	must(os.Chmod(filepath.Join(root, "readonly"), 0o555))
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "readonly"), 0o755) }) // so TempDir can be removed
	base := time.Date(2021, 3, 4, 5, 6, 7, 123456789, time.UTC)
	i := 0
	var paths []string
	must(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		paths = append(paths, p)
		return err
	}))
	for j := len(paths) - 1; j >= 0; j-- { // children before parents
		i++
		mtime := base.Add(time.Duration(i) * (time.Hour + 7*time.Nanosecond))
		atime := mtime.Add(time.Duration(i)*time.Minute + 11*time.Nanosecond)
		setTimes(t, paths[j], atime, mtime)
	}
	return root, xattrs
}

func TestImportDir_RoundTrip(t *testing.T) {
	ctx := context.Background()
	src, haveXattrs := makeHostTree(t)
	want := hostTree(t, src)
	hostContents(t, src, want)
	if n := want["sub/deep/random.bin"]; n.Size != bigFileSize {
		t.Fatalf("test setup: random.bin has size %d", n.Size)
	}
	if haveXattrs && want["hello.txt"].Xattrs["user.desk.test"] != "a value\x00with a NUL" {
		t.Fatalf("test setup: xattr not read back: %+v", want["hello.txt"])
	}

	// Host directory → workspace 1, into a destination that does not exist yet.
	ws1 := openWS(t)
	var warnings []string
	sum, err := fsio.ImportDir(ctx, ws1, src, "/imported/here", fsio.ImportOptions{
		Owners: asRoot,
		Warn:   func(msg string) { warnings = append(warnings, msg) },
	})
	if err != nil {
		t.Fatalf("ImportDir: %v", err)
	}
	if sum.Files != 11 || sum.Hardlinks != 2 || sum.Symlinks != 5 || sum.Dirs != 8 || sum.Special != 1 || sum.Skipped != 0 {
		t.Errorf("ImportDir summary = %+v, want 11 files, 2 hard links, 5 symlinks, 8 dirs, the FIFO", sum)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %q, want none", warnings)
	}
	if wantBytes := int64(bigFileSize + 13 + 18 + 4*3 + 3 + 12 + 18 + 22); sum.Bytes != wantBytes {
		t.Errorf("summary bytes = %d, want %d", sum.Bytes, wantBytes)
	}
	got1 := wsTree(t, ws1, "/imported/here")
	compareTrees(t, "host dir → workspace", want, got1)

	// Spot checks that do not depend on the comparison helpers.
	fi, err := ws1.Lstat(ctx, "/imported/here/setuid")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o755|fs.ModeSetuid {
		t.Errorf("setuid mode = %v", fi.Mode())
	}
	fi, err = ws1.Lstat(ctx, "/imported/here/hello.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fi.ModTime().UnixNano(), want["hello.txt"].Mtime; got != want || got%1e9 == 0 {
		t.Errorf("hello.txt mtime = %d, want %d (with nanoseconds)", got, want)
	}
	if target, err := ws1.Readlink(ctx, "/imported/here/link-abs"); err != nil || target != "/etc/passwd" {
		t.Errorf("Readlink link-abs = %q, %v", target, err)
	}
	ents, err := ws1.ReadDir(ctx, "/imported")
	if err != nil || len(ents) != 1 || ents[0].Name != "here" {
		t.Errorf("ReadDir /imported = %v, %v; want only the destination (no staging left behind)", ents, err)
	}

	// Workspace 1 → tar (before anything reads workspace 1's files, which may
	// move their atimes).
	var tar1 bytes.Buffer
	esum, err := fsio.ExportTar(ctx, ws1, "/imported/here", &tar1, fsio.ExportOptions{})
	if err != nil {
		t.Fatalf("ExportTar: %v", err)
	}
	if esum.Files != sum.Files || esum.Hardlinks != sum.Hardlinks || esum.Symlinks != sum.Symlinks || esum.Dirs != sum.Dirs || esum.Bytes != sum.Bytes || esum.Special != sum.Special {
		t.Errorf("ExportTar summary = %+v, import summary = %+v", esum, sum)
	}
	wsContents(t, ws1, "/imported/here", got1)
	compareTrees(t, "host dir → workspace (contents)", want, got1)
	checkTarNanos(t, tar1.Bytes())

	// tar → workspace 2, into its existing root (the merge path).
	ws2 := openWS(t)
	tsum, err := fsio.ImportTar(ctx, ws2, bytes.NewReader(tar1.Bytes()), "/", fsio.ImportOptions{Owners: asRoot})
	if err != nil {
		t.Fatalf("ImportTar: %v", err)
	}
	if tsum.Files != sum.Files || tsum.Hardlinks != sum.Hardlinks || tsum.Symlinks != sum.Symlinks || tsum.Dirs != sum.Dirs || tsum.Bytes != sum.Bytes || tsum.Special != sum.Special || tsum.Skipped != 0 {
		t.Errorf("ImportTar summary = %+v, ImportDir summary = %+v", tsum, sum)
	}
	got2 := wsTree(t, ws2, "/")
	compareTrees(t, "tar → workspace", want, got2)

	// Exporting the copy gives the same archive, byte for byte.
	var tar2 bytes.Buffer
	if _, err := fsio.ExportTar(ctx, ws2, "/", &tar2, fsio.ExportOptions{}); err != nil {
		t.Fatalf("ExportTar 2: %v", err)
	}
	if !bytes.Equal(tar1.Bytes(), tar2.Bytes()) {
		t.Errorf("second export differs from the first (%d vs %d bytes)", tar1.Len(), tar2.Len())
	}
	wsContents(t, ws2, "/", got2)
	compareTrees(t, "tar → workspace (contents)", want, got2)
	if c, err := ws2.Check(ctx); err != nil || !c.OK() {
		t.Errorf("Check after imports: %v %v", c, err)
	}
}

// checkTarNanos verifies that the archive is PAX with sub-second times.
func checkTarNanos(t *testing.T, data []byte) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Name == "hello.txt" {
			if hdr.ModTime.Nanosecond() == 0 || hdr.AccessTime.Nanosecond() == 0 {
				t.Errorf("hello.txt times lost their nanoseconds: %v %v", hdr.ModTime, hdr.AccessTime)
			}
			if hdr.Format != tar.FormatPAX {
				t.Errorf("format %v, want PAX", hdr.Format)
			}
			return
		}
	}
}

// tarEntry describes one entry for makeTar.
type tarEntry struct {
	name, body, link string
	typ              byte
	mode             int64
	pax              map[string]string
}

func makeTar(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: mode, Linkname: e.link, Size: int64(len(e.body)),
			ModTime: time.Unix(1600000000, 5), Format: tar.FormatPAX, PAXRecords: e.pax}
		if typ != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Size > 0 {
			if _, err := io.WriteString(tw, e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// seedFiles is the file content seedWorkspace writes.
var seedFiles = map[string]string{"/keep.txt": "keep", "/dst/a.txt": "old a", "/dst/sub/old.txt": "old", "/dst/dir/x": "x"}

// seedWorkspace gives a workspace some content that imports must not disturb.
func seedWorkspace(t *testing.T, fsys *vfs.FS) {
	t.Helper()
	ctx := context.Background()
	for _, d := range []string{"/dst/sub", "/dst/dir"} {
		if err := fsys.MkdirAll(ctx, d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range seedFiles {
		if err := fsys.WriteFile(ctx, name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Unix(1500000000, 123)
	for _, p := range []string{"/", "/dst", "/dst/sub", "/dst/dir"} {
		if err := fsys.Chtimes(ctx, p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// unchanged verifies that a workspace seeded by seedWorkspace still looks as
// before: every attribute (ctime excepted) and the seeded file contents.
// Contents are checked against seedFiles rather than read twice, because a
// read moves a file's atime.
func unchanged(t *testing.T, fsys *vfs.FS, before tree) {
	t.Helper()
	compareTrees(t, "workspace", before, wsTree(t, fsys, "/"))
	for name, want := range seedFiles {
		got, err := fsys.ReadFile(context.Background(), name)
		if err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestImportTar_RejectsUnsafeEntries(t *testing.T) {
	good := tarEntry{name: "ok.txt", body: "fine"}
	tests := []struct {
		name    string
		entries []tarEntry
		msg     string // the error must contain this
	}{
		{"dotdot", []tarEntry{good, {name: "../x", body: "evil"}}, `"../x"`},
		{"absolute", []tarEntry{good, {name: "/abs", body: "evil"}}, `"/abs"`},
		{"dotdot inside", []tarEntry{good, {name: "a/../../x", body: "evil"}}, `"a/../../x"`},
		{"dotdot dir", []tarEntry{{name: "../", typ: tar.TypeDir, mode: 0o755}}, `"../"`},
		{"hardlink dotdot", []tarEntry{good, {name: "h", typ: tar.TypeLink, link: "../keep.txt"}}, `"h"`},
		{"hardlink absolute", []tarEntry{good, {name: "h", typ: tar.TypeLink, link: "/keep.txt"}}, `"h"`},
		{"hardlink outside archive", []tarEntry{good, {name: "h", typ: tar.TypeLink, link: "a.txt"}}, "not an earlier entry"},
		{"through symlink", []tarEntry{good, {name: "l", typ: tar.TypeSymlink, link: "/"}, {name: "l/evil.txt", body: "evil"}}, "symlink"},
		{"hardlink through symlink", []tarEntry{good, {name: "l", typ: tar.TypeSymlink, link: "/"}, {name: "h", typ: tar.TypeLink, link: "l/keep.txt"}}, "not an earlier entry"},
		{"through file", []tarEntry{good, {name: "f", body: "file"}, {name: "f/x", body: "evil"}}, "not a directory"},
		{"file over dir", []tarEntry{{name: "d/", typ: tar.TypeDir}, {name: "d", body: "x"}}, "same name"},
		{"file over workspace dir", []tarEntry{good, {name: "dir", body: "x"}}, "is a directory"},
		{"root as file", []tarEntry{{name: ".", body: "x"}}, `"."`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			fsys := openWS(t)
			seedWorkspace(t, fsys)
			before := wsTree(t, fsys, "/")
			_, err := fsio.ImportTar(ctx, fsys, bytes.NewReader(makeTar(t, tc.entries...)), "/dst", fsio.ImportOptions{})
			if err == nil {
				t.Fatal("ImportTar succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not mention %s", err, tc.msg)
			}
			unchanged(t, fsys, before)
		})
	}
}

func TestImportTar_NotATar(t *testing.T) {
	for name, input := range map[string][]byte{
		"empty":   nil,
		"text":    bytes.Repeat([]byte("this is not a tar archive\n"), 40),
		"xz":      []byte("\xfd7zXZ\x00rest"),
		"garbage": bytes.Repeat([]byte{0xff}, 1024),
	} {
		t.Run(name, func(t *testing.T) {
			fsys := openWS(t)
			seedWorkspace(t, fsys)
			before := wsTree(t, fsys, "/")
			_, err := fsio.ImportTar(context.Background(), fsys, bytes.NewReader(input), "/new", fsio.ImportOptions{})
			if !errors.Is(err, fsio.ErrNotTar) {
				t.Errorf("err = %v, want ErrNotTar", err)
			}
			unchanged(t, fsys, before)
		})
	}
}

func TestImportTar_Truncated(t *testing.T) {
	data := makeTar(t, tarEntry{name: "a.txt", body: strings.Repeat("a", 5000)}, tarEntry{name: "b.txt", body: "b"})
	fsys := openWS(t)
	seedWorkspace(t, fsys)
	before := wsTree(t, fsys, "/")
	_, err := fsio.ImportTar(context.Background(), fsys, bytes.NewReader(data[:len(data)/2]), "/dst", fsio.ImportOptions{})
	if err == nil {
		t.Fatal("ImportTar of a truncated archive succeeded")
	}
	unchanged(t, fsys, before)
}

func TestImportTar_MergeAndGzip(t *testing.T) {
	ctx := context.Background()
	fsys := openWS(t)
	seedWorkspace(t, fsys)
	data := makeTar(t,
		tarEntry{name: "./", typ: tar.TypeDir, mode: 0o750},
		tarEntry{name: "a.txt", body: "new a", mode: 0o600},
		tarEntry{name: "sub/new.txt", body: "new"},
		tarEntry{name: "implicit/parent/file", body: "deep"},
		tarEntry{name: "dir/", typ: tar.TypeDir, mode: 0o700},
		tarEntry{name: "dev", typ: tar.TypeChar},
	)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	sum, err := fsio.ImportTar(ctx, fsys, &gz, "/dst", fsio.ImportOptions{SkipSpecial: true})
	if err != nil {
		t.Fatalf("ImportTar: %v", err)
	}
	if sum.Skipped != 1 {
		t.Errorf("Skipped = %d, want 1 (the device)", sum.Skipped)
	}
	for name, want := range map[string]string{
		"/keep.txt": "keep", "/dst/a.txt": "new a", "/dst/sub/old.txt": "old", "/dst/sub/new.txt": "new",
		"/dst/implicit/parent/file": "deep", "/dst/dir/x": "x",
	} {
		got, err := fsys.ReadFile(ctx, name)
		if err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	for name, want := range map[string]fs.FileMode{"/dst": fs.ModeDir | 0o750, "/dst/a.txt": 0o600, "/dst/dir": fs.ModeDir | 0o700} {
		fi, err := fsys.Lstat(ctx, name)
		if err != nil || fi.Mode() != want {
			t.Errorf("Lstat(%s) mode = %v, %v; want %v", name, fi.Mode(), err, want)
		}
		if err == nil && fi.ModTime().UnixNano() != time.Unix(1600000000, 5).UnixNano() {
			t.Errorf("Lstat(%s) mtime = %v, want the archive's", name, fi.ModTime())
		}
	}
	ents, err := fsys.ReadDir(ctx, "/dst")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name, ".desk-import") {
			t.Errorf("staging directory %q left behind", e.Name)
		}
	}
}

func TestImportTar_Xattrs(t *testing.T) {
	ctx := context.Background()
	fsys := openWS(t)
	data := makeTar(t,
		tarEntry{name: "f", body: "x", pax: map[string]string{
			"SCHILY.xattr.user.mime": "text/plain", "SCHILY.xattr.user.bin": "\x00\x01", "SCHILY.xattr.security.selinux": "ignored"}},
		tarEntry{name: "d/", typ: tar.TypeDir, pax: map[string]string{"SCHILY.xattr.user.dir": "yes"}},
	)
	sum, err := fsio.ImportTar(ctx, fsys, bytes.NewReader(data), "/", fsio.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Xattrs != 3 {
		t.Errorf("Xattrs = %d, want 3", sum.Xattrs)
	}
	for _, c := range []struct{ path, name, value string }{{"/f", "user.mime", "text/plain"}, {"/f", "user.bin", "\x00\x01"}, {"/d", "user.dir", "yes"}} {
		v, err := fsys.Getxattr(ctx, c.path, c.name)
		if err != nil || string(v) != c.value {
			t.Errorf("Getxattr(%s, %s) = %q, %v", c.path, c.name, v, err)
		}
	}
	if _, err := fsys.Getxattr(ctx, "/f", "security.selinux"); err == nil {
		t.Error("security.selinux was imported; only user.* should be")
	}
	var out bytes.Buffer
	if _, err := fsio.ExportTar(ctx, fsys, "/", &out, fsio.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(&out)
	found := 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Name == "f" {
			found++
			if hdr.PAXRecords["SCHILY.xattr.user.mime"] != "text/plain" || hdr.PAXRecords["SCHILY.xattr.user.bin"] != "\x00\x01" {
				t.Errorf("exported records = %q", hdr.PAXRecords)
			}
		}
	}
	if found != 1 {
		t.Errorf("exported archive has %d entries named f", found)
	}
}

func TestImportDir_Errors(t *testing.T) {
	ctx := context.Background()
	fsys := openWS(t)
	seedWorkspace(t, fsys)
	before := wsTree(t, fsys, "/")
	host := t.TempDir()
	if err := os.WriteFile(filepath.Join(host, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, src, dest string
		errno           error
	}{
		{"missing source", filepath.Join(host, "nope"), "/x", fs.ErrNotExist},
		{"source is a file", filepath.Join(host, "f"), "/x", syscall.ENOTDIR},
		{"destination is a file", host, "/keep.txt", syscall.ENOTDIR},
		{"destination below a file", host, "/keep.txt/sub", syscall.ENOTDIR},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := fsio.ImportDir(ctx, fsys, c.src, c.dest, fsio.ImportOptions{})
			if !errors.Is(err, c.errno) {
				t.Errorf("err = %v, want %v", err, c.errno)
			}
		})
	}
	unchanged(t, fsys, before)

	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := fsio.ImportDir(ctx, fsys, host, "/x", fsio.ImportOptions{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if _, err := fsys.Lstat(context.Background(), "/x"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("canceled import left /x: %v", err)
		}
	})
}

func TestImportDir_ProgressAndExclude(t *testing.T) {
	ctx := context.Background()
	host := t.TempDir()
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(host, fmt.Sprintf("f%02d", i)), bytes.Repeat([]byte{'x'}, 1000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys := openWS(t)
	var calls []fsio.Progress
	sum, err := fsio.ImportDir(ctx, fsys, host, "/p", fsio.ImportOptions{
		ProgressInterval: time.Nanosecond,
		Progress:         func(p fsio.Progress) { calls = append(calls, p) },
		Exclude:          func(p string, _ fs.FileInfo) bool { return filepath.Base(p) == "f07" },
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 19 || sum.Bytes != 19000 {
		t.Errorf("summary %+v, want 19 files of 1000 bytes", sum)
	}
	if _, err := fsys.Lstat(ctx, "/p/f07"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("excluded file was imported: %v", err)
	}
	if len(calls) < 10 {
		t.Fatalf("%d progress calls, want one per entry or so", len(calls))
	}
	last := calls[len(calls)-1]
	if last.Bytes > sum.Bytes || last.Files > sum.Files || last.Bytes == 0 {
		t.Errorf("last progress %+v inconsistent with summary %+v", last, sum)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Bytes < calls[i-1].Bytes || calls[i].Elapsed < calls[i-1].Elapsed {
			t.Errorf("progress went backwards: %+v then %+v", calls[i-1], calls[i])
		}
	}
}

func TestExportTar_Errors(t *testing.T) {
	ctx := context.Background()
	fsys := openWS(t)
	seedWorkspace(t, fsys)
	var out bytes.Buffer
	if _, err := fsio.ExportTar(ctx, fsys, "/missing", &out, fsio.ExportOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("export of a missing dir: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("a failed export wrote %d bytes", out.Len())
	}
	// A file gives an archive of one entry, named by its base name.
	if _, err := fsio.ExportTar(ctx, fsys, "/dst/a.txt", &out, fsio.ExportOptions{}); err != nil {
		t.Fatalf("export of a file: %v", err)
	}
	tr := tar.NewReader(&out)
	hdr, err := tr.Next()
	if err != nil || hdr.Name != "a.txt" || hdr.Typeflag != tar.TypeReg {
		t.Fatalf("first entry %+v, %v; want the file a.txt", hdr, err)
	}
	if b, err := io.ReadAll(tr); err != nil || string(b) != "old a" {
		t.Errorf("content %q, %v", b, err)
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("second entry: %v, want the end", err)
	}
}
