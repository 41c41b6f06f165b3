package jsvm

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

// ID is the backend id the server registers the js backend under.
const ID = "js"

// Backend is the js backend: ES modules in a fresh QuickJS runtime per
// execution, with node:fs/promises on the workspace. It is safe for
// concurrent use.
type Backend struct {
	opts Options
	log  *slog.Logger

	mu        sync.Mutex
	running   int   // executions in Run
	stuck     int   // engines left running after their execution ended
	stuckEver int64 // engines ever left running
	recovered int64 // of those, the ones that have stopped since

	// engineEnded, if set (by tests), is called when an engine has stopped
	// and freed its memory; stuck says whether it had been left running.
	engineEnded func(stuck bool)
}

var (
	_ run.Backend       = (*Backend)(nil)
	_ run.TimeoutBounds = (*Backend)(nil)
)

// New returns a Backend with opts (zero fields take their defaults). It
// compiles the JavaScript runtime once, so an error here is a bug.
func New(opts Options) (*Backend, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	for spec := range o.Modules {
		if !isBareSpecifier(spec) {
			return nil, fmt.Errorf("check js options: trusted module %q: want a bare specifier (not relative, absolute or node:)", spec)
		}
	}
	for spec, m := range o.HostModules {
		if m == nil || spec == "" || isRelative(spec) || isBuiltin(spec) {
			return nil, fmt.Errorf("check js options: host module %q: bad specifier or nil module", spec)
		}
	}
	if _, err := runtimeBytecode(); err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Backend{opts: o, log: log}, nil
}

// Options returns the backend's options with the defaults filled in.
func (b *Backend) Options() Options { return b.opts }

// Timeouts gives run the backend's default and maximum wall time
// (run.TimeoutBounds).
func (b *Backend) Timeouts() (def, max time.Duration) { return b.opts.Timeout, b.opts.MaxTimeout }

// Stats are a Backend's counts of executions and engines.
type Stats struct {
	// Running is the executions running now.
	Running int
	// Stuck is the engines that could not be stopped: their execution was
	// killed or timed out and has ended, but the engine is still inside a
	// built-in call that does not check for interrupts (see the package
	// documentation), using a CPU and up to MaxMemory+MaxStackMemory bytes
	// until the call returns. Nothing in the process can stop them sooner;
	// restarting the process does.
	Stuck int
	// StuckEver is the engines ever left running so, and Recovered those
	// of them that have stopped since.
	StuckEver, Recovered int64
}

// Stats returns the backend's counts now.
func (b *Backend) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Stats{Running: b.running, Stuck: b.stuck, StuckEver: b.stuckEver, Recovered: b.recovered}
}

// Run evaluates job.Source as an ES module and, if it default-exports a
// function, calls it with job.Input and returns its result as the value. See
// the package documentation.
//
// The engine runs on a goroutine of its own. When ctx ends (kill, timeout,
// server stop) the engine is aborted; if it has not stopped StopGrace later,
// Run returns anyway and leaves the engine to stop in the background, as a
// stuck engine (Stats).
func (b *Backend) Run(ctx context.Context, job *run.Job) (run.Outcome, error) {
	if err := b.admit(); err != nil {
		fmt.Fprintf(job.Stderr, "desk: js: %v\n", err)
		return run.Outcome{}, fmt.Errorf("js: %w", err)
	}
	e := &engine{b: b, x: newExecution(ctx, b, job), done: make(chan engineResult, 1)}
	e.x.eng = e
	job.MeterCPU(e.cpu.Read) // run bounds and records the engine's CPU time
	go e.run()
	select {
	case r := <-e.done:
		b.leave()
		return r.out, r.err
	case <-ctx.Done():
	}
	grace := time.NewTimer(b.opts.StopGrace)
	defer grace.Stop()
	select {
	case r := <-e.done:
		b.leave()
		return r.out, r.err
	case <-grace.C:
	}
	if !e.detach() {
		r := <-e.done // it stopped just now
		b.leave()
		return r.out, r.err
	}
	fmt.Fprintf(job.Stderr, "desk: js: the engine did not stop within %v of the end (%v): it is inside a built-in call that does not check for interrupts, and finishes that call in the background\n",
		b.opts.StopGrace, context.Cause(ctx))
	// Killed, timed out or stopped: run records the cause.
	return run.Outcome{ExitCode: 1}, nil
}

// admit counts a new execution in, or says which limit refuses it.
func (b *Backend) admit() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running >= b.opts.MaxConcurrent {
		return &LimitError{Limit: "MaxConcurrent", Value: int64(b.opts.MaxConcurrent), What: "js executions at once"}
	}
	if b.running+b.stuck >= b.opts.MaxConcurrent+b.opts.MaxStuck {
		return &LimitError{Limit: "MaxStuck", Value: int64(b.opts.MaxStuck),
			What: fmt.Sprintf("stuck js engines beyond MaxConcurrent: %d engines could not be stopped and still run, %d executions are running; new ones are refused until some stop or desk restarts", b.stuck, b.running)}
	}
	b.running++
	return nil
}

// leave counts an execution out.
func (b *Backend) leave() {
	b.mu.Lock()
	b.running--
	b.mu.Unlock()
}
