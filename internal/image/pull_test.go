package image_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/desk-dev/desk/internal/image"
	"github.com/desk-dev/desk/internal/image/imagetest"
	"github.com/desk-dev/desk/internal/testenv"
)

// testRegistry is go-containerregistry's registry on 127.0.0.1, behind
// wrap (nil: none), with a count of the blob GETs it served.
type testRegistry struct {
	host  string // 127.0.0.1:PORT
	blobs atomic.Int64
}

func startRegistry(t *testing.T, wrap func(http.Handler) http.Handler) *testRegistry {
	t.Helper()
	tr := &testRegistry{}
	var h http.Handler = registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	inner := h
	h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/") {
			tr.blobs.Add(1)
		}
		inner.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr.host = strings.TrimPrefix(srv.URL, "http://")
	return tr
}

// push writes img to the registry as repo:tag and returns the reference.
func (tr *testRegistry) push(t *testing.T, repoTag string, img v1.Image, opts ...remote.Option) string {
	t.Helper()
	ref, err := name.ParseReference(tr.host + "/" + repoTag)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img, opts...); err != nil {
		t.Fatal(err)
	}
	return ref.String()
}

func digestOf(t *testing.T, img interface{ Digest() (v1.Hash, error) }) string {
	t.Helper()
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

func readRoot(t *testing.T, s *image.Store, n, p string) string {
	t.Helper()
	img, err := s.Resolve(n)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(img.Root, p))
	if err != nil {
		return "ERR " + err.Error()
	}
	return string(b)
}

// TestPull_TagAndDigest: an image pulled by tag is unpacked like an import
// (its whiteouts, owners, config) and pinned (Source names its digest);
// pulled again by that digest it is the same image, fetched no more
// (manifest only); progress reports each layer and the bytes received.
func TestPull_TagAndDigest(t *testing.T) {
	s := open(t)
	reg := startRegistry(t, nil)
	img := twoLayers(t)
	ref := reg.push(t, "test/app:1", img)
	var mu sync.Mutex
	var seen []image.Progress
	info, err := s.Pull(context.Background(), ref, "app:1", image.PullOptions{Progress: func(p image.Progress) {
		mu.Lock()
		seen = append(seen, p)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := digestOf(t, img)
	if info.Digest != want || info.Source != reg.host+"/test/app@"+want || info.WorkingDir != "/app" || info.UID != 1000 {
		t.Errorf("info: %+v (want digest %s)", info, want)
	}
	if got := readRoot(t, s, "app:1", "app/c"); got != "gamma\n" {
		t.Errorf("app/c: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(s.Dir(), info.ID, "rootfs/app/b")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("app/b survived its whiteout: %v", err)
	}
	// Each layer is fetched, received, then unpacked, in order; the bytes
	// only grow, to the total.
	events := map[int][]string{}
	var unpacked []int
	var last image.Progress
	for _, p := range seen {
		if p.Done < last.Done || p.Total <= 0 || p.Event != image.EventBytes && p.Layers != 2 {
			t.Errorf("progress %+v after %+v", p, last)
		}
		events[p.Layer] = append(events[p.Layer], p.Event)
		if p.Event == image.EventUnpack {
			unpacked = append(unpacked, p.Layer)
		}
		last = p
	}
	for _, l := range []int{1, 2} {
		if got := strings.Join(events[l], ","); got != "fetch,fetched,unpack" {
			t.Errorf("layer %d's events: %s", l, got)
		}
	}
	if !slices.Equal(unpacked, []int{1, 2}) || last.Done < last.Total {
		t.Errorf("progress: %+v", seen)
	}
	blobs := reg.blobs.Load()
	again, err := s.Pull(context.Background(), info.Source, "pinned", image.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != info.ID || !strings.Contains(strings.Join(again.Names, ","), "pinned") {
		t.Errorf("by digest: %+v", again)
	}
	if n := reg.blobs.Load() - blobs; n != 1 {
		t.Errorf("the second pull fetched %d blobs, want 1 (the config only)", n)
	}
	// A reference that is none, a tag that is not there.
	if _, err := s.Pull(context.Background(), "Not A Ref!", "x", image.PullOptions{}); err == nil || !strings.Contains(err.Error(), "not an image reference") {
		t.Errorf("bad reference: %v", err)
	}
	if _, err := s.Pull(context.Background(), reg.host+"/test/app:nope", "x", image.PullOptions{}); err == nil || !strings.Contains(err.Error(), "MANIFEST_UNKNOWN") {
		t.Errorf("missing tag: %v", err)
	}
}

// TestPull_Platform: from a multi-platform index the image of this
// machine's architecture is pulled by default, another on request, and an
// architecture the index lacks is refused with the ones it has.
func TestPull_Platform(t *testing.T) {
	s := open(t)
	reg := startRegistry(t, nil)
	arch := func(a string) v1.Image {
		return imagetest.ImageFor(t, a, v1.Config{}, imagetest.Layer(t, []E{{Name: "arch", Body: a}}))
	}
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: arch("amd64"), Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}},
		mutate.IndexAddendum{Add: arch("arm64"), Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}}},
	)
	ref, err := name.ParseReference(reg.host + "/multi:1")
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(ref, idx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pull(context.Background(), ref.String(), "native", image.PullOptions{}); err != nil {
		if runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" {
			t.Fatal(err)
		}
	} else if got := readRoot(t, s, "native", "arch"); got != runtime.GOARCH {
		t.Errorf("native: %q, want %s", got, runtime.GOARCH)
	}
	info, err := s.Pull(context.Background(), ref.String(), "arm", image.PullOptions{Platform: &v1.Platform{OS: "linux", Architecture: "arm64"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := readRoot(t, s, "arm", "arch"); got != "arm64" {
		t.Errorf("arm64: %q", got)
	}
	if d := digestOf(t, idx); info.Source != reg.host+"/multi@"+d {
		t.Errorf("source %s, want the index's digest %s", info.Source, d)
	}
	_, err = s.Pull(context.Background(), ref.String(), "z", image.PullOptions{Platform: &v1.Platform{OS: "linux", Architecture: "s390x"}})
	if err == nil || !strings.Contains(err.Error(), "no image for linux/s390x (it has: linux/amd64, linux/arm64/v8)") {
		t.Errorf("missing platform: %v", err)
	}
	// An image (not an index) of another architecture.
	one := reg.push(t, "one:arm", arch("arm64"))
	if _, err := s.Pull(context.Background(), one, "y", image.PullOptions{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}); err == nil || !strings.Contains(err.Error(), "the image is for linux/arm64, not linux/amd64") {
		t.Errorf("image of another architecture: %v", err)
	}
}

// TestPull_Auth: a registry that wants Basic credentials refuses an
// anonymous pull and a wrong password, and serves the right one.
func TestPull_Auth(t *testing.T) {
	s := open(t)
	reg := startRegistry(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != "deploy" || p != "s3cret" {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"credentials required"}]}`, http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	auth := remote.WithAuth(&authn.Basic{Username: "deploy", Password: "s3cret"})
	ref := reg.push(t, "private/app:1", twoLayers(t), auth)
	if _, err := s.Pull(context.Background(), ref, "p", image.PullOptions{}); err == nil || !strings.Contains(err.Error(), "UNAUTHORIZED") {
		t.Errorf("anonymous: %v", err)
	}
	if _, err := s.Pull(context.Background(), ref, "p", image.PullOptions{Auth: &authn.Basic{Username: "deploy", Password: "wrong"}}); err == nil || !strings.Contains(err.Error(), "UNAUTHORIZED") {
		t.Errorf("wrong password: %v", err)
	}
	good := &authn.Basic{Username: "deploy", Password: "s3cret"}
	if _, err := s.Pull(context.Background(), ref, "p", image.PullOptions{Auth: good, AuthHosts: func(h string) bool { return h == "registry.example" }}); err == nil || !strings.Contains(err.Error(), "wants the credentials sent to 127.0.0.1, a host they are not bound to") {
		t.Errorf("credentials for another host: %v", err)
	}
	if _, err := s.Pull(context.Background(), ref, "p", image.PullOptions{Auth: good, AuthHosts: func(h string) bool { return h == "127.0.0.1" }}); err != nil {
		t.Fatal(err)
	}
	if got := readRoot(t, s, "p", "app/a"); got != "alpha\n" {
		t.Errorf("app/a: %q", got)
	}
}

// TestPull_Hostile: what a registry sends beyond the limits or against the
// manifest is refused with a clear error, and nothing is kept.
func TestPull_Hostile(t *testing.T) {
	testenv.NeedRoot(t)
	var mu sync.Mutex
	override := map[string][]byte{} // request path → body served instead
	reg := startRegistry(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			b, ok := override[r.URL.Path]
			mu.Unlock()
			if ok && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
				if strings.Contains(r.URL.Path, "/manifests/") {
					w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
				}
				w.Header().Set("Content-Length", strconv.Itoa(len(b)))
				if r.Method == http.MethodGet {
					w.Write(b)
				}
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	serve := func(path string, b []byte) {
		mu.Lock()
		override[path] = b
		mu.Unlock()
	}
	layer := func(es []E) v1.Image { return imagetest.Image(t, v1.Config{}, imagetest.Layer(t, es)) }
	big := strings.Repeat("\x00", 64<<20)
	small, err := image.Open(filepath.Join(t.TempDir(), "images"), image.Options{Limits: image.Limits{MaxBytes: 1 << 20, MaxDownload: 256 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, s *image.Store, ref string, target error, want string) {
		t.Helper()
		_, err := s.Pull(context.Background(), ref, "bad", image.PullOptions{})
		if err == nil || (target != errAny && !errors.Is(err, target)) || !strings.Contains(err.Error(), want) {
			t.Fatalf("pull %s: %v, want %v (%s)", ref, err, target, want)
		}
		if _, err := s.Resolve("bad"); !errors.Is(err, image.ErrNotFound) {
			t.Errorf("the refused image has a name: %v", err)
		}
		ents, _ := os.ReadDir(s.Dir())
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".unpack-") || strings.HasPrefix(e.Name(), "sha256-") {
				t.Errorf("left in the store: %s", e.Name())
			}
		}
	}
	t.Run("layers declared over MaxDownload", func(t *testing.T) {
		rnd := make([]byte, 512<<10)
		rand.NewChaCha8([32]byte{1}).Read(rnd)
		ref := reg.push(t, "big/declared:1", layer([]E{{Name: "noise", Body: string(rnd)}}))
		before := reg.blobs.Load()
		check(t, small, ref, image.ErrTooLarge, "over the limit of 262144 (Limits.MaxDownload)")
		if n := reg.blobs.Load() - before; n > 1 {
			t.Errorf("%d blobs fetched before the refusal (the config at most)", n)
		}
	})
	t.Run("a compression bomb over MaxBytes", func(t *testing.T) {
		ref := reg.push(t, "big/bomb:1", layer([]E{{Name: "zeros", Body: big}}))
		check(t, small, ref, image.ErrTooLarge, "Limits.MaxBytes")
	})
	t.Run("data after the tar", func(t *testing.T) {
		stream := append(imagetest.Tar(t, []E{{Name: "a", Body: "a"}}), make([]byte, 8<<20)...)
		ref := reg.push(t, "big/hidden:1", imagetest.Image(t, v1.Config{}, imagetest.RawLayer(t, stream)))
		check(t, small, ref, image.ErrTooLarge, "more than their headers need")
	})
	s := open(t)
	t.Run("a manifest over MaxManifestBytes", func(t *testing.T) {
		ref := reg.push(t, "huge/manifest:1", layer([]E{{Name: "a", Body: "a"}}))
		serve("/v2/huge/manifest/manifests/1", bytes.Repeat([]byte(" "), 5<<20))
		check(t, s, ref, image.ErrTooLarge, "Limits.MaxManifestBytes")
	})
	t.Run("a layer larger than its manifest says", func(t *testing.T) {
		img := layer([]E{{Name: "a", Body: strings.Repeat("a", 10000)}})
		ref := reg.push(t, "liar/size:1", img)
		m, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		m = m.DeepCopy()
		m.Layers[0].Size -= 100
		b, _ := json.Marshal(m)
		serve("/v2/liar/size/manifests/1", b)
		_, err = s.Pull(context.Background(), ref, "bad", image.PullOptions{})
		if err == nil || !strings.Contains(err.Error(), "does not match expected size") {
			t.Errorf("pull: %v", err)
		}
	})
	t.Run("a blob that is not its digest", func(t *testing.T) {
		// Stored (uncompressed) gzip of tars of the same size: the forged
		// blob has the manifest's size, and only its digest differs.
		real := imagetest.RawLayer(t, stored(t, imagetest.Tar(t, []E{{Name: "a", Body: "the real content"}})))
		forged := stored(t, imagetest.Tar(t, []E{{Name: "a", Body: "forged content!!"}}))
		ref := reg.push(t, "liar/blob:1", imagetest.Image(t, v1.Config{}, real))
		d, _ := real.Digest()
		if sz, _ := real.Size(); sz != int64(len(forged)) {
			t.Fatalf("sizes %d %d", sz, len(forged))
		}
		serve("/v2/liar/blob/blobs/"+d.String(), forged)
		check(t, s, ref, errAny, "error verifying sha256 checksum")
	})
	t.Run("a manifest that is not the pinned digest", func(t *testing.T) {
		img := layer([]E{{Name: "a", Body: "pinned"}})
		reg.push(t, "liar/pin:1", img)
		d := digestOf(t, img)
		forged := layer([]E{{Name: "a", Body: "forged"}})
		reg.push(t, "liar/pin:2", forged)
		fm, _ := forged.RawManifest()
		serve("/v2/liar/pin/manifests/"+d, fm)
		_, err := s.Pull(context.Background(), reg.host+"/liar/pin@"+d, "bad", image.PullOptions{})
		if err == nil || !strings.Contains(err.Error(), "digest") {
			t.Errorf("pull: %v", err)
		}
	})
	t.Run("a path traversal in a pulled layer", func(t *testing.T) {
		ref := reg.push(t, "evil/layer:1", layer([]E{{Name: "../../evil", Body: "x"}}))
		check(t, s, ref, image.ErrHostile, "path traversal")
	})
}

// errAny stands for any error in TestPull_Hostile's check.
var errAny = errors.New("any error")

// stored is b gzipped without compression (its length depends on len(b)
// alone).
func stored(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// layerCounter is a transport that counts the layer blobs being fetched at
// once (from the request until its body is closed) and, with barrier,
// holds the first layer's request until a second is in flight (a hang
// guard ends the wait and records that none came).
type layerCounter struct {
	base     http.RoundTripper
	layers   map[string]bool // the layers' digests
	barrier  bool
	mu       sync.Mutex
	cond     *sync.Cond
	inFlight int
	max      int
	started  int
	noSecond bool
}

func (c *layerCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	i := strings.LastIndex(req.URL.Path, "/blobs/")
	if req.Method != http.MethodGet || i < 0 || !c.layers[req.URL.Path[i+len("/blobs/"):]] {
		return c.base.RoundTrip(req)
	}
	c.mu.Lock()
	c.inFlight++
	c.started++
	c.max = max(c.max, c.inFlight)
	first := c.started == 1
	c.cond.Broadcast()
	if c.barrier && first {
		deadline := time.AfterFunc(30*time.Second, func() {
			c.mu.Lock()
			c.noSecond = c.inFlight < 2
			c.barrier = false
			c.cond.Broadcast()
			c.mu.Unlock()
		})
		for c.barrier && c.inFlight < 2 {
			c.cond.Wait()
		}
		deadline.Stop()
	}
	c.mu.Unlock()
	resp, err := c.base.RoundTrip(req)
	if err != nil {
		c.done()
		return nil, err
	}
	resp.Body = &doneBody{ReadCloser: resp.Body, done: c.done}
	return resp, nil
}

func (c *layerCounter) done() {
	c.mu.Lock()
	c.inFlight--
	c.mu.Unlock()
}

type doneBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *doneBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}

// TestPull_ParallelLayers: the layers of an image are fetched Jobs at a
// time: with 2, a second layer's fetch starts while the first is in
// flight (the first is held until it does) and never more than 2 are; with
// 1, one at a time; either way the layers are unpacked in order into the
// same root, and the temporary files are gone.
func TestPull_ParallelLayers(t *testing.T) {
	s := open(t)
	reg := startRegistry(t, nil)
	var ls []v1.Layer
	digests := map[string]bool{}
	for i := range 5 {
		// Each layer overwrites f, so the root shows whether they were applied in order.
		l := imagetest.Layer(t, []E{{Name: "f", Body: strconv.Itoa(i)}, {Name: "l" + strconv.Itoa(i), Body: strings.Repeat("x", 100<<10)}})
		d, err := l.Digest()
		if err != nil {
			t.Fatal(err)
		}
		digests[d.String()] = true
		ls = append(ls, l)
	}
	img := imagetest.Image(t, v1.Config{}, ls...)
	ref := reg.push(t, "test/layers:1", img)
	for _, jobs := range []int{2, 1} {
		c := &layerCounter{base: http.DefaultTransport, layers: digests, barrier: jobs > 1}
		c.cond = sync.NewCond(&c.mu)
		name := "layers-" + strconv.Itoa(jobs)
		info, err := s.Pull(context.Background(), ref, name, image.PullOptions{Jobs: jobs, Transport: c})
		if err != nil {
			t.Fatalf("jobs %d: %v", jobs, err)
		}
		if c.noSecond {
			t.Errorf("jobs %d: no second layer was fetched while the first was in flight", jobs)
		}
		if c.max != jobs || c.started != 5 {
			t.Errorf("jobs %d: %d layers fetched at once at most, %d fetched", jobs, c.max, c.started)
		}
		if got := readRoot(t, s, name, "f"); got != "4" {
			t.Errorf("jobs %d: f = %q, want the last layer's", jobs, got)
		}
		ents, _ := os.ReadDir(s.Dir())
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".pull-") || strings.HasPrefix(e.Name(), ".unpack-") {
				t.Errorf("jobs %d: %s left in the store", jobs, e.Name())
			}
		}
		if err := s.Remove(name); err != nil {
			t.Fatal(err)
		}
		_ = info
	}
}
