package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

// ID is the backend id the sandbox backend is registered under.
const ID = "sandbox"

// Backend is the sandbox backend: bash in a Linux sandbox, one sandbox per
// workspace, started on first use and kept warm. It is safe for concurrent
// use. Close it when the server stops.
type Backend struct {
	opts Options
	log  *slog.Logger
	wg   sync.WaitGroup // sandboxes being cleaned up

	mu     sync.Mutex
	boxes  map[string]*box // live sandboxes by workspace name
	closed bool

	skelMu sync.Mutex
	skel   *skeleton // made on the first start (host userland only)

	interp initInterp // the init binary's ELF interpreter (image.go)

	detachedSeq atomic.Uint64                // numbers the init ids of RunDetached's programs
	access      accessTable                  // the path rules of the running executions (access.go)
	onDecision  atomic.Pointer[DecisionHook] // SetDecisionHook's (rules.go)

	// idleChecked, when set (by tests, before the first execution), is
	// called after each idle check that asked the init, with whether it
	// stopped the sandbox: the event a test waits on instead of sleeping
	// past IdleTimeout.
	idleChecked func(ws string, stopped bool)
	// noCPUGroups, when set (by benchmarks, before the first execution),
	// runs executions without cgroups of their own: not metered, as
	// before they were (the yardstick of their cost).
	noCPUGroups bool

	lock *os.File // flock on StateDir: one Backend per StateDir
}

var _ run.Backend = (*Backend)(nil)

// New returns a Backend with opts (zero fields take their defaults). It fails
// with ErrNoSandbox when the runtime is missing; use Available to check the
// host first. New starts nothing: the first execution of a workspace starts
// its sandbox.
func New(opts Options) (*Backend, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	// StateDir first: the parents it makes must let the sandbox's root pass.
	// (MountDir is made with the first mount.)
	for _, d := range []struct {
		dir  string
		perm os.FileMode
		gid  int
	}{{o.StateDir, passDirMode, int(o.HostID)}, {o.RuntimeRoot, privateDirMode, -1}} {
		if err := makeDir(d.dir, d.perm, d.gid); err != nil {
			return nil, err
		}
	}
	lock, err := lockDir(o.StateDir)
	if err != nil {
		return nil, err
	}
	b := &Backend{opts: o, log: o.Logger, boxes: map[string]*box{}, lock: lock}
	if b.opts.Mount == nil {
		b.opts.Mount = b.fuseMount
	}
	b.cleanStale()
	return b, nil
}

// lockDir takes an exclusive flock on the directory dir, held until the
// returned file is closed (or the process dies).
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("lock sandbox state: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock sandbox state %s: %w", dir, ErrInUse)
		}
		return nil, fmt.Errorf("lock sandbox state %s: %w", dir, err)
	}
	return f, nil
}

// Options returns the backend's options with defaults filled in.
func (b *Backend) Options() Options { return b.opts }

// Run runs job.Source with Options.Shell -c in the workspace's sandbox,
// starting the sandbox if it is not running. See the package documentation.
func (b *Backend) Run(ctx context.Context, job *run.Job) (run.Outcome, error) {
	ws, err := b.jobWorkspace(job)
	if err != nil {
		return run.Outcome{}, err
	}
	defer b.trackAccess(ctx, ws.Name, job.ID)()
	var out run.Outcome
	err = b.useBox(ctx, ws, func(x *box) (keep, started bool, err error) {
		out, started, err = x.execute(ctx, job)
		return false, started, err
	})
	return out, err
}

// jobWorkspace is the workspace a job runs in.
func (b *Backend) jobWorkspace(job *run.Job) (Workspace, error) {
	if job.FS == nil {
		return Workspace{}, fmt.Errorf("run in sandbox: the job has no workspace store")
	}
	// The store itself, not the execution's batching handle (run gives each
	// execution its own): a sandbox is the store's, found by its pointer, and
	// its writes go through the mount.
	return Workspace{Name: b.opts.Name(job.FS), FS: job.FS.Base()}, nil
}

// useBox calls fn with the workspace's live sandbox, starting one if needed,
// and releases the sandbox when fn returns unless fn keeps it (its caller
// then releases it later). When fn fails before its program started and the
// sandbox turns out to have died (its init was killed between two uses),
// useBox starts a new sandbox and calls fn once more.
func (b *Backend) useBox(ctx context.Context, ws Workspace, fn func(x *box) (keep, started bool, err error)) error {
	for attempt := 0; ; attempt++ {
		x, err := b.acquire(ctx, ws)
		if err != nil {
			return err
		}
		keep, started, err := fn(x)
		if !keep {
			b.release(x)
		}
		if err != nil && !started && attempt == 0 && x.isDead() && ctx.Err() == nil {
			b.log.Info("sandbox: restarting a sandbox that stopped", "workspace", ws.Name, "why", x.reason())
			continue
		}
		return err
	}
}

// acquire returns the workspace's live sandbox, starting one if needed, and
// counts the caller as a user until release.
func (b *Backend) acquire(ctx context.Context, ws Workspace) (*box, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, fmt.Errorf("start sandbox: %w", ErrClosed)
	}
	x := b.boxes[ws.Name]
	var retire []*box
	if x != nil && (x.isDead() || x.ws.FS != ws.FS) {
		// A store opened again is a new workspace instance: its mount differs.
		delete(b.boxes, ws.Name)
		retire = append(retire, x)
		x = nil
	}
	if x == nil {
		if len(b.boxes) >= b.opts.MaxSandboxes {
			lru := b.lruIdleLocked()
			if lru == nil {
				b.mu.Unlock()
				return nil, fmt.Errorf("start sandbox for %s: %d are live and busy: %w", ws.Name, len(b.boxes), ErrTooManySandboxes)
			}
			delete(b.boxes, lru.ws.Name)
			retire = append(retire, lru)
		}
		x = newBox(b, ws)
		b.boxes[ws.Name] = x
		go x.start()
	}
	x.users++
	if x.idle != nil {
		x.idle.Stop()
		x.idle = nil
	}
	if x.slotIdle {
		x.markIdle(false)
	}
	b.mu.Unlock()
	for _, r := range retire {
		r.die(errors.New("replaced"))
	}
	select {
	case <-x.ready:
	case <-ctx.Done():
		b.release(x)
		return nil, fmt.Errorf("start sandbox: %w", context.Cause(ctx))
	}
	if x.err != nil {
		b.release(x)
		return nil, x.err
	}
	return x, nil
}

// lruIdleLocked returns the least recently used sandbox nobody uses.
func (b *Backend) lruIdleLocked() *box {
	var lru *box
	for _, x := range b.boxes {
		if x.users == 0 && (lru == nil || x.lastUsed.Before(lru.lastUsed)) {
			lru = x
		}
	}
	return lru
}

// release ends a use of x and arms its idle timer when it was the last.
func (b *Backend) release(x *box) {
	b.mu.Lock()
	defer b.mu.Unlock()
	x.users--
	x.lastUsed = time.Now()
	if x.users == 0 && b.boxes[x.ws.Name] == x && !b.closed {
		x.idle = time.AfterFunc(b.opts.IdleTimeout, func() { b.idleCheck(x) })
		x.markIdle(true)
	}
}

// Hold keeps the workspace's sandbox live, starting it if need be, until
// release: take it before starting executions in it, so that a sandbox
// that cannot start (Options.Slots refused, MaxSandboxes busy) refuses
// them before they start rather than failing them. A held sandbox is not
// idle: it is neither stopped nor reclaimed.
func (b *Backend) Hold(ctx context.Context, ws Workspace) (release func(), err error) {
	if ws.FS == nil {
		return nil, errors.New("hold sandbox: no workspace store")
	}
	if ws.Name == "" {
		ws.Name = b.opts.Name(ws.FS)
	}
	x, err := b.acquire(ctx, ws)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { b.release(x) }) }, nil
}

// reclaim stops x if nothing uses it and it runs no detached execution,
// because another workspace needs its slot (Options.Slots); otherwise it
// tells the slot x is busy.
func (b *Backend) reclaim(x *box) {
	b.mu.Lock()
	if b.boxes[x.ws.Name] != x || b.closed {
		b.mu.Unlock()
		return // stopping already: its slot comes back when it is cleaned up
	}
	b.wg.Add(1) // as idleCheck: the stop's cleanup must not race Close's Wait
	defer b.wg.Done()
	if x.users > 0 {
		x.markIdle(false)
		b.mu.Unlock()
		return
	}
	if x.idle != nil {
		x.idle.Stop()
		x.idle = nil
	}
	b.mu.Unlock()
	b.stopIfIdle(x, errors.New("reclaimed: another workspace needed its slot (the host-wide bound of live sandboxes)"), true)
}

// idleCheck stops x if it is still unused and runs no detached execution.
// It runs on the idle timer's goroutine, counted in b.wg (so a stop it
// starts, whose cleanup joins b.wg too, cannot race Close's Wait) unless the
// backend is closing, which stops every sandbox itself.
func (b *Backend) idleCheck(x *box) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.wg.Add(1)
	b.mu.Unlock()
	defer b.wg.Done()
	b.stopIfIdle(x, fmt.Errorf("idle for %v", b.opts.IdleTimeout), false)
}

// stopIfIdle stops x for why if it is unused and runs no detached
// execution; otherwise it arms the idle timer again (and, for a reclaim,
// tells the slot x is busy).
func (b *Backend) stopIfIdle(x *box, why error, reclaim bool) {
	b.mu.Lock()
	if b.boxes[x.ws.Name] != x || x.users > 0 {
		if reclaim && b.boxes[x.ws.Name] == x {
			x.markIdle(false)
		}
		b.mu.Unlock()
		return
	}
	x.users++ // hold it while asking the init
	b.mu.Unlock()
	busy := false
	<-x.ready
	if x.err == nil && !x.isDead() {
		ctx, cancel := context.WithTimeout(context.Background(), b.opts.StopTimeout)
		if l, err := x.list(ctx); err == nil {
			for _, d := range l {
				busy = busy || d.Running
			}
		}
		cancel()
	}
	b.mu.Lock()
	x.users--
	stop := !busy && x.users == 0 && b.boxes[x.ws.Name] == x
	if stop {
		delete(b.boxes, x.ws.Name)
	} else if x.users == 0 && b.boxes[x.ws.Name] == x && !b.closed {
		if x.idle != nil {
			x.idle.Stop()
		}
		x.idle = time.AfterFunc(b.opts.IdleTimeout, func() { b.idleCheck(x) })
	}
	if !stop && reclaim {
		x.markIdle(false)
	}
	b.mu.Unlock()
	if stop {
		x.die(why)
	}
	if b.idleChecked != nil {
		b.idleChecked(x.ws.Name, stop)
	}
}

// forget removes x from the live sandboxes (x.die calls it).
func (b *Backend) forget(x *box) {
	b.mu.Lock()
	if b.boxes[x.ws.Name] == x {
		delete(b.boxes, x.ws.Name)
	}
	if x.idle != nil {
		x.idle.Stop()
		x.idle = nil
	}
	b.mu.Unlock()
}

// Stop stops the sandbox of workspace name, if it runs, and waits until it
// is cleaned up (or ctx ends). Executions running in it fail. Wire it to the
// workspace's close, so that a hibernating workspace keeps no sandbox.
func (b *Backend) Stop(ctx context.Context, name string) error {
	b.mu.Lock()
	x := b.boxes[name]
	b.mu.Unlock()
	if x == nil {
		return nil
	}
	x.die(errors.New("stopped"))
	select {
	case <-x.gone:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stop sandbox %s: %w", x.id, ctx.Err())
	}
}

// Live returns the names of the workspaces whose sandbox runs.
func (b *Backend) Live() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for name, x := range b.boxes {
		if !x.isDead() {
			out = append(out, name)
		}
	}
	return out
}

// Close stops every sandbox and waits until they are cleaned up; later
// executions fail with ErrClosed.
func (b *Backend) Close() error {
	b.mu.Lock()
	b.closed = true
	var all []*box
	for _, x := range b.boxes {
		all = append(all, x)
	}
	b.mu.Unlock()
	for _, x := range all {
		x.die(errors.New("the backend closed"))
	}
	b.wg.Wait()
	b.skelMu.Lock()
	defer b.skelMu.Unlock()
	var err error
	if b.skel != nil {
		if rerr := os.RemoveAll(b.skel.dir); rerr != nil {
			err = fmt.Errorf("remove root skeleton: %w", rerr)
		}
		b.skel = nil
	}
	if b.lock != nil {
		b.lock.Close()
		b.lock = nil
	}
	return err
}

// skeleton returns the shared root skeleton, making it on first use (nil
// when Options.RootDir names the root).
func (b *Backend) skeleton() (*skeleton, error) {
	if b.opts.RootDir != "" {
		return nil, nil
	}
	b.skelMu.Lock()
	defer b.skelMu.Unlock()
	if b.skel == nil {
		sk, err := makeSkeleton(&b.opts, filepath.Join(b.opts.StateDir, "rootfs"))
		if err != nil {
			return nil, err
		}
		b.skel = sk
	}
	return b.skel, nil
}
