package image_test

import (
	"archive/tar"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/desk-dev/desk/internal/image"
	"github.com/desk-dev/desk/internal/image/imagetest"
	"github.com/desk-dev/desk/internal/testenv"
)

type E = imagetest.Entry

// twoLayers is an image whose second layer deletes (a whiteout), empties
// (an opaque whiteout) and adds to what the first made.
func twoLayers(t *testing.T) v1.Image {
	l1 := imagetest.Layer(t, []E{
		{Name: "etc/"}, {Name: "etc/passwd", Body: "root:x:0:0::/root:/bin/sh\napp:x:1000:1001::/app:/bin/sh\n"},
		{Name: "etc/group", Body: "root:x:0:\nappgrp:x:1001:\n"},
		{Name: "app/", Uid: 1000, Gid: 1001, Mode: 0o750},
		{Name: "app/a", Body: "alpha\n", Mode: 0o640, Uid: 1000, Gid: 1001},
		{Name: "app/b", Body: "beta\n"},
		{Name: "app/l", Typeflag: tar.TypeSymlink, Linkname: "a"},
		{Name: "app/h", Typeflag: tar.TypeLink, Linkname: "app/a"},
		{Name: "app/suid", Body: "#!/bin/sh\n", Mode: 0o4755},
		{Name: "d/"}, {Name: "d/x", Body: "x"}, {Name: "d/sub/"}, {Name: "d/sub/y", Body: "y"},
		{Name: "etc/resolv.conf", Typeflag: tar.TypeSymlink, Linkname: "../run/resolv.conf"},
	})
	l2 := imagetest.Layer(t, []E{
		{Name: "app/.wh.b"},
		{Name: "d/.wh..wh..opq"}, {Name: "d/z", Body: "z"},
		{Name: "app/c", Body: "gamma\n"},
	})
	return imagetest.Image(t, v1.Config{Env: []string{"PATH=/bin", "FOO=bar"}, WorkingDir: "/app", User: "app"}, l1, l2)
}

func open(t *testing.T) *image.Store {
	testenv.NeedRoot(t) // owners are set with chown
	s, err := image.Open(filepath.Join(t.TempDir(), "images"), image.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func owner(t *testing.T, p string) (int, int) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}

func TestImport_Layers(t *testing.T) {
	s := open(t)
	dir := filepath.Join(t.TempDir(), "layout")
	imagetest.WriteLayout(t, dir, twoLayers(t))
	info, err := s.Import(context.Background(), dir, "test:1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(info.Env, []string{"PATH=/bin", "FOO=bar"}) || info.WorkingDir != "/app" || info.User != "app" || info.UID != 1000 || info.GID != 1001 || info.Shell != "/bin/sh" {
		t.Errorf("info: %+v", info)
	}
	img, err := s.Resolve("test:1")
	if err != nil {
		t.Fatal(err)
	}
	r := img.Root
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(r, p))
		if err != nil {
			return "ERR " + err.Error()
		}
		return string(b)
	}
	if read("app/a") != "alpha\n" || read("app/c") != "gamma\n" || read("d/z") != "z" {
		t.Errorf("contents: %q %q %q", read("app/a"), read("app/c"), read("d/z"))
	}
	for _, gone := range []string{"app/b", "d/x", "d/sub"} {
		if _, err := os.Lstat(filepath.Join(r, gone)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("/%s survived its whiteout: %v", gone, err)
		}
	}
	fa, _ := os.Stat(filepath.Join(r, "app/a"))
	fh, _ := os.Stat(filepath.Join(r, "app/h"))
	if !os.SameFile(fa, fh) {
		t.Errorf("app/h is not a hard link of app/a")
	}
	if fa.Mode().Perm() != 0o640 {
		t.Errorf("app/a mode %v", fa.Mode())
	}
	if u, g := owner(t, filepath.Join(r, "app/a")); u != image.DefaultHostID+1000 || g != image.DefaultHostID+1001 {
		t.Errorf("app/a owned by %d:%d", u, g)
	}
	if u, _ := owner(t, filepath.Join(r, "etc/passwd")); u != image.DefaultHostID {
		t.Errorf("etc/passwd owned by %d", u)
	}
	if fi, _ := os.Stat(filepath.Join(r, "app")); fi.Mode().Perm() != 0o750 {
		t.Errorf("app mode %v", fi.Mode())
	}
	if fi, _ := os.Stat(filepath.Join(r, "app/suid")); fi.Mode()&fs.ModeSetuid == 0 {
		t.Errorf("app/suid lost its set-uid bit: %v", fi.Mode())
	}
	if l, err := os.Readlink(filepath.Join(r, "app/l")); err != nil || l != "a" {
		t.Errorf("app/l: %q %v", l, err)
	}
	// The sandbox's mount points, resolv.conf a file instead of its link.
	for _, p := range []string{"workspace", "tmp", "proc", "dev", ".desk/init", "home/agent", "etc/hostname", "etc/hosts", "etc/resolv.conf"} {
		fi, err := os.Lstat(filepath.Join(r, p))
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			t.Errorf("mount point /%s: %v %v", p, fi, err)
		}
	}
	// Imported again (as a docker save and an OCI archive, under other
	// names): the same unpacked copy.
	docker := filepath.Join(t.TempDir(), "img.tar")
	imagetest.WriteDocker(t, docker, "example.com/test:1", twoLayers(t))
	oci := filepath.Join(t.TempDir(), "img.oci.tar")
	imagetest.WriteOCIArchive(t, oci, twoLayers(t))
	for _, f := range []string{oci, dir} {
		again, err := s.Import(context.Background(), f, "again-"+filepath.Base(f))
		if err != nil {
			t.Fatal(err)
		}
		if again.ID != info.ID {
			t.Errorf("%s: id %s, want %s", f, again.ID, info.ID)
		}
	}
	d, err := s.Import(context.Background(), docker, "docker")
	if err != nil {
		t.Fatal(err)
	}
	dimg, err := s.Resolve("docker")
	if err != nil || !strings.HasSuffix(dimg.Root, "/rootfs") {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dimg.Root, "app/c")); err != nil || string(b) != "gamma\n" || d.WorkingDir != "/app" {
		t.Errorf("docker save: %q %v %+v", b, err, d)
	}
	l, err := s.List()
	if err != nil || len(l) < 1 {
		t.Fatalf("list: %+v %v", l, err)
	}
	// Workspaces' choices and removal.
	if err := s.Use("w1", "test:1"); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s.ForWorkspace("w1", ""); err != nil || !ok || got.ID != info.ID {
		t.Errorf("w1 uses %+v %v %v", got, ok, err)
	}
	if _, ok, _ := s.ForWorkspace("w2", ""); ok {
		t.Errorf("w2 has an image")
	}
	if got, ok, _ := s.ForWorkspace("w2", "docker"); !ok || got.ID != d.ID {
		t.Errorf("w2 with a default: %+v", got)
	}
	// A writable root is the workspace's setting, whatever its image.
	if err := s.SetWritable("w1", true); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.ForWorkspace("w1", ""); !got.Writable {
		t.Errorf("w1 is not writable after SetWritable")
	}
	if got, _, _ := s.ForWorkspace("w2", "docker"); got.Writable {
		t.Errorf("w2 is writable")
	}
	if err := s.SetWritable("w1", false); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.ForWorkspace("w1", ""); got.Writable {
		t.Errorf("w1 is still writable")
	}
	for _, n := range []string{"test:1", "again-img.oci.tar", "again-layout"} {
		if err := s.Remove(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Remove("test:1"); !errors.Is(err, image.ErrNotFound) {
		t.Errorf("removed twice: %v", err)
	}
	if _, ok, _ := s.ForWorkspace("w1", ""); ok {
		t.Errorf("w1 still uses a removed image")
	}
	if d.ID != info.ID {
		if _, err := os.Stat(filepath.Join(s.Dir(), info.ID)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the unpacked image outlived its names: %v", err)
		}
	}
}

// TestImport_Hostile: layers that would write outside the root, through a
// symbolic link, or make a device are refused, and nothing is written
// outside the store nor kept in it.
func TestImport_Hostile(t *testing.T) {
	s := open(t)
	outside := t.TempDir()
	for _, c := range []struct {
		name    string
		entries []E
		want    string
	}{
		{"path traversal", []E{{Name: "../../../../" + outside[1:] + "/evil", Body: "x"}}, "path traversal"},
		{"traversal in the middle", []E{{Name: "a/../../evil", Body: "x"}}, "path traversal"},
		{"a whiteout of the parent", []E{{Name: "a/"}, {Name: "a/.wh.."}}, "whiteout"},
		{"a whiteout escaping the root", []E{{Name: "../.wh.etc"}}, "path traversal"},
		{"writing through a symbolic link", []E{{Name: "esc", Typeflag: tar.TypeSymlink, Linkname: outside}, {Name: "esc/evil", Body: "x"}}, "symbolic link"},
		{"a whiteout through a symbolic link", []E{{Name: "esc", Typeflag: tar.TypeSymlink, Linkname: outside}, {Name: "esc/.wh.keep"}}, "symbolic link"},
		{"a hard link out of the root", []E{{Name: "h", Typeflag: tar.TypeLink, Linkname: "../../../etc/passwd"}}, "path traversal"},
		{"a hard link through a symbolic link", []E{{Name: "esc", Typeflag: tar.TypeSymlink, Linkname: outside}, {Name: "h", Typeflag: tar.TypeLink, Linkname: "esc/keep"}}, "symbolic link"},
		{"a character device", []E{{Name: "dev/"}, {Name: "dev/mem", Typeflag: tar.TypeChar, Devmajor: 1}}, "device node"},
		{"a block device", []E{{Name: "sda", Typeflag: tar.TypeBlock, Devmajor: 8}}, "device node"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "layout")
			imagetest.WriteLayout(t, dir, imagetest.Image(t, v1.Config{}, imagetest.Layer(t, []E{{Name: "ok", Body: "fine"}}), imagetest.Layer(t, c.entries)))
			_, err := s.Import(context.Background(), dir, "bad")
			if !errors.Is(err, image.ErrHostile) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v, want ErrHostile (%s)", err, c.want)
			}
			ents, _ := os.ReadDir(outside)
			if len(ents) != 1 {
				t.Errorf("written outside: %v", ents)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "keep")); string(b) != "keep" {
				t.Errorf("the outside file changed: %q", b)
			}
			if _, err := s.Resolve("bad"); !errors.Is(err, image.ErrNotFound) {
				t.Errorf("the refused image has a name: %v", err)
			}
			ents, _ = os.ReadDir(s.Dir())
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), ".unpack-") || strings.HasPrefix(e.Name(), "sha256-") {
					t.Errorf("left in the store: %s", e.Name())
				}
			}
		})
	}
	// Not an image at all.
	junk := filepath.Join(t.TempDir(), "junk.tar")
	os.WriteFile(junk, []byte("not a tar"), 0o644)
	if _, err := s.Import(context.Background(), junk, "junk"); err == nil || !strings.Contains(err.Error(), "not a tar archive") {
		t.Errorf("junk: %v", err)
	}
	if _, err := s.Import(context.Background(), junk, "../x"); err == nil {
		t.Errorf("a bad name was accepted")
	}
}
