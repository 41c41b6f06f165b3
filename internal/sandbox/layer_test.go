package sandbox

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/desk-dev/desk/internal/image/imagetest"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// testDeb is a Debian package built here (an ar archive of debian-binary,
// control.tar.gz and data.tar.gz): desk-hello, installing
// /usr/local/bin/desk-hello and /usr/share/desk-hello/README.
func testDeb(t *testing.T) []byte {
	t.Helper()
	gz := func(es []imagetest.Entry) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(imagetest.Tar(t, es))
		w.Close()
		return b.Bytes()
	}
	control := gz([]imagetest.Entry{{Name: "./"}, {Name: "./control", Body: "Package: desk-hello\nVersion: 1.0\nArchitecture: all\nMaintainer: desk <desk@localhost>\nDescription: a test package\n"}})
	data := gz([]imagetest.Entry{{Name: "./"}, {Name: "./usr/"}, {Name: "./usr/local/"}, {Name: "./usr/local/bin/"},
		{Name: "./usr/local/bin/desk-hello", Body: "#!/bin/sh\necho hello from a package\n", Mode: 0o755},
		{Name: "./usr/share/"}, {Name: "./usr/share/desk-hello/"}, {Name: "./usr/share/desk-hello/README", Body: "readme\n"}})
	var ar bytes.Buffer
	ar.WriteString("!<arch>\n")
	for _, m := range []struct {
		name string
		body []byte
	}{{"debian-binary", []byte("2.0\n")}, {"control.tar.gz", control}, {"data.tar.gz", data}} {
		fmt.Fprintf(&ar, "%-16s%-12d%-6d%-6d%-8s%-10d`\n", m.name, 1735787045, 0, 0, "100644", len(m.body))
		ar.Write(m.body)
		if len(m.body)%2 == 1 {
			ar.WriteByte('\n')
		}
	}
	return ar.Bytes()
}

// TestImage_WritableRoot: with a writable root, a package installed by
// dpkg into /usr and /var/lib/dpkg, a file of the image replaced, another
// deleted and a new directory survive a sandbox restart; the changes are in
// the workspace's store (LayerDir/upper, for the other backends) and the
// shared image is untouched, so another workspace on it sees the image as
// it was; the overlay is gone from the host once the sandbox stops; and a
// workspace whose image changed is refused until its layer is removed.
func TestImage_WritableRoot(t *testing.T) {
	t.Parallel()
	s := testImageStore(t)
	ii := importTestImage(t, s, "busybox:layer", v1.Config{Env: []string{"PATH=/usr/local/bin:/bin"}})
	other := importTestImage(t, s, "busybox:other", v1.Config{Env: []string{"PATH=/usr/local/bin:/bin", "OTHER=1"}})
	var mu sync.Mutex
	writable := sandboxImage(ii)
	writable.ID, writable.Writable = ii.ID, true
	choice := map[string]*Image{"ws": writable, "ws2": sandboxImage(ii)}
	e := newFUSEEnv(t, Options{Image: func(_ context.Context, ws Workspace) (*Image, error) {
		mu.Lock()
		defer mu.Unlock()
		return choice[ws.Name], nil
	}})
	c := context.Background()
	if err := e.fs.MkdirAll(c, "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.WriteFile(c, "/workspace/desk-hello_1.0_all.deb", testDeb(t), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.run(`set -e; busybox mkdir -p /var/lib/dpkg/info; busybox touch /var/lib/dpkg/status
busybox dpkg -i /workspace/desk-hello_1.0_all.deb >/dev/null
desk-hello
echo replaced > /usr/local/bin/only-in-image.new && busybox mv /usr/local/bin/only-in-image.new /usr/local/bin/only-in-image
rm /bin/stat
mkdir /opt && echo opt > /opt/f
stat -c '%u %a' / /usr/local/bin/desk-hello`, run.ExecOptions{})
	if res.ExitCode != 0 || res.Stdout != "hello from a package\n0 755\n0 755\n" {
		t.Fatalf("install: exit %d %q %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	first := e.box().id
	if err := e.b.Stop(ctx(t), "ws"); err != nil {
		t.Fatal(err)
	}
	if ms, err := mountsBelow(e.b.opts.MountDir); err != nil || len(ms) != 0 {
		t.Errorf("mounts left after the stop: %v %v", ms, err)
	}
	out := e.ok(`desk-hello; cat /usr/local/bin/only-in-image /usr/share/desk-hello/README /opt/f; test -e /bin/stat || echo no stat; busybox grep -c '^Package: desk-hello' /var/lib/dpkg/status; busybox dpkg -l desk-hello | busybox grep -c '^ii'`)
	if want := "hello from a package\nreplaced\nreadme\nopt\nno stat\n1\n1\n"; out != want {
		t.Errorf("after the restart: %q, want %q", out, want)
	}
	if x := e.box(); x == nil || x.id == first || !x.bundle.writable {
		t.Fatalf("the sandbox was not restarted on a writable root")
	}
	// In the store, for the other backends.
	for p, want := range map[string]string{
		"/.sandbox/root/upper/usr/local/bin/desk-hello":    "#!/bin/sh\necho hello from a package\n",
		"/.sandbox/root/upper/usr/local/bin/only-in-image": "replaced\n",
		"/.sandbox/root/upper/opt/f":                       "opt\n",
		"/.sandbox/root/image":                             ii.ID + "\n",
	} {
		if b, err := e.fs.ReadFile(c, p); err != nil || string(b) != want {
			t.Errorf("store %s: %q %v", p, b, err)
		}
	}
	if fi, err := e.fs.Lstat(c, "/.sandbox/root/upper/bin/stat"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("store: the deleted /bin/stat is not a whiteout: %v %v", fi, err)
	}
	// The shared image is as it was, for its other workspaces.
	if b, err := os.ReadFile(filepath.Join(ii.Root, "usr/local/bin/only-in-image")); err != nil || !strings.Contains(string(b), "only in the image") {
		t.Errorf("the image's own file: %q %v", b, err)
	}
	fs2, err := vfs.Open(c, filepath.Join(e.dir, "ws2.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs2.Close()
	var stdout strings.Builder
	job := e.job(1, "only-in-image; test -e /bin/stat && echo stat; desk-hello 2>/dev/null || echo no package; echo x > /bin/x 2>/dev/null || echo read-only")
	job.FS, job.Stdout = fs2, &stdout
	if o, err := e.b.Run(c, job); err != nil || o.ExitCode != 0 || stdout.String() != "only in the image\nstat\nno package\nread-only\n" {
		t.Errorf("another workspace on the image: %q %+v %v", stdout.String(), o, err)
	}
	// Another image under the same layer is refused, until the layer goes.
	if err := e.b.Stop(ctx(t), "ws"); err != nil {
		t.Fatal(err)
	}
	changed := sandboxImage(other)
	changed.ID, changed.Writable = other.ID, true
	mu.Lock()
	choice["ws"] = changed
	mu.Unlock()
	if _, err := e.b.Run(c, e.job(2, "true")); !errors.Is(err, ErrLayerImage) || !strings.Contains(err.Error(), other.ID) {
		t.Errorf("another image over the layer: %v", err)
	}
	if err := e.fs.RemoveAll(c, "/.sandbox/root"); err != nil {
		t.Fatal(err)
	}
	if out := e.ok("echo $OTHER; only-in-image; desk-hello 2>/dev/null || echo no package"); out != "1\nonly in the image\nno package\n" {
		t.Errorf("the new image on a new layer: %q", out)
	}
}

// TestImage_WritableRootSymlink: a layer directory another backend made a
// symbolic link (to the host's /etc) is refused, not followed.
func TestImage_WritableRootSymlink(t *testing.T) {
	t.Parallel()
	s := testImageStore(t)
	ii := importTestImage(t, s, "busybox:link", v1.Config{Env: []string{"PATH=/bin"}})
	img := sandboxImage(ii)
	img.ID, img.Writable = ii.ID, true
	e := newFUSEEnv(t, Options{Image: func(context.Context, Workspace) (*Image, error) { return img, nil }})
	c := context.Background()
	if err := e.fs.MkdirAll(c, "/.sandbox/root", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.Symlink(c, "/etc", "/.sandbox/root/upper"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.b.Run(c, e.job(0, "true")); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a symbolic link as the upper layer: %v", err)
	}
}

// BenchmarkSandbox_WritableRoot is the cost of a writable root: unpacking
// a tarball of 200 small files (busybox tar, then rm -r) into the
// writable root's /usr/local, against the same into /tmp (tmpfs: the
// baseline) and /workspace (the store's FUSE mount, where the layer's
// writes go too), in one run.
func BenchmarkSandbox_WritableRoot(b *testing.B) {
	s := testImageStore(b)
	ii := importTestImage(b, s, "busybox:bench", v1.Config{Env: []string{"PATH=/bin"}})
	img := sandboxImage(ii)
	img.ID, img.Writable = ii.ID, true
	e := newFUSEEnv(b, Options{Image: func(context.Context, Workspace) (*Image, error) { return img, nil }})
	var es []imagetest.Entry
	es = append(es, imagetest.Entry{Name: "pkg/"})
	for i := range 200 {
		es = append(es, imagetest.Entry{Name: fmt.Sprintf("pkg/f%03d", i), Body: strings.Repeat("x", 2000)})
	}
	c := context.Background()
	if err := e.fs.MkdirAll(c, "/workspace", 0o755); err != nil {
		b.Fatal(err)
	}
	if err := e.fs.WriteFile(c, "/workspace/pkg.tar", imagetest.Tar(b, es), 0o644); err != nil {
		b.Fatal(err)
	}
	busy := func(i int, src string) {
		out, err := e.b.Run(c, e.job(i, src))
		if err != nil || out.ExitCode != 0 {
			b.Fatalf("%s: %+v %v", src, out, err)
		}
	}
	busy(0, "busybox cp /workspace/pkg.tar /tmp/pkg.tar")
	for _, dir := range []string{"/tmp/x", "/workspace/x", "/usr/local/x"} {
		b.Run(strings.ReplaceAll(strings.Trim(dir, "/"), "/", "-"), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				busy(i, "busybox mkdir -p "+dir+" && busybox tar -xf /tmp/pkg.tar -C "+dir+" && rm -r "+dir)
			}
		})
	}
}

// BenchmarkSandbox_ColdStartWritable is a cold start (sandbox start and
// `true`) on an image over the store's FUSE mount, read-only against with
// a writable root (the layer's check and the overlay's mount added), in
// one run.
func BenchmarkSandbox_ColdStartWritable(b *testing.B) {
	s := testImageStore(b)
	ii := importTestImage(b, s, "busybox:bench", v1.Config{Env: []string{"PATH=/bin"}})
	for _, writable := range []bool{false, true} {
		b.Run(map[bool]string{false: "read-only", true: "writable"}[writable], func(b *testing.B) {
			img := sandboxImage(ii)
			img.ID, img.Writable = ii.ID, writable
			coldStarts(b, newFUSEEnv(b, Options{Image: func(context.Context, Workspace) (*Image, error) { return img, nil }}))
		})
	}
}
