package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/policy"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/workspace"
)

// Interactive shells: GET /v1/workspaces/{ws}/shell?rows=&cols=&term=,
// upgraded to a WebSocket, is bash on a terminal in the workspace's sandbox
// (docs/api.md, "Interactive shell"). Binary messages carry terminal bytes
// both ways; text messages carry JSON control messages: from the client
// {"type":"resize","rows":R,"cols":C} and {"type":"eof"}; from the server
// {"type":"exit","code":N} (then a normal close) and {"type":"error",
// "message":M}. The session holds a lease on the workspace; closing the
// WebSocket (or losing the connection) hangs the shell up, which kills what
// it left running.

// Defaults of ShellConfig and of a shell request's parameters.
const (
	DefaultMaxShellMessageBytes = 64 << 10         // ShellConfig.MaxMessageBytes
	DefaultMaxShells            = 64               // ShellConfig.MaxShells
	DefaultShellPingInterval    = 30 * time.Second // ShellConfig.PingInterval
	DefaultShellWriteTimeout    = time.Minute      // ShellConfig.WriteTimeout
	DefaultShellRows            = 24               // rows=
	DefaultShellCols            = 80               // cols=
	DefaultShellTerm            = "xterm-256color" // term=
)

// MaxShellSize bounds the rows and cols of a shell's window.
const MaxShellSize = 65535

// CodeNotImplemented is the error code of a route this server cannot serve
// (501): the shell route without a sandbox backend.
const CodeNotImplemented = "not_implemented"

// ShellIDHeader is the response header of the WebSocket handshake that
// names the shell session: the actor of its changes in the change journal.
const ShellIDHeader = "X-Desk-Shell-Id"

// shellBackend is the backend id a token's backend list must allow for
// shells (the sandbox backend's).
const shellBackend = "sandbox"

// ShellConfig configures the interactive shell route. The zero value
// serves no shells (501 not_implemented).
type ShellConfig struct {
	// Opener opens the shells: the sandbox backend, adapted by the server's
	// wiring (cmd/desk). Nil: the route answers 501 not_implemented.
	Opener ShellOpener
	// MaxMessageBytes bounds a WebSocket message from the client (input
	// or a control message); a larger one closes the connection (1009).
	// Default 64 KiB.
	MaxMessageBytes int64
	// MaxShells bounds the shells open at once on the server; past it a
	// request is answered 503 unavailable before the upgrade. Default
	// DefaultMaxShells (64).
	MaxShells int
	// PingInterval is how often the server pings the client; a client that
	// does not answer within the interval is gone, and its shell is hung
	// up (a connection that died without closing would otherwise keep it
	// until TCP gives up). Default DefaultShellPingInterval (30s);
	// negative: no pings.
	PingInterval time.Duration
	// WriteTimeout bounds the wait for a client to take the shell's
	// output (a client that stops reading blocks the shell behind it);
	// past it the shell is hung up. Default DefaultShellWriteTimeout (1m).
	WriteTimeout time.Duration
}

// withDefaults fills in the zero fields.
func (c ShellConfig) withDefaults() ShellConfig {
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = DefaultMaxShellMessageBytes
	}
	if c.MaxShells <= 0 {
		c.MaxShells = DefaultMaxShells
	}
	if c.PingInterval == 0 {
		c.PingInterval = DefaultShellPingInterval
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultShellWriteTimeout
	}
	return c
}

// ShellOpener opens an interactive shell in a workspace.
type ShellOpener interface {
	// OpenShell starts the shell; ctx bounds the start only. Errors that
	// mean "not now" (too many sandboxes, shutting down) should wrap
	// ErrShellUnavailable.
	OpenShell(ctx context.Context, ws *workspace.Workspace, o ShellOptions) (Terminal, error)
}

// ShellOptions are what a client asks of a shell.
type ShellOptions struct {
	Rows, Cols int    // initial window size
	Term       string // the TERM variable
}

// Terminal is an open shell session.
type Terminal interface {
	// Read reads the terminal's output: io.EOF once the shell has ended and
	// its output is read; another error when it ended abnormally.
	io.Reader
	// Write types on the terminal.
	io.Writer
	// ID names the session (the actor of its changes).
	ID() string
	// Resize sets the window size.
	Resize(rows, cols int) error
	// CloseWrite ends the input (as ^D typed at the end).
	CloseWrite() error
	// Wait returns the shell's exit status once it has ended.
	Wait(ctx context.Context) (int, error)
	// Close hangs the shell up if it runs, and releases it.
	Close() error
}

// tokenID names p's token for its share: "" for the admin, whom no token
// share bounds.
func tokenID(p auth.Principal) string {
	if p.Admin || p.Token == nil {
		return ""
	}
	return p.Token.ID
}

// ErrShellUnavailable is wrapped by an opener's errors that mean the shell
// cannot start now (503 unavailable).
var ErrShellUnavailable = errors.New("no shell can be started now")

var shellParams = []param{
	{"rows", "integer", "window rows (default 24, at most 65535)"},
	{"cols", "integer", "window columns (default 80, at most 65535)"},
	{"term", "string", "the TERM variable (default xterm-256color; letters, digits and ._+-)"},
}

// shellControl is a JSON control message (a text WebSocket message).
type shellControl struct {
	Type    string `json:"type"`
	Rows    int    `json:"rows,omitempty"`
	Cols    int    `json:"cols,omitempty"`
	Code    *int   `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// shellOptions reads the query of a shell request.
func shellOptions(r *http.Request) (ShellOptions, error) {
	o := ShellOptions{Rows: DefaultShellRows, Cols: DefaultShellCols, Term: DefaultShellTerm}
	q := r.URL.Query()
	for _, p := range []struct {
		name string
		v    *int
	}{{"rows", &o.Rows}, {"cols", &o.Cols}} {
		s := q.Get(p.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxShellSize {
			return o, errorf(http.StatusBadRequest, CodeInvalid, "%s=%q: want an integer from 1 to %d", p.name, s, MaxShellSize)
		}
		*p.v = n
	}
	if t := q.Get("term"); t != "" {
		if len(t) > 64 || strings.TrimLeft(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") != "" {
			return o, errorf(http.StatusBadRequest, CodeInvalid, "term=%q: want 1 to 64 letters, digits and ._+-", t)
		}
		o.Term = t
	}
	return o, nil
}

func (s *Server) handleShell(w http.ResponseWriter, r *http.Request, c *call) error {
	cfg := s.opts.Shell.withDefaults()
	if err := c.p.AllowBackend(shellBackend); err != nil {
		return err
	}
	if cfg.Opener == nil {
		return errorf(http.StatusNotImplemented, CodeNotImplemented,
			"interactive shells need the sandbox backend, which this server does not have (desk serve registers it when the host can run sandboxes; see its log)")
	}
	o, err := shellOptions(r)
	if err != nil {
		return err
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return errorf(http.StatusUpgradeRequired, "upgrade_required", "this route is a WebSocket: send Connection: Upgrade and Upgrade: websocket")
	}
	if sh := s.opts.Fair; sh != nil {
		release, err := sh.Acquire(r.Context(), c.ws, tokenID(c.p), fair.Shell)
		if err != nil {
			return err
		}
		defer release()
	}
	if n := s.shells.Add(1); n > int64(cfg.MaxShells) {
		s.shells.Add(-1)
		return errorf(http.StatusServiceUnavailable, CodeUnavailable, "%d shells are open on this server, the most it serves (ShellConfig.MaxShells); close one or try later", cfg.MaxShells)
	}
	defer s.shells.Add(-1)
	ctx, cancel := s.longCtx(r)
	defer cancel()
	if !c.p.Admin && c.p.Token != nil && c.p.Token.Egress != nil {
		// The token's egress policy narrows the shell's network too.
		ctx = egress.WithLayer(ctx, egress.Layer{Source: egress.SourceToken, Policy: *c.p.Token.Egress})
	}
	if set, _ := policy.SetFrom(ctx); set.HasPathRules() || set.HasCommandRules() {
		return errorf(http.StatusForbidden, CodePolicyDenied, "an interactive shell cannot be held to the workspace's or the token's path and command rules (nothing parses what is typed); run commands as executions (desk exec)")
	}
	term, err := cfg.Opener.OpenShell(ctx, c.lease.Workspace(), o)
	if err != nil {
		if errors.Is(err, ErrShellUnavailable) {
			return errorf(http.StatusServiceUnavailable, CodeUnavailable, "%v", err)
		}
		return err
	}
	defer term.Close()
	w.Header().Set(ShellIDHeader, term.ID())
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return fmt.Errorf("accept websocket: %w", err) // Accept answered the client
	}
	defer conn.CloseNow()
	conn.SetReadLimit(cfg.MaxMessageBytes)
	s.relayShell(ctx, conn, term, cfg)
	return nil
}

// relayShell copies between the WebSocket and the terminal until the shell
// ends (exit message, normal close) or the client goes (hang-up). When ctx
// ends (the server shuts down) the WebSocket is closed with 1001, which
// hangs the shell up. Reads use no context of their own: a cancelled one
// would cut the connection without a close message; closing the connection
// ends them. Writes give up after cfg.WriteTimeout, and a client that does
// not answer a ping within cfg.PingInterval is gone: both cut the
// connection, which hangs the shell up.
func (s *Server) relayShell(ctx context.Context, conn *websocket.Conn, term Terminal, cfg ShellConfig) {
	bg := context.Background()
	write := func(typ websocket.MessageType, b []byte) error {
		wctx, cancel := context.WithTimeout(bg, cfg.WriteTimeout)
		defer cancel()
		return conn.Write(wctx, typ, b)
	}
	send := func(m shellControl) error {
		b, _ := json.Marshal(m)
		return write(websocket.MessageText, b)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close(websocket.StatusGoingAway, "the server is shutting down") })
	defer stop()
	if cfg.PingInterval > 0 {
		pctx, cancel := context.WithCancel(bg)
		defer cancel()
		go func() {
			t := time.NewTicker(cfg.PingInterval)
			defer t.Stop()
			for {
				select {
				case <-pctx.Done():
					return
				case <-t.C:
				}
				c, cancelPing := context.WithTimeout(pctx, cfg.PingInterval)
				err := conn.Ping(c)
				cancelPing()
				if err != nil {
					if pctx.Err() == nil {
						conn.CloseNow() // gone: the reader below hangs the shell up
					}
					return
				}
			}
		}()
	}
	var gone atomic.Bool // the client closed or went away
	go func() {
		// The client's side: input and control messages. When it ends
		// (closed, gone, shutting down), the shell is hung up, which ends
		// the output below.
		defer term.Close()
		for {
			typ, data, err := conn.Read(bg)
			if err != nil {
				gone.Store(true)
				return
			}
			if typ == websocket.MessageBinary {
				term.Write(data) // after the shell's end: dropped
				continue
			}
			var m shellControl
			if err := json.Unmarshal(data, &m); err != nil {
				send(shellControl{Type: "error", Message: fmt.Sprintf("bad control message: %v", err)})
				continue
			}
			switch m.Type {
			case "resize":
				if m.Rows < 1 || m.Rows > MaxShellSize || m.Cols < 1 || m.Cols > MaxShellSize {
					send(shellControl{Type: "error", Message: fmt.Sprintf("resize %d×%d: want 1 to %d rows and columns", m.Rows, m.Cols, MaxShellSize)})
					continue
				}
				term.Resize(m.Rows, m.Cols)
			case "eof":
				term.CloseWrite()
			default:
				send(shellControl{Type: "error", Message: fmt.Sprintf("unknown control message type %q (want resize or eof)", m.Type)})
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := term.Read(buf)
		if n > 0 {
			if write(websocket.MessageBinary, buf[:n]) != nil {
				return // the client is gone: the reader hangs up
			}
		}
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) {
			code, werr := term.Wait(bg)
			if werr == nil {
				if send(shellControl{Type: "exit", Code: &code}) == nil {
					conn.Close(websocket.StatusNormalClosure, "")
				}
				return
			}
			err = werr
		}
		if ctx.Err() != nil || gone.Load() {
			return // hung up: the client closed or went, or the server closes
		}
		// The sandbox stopped under the shell.
		s.opts.Logger.Warn("shell ended abnormally", "shell", term.ID(), "err", err)
		if send(shellControl{Type: "error", Message: err.Error()}) == nil {
			conn.Close(websocket.StatusInternalError, "the shell ended abnormally")
		}
		return
	}
}
