package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/desk-dev/desk/internal/image"
	"github.com/desk-dev/desk/internal/image/imagetest"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// testImageLayers are a small userland built from the host's files: the
// static busybox (sh and a few applets), the dynamic loader and the C
// library the test binary (the sandbox's init) needs, and a program only
// the image has.
func testImageLayers(t testing.TB) []v1.Layer {
	t.Helper()
	if _, err := os.Stat("/usr/bin/busybox"); err != nil {
		testenv.Need(t, testenv.Sandbox, fmt.Errorf("the host has no /usr/bin/busybox for the test image (make test-setup installs busybox-static): %w", err))
	}
	es := []imagetest.Entry{
		{Name: "bin/"}, {Name: "lib64/"}, {Name: "lib/"}, {Name: "lib/x86_64-linux-gnu/"}, {Name: "usr/"}, {Name: "usr/local/"}, {Name: "usr/local/bin/"},
		{Name: "srv/"}, {Name: "srv/app/"}, {Name: "etc/"},
		imagetest.File(t, "bin/busybox", "/usr/bin/busybox", 0o755),
		{Name: "etc/passwd", Body: "root:x:0:0:root:/home/agent:/bin/sh\napp:x:1000:1000::/srv/app:/bin/sh\n"},
		{Name: "etc/group", Body: "root:x:0:\napp:x:1000:\n"},
		{Name: "usr/local/bin/only-in-image", Body: "#!/bin/sh\necho only in the image\n", Mode: 0o755},
	}
	for _, a := range []string{"sh", "cat", "id", "ls", "env", "mkdir", "rm", "true", "stat"} {
		es = append(es, imagetest.Entry{Name: "bin/" + a, Typeflag: '2', Linkname: "busybox"})
	}
	for _, lib := range []struct{ name, host string }{
		{"lib64/ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2"},
		{"lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"},
	} {
		real, err := filepath.EvalSymlinks(lib.host)
		if err != nil {
			testenv.Need(t, testenv.Sandbox, fmt.Errorf("no %s for the test image: %w", lib.host, err))
		}
		es = append(es, imagetest.File(t, lib.name, real, 0o755))
	}
	return []v1.Layer{imagetest.Layer(t, es)}
}

// testImageStore opens an image store in a directory the sandbox's root
// can reach (testImageDir).
func testImageStore(t testing.TB) *image.Store {
	t.Helper()
	s, err := image.Open(filepath.Join(testImageDir(t), "images"), image.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// importTestImage imports the test image as name into s.
func importTestImage(t testing.TB, s *image.Store, name string, cfg v1.Config) image.Image {
	t.Helper()
	return importImage(t, s, name, cfg, testImageLayers(t))
}

// importImage imports an image of layers with cfg as name into s.
func importImage(t testing.TB, s *image.Store, name string, cfg v1.Config, layers []v1.Layer) image.Image {
	t.Helper()
	layout := filepath.Join(t.TempDir(), "layout")
	imagetest.WriteLayout(t, layout, imagetest.Image(t, cfg, layers...))
	if _, err := s.Import(context.Background(), layout, name); err != nil {
		t.Fatal(err)
	}
	img, err := s.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// sandboxImage is the backend's Image of an image.Image.
func sandboxImage(img image.Image) *Image {
	return &Image{Root: img.Root, Env: img.Env, WorkingDir: img.WorkingDir, UID: img.UID, GID: img.GID, Shell: img.Shell}
}

func imageEnv(t testing.TB, byWorkspace func(name string) *Image) *env {
	return newEnv(t, Options{Image: func(_ context.Context, ws Workspace) (*Image, error) { return byWorkspace(ws.Name), nil }})
}

// TestImage_Run: a workspace whose image is an imported OCI image runs with
// the image's userland (a program only it has, none of the host's), its
// Env, WorkingDir and User; two workspaces share one unpacked copy; a
// workspace without one keeps the host's userland.
func TestImage_Run(t *testing.T) {
	t.Parallel()
	s := testImageStore(t)
	img := importTestImage(t, s, "busybox:test", v1.Config{Env: []string{"PATH=/usr/local/bin:/bin", "GREETING=from the image"}, WorkingDir: "/srv/app"})
	asUser := importTestImage(t, s, "busybox:user", v1.Config{Env: []string{"PATH=/bin"}, User: "app"})
	choice := map[string]*Image{"ws": sandboxImage(img), "ws2": sandboxImage(img), "ws3": sandboxImage(asUser)}
	e := imageEnv(t, func(name string) *Image { return choice[name] })

	out := e.ok(`echo "$GREETING"; pwd; only-in-image; test -e /usr/bin/python3 || echo no host python; id -u; echo $SHELL; echo hi > /workspace/f && cat /workspace/f`)
	if want := "from the image\n/srv/app\nonly in the image\nno host python\n0\n/bin/sh\nhi\n"; out != want {
		t.Errorf("in the image: %q, want %q", out, want)
	}
	// The execution's own cwd and environment win.
	if out := e.run("pwd; echo $GREETING", run.ExecOptions{Cwd: "/tmp", Env: map[string]string{"GREETING": "mine"}}).Stdout; out != "/tmp\nmine\n" {
		t.Errorf("own cwd and env: %q", out)
	}
	// A second workspace on the same image: the same rootfs, one copy.
	ctx := context.Background()
	for _, ws := range []string{"ws2", "ws3", "host"} {
		fs2, err := vfs.Open(ctx, filepath.Join(e.dir, ws+".db"), vfs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer fs2.Close()
		var stdout strings.Builder
		job := e.job(1, "id -u; only-in-image 2>/dev/null || echo no image program; test -x /usr/bin/python3 && echo host python; true")
		job.FS, job.Stdout = fs2, &stdout
		o, err := e.b.Run(ctx, job)
		if err != nil || o.ExitCode != 0 {
			t.Fatalf("%s: %+v %v", ws, o, err)
		}
		want := map[string]string{"ws2": "0\nonly in the image\n", "ws3": "1000\nno image program\n", "host": "0\nno image program\nhost python\n"}[ws]
		if stdout.String() != want {
			t.Errorf("%s: %q, want %q", ws, stdout.String(), want)
		}
	}
	e.b.mu.Lock()
	roots := map[string]bool{}
	for name, x := range e.b.boxes {
		if x.img != nil {
			roots[x.bundle.rootfs] = true
			if name == "ws" || name == "ws2" {
				if x.bundle.rootfs != img.Root {
					t.Errorf("%s runs on %s, not the image's %s", name, x.bundle.rootfs, img.Root)
				}
			}
		}
	}
	e.b.mu.Unlock()
	if len(roots) != 2 {
		t.Errorf("roots in use: %v (want the two images')", roots)
	}
	ents, _ := os.ReadDir(s.Dir())
	n := 0
	for _, en := range ents {
		if strings.HasPrefix(en.Name(), "sha256-") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d unpacked images, want 2", n)
	}
	// The image's root is read-only in the sandbox.
	if res := e.run("echo x > /bin/x", run.ExecOptions{}); res.ExitCode == 0 {
		t.Errorf("wrote into the image's root")
	}
}

// testImageDir is a directory the sandbox's root can pass through to an
// image store below it.
func testImageDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "pass")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := d; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o755) // t.TempDir's are 0700
	}
	return d
}

// BenchmarkSandbox_ColdStartImage is BenchmarkSandbox_ColdStart on an
// imported image (unpacked once, before the timer: every start is a cached
// image's), to compare with the host userland's cold start in the same run.
func BenchmarkSandbox_ColdStartImage(b *testing.B) {
	s := testImageStore(b)
	img := sandboxImage(importTestImage(b, s, "busybox:bench", v1.Config{Env: []string{"PATH=/bin"}}))
	coldStarts(b, imageEnv(b, func(string) *Image { return img }))
}

// TestImage_NonRootUser: under an image whose User is 1000, that user owns
// /workspace and the home (the mount serves store uid 0 as 1000): it writes
// both, edits a file another backend wrote (store uid 0), and what it
// writes is kept as store uid 0's, which the other backends read.
func TestImage_NonRootUser(t *testing.T) {
	t.Parallel()
	s := testImageStore(t)
	img := sandboxImage(importTestImage(t, s, "busybox:app", v1.Config{Env: []string{"PATH=/bin"}, User: "1000"}))
	e := newFUSEEnv(t, Options{Image: func(context.Context, Workspace) (*Image, error) { return img, nil }})
	c := context.Background()
	if err := e.fs.MkdirAll(c, "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.WriteFile(c, "/workspace/from-shell", []byte("shell\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := e.ok(`id -u; id -g; stat -c '%u:%g %a' /workspace $HOME /workspace/from-shell; echo mine > /workspace/new && echo edited >> /workspace/from-shell &&
mkdir -p $HOME/.config && echo dot > $HOME/.config/x && stat -c %u /workspace/new $HOME/.config/x; cat /workspace/from-shell`)
	if want := "1000\n1000\n1000:1000 755\n1000:1000 700\n1000:1000 644\n1000\n1000\nshell\nedited\n"; out != want {
		t.Errorf("as uid 1000: %q, want %q", out, want)
	}
	for p, want := range map[string]string{"/workspace/new": "mine\n", "/home/agent/.config/x": "dot\n", "/workspace/from-shell": "shell\nedited\n"} {
		b, err := e.fs.ReadFile(c, p)
		fi, serr := e.fs.Lstat(c, p)
		if err != nil || serr != nil || string(b) != want {
			t.Errorf("store %s: %q %v %v", p, b, err, serr)
			continue
		}
		if a := fi.Attr(); a.Uid != 0 || a.Gid != 0 {
			t.Errorf("store %s owned by %d:%d, want 0:0", p, a.Uid, a.Gid)
		}
	}
	// The image's root stays the image's: root's files are not the user's.
	if res := e.run("echo x > /bin/x", run.ExecOptions{}); res.ExitCode == 0 {
		t.Errorf("uid 1000 wrote into the image's root")
	}
	if out := e.ok("stat -c %u /etc/passwd"); out != "0\n" {
		t.Errorf("/etc/passwd owned by %q inside, want 0", out)
	}
}

// staticInit builds the init alone (testdata/staticinit) with
// CGO_ENABLED=0, as desk's own build is, into a directory the sandbox's
// root can reach.
func staticInit(t testing.TB) string {
	t.Helper()
	out := filepath.Join(testImageDir(t), "init")
	cmd := exec.Command(testenv.GoTool(t), "build", "-o", out, "./testdata/staticinit")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the static init: %v\n%s", err, b)
	}
	return out
}

// noLibcLayers are a userland with no C library at all: the static
// busybox and its applets.
func noLibcLayers(t testing.TB) []v1.Layer {
	t.Helper()
	if _, err := os.Stat("/usr/bin/busybox"); err != nil {
		testenv.Need(t, testenv.Sandbox, fmt.Errorf("the host has no /usr/bin/busybox for the test image (make test-setup installs busybox-static): %w", err))
	}
	es := []imagetest.Entry{{Name: "bin/"}, {Name: "etc/"}, imagetest.File(t, "bin/busybox", "/usr/bin/busybox", 0o755),
		{Name: "etc/passwd", Body: "root:x:0:0:root:/home/agent:/bin/sh\n"}}
	for _, a := range []string{"sh", "cat", "ls", "id", "test", "echo"} {
		es = append(es, imagetest.Entry{Name: "bin/" + a, Typeflag: '2', Linkname: "busybox"})
	}
	return []v1.Layer{imagetest.Layer(t, es)}
}

// TestImage_NoLibc: an image with no C library runs with a static init
// (desk built with CGO_ENABLED=0); with a dynamically linked one the start
// is refused, naming the missing loader and the fix.
func TestImage_NoLibc(t *testing.T) {
	t.Parallel()
	requireSandbox(t, false)
	s := testImageStore(t)
	img := sandboxImage(importImage(t, s, "nolibc", v1.Config{Env: []string{"PATH=/bin"}}, noLibcLayers(t)))
	static := newEnv(t, Options{InitPath: staticInit(t), Image: func(context.Context, Workspace) (*Image, error) { return img, nil }})
	if out := static.ok("ls / | tr '\\n' ' ' 2>/dev/null; ls /lib /lib64 /usr 2>&1 >/dev/null | wc -l; echo hi > /workspace/f; cat /workspace/f; echo $0"); !strings.HasSuffix(out, "hi\n/bin/sh\n") || strings.Contains(out, "lib") {
		t.Errorf("in the image without libc: %q", out)
	}
	dynamic := newEnv(t, Options{Image: func(context.Context, Workspace) (*Image, error) { return img, nil }})
	_, err := dynamic.b.Run(context.Background(), dynamic.job(0, "true"))
	if err == nil || !strings.Contains(err.Error(), ", the dynamic loader the init") || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("a dynamic init in an image without libc: %v", err)
	}
}

// TestImage_Release: the image's Release is called once the sandbox that
// asked for it has stopped, not while it is warm, and at once when the
// start is refused (package image's hold, which desk image rm respects).
func TestImage_Release(t *testing.T) {
	t.Parallel()
	s := testImageStore(t)
	ii := importTestImage(t, s, "busybox:release", v1.Config{Env: []string{"PATH=/bin"}})
	var mu sync.Mutex
	released := map[string]int{}
	e := imageEnv(t, func(name string) *Image {
		img := sandboxImage(ii)
		if name == "bad" {
			img.UID = DefaultIDCount // outside the sandbox's ids: refused
		}
		img.Release = func() {
			mu.Lock()
			released[name]++
			mu.Unlock()
		}
		return img
	})
	count := func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		return released[name]
	}
	e.ok("true")
	e.ok("true")
	if n := count("ws"); n != 0 {
		t.Fatalf("released %d times while warm", n)
	}
	if err := e.b.Stop(ctx(t), "ws"); err != nil {
		t.Fatal(err)
	}
	if n := count("ws"); n != 1 {
		t.Errorf("released %d times after the stop, want 1", n)
	}
	fs2, err := vfs.Open(context.Background(), filepath.Join(e.dir, "bad.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs2.Close()
	job := e.job(1, "true")
	job.FS = fs2
	if _, err := e.b.Run(context.Background(), job); err == nil || !strings.Contains(err.Error(), "outside the sandbox's ids") {
		t.Fatalf("a refused image: %v", err)
	}
	if n := count("bad"); n != 1 {
		t.Errorf("a refused image released %d times, want 1", n)
	}
}
