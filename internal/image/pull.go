package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Defaults of the pull limits.
const (
	DefaultMaxDownload      = 8 << 30 // compressed bytes fetched per pull
	DefaultMaxManifestBytes = 4 << 20 // a manifest or index (the distribution spec's minimum registries accept)
	DefaultPullJobs         = 3       // layers fetched at once (as Docker's max-concurrent-downloads)
	MaxPullJobs             = 16      // the most PullOptions.Jobs may ask
)

// ErrTooLarge is wrapped by the errors of a pull past Limits.MaxDownload or
// Limits.MaxManifestBytes, and of an image past Limits.MaxBytes.
var ErrTooLarge = errors.New("image too large")

// PullOptions configure Store.Pull.
type PullOptions struct {
	// Platform picks the image of a multi-platform index (default
	// linux/GOARCH of this desk). An image that is not an index must be of
	// this platform when its config says one.
	Platform *v1.Platform
	// Auth authenticates to the registry (default: anonymous). desk never
	// reads credentials from files of its own: cmd/desk passes a
	// workspace secret (desk secret set) as authn.Basic.
	Auth authn.Authenticator
	// AuthHosts, if set, says which hosts Auth's credentials may be sent
	// to (a registry's token service may be another host): a request
	// carrying Basic credentials to any other is refused.
	AuthHosts func(host string) bool
	// Transport carries the requests (default: a clone of
	// http.DefaultTransport, which honours HTTPS_PROXY and NO_PROXY).
	Transport http.RoundTripper
	// Jobs is how many layers are fetched at once (default
	// DefaultPullJobs, at most MaxPullJobs): each into a temporary file of
	// the store, verified, while the layers already received are unpacked
	// in order.
	Jobs int
	// Progress, if set, is called as the pull goes (serialised, from the
	// fetching goroutines: keep it quick): an event per layer as its
	// fetch starts, as it is received whole, and as its unpacking starts,
	// and about once per 256 KiB received.
	Progress func(Progress)
}

// Progress events.
const (
	EventFetch   = "fetch"   // a layer's download starts
	EventFetched = "fetched" // a layer was received whole and verified
	EventUnpack  = "unpack"  // a layer's unpacking starts (in order)
	EventBytes   = "bytes"   // more bytes were received (Layer 0)
)

// Progress is a pull's state.
type Progress struct {
	Event         string // EventFetch, EventFetched, EventUnpack or EventBytes
	Layer, Layers int    // the event's layer (1-based; 0 for EventBytes), of how many
	Digest        string // its digest
	Size          int64  // its compressed size
	Done          int64  // bytes received so far (manifests and config included)
	Total         int64  // the compressed size of the layers and config the manifest declares
}

// Pull fetches the image ref (REGISTRY/REPO:TAG or REGISTRY/REPO@sha256:HEX,
// Docker Hub's short forms too) from its registry, unpacks it like Import
// unless the store has it already (only the manifest is fetched then), and
// names it name (default: ref as given). A reference by digest is verified
// against what the registry sends (go-containerregistry checks the
// manifest's digest, and every blob's digest and size against the
// manifest). Info.Source is the pinned reference (REPO@sha256:HEX of the
// manifest or index the tag named).
func (s *Store) Pull(ctx context.Context, ref, name string, o PullOptions) (Info, error) {
	if name == "" {
		name = ref
	}
	if err := ValidName(name); err != nil {
		return Info{}, err
	}
	r, err := nameParse(ref)
	if err != nil {
		return Info{}, err
	}
	plat := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	if o.Platform != nil {
		plat = *o.Platform
	}
	base := o.Transport
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	pt := &pullTransport{base: base, limits: s.opts.Limits, progress: o.Progress, authHosts: o.AuthHosts}
	auth := o.Auth
	if auth == nil {
		auth = authn.Anonymous
	}
	opts := []remote.Option{remote.WithContext(ctx), remote.WithAuth(auth), remote.WithTransport(pt),
		remote.WithPlatform(plat), remote.WithUserAgent("desk")}
	desc, err := remote.Get(r, opts...)
	if err != nil {
		return Info{}, fmt.Errorf("pull image %s: %w", ref, err)
	}
	img, err := pickImage(desc, plat)
	if err != nil {
		return Info{}, fmt.Errorf("pull image %s: %w", ref, err)
	}
	m, err := img.Manifest()
	if err != nil {
		return Info{}, fmt.Errorf("pull image %s: %w", ref, err)
	}
	total := m.Config.Size
	for _, l := range m.Layers {
		if l.Size < 0 {
			return Info{}, fmt.Errorf("pull image %s: %w: layer %s declares size %d", ref, ErrHostile, l.Digest, l.Size)
		}
		total += l.Size
	}
	if total > s.opts.Limits.MaxDownload || total < 0 {
		return Info{}, fmt.Errorf("pull image %s: %w: its layers and config are %d bytes compressed, over the limit of %d (Limits.MaxDownload)", ref, ErrTooLarge, total, s.opts.Limits.MaxDownload)
	}
	pt.total.Store(total)
	d, err := img.Digest()
	if err != nil {
		return Info{}, fmt.Errorf("pull image %s: %w", ref, err)
	}
	source := r.Context().Digest(desc.Digest.String()).String()

	jobs := o.Jobs
	if jobs <= 0 {
		jobs = DefaultPullJobs
	}
	jobs = min(jobs, MaxPullJobs)
	f := &fetcher{s: s, jobs: jobs, pt: pt, m: m}
	defer f.close()
	info, err := s.add(ctx, img, d, name, func(u *unpackJob) {
		u.source = source
		u.onLayer = func(i int) { pt.event(EventUnpack, i+1, len(m.Layers), m.Layers[i].Digest.String(), m.Layers[i].Size) }
		u.open = f.open
	})
	if err != nil {
		return Info{}, fmt.Errorf("pull image %s: %w", ref, err)
	}
	return info, nil
}

// fetcher downloads an image's layers, Jobs at a time in their order, each
// into a temporary file of the store (verified as it streams:
// go-containerregistry checks the digest and size at its end), and gives
// them to the unpacker in order as they arrive. It starts with the
// unpacker's first layer: an image the store has fetches nothing.
type fetcher struct {
	s    *Store
	jobs int
	pt   *pullTransport
	m    *v1.Manifest

	once   sync.Once
	cancel context.CancelFunc
	wg     sync.WaitGroup
	dir    string
	dirErr error
	layers []fetched
}

// fetched is one layer's download: done is closed when it ends, with err
// or the file.
type fetched struct {
	done chan struct{}
	file string
	err  error
}

// start starts the downloads of layers.
func (f *fetcher) start(ctx context.Context, layers []v1.Layer) {
	f.once.Do(func() {
		f.dir, f.dirErr = os.MkdirTemp(f.s.dir, ".pull-")
		if f.dirErr != nil {
			return
		}
		ctx, f.cancel = context.WithCancel(ctx)
		f.layers = make([]fetched, len(layers))
		for i := range f.layers {
			f.layers[i].done = make(chan struct{})
		}
		sem := make(chan struct{}, f.jobs)
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for i, l := range layers {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					for j := i; j < len(layers); j++ {
						f.layers[j].err = ctx.Err()
						close(f.layers[j].done)
					}
					return
				}
				f.wg.Add(1)
				go func() {
					defer f.wg.Done()
					defer func() { <-sem }()
					fl := &f.layers[i]
					fl.file, fl.err = f.fetch(ctx, i, l)
					close(fl.done)
				}()
			}
		}()
	})
}

// fetch downloads layer i into a file of the fetcher's directory.
func (f *fetcher) fetch(ctx context.Context, i int, l v1.Layer) (string, error) {
	n := len(f.m.Layers)
	desc := f.m.Layers[i]
	f.pt.event(EventFetch, i+1, n, desc.Digest.String(), desc.Size)
	rc, err := l.Compressed()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	// Ended with the pull (a failed unpack, a cancel): closing the body
	// ends a read in progress.
	stop := context.AfterFunc(ctx, func() { rc.Close() })
	defer stop()
	p := filepath.Join(f.dir, strconv.Itoa(i))
	out, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, rc)
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	f.pt.event(EventFetched, i+1, n, desc.Digest.String(), desc.Size)
	return p, nil
}

// open is the unpacker's unpackJob.open: layer i's uncompressed stream,
// once its download is complete; closing it removes the file.
func (f *fetcher) open(ctx context.Context, layers []v1.Layer, i int) (io.ReadCloser, error) {
	f.start(ctx, layers)
	if f.dirErr != nil {
		return nil, f.dirErr
	}
	fl := &f.layers[i]
	select {
	case <-fl.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if fl.err != nil {
		return nil, fmt.Errorf("fetch layer %s: %w", f.m.Layers[i].Digest, fl.err)
	}
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return os.Open(fl.file) })
	if err != nil {
		return nil, err
	}
	rc, err := l.Uncompressed()
	if err != nil {
		return nil, err
	}
	return removeOnClose{rc, fl.file}, nil
}

// close stops the downloads left and removes their files.
func (f *fetcher) close() {
	if f.cancel != nil {
		f.cancel()
	}
	f.wg.Wait()
	if f.dir != "" {
		os.RemoveAll(f.dir)
	}
}

// removeOnClose removes file when the stream is closed.
type removeOnClose struct {
	io.ReadCloser
	file string
}

func (r removeOnClose) Close() error {
	err := r.ReadCloser.Close()
	os.Remove(r.file)
	return err
}

// nameParse parses an image reference.
func nameParse(ref string) (name.Reference, error) {
	r, err := name.ParseReference(ref, name.StrictValidation)
	if err != nil {
		// Docker Hub's short forms (busybox, library/busybox:1.36) are
		// not strict: allow them with the defaults filled in.
		if r2, err2 := name.ParseReference(ref); err2 == nil {
			return r2, nil
		}
		return nil, fmt.Errorf("pull image %q: not an image reference (REGISTRY/REPOSITORY:TAG or @sha256:DIGEST): %w", ref, err)
	}
	return r, nil
}

// pickImage is the image of desc for plat: desc itself, or the child of an
// index whose platform is plat.
func pickImage(desc *remote.Descriptor, plat v1.Platform) (v1.Image, error) {
	switch {
	case desc.MediaType.IsIndex():
		idx, err := desc.ImageIndex()
		if err != nil {
			return nil, err
		}
		im, err := idx.IndexManifest()
		if err != nil {
			return nil, err
		}
		var have []string
		for _, c := range im.Manifests {
			if !c.MediaType.IsImage() || c.Platform == nil {
				continue
			}
			if c.Platform.Satisfies(plat) {
				return idx.Image(c.Digest)
			}
			have = append(have, c.Platform.String())
		}
		return nil, fmt.Errorf("the index has no image for %s (it has: %s); pick another platform", plat.String(), strings.Join(have, ", "))
	case desc.MediaType.IsImage():
		img, err := desc.Image()
		if err != nil {
			return nil, err
		}
		cf, err := img.ConfigFile()
		if err != nil {
			return nil, fmt.Errorf("read its config: %w", err)
		}
		if cf.Architecture != "" && cf.OS != "" {
			got := v1.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant}
			if !got.Satisfies(plat) {
				return nil, fmt.Errorf("the image is for %s, not %s", got.String(), plat.String())
			}
		}
		return img, nil
	default:
		return nil, fmt.Errorf("%s is neither an image nor an index", desc.MediaType)
	}
}

// pullTransport counts and bounds what a pull receives: every response body
// adds to the download (over Limits.MaxDownload: an error), a manifest's
// over Limits.MaxManifestBytes is an error, and Progress hears of it.
type pullTransport struct {
	base      http.RoundTripper
	limits    Limits
	progress  func(Progress)
	authHosts func(string) bool
	total     atomic.Int64
	done      atomic.Int64

	mu       sync.Mutex // serialises progress calls
	reported int64
}

// event reports a layer's event.
func (t *pullTransport) event(ev string, i, n int, digest string, size int64) {
	if t.progress == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	done := t.done.Load()
	t.reported = done
	t.progress(Progress{Event: ev, Layer: i, Layers: n, Digest: digest, Size: size, Done: done, Total: t.total.Load()})
}

// report reports the bytes received, once per 256 KiB more.
func (t *pullTransport) report() {
	if t.progress == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	done := t.done.Load()
	if done-t.reported < 256<<10 {
		return
	}
	t.reported = done
	t.progress(Progress{Event: EventBytes, Done: done, Total: t.total.Load()})
}

func (t *pullTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.authHosts != nil && strings.HasPrefix(req.Header.Get("Authorization"), "Basic ") && !t.authHosts(req.URL.Hostname()) {
		return nil, fmt.Errorf("the registry wants the credentials sent to %s, a host they are not bound to (bind the secret to it too)", req.URL.Hostname())
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	limit := int64(-1)
	if origPath(req, "/manifests/") {
		limit = t.limits.MaxManifestBytes
		if resp.ContentLength > limit {
			resp.Body.Close()
			return nil, fmt.Errorf("%w: the registry sent a manifest of %d bytes, over the limit of %d (Limits.MaxManifestBytes)", ErrTooLarge, resp.ContentLength, limit)
		}
	}
	resp.Body = &countingBody{rc: resp.Body, t: t, limit: limit}
	return resp, nil
}

// origPath says whether the request (or the one redirected to it) has part
// in its path.
func origPath(req *http.Request, part string) bool {
	for r := req; r != nil; {
		if strings.Contains(r.URL.Path, part) {
			return true
		}
		if r.Response == nil {
			break
		}
		r = r.Response.Request
	}
	return false
}

type countingBody struct {
	rc    io.ReadCloser
	t     *pullTransport
	limit int64 // this body's own bound (-1: none)
	n     int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n += int64(n)
	done := b.t.done.Add(int64(n))
	if b.limit >= 0 && b.n > b.limit {
		return n, fmt.Errorf("%w: the registry sent a manifest over %d bytes (Limits.MaxManifestBytes)", ErrTooLarge, b.limit)
	}
	if max := b.t.limits.MaxDownload; done > max {
		return n, fmt.Errorf("%w: the registry sent over %d bytes (Limits.MaxDownload)", ErrTooLarge, max)
	}
	b.t.report()
	return n, err
}

func (b *countingBody) Close() error { return b.rc.Close() }
