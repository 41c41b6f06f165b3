package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/cgroup"
	"github.com/desk-dev/desk/internal/fair"
)

// Defaults for Options.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultStopTimeout  = 30 * time.Second
	DefaultMaxWorkers   = 64
)

// Sentinel errors.
var (
	// ErrClosed: the pool is closed.
	ErrClosed = errors.New("worker pool closed")
	// ErrInUse: Stop of a workspace whose worker has requests in flight.
	ErrInUse = errors.New("workspace worker in use")
	// ErrTooMany: every worker slot is in use (Options.MaxWorkers).
	ErrTooMany = errors.New("too many workspace workers")
	// ErrExited: the worker exited while starting or serving a request.
	ErrExited = errors.New("workspace worker exited")
)

// Options configure a Pool.
type Options struct {
	// Command returns the command that runs a worker; the pool owns its
	// Stdin and Stdout (the control channel, which also says which workspace
	// to serve). Required.
	Command func() *exec.Cmd
	// Spare keeps one worker started ahead of need, its process start and
	// the runtime's initialisation paid, so that a workspace's first request
	// waits only for its store to open.
	Spare bool
	// SocketDir holds the workers' sockets; made with mode 0700. Required.
	SocketDir string
	// Cgroups puts each worker in a control group of its own (package
	// cgroup) with Limits; it needs the right to manage cgroups (root).
	Cgroups bool
	Limits  cgroup.Limits
	// OOMScoreAdj is each worker's /proc/PID/oom_score_adj (default 0):
	// positive makes the kernel's OOM killer take a worker before the
	// server when the whole machine runs out.
	OOMScoreAdj int
	// MaxWorkers bounds the workers alive at once; past it a request that
	// needs another fails with ErrTooMany. Default DefaultMaxWorkers.
	MaxWorkers int
	// StartTimeout bounds a worker's start, to its "ready". StopTimeout
	// bounds a graceful stop (executions recorded, store closed) before the
	// worker is killed. Defaults 30s each.
	StartTimeout, StopTimeout time.Duration
	// Logger receives the workers' starts, exits and crashes.
	Logger *slog.Logger
	// OnExit, if set, is called after a worker of ws has exited and been
	// cleaned up: crashed reports an exit the pool did not ask for, why says
	// what happened.
	OnExit func(ws string, crashed bool, why string)
	// Slots gives out the host-wide slots the workers ask for over their
	// control channels (a worker's Slots); a worker that exits gives back
	// every slot it held. Nil: a pool without bounds.
	Slots *fair.Pool

	onSpare func(pid int) // tests: a spare is ready
}

// Pool runs one worker process per active workspace and sends requests to
// it. See the package documentation.
type Pool struct {
	opts Options

	mu       sync.Mutex
	procs    map[string]*proc
	crashed  map[string]string        // why the last worker of a workspace died, for the next one
	left     map[string]*cgroup.Group // a dead worker's cgroup its sandbox still held; the next worker's start-up frees it
	spare    *process                 // started, not yet assigned (Options.Spare)
	spawning bool                     // a spare is being started
	closed   bool
	stats    Stats
	execs    Executions
	wg       sync.WaitGroup // a goroutine per live process
}

// Executions are the executions the workers reported (ExecEvent): started
// by backend, ended by backend and status, and running now by backend
// (those of a worker that died are no longer running).
type Executions struct {
	Started map[string]uint64
	Ended   map[ExecEnd]uint64
	Running map[string]int
}

// ExecEnd is a key of Executions.Ended.
type ExecEnd struct{ Backend, Status string }

// Executions returns a copy of the pool's execution counts.
func (p *Pool) Executions() Executions {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Executions{Started: maps.Clone(p.execs.Started), Ended: maps.Clone(p.execs.Ended), Running: maps.Clone(p.execs.Running)}
}

// countExec counts an ExecEvent of e's; the caller holds p.mu.
func (p *Pool) countExecLocked(e *proc, ev ExecEvent) {
	if p.execs.Started == nil {
		p.execs = Executions{Started: map[string]uint64{}, Ended: map[ExecEnd]uint64{}, Running: map[string]int{}}
	}
	if e.running == nil {
		e.running = map[string]int{}
	}
	if ev.Status == "" {
		p.execs.Started[ev.Backend]++
		p.execs.Running[ev.Backend]++
		e.running[ev.Backend]++
		return
	}
	p.execs.Ended[ExecEnd(ev)]++
	if e.running[ev.Backend] > 0 {
		e.running[ev.Backend]--
		p.execs.Running[ev.Backend]--
	}
}

// Stats are the pool's counters.
type Stats struct {
	Live     int    // workers alive now
	Starts   uint64 // workers started
	Exits    uint64 // exits the pool asked for (idle, Stop, Close)
	Crashes  uint64 // exits it did not ask for (killed, crashed, OOM)
	OOMKills uint64 // of those, kills by the OOM killer in the worker's cgroup
}

// proc is one worker process.
type proc struct {
	ws   string
	cmd  *exec.Cmd
	ctl  io.WriteCloser // the worker's stdin
	sock string
	key  string // sent with every request (HeaderKey)
	tr   *http.Transport
	cg   *cgroup.Group

	wmu sync.Mutex // one control line at a time

	ready chan struct{} // closed when started (err says how)
	err   error
	done  chan struct{} // closed when the process has exited and is cleaned up

	// Guarded by Pool.mu.
	inflight int
	stopping bool           // an exit was asked for: new requests wait
	asked    string         // the exit reason sent
	offered  bool           // the worker said idle and nothing came since
	wake     chan struct{}  // closed (and replaced) when stopping turns false
	running  map[string]int // executions running, by backend (ExecEvent)
}

// New returns a pool; it starts no process.
func New(opts Options) (*Pool, error) {
	if opts.Command == nil || opts.SocketDir == "" {
		return nil, errors.New("new worker pool: Command and SocketDir are required")
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.StopTimeout == 0 {
		opts.StopTimeout = DefaultStopTimeout
	}
	if opts.MaxWorkers == 0 {
		opts.MaxWorkers = DefaultMaxWorkers
	}
	if opts.MaxWorkers < 0 || opts.StartTimeout < 0 || opts.StopTimeout < 0 {
		return nil, errors.New("new worker pool: negative option")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Slots == nil {
		opts.Slots = fair.NewPool(fair.PoolOptions{})
	}
	// Parents as anyone's (others, such as the sandboxes' unprivileged
	// root, may need to pass through them); the directory itself private.
	if err := os.MkdirAll(filepath.Dir(opts.SocketDir), 0o755); err != nil {
		return nil, fmt.Errorf("new worker pool: %w", err)
	}
	if err := os.Mkdir(opts.SocketDir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("new worker pool: %w", err)
	}
	if err := os.Chmod(opts.SocketDir, 0o700); err != nil {
		return nil, fmt.Errorf("new worker pool: %w", err)
	}
	p := &Pool{opts: opts, procs: map[string]*proc{}, crashed: map[string]string{}, left: map[string]*cgroup.Group{}}
	if opts.Cgroups {
		// A server killed with SIGKILL leaves its workers' groups (the
		// workers exit by themselves, but nobody removes the directories).
		if n, err := cgroup.RemoveStale(staleGroup); err != nil {
			opts.Logger.Warn("worker: cannot remove stale cgroups", "err", err)
		} else if n > 0 {
			opts.Logger.Info("worker: removed the cgroups of dead servers' workers", "groups", n)
		}
	}
	p.refill()
	return p, nil
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Live = len(p.procs)
	return s
}

// State reports whether ws has a worker alive now and how many requests it
// has in flight.
func (p *Pool) State(ws string) (alive bool, inflight int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.procs[ws]
	if e == nil {
		return false, 0
	}
	return true, e.inflight
}

// acquire returns ws's worker, started if need be, counted busy until
// release.
func (p *Pool) acquire(ctx context.Context, ws string) (*proc, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		e := p.procs[ws]
		if e == nil {
			if len(p.procs) >= p.opts.MaxWorkers {
				p.mu.Unlock()
				return nil, fmt.Errorf("%w: %d alive (MaxWorkers %d)", ErrTooMany, len(p.procs), p.opts.MaxWorkers)
			}
			e = &proc{ws: ws, ready: make(chan struct{}), done: make(chan struct{}), wake: make(chan struct{})}
			p.procs[ws] = e
			p.stats.Starts++
			why := p.crashed[ws]
			delete(p.crashed, ws)
			p.wg.Add(1)
			go p.start(e, why)
		}
		if e.stopping {
			wake := e.wake
			p.mu.Unlock()
			select {
			case <-wake:
			case <-e.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		p.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil {
			return nil, e.err
		}
		p.mu.Lock()
		if e.stopping || p.procs[ws] != e {
			p.mu.Unlock()
			continue
		}
		e.inflight++
		e.offered = false
		p.mu.Unlock()
		return e, nil
	}
}

// release ends a request on e. The last one out of a worker that offered to
// exit asks it again.
func (p *Pool) release(e *proc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.inflight--
	if e.inflight == 0 && e.offered && !e.stopping {
		p.askLocked(e, exitIdle)
	}
}

// send writes one control line to e.
func (e *proc) send(m message) error {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	return send(e.ctl, m)
}

// Reclaim asks the worker to give slot id back (fair.Owner).
func (e *proc) Reclaim(id uint64) {
	if err := e.send(message{Reclaim: id}); err != nil {
		// Gone or going: its exit releases the slot.
		return
	}
}

// Slots returns the pool of host-wide slots (Options.Slots).
func (p *Pool) Slots() *fair.Pool { return p.opts.Slots }

// askLocked asks e to exit.
func (p *Pool) askLocked(e *proc, why string) {
	if e.stopping && e.asked == exitStop {
		return
	}
	e.stopping, e.asked = true, why
	if err := e.send(message{Exit: why}); err != nil {
		// The worker is gone or going: its exit ends the entry.
		p.opts.Logger.Debug("worker: cannot ask to exit", "workspace", e.ws, "err", err)
	}
}

// start starts e's process and follows it until it exits.
func (p *Pool) start(e *proc, recovered string) {
	defer p.wg.Done()
	ctlOut, err := p.launch(e, recovered)
	if err != nil {
		e.err = fmt.Errorf("start worker of %s: %w", e.ws, err)
		p.opts.Logger.Error("worker: start failed", "workspace", e.ws, "err", err)
		p.mu.Lock()
		if p.procs[e.ws] == e {
			delete(p.procs, e.ws)
		}
		p.mu.Unlock()
		close(e.ready)
		close(e.done)
		return
	}
	p.opts.Logger.Debug("worker: started", "workspace", e.ws, "pid", e.cmd.Process.Pid)
	// A ready worker has cleaned up what its dead predecessor's sandbox left
	// (package sandbox does at start-up), so that one's cgroup can go now.
	p.mu.Lock()
	old := p.left[e.ws]
	delete(p.left, e.ws)
	p.mu.Unlock()
	if old != nil {
		if err := old.Remove(); err != nil {
			p.opts.Logger.Warn("worker: cannot remove a dead worker's cgroup", "workspace", e.ws, "err", err)
		}
	}
	p.follow(e, ctlOut)
}

// process is a started worker process: a spare until assigned.
type process struct {
	cmd *exec.Cmd
	ctl io.WriteCloser // its stdin
	cr  *controlReader // its stdout
	cg  *cgroup.Group
	key string
}

// kill ends a process that never served (or failed to start serving).
func (pr *process) kill() {
	pr.cmd.Process.Kill()
	pr.ctl.Close()
	pr.cmd.Wait()
	if pr.cg != nil {
		pr.cg.Remove()
	}
}

// spawn starts a worker process, puts it in its cgroup and gives it its
// key. The worker waits for the key before doing anything, so it is in its
// group before it allocates; then it prepares what needs no workspace and
// waits for its assignment.
func (p *Pool) spawn() (*process, error) {
	var key [32]byte
	rand.Read(key[:])
	cmd := p.opts.Command()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true // a terminal's ^C is the server's to handle
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pr := &process{cmd: cmd, ctl: in, cr: newControlReader(out), key: hex.EncodeToString(key[:])}
	if p.opts.Cgroups {
		g, err := cgroup.New(groupName(os.Getpid(), cmd.Process.Pid), p.opts.Limits)
		if err != nil {
			pr.kill()
			return nil, err
		}
		pr.cg = g
		if err := g.Add(cmd.Process.Pid); err != nil {
			pr.kill()
			return nil, err
		}
	}
	if p.opts.OOMScoreAdj != 0 {
		os.WriteFile("/proc/"+strconv.Itoa(cmd.Process.Pid)+"/oom_score_adj", []byte(strconv.Itoa(p.opts.OOMScoreAdj)), 0)
	}
	if err := send(in, message{Key: pr.key}); err != nil {
		pr.kill()
		return nil, err
	}
	return pr, nil
}

// groupName is the cgroup of worker pid of the server server: the server's
// pid in it tells a dead server's groups from a live one's.
func groupName(server, pid int) string {
	return "desk-worker-" + strconv.Itoa(server) + "-" + strconv.Itoa(pid)
}

// staleGroup reports whether name is a worker group of a server that no
// longer runs.
func staleGroup(name string) bool {
	rest, ok := strings.CutPrefix(name, "desk-worker-")
	if !ok {
		return false
	}
	srv, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(srv)
	if !ok || err != nil || pid <= 0 {
		return false
	}
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// takeSpare returns the spare process, if one is ready, and starts the
// next.
func (p *Pool) takeSpare() *process {
	p.mu.Lock()
	pr := p.spare
	p.spare = nil
	p.mu.Unlock()
	p.refill()
	return pr
}

// refill starts a spare process if the pool keeps one and has none.
func (p *Pool) refill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.opts.Spare || p.closed || p.spare != nil || p.spawning {
		return
	}
	p.spawning = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		pr, err := p.spawn()
		p.mu.Lock()
		p.spawning = false
		keep := err == nil && !p.closed
		if keep {
			p.spare = pr
		}
		p.mu.Unlock()
		if keep && p.opts.onSpare != nil {
			p.opts.onSpare(pr.cmd.Process.Pid)
		}
		if err != nil {
			p.opts.Logger.Warn("worker: cannot start a spare", "err", err)
		} else if !keep {
			pr.kill()
		}
	}()
}

// launch gives e a process (the spare, else a new one), assigns it the
// workspace and waits for its "ready"; it returns the control reader for
// follow. On error the process is gone.
func (p *Pool) launch(e *proc, recovered string) (*controlReader, error) {
	e.sock = filepath.Join(p.opts.SocketDir, e.ws+".sock")
	os.Remove(e.sock) // a dead worker's
	pr := p.takeSpare()
	if pr != nil {
		cr, err := p.assign(e, pr, recovered)
		if err == nil {
			return cr, nil
		}
		// The spare died while waiting (killed, say): start afresh.
		p.opts.Logger.Debug("worker: the spare failed", "err", err)
	}
	pr, err := p.spawn()
	if err != nil {
		return nil, err
	}
	return p.assign(e, pr, recovered)
}

// assign makes pr e's worker.
func (p *Pool) assign(e *proc, pr *process, recovered string) (*controlReader, error) {
	e.cmd, e.ctl, e.cg, e.key = pr.cmd, pr.ctl, pr.cg, pr.key
	e.tr = newTransport(e.sock)
	fail := func(err error) (*controlReader, error) {
		pr.kill()
		e.cg = nil
		return nil, err
	}
	if err := e.send(message{Assign: &Assign{Workspace: e.ws, Socket: e.sock, Recovered: recovered}}); err != nil {
		return fail(err)
	}
	got := make(chan error, 1)
	go func() {
		m, err := pr.cr.next()
		if err == nil && !m.Ready {
			err = fmt.Errorf("unexpected control message %+v", m)
		}
		got <- err
	}()
	t := time.NewTimer(p.opts.StartTimeout)
	defer t.Stop()
	select {
	case err := <-got:
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w before it was ready", ErrExited)
			}
			return fail(err)
		}
	case <-t.C:
		return fail(fmt.Errorf("not ready within %v", p.opts.StartTimeout))
	}
	close(e.ready)
	return pr.cr, nil
}

// follow reads e's control messages until the process exits, then cleans up.
func (p *Pool) follow(e *proc, cr *controlReader) {
	for {
		m, err := cr.next()
		if err != nil {
			break
		}
		switch {
		case m.Idle:
			p.mu.Lock()
			if e.inflight == 0 && !e.stopping {
				p.askLocked(e, exitIdle)
			} else {
				e.offered = true
			}
			p.mu.Unlock()
		case m.Busy:
			p.mu.Lock()
			if e.asked == exitIdle {
				e.stopping, e.asked, e.offered = false, "", false
				close(e.wake)
				e.wake = make(chan struct{})
			}
			p.mu.Unlock()
		case m.Acquire != nil:
			p.take(e, *m.Acquire)
		case m.Release != 0:
			p.opts.Slots.Release(e, m.Release)
		case m.SlotIdle != nil:
			p.opts.Slots.Idle(e, m.SlotIdle.Slot, m.SlotIdle.Idle)
		case m.Exec != nil:
			p.mu.Lock()
			p.countExecLocked(e, *m.Exec)
			p.mu.Unlock()
		}
	}
	// The worker closed its end: it is exiting. Wait for it (bounded).
	exited := make(chan error, 1)
	go func() { exited <- e.cmd.Wait() }()
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(p.opts.StopTimeout):
		e.cmd.Process.Kill()
		werr = <-exited
	}
	e.wmu.Lock()
	e.ctl.Close()
	e.wmu.Unlock()
	e.tr.CloseIdleConnections()
	os.Remove(e.sock)
	// Whatever it held is free: a dead worker keeps no slot.
	if n := p.opts.Slots.Drop(e); n > 0 {
		p.opts.Logger.Debug("worker: slots given back at exit", "workspace", e.ws, "slots", n)
	}
	var ooms int64
	var busy *cgroup.Group
	if e.cg != nil {
		ooms = e.cg.OOMKills()
		if err := e.cg.Remove(); err != nil {
			busy = e.cg // its sandbox outlived it: the next worker cleans that up
		}
	}
	p.mu.Lock()
	if busy != nil {
		p.left[e.ws] = busy
	}
	asked := e.stopping && e.asked != ""
	for b, n := range e.running { // what it ran has ended with it
		p.execs.Running[b] -= n
	}
	e.running = nil
	if p.procs[e.ws] == e {
		delete(p.procs, e.ws)
	}
	crashed := !asked || werr != nil
	why := e.asked
	if !crashed {
		p.stats.Exits++
		p.opts.Logger.Debug("worker: exited", "workspace", e.ws, "why", why)
	} else {
		p.stats.Crashes++
		why = describeExit(werr, ooms > 0, p.opts.Limits.MemoryBytes)
		p.crashed[e.ws] = why
		if ooms > 0 {
			p.stats.OOMKills++
		}
		p.opts.Logger.Error("worker: died", "workspace", e.ws, "why", why)
	}
	e.stopping = true
	p.mu.Unlock()
	close(e.done)
	if p.opts.OnExit != nil {
		p.opts.OnExit(e.ws, crashed, why)
	}
}

// take answers a worker's request for a host-wide slot.
func (p *Pool) take(e *proc, a SlotAsk) {
	if !a.Kind.Valid() {
		e.send(message{Grant: &SlotGrant{ID: a.ID, Refused: &SlotRefusal{Kind: a.Kind}}})
		return
	}
	p.opts.Slots.Take(e, a.Kind, a.Reclaimable, func(id uint64, err error) {
		g := &SlotGrant{ID: a.ID, Slot: id}
		if err != nil {
			g.Slot = 0
			g.Refused = &SlotRefusal{Kind: a.Kind, Gone: errors.Is(err, fair.ErrGone)}
			var le *fair.LimitError
			if errors.As(err, &le) {
				g.Refused.Held, g.Refused.Max, g.Refused.Setting = le.Held, le.Max, le.Setting
			}
		}
		if e.send(message{Grant: g}) != nil && err == nil {
			p.opts.Slots.Release(e, id) // it cannot learn of it: gone
		}
	})
}

// describeExit says why a worker died, for logs and the records of the
// executions it was running.
func describeExit(err error, oom bool, limit int64) string {
	s := "the workspace's worker exited"
	if err != nil {
		s = "the workspace's worker died (" + err.Error() + ")"
	}
	if oom {
		s = "the workspace's worker was killed by the OOM killer"
		if limit > 0 {
			s += fmt.Sprintf(" (memory limit %d MiB)", limit>>20)
		}
	}
	return s
}

// newTransport is the HTTP transport to a worker's socket.
func newTransport(sock string) *http.Transport {
	return &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
}

// Stop stops ws's worker, if one runs, and waits for it to exit: its
// running executions are stopped and recorded, its store closed. It fails
// with ErrInUse while requests are in flight.
func (p *Pool) Stop(ctx context.Context, ws string) error {
	p.mu.Lock()
	e := p.procs[ws]
	if e == nil {
		p.mu.Unlock()
		return nil
	}
	if e.inflight > 0 {
		p.mu.Unlock()
		return fmt.Errorf("stop worker of %s: %w", ws, ErrInUse)
	}
	select {
	case <-e.ready:
		p.askLocked(e, exitStop)
	default:
		e.stopping = true // starting: asked once ready (below)
	}
	p.mu.Unlock()
	return p.waitStopped(ctx, e)
}

// waitStopped waits for e to exit, asking it to once it is ready, and kills
// it past ctx.
func (p *Pool) waitStopped(ctx context.Context, e *proc) error {
	select {
	case <-e.ready:
		if e.err == nil {
			p.mu.Lock()
			p.askLocked(e, exitStop)
			p.mu.Unlock()
		}
	case <-ctx.Done():
	}
	select {
	case <-e.done:
		return nil
	case <-ctx.Done():
		if e.cmd != nil && e.cmd.Process != nil {
			e.cmd.Process.Kill()
		}
		<-e.done
		return fmt.Errorf("stop worker of %s: %w", e.ws, ctx.Err())
	}
}

// Close stops every worker (gracefully, within ctx; then by force) and
// refuses new requests.
func (p *Pool) Close(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	spare := p.spare
	p.spare = nil
	all := make([]*proc, 0, len(p.procs))
	for _, e := range p.procs {
		all = append(all, e)
	}
	p.mu.Unlock()
	if spare != nil {
		spare.kill() // it waits for its assignment: nothing to stop
	}
	var errs []error
	var wg sync.WaitGroup
	var emu sync.Mutex
	for _, e := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.waitStopped(ctx, e); err != nil {
				emu.Lock()
				errs = append(errs, err)
				emu.Unlock()
			}
		}()
	}
	wg.Wait()
	p.wg.Wait()
	return errors.Join(errs...)
}
