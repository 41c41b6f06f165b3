package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tunneler is what a network offers the proxy for CONNECT: a
// policy-checked TCP connection (a refusal is a *Denied). Client is one.
type Tunneler interface {
	Tunnel(ctx context.Context, hostport string) (net.Conn, error)
}

// Proxy is an HTTP forward proxy, plain HTTP and CONNECT, over the networks
// of executions: each request names its network by the credential of its
// Proxy-Authorization (Basic, any user name, the credential as password:
// what HTTP_PROXY=http://desk:CREDENTIAL@HOST:PORT makes every common
// client send). A request without a known credential gets 407, so a
// process that outlives its execution has no network. Plain requests go
// through the network's RoundTrip, tunnels through its Tunnel; refusals are
// 403 answers whose body says why. It is an http.Handler.
type Proxy struct {
	lookup func(credential string) http.RoundTripper
	log    *slog.Logger
	rp     *httputil.ReverseProxy
}

// NewProxy makes a Proxy; lookup returns the network of a credential (nil:
// unknown).
func NewProxy(lookup func(credential string) http.RoundTripper, log *slog.Logger) *Proxy {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p := &Proxy{lookup: lookup, log: log}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// The URL is the client's absolute one; hop-by-hop headers
			// (Proxy-Authorization among them) are already gone.
		},
		Transport: roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			return r.Context().Value(netKey{}).(http.RoundTripper).RoundTrip(r)
		}),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			t, _ := targetOf(r)
			msg := fmt.Sprintf("desk egress: %s failed: %v\n", t, err)
			w.Header().Set("X-Desk-Egress", "error")
			http.Error(w, msg, http.StatusBadGateway)
		},
		ErrorLog:   nil,
		BufferPool: bufferPool{},
	}
	return p
}

// copyBuffer is the size of the proxy's copy buffers: large copies make
// fewer system calls per byte.
const copyBuffer = 256 << 10

var buffers = sync.Pool{New: func() any { b := make([]byte, copyBuffer); return &b }}

// bufferPool lends ReverseProxy its copy buffers.
type bufferPool struct{}

func (bufferPool) Get() []byte  { return *buffers.Get().(*[]byte) }
func (bufferPool) Put(b []byte) { buffers.Put(&b) }

type netKey struct{}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Credential returns the password of a request's Proxy-Authorization
// (Basic), or "".
func Credential(r *http.Request) string {
	h := r.Header.Get("Proxy-Authorization")
	scheme, cred, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return ""
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return ""
	}
	_, pass, _ := strings.Cut(string(raw), ":")
	return pass
}

// ServeHTTP serves one proxy request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rt http.RoundTripper
	if c := Credential(r); c != "" {
		rt = p.lookup(c)
	}
	if rt == nil {
		w.Header().Set("Proxy-Authenticate", `Basic realm="desk"`)
		w.Header().Set("X-Desk-Egress", "refused")
		http.Error(w, "desk egress: refused: this proxy serves the programs of running executions only, by the credential in their HTTP_PROXY "+
			"(a process that outlived its execution, or that dropped the credential, has no network)\n", http.StatusProxyAuthRequired)
		return
	}
	if r.Method == http.MethodConnect {
		p.tunnel(w, r, rt)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		http.Error(w, "desk egress: this is a forward proxy: send absolute URLs (http://host/path) or CONNECT\n", http.StatusBadRequest)
		return
	}
	if r.URL.Scheme != "http" {
		http.Error(w, fmt.Sprintf("desk egress: scheme %q: send https through CONNECT, plain http as an absolute URL\n", r.URL.Scheme), http.StatusBadRequest)
		return
	}
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), netKey{}, rt)))
}

// tunnel serves CONNECT.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, rt http.RoundTripper) {
	if c, ok := rt.(*Client); ok {
		if host, port, err := splitHostPort(r.Host, 0); err == nil && c.terminates(host) {
			p.terminate(w, r, c, host, port)
			return
		}
	}
	tn, ok := rt.(Tunneler)
	if !ok {
		http.Error(w, "desk egress: refused: this network offers no tunnels (CONNECT)\n", http.StatusForbidden)
		return
	}
	up, err := tn.Tunnel(r.Context(), r.Host)
	var d *Denied
	switch {
	case errors.As(err, &d):
		w.Header().Set("X-Desk-Egress", "refused")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, d.Error())
		return
	case errors.Is(err, ErrInvalid):
		http.Error(w, "desk egress: "+err.Error()+"\n", http.StatusBadRequest)
		return
	case err != nil:
		w.Header().Set("X-Desk-Egress", "error")
		http.Error(w, fmt.Sprintf("desk egress: CONNECT %s failed: %v\n", r.Host, err), http.StatusBadGateway)
		return
	}
	defer up.Close()
	client, buf, ok := establish(w)
	if !ok {
		return
	}
	defer client.Close()
	splice(client, buf.Reader, up)
}

// establish takes over a CONNECT's connection and answers it "200
// Connection established"; ok is false when it could not (an error
// answered where it still can be).
func establish(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "desk egress: cannot tunnel on this connection\n", http.StatusInternalServerError)
		return nil, nil, false
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		return nil, nil, false
	}
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		client.Close()
		return nil, nil, false
	}
	return client, buf, true
}

// splice copies both ways until both ends are done, passing each end's EOF
// on as a half-close.
func splice(client net.Conn, pending *bufio.Reader, up net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		b := buffers.Get().(*[]byte)
		defer buffers.Put(b)
		io.CopyBuffer(up, io.MultiReader(io.LimitReader(pending, int64(pending.Buffered())), client), *b)
		closeWrite(up)
	}()
	go func() {
		defer wg.Done()
		b := buffers.Get().(*[]byte)
		defer buffers.Put(b)
		io.CopyBuffer(onlyWriter{client}, up, *b)
		closeWrite(client)
	}()
	wg.Wait()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	} else {
		c.Close()
	}
}

// terminate serves a CONNECT to a secret's host: desk answers the TLS
// handshake itself with a certificate of the Client's CA, reads each HTTP
// request inside, and sends it on as https://host:port through the Client
// (policy checked per request, methods and paths included; the secrets put
// in; the upstream's certificate verified by desk).
func (p *Proxy) terminate(w http.ResponseWriter, r *http.Request, c *Client, host string, port int) {
	client, buf, ok := establish(w)
	if !ok {
		return
	}
	defer client.Close()
	tc := tls.Server(&bufferedConn{Conn: client, r: buf.Reader}, &tls.Config{
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return c.ca.leaf(host) },
		NextProtos:     []string{"http/1.1"},
	})
	hostport := net.JoinHostPort(host, strconv.Itoa(port))
	inner := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, in *http.Request) {
			u := *in.URL
			u.Scheme, u.Host = "https", hostport // the tunnel's target, whatever Host says
			in.URL = &u
			p.rp.ServeHTTP(w, in.WithContext(context.WithValue(in.Context(), netKey{}, http.RoundTripper(c))))
		}),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	inner.Serve(newOneConnListener(tc))
}

// bufferedConn reads what the server buffered before the hijack first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) {
	if c.r.Buffered() > 0 {
		return c.r.Read(p)
	}
	return c.Conn.Read(p)
}

// oneConnListener hands out one connection, then waits for it to close.
type oneConnListener struct {
	c    net.Conn
	once sync.Once
	done chan struct{}
	took bool
}

func newOneConnListener(c net.Conn) *oneConnListener {
	l := &oneConnListener{done: make(chan struct{})}
	l.c = &closeNotify{Conn: c, l: l}
	return l
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	if !l.took {
		l.took = true
		return l.c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConnListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *oneConnListener) Addr() net.Addr { return l.c.LocalAddr() }

type closeNotify struct {
	net.Conn
	l *oneConnListener
}

func (c *closeNotify) Close() error {
	err := c.Conn.Close()
	c.l.Close()
	return err
}

// onlyWriter hides a connection's ReadFrom, so that io.CopyBuffer reads
// the upstream through its bandwidth-limited Read with the large buffer.
type onlyWriter struct{ io.Writer }
