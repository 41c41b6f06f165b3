package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/desk-dev/desk/internal/egress"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/cgroup"
	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/host"
	deskrun "github.com/desk-dev/desk/internal/run"
)

// envAdminToken gives desk serve its admin token when --token is not set.
const envAdminToken = "DESK_ADMIN_TOKEN"

// DefaultAddr is where desk serve listens unless --addr says otherwise.
const DefaultAddr = "127.0.0.1:7878"

// shutdownTimeout bounds how long desk serve waits for requests in flight
// when it stops.
const shutdownTimeout = 30 * time.Second

var serveSpec = &cmdSpec{
	name:     "serve",
	synopsis: "[--addr HOST:PORT] [--data DIR] [--token TOKEN] [--idle D] [--max-open N] [--sandbox RUNTIME|off] [--max-... N] [--settings FILE] [--log-level L]",
	summary:  "run the desk server: the HTTP API over the workspaces of a data directory",
	help: `The server listens on 127.0.0.1:7878 and keeps its workspaces, tokens and lock in
./desk-data unless told otherwise. On the first start it generates the admin
token into DATA/admin.token (mode 0600) and prints it once; --token (or
$DESK_ADMIN_TOKEN) gives one instead, which is then never written there.

It writes the URL and the admin token to the local user's config file
($XDG_CONFIG_HOME/desk/config.json or ~/.config/desk/config.json, mode 0600;
$DESK_CONFIG overrides the path), so that desk ws, desk fs -w, desk exec, ...
on this machine reach it without flags. --no-config skips that.

Logs (log/slog) go to standard error. SIGINT or SIGTERM stops the server
gracefully: streams end, requests in flight finish (up to 30s), running
executions are stopped and recorded, every workspace is closed. A second
interrupt exits at once (acknowledged writes are durable either way).

The sandbox backend (bash in a Linux sandbox run by an OCI runtime, runc by
default, with the workspace's /workspace mounted at /workspace through FUSE)
is offered when the runtime is installed, desk runs as root, the kernel has
user namespaces and /dev/fuse exists; the log says why it is not otherwise.
The shell backend (the default) and the js backend (ES modules in QuickJS,
node:fs/promises on the workspace) are always offered.

Fair shares: each workspace, and each workspace token within it, holds at
most so many running executions, js executions, services (detached
executions) and interactive shells at once (--max-KIND-per-workspace,
--max-KIND-per-token; the admin token is bound only by its workspace's
share), and the whole server at most so many services, shells, js
executions and live sandboxes (--max-services, --max-shells, --max-js,
--max-sandboxes). Past a workspace's or a token's share a request is
answered 429 too_many, naming the bound and its flag; past the server's,
503. --max-service-life bounds a service's life. --settings FILE reads any
flag from a JSON object of flag names to values.`,
	minArgs: 0, maxArgs: 0,
}

func runServe(ctx context.Context, args []string, st streams) int {
	return serve(ctx, args, st, serveHooks{})
}

// serveHooks let tests give the server backends and learn its URL.
type serveHooks struct {
	backends map[string]deskrun.Backend // nil: none
	ready    func(url string)           // called once the server accepts connections
}

// serve runs desk serve until ctx ends and returns the exit status.
func serve(ctx context.Context, args []string, st streams, hooks serveHooks) int {
	sp := serveSpec
	fl := sp.flags()
	addr := fl.String("addr", DefaultAddr, "listen on this TCP address (port 0: any free port)")
	data := fl.String("data", "./"+host.DefaultDataDir, "the data directory: workspaces, tokens, lock")
	token := fl.String("token", "", "the admin token, at least 16 bytes (default: $"+envAdminToken+", else DATA/admin.token, generated on the first start)")
	idle := fl.Duration("idle", host.DefaultIdleTimeout, "close (hibernate) a workspace unused this long; negative: never")
	maxOpen := fl.Int("max-open", host.DefaultMaxOpen, "the most workspaces open at once (least recently used are closed first)")
	maxData := fl.Int64("max-data-bytes", 0, "bound the disk space of the data directory, across all workspaces, to this many bytes (0: only the disk)")
	reserve := fl.Int64("reserve-bytes", 0, "keep a reserve file of this many bytes in the data directory, released on a full disk so that deletes work (0: 64 MiB, at most 1/16 of the disk; negative: none)")
	logLevel := fl.String("log-level", "info", "the least important log lines to print: debug, info, warn, error")
	logFormat := fl.String("log-format", "text", "the log format: text or json")
	noConfig := fl.Bool("no-config", false, "do not write the local user's config file")
	sandboxRT := fl.String("sandbox", "runc", "the OCI runtime of the sandbox backend (a name in PATH or a path; off: no sandbox backend)")
	workers := fl.Bool("workers", true, "serve each active workspace in a worker process of its own (false: every workspace in this process)")
	workerMem := fl.Int64("worker-memory", defaultWorkerMemory, "each worker's memory limit in bytes, its sandbox included (a cgroup; 0: none)")
	workerCPU := fl.Int("worker-cpu-weight", 100, "each worker's CPU weight, 1 to 10000: CPU shared in proportion among busy workspaces (0: the kernel's default)")
	workerPids := fl.Int64("worker-pids", defaultWorkerPids, "the most processes and threads of each worker, its sandbox included (0: no limit)")
	shf := addShareFlags(fl)
	qf := addQuotaFlags(fl)
	fairFl := addFairFlags(fl)
	egf := addEgressFlags(fl)
	auditRet := fl.Duration("audit-retention", audit.DefaultRetention, "keep audit records this long (default 90 days); negative: forever")
	settings := fl.String("settings", "", "read flag settings from this JSON file, an object of flag names (without dashes) to values; the command line wins")
	if _, code, ok := sp.parse(fl, args, st); !ok {
		return code
	}
	if *settings != "" {
		if err := readSettings(fl, *settings); err != nil {
			return sp.usageError(st, fl, err)
		}
	}
	if err := shf.check(); err != nil {
		return sp.usageError(st, fl, err)
	}
	if err := qf.check(); err != nil {
		return sp.usageError(st, fl, err)
	}
	fairCfg, err := fairFl.config()
	if err != nil {
		return sp.usageError(st, fl, err)
	}
	egCfg, err := egf.config()
	if err != nil {
		return sp.usageError(st, fl, err)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return sp.usageError(st, fl, usagef("--log-level %q: want debug, info, warn or error", *logLevel))
	}
	var handler slog.Handler
	switch *logFormat {
	case "text":
		handler = slog.NewTextHandler(st.err, &slog.HandlerOptions{Level: level})
	case "json":
		handler = slog.NewJSONHandler(st.err, &slog.HandlerOptions{Level: level})
	default:
		return sp.usageError(st, fl, usagef("--log-format %q: want text or json", *logFormat))
	}
	if *maxOpen <= 0 {
		return sp.usageError(st, fl, usagef("--max-open must be positive"))
	}
	if *maxData < 0 {
		return sp.usageError(st, fl, usagef("--max-data-bytes must not be negative (0: no bound)"))
	}
	if *idle == 0 {
		return sp.usageError(st, fl, usagef("--idle must not be 0 (negative: never hibernate)"))
	}
	if *token == "" {
		*token = os.Getenv(envAdminToken)
	}
	if *token != "" && len(*token) < 16 {
		return sp.usageError(st, fl, usagef("the admin token must be at least 16 bytes"))
	}
	if *workerMem < 0 || *workerPids < 0 || *workerCPU < 0 || *workerCPU > 10000 {
		return sp.usageError(st, fl, usagef("--worker-memory and --worker-pids must not be negative, --worker-cpu-weight must be 0 to 10000"))
	}
	log := slog.New(handler)
	var wc *workerConfig
	if *workers && hooks.backends == nil {
		wc = &workerConfig{data: *data, idle: *idle, maxData: *maxData, reserve: *reserve, sandbox: *sandboxRT, logLevel: level, logJSON: *logFormat == "json",
			limits: cgroup.Limits{MemoryBytes: *workerMem, CPUWeight: *workerCPU, Pids: *workerPids}, stderr: st.err, shares: shf, fair: fairCfg, egress: egCfg, quota: qf}
	}
	if err := serveUntil(ctx, serveConfig{
		addr: *addr, data: *data, token: *token, idle: *idle, maxOpen: *maxOpen, maxData: *maxData, reserve: *reserve,
		writeConfig: !*noConfig, log: log, st: st, hooks: hooks, sandbox: *sandboxRT, workers: wc, shares: shf, fair: fairCfg, egress: egCfg,
		auditRetention: *auditRet, quota: qf,
	}); err != nil {
		return sp.fail(st, err)
	}
	return exitOK
}

// serveConfig is a parsed desk serve command line.
type serveConfig struct {
	addr, data, token string
	idle              time.Duration
	maxOpen           int
	maxData, reserve  int64 // --max-data-bytes, --reserve-bytes
	auditRetention    time.Duration
	writeConfig       bool
	sandbox           string        // the --sandbox flag
	workers           *workerConfig // nil: every workspace in this process
	shares            *shareFlags
	quota             quotaFlags
	fair              fairConfig
	egress            egressConfig
	log               *slog.Logger
	st                streams
	hooks             serveHooks
}

// serveUntil opens the host, the token store and the API, serves until ctx
// ends, then shuts down gracefully.
func serveUntil(ctx context.Context, cfg serveConfig) error {
	bs := &backendSet{backends: cfg.hooks.backends, run: runOptions(cfg.hooks.backends)}
	var names []string // the backends offered
	var ledger *fair.Ledger
	var hostSlots *fair.Pool
	switch {
	case cfg.workers != nil:
		// The workers run the backends and count their workspace's shares;
		// this process only needs the backends' names, and its pool gives
		// out the host-wide slots.
		names = workerBackends(cfg.sandbox, cfg.log)
		bs = &backendSet{}
	case bs.backends == nil:
		// Every workspace in this process: the sandbox backend bounds live
		// sandboxes itself (MaxSandboxes, the least recently used idle one
		// stopped past it), a pool here the other host-wide kinds.
		lim := backendLimits{jsConcurrent: jsConcurrent, maxSandboxes: orUnbounded(cfg.fair.Host[fair.Sandbox].Max)}
		var err error
		if bs, err = newBackendsAt(cfg.sandbox, cfg.data, nil, lim, cfg.log); err != nil {
			return err
		}
		defer bs.close()
		hostSlots = cfg.fair.pool(false)
		ledger = fair.NewLedger(cfg.fair.Limits, hostSlots.Local())
		cfg.fair.setRun(&bs.run)
		newEgressHost(cfg.egress, cfg.data, cfg.log).setRun(bs)
		bs.admit = cfg.fair.admit(ledger, bs.sandbox)
		fallthrough
	default:
		names = slices.Sorted(maps.Keys(bs.backends))
	}
	ph := newPolicyHost(cfg.data, cfg.log)
	if cfg.workers == nil {
		ph.setRun(bs, cfg.log)
	}
	backends := bs.backends
	h, err := host.Open(ctx, host.Options{
		DataDir:      cfg.data,
		IdleTimeout:  cfg.idle,
		MaxOpen:      cfg.maxOpen,
		MaxDataBytes: cfg.maxData,
		SharedSpace:  cfg.workers != nil,
		ReserveBytes: cfg.reserve,
		Workspace:    cfg.quota.workspace(bs.workspaceOptions()),
		Logger:       cfg.log,
		StoreLimits:  ph.storeLimits,
	})
	if errors.Is(err, host.ErrLocked) {
		return fmt.Errorf("%w (is another desk serve running on it?)", err)
	}
	if err != nil {
		return err
	}
	a, err := auth.Open(ctx, h.DataDir(), auth.Options{AdminToken: cfg.token})
	if err != nil {
		h.Close()
		return err
	}
	mo, err := mountOptions(h.DataDir())
	if err != nil {
		a.Close()
		h.Close()
		return err
	}
	// Mounts a killed server or worker left (dead: every access fails
	// with ENOTCONN) are detached; no worker of this server runs yet.
	cleanMounts(mo.RecordDir, "", cfg.log)
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		a.Close()
		h.Close()
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("%w: is another desk serve running? Choose another address with --addr", err)
		}
		return err
	}
	url := "http://" + dialAddr(ln.Addr())
	publicURL := cmp.Or(cfg.shares.publicURL, url)
	shares, err := cfg.shares.open(ctx, h.DataDir(), publicURL, true, cfg.log)
	if err != nil {
		ln.Close()
		a.Close()
		h.Close()
		return err
	}
	defer shares.Close()
	linkKey, err := portLinkKey(h.DataDir())
	var links *api.PortLinks
	if err == nil {
		links, err = api.OpenPortLinks(filepath.Join(h.DataDir(), portLinksFile))
	}
	if err != nil {
		ln.Close()
		a.Close()
		h.Close()
		return err
	}
	artifacts, err := openArtifacts(ctx, h.DataDir())
	if err != nil {
		ln.Close()
		a.Close()
		h.Close()
		return err
	}
	defer artifacts.Close()
	if cfg.auditRetention == 0 {
		cfg.auditRetention = audit.DefaultRetention
	}
	journal, err := openAudit(h.DataDir(), cfg.auditRetention)
	if err != nil {
		ln.Close()
		a.Close()
		h.Close()
		return err
	}
	defer journal.Close()
	ph.journal = journal
	if cfg.workers == nil {
		ph.abandon("", cfg.log) // with workers, each worker does it for its workspace
	}
	ao := api.Options{Audit: journal, Logger: cfg.log, Shell: shellConfig(backends, bs.egress), Backends: names, Shares: shares, Mounts: mo, Fair: ledger, HostSlots: hostSlots,
		Egress: egress.OpenStore(h.DataDir()), EgressDefault: cfg.egress.def, Artifacts: artifacts, ArtifactURL: publicURL,
		Policy: ph.store, Approvals: ph.approvals}
	cfg.quota.apply(&ao)
	ao.Ports = portConfig(backends, linkKey)
	ao.Ports.Links = links
	ao.Images = imageService{data: h.DataDir()}
	ao.Ports.PublicURL = cfg.shares.publicURL
	if ledger != nil {
		ao.Shell.MaxShells = unbounded // the shares bound shells
	}
	if cfg.workers != nil {
		cfg.workers.publicURL = publicURL
		if ao.Workers, err = cfg.workers.pool(h.DataDir(), cfg.maxOpen, cfg.log); err != nil {
			ln.Close()
			a.Close()
			h.Close()
			return err
		}
	}
	srv, err := api.New(h, a, ao)
	if err != nil {
		ln.Close()
		if ao.Workers != nil {
			ao.Workers.Close(ctx)
		}
		a.Close()
		h.Close()
		return err
	}
	shutdown := func(hs *http.Server) error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		return srv.Shutdown(sctx, hs)
	}
	sweepCtx, stopSweep := context.WithCancel(context.WithoutCancel(ctx))
	swept := make(chan struct{})
	go func() { defer close(swept); sweepShares(sweepCtx, shares, cfg.log) }()
	defer func() { stopSweep(); <-swept }()
	hs := srv.NewHTTPServer(cfg.addr)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()

	if a.Generated() {
		fmt.Fprintf(cfg.st.err, "\ndesk serve: generated the admin token, shown only this once (it is kept in %s, mode 0600):\n\n    %s\n\n",
			filepath.Join(h.DataDir(), auth.AdminTokenFile), a.AdminToken())
	}
	cfgPath := "not written (--no-config)"
	if cfg.writeConfig {
		p, err := writeConfig(configFile{URL: url, Token: a.AdminToken(), DataDir: h.DataDir(), PID: os.Getpid()})
		if err != nil {
			cfg.log.Warn("cannot write the client config file; client commands need DESK_URL and DESK_TOKEN", "err", err)
			cfgPath = "not written"
		} else {
			cfgPath = p
		}
	}
	shown := "none yet (desk exec needs one)"
	if len(names) > 0 {
		shown = strings.Join(names, ",")
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		cfg.log.Warn("listening beyond loopback over plain HTTP: tokens travel in clear text", "addr", ln.Addr().String())
	}
	mode := "in this process"
	if cfg.workers != nil {
		mode = "a worker process per workspace"
	}
	shareStore := "local"
	if cfg.shares.store != "" {
		shareStore = cfg.shares.store
	}
	cfg.log.Info("desk serve listening", "url", url, "data", h.DataDir(), "backends", shown, "shares", shareStore, "share_links", publicURL,
		"idle", cfg.idle.String(), "max_open", cfg.maxOpen, "workspaces", mode, "config", cfgPath, "pid", os.Getpid())
	if cfg.hooks.ready != nil {
		cfg.hooks.ready(url)
	}

	select {
	case <-ctx.Done():
		cfg.log.Info("desk serve stopping: finishing requests, stopping executions, closing workspaces (interrupt again to exit at once)")
		again, stopped := make(chan os.Signal, 1), make(chan struct{})
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		defer func() { signal.Stop(again); close(stopped) }()
		go func() {
			select {
			case <-again:
				// Like kill -9: every acknowledged write is already durable.
				cfg.log.Error("desk serve: interrupted again, exiting without waiting")
				os.Exit(exitError)
			case <-stopped:
			}
		}()
		if err := shutdown(hs); err != nil {
			return fmt.Errorf("shut down: %w", err)
		}
		<-errc // http.ErrServerClosed
		cfg.log.Info("desk serve stopped")
		return nil
	case err := <-errc:
		shutdown(nil)
		return fmt.Errorf("serve: %w", err)
	}
}

// dialAddr is the address a client on this machine dials to reach a
// listener: an unspecified IP (0.0.0.0, ::) becomes the loopback address.
func dialAddr(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	ip := ta.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(ta.Port))
}
