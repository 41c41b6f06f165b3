package egress

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxConns    = 256       // concurrent upstream connections per workspace
	DefaultBandwidth   = 256 << 20 // bytes per second per workspace, each direction
	DefaultDialTimeout = 30 * time.Second
	// DefaultMaxIdleConns bounds the idle upstream connections kept for
	// reuse (they count against MaxConns until closed).
	DefaultMaxIdleConns = 32
)

// ErrTooManyConns is the error of a connection past Options.MaxConns.
var ErrTooManyConns = errors.New("egress connection limit reached")

// Resolver resolves host names (net.DefaultResolver is one).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure a Network. Zero fields take the defaults; negative
// limits are an error.
type Options struct {
	// Workspace names the workspace in denials' hints.
	Workspace string
	// Resolver resolves names after the policy allowed them (default
	// net.DefaultResolver).
	Resolver Resolver
	// RootCAs verify upstream HTTPS of in-process clients (nil: the host's
	// roots). Tunnels are not verified by desk: the program does that.
	RootCAs *x509.CertPool
	// MaxConns bounds the workspace's concurrent upstream connections,
	// tunnels and pooled ones together (default 256); past it a request
	// fails with ErrTooManyConns.
	MaxConns int
	// Bandwidth bounds the workspace's traffic in bytes per second, each
	// direction, over all its connections (default 256 MiB/s).
	Bandwidth int64
	// DialTimeout bounds one connection's set-up (default 30s).
	DialTimeout time.Duration
	// InterfaceAddrs lists the host's own interface addresses (default: the
	// host's interfaces), called again when the last list is 30s old.
	InterfaceAddrs func() []netip.Addr
	// Logger receives one line per refusal (never a header or a secret).
	Logger *slog.Logger
}

// Network is one workspace's way out: the policy-checking dialer, a pool of
// upstream connections and the workspace's limits, shared by its
// executions' Clients. It is safe for concurrent use.
type Network struct {
	opts    Options
	ifMu    sync.Mutex
	ifaces  []netip.Addr
	ifAt    time.Time // when ifaces was read
	tr      *http.Transport
	slots   chan struct{}
	in, out *limiter
	denied  atomic.Int64
}

// New makes a Network.
func New(o Options) (*Network, error) {
	if o.MaxConns < 0 || o.Bandwidth < 0 || o.DialTimeout < 0 {
		return nil, fmt.Errorf("check egress options: negative limit: %w", ErrInvalid)
	}
	if o.MaxConns == 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.Bandwidth == 0 {
		o.Bandwidth = DefaultBandwidth
	}
	if o.DialTimeout == 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	n := &Network{opts: o, slots: make(chan struct{}, o.MaxConns), in: newLimiter(o.Bandwidth), out: newLimiter(o.Bandwidth)}
	if o.InterfaceAddrs == nil {
		o.InterfaceAddrs = interfaceAddrs
		n.opts.InterfaceAddrs = interfaceAddrs
	}
	n.hostAddrs()
	n.tr = &http.Transport{
		Proxy:                 nil, // never the server's own proxy settings
		DialContext:           n.dialTransport,
		TLSClientConfig:       &tls.Config{RootCAs: o.RootCAs},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          DefaultMaxIdleConns,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   o.DialTimeout,
		ExpectContinueTimeout: time.Second,
		ReadBufferSize:        64 << 10,
		WriteBufferSize:       64 << 10,
	}
	return n, nil
}

// ifaceRefresh is how long the host's interface addresses are trusted
// before they are read again (an address added later is refused from then).
const ifaceRefresh = 30 * time.Second

// hostAddrs returns the host's interface addresses, read again when older
// than ifaceRefresh.
func (n *Network) hostAddrs() []netip.Addr {
	n.ifMu.Lock()
	defer n.ifMu.Unlock()
	if n.ifAt.IsZero() || time.Since(n.ifAt) > ifaceRefresh {
		n.ifaces, n.ifAt = n.opts.InterfaceAddrs(), time.Now()
	}
	return n.ifaces
}

// Close closes the pooled connections.
func (n *Network) Close() error {
	n.tr.CloseIdleConnections()
	return nil
}

// Denials counts the requests refused so far.
func (n *Network) Denials() int64 { return n.denied.Load() }

// Client returns the network of one execution: its requests must pass every
// layer, in order (the workspace's policy first; then a token's, an
// execution's, each narrowing). No layer: no request passes.
func (n *Network) Client(layers ...Layer) *Client {
	return &Client{n: n, layers: layers}
}

// Client is one execution's network: an http.RoundTripper for in-process
// clients (run.Job.Net) and a Tunnel for the sandbox's proxy, both enforcing
// the same layers. A refused request gets a 403 answer whose body says why
// (see Denied). It is safe for concurrent use.
type Client struct {
	n       *Network
	layers  []Layer
	secrets []Secret
	ca      *CA    // terminates tunnels to the secrets' hosts (nil: none)
	exec    string // the execution (or shell) it serves, for the log
}

// For returns a Client whose refusals are logged with the execution (or
// shell session) id.
func (c *Client) For(id string) *Client {
	out := *c
	out.exec = id
	return &out
}

// Narrow returns a Client whose requests must also pass p.
func (c *Client) Narrow(source string, p Policy) *Client {
	out := *c
	out.layers = append(append([]Layer(nil), c.layers...), Layer{Source: source, Policy: p})
	return &out
}

// Layers returns the client's layers.
func (c *Client) Layers() []Layer { return append([]Layer(nil), c.layers...) }

// Check decides a target: nil, or the *Denied refusal. It does not resolve
// names (a name that resolves to one of the host's addresses is refused
// when connecting).
func (c *Client) Check(t Target) error {
	if _, d := c.check(t); d != nil {
		return d
	}
	return nil
}

// check decides t; pin is the address a pinning rule (Rule.Addr) gives its
// name.
func (c *Client) check(t Target) (pin netip.Addr, d *Denied) {
	exact, pin, d := check(c.layers, t, c.n.opts.Workspace)
	if d == nil {
		if a, ok := isIP(t.Host); ok && !exact {
			if k := ownKind(a, c.n.hostAddrs()); k != "" {
				d = refuseAddr(t, a, k, "")
			}
		}
	}
	if d != nil {
		c.n.denied.Add(1)
		c.n.opts.Logger.Info("egress refused", "workspace", c.n.opts.Workspace, "execution", c.exec, "target", t.String(), "by", d.Source)
	}
	return pin, d
}

type dialKey struct{}

// dialTo is a checked target and the address its name is pinned to.
type dialTo struct {
	t    Target
	pin  netip.Addr
	exec string
}

// targetOf makes the Target of an HTTP request.
func targetOf(req *http.Request) (Target, error) {
	u := req.URL
	def := 0
	switch u.Scheme {
	case "http":
		def = 80
	case "https":
		def = 443
	default:
		return Target{}, fmt.Errorf("send request: scheme %q: only http and https go through desk's egress: %w", u.Scheme, ErrInvalid)
	}
	host, port, err := splitHostPort(u.Host, def)
	if err != nil {
		return Target{}, fmt.Errorf("send request: %w", err)
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return Target{Host: host, Port: port, Method: method, Path: path}, nil
}

// RoundTrip sends req if the layers allow it, else answers 403 (see
// Denied). Bound secrets' placeholders are replaced by their values in the
// request to their hosts (see Secret).
func (c *Client) RoundTrip(req *http.Request) (*http.Response, error) {
	t, err := targetOf(req)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	pin, d := c.check(t)
	if d != nil {
		closeBody(req)
		return d.Response(req), nil
	}
	out := req.Clone(context.WithValue(req.Context(), dialKey{}, dialTo{t, pin, c.exec}))
	c.substitute(out, t.Host)
	resp, err := c.n.tr.RoundTrip(out)
	if errors.As(err, &d) {
		closeBody(req)
		return d.Response(req), nil
	}
	if resp != nil {
		resp.Request = req
	}
	return resp, err
}

// Tunnel opens a TCP connection to hostport ("host:port") if the layers
// allow a tunnel there (the proxy's CONNECT). A refusal is a *Denied.
func (c *Client) Tunnel(ctx context.Context, hostport string) (net.Conn, error) {
	host, port, err := splitHostPort(hostport, 0)
	if err != nil {
		return nil, err
	}
	t := Target{Host: host, Port: port}
	pin, d := c.check(t)
	if d != nil {
		return nil, d
	}
	return c.n.dial(ctx, t, pin, c.exec)
}

// dialTransport is the transport's DialContext: the target came with the
// request's context.
func (n *Network) dialTransport(ctx context.Context, _, addr string) (net.Conn, error) {
	to, ok := ctx.Value(dialKey{}).(dialTo)
	if !ok {
		return nil, fmt.Errorf("dial %s: not a checked request", addr)
	}
	if host, port, err := splitHostPort(addr, 0); err != nil || host != to.t.Host || port != to.t.Port {
		return nil, fmt.Errorf("dial %s: not the checked target %s", addr, to.t)
	}
	return n.dial(ctx, to.t, to.pin, to.exec)
}

// dial connects to a checked target: an address as is (check has vetted
// it), a pinned name to its pin, another name after resolving it, refusing
// it when any of its addresses is one of the host's own (whatever the
// policy: DNS rebinding).
func (n *Network) dial(ctx context.Context, t Target, pin netip.Addr, exec string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, n.opts.DialTimeout)
	defer cancel()
	var addrs []netip.Addr
	if a, ok := isIP(t.Host); ok {
		addrs = []netip.Addr{a}
	} else if pin.IsValid() {
		addrs = []netip.Addr{pin}
	} else {
		as, err := n.opts.Resolver.LookupNetIP(ctx, "ip", t.Host)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", t.Host, err)
		}
		for _, a := range as {
			a = a.Unmap()
			if k := ownKind(a, n.hostAddrs()); k != "" {
				n.denied.Add(1)
				n.opts.Logger.Info("egress refused", "workspace", n.opts.Workspace, "execution", exec, "target", t.String(), "by", "desk", "resolved", a.String())
				return nil, refuseAddr(t, a, k, t.Host)
			}
			addrs = append(addrs, a)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("resolve %s: no address", t.Host)
		}
	}
	if err := n.take(); err != nil {
		return nil, err
	}
	var d net.Dialer
	var errs []error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(a.String(), strconv.Itoa(t.Port)))
		if err == nil {
			return &conn{Conn: c, n: n}, nil
		}
		errs = append(errs, err)
	}
	n.give()
	return nil, fmt.Errorf("connect to %s: %w", t.Host, errors.Join(errs...))
}

// take takes a connection slot, closing idle pooled connections first if
// none is free.
func (n *Network) take() error {
	select {
	case n.slots <- struct{}{}:
		return nil
	default:
	}
	n.tr.CloseIdleConnections()
	select {
	case n.slots <- struct{}{}:
		return nil
	default:
		return fmt.Errorf("connect: the workspace's %d connections are all open: %w", n.opts.MaxConns, ErrTooManyConns)
	}
}

func (n *Network) give() { <-n.slots }

// conn is an upstream connection: bandwidth-limited, holding a slot until
// closed.
type conn struct {
	net.Conn
	n      *Network
	closed atomic.Bool
}

func (c *conn) Read(p []byte) (int, error) {
	if len(p) > chunk {
		p = p[:chunk]
	}
	n, err := c.Conn.Read(p)
	c.n.in.wait(n)
	return n, err
}

func (c *conn) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		k := min(len(p), chunk)
		c.n.out.wait(k)
		m, err := c.Conn.Write(p[:k])
		written += m
		if err != nil {
			return written, err
		}
		p = p[k:]
	}
	return written, nil
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	if c.closed.CompareAndSwap(false, true) {
		c.n.give()
	}
	return err
}

// CloseWrite half-closes a TCP connection (tunnels pass a client's EOF on).
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

func readCloser(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }
