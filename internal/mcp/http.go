package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/egress"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/jsonlimit"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/tools"
	"github.com/desk-dev/desk/internal/workspace"
)

// Defaults for HandlerOptions. A zero field takes its default.
const (
	DefaultSessionTimeout = 30 * time.Minute // an idle MCP session is closed
	DefaultMaxBodyBytes   = 8 << 20          // one JSON-RPC message (write's 2 MiB content, escaped)
	DefaultMaxServers     = 1024             // cached servers (one per token and workspace)
)

// HandlerOptions configure the streamable HTTP handler.
type HandlerOptions struct {
	// Server configures each session's server (Authorize is the handler's).
	Server Options
	// Tools configure the tool sets.
	Tools tools.Options
	// SessionTimeout closes sessions idle this long. Default 30 minutes.
	SessionTimeout time.Duration
	// MaxBodyBytes bounds a request body (413 too_large). Default 8 MiB.
	MaxBodyBytes int64
	// MaxJSONDepth bounds the nesting of a request body's JSON (400
	// bad_json). Default 64 (jsonlimit.DefaultMaxDepth).
	MaxJSONDepth int
	// MaxServers bounds the servers kept (one per token and workspace; a
	// server is cheap to rebuild). Default 1024.
	MaxServers int
	// Logger receives the SDK's and the handler's errors. Default: none.
	Logger *slog.Logger
	// Workspace, if set, makes the Workspace a session of principal p on
	// workspace ws serves, in place of a HostWorkspace over the handler's
	// host: desk serve's front gives a RemoteWorkspace that reaches the
	// workspace's worker process.
	Workspace func(p auth.Principal, ws string) Workspace
	// Publisher, if set, gives the publish tool of workspace ws its share
	// store (HostWorkspace sessions; a RemoteWorkspace's worker has its own).
	Publisher func(ws string) tools.Publisher
	// Context, if set, derives the context of a HostWorkspace session's
	// calls and reads for principal p on workspace ws: the path and
	// command rules in force (package policy; the API server's).
	Context func(ctx context.Context, p auth.Principal, ws string) (context.Context, error)
	// Audit, if set, receives one record per request of a session (not
	// notifications): its method, tool and input, the client's labels
	// (_meta desk/agent, desk/session, desk/model, desk/turn, or the X-Desk-*
	// headers), the outcome and the changes a tool run in this process made.
	Audit audit.Journal
	// ExecEnded, with Audit, records an execution a tool call of a
	// HostWorkspace session started (the exec tool), once both the call
	// is recorded and the execution has ended — a detached one long after
	// the call: base is the call's record (its workspace, actor and
	// labels), den the call's path refusals counted since its record (the
	// execution's, as the Gate counts them in the call's Denials). nil:
	// only those refusals are recorded then (DenialRecords).
	ExecEnded func(base audit.Record, e *run.Execution, den *policy.Denials)
}

// Handler serves MCP over streamable HTTP at /mcp/{ws} for the workspaces
// of a host, with a workspace token (or the admin token) as bearer token.
// Every request is authenticated (a revoked token stops at once) and every
// tool call is checked against the token of the request that carries it:
// its workspace, its scopes (read for read/ls/find/grep, write for
// write/delete, read and write for edit, exec for exec) and its backends.
// A session belongs to the token and workspace that opened it.
type Handler struct {
	h    *host.Host
	a    *auth.Store
	opts HandlerOptions
	sh   *sdk.StreamableHTTPHandler

	mu      sync.Mutex
	servers map[string]*sdk.Server        // by principal id and workspace
	calls   map[string]map[*call]struct{} // running tool calls by session id
}

// call is a running tool call, cancelled when its session is deleted.
type call struct {
	user   string
	cancel context.CancelFunc
}

// NewHandler returns the MCP handler over h, authenticating with a.
func NewHandler(h *host.Host, a *auth.Store, opts HandlerOptions) (*Handler, error) {
	if h == nil || a == nil {
		return nil, errors.New("new mcp handler: nil host or token store")
	}
	if opts.SessionTimeout < 0 || opts.MaxBodyBytes < 0 || opts.MaxServers < 0 || opts.MaxJSONDepth < 0 {
		return nil, errors.New("new mcp handler: negative option")
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxServers == 0 {
		opts.MaxServers = DefaultMaxServers
	}
	if opts.MaxJSONDepth == 0 {
		opts.MaxJSONDepth = jsonlimit.DefaultMaxDepth
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := opts.Server.setDefaults(); err != nil {
		return nil, err
	}
	hd := &Handler{h: h, a: a, opts: opts, servers: map[string]*sdk.Server{}, calls: map[string]map[*call]struct{}{}}
	hd.sh = sdk.NewStreamableHTTPHandler(hd.server, &sdk.StreamableHTTPOptions{
		SessionTimeout: opts.SessionTimeout, MaxRequestBodyBytes: opts.MaxBodyBytes, Logger: opts.Logger,
		PropagateRequestCancellation: true, // protocol 2026-07-28: a closed request cancels its call
	})
	return hd, nil
}

// principalKey carries the authenticated principal in TokenInfo.Extra.
const principalKey = "desk.principal"

// ServeHTTP serves one MCP request. The workspace is the request's "ws"
// path value (a ServeMux pattern /mcp/{ws}), else the path's last element.
func (hd *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws := r.PathValue("ws")
	if ws == "" {
		ws = r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
	}
	if err := workspace.ValidateName(ws); err != nil {
		writeError(w, http.StatusBadRequest, "bad_name", err.Error())
		return
	}
	p, status, code, msg := hd.authenticate(r, ws)
	if status != 0 {
		writeError(w, status, code, msg)
		return
	}
	// A new session must name an existing workspace (later requests of a
	// session were checked when it began; a workspace deleted since fails
	// its calls with not_found).
	if r.Header.Get("Mcp-Session-Id") == "" {
		if _, err := hd.h.Info(r.Context(), ws); err != nil {
			if errors.Is(err, host.ErrNotFound) {
				writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no workspace %q", ws))
			} else {
				writeError(w, http.StatusServiceUnavailable, "unavailable", err.Error())
			}
			return
		}
	}
	if r.Method == http.MethodPost && !hd.boundBody(w, r) {
		return
	}
	user := p.ID() + "@" + ws
	if id := r.Header.Get("Mcp-Session-Id"); r.Method == http.MethodDelete && id != "" {
		// The SDK closes a session only once its calls have returned: end
		// them first (their executions are killed).
		hd.cancelCalls(id, user)
	}
	// The SDK reads the principal back from the request's TokenInfo, for
	// each message; UserID ties a session to its token and workspace.
	verify := func(context.Context, string, *http.Request) (*sdkauth.TokenInfo, error) {
		return &sdkauth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour), Extra: map[string]any{principalKey: p}}, nil
	}
	sdkauth.RequireBearerToken(verify, nil)(hd.sh).ServeHTTP(w, r)
}

// boundBody reads a POST's body under MaxBodyBytes and MaxJSONDepth and
// puts it back for the SDK; it answers 413 too_large or 400 bad_json and
// returns false when the body breaks a bound.
func (hd *Handler) boundBody(w http.ResponseWriter, r *http.Request) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, hd.opts.MaxBodyBytes))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("request body over the limit of %d bytes", mbe.Limit))
		return false
	case err != nil:
		writeError(w, http.StatusBadRequest, "bad_json", fmt.Sprintf("read body: %v", err))
		return false
	}
	if err := jsonlimit.CheckDepth(b, hd.opts.MaxJSONDepth); err != nil {
		writeError(w, http.StatusBadRequest, "bad_json", err.Error())
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return true
}

// authenticate checks the bearer token: valid, and for workspace ws with at
// least one scope.
func (hd *Handler) authenticate(r *http.Request, ws string) (p auth.Principal, status int, code, msg string) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return p, http.StatusUnauthorized, "unauthorized", "no bearer token: send Authorization: Bearer <workspace token>"
	}
	p, err := hd.a.Authenticate(strings.TrimSpace(tok))
	if err != nil {
		return p, http.StatusUnauthorized, "unauthorized", err.Error()
	}
	if !p.Admin && (p.Token == nil || p.Token.Workspace != ws || len(p.Token.Scopes) == 0) {
		return p, http.StatusForbidden, "forbidden", fmt.Sprintf("this token may not use workspace %q", ws)
	}
	return p, 0, "", ""
}

// server returns the MCP server for the request's token and workspace.
func (hd *Handler) server(r *http.Request) *sdk.Server {
	ti := sdkauth.TokenInfoFromContext(r.Context())
	if ti == nil {
		return nil
	}
	p, _ := ti.Extra[principalKey].(auth.Principal)
	ws := strings.TrimPrefix(ti.UserID, p.ID()+"@")
	key := ti.UserID
	hd.mu.Lock()
	srv := hd.servers[key]
	hd.mu.Unlock()
	if srv != nil {
		return srv
	}
	to := hd.opts.Tools
	if hd.opts.Publisher != nil {
		to.Publisher = hd.opts.Publisher(ws)
	}
	var hw Workspace = &HostWorkspace{Host: hd.h, Workspace: ws, Options: to,
		Allow: func(t tools.Tool) bool { return AllowTool(p, ws, t, nil) == nil }}
	if hd.opts.Context != nil {
		hw.(*HostWorkspace).Context = func(ctx context.Context) (context.Context, error) { return hd.opts.Context(ctx, p, ws) }
	}
	if hd.opts.Workspace != nil {
		hw = hd.opts.Workspace(p, ws)
	}
	opts := hd.opts.Server
	opts.track = hd.track
	opts.Authorize = func(ctx context.Context, req sdk.Request, t tools.Tool, input json.RawMessage) error {
		ti := req.GetExtra().TokenInfo
		if ti == nil {
			return errors.New("unauthenticated request")
		}
		p, _ := ti.Extra[principalKey].(auth.Principal)
		return AllowTool(p, ws, t, input)
	}
	opts.CallContext = func(ctx context.Context, req sdk.Request) context.Context {
		if ti := req.GetExtra().TokenInfo; ti != nil {
			p, _ := ti.Extra[principalKey].(auth.Principal)
			return WithTokenBackends(ctx, p)
		}
		return ctx
	}
	srv, err := NewServer(r.Context(), hw, opts)
	if err != nil {
		hd.opts.Logger.Error("mcp: cannot make a server", "workspace", ws, "err", err)
		return nil
	}
	if hd.opts.Audit != nil {
		srv.AddReceivingMiddleware(auditMiddleware(hd.opts.Audit, ws, "", hd.opts.ExecEnded))
	}
	hd.mu.Lock()
	if len(hd.servers) >= hd.opts.MaxServers {
		clear(hd.servers)
	}
	hd.servers[key] = srv
	hd.mu.Unlock()
	return srv
}

// WithTokenBackends restricts the executions started with ctx to the
// backends p's token names, if it names any (run.WithBackends): a token
// allowed "shell" and "auto" never reaches the sandbox through auto. It
// also names the token for its fair share (fair.WithToken): what it
// starts counts against the token's bounds. A token's egress policy
// narrows the network of what it starts (egress.WithLayer).
func WithTokenBackends(ctx context.Context, p auth.Principal) context.Context {
	if p.Admin || p.Token == nil {
		return ctx
	}
	if p.Token.Egress != nil {
		ctx = egress.WithLayer(ctx, egress.Layer{Source: egress.SourceToken, Policy: *p.Token.Egress})
	}
	return run.WithBackends(fair.WithToken(ctx, p.Token.ID), p.Token.Backends)
}

// AllowTool checks that p may call t on workspace ws with input (nil: the
// tool in general): the tool's scopes, and for exec the token's backends
// (a token restricted to some backends must name one). The error wraps
// auth.ErrForbidden when it is about the token.
func AllowTool(p auth.Principal, ws string, t tools.Tool, input json.RawMessage) error {
	for _, s := range t.Scopes {
		if err := p.Allow(ws, auth.Scope(s)); err != nil {
			return err
		}
	}
	if t.Name != "exec" || p.Admin || p.Token == nil || len(p.Token.Backends) == 0 || input == nil {
		return nil
	}
	var in struct {
		Backend string `json:"backend"`
	}
	json.Unmarshal(input, &in)
	if in.Backend == "" {
		return fmt.Errorf("%w: this token may run only the backends %s: name one in backend", auth.ErrForbidden, strings.Join(p.Token.Backends, ", "))
	}
	return p.AllowBackend(in.Backend)
}

// writeError writes the API's JSON error body.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	var body client.ErrorBody
	body.Error.Code, body.Error.Message = code, msg
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="desk"`)
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// track registers a running call of a session.
func (hd *Handler) track(session, user string, cancel context.CancelFunc) func() {
	c := &call{user: user, cancel: cancel}
	hd.mu.Lock()
	if hd.calls[session] == nil {
		hd.calls[session] = map[*call]struct{}{}
	}
	hd.calls[session][c] = struct{}{}
	hd.mu.Unlock()
	return func() {
		hd.mu.Lock()
		delete(hd.calls[session], c)
		if len(hd.calls[session]) == 0 {
			delete(hd.calls, session)
		}
		hd.mu.Unlock()
	}
}

// cancelCalls cancels the running calls user made in session.
func (hd *Handler) cancelCalls(session, user string) {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	for c := range hd.calls[session] {
		if c.user == user {
			c.cancel()
		}
	}
}
