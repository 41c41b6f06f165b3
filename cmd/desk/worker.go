package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/cgroup"
	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/jsvm"
	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/worker"
	"github.com/desk-dev/desk/internal/workspace"
)

// workerCommand is the hidden subcommand that serves one workspace for desk
// serve (package worker): desk serve runs this binary with it, one process
// per active workspace, and talks to it over a Unix socket. Run by hand it
// fails: it needs its parent's key on standard input.
const workerCommand = "worker"

// Defaults of desk serve's worker flags.
const (
	defaultWorkerMemory = 2 << 30 // a worker and its sandbox (whose own default is 1 GiB)
	defaultWorkerPids   = 4096    // a worker's threads and its sandbox's processes (512 by default)
	workerOOMScoreAdj   = 300     // the kernel's OOM killer takes a worker before desk serve
)

// workerConfig is what desk serve passes its workers.
type workerConfig struct {
	data     string
	idle     time.Duration
	maxData  int64
	reserve  int64 // --reserve-bytes: the workers share the data directory's reserve file
	sandbox  string
	logLevel slog.Level
	logJSON  bool
	limits   cgroup.Limits
	fair     fairConfig
	stderr   io.Writer // the workers' logs go where the server's go
	shares   *shareFlags
	egress   egressConfig
	quota    quotaFlags
	// publicURL is where share links start (set once the front listens,
	// before the pool starts a worker).
	publicURL string
}

// pool makes desk serve's worker pool: at most maxWorkers at once, each in a
// cgroup of its own with the configured limits when this process may make
// cgroups (else without, and the log says so).
func (wc workerConfig) pool(dataDir string, maxWorkers int, log *slog.Logger) (*worker.Pool, error) {
	cmd, err := wc.command()
	if err != nil {
		return nil, err
	}
	sockDir, err := workerSocketDir(dataDir)
	if err != nil {
		return nil, err
	}
	useCgroups := wc.limits != (cgroup.Limits{})
	if useCgroups {
		probe, err := cgroup.New("desk-probe-"+strconv.Itoa(os.Getpid()), wc.limits)
		if err != nil {
			log.Warn("workers run without cgroups: no memory, CPU or pids limit per workspace", "why", err)
			useCgroups = false
		} else {
			probe.Remove()
		}
	}
	mo, err := mountOptions(dataDir)
	if err != nil {
		return nil, err
	}
	return worker.New(worker.Options{
		Command: cmd, SocketDir: sockDir, Cgroups: useCgroups, Limits: wc.limits, Spare: true,
		OOMScoreAdj: workerOOMScoreAdj, MaxWorkers: maxWorkers, Logger: log,
		OnExit: func(ws string, crashed bool, _ string) {
			if crashed {
				// Its mounts are dead (ENOTCONN) but still mounted.
				cleanMounts(mo.RecordDir, ws, log)
			}
		},
		Slots: wc.fair.pool(true),
	})
}

// workerSocketDir is where the workers' sockets go: DATA/workers, private
// like the data directory, unless a socket's path would not fit a Unix
// socket address (108 bytes), then a directory of the user's in the
// temporary directory named after the data directory.
func workerSocketDir(dataDir string) (string, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return "", fmt.Errorf("find worker socket directory: %w", err)
	}
	dir := filepath.Join(abs, "workers")
	if len(dir)+len("/.sock")+workspace.MaxNameLen < 108 {
		return dir, nil
	}
	sd, err := sandboxDir(dataDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("desk-%d-%s", os.Geteuid(), filepath.Base(sd))), nil
}

// workerBackends are the backends the workers offer: shell and js always,
// the sandbox when this host can run it (the log says why not otherwise).
func workerBackends(runtime string, log *slog.Logger) []string {
	names := []string{jsvm.ID, "shell"}
	if err := sandboxUsable(runtime); err != nil {
		log.Info("no sandbox backend", "why", err)
	} else {
		names = append(names, sandbox.ID)
	}
	slices.Sort(names)
	return names
}

// args is a worker's command line (the workspace comes over its control
// channel).
func (wc workerConfig) args() []string {
	a := []string{workerCommand, "--data", wc.data, "--idle", wc.idle.String(),
		"--sandbox", wc.sandbox, "--log-level", wc.logLevel.String(), "--fair", wc.fair.fairJSON()}
	if wc.maxData > 0 {
		a = append(a, "--max-data-bytes", strconv.FormatInt(wc.maxData, 10))
	}
	if wc.reserve != 0 {
		a = append(a, "--reserve-bytes", strconv.FormatInt(wc.reserve, 10))
	}
	if wc.logJSON {
		a = append(a, "--log-format", "json")
	}
	if wc.shares != nil {
		a = append(a, wc.shares.args(wc.publicURL)...)
	}
	a = append(a, wc.quota.args()...)
	return append(a, wc.egress.args()...)
}

// command returns the worker pool's Options.Command: this executable.
func (wc workerConfig) command() (func() *exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this executable for the workers: %w", err)
	}
	return func() *exec.Cmd {
		cmd := exec.Command(exe, wc.args()...)
		cmd.Stderr = wc.stderr
		return cmd
	}, nil
}

// runWorker is `desk worker`: it waits for its parent desk serve to assign
// it a workspace (a spare waits here), then serves that workspace on a Unix
// socket until told to exit, the workspace hibernates and the parent
// agrees, or the parent goes away (its standard input ends).
func runWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("desk worker", flag.ContinueOnError)
	fl.SetOutput(stderr)
	data := fl.String("data", "", "the data directory")
	idle := fl.Duration("idle", host.DefaultIdleTimeout, "hibernate after this long unused")
	maxData := fl.Int64("max-data-bytes", 0, "the data directory's bound")
	reserve := fl.Int64("reserve-bytes", 0, "the data directory's reserve file (shared with the server)")
	sandboxRT := fl.String("sandbox", "runc", "the sandbox runtime, or off")
	logLevel := fl.String("log-level", "info", "log level")
	logFormat := fl.String("log-format", "text", "text or json")
	shf := addShareFlags(fl)
	qf := addQuotaFlags(fl)
	fairArg := fl.String("fair", "", "the fair shares, as JSON (its server's)")
	egf := addEgressFlags(fl)
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	fairCfg, err := parseFair(*fairArg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	egCfg, err := egf.config()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	var level slog.Level
	level.UnmarshalText([]byte(*logLevel))
	var handler slog.Handler = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})
	if *logFormat == "json" {
		handler = slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level})
	}
	log := slog.New(handler).With("worker", os.Getpid())
	if *data == "" {
		fmt.Fprintln(stderr, "desk worker: a hidden command of desk serve; it needs --data, and its parent's key and assignment on stdin")
		return exitUsage
	}
	hello, ctl, err := worker.ReadHello(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "desk worker: %v\n", err)
		return exitError
	}
	as, err := ctl.Assignment()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return exitOK // a spare the server no longer needs
		}
		fmt.Fprintf(stderr, "desk worker: %v\n", err)
		return exitError
	}
	ctx := context.Background()
	if err := serveWorker(ctx, workerRun{data: *data, ws: as.Workspace, sock: as.Socket, idle: *idle, maxData: *maxData,
		reserve: *reserve, sandbox: *sandboxRT, recovered: as.Recovered, log: log, key: hello.Key, ctl: ctl, report: stdout, shares: shf, fair: fairCfg, egress: egCfg, quota: qf}); err != nil {
		log.Error("desk worker", "err", err)
		return exitError
	}
	return exitOK
}

// workerRun is a parsed worker command line.
type workerRun struct {
	data, ws, sock, sandbox, recovered string
	idle                               time.Duration
	maxData, reserve                   int64
	log                                *slog.Logger
	key                                string
	ctl                                *worker.Control
	report                             io.Writer
	shares                             *shareFlags
	quota                              quotaFlags
	fair                               fairConfig
	egress                             egressConfig
}

func serveWorker(ctx context.Context, wr workerRun) error {
	// The host-wide slots come from the server's pool over the control
	// channel; the workspace's and its tokens' shares are counted here.
	slots := worker.NewSlots(wr.fair.hostKinds())
	// A js engine that could not be stopped runs until the process ends:
	// the worker then restarts as soon as nothing runs (restartWhenStuck).
	stuck := make(chan struct{}, 1)
	lim := backendLimits{jsConcurrent: jsConcurrent, onJSStuck: func() {
		select {
		case stuck <- struct{}{}:
		default:
		}
	}}
	if slots.Bounds(fair.Sandbox) {
		lim.slots = slots
	}
	bs, err := newWorkerBackends(wr.sandbox, wr.data, wr.ws, lim, wr.log)
	if err != nil {
		return err
	}
	defer bs.close()
	ledger := fair.NewLedger(wr.fair.Limits, slots)
	wr.fair.setRun(&bs.run)
	newEgressHost(wr.egress, wr.data, wr.log).setRun(bs)
	ph := newPolicyHost(wr.data, wr.log)
	ph.setRun(bs, wr.log)
	bs.admit = wr.fair.admit(ledger, bs.sandbox)
	// The data directory's lock is the parent's. The reserve file is
	// shared: any process that finds the disk full empties it (its other
	// users then count free space conservatively) and any takes it back once
	// there is room, both idempotent. The bound's count is shared too: the
	// server measured the directory at its start, and every worker adds
	// its changes to the same mapped count.
	space, err := vfs.OpenSpace(ctx, vfs.SpaceOptions{Dir: wr.data, Reserve: wr.reserve, Limit: wr.maxData, Shared: true, Attach: true, Logger: wr.log})
	if err != nil {
		return err
	}
	wo := bs.workspaceOptions()
	wo.VFS = wr.quota.vfs()
	wo.VFS.Space = space
	wo.Run.Recovered = wr.recovered
	var srv *worker.Server
	h, err := host.Open(ctx, host.Options{
		DataDir: wr.data, IdleTimeout: wr.idle, MaxOpen: 1, NoLock: true, Workspace: wo, Logger: wr.log,
		OnHibernate: func(string) { srv.Hibernated() }, StoreLimits: ph.storeLimits,
	})
	if err != nil {
		return err
	}
	mo, err := mountOptions(wr.data)
	if err != nil {
		h.Close()
		return err
	}
	// The share store of the data directory, opened by the front too: the
	// worker freezes copies into it (POST .../shares, the publish tool);
	// the front serves and revokes them.
	shares, err := wr.shares.open(ctx, wr.data, wr.shares.publicURL, false, wr.log)
	if err != nil {
		h.Close()
		return err
	}
	defer shares.Close()
	// The artifact store, opened by the front too: the front checks a git
	// request's token before it forwards it here, where it is checked again
	// and served from the workspace's store.
	artifacts, err := openArtifacts(ctx, wr.data)
	if err != nil {
		h.Close()
		return err
	}
	defer artifacts.Close()
	// The audit journal, shared with the front: the worker records the
	// requests it serves, with the changes they made.
	journal, err := openAudit(wr.data, 0)
	if err != nil {
		h.Close()
		return err
	}
	defer journal.Close()
	ph.journal = journal
	ph.abandon(wr.ws, wr.log)
	sc := shellConfig(bs.backends, bs.egress)
	sc.MaxShells = orUnbounded(wr.fair.Limits.Workspace[fair.Shell].Max)
	wao := api.Options{Logger: wr.log, Shell: sc, Ports: portConfig(bs.backends, nil), WorkerKey: wr.key, Shares: shares, Mounts: mo, Fair: ledger,
		Executions: execReport{&srv}, Artifacts: artifacts, ArtifactURL: wr.shares.publicURL, Policy: ph.store, Approvals: ph.approvals, Audit: journal}
	wr.quota.apply(&wao)
	a, err := api.New(h, nil, wao)
	if err != nil {
		h.Close()
		return err
	}
	srv = worker.NewServer(worker.ServeOptions{
		Socket:  wr.sock,
		Server:  a.NewHTTPServer(""),
		Control: wr.ctl,
		Report:  wr.report,
		Slots:   slots,
		Idle:    func() bool { return h.Stats().Open == 0 },
		Close: func() error {
			return a.Shutdown(context.Background(), nil)
		},
		Logger: wr.log,
	})
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go restartWhenStuck(rctx, stuck, h, srv, wr.log)
	return srv.Run(ctx)
}

// execReport reports the API's executions to the front over the control
// channel (the server is made after the API it serves).
type execReport struct{ srv **worker.Server }

func (r execReport) ExecStarted(backend string)       { (*r.srv).ExecStarted(backend) }
func (r execReport) ExecEnded(backend, status string) { (*r.srv).ExecEnded(backend, status) }

// stuckCheck is how often a worker with a stuck js engine checks whether
// nothing runs any more, so that it can restart.
const stuckCheck = 250 * time.Millisecond

// restartWhenStuck waits for a stuck js engine (one the js backend could
// not stop: it goes on inside a built-in call after its execution ended,
// using a CPU of the worker's share). Then, as soon as the workspace has no
// lease and runs nothing, it hibernates the workspace and offers the server
// to exit, as the idle timer would, and keeps offering until the server
// takes the offer: the process's exit ends the engine, and the next request
// starts a fresh worker.
func restartWhenStuck(ctx context.Context, stuck <-chan struct{}, h *host.Host, srv *worker.Server, log *slog.Logger) {
	select {
	case <-stuck:
	case <-ctx.Done():
		return
	}
	log.Warn("worker: a js engine could not be stopped; the worker restarts once nothing runs")
	tick := time.NewTicker(stuckCheck)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
		h.HibernateIdle()
		if h.Stats().Open == 0 {
			srv.Hibernated()
		}
	}
}

// newWorkerBackends is newBackends with the sandbox's state kept apart per
// workspace, so that one worker's start-up cleanup never touches another's
// sandboxes.
func newWorkerBackends(runtime, dataDir, ws string, lim backendLimits, log *slog.Logger) (*backendSet, error) {
	return newBackendsAt(runtime, dataDir, func(dir string) string { return filepath.Join(dir, "ws", ws) }, lim, log)
}
