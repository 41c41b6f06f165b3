package api

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/workspace"
)

// Preview URLs and port forwarding (docs/api.md, "Ports"): a service
// listening on a TCP port of a workspace's sandbox is reached through the
// server. ANY /v1/workspaces/{ws}/ports/{port}/{path...} is proxied to it
// as HTTP (WebSocket upgrades included), authorised by a workspace token
// with the exec scope (Authorization: Bearer) or by a port link (?desk_link=
// or the cookie a first request with it sets); GET
// /v1/workspaces/{ws}/port-forward/{port}, upgraded to desk-port-forward,
// carries a raw TCP connection (desk port-forward). The connections to the
// sandbox are the PortDialer's (the sandbox's init dials the port inside).

// PortConfig configures preview URLs and port forwarding. The zero value
// serves none (501 not_implemented).
type PortConfig struct {
	// Dialer reaches the ports: the sandbox backend, adapted by the
	// server's wiring (cmd/desk). Nil: the port routes answer 501.
	Dialer PortDialer
	// LinkKey signs port links (at least 32 bytes; desk serve keeps one in
	// the data directory). Nil: no links (creating one is 501, presenting
	// one 401). A front and its workers need only the front's: the front
	// checks links.
	LinkKey []byte
	// PublicURL is the server's URL as clients reach it, for the links'
	// URLs (default: http(s)://Host of the request that makes the link).
	PublicURL string
	// Links records the links made, so that they can be listed and
	// revoked by id (desk serve: DATA/port-links.json). Nil: links are
	// made and checked all the same, but cannot be listed or revoked (501).
	Links *PortLinks
}

// PortDialer reaches the TCP ports of a workspace's sandbox.
type PortDialer interface {
	// DialPort connects to port in the workspace's running sandbox. An
	// error meaning nothing is there to reach (no sandbox running, nothing
	// listening) wraps ErrPortUnavailable.
	DialPort(ctx context.Context, ws *workspace.Workspace, port int) (net.Conn, error)
	// Ports lists the ports listening in the workspace's running sandbox
	// (none when it has no sandbox running).
	Ports(ctx context.Context, ws *workspace.Workspace) ([]client.Port, error)
}

// ErrPortUnavailable is wrapped by a PortDialer's errors meaning nothing can
// be reached on the port (502 bad_gateway): no sandbox runs, nothing
// listens.
var ErrPortUnavailable = errors.New("nothing to reach on this port")

// CodeBadGateway is the error code of a port that has nothing to reach
// (502).
const CodeBadGateway = "bad_gateway"

// Port links.
const (
	// DefaultPortLinkTTL is a link's life when the request names none, and
	// MaxPortLinkTTL the longest it may ask for.
	DefaultPortLinkTTL = time.Hour
	MaxPortLinkTTL     = 7 * 24 * time.Hour
	// PortLinkParam is the query parameter carrying a link, and
	// portLinkCookie the cookie's name prefix (followed by the port).
	PortLinkParam  = "desk_link"
	portLinkCookie = "desk_link_"
	// MinPortLinkKey is the shortest LinkKey accepted.
	MinPortLinkKey = 32
)

// ports returns the dialer, or 501.
func (s *Server) ports() (PortDialer, error) {
	if s.opts.Ports.Dialer == nil {
		return nil, errorf(http.StatusNotImplemented, CodeNotImplemented, "this server has no sandbox backend: no ports to reach")
	}
	return s.opts.Ports.Dialer, nil
}

// pathPort is the {port} path value.
func pathPort(r *http.Request) (int, error) {
	p, err := strconv.Atoi(r.PathValue("port"))
	if err != nil || p < 1 || p > 65535 {
		return 0, errorf(http.StatusBadRequest, CodeInvalid, "port %q: want a TCP port, 1 to 65535", r.PathValue("port"))
	}
	return p, nil
}

// previewPath is the path of a port's preview, with its trailing slash.
func previewPath(ws string, port int) string {
	return "/v1/workspaces/" + url.PathEscape(ws) + "/ports/" + strconv.Itoa(port) + "/"
}

// portLink is what a link says: a workspace, a port, an expiry, and its id
// (empty in links made before links had one).
type portLink struct {
	id      string // 16 hex digits
	ws      string
	port    int
	expires time.Time
}

// portLinkV2 starts the payload of a link with an id; a payload without
// one starts with its expiry's high byte, 0 until the year 2^56 s.
const portLinkV2 = 0x02

// signPortLink encodes l and signs it: base64url(payload) "." base64url(MAC),
// the payload being, for a link with an id, the byte 0x02 and the id (8
// bytes), then the expiry (8 bytes, Unix seconds), the port (2 bytes) and
// the workspace name.
func signPortLink(key []byte, l portLink) string {
	var payload []byte
	if l.id != "" {
		id, _ := hex.DecodeString(l.id)
		payload = append([]byte{portLinkV2}, id...)
	}
	payload = binary.BigEndian.AppendUint64(payload, uint64(l.expires.Unix()))
	payload = binary.BigEndian.AppendUint16(payload, uint16(l.port))
	payload = append(payload, l.ws...)
	m := hmac.New(sha256.New, key)
	m.Write([]byte("desk port link\x00"))
	m.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// errLinkExpired: a port link past its expiry (410 gone).
var errLinkExpired = errors.New("the port link has expired")

// checkPortLink verifies tok for workspace ws and port at now.
func checkPortLink(key []byte, tok, ws string, port int, now time.Time) (portLink, error) {
	bad := fmt.Errorf("%w: not a valid port link", auth.ErrUnauthorized)
	p64, m64, ok := strings.Cut(tok, ".")
	if !ok || len(tok) > 1024 {
		return portLink{}, bad
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p64)
	mac, err2 := base64.RawURLEncoding.DecodeString(m64)
	if err1 != nil || err2 != nil || len(payload) < 10 {
		return portLink{}, bad
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("desk port link\x00"))
	m.Write(payload)
	if !hmac.Equal(mac, m.Sum(nil)) {
		return portLink{}, bad
	}
	var l portLink
	if payload[0] == portLinkV2 {
		if len(payload) < 19 {
			return portLink{}, bad
		}
		l.id = hex.EncodeToString(payload[1:9])
		payload = payload[9:]
	}
	l.expires = time.Unix(int64(binary.BigEndian.Uint64(payload)), 0)
	l.port = int(binary.BigEndian.Uint16(payload[8:]))
	l.ws = string(payload[10:])
	if l.ws != ws || l.port != port {
		return portLink{}, fmt.Errorf("%w: this port link is for another workspace or port", auth.ErrForbidden)
	}
	if !now.Before(l.expires) {
		return portLink{}, errorf(http.StatusGone, CodeGone, "%v (at %s)", errLinkExpired, l.expires.UTC().Format(time.RFC3339))
	}
	return l, nil
}

// portPrincipal authenticates a request to a port's preview: a bearer
// token (it must allow exec on ws), else a port link from the query or the
// port's cookie, which stands for a principal allowed exec on ws alone.
// With a link from the query, the cookie is set on w, so that the pages
// the service serves load their resources with it.
func (s *Server) portPrincipal(w http.ResponseWriter, r *http.Request, ws string) (auth.Principal, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		tok, _ := strings.CutPrefix(h, "Bearer ")
		p, err := s.auth.Authenticate(strings.TrimSpace(tok))
		if err != nil {
			return p, err
		}
		return p, p.Allow(ws, auth.ScopeExec)
	}
	port, err := pathPort(r)
	if err != nil {
		return auth.Principal{}, err
	}
	tok, fromQuery := r.URL.Query().Get(PortLinkParam), true
	if tok == "" {
		fromQuery = false
		if c, err := r.Cookie(portLinkCookie + strconv.Itoa(port)); err == nil {
			tok = c.Value
		}
	}
	if tok == "" {
		return auth.Principal{}, fmt.Errorf("%w: a workspace token (Authorization: Bearer) or a port link (?%s=) is needed", auth.ErrUnauthorized, PortLinkParam)
	}
	if len(s.opts.Ports.LinkKey) == 0 {
		return auth.Principal{}, fmt.Errorf("%w: this server makes no port links", auth.ErrUnauthorized)
	}
	l, err := checkPortLink(s.opts.Ports.LinkKey, tok, ws, port, time.Now())
	if err != nil {
		return auth.Principal{}, err
	}
	if pl := s.opts.Ports.Links; pl != nil && l.id != "" && pl.revoked(l.id) {
		return auth.Principal{}, errorf(http.StatusGone, CodeGone, "the port link %s was revoked", l.id)
	}
	if fromQuery {
		http.SetCookie(w, &http.Cookie{
			Name: portLinkCookie + strconv.Itoa(port), Value: tok, Path: previewPath(ws, port),
			Expires: l.expires, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil,
		})
	}
	id := l.id
	if id == "" {
		sum := sha256.Sum256([]byte(tok))
		id = hex.EncodeToString(sum[:6])
	}
	return auth.Principal{Token: &auth.Token{ID: "port-link-" + id, Workspace: ws, Scopes: []auth.Scope{auth.ScopeExec}}}, nil
}

// handleCreatePortLink signs a link (the front's: it needs no worker).
func (s *Server) handleCreatePortLink(w http.ResponseWriter, r *http.Request, c *call) error {
	if len(s.opts.Ports.LinkKey) == 0 {
		return errorf(http.StatusNotImplemented, CodeNotImplemented, "this server makes no port links (api.PortConfig.LinkKey)")
	}
	var req client.PortLinkRequest
	if err := s.readJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Port < 1 || req.Port > 65535 {
		return errorf(http.StatusBadRequest, CodeInvalid, "port %d: want a TCP port, 1 to 65535", req.Port)
	}
	if req.ExpiresIn < 0 || req.ExpiresIn > int64(MaxPortLinkTTL/time.Second) {
		return errorf(http.StatusBadRequest, CodeInvalid, "expires_in %d: want seconds from 1 to %d (7 days); 0 or absent: %d", req.ExpiresIn, int64(MaxPortLinkTTL/time.Second), int64(DefaultPortLinkTTL/time.Second))
	}
	ttl := DefaultPortLinkTTL
	if req.ExpiresIn > 0 {
		ttl = time.Duration(req.ExpiresIn) * time.Second
	}
	var idb [8]byte
	rand.Read(idb[:])
	now := time.Now()
	l := portLink{id: hex.EncodeToString(idb[:]), ws: c.ws, port: req.Port, expires: now.Add(ttl).Truncate(time.Second)}
	path := previewPath(c.ws, req.Port) + "?" + PortLinkParam + "=" + signPortLink(s.opts.Ports.LinkKey, l)
	base := strings.TrimRight(s.opts.Ports.PublicURL, "/")
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	out := client.PortLink{ID: l.id, Workspace: c.ws, Port: req.Port, Path: path, URL: base + path, Created: now.UTC().Truncate(time.Second), Expires: l.expires.UTC()}
	if pl := s.opts.Ports.Links; pl != nil {
		if err := pl.add(out); err != nil {
			return err
		}
	}
	return writeJSON(w, http.StatusCreated, out)
}

// portLinks returns the record of links, or 501.
func (s *Server) portLinks() (*PortLinks, error) {
	if s.opts.Ports.Links == nil {
		return nil, errorf(http.StatusNotImplemented, CodeNotImplemented, "this server keeps no record of its port links (api.PortConfig.Links): they cannot be listed or revoked")
	}
	return s.opts.Ports.Links, nil
}

// handleListPortLinks lists the workspace's unexpired links (never their
// URLs: a link is its own capability).
func (s *Server) handleListPortLinks(w http.ResponseWriter, r *http.Request, c *call) error {
	pl, err := s.portLinks()
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, client.PortLinkList{Links: pl.list(c.ws)})
}

// handleRevokePortLink revokes one link: from now on it is refused (410).
func (s *Server) handleRevokePortLink(w http.ResponseWriter, r *http.Request, c *call) error {
	pl, err := s.portLinks()
	if err != nil {
		return err
	}
	if _, err := pl.revoke(c.ws, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleListPorts lists the ports listening in the workspace's sandbox.
func (s *Server) handleListPorts(w http.ResponseWriter, r *http.Request, c *call) error {
	d, err := s.ports()
	if err != nil {
		return err
	}
	ps, err := d.Ports(r.Context(), c.lease.Workspace())
	if err != nil {
		return err
	}
	for i := range ps {
		ps[i].Preview = previewPath(c.ws, ps[i].Port)
	}
	if ps == nil {
		ps = []client.Port{}
	}
	return writeJSON(w, http.StatusOK, client.PortList{Ports: ps})
}

// handlePortRoot sends …/ports/{port} to …/ports/{port}/ (relative links of
// a page resolve against the directory).
func (s *Server) handlePortRoot(w http.ResponseWriter, r *http.Request, c *call) error {
	port, err := pathPort(r)
	if err != nil {
		return err
	}
	to := previewPath(c.ws, port)
	if r.URL.RawQuery != "" {
		to += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, to, http.StatusMovedPermanently)
	return nil
}

// portCtxKey carries a proxied request's workspace and port to the shared
// transport's dial.
type portCtxKey struct{}

type portTarget struct {
	ws   *workspace.Workspace
	port int
}

// portTransport is the server's transport to the sandboxes' ports: its
// connections are pooled per workspace and port (the URL's host names
// both), each dialled by the PortDialer.
func (s *Server) portTransport() *http.Transport {
	s.portOnce.Do(func() {
		s.portRT = &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				t, ok := ctx.Value(portCtxKey{}).(portTarget)
				if !ok {
					return nil, errors.New("dial port: no target")
				}
				return s.opts.Ports.Dialer.DialPort(ctx, t.ws, t.port)
			},
			MaxIdleConnsPerHost:   8,
			IdleConnTimeout:       30 * time.Second,
			ResponseHeaderTimeout: 0, // a service may stream or hold a long poll
			DisableCompression:    true,
			ForceAttemptHTTP2:     false,
		}
	})
	return s.portRT
}

// poolHost names a workspace's port for the transport's pool (never dialled:
// the dial goes to the PortDialer).
func poolHost(ws string, port int) string {
	sum := sha256.Sum256([]byte(ws))
	return hex.EncodeToString(sum[:10]) + ".port-" + strconv.Itoa(port) + ".invalid"
}

// handlePortProxy proxies a request to the port's service: the path after
// …/ports/{port}, the query without the link, the headers without the
// credentials (Authorization, the port's cookie), the Host header
// localhost:PORT (what a development server expects), X-Forwarded-For,
// -Host, -Proto and X-Forwarded-Prefix (…/ports/{port}) set. WebSocket (and
// any other) upgrades pass through.
func (s *Server) handlePortProxy(w http.ResponseWriter, r *http.Request, c *call) error {
	if _, err := s.ports(); err != nil {
		return err
	}
	port, err := pathPort(r)
	if err != nil {
		return err
	}
	ws := c.lease.Workspace()
	rest := r.PathValue("path")
	prefix := strings.TrimSuffix(previewPath(c.ws, port), "/")
	var perr error
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetXForwarded()
			out := pr.Out
			out.URL.Scheme, out.URL.Host = "http", poolHost(c.ws, port)
			out.URL.Path, out.URL.RawPath = "/"+rest, ""
			if esc := (&url.URL{Path: out.URL.Path}).EscapedPath(); esc != out.URL.Path {
				out.URL.RawPath = esc
			}
			q := pr.In.URL.Query()
			if q.Has(PortLinkParam) {
				q.Del(PortLinkParam)
				out.URL.RawQuery = q.Encode()
			} else {
				out.URL.RawQuery = pr.In.URL.RawQuery
			}
			out.Host = "localhost:" + strconv.Itoa(port)
			out.Header.Del("Authorization")
			out.Header.Del(headerPrincipal)
			dropCookie(out.Header, portLinkCookie+strconv.Itoa(port))
			out.Header.Set("X-Forwarded-Prefix", prefix)
		},
		Transport: s.portTransport(),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			perr = err
		},
	}
	rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), portCtxKey{}, portTarget{ws: ws, port: port})))
	if perr != nil {
		if errors.Is(perr, ErrPortUnavailable) {
			return errorf(http.StatusBadGateway, CodeBadGateway, "port %d: %v", port, perr)
		}
		if errors.Is(perr, context.Canceled) {
			return perr
		}
		return errorf(http.StatusBadGateway, CodeBadGateway, "port %d: %v", port, perr)
	}
	return nil
}

// dropCookie removes the cookie name from h's Cookie headers.
func dropCookie(h http.Header, name string) {
	vals := h.Values("Cookie")
	if len(vals) == 0 {
		return
	}
	var keep []string
	for _, v := range vals {
		for _, part := range strings.Split(v, ";") {
			part = strings.TrimSpace(part)
			if k, _, _ := strings.Cut(part, "="); part != "" && k != name {
				keep = append(keep, part)
			}
		}
	}
	h.Del("Cookie")
	if len(keep) > 0 {
		h.Set("Cookie", strings.Join(keep, "; "))
	}
}

// handlePortForward carries a raw TCP connection to the port over the
// upgraded request (client.PortForwardProtocol).
func (s *Server) handlePortForward(w http.ResponseWriter, r *http.Request, c *call) error {
	d, err := s.ports()
	if err != nil {
		return err
	}
	port, err := pathPort(r)
	if err != nil {
		return err
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), client.PortForwardProtocol) {
		return errorf(http.StatusBadRequest, CodeInvalid, "this route needs Connection: Upgrade and Upgrade: %s", client.PortForwardProtocol)
	}
	t, err := d.DialPort(r.Context(), c.lease.Workspace(), port)
	if err != nil {
		if errors.Is(err, ErrPortUnavailable) {
			return errorf(http.StatusBadGateway, CodeBadGateway, "port %d: %v", port, err)
		}
		return err
	}
	defer t.Close()
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return fmt.Errorf("port forward: %w", err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Time{})
	if _, err := io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: "+client.PortForwardProtocol+"\r\n\r\n"); err != nil {
		return nil
	}
	splice(conn, brw.Reader, t)
	return nil
}

// splice copies the client (reading through br, which may hold bytes
// already) to t and t to the client, passing each end on as a half-close
// where the connection has one, until both directions have ended or one
// failed.
func splice(client net.Conn, br *bufio.Reader, t net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	closeWrite := func(c net.Conn) {
		if h, ok := c.(interface{ CloseWrite() error }); ok {
			h.CloseWrite()
		} else {
			c.Close()
		}
	}
	go func() {
		defer wg.Done()
		if _, err := io.Copy(t, br); err != nil {
			t.Close()
			client.Close()
			return
		}
		closeWrite(t)
	}()
	go func() {
		defer wg.Done()
		if _, err := io.Copy(client, t); err != nil {
			t.Close()
			client.Close()
			return
		}
		closeWrite(client)
	}()
	wg.Wait()
}
