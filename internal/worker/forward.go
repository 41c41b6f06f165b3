package worker

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"
)

// HeaderKey carries the worker's key on every request the pool sends it: a
// worker serves only requests that carry its own (CheckKey).
const HeaderKey = "X-Desk-Worker-Key"

// Transport returns an http.RoundTripper that sends each request to ws's
// worker, starting it if need be. The request's URL needs only a path (and
// query): scheme and host are the pool's. The worker counts as busy from the
// request until its response body is closed.
func (p *Pool) Transport(ws string) http.RoundTripper { return &transport{p: p, ws: ws} }

type transport struct {
	p  *Pool
	ws string
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	e, err := t.p.acquire(req.Context(), t.ws)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("reach the worker of %s: %w", t.ws, err)
	}
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host, out.Host = "http", "worker", "worker"
	out.Header.Set(HeaderKey, e.key)
	res, err := e.tr.RoundTrip(out)
	if err != nil {
		t.p.release(e)
		if req.Context().Err() != nil {
			return nil, err
		}
		return nil, t.p.explain(e, err)
	}
	rel := &releaser{p: t.p, e: e}
	if rw, ok := res.Body.(io.ReadWriteCloser); ok && res.StatusCode == http.StatusSwitchingProtocols {
		res.Body = &rwBody{ReadWriteCloser: rw, rel: rel}
	} else {
		res.Body = &body{ReadCloser: res.Body, rel: rel}
	}
	return res, nil
}

// explain turns a failed round trip into an error that says why the worker
// went, when it died.
func (p *Pool) explain(e *proc, err error) error {
	t := time.NewTimer(time.Second) // a dead worker's exit is moments away
	defer t.Stop()
	select {
	case <-e.done:
		p.mu.Lock()
		why := p.crashed[e.ws]
		p.mu.Unlock()
		if why != "" {
			return fmt.Errorf("%w: %s", ErrExited, why)
		}
		return fmt.Errorf("%w: %v", ErrExited, err)
	case <-t.C:
		return err
	}
}

type releaser struct {
	p    *Pool
	e    *proc
	once sync.Once
}

func (r *releaser) release() { r.once.Do(func() { r.p.release(r.e) }) }

type body struct {
	io.ReadCloser
	rel *releaser
}

func (b *body) Close() error {
	err := b.ReadCloser.Close()
	b.rel.release()
	return err
}

type rwBody struct {
	io.ReadWriteCloser
	rel *releaser
}

func (b *rwBody) Close() error {
	err := b.ReadWriteCloser.Close()
	b.rel.release()
	return err
}

// Proxy forwards the request to ws's worker and copies the response back,
// streams and protocol upgrades (WebSockets) included. A failure to reach the
// worker, or its death mid-request before the response began, goes to
// onError.
func (p *Pool) Proxy(w http.ResponseWriter, r *http.Request, ws string, onError func(http.ResponseWriter, *http.Request, error)) {
	rp := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) {},
		Transport:     p.Transport(ws),
		FlushInterval: -1,
		ErrorHandler:  onError,
		ErrorLog:      slog.NewLogLogger(p.opts.Logger.Handler(), slog.LevelDebug),
	}
	rp.ServeHTTP(w, r)
}

// IsExited reports whether err says a worker died.
func IsExited(err error) bool { return errors.Is(err, ErrExited) }
