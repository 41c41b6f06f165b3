package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// Info is an execution's durable record: everything but its output.
type Info struct {
	ID      string `json:"id"`
	Backend string `json:"backend"`
	// Requested is the backend the caller asked for when it was not the one
	// that ran ("auto"); Route says why the Router chose Backend.
	Requested string `json:"requested,omitempty"`
	Route     string `json:"route,omitempty"`
	Status    Status `json:"status"`
	ExitCode  int    `json:"exit_code"`
	// Error says why an execution failed, was cancelled or timed out.
	Error string `json:"error,omitempty"`
	// Signal is the signal that killed a cancelled execution ("SIGKILL").
	Signal string `json:"signal,omitempty"`
	Source string `json:"source"`
	Cwd    string `json:"cwd"`
	// Timeout and OutputLimit are the limits the execution ran with.
	Timeout     time.Duration `json:"timeout_ns"`
	OutputLimit int64         `json:"output_limit"`
	// MaxCPU is the CPU limit it ran with (0: none).
	MaxCPU time.Duration `json:"max_cpu_ns,omitempty"`
	// Detached is set for a detached execution (ExecOptions.Detached).
	Detached bool `json:"detached,omitempty"`
	// Foreground: killed when nobody holds it for Options.ForegroundGrace
	// (ExecOptions.Foreground).
	Foreground bool `json:"foreground,omitempty"`
	// StdinStream: its stdin arrives through CopyStdin.
	StdinStream bool      `json:"stdin_stream,omitempty"`
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended,omitzero"`
	// Events is the number of the newest event (the exit event once ended).
	Events uint64 `json:"events"`
	// StdoutBytes and StderrBytes count all output produced, kept or elided.
	StdoutBytes int64 `json:"stdout_bytes"`
	StderrBytes int64 `json:"stderr_bytes"`
	// JournalStart and JournalEnd bound the change journal window the change
	// set was computed from: entries with JournalStart < Seq <= JournalEnd.
	JournalStart uint64 `json:"journal_start"`
	JournalEnd   uint64 `json:"journal_end,omitempty"`
	// Value is the backend's JSON value, if any.
	Value json.RawMessage `json:"value,omitempty"`
	// Changes is the workspace change set (nil while running).
	Changes *Changes `json:"changes,omitempty"`
	// Usage is the program's resource usage, when the backend measured it
	// (Outcome.Usage); nil while running and for backends that do not.
	Usage *Usage `json:"usage,omitempty"`
}

// Duration is the run time: Ended - Started, or zero while running.
func (i *Info) Duration() time.Duration {
	if i.Ended.IsZero() {
		return 0
	}
	return i.Ended.Sub(i.Started)
}

// Result is an execution's record with its kept output.
type Result struct {
	Info
	// Stdout and Stderr are the kept output: all of it, or the head and the
	// tail with a line "[... N bytes elided ...]" between them. The exact
	// bytes are in the events.
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// StdoutElided and StderrElided count the bytes not kept.
	StdoutElided int64 `json:"stdout_elided,omitempty"`
	StderrElided int64 `json:"stderr_elided,omitempty"`
}

func resultOf(info Info, v view) *Result {
	res := &Result{Info: info}
	res.Stdout, res.Stderr, res.StdoutElided, res.StderrElided = v.output()
	return res
}

// Execution is a running or ended execution started by Runtime.Exec. Its
// methods are safe for concurrent use.
type Execution struct {
	r       *Runtime
	id      string
	backend Backend
	adm     *admission // Options.Admit's: released after the end and the backend's return
	quota   Quota      // the Quota that admitted it (nil: none), told of its end
	job     *Job
	ctx     context.Context
	cancel  context.CancelCauseFunc
	stopTO  context.CancelFunc
	headMax int64 // output cap for the head (data + eventCost per event)
	tailMax int64 // and for the tail
	chunk   int   // largest data of one event
	kick    chan struct{}
	done    chan struct{}
	// detached: the backend is a Detacher, run with RunDetached; started is
	// closed when it reports the program started (once: startOnce).
	detached  bool
	started   chan struct{}
	startOnce sync.Once
	// stdinW feeds the stdin of an execution started with StdinStream (nil
	// otherwise); its reader is closed when the execution's ctx ends.
	stdinW *io.PipeWriter

	mu          sync.Mutex
	info        Info
	seq         uint64
	outN, errN  int64
	head        []Event
	headCost    int64
	headFull    bool
	headFlushed int // head[:headFlushed] are in the head log
	tail        []Event
	tailLog     []uint64 // tail[i]'s entry number in the tail log (0: not written yet)
	tailCost    int64
	tailLogNext uint64 // the tail log's next entry number (0: unknown, nothing written yet)
	tailTrimmed uint64 // tail log entries below this number are deleted
	untrimmed   int64  // cost of written tail events evicted from memory but not yet deleted
	pending     int    // bytes of events not yet written
	closed      bool   // output refused (the backend returned or was abandoned)
	finished    bool   // the exit event is in tail; info is final
	killSig     Signal
	stdinTaken  bool          // CopyStdin was called
	holds       int           // Hold calls not yet released
	fgTimer     *time.Timer   // a foreground execution's hang-up, while nobody holds it
	fgGen       uint64        // which arming of fgTimer is current
	wake        chan struct{} // closed when an event is added
	waiting     bool          // someone holds wake
	storeErr    error         // the last failure to write to the store (at the end: of the end)
	// followers are the cursors of the Streams of Follow: the tail keeps
	// every event one of them has not read yet (the writer waits on
	// followCond, with e.mu, instead of evicting it). awaitClient makes it
	// keep everything until the first client holds or follows a foreground
	// execution (its client attaches just after starting it).
	followers   map[*cursor]struct{}
	followCond  *sync.Cond
	evictWaits  int // writers waiting on followCond
	awaitClient bool
}

// ID returns the execution id.
func (e *Execution) ID() string { return e.id }

// Done is closed when the execution has ended and its record is final and durable.
func (e *Execution) Done() <-chan struct{} { return e.done }

// Info returns the execution's record as it is now.
func (e *Execution) Info() Info {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.infoLocked()
}

func (e *Execution) infoLocked() Info {
	i := e.info
	if !e.finished {
		i.Events, i.StdoutBytes, i.StderrBytes = e.seq, e.outN, e.errN
	}
	return i
}

// Result returns the execution's record and kept output as they are now
// (Status is StatusRunning until it ends).
func (e *Execution) Result() *Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	return resultOf(e.infoLocked(), view{e.head, e.tail})
}

// Wait waits for the execution to end and returns its result. The result is
// durable when Wait returns nil; a non-nil error with a non-nil result means
// the execution ended but its end could not be stored (the next Open of the
// store records it as failed, as after a crash).
func (e *Execution) Wait(ctx context.Context) (*Result, error) {
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	e.mu.Lock()
	err := e.storeErr
	e.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("store execution %s: %w", e.id, err)
	}
	return e.Result(), err
}

// Kill cancels the execution: its backend's ctx is cancelled with a
// *KillError cause and it ends as StatusCancelled with exit code 128+sig,
// recording the signal. Killing an execution already being killed does
// nothing (the first signal is the one recorded); killing one that has ended
// returns ErrNotRunning.
func (e *Execution) Kill(sig Signal) error {
	if !sig.Valid() {
		return fmt.Errorf("kill execution %s: signal %d: %w", e.id, int(sig), ErrInvalid)
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return fmt.Errorf("kill execution %s: %w", e.id, ErrNotRunning)
	}
	first := e.killSig == 0
	if first {
		e.killSig = sig
	}
	e.mu.Unlock()
	if first {
		e.cancel(&KillError{Signal: sig})
	}
	return nil
}

// kill is Kill by the runtime itself, for reason.
func (e *Execution) kill(sig Signal, reason string) {
	e.mu.Lock()
	first := e.killSig == 0 && !e.closed
	if first {
		e.killSig = sig
	}
	e.mu.Unlock()
	if first {
		e.cancel(&KillError{Signal: sig, Reason: reason})
	}
}

// Hold marks the execution as followed by a client until release is called
// (once; later calls do nothing). A foreground execution
// (ExecOptions.Foreground) that nobody holds for Options.ForegroundGrace is
// killed with SIGHUP; holding one that has ended, or one that is not
// foreground, does nothing. Adapters hold an execution while they stream its
// events, feed its stdin or wait for it on a client's behalf.
func (e *Execution) Hold() (release func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.awaitClient {
		e.awaitClient = false // the client came: from now on, only followers keep output
		e.followCond.Broadcast()
	}
	if !e.info.Foreground || e.closed {
		return func() {}
	}
	e.holds++
	if e.fgTimer != nil {
		e.fgTimer.Stop()
		e.fgTimer = nil
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.holds--; e.holds == 0 && !e.closed {
				e.armHangupLocked()
			}
		})
	}
}

// armHangupLocked starts the foreground grace period: the execution is
// killed when it passes with nobody holding it.
func (e *Execution) armHangupLocked() {
	e.fgGen++
	gen := e.fgGen
	e.fgTimer = time.AfterFunc(e.r.opts.ForegroundGrace, func() {
		e.mu.Lock()
		current := gen == e.fgGen && e.holds == 0 && !e.closed
		e.mu.Unlock()
		if current {
			e.kill(SIGHUP, fmt.Sprintf("a foreground execution nobody followed for %v (its client went away)", e.r.opts.ForegroundGrace))
		}
	})
}

// stopHangupLocked ends the foreground grace period for good.
func (e *Execution) stopHangupLocked() {
	e.fgGen++
	if e.fgTimer != nil {
		e.fgTimer.Stop()
		e.fgTimer = nil
	}
}

// CopyStdin sends r, to its end, as the standard input of an execution
// started with ExecOptions.StdinStream: the backend reads it as it arrives
// (each Read of r waits for the backend to take the previous one: nothing is
// buffered beyond one copy buffer, whatever the size). It returns the bytes
// the backend took and nil once r's EOF was passed on (the program's next
// read sees the end); the execution is held (Hold) meanwhile. When r fails,
// or ctx ends, the program's stdin ends at once with that error (CopyStdin
// itself returns when r's Read in progress does). Errors: ErrInvalid
// (not started with StdinStream), ErrStdinTaken (a second call), and
// ErrNotRunning when the execution ended before taking all of r.
func (e *Execution) CopyStdin(ctx context.Context, r io.Reader) (int64, error) {
	e.mu.Lock()
	switch {
	case e.stdinW == nil:
		e.mu.Unlock()
		return 0, fmt.Errorf("copy stdin of execution %s: it was not started with a stdin stream: %w", e.id, ErrInvalid)
	case e.closed:
		e.mu.Unlock()
		return 0, fmt.Errorf("copy stdin of execution %s: %w", e.id, ErrNotRunning)
	case e.stdinTaken:
		e.mu.Unlock()
		return 0, fmt.Errorf("copy stdin of execution %s: %w", e.id, ErrStdinTaken)
	}
	e.stdinTaken = true
	e.mu.Unlock()
	release := e.Hold()
	defer release()
	w := e.stdinW
	stop := context.AfterFunc(ctx, func() {
		w.CloseWithError(fmt.Errorf("the stdin stream ended early: %w", context.Cause(ctx)))
	})
	defer stop()
	n, err := io.Copy(w, r)
	switch {
	case err == nil:
		w.Close()
		return n, nil
	case errors.Is(err, errStdinEnded):
		return n, fmt.Errorf("copy stdin of execution %s: it ended after reading %d bytes: %w", e.id, n, ErrNotRunning)
	case ctx.Err() != nil:
		return n, fmt.Errorf("copy stdin of execution %s: %w", e.id, context.Cause(ctx))
	}
	// r failed: the program's stdin ends with its error.
	w.CloseWithError(fmt.Errorf("the stdin stream failed: %w", err))
	return n, fmt.Errorf("copy stdin of execution %s: %w", e.id, err)
}

// errStdinEnded is what a stdin stream's writer gets once the execution has
// ended (or was killed) and reads no more.
var errStdinEnded = errors.New("the execution reads no more stdin")

// Events returns a Stream of the execution's events from number from on (0
// or 1: from the first). A reader that falls more than the tail of the output
// cap behind gets an elided marker for what it missed; Follow's does not.
func (e *Execution) Events(from uint64) *Stream {
	return &Stream{c: newStream(from), exec: e}
}

// Follow is Events for a client that must receive every byte: until the
// Stream is closed (Stream.Close), the execution keeps in memory every event
// it has not read yet, and the program's writes wait for it to read when
// keeping more would pass the output cap (backpressure: the program blocks
// in write(2) as on a slow terminal). The stored record keeps its head and
// tail as always. Events elided before Follow was called stay elided. A
// killed or timed-out execution stops waiting (its stream may then elide).
func (e *Execution) Follow(from uint64) *Stream {
	s := &Stream{c: newStream(from), exec: e}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.followers == nil {
		e.followers = make(map[*cursor]struct{})
	}
	e.followers[&s.c] = struct{}{}
	s.follow = true
	e.awaitClient = false
	e.followCond.Broadcast()
	return s
}

// unfollow forgets the cursor of a Follow stream.
func (e *Execution) unfollow(c *cursor) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.followers, c)
	e.followCond.Broadcast()
}

// keptLocked reports whether the tail must keep event seq: a follower has not
// read it yet, or a foreground execution waits for its client, and the
// execution has not been told to stop.
func (e *Execution) keptLocked(seq uint64) bool {
	if e.ctx.Err() != nil {
		return false
	}
	if e.awaitClient {
		return true
	}
	for c := range e.followers {
		if c.next <= seq {
			return true
		}
	}
	return false
}

// next serves Stream.Next: the event at c, or whether the stream has ended,
// or a channel closed when there may be something new.
func (e *Execution) next(c *cursor) (ev Event, ok, done bool, wake <-chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ev, ok := (view{e.head, e.tail}).at(c); ok {
		if e.evictWaits > 0 {
			e.followCond.Broadcast() // a writer may wait for this reader
		}
		return ev, true, false, nil
	}
	if e.finished {
		return Event{}, false, true, nil
	}
	e.waiting = true
	return Event{}, false, false, e.wake
}

func (e *Execution) broadcastLocked() {
	if e.waiting {
		close(e.wake)
		e.wake = make(chan struct{})
		e.waiting = false
	}
}

// output is Job.Stdout or Job.Stderr.
type output struct {
	e *Execution
	t EventType
}

func (o output) Write(p []byte) (int, error) { return o.e.write(o.t, p) }

// write turns p into events: into the head while it has room, then into the
// tail, evicting the oldest tail events past the cap.
func (e *Execution) write(t EventType, p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return 0, fmt.Errorf("write %s: %w", t, ErrNotRunning)
	}
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	now := e.r.opts.Now()
	for len(p) > 0 {
		k := min(len(p), e.chunk)
		if !e.headFull {
			room := e.headMax - e.headCost - eventCost
			if room <= 0 {
				e.headFull = true
				continue
			}
			k = int(min(int64(k), room))
		}
		ev := Event{Seq: e.seq + 1, Time: now, Type: t, Data: append([]byte(nil), p[:k]...),
			StdoutOffset: e.outN, StderrOffset: e.errN}
		p = p[k:]
		e.seq++
		if t == EventStdout {
			e.outN += int64(k)
		} else {
			e.errN += int64(k)
		}
		cost := int64(k) + eventCost
		e.pending += int(cost)
		if !e.headFull {
			e.head = append(e.head, ev)
			e.headCost += cost
			continue
		}
		e.tail = append(e.tail, ev)
		e.tailLog = append(e.tailLog, 0)
		e.tailCost += cost
		for e.tailCost > e.tailMax && len(e.tail) > 1 {
			if e.keptLocked(e.tail[0].Seq) {
				// Backpressure: wait for the followers to read it.
				e.broadcastLocked()
				e.evictWaits++
				e.followCond.Wait()
				e.evictWaits--
				continue
			}
			c := int64(len(e.tail[0].Data)) + eventCost
			if e.tailLog[0] != 0 {
				e.untrimmed += c
			}
			e.tail, e.tailLog = e.tail[1:], e.tailLog[1:]
			e.tailCost -= c
		}
	}
	e.broadcastLocked()
	select {
	case e.kick <- struct{}{}:
	default:
	}
	return n, nil
}

// stdin bounds the backend's reads of standard input.
type stdin struct {
	r    io.Reader
	left int64
}

func (s *stdin) Read(p []byte) (int, error) {
	if s.left <= 0 {
		// Is there more? Then the limit is hit.
		var b [1]byte
		if n, err := s.r.Read(b[:]); n > 0 {
			return 0, fmt.Errorf("read stdin: %w", ErrTooLarge)
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.r.Read(p)
	s.left -= int64(n)
	return n, err
}

type runResult struct {
	out       Outcome
	err       error
	abandoned bool
}

// supervise runs the backend and writes output to the store until it ends.
func (e *Execution) supervise() {
	defer e.r.wg.Done()
	res := make(chan runResult, 1)
	go func() {
		var rr runResult
		defer func() {
			if p := recover(); p != nil {
				rr = runResult{err: fmt.Errorf("backend %s panicked: %v", e.job.Backend, p)}
			}
			// Before the result is sent: what the execution was admitted
			// with is free by the time its end is known.
			e.adm.half()
			res <- rr
		}()
		if d, ok := e.backend.(Detacher); ok && e.detached {
			rr.out, rr.err = d.RunDetached(e.ctx, e.job, func() { e.startOnce.Do(func() { close(e.started) }) })
		} else {
			rr.out, rr.err = e.backend.Run(e.ctx, e.job)
		}
	}()
	var flushT *time.Timer
	var flushC, grace, cpuC <-chan time.Time
	stop := e.ctx.Done()
	if lim := e.info.MaxCPU; lim > 0 {
		t := time.NewTicker(cpuPoll(lim))
		defer t.Stop()
		cpuC = t.C
	}
	defer func() {
		if flushT != nil {
			flushT.Stop()
		}
	}()
	for {
		select {
		case rr := <-res:
			e.finish(rr)
			return
		case <-cpuC:
			if used, ok := e.job.readCPU(); ok && used >= e.info.MaxCPU {
				cpuC = nil
				e.cancel(ErrCPULimit)
			}
		case <-e.kick:
			e.mu.Lock()
			full := e.pending >= e.r.opts.FlushBytes
			e.mu.Unlock()
			if full {
				e.flush()
			} else if flushC == nil {
				if flushT == nil {
					flushT = time.NewTimer(e.r.opts.FlushInterval)
				} else {
					flushT.Reset(e.r.opts.FlushInterval)
				}
				flushC = flushT.C
			}
		case <-flushC:
			flushC = nil
			e.flush()
		case <-stop:
			stop = nil
			t := time.NewTimer(e.r.opts.KillGrace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			e.finish(runResult{abandoned: true})
			return
		}
	}
}

// batch is what one write to the store takes from memory.
type batch struct {
	head, tail []Event
	trimTo     uint64 // delete tail log entries below (0: nothing)
}

// takeLocked collects the events not yet written and, if due (or final), the
// tail log trim.
func (e *Execution) takeLocked(final bool) batch {
	var b batch
	b.head = e.head[e.headFlushed:]
	i := 0
	for i < len(e.tailLog) && e.tailLog[i] != 0 {
		i++
	}
	b.tail = e.tail[i:]
	to := e.tailLogNext
	if len(e.tailLog) > 0 && e.tailLog[0] != 0 {
		to = e.tailLog[0]
	}
	if to > e.tailTrimmed && (final || e.untrimmed > e.tailMax/4) {
		b.trimTo = to
	}
	e.pending = 0
	return b
}

// doneLocked records that b was written, the tail log entries of b.tail
// starting at tailFirst.
func (e *Execution) doneLocked(b batch, tailFirst uint64) {
	e.headFlushed += len(b.head)
	if len(b.tail) > 0 {
		for j := range b.tail {
			if len(e.tail) == 0 {
				break
			}
			if k := int64(b.tail[j].Seq) - int64(e.tail[0].Seq); k >= 0 && k < int64(len(e.tail)) {
				e.tailLog[k] = tailFirst + uint64(j)
			}
		}
		e.tailLogNext = tailFirst + uint64(len(b.tail))
	}
}

// write stores b, plus fn's changes in the same transaction.
func (e *Execution) store(b batch, fn func(*vfs.RecordBatch) error) error {
	ctx := context.Background()
	if b.trimTo > 0 {
		if err := e.r.rec.TrimLog(ctx, kindTail, e.id, b.trimTo); err != nil {
			return fmt.Errorf("trim output log: %w", err)
		}
		e.mu.Lock()
		e.tailTrimmed, e.untrimmed = b.trimTo, 0
		if b.trimTo >= e.tailLogNext {
			// The log is empty now, and vfs numbers the entries of an empty
			// log from 1 again: start the bookkeeping afresh.
			e.tailTrimmed, e.tailLogNext = 0, 0
		}
		e.mu.Unlock()
	}
	enc := func(evs []Event) [][]byte {
		out := make([][]byte, len(evs))
		for i := range evs {
			out[i] = encodeEvent(&evs[i])
		}
		return out
	}
	var tailFirst uint64
	err := e.r.rec.Batch(ctx, func(tx *vfs.RecordBatch) error {
		if len(b.head) > 0 {
			if _, err := tx.AppendLog(kindExec, e.id, enc(b.head)...); err != nil {
				return err
			}
		}
		if len(b.tail) > 0 {
			first, err := tx.AppendLog(kindTail, e.id, enc(b.tail)...)
			if err != nil {
				return err
			}
			tailFirst = first
		}
		if fn != nil {
			return fn(tx)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write output log: %w", err)
	}
	e.mu.Lock()
	e.doneLocked(b, tailFirst)
	e.mu.Unlock()
	return nil
}

// flush writes the events not yet stored.
func (e *Execution) flush() {
	e.mu.Lock()
	b := e.takeLocked(false)
	e.mu.Unlock()
	if len(b.head) == 0 && len(b.tail) == 0 && b.trimTo == 0 {
		return
	}
	if err := e.store(b, nil); err != nil {
		e.mu.Lock()
		e.storeErr = err
		e.mu.Unlock()
	}
}

// finish records how the execution ended, durably, then wakes everyone.
func (e *Execution) finish(rr runResult) {
	r := e.r
	e.mu.Lock()
	e.closed = true
	e.stopHangupLocked()
	info := e.info
	e.mu.Unlock()
	cause := context.Cause(e.ctx)
	e.stopTO()
	e.cancel(nil)
	// Changes applied but not yet committed (a FUSE mount defers metadata
	// commits by a few ms) are numbered at their commit: commit them so the
	// window ends after everything the execution did. A failed commit lost
	// those changes: the record says so, and the change set lists what was
	// stored.
	commitErr := r.fs.Commit(context.Background())
	info.JournalEnd = r.fs.Seq()

	var ke *KillError
	switch {
	case errors.As(cause, &ke):
		info.Status, info.ExitCode = StatusCancelled, 128+int(ke.Signal)
		info.Signal, info.Error = ke.Signal.String(), ke.Error()
	case errors.Is(cause, ErrTimedOut):
		info.Status, info.ExitCode = StatusTimedOut, ExitTimedOut
		info.Error = fmt.Sprintf("execution timed out after %v", info.Timeout)
	case errors.Is(cause, ErrCPULimit):
		info.Status, info.ExitCode = StatusCPULimit, ExitCPULimit
		info.Error = fmt.Sprintf("execution stopped: it used its CPU limit of %v", info.MaxCPU)
	case errors.Is(cause, ErrStopped):
		info.Status, info.ExitCode, info.Error = StatusFailed, ExitFailed, ErrStopped.Error()
	case rr.err != nil:
		info.Status, info.ExitCode, info.Error = StatusFailed, ExitFailed, rr.err.Error()
	default:
		info.Status, info.ExitCode = StatusCompleted, rr.out.ExitCode
		if v := rr.out.Value; len(v) > 0 {
			switch {
			case len(v) > r.opts.MaxValueBytes:
				info.Status, info.ExitCode = StatusFailed, ExitFailed
				info.Error = fmt.Sprintf("backend returned a value of %d bytes, over the limit of %d: %v", len(v), r.opts.MaxValueBytes, ErrTooLarge)
			case !json.Valid(v):
				info.Status, info.ExitCode = StatusFailed, ExitFailed
				info.Error = "backend returned a value that is not valid JSON"
			default:
				var b bytes.Buffer
				json.Compact(&b, v)
				info.Value = b.Bytes()
			}
		}
	}
	if u := rr.out.Usage; rr.err == nil && u != nil {
		uc := *u
		info.Usage = &uc
	}
	// The meter's last reading: everything the program used, also when it
	// was killed or failed (abandoned: what it used so far).
	if used, ok := e.job.readCPU(); ok {
		if info.Usage == nil {
			info.Usage = &Usage{}
		}
		info.Usage.CPU = used
	}
	if rr.abandoned {
		info.Error += fmt.Sprintf(" (the backend did not stop within %v and was abandoned)", r.opts.KillGrace)
	}
	if commitErr != nil {
		info.Error = strings.TrimSpace(info.Error + " (file changes made at the end of the execution were not stored: " + commitErr.Error() + ")")
	}
	changes, err := r.changes(context.Background(), e.id, info.JournalStart, info.JournalEnd)
	if err != nil {
		changes = &Changes{Created: []string{}, Modified: []string{}, Deleted: []string{}, Truncated: true}
	}
	info.Changes = changes

	e.mu.Lock()
	now := r.opts.Now()
	e.seq++
	exit := Event{Seq: e.seq, Time: now, Type: EventExit, StdoutOffset: e.outN, StderrOffset: e.errN,
		Exit: &Exit{Status: info.Status, ExitCode: info.ExitCode, Error: info.Error, Signal: info.Signal}}
	info.Ended, info.Events, info.StdoutBytes, info.StderrBytes = now, e.seq, e.outN, e.errN
	b := e.takeLocked(true)
	e.mu.Unlock()
	b.tail = append(b.tail[:len(b.tail):len(b.tail)], exit)

	rec, _ := json.Marshal(info)
	err = e.store(b, func(tx *vfs.RecordBatch) error {
		if err := tx.Put(kindExec, e.id, rec); err != nil {
			return err
		}
		return tx.Delete(kindLive, e.id)
	})

	// The end is stored: what the execution was admitted with is free
	// before anyone learns of the end (a reader of its exit event, Wait),
	// so that whoever saw it end may start another at once; its quota
	// counts what it used.
	e.adm.half()
	if e.quota != nil {
		e.quota.Ended(info)
	}
	// No longer running (Dispose, Kill answer so) before anyone learns of
	// the end either: a client that read the exit event may dispose the
	// record at once. Readers find the stored record meanwhile.
	r.mu.Lock()
	if r.running[e.id] == e {
		delete(r.running, e.id)
	}
	r.mu.Unlock()
	e.mu.Lock()
	// Earlier flush failures do not matter if the end was stored: their
	// events were written with it.
	e.storeErr = err
	e.tail = append(e.tail, exit)
	e.tailLog = append(e.tailLog, 0)
	e.info = info
	e.finished = true
	e.broadcastLocked()
	e.mu.Unlock()
	// Indexed (and older records pruned) before Wait returns, so a caller
	// that waited sees the retention rules applied.
	r.ended(e, info)
	close(e.done)
}
