package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/image/imagetest"
	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/testenv"
)

// TestServe_Image: desk image import of a small OCI layout (busybox, and
// the C library the init needs), desk image use for one workspace: its
// sandbox runs the image (its program, Env, WorkingDir) while another
// workspace keeps the host's userland; --writable keeps the sandbox's
// changes to the image's root in the workspace; desk image ls, rm (refused
// while the sandbox runs on the image).
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
	mustDesk(t, nil, "image", "use", "img", "busybox:test", "--writable")
	if got := mustDesk(t, nil, "image", "ls"); !strings.Contains(got, "busybox:test") || !strings.Contains(got, "img(writable)") || !strings.Contains(got, "/srv/app") {
		t.Errorf("image ls:\n%s", got)
	}
	if _, errs, code := desk(t, nil, "image", "use", "img", "nope"); code == 0 || !strings.Contains(errs, "no such image") {
		t.Errorf("use of a missing image: %d %q", code, errs)
	}

	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	data, _ := sandboxData(t)
	_, _, stop := startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	mustDesk(t, nil, "ws", "create", "img")
	mustDesk(t, nil, "ws", "create", "host")
	if got := mustDesk(t, nil, "exec", "img", "--backend", "sandbox", "--", `echo "$GREETING"; pwd; only-in-image; test -e /usr/bin/python3 || echo no host python`); got != "hello from the image\n/srv/app\nonly in the image\nno host python\n" {
		t.Errorf("in the image: %q", got)
	}
	// The writable root: a file written into the image's /bin is kept in
	// the workspace, where the shell backend reads it.
	mustDesk(t, nil, "exec", "img", "--backend", "sandbox", "--", `echo tool > /bin/new-tool`)
	if got := mustDesk(t, nil, "exec", "img", "--backend", "shell", "--", `cat /.sandbox/root/upper/bin/new-tool`); got != "tool\n" {
		t.Errorf("the writable root's file, from the shell backend: %q", got)
	}
	if got := mustDesk(t, nil, "exec", "host", "--backend", "sandbox", "--", `test -x /usr/bin/python3 && echo host python; pwd`); got != "host python\n/workspace\n" {
		t.Errorf("on the host's userland: %q", got)
	}
	// The image is not removed under the warm sandbox; once the server
	// (and with it the sandbox) has stopped, it is.
	if _, errs, code := desk(t, nil, "image", "rm", "busybox:test"); code == 0 || !strings.Contains(errs, "a sandbox runs on the image: device or resource busy") {
		t.Errorf("image rm under a warm sandbox: %d %q", code, errs)
	}
	if got := mustDesk(t, nil, "exec", "img", "--backend", "sandbox", "--", `only-in-image`); got != "only in the image\n" {
		t.Errorf("after the refused rm: %q", got)
	}
	if code := stop(); code != 0 {
		t.Fatalf("desk serve exited %d", code)
	}
	mustDesk(t, nil, "image", "rm", "busybox:test")
	if got := mustDesk(t, nil, "image", "ls"); strings.Contains(got, "busybox") {
		t.Errorf("after rm:\n%s", got)
	}
}

// TestImage_Pull: desk image pull from a registry on 127.0.0.1 that wants
// credentials: refused without them, and with a workspace secret bound to
// another host; pulled with the secret bound to the registry (progress on
// standard error, the pinned reference on standard output), and again by
// that digest.
func TestImage_Pull(t *testing.T) {
	testenv.NeedRoot(t)
	h := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "deploy" || p != "s3cret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"credentials required"}]}`, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	regHost := strings.TrimPrefix(srv.URL, "http://")
	img := imagetest.Image(t, v1.Config{WorkingDir: "/srv"}, imagetest.Layer(t, []imagetest.Entry{{Name: "srv/"}, {Name: "srv/hello", Body: "hello\n"}}))
	ref, err := name.ParseReference(regHost + "/team/app:1")
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img, remote.WithAuth(&authn.Basic{Username: "deploy", Password: "s3cret"})); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envImages, filepath.Join(t.TempDir(), "images"))
	data := filepath.Join(t.TempDir(), "data")
	es := egress.OpenStore(data)
	if _, err := es.SetSecret("ci", "REGISTRY", "deploy:s3cret", []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := es.SetSecret("ci", "ELSEWHERE", "deploy:s3cret", []string{"registry.example.com"}); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := desk(t, nil, "image", "pull", ref.String(), "app"); code == 0 || !strings.Contains(errs, "UNAUTHORIZED") {
		t.Errorf("anonymous pull: %d %q", code, errs)
	}
	if _, errs, code := desk(t, nil, "image", "pull", ref.String(), "app", "--auth-secret", "ci/ELSEWHERE", "--data", data); code == 0 || !strings.Contains(errs, "not bound to") {
		t.Errorf("secret bound elsewhere: %d %q", code, errs)
	}
	if _, errs, code := desk(t, nil, "image", "pull", ref.String(), "app", "--auth-secret", "ci/NOPE", "--data", data); code == 0 || !strings.Contains(errs, "secret NOPE of workspace ci: not found") {
		t.Errorf("missing secret: %d %q", code, errs)
	}
	out, errs, code := desk(t, nil, "image", "pull", ref.String(), "app", "--auth-secret", "ci/REGISTRY", "--data", data)
	d, _ := img.Digest()
	if code != 0 || !strings.HasSuffix(out, " app "+regHost+"/team/app@"+d.String()+"\n") || !strings.Contains(errs, "layer 1/1 sha256:") {
		t.Fatalf("pull: %d %q %q", code, out, errs)
	}
	pinned := strings.Fields(out)[2]
	mustDesk(t, nil, "image", "pull", "-q", pinned, "app-pinned", "--auth-secret", "ci/REGISTRY", "--data", data)
	if got := mustDesk(t, nil, "image", "ls"); !strings.Contains(got, "app,app-pinned") || !strings.Contains(got, "/srv") {
		t.Errorf("image ls:\n%s", got)
	}
	if _, errs, code := desk(t, nil, "image", "pull", "--max-download", "lots", ref.String()); code != 2 || !strings.Contains(errs, "--max-download") {
		t.Errorf("bad --max-download: %d %q", code, errs)
	}

	// The API equivalent, on desk serve's machine (admin), with the same
	// data directory's secret.
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	base, _, _ := startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	c, _, err := (&serverFlags{}).client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = c.PullImage(ctx, client.ImagePullRequest{Ref: ref.String(), Name: "api"})
	var ae *client.Error
	if !errors.As(err, &ae) || ae.Status != 502 || !strings.Contains(ae.Message, "UNAUTHORIZED") {
		t.Errorf("API pull without the secret: %v", err)
	}
	got, err := c.PullImage(ctx, client.ImagePullRequest{Ref: ref.String(), Name: "api", AuthSecret: "ci/REGISTRY", MaxDownload: 1})
	if !errors.As(err, &ae) || ae.Status != 413 {
		t.Errorf("API pull over max_download: %+v %v", got, err)
	}
	got, err = c.PullImage(ctx, client.ImagePullRequest{Ref: ref.String(), Name: "api", AuthSecret: "ci/REGISTRY"})
	if err != nil || got.Source != pinned || got.WorkingDir != "/srv" || !strings.Contains(strings.Join(got.Names, ","), "api") {
		t.Fatalf("API pull: %+v %v", got, err)
	}
	l, err := c.Images(ctx)
	if err != nil || len(l.Images) != 1 || l.Images[0].ID != got.ID {
		t.Errorf("API images: %+v %v", l, err)
	}
	// Streamed (Accept: application/x-ndjson): each layer's fetch,
	// arrival and unpacking, then the image; an error as the last line.
	img2 := imagetest.Image(t, v1.Config{WorkingDir: "/two"}, imagetest.Layer(t, []imagetest.Entry{{Name: "a", Body: "a"}}), imagetest.Layer(t, []imagetest.Entry{{Name: "b", Body: "b"}}))
	ref2, _ := name.ParseReference(regHost + "/team/app:2")
	if err := remote.Write(ref2, img2, remote.WithAuth(&authn.Basic{Username: "deploy", Password: "s3cret"})); err != nil {
		t.Fatal(err)
	}
	var events []string
	got2, err := c.PullImageProgress(ctx, client.ImagePullRequest{Ref: ref2.String(), Name: "two", AuthSecret: "ci/REGISTRY", Jobs: 2}, func(p client.ImagePullProgress) {
		if p.Event != "bytes" {
			events = append(events, fmt.Sprintf("%s %d/%d", p.Event, p.Layer, p.Layers))
		}
	})
	if err != nil || got2.WorkingDir != "/two" {
		t.Fatalf("streamed API pull: %+v %v", got2, err)
	}
	slices.Sort(events)
	if want := "fetch 1/2,fetch 2/2,fetched 1/2,fetched 2/2,unpack 1/2,unpack 2/2"; strings.Join(events, ",") != want {
		t.Errorf("streamed API pull's events: %v", events)
	}
	_, err = c.PullImageProgress(ctx, client.ImagePullRequest{Ref: ref2.String(), Name: "two", AuthSecret: "ci/REGISTRY", MaxDownload: 1}, func(client.ImagePullProgress) {})
	if !errors.As(err, &ae) || ae.Code != api.CodeTooLarge {
		t.Errorf("streamed API pull over max_download: %v", err)
	}
	if _, err := c.PullImage(ctx, client.ImagePullRequest{Ref: ref2.String(), Jobs: 99}); !errors.As(err, &ae) || ae.Status != 400 {
		t.Errorf("API pull with 99 jobs: %v", err)
	}
	if _, err := c.CreateWorkspace(ctx, "ci"); err != nil {
		t.Fatal(err)
	}
	ws, err := c.MintToken(ctx, client.TokenRequest{Workspace: "ci", Scopes: []string{"read", "write", "exec"}})
	if err != nil {
		t.Fatal(err)
	}
	wc, _ := client.New(base, ws.Secret, client.Options{})
	if _, err := wc.PullImage(ctx, client.ImagePullRequest{Ref: ref.String()}); !errors.As(err, &ae) || ae.Status != 403 {
		t.Errorf("API pull with a workspace token: %v", err)
	}
}
