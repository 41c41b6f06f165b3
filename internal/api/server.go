package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/quota"
	"github.com/desk-dev/desk/internal/search"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/desk-dev/desk/internal/artifact"
	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/jsonlimit"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/share"
	"github.com/desk-dev/desk/internal/tools"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/worker"
	"github.com/desk-dev/desk/internal/workspace"
)

// Defaults for Options. A zero field takes its default.
const (
	DefaultMaxBodyBytes      = 1 << 20  // JSON request bodies
	DefaultMaxUploadBytes    = 1 << 30  // file bodies (PUT); the store's MaxFileSize applies as well
	DefaultMaxHeaderBytes    = 64 << 10 // request headers (NewHTTPServer)
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultBodyReadTimeout   = 30 * time.Second // a request body must bring DefaultBodyMinBytes this often
	DefaultBodyMinBytes      = 16 << 10
	DefaultMaxUploads        = 32   // PUT bodies being received at once, server-wide
	DefaultPageLimit         = 100  // page size when a request gives no limit
	DefaultMaxPageLimit      = 1000 // the largest page a request may ask for
	DefaultMaxLineBytes      = 4096 // grep match text is cut here
	DefaultHeartbeat         = 15 * time.Second
	DefaultMaxToolBodyBytes  = 8 << 20 // tool call inputs (write's 2 MiB content, JSON-escaped)
)

// Defaults of the search limits: package search's, one set of numbers for
// the HTTP API and the agent tools.
const (
	DefaultMaxWalk          = search.DefaultMaxEntries      // entries find, grep and copy visit per request
	DefaultMaxGrepFileBytes = search.DefaultMaxFileBytes    // larger files are skipped by grep
	DefaultMaxGrepBytes     = search.DefaultMaxBytes        // bytes grep reads per request before it returns a page
	DefaultMaxPatternBytes  = search.DefaultMaxPatternBytes // find globs and grep queries
	DefaultMaxRegexpInsts   = search.DefaultMaxRegexpInsts  // compiled program of a grep query
	DefaultMaxSearchTime    = search.DefaultMaxTime         // one find or grep request
)

// Options configure a Server. The zero value gives the documented defaults.
type Options struct {
	// MaxBodyBytes bounds JSON request bodies (413 too_large). Default 1 MiB.
	MaxBodyBytes int64
	// MaxUploadBytes bounds a file body written with PUT (413 too_large).
	// Default 1 GiB; the workspace store's MaxFileSize (EFBIG) applies too.
	MaxUploadBytes int64
	// MaxHeaderBytes bounds request headers in NewHTTPServer. Default 64 KiB.
	MaxHeaderBytes int
	// ReadHeaderTimeout bounds the time to read a request's headers, and
	// IdleTimeout the time a kept-alive connection waits for its next
	// request; both are NewHTTPServer's, which closes the connection past
	// them. Defaults 10s, 2m.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// BodyReadTimeout and BodyMinBytes are the progress rule of request
	// bodies: from the handler's first read, every BodyReadTimeout must bring
	// BodyMinBytes more bytes or the body's end; a body that stalls is
	// answered 408 timeout and its connection closed. Defaults 30s, 16 KiB
	// (about 550 bytes/s at the least). The rule needs the connection's read
	// deadline: it holds under NewHTTPServer and httptest, not under a
	// handler wrapper that hides the connection.
	BodyReadTimeout time.Duration
	BodyMinBytes    int64
	// MaxUploads bounds the PUT bodies being received at once, server-wide
	// (each holds up to the store's DirtyBytes, 8 MiB, of buffered content);
	// past it a PUT waits for its turn before its body is read. Default 32.
	MaxUploads int
	// DefaultLimit is the page size of list requests without limit (default
	// 100); MaxLimit the largest a request may ask for (default 1000).
	DefaultLimit int
	MaxLimit     int
	// MaxWalk bounds the directory entries find, grep and copy visit in one
	// request (find: the result is marked truncated; grep: a page ends early
	// with a cursor; copy: 413 too_large). Default 100,000.
	MaxWalk int
	// MaxGrepFileBytes: grep skips larger files (counted as skipped). Default 8 MiB.
	MaxGrepFileBytes int64
	// MaxGrepBytes bounds the file bytes grep reads per request; past it the
	// page ends and a cursor says where to go on. Default 64 MiB.
	MaxGrepBytes int64
	// MaxLineBytes cuts the text of a grep match. Default 4096.
	MaxLineBytes int
	// MaxPatternBytes bounds find globs and grep queries. Default 1024.
	MaxPatternBytes int
	// MaxRegexpInsts bounds the compiled program of a grep query (RE2
	// instructions): a larger query is a 400. Default 2000.
	MaxRegexpInsts int
	// MaxSearchTime bounds one find or grep request: past it find's result
	// is marked truncated, and grep's page ends with a cursor. Default 30s.
	MaxSearchTime time.Duration
	// Heartbeat is how often an idle event stream gets a keep-alive (an SSE
	// comment, or an empty NDJSON line). Default 15s.
	Heartbeat time.Duration
	// MaxToolBodyBytes bounds a tool call's input (413 too_large). Default 8 MiB.
	MaxToolBodyBytes int64
	// MaxJSONDepth bounds the nesting of every JSON request body, tool
	// inputs included (400 bad_json). Default 64 (jsonlimit.DefaultMaxDepth).
	MaxJSONDepth int
	// Tree bounds tree uploads (PUT /v1/workspaces/{ws}/tree/...; tree.go).
	Tree TreeOptions
	// Tools configure the agent tools (caps; see tools.Options), served at
	// /v1/workspaces/{ws}/tools and over MCP.
	Tools tools.Options
	// MCP configures the MCP handler at /mcp/{ws} (its Tools and Logger
	// default to the fields above).
	MCP mcp.HandlerOptions
	// Shell serves interactive shells at /v1/workspaces/{ws}/shell (see
	// ShellConfig; without an Opener the route answers 501).
	Shell ShellConfig
	// Ports serves preview URLs and port forwarding at
	// /v1/workspaces/{ws}/ports/{port}/... (see PortConfig; without a
	// Dialer the routes answer 501).
	Ports PortConfig
	// Images, if set, is the machine's image store, for POST
	// /v1/images/pull and GET /v1/images (admin; nil: 501).
	Images ImageService
	// Fair, if set, bounds the interactive shells each workspace and
	// each token holds (fair.Shell), and host-wide through its Host. (The
	// executions' shares are decided where they start: the workspace's
	// Admit.) A refusal is 429 too_many (503 for a host-wide bound).
	Fair *fair.Ledger
	// HostSlots is the host-wide pool of slots whose counts /metrics
	// reports (desk_slots_*); a front's Workers report their own pool's.
	HostSlots *fair.Pool
	// Workers, if set, makes this server the front of worker processes: it
	// never opens a workspace itself; every request that uses an open
	// workspace (the routes that lease it, and MCP's tool calls and file
	// reads) is forwarded, with the principal it authenticated, to the
	// workspace's worker (package worker), which serves it with a server
	// made with WorkerKey. See docs/decisions.md, "A worker process per
	// workspace".
	Workers *worker.Pool
	// Shares is the share store: links made by POST .../shares and the
	// publish tool, served at /s/{token}. nil: no share routes (501) and no
	// publish tool. desk serve's front and workers open the same store (see
	// package share).
	Shares *share.Store
	// Artifacts is the artifact store: the published repositories
	// (.../artifacts) and their tokens, served over git smart HTTP at
	// /git/{ws}/{name}.git. nil: those routes answer 501. desk serve's
	// front and workers open the same store (see package artifact).
	Artifacts *artifact.Store
	// ArtifactURL is the URL clone URLs start with (desk serve's
	// --public-url); "": http:// and the request's host.
	ArtifactURL string
	// WorkerKey, if set, makes this server a workspace worker's: it takes no
	// bearer token but the principal the front authenticated, on requests
	// that carry this key (worker.HeaderKey); others get 401.
	WorkerKey string
	// Executions, in a worker, is told of every execution started through
	// the API and of its end (worker.Server reports them to the front,
	// which counts them for its /metrics).
	Executions ExecReporter
	// Mounts configure local mounts (POST /v1/workspaces/{ws}/mounts, admin):
	// bounds, forbidden directories, crash records.
	Mounts MountOptions
	// Backends are the execution backends offered, for checking the
	// backends a minted token names. Default: the host's
	// (host.Backends).
	Backends []string
	// Egress keeps the workspaces' egress policies and secrets (the admin's
	// …/policy and …/secrets routes); nil: those routes answer 501.
	Egress *egress.Store
	// EgressDefault is the policy of a workspace without its own (desk
	// serve --egress; zero: none).
	EgressDefault egress.Policy
	// Policy keeps the workspaces' path and command rules (package
	// policy: the …/rules routes, and every workspace call's path
	// checks); nil: no workspace rules (a token's still hold).
	Policy *policy.Store
	// Approvals holds this process's calls pending approval (the
	// …/approvals routes); nil: those routes answer 501.
	Approvals *policy.Approvals
	// Audit, if set, is the audit journal: every request but the liveness
	// probe's and MCP's (whose JSON-RPC requests the MCP handler records) is
	// one record, written when its handler returns, with the changes it
	// made (package audit). A front records only the requests no worker
	// served: each worker records its own. GET /v1/audit queries it.
	Audit *audit.Store
	// MaxExecsPerMinute bounds the executions started in each workspace
	// in a minute (a fixed window): past it, 429 too_many. Default
	// DefaultMaxExecsPerMinute (600); negative: no bound.
	MaxExecsPerMinute int
	// MaxCPUPerDay bounds the CPU time of each workspace's executions in
	// a UTC day, as their backends measure it (run.Usage.CPUTime: the
	// shell's and js's goroutines, the sandbox's main process and the
	// children it waited for): once reached, new executions get 429 too_many until
	// the day ends (a running one is not stopped). Read back from the
	// audit journal when a worker starts. Default DefaultMaxCPUPerDay
	// (24h: one core all day); negative: no bound.
	MaxCPUPerDay time.Duration
	// MaxCPUPerExecution bounds one execution's CPU time (run's CPU
	// limit: past it the execution is stopped and ends as cpu-limit) for
	// the backends with a meter (shell, js; not the sandbox yet).
	// Default DefaultMaxCPUPerExecution (10 minutes); negative: no bound.
	MaxCPUPerExecution time.Duration
	// Logger receives one line per request. Default slog.Default().
	Logger *slog.Logger
	// Registry receives the server's metrics and is served at /metrics.
	// Default: a new registry with the Go and process collectors.
	Registry *prometheus.Registry
}

func (o *Options) setDefaults() error {
	for _, v := range []int64{o.MaxBodyBytes, o.MaxUploadBytes, int64(o.MaxHeaderBytes), int64(o.ReadHeaderTimeout),
		int64(o.IdleTimeout), int64(o.BodyReadTimeout), o.BodyMinBytes, int64(o.MaxUploads), int64(o.DefaultLimit), int64(o.MaxLimit), int64(o.MaxWalk), o.MaxGrepFileBytes,
		o.MaxGrepBytes, int64(o.MaxLineBytes), int64(o.MaxPatternBytes), int64(o.Heartbeat), o.MaxToolBodyBytes, int64(o.MaxJSONDepth),
		int64(o.MaxRegexpInsts), int64(o.MaxSearchTime), int64(o.Mounts.Max), int64(o.Mounts.MaxPerWorkspace)} {
		if v < 0 {
			return errors.New("new api server: negative option")
		}
	}
	def := func(p *int64, d int64) {
		if *p == 0 {
			*p = d
		}
	}
	defi := func(p *int, d int) {
		if *p == 0 {
			*p = d
		}
	}
	defd := func(p *time.Duration, d time.Duration) {
		if *p == 0 {
			*p = d
		}
	}
	def(&o.MaxBodyBytes, DefaultMaxBodyBytes)
	def(&o.MaxUploadBytes, DefaultMaxUploadBytes)
	defi(&o.MaxHeaderBytes, DefaultMaxHeaderBytes)
	defd(&o.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	defd(&o.IdleTimeout, DefaultIdleTimeout)
	defd(&o.BodyReadTimeout, DefaultBodyReadTimeout)
	def(&o.BodyMinBytes, DefaultBodyMinBytes)
	defi(&o.MaxUploads, DefaultMaxUploads)
	defi(&o.DefaultLimit, DefaultPageLimit)
	defi(&o.MaxLimit, DefaultMaxPageLimit)
	defi(&o.MaxWalk, DefaultMaxWalk)
	def(&o.MaxGrepFileBytes, DefaultMaxGrepFileBytes)
	def(&o.MaxGrepBytes, DefaultMaxGrepBytes)
	defi(&o.MaxLineBytes, DefaultMaxLineBytes)
	defi(&o.MaxPatternBytes, DefaultMaxPatternBytes)
	defi(&o.MaxRegexpInsts, DefaultMaxRegexpInsts)
	defd(&o.MaxSearchTime, DefaultMaxSearchTime)
	defd(&o.Heartbeat, DefaultHeartbeat)
	def(&o.MaxToolBodyBytes, DefaultMaxToolBodyBytes)
	defi(&o.MaxJSONDepth, jsonlimit.DefaultMaxDepth)
	defi(&o.Mounts.Max, DefaultMaxMounts)
	defi(&o.MaxExecsPerMinute, DefaultMaxExecsPerMinute)
	defd(&o.MaxCPUPerDay, DefaultMaxCPUPerDay)
	defd(&o.MaxCPUPerExecution, DefaultMaxCPUPerExecution)
	defi(&o.Mounts.MaxPerWorkspace, DefaultMaxMountsPerWorkspace)
	if o.DefaultLimit > o.MaxLimit {
		o.DefaultLimit = o.MaxLimit
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// Server is the HTTP API: an http.Handler over a host and its token store.
type Server struct {
	host *host.Host
	auth *auth.Store
	opts Options
	mux  *http.ServeMux
	m    *metrics
	mcp  *mcp.Handler

	gitMu   sync.Mutex
	gitBusy map[string]int // git pack requests being served, by workspace (MaxGitRequests)

	ctx    context.Context // cancelled by Shutdown: ends streams and waits
	cancel context.CancelFunc

	shutdownOnce sync.Once
	shutdownErr  error

	shells      atomic.Int64  // interactive shells open (ShellConfig.MaxShells)
	frontMounts atomic.Int64  // mount requests received (Mounts.Max)
	mountTab    mountTable    // the mounts served here
	slots       chan struct{} // a PUT body being received holds one (Options.MaxUploads)
	waiting     atomic.Int64  // PUTs waiting for a slot

	quota *quota.Counter // executions per minute, CPU per day (quota.go)

	portOnce sync.Once
	portRT   *http.Transport // to the sandboxes' ports (ports.go)
}

// New returns the API server over h and the token store a. Neither is owned
// until Shutdown, which closes both. A worker's server (Options.WorkerKey)
// has no token store: a is nil.
func New(h *host.Host, a *auth.Store, opts Options) (*Server, error) {
	if h == nil || (a == nil) != (opts.WorkerKey != "") {
		return nil, errors.New("new api server: nil host, or a token store with a worker key or neither")
	}
	if opts.Workers != nil && opts.WorkerKey != "" {
		return nil, errors.New("new api server: a front (Workers) cannot be a worker (WorkerKey)")
	}
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	if opts.Shares != nil && opts.Tools.MaxPublishBytes == 0 {
		opts.Tools.MaxPublishBytes = opts.Shares.Options().MaxFileBytes
	}
	s := &Server{host: h, auth: a, opts: opts, mux: http.NewServeMux()}
	s.quota = s.newQuota()
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.slots = make(chan struct{}, opts.MaxUploads)
	m, err := newMetrics(opts.Registry, h, opts.Workers == nil, func() float64 { return float64(len(s.slots)) }, func() float64 { return float64(s.waiting.Load()) })
	if err != nil {
		return nil, fmt.Errorf("new api server: %w", err)
	}
	s.m = m
	if opts.Workers != nil {
		if err := registerWorkerMetrics(m.reg, opts.Workers); err != nil {
			return nil, fmt.Errorf("new api server: %w", err)
		}
	}
	slots := opts.HostSlots
	if opts.Workers != nil {
		slots = opts.Workers.Slots()
	}
	if slots != nil {
		if err := m.reg.Register(slotCollector{slots}); err != nil {
			return nil, fmt.Errorf("new api server: %w", err)
		}
	}
	mo := opts.MCP
	if mo.Tools == (tools.Options{}) {
		mo.Tools = opts.Tools
	}
	if mo.Logger == nil {
		mo.Logger = opts.Logger
	}
	if mo.MaxJSONDepth == 0 {
		mo.MaxJSONDepth = opts.MaxJSONDepth
	}
	if mo.Publisher == nil && opts.Shares != nil {
		mo.Publisher = s.publisher
	}
	if opts.Workers != nil {
		mo.Workspace = s.remoteWorkspace
	}
	mo.Context = func(ctx context.Context, p auth.Principal, ws string) (context.Context, error) {
		return s.policyContext(ctx, &call{p: p, ws: ws})
	}
	if mo.Audit == nil && opts.Audit != nil {
		mo.Audit = opts.Audit
	}
	if mo.ExecEnded == nil && opts.Audit != nil {
		mo.ExecEnded = s.toolExecEnded
	}
	if mo.Server.Approvals == nil {
		mo.Server.Approvals = opts.Approvals
	}
	if a != nil {
		if s.mcp, err = mcp.NewHandler(h, a, mo); err != nil {
			return nil, fmt.Errorf("new api server: %w", err)
		}
	}
	for _, rt := range routes() {
		s.mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
	}
	s.mux.Handle("/", s.wrap(notFoundRoute))
	return s, nil
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, absoluteFilePath(r))
}

// NewHTTPServer returns an http.Server for the API on addr with the bounded
// header size and timeouts of the options. It sets no write timeout: event
// streams and downloads may last long. Its Shutdown ends the event streams
// and waits (as this server's Shutdown does first), so that a worker's
// server told to stop ends its streams, mounts included, before it waits
// for the requests in flight.
func (s *Server) NewHTTPServer(addr string) *http.Server {
	hs := &http.Server{
		Addr:              addr,
		Handler:           s,
		MaxHeaderBytes:    s.opts.MaxHeaderBytes,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
	}
	hs.RegisterOnShutdown(s.cancel)
	return hs
}

// Shutdown stops the API gracefully: it ends event streams and waiting
// requests, stops srv from accepting and waits (bounded by ctx) for the
// requests in flight (srv may be nil when the caller serves the handler
// itself), then stops the workers (Options.Workers, which it owns too) and
// closes the host — which stops running executions and records
// them as stopped — and the token store. Later calls return the first result.
func (s *Server) Shutdown(ctx context.Context, srv *http.Server) error {
	s.shutdownOnce.Do(func() {
		s.cancel()
		var errs []error
		var emu sync.Mutex
		var wg sync.WaitGroup
		if s.opts.Workers != nil {
			// At once, not after srv's requests: the workers end their
			// streams (forwarded through srv) as they stop, and finish
			// their other requests first.
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.opts.Workers.Close(ctx); err != nil {
					emu.Lock()
					errs = append(errs, fmt.Errorf("stop workers: %w", err))
					emu.Unlock()
				}
			}()
		}
		if srv != nil {
			if err := srv.Shutdown(ctx); err != nil {
				emu.Lock()
				errs = append(errs, fmt.Errorf("shut down http server: %w", err))
				emu.Unlock()
			}
		}
		wg.Wait()
		// Mounts served here unmount as their requests end (s.cancel); the
		// store must stay open until they have.
		if err := s.mountTab.close(ctx); err != nil {
			errs = append(errs, err)
		}
		if err := s.host.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close host: %w", err))
		}
		if s.auth != nil {
			if err := s.auth.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close token store: %w", err))
			}
		}
		s.shutdownErr = errors.Join(errs...)
	})
	return s.shutdownErr
}

// longCtx is the request's context, also cancelled by Shutdown: for streams
// and waits.
func (s *Server) longCtx(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// respWriter records the status and size of a response.
type respWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *respWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *respWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Flush sends buffered data (event streams).
func (w *respWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *respWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// call is what a handler gets besides the request.
type call struct {
	p     auth.Principal
	ws    string      // the {ws} path value, validated, if the route has one
	lease *host.Lease // for routes that open the workspace
	// forwarded: a worker served the request (and records it).
	forwarded bool
	args      []audit.Arg     // the audit record's arguments added by the handler
	decision  policy.Decision // the strictest policy decision made for it (auditDecision)
	denials   *policy.Denials // its path refusals (policyContext), recorded with it
	started   mcp.ExecList    // the executions its tool call started (recorded at their ends)
}

// wrap authenticates, authorises, leases the workspace if the route needs
// it, runs the handler, maps its error, logs and measures.
func (s *Server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w0 http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w := &respWriter{ResponseWriter: w0}
		c := &call{}
		var span *vfs.ChangeSpan
		if s.opts.Audit != nil {
			span = new(vfs.ChangeSpan)
			r = r.WithContext(vfs.WithChangeSpan(r.Context(), span))
		}
		var body *progressBody
		if r.Body != nil && r.Body != http.NoBody && !rt.paced {
			body = newProgressBody(w, r, &s.opts)
			r.Body = body
		}
		err := s.serve(rt, w, r, c)
		if body != nil {
			if body.timedOut {
				err = s.bodyTimeoutError()
			}
			body.finish()
		}
		if err != nil {
			e := classify(err)
			if e.Status >= 500 && e.Code == CodeInternal {
				s.opts.Logger.Error("request failed", "route", rt.op, "err", err)
			}
			if w.status == 0 {
				writeError(w, e)
			} else {
				w.status = e.Status // already streaming: recorded for the log only
			}
		}
		if w.status == 0 {
			w.status = http.StatusOK
		}
		d := time.Since(start)
		if span != nil {
			s.record(rt, r, w, c, span, err, d)
		}
		s.m.observe(rt.op, r.Method, w.status, d)
		attrs := []slog.Attr{
			slog.String("method", r.Method), slog.String("route", rt.op), slog.String("path", logPath(rt, r)),
			slog.Int("status", w.status), slog.Duration("duration", d), slog.Int64("bytes", w.bytes),
		}
		if c.ws != "" {
			attrs = append(attrs, slog.String("workspace", c.ws))
		}
		if id := c.p.ID(); id != "" {
			attrs = append(attrs, slog.String("principal", id))
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
		}
		level := slog.LevelInfo
		if s.opts.WorkerKey != "" {
			level = slog.LevelDebug // the front logs the request already
		}
		s.opts.Logger.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// logPath is the request's path as logged: a share link's token is a
// capability, so only its first characters are.
func logPath(rt route, r *http.Request) string {
	if rt.op == "getShare" {
		if t := r.PathValue("token"); len(t) > 4 {
			return "/s/" + t[:4] + "…"
		}
	}
	return r.URL.Path
}

func (s *Server) serve(rt route, w http.ResponseWriter, r *http.Request, c *call) error {
	if s.opts.WorkerKey != "" {
		p, err := s.trusted(rt, r)
		if err != nil {
			return err
		}
		c.p = p
	} else if rt.access == accPort {
		c.ws = r.PathValue("ws")
		if err := workspace.ValidateName(c.ws); err != nil {
			return err
		}
		p, err := s.portPrincipal(w, r, c.ws)
		if err != nil {
			return err
		}
		c.p = p
	} else if rt.access != accPublic {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		p, err := s.auth.Authenticate(strings.TrimSpace(tok))
		if err != nil {
			return err
		}
		c.p = p
	}
	switch rt.access {
	case accAdmin:
		if !c.p.Admin {
			return fmt.Errorf("%w: this route needs the admin token", auth.ErrForbidden)
		}
	case accScope, accWorkspace, accAdminWorkspace, accPort:
		c.ws = r.PathValue("ws")
		if err := workspace.ValidateName(c.ws); err != nil {
			return err
		}
		if rt.access == accScope || rt.access == accPort {
			if err := c.p.Allow(c.ws, rt.scope); err != nil {
				return err
			}
		} else if !c.p.Admin && (c.p.Token == nil || c.p.Token.Workspace != c.ws) {
			return fmt.Errorf("%w: this token is not for workspace %q", auth.ErrForbidden, c.ws)
		}
		if rt.access == accAdminWorkspace && !c.p.Admin {
			return fmt.Errorf("%w: this route needs the admin token", auth.ErrForbidden)
		}
		if rt.op == opMount && s.opts.WorkerKey == "" {
			release, err := s.mountSlot()
			if err != nil {
				return err
			}
			defer release()
		}
		if rt.lease && s.opts.Workers != nil {
			return s.forward(w, r, c)
		}
		if rt.lease {
			l, err := s.host.Acquire(r.Context(), c.ws)
			if err != nil {
				return err
			}
			defer l.Release()
			c.lease = l
		}
	}
	if c.ws != "" {
		ctx, err := s.policyContext(r.Context(), c)
		if err != nil {
			return err
		}
		r = r.WithContext(ctx)
	}
	return rt.h(s, w, r, c)
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
	return nil
}

// readJSON decodes the request body (bounded by MaxBodyBytes) into v,
// refusing unknown fields and trailing data. An empty body leaves v as is
// when allowEmpty.
func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, v any, allowEmpty bool) error {
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	if err := s.checkDepth(b); err != nil {
		return err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		if allowEmpty {
			return nil
		}
		return errorf(http.StatusBadRequest, CodeBadJSON, "the request needs a JSON body")
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(http.StatusBadRequest, CodeBadJSON, "invalid JSON body: %v", err)
	}
	if dec.More() {
		return errorf(http.StatusBadRequest, CodeBadJSON, "invalid JSON body: data after the JSON value")
	}
	return nil
}

// checkDepth refuses a JSON body nested deeper than MaxJSONDepth.
func (s *Server) checkDepth(b []byte) error {
	if err := jsonlimit.CheckDepth(b, s.opts.MaxJSONDepth); err != nil {
		return errorf(http.StatusBadRequest, CodeBadJSON, "invalid JSON body: %v (MaxJSONDepth)", err)
	}
	return nil
}

// limit reads the limit query parameter.
func (s *Server) limit(r *http.Request) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return s.opts.DefaultLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, errorf(http.StatusBadRequest, CodeInvalid, "limit=%q: want a positive integer (at most %d)", v, s.opts.MaxLimit)
	}
	return min(n, s.opts.MaxLimit), nil
}

// qbool reads a boolean query parameter ("1", "true", ...; absent: false).
func qbool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, errorf(http.StatusBadRequest, CodeInvalid, "%s=%q: want 1, 0, true or false", name, v)
	}
	return b, nil
}

// quint reads an unsigned integer query parameter (absent: 0).
func quint(r *http.Request, name string) (uint64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, errorf(http.StatusBadRequest, CodeInvalid, "%s=%q: want a non-negative integer", name, v)
	}
	return n, nil
}
