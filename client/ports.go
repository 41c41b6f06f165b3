package client

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Port is a TCP port listening in a workspace's sandbox
// (GET /v1/workspaces/{ws}/ports).
type Port struct {
	Port int    `json:"port"`
	Addr string `json:"addr"` // the address it listens on: 127.0.0.1, 0.0.0.0, ::, ...
	// PID is the listening process's pid inside the sandbox and Command its
	// name; Execution the execution it belongs to ("" when none).
	PID       int    `json:"pid,omitempty"`
	Command   string `json:"command,omitempty"`
	Execution string `json:"execution,omitempty"`
	// Preview is the port's preview path (…/ports/{port}/), for a token's
	// holder.
	Preview string `json:"preview"`
}

// PortList answers GET /v1/workspaces/{ws}/ports.
type PortList struct {
	Ports []Port `json:"ports"`
}

// PortLinkRequest asks for an expiring preview link to a port
// (POST /v1/workspaces/{ws}/port-links).
type PortLinkRequest struct {
	Port int `json:"port"`
	// ExpiresIn is the link's life in seconds (default 3600, at most 7 days).
	ExpiresIn int64 `json:"expires_in,omitempty"`
}

// PortLink is an expiring preview link: anyone holding URL reaches the
// port's service until Expires or until it is revoked (RevokePortLink, by
// ID). Listed (PortLinks), it has no Path nor URL.
type PortLink struct {
	ID        string     `json:"id"`
	Workspace string     `json:"workspace"`
	Port      int        `json:"port"`
	Path      string     `json:"path,omitempty"` // the link's path and query, for another host name
	URL       string     `json:"url,omitempty"`
	Created   time.Time  `json:"created"`
	Expires   time.Time  `json:"expires"`
	Revoked   *time.Time `json:"revoked,omitempty"`
}

// PortLinkList answers GET /v1/workspaces/{ws}/port-links.
type PortLinkList struct {
	Links []PortLink `json:"links"`
}

// Ports lists the TCP ports listening in the workspace's sandbox.
func (c *Client) Ports(ctx context.Context, ws string) (PortList, error) {
	var out PortList
	err := c.call(ctx, "GET", wsPath(ws, "/ports"), nil, nil, &out)
	return out, err
}

// SharePort makes an expiring preview link to a port of the workspace's
// sandbox.
func (c *Client) SharePort(ctx context.Context, ws string, req PortLinkRequest) (PortLink, error) {
	var out PortLink
	err := c.call(ctx, "POST", wsPath(ws, "/port-links"), nil, req, &out)
	return out, err
}

// PortLinks lists the workspace's unexpired port links (revoked ones
// included, with Revoked set), never their URLs.
func (c *Client) PortLinks(ctx context.Context, ws string) (PortLinkList, error) {
	var out PortLinkList
	err := c.call(ctx, "GET", wsPath(ws, "/port-links"), nil, nil, &out)
	return out, err
}

// RevokePortLink revokes the workspace's port link id: it is refused (410
// gone) from then on.
func (c *Client) RevokePortLink(ctx context.Context, ws, id string) error {
	return c.call(ctx, "DELETE", wsPath(ws, "/port-links/"+url.PathEscape(id)), nil, nil, nil)
}

// PortForwardProtocol is the Upgrade token of GET
// /v1/workspaces/{ws}/port-forward/{port}: after the 101 answer the
// connection carries a TCP connection to the port, both ways.
const PortForwardProtocol = "desk-port-forward"

// DialPort opens a TCP connection to port in the workspace's sandbox,
// through the server (GET …/port-forward/{port}, upgraded): what `desk
// port-forward` does for each local connection. ctx bounds the handshake.
func (c *Client) DialPort(ctx context.Context, ws string, port int) (net.Conn, error) {
	host := c.base.Host
	if c.base.Port() == "" {
		if c.base.Scheme == "https" {
			host += ":443"
		} else {
			host += ":80"
		}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, fmt.Errorf("dial port %d: %w", port, err)
	}
	if c.base.Scheme == "https" {
		tc := tls.Client(conn, &tls.Config{ServerName: c.base.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("dial port %d: %w", port, err)
		}
		conn = tc
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	u := *c.base
	u.RawPath = c.base.Path + wsPath(ws, "/port-forward/"+strconv.Itoa(port))
	u.Path, err = url.PathUnescape(u.RawPath)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("dial port %d: %w", port, err)
	}
	req, err := http.NewRequest("GET", u.String(), nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("dial port %d: %w", port, err)
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", PortForwardProtocol)
	req.Header.Set("User-Agent", c.ua)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("dial port %d: %w", port, err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("dial port %d: %w", port, err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer conn.Close()
		defer resp.Body.Close()
		return nil, fmt.Errorf("dial port %d: %w", port, decodeError(resp))
	}
	if !stop() {
		conn.Close()
		return nil, fmt.Errorf("dial port %d: %w", port, ctx.Err())
	}
	conn.SetDeadline(time.Time{})
	return &bufConn{Conn: conn, r: br}, nil
}

// bufConn is a connection whose first bytes were read into r.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// CloseWrite half-closes the connection when the underlying one can.
func (b *bufConn) CloseWrite() error {
	if h, ok := b.Conn.(interface{ CloseWrite() error }); ok {
		return h.CloseWrite()
	}
	return nil
}
