package artifact

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	billy "github.com/go-git/go-billy/v6"
	"github.com/go-git/go-git/v6/plumbing"
	"github.com/go-git/go-git/v6/plumbing/cache"
	"github.com/go-git/go-git/v6/plumbing/object"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"
	"github.com/go-git/go-git/v6/plumbing/transport"
	"github.com/go-git/go-git/v6/storage/filesystem"

	"github.com/desk-dev/desk/internal/gitws"
	"github.com/desk-dev/desk/internal/vfs"
)

// The two services of git's smart HTTP.
const (
	UploadPack  = "git-upload-pack"  // clone and fetch
	ReceivePack = "git-receive-pack" // push
)

// Bounds of one request's body (after gzip decoding).
const (
	DefaultMaxPushBytes    = 1 << 30  // a push's pack
	DefaultMaxRequestBytes = 16 << 20 // a fetch's wants and haves
)

// ErrTooLarge: a request body over its bound.
var ErrTooLarge = errors.New("git request too large")

// Server serves the git smart-HTTP protocol of published repositories from
// a workspace's store, with go-git v6's server side (negotiation, shallow
// and deepen, side-band, protocol v0, v1 and v2). It is what desk serve's
// worker of the workspace runs; the caller has authorised the request
// (Store.Authorize).
type Server struct {
	// MaxPushBytes bounds a push's body. Default DefaultMaxPushBytes.
	MaxPushBytes int64
	// MaxRequestBytes bounds a fetch's body. Default DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// Deltas makes the packs sent delta-compressed (go-git searches a
	// window of pack.window objects, 10 by default, for each): smaller
	// packs for much more of the server's CPU. Default off: objects are
	// sent whole (zlib-compressed), as fast as the store reads them.
	Deltas bool
}

// Service returns the service of a smart-HTTP request for route ("info/refs"
// with ?service=, "git-upload-pack" or "git-receive-pack"), or an
// ErrInvalid error.
func Service(route string, r *http.Request) (string, error) {
	svc := route
	if route == "info/refs" {
		svc = r.URL.Query().Get("service")
		if svc == "" {
			return "", fmt.Errorf("%w: the dumb HTTP protocol is not served: use a git that speaks smart HTTP (any since 1.6.6)", ErrInvalid)
		}
	}
	if svc != UploadPack && svc != ReceivePack {
		return "", fmt.Errorf("%w: service %q: want git-upload-pack or git-receive-pack", ErrInvalid, svc)
	}
	return svc, nil
}

// Serve answers one smart-HTTP request for the repository of a in fsys:
// the advertisement (advertise: GET info/refs?service=svc) or the service
// call (POST svc). It reports whether the answer started: an error before
// is the caller's to send; after, the answer carried it already (a refused
// push's reasons are in its report) and the caller only logs it.
func (s *Server) Serve(ctx context.Context, w http.ResponseWriter, r *http.Request, fsys *vfs.FS, a Artifact, svc string, advertise bool) (answered bool, err error) {
	out := &flushWriter{w: w}
	out.buf = bufio.NewWriterSize(countWriter{out}, 64<<10)
	err = s.serve(ctx, out, r, fsys, a, svc, advertise)
	if ferr := out.Close(); err == nil {
		err = ferr
	}
	return out.n > 0, err
}

func (s *Server) serve(ctx context.Context, out *flushWriter, r *http.Request, fsys *vfs.FS, a Artifact, svc string, advertise bool) error {
	w := out.w
	gitDir, work, err := gitws.FindRepo(ctx, fsys, a.Path)
	if err != nil {
		return fmt.Errorf("%w: artifact %s: the repository at %s is gone (%v)", ErrNotFound, a.Name, a.Path, err)
	}
	var dotgit billy.Filesystem = gitws.NewBilly6(ctx, fsys, gitDir)
	if svc == UploadPack && !advertise {
		dotgit = newPackCache(dotgit, MaxPackCacheBytes)
	}
	st := filesystem.NewStorageWithOptions(dotgit, cache.NewObjectLRUDefault(), filesystem.Options{})
	defer st.Close()
	proto := r.Header.Get("Git-Protocol")
	h := w.Header()
	h.Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	h.Set("X-Content-Type-Options", "nosniff")
	name := strings.TrimPrefix(svc, "git-")
	if advertise {
		h.Set("Content-Type", "application/x-git-"+name+"-advertisement")
		if svc == UploadPack {
			return transport.UploadPack(ctx, st, nil, out, &transport.UploadPackRequest{GitProtocol: proto, AdvertiseRefs: true, StatelessRPC: true})
		}
		return transport.ReceivePack(ctx, st, nil, out, &transport.ReceivePackRequest{GitProtocol: proto, AdvertiseRefs: true, StatelessRPC: true})
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-git-"+name+"-request" {
		return fmt.Errorf("%w: content type %q: want application/x-git-%s-request", ErrInvalid, ct, name)
	}
	limit := s.MaxRequestBytes
	if limit <= 0 {
		limit = DefaultMaxRequestBytes
	}
	if svc == ReceivePack {
		if limit = s.MaxPushBytes; limit <= 0 {
			limit = DefaultMaxPushBytes
		}
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return fmt.Errorf("%w: gzip body: %v", ErrInvalid, err)
		}
		defer zr.Close()
		body = zr
	}
	in := io.NopCloser(&limitReader{r: body, left: limit, limit: limit})
	h.Set("Content-Type", "application/x-git-"+name+"-result")
	if svc == UploadPack {
		return transport.UploadPack(ctx, st, in, out, &transport.UploadPackRequest{GitProtocol: proto, StatelessRPC: true, SkipDeltaCompression: !s.Deltas})
	}
	return transport.ReceivePack(ctx, st, in, out, &transport.ReceivePackRequest{GitProtocol: proto, StatelessRPC: true,
		Hooks: transport.ReceivePackHooks{PreReceive: func(ctx context.Context, info *transport.PreReceiveInfo) error {
			return preReceive(ctx, fsys, gitDir, work, info)
		}}})
}

// preReceive is desk's policy for a push: no update that is not a
// fast-forward, no deletion of the checked-out branch, and an update of the
// checked-out branch moves the work tree with it (or is refused when local
// changes would be lost).
func preReceive(ctx context.Context, fsys *vfs.FS, gitDir, work string, info *transport.PreReceiveInfo) error {
	current, err := gitws.CurrentBranch(ctx, fsys, gitDir)
	if err != nil {
		return err
	}
	var move *packp.Command
	for _, cmd := range info.Commands {
		switch cmd.Action() {
		case packp.Delete:
			if cmd.Name.String() == current {
				return fmt.Errorf("refusing to delete the current branch %s of the workspace", cmd.Name.Short())
			}
		case packp.Update:
			ok, err := isAncestor(info, cmd.Old, cmd.New)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("non-fast-forward update of %s refused (desk keeps a published branch's history: fetch, merge and push again)", cmd.Name.Short())
			}
		}
		if cmd.Action() != packp.Delete && cmd.Name.String() == current && work != "" {
			move = cmd
		}
	}
	if move == nil {
		return nil
	}
	return gitws.UpdateWorkTree(ctx, fsys, gitDir, work, move.Old.String(), move.New.String())
}

// isAncestor reports whether commit old is new or one of its ancestors.
func isAncestor(info *transport.PreReceiveInfo, old, nw plumbing.Hash) (bool, error) {
	if old == nw {
		return true, nil
	}
	oc, err := object.GetCommit(info.Storer, old)
	if err != nil {
		return false, nil // not a commit we hold (a tag, or gone): not a fast-forward
	}
	nc, err := object.GetCommit(info.Storer, nw)
	if err != nil {
		return false, fmt.Errorf("%s is not a commit: %w", nw, err)
	}
	return oc.IsAncestor(nc)
}

// flushWriter is the response as go-git's io.WriteCloser; Close sends
// what is buffered (a stateless-RPC answer is read whole by the client, so
// nothing needs sending earlier) and the handler ends the response.
type flushWriter struct {
	w   http.ResponseWriter
	buf *bufio.Writer // over countWriter: 64 KiB writes to the response
	n   int64         // bytes written to the response
}

func (f *flushWriter) Write(p []byte) (int, error) { return f.buf.Write(p) }

func (f *flushWriter) Close() error {
	if err := f.buf.Flush(); err != nil {
		return err
	}
	if f.n == 0 {
		return nil
	}
	return http.NewResponseController(f.w).Flush()
}

type countWriter struct{ f *flushWriter }

func (c countWriter) Write(p []byte) (int, error) {
	n, err := c.f.w.Write(p)
	c.f.n += int64(n)
	return n, err
}

// limitReader fails past limit bytes with ErrTooLarge.
type limitReader struct {
	r           io.Reader
	left, limit int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var b [1]byte
		if n, _ := l.r.Read(b[:]); n > 0 {
			return 0, fmt.Errorf("%w: over the limit of %d bytes", ErrTooLarge, l.limit)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
