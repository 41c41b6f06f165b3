package jsvm

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/run"
)

// errStopped is the abort reason given again when an engine is left running
// (the first reason, the ctx's, is the one kept).
var errStopped = errors.New("stopped")

// engine is the goroutine that runs one execution's engine, and what Run and
// it share.
type engine struct {
	b    *Backend
	x    *execution
	done chan engineResult // the execution's end, once
	cpu  run.ThreadMeter   // the engine goroutine's CPU time (Job.MeterCPU)

	mu       sync.Mutex
	c        *qjs.Context // the engine, once made
	tid      int          // the OS thread the goroutine is locked to (0: unknown)
	finished bool         // the engine has stopped and is freed
	detached bool         // Run returned without waiting for the engine
	reniced  bool         // its thread got the lowest CPU priority
	since    time.Time    // when it was detached
}

// engineResult is how an execution ended.
type engineResult struct {
	out run.Outcome
	err error
}

// run runs the execution, frees the engine and reports the end. The
// goroutine keeps its OS thread, so that a stuck engine's thread can be
// given the lowest CPU priority (detach); such a thread ends with the
// goroutine rather than go back to the runtime's pool.
func (e *engine) run() {
	runtime.LockOSThread()
	e.mu.Lock()
	e.tid = threadID()
	e.mu.Unlock()
	// The engine, its host calls (the store's included) and its freeing
	// run on this thread: its CPU clock is the execution's CPU time.
	leave := e.cpu.Enter()
	var r engineResult
	func() {
		defer func() {
			if p := recover(); p != nil {
				r = engineResult{err: fmt.Errorf("js: internal error: %v", p)}
			}
		}()
		r.out, r.err = e.x.run()
	}()
	func() {
		defer func() { recover() }() // an engine a panic left broken is not freed
		e.x.close()
	}()
	leave()
	e.mu.Lock()
	e.finished = true
	detached, reniced, since := e.detached, e.reniced, e.since
	e.mu.Unlock()
	if !reniced {
		runtime.UnlockOSThread()
	}
	if detached {
		e.b.mu.Lock()
		e.b.stuck--
		e.b.recovered++
		stuck := e.b.stuck
		e.b.mu.Unlock()
		e.b.log.Info("js: a stuck engine stopped", "execution", e.x.job.ID, "after", time.Since(since).Round(time.Millisecond), "stuck", stuck)
	}
	if f := e.b.engineEnded; f != nil {
		f(detached)
	}
	e.done <- r
}

// setContext records the execution's engine (for detach).
func (e *engine) setContext(c *qjs.Context) {
	e.mu.Lock()
	e.c = c
	e.mu.Unlock()
}

// detach leaves a running engine to stop in the background: Run returns,
// the execution's slot goes to the stuck engines, and the engine's thread
// gets the lowest CPU priority. It returns false if the engine has already
// stopped.
func (e *engine) detach() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.finished {
		return false
	}
	e.detached = true
	e.since = time.Now()
	if e.c != nil {
		// Again: the first Abort's store of the interrupt countdown may
		// have been lost to a decrement of the engine's (see qjs.Abort).
		e.c.Abort(errStopped)
	}
	err := lowerPriority(e.tid)
	e.reniced = err == nil
	e.b.mu.Lock()
	e.b.running--
	e.b.stuck++
	e.b.stuckEver++
	stuck := e.b.stuck
	e.b.mu.Unlock()
	e.b.log.Warn("js: an engine could not be stopped; it was left running in the background",
		"execution", e.x.job.ID, "grace", e.b.opts.StopGrace, "stuck", stuck, "max_stuck", e.b.opts.MaxStuck, "lowered_priority", e.reniced, "renice_error", err)
	if e.b.opts.OnStuck != nil {
		go e.b.opts.OnStuck()
	}
	return true
}
