package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/desk-dev/desk/internal/image/imagetest"
	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/testenv"
)

// TestServe_Image: desk image import of a small OCI layout (busybox, and
// the C library the init needs), desk image use for one workspace: its
// sandbox runs the image (its program, Env, WorkingDir) while another
// workspace keeps the host's userland; desk image ls, rm.
func TestServe_Image(t *testing.T) {
	sandboxtest.Require(t)
	if _, err := os.Stat("/usr/bin/busybox"); err != nil {
		testenv.Need(t, testenv.Sandbox, fmt.Errorf("no /usr/bin/busybox for the test image (make test-setup installs busybox-static): %w", err))
	}
	images := filepath.Join(t.TempDir(), "pass", "images")
	os.MkdirAll(filepath.Dir(images), 0o755)
	for p := filepath.Dir(images); p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	t.Setenv(envImages, images)
	es := []imagetest.Entry{
		{Name: "bin/"}, {Name: "lib64/"}, {Name: "lib/"}, {Name: "lib/x86_64-linux-gnu/"}, {Name: "srv/"}, {Name: "srv/app/"},
		imagetest.File(t, "bin/busybox", "/usr/bin/busybox", 0o755),
		{Name: "bin/only-in-image", Body: "#!/bin/sh\necho only in the image\n", Mode: 0o755},
	}
	for _, a := range []string{"sh", "cat", "id", "ls"} {
		es = append(es, imagetest.Entry{Name: "bin/" + a, Typeflag: '2', Linkname: "busybox"})
	}
	for _, lib := range []string{"/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/libc.so.6"} {
		real, err := filepath.EvalSymlinks(lib)
		if err != nil {
			testenv.Need(t, testenv.Sandbox, fmt.Errorf("no %s for the test image: %w", lib, err))
		}
		es = append(es, imagetest.File(t, strings.TrimPrefix(lib, "/"), real, 0o755))
	}
	layout := filepath.Join(t.TempDir(), "layout")
	imagetest.WriteLayout(t, layout, imagetest.Image(t, v1.Config{Env: []string{"PATH=/bin", "GREETING=hello from the image"}, WorkingDir: "/srv/app"}, imagetest.Layer(t, es)))
	if got := mustDesk(t, nil, "image", "import", layout, "busybox:test"); !strings.HasPrefix(got, "sha256-") || !strings.HasSuffix(got, " busybox:test\n") {
		t.Errorf("image import: %q", got)
	}
	mustDesk(t, nil, "image", "use", "img", "busybox:test")
	if got := mustDesk(t, nil, "image", "ls"); !strings.Contains(got, "busybox:test") || !strings.Contains(got, "img") || !strings.Contains(got, "/srv/app") {
		t.Errorf("image ls:\n%s", got)
	}
	if _, errs, code := desk(t, nil, "image", "use", "img", "nope"); code == 0 || !strings.Contains(errs, "no such image") {
		t.Errorf("use of a missing image: %d %q", code, errs)
	}

	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	data, _ := sandboxData(t)
	startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	mustDesk(t, nil, "ws", "create", "img")
	mustDesk(t, nil, "ws", "create", "host")
	if got := mustDesk(t, nil, "exec", "img", "--backend", "sandbox", "--", `echo "$GREETING"; pwd; only-in-image; test -e /usr/bin/python3 || echo no host python`); got != "hello from the image\n/srv/app\nonly in the image\nno host python\n" {
		t.Errorf("in the image: %q", got)
	}
	if got := mustDesk(t, nil, "exec", "host", "--backend", "sandbox", "--", `test -x /usr/bin/python3 && echo host python; pwd`); got != "host python\n/workspace\n" {
		t.Errorf("on the host's userland: %q", got)
	}
	mustDesk(t, nil, "image", "rm", "busybox:test")
	if got := mustDesk(t, nil, "image", "ls"); strings.Contains(got, "busybox") {
		t.Errorf("after rm:\n%s", got)
	}
}
