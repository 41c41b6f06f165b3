package fsio_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/vfs"
)

// makeSpecialTree makes a host directory holding a FIFO with a second name,
// a socket and, as root, a character and a block device, each with its own
// mode and times.
func makeSpecialTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "src")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "d"), 0o755))
	old := unix.Umask(0)
	defer unix.Umask(old)
	must(unix.Mknod(filepath.Join(root, "fifo"), unix.S_IFIFO|0o640, 0))
	must(os.Link(filepath.Join(root, "fifo"), filepath.Join(root, "d", "fifo2")))
	must(unix.Mknod(filepath.Join(root, "sock"), unix.S_IFSOCK|0o755, 0))
	if asRoot {
		must(unix.Mknod(filepath.Join(root, "null"), unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3))))
		must(unix.Mknod(filepath.Join(root, "d", "disk"), unix.S_IFBLK|0o660, int(unix.Mkdev(259, 70000))))
	}
	must(os.WriteFile(filepath.Join(root, "d", "file"), []byte("data"), 0o644))
	return root
}

// TestSpecialFiles copies FIFOs, sockets and devices between a host
// directory, workspaces, tar (with GNU tar as the other end) and zip: tar
// carries FIFOs and devices and no socket (as GNU tar), zip none of them.
func TestSpecialFiles(t *testing.T) {
	ctx := context.Background()
	src := makeSpecialTree(t)
	want := hostTree(t, src)

	// Host directory → workspace: everything, the FIFO's second name too.
	ws := openWS(t)
	var warnings []string
	sum, err := fsio.ImportDir(ctx, ws, src, "/in", fsio.ImportOptions{Owners: asRoot, Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	nDev := int64(0)
	if asRoot {
		nDev = 2
	}
	if sum.Special != 2+nDev || sum.Hardlinks != 1 || sum.Skipped != 0 || len(warnings) != 0 {
		t.Errorf("ImportDir: %+v, warnings %q", sum, warnings)
	}
	compareTrees(t, "host → workspace", want, wsTree(t, ws, "/in"))

	// Workspace → tar: the socket is left out with a warning.
	var tarball bytes.Buffer
	warnings = nil
	esum, err := fsio.ExportTar(ctx, ws, "/in", &tarball, fsio.ExportOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if esum.Special != 1+nDev || esum.Skipped != 1 || len(warnings) != 1 || !strings.Contains(warnings[0], "socket") {
		t.Errorf("ExportTar: %+v, warnings %q", esum, warnings)
	}
	noSock := tree{}
	for k, v := range want {
		if v.Type != "socket" {
			noSock[k] = v
		}
	}
	// GNU tar reads it as it was written: the types, modes, device numbers.
	cmd := exec.Command("tar", "-tvf", "-")
	cmd.Stdin = bytes.NewReader(tarball.Bytes())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tar -tv: %v: %s", err, out)
	}
	listing := string(out)
	for _, w := range []string{"prw-r----- ", " d/fifo2\n", "hrw-r----- ", " fifo link to d/fifo2\n"} {
		if !strings.Contains(listing, w) {
			t.Errorf("tar -tv does not show %q:\n%s", w, listing)
		}
	}
	if asRoot {
		for _, w := range []string{"crw------- ", " 1,3 ", "brw-rw---- ", " 259,70000 "} {
			if !strings.Contains(listing, w) {
				t.Errorf("tar -tv does not show %q:\n%s", w, listing)
			}
		}
		// GNU tar extracts the same tree (as root: devices included).
		compareTrees(t, "workspace → tar → GNU tar", mapTree(noSock, noAtimes), mapTree(hostTree(t, gnuTarExtract(t, tarball.Bytes(), false)), noAtimes))
	}
	if strings.Contains(listing, "sock") {
		t.Errorf("the tar holds the socket:\n%s", listing)
	}

	// tar → another workspace; and GNU tar's own archive of the host tree.
	ws2 := openWS(t)
	if _, err := fsio.ImportArchive(ctx, ws2, bytes.NewReader(tarball.Bytes()), "/", fsio.ImportOptions{Owners: asRoot}); err != nil {
		t.Fatal(err)
	}
	compareTrees(t, "tar → workspace", noSock, wsTree(t, ws2, "/"))
	ws3 := openWS(t)
	gnu := gnuTarCreate(t, src, false) // GNU tar leaves the socket out ("socket ignored")
	if _, err := fsio.ImportArchive(ctx, ws3, bytes.NewReader(gnu), "/", fsio.ImportOptions{Owners: asRoot}); err != nil {
		t.Fatal(err)
	}
	// GNU tar archives the FIFO's two names as two FIFOs (it links regular
	// files only).
	unlinked := mapTree(noSock, func(_ string, n *node) bool {
		if n.Type == "fifo" {
			n.Links = ""
		}
		return true
	})
	compareTrees(t, "GNU tar → workspace", unlinked, wsTree(t, ws3, "/"))
	for _, w := range []*vfs.FS{ws, ws2, ws3} {
		if res, err := w.Check(ctx); err != nil || !res.OK() {
			t.Errorf("Check: %v %v", res, err)
		}
	}

	// A FIFO alone, to the host (ExtractHost makes it) and skipped.
	mustOK(t, ws.Mkdir(ctx, "/only", 0o755))
	mustOK(t, ws.Mknod(ctx, "/only/p", vfs.S_IFIFO|0o604, 0))
	var fifoOnly bytes.Buffer
	if _, err := fsio.ExportTar(ctx, ws, "/only", &fifoOnly, fsio.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "out")
	if xs, err := fsio.ExtractHost(ctx, bytes.NewReader(fifoOnly.Bytes()), dst, fsio.ImportOptions{}); err != nil || xs.Special != 1 {
		t.Fatalf("ExtractHost of a FIFO: %+v %v", xs, err)
	}
	var st unix.Stat_t
	mustOK(t, unix.Lstat(filepath.Join(dst, "p"), &st))
	if st.Mode != unix.S_IFIFO|0o604 {
		t.Errorf("the extracted FIFO: mode %#o", st.Mode)
	}
	ws4 := openWS(t)
	ssum, err := fsio.ImportArchive(ctx, ws4, bytes.NewReader(fifoOnly.Bytes()), "/", fsio.ImportOptions{SkipSpecial: true})
	if err != nil || ssum.Special != 0 || ssum.Skipped != 1 {
		t.Errorf("SkipSpecial: %+v %v", ssum, err)
	}
	if _, err := ws4.Lstat(ctx, "/p"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("SkipSpecial imported the FIFO: %v", err)
	}

	// tar → host (ExtractHost): a device is refused, and nothing is left.
	if asRoot {
		dst := filepath.Join(t.TempDir(), "out")
		_, err = fsio.ExtractHost(ctx, bytes.NewReader(tarball.Bytes()), dst, fsio.ImportOptions{})
		if !errors.Is(err, fsio.ErrSpecialFile) {
			t.Errorf("ExtractHost of devices: %v, want ErrSpecialFile", err)
		}
		if _, err := os.Lstat(dst); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused extraction left %s: %v", dst, err)
		}
	}

	// Workspace → zip: none of them, each with a warning.
	var zipped bytes.Buffer
	warnings = nil
	zsum, err := fsio.ExportArchive(ctx, ws, "/in", &zipped, fsio.FormatZip, fsio.ExportOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if zsum.Skipped != 3+nDev || zsum.Special != 0 {
		t.Errorf("ExportArchive zip: %+v, warnings %q", zsum, warnings)
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped.Bytes()), int64(zipped.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "./ d/ d/file" {
		t.Errorf("zip entries: %s", got)
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
