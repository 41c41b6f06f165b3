package run

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// Record kinds in the store (see the package documentation).
const (
	kindExec = "exec"      // the record (Info as JSON); its log: the head of the output
	kindTail = "exec.tail" // no record; its log: the tail of the output and the exit event
	kindLive = "exec.live" // an empty record per running execution, for recovery
)

// Runtime runs executions on one workspace store and keeps their records.
// One Runtime per store: Open marks every execution the store still records
// as running as failed. Its methods are safe for concurrent use.
type Runtime struct {
	fs       *vfs.FS
	rec      *vfs.Records // fs.Records(): execution records and their event logs
	backends map[string]Backend
	opts     Options
	wg       sync.WaitGroup // supervisors, and Execs between reservation and start

	mu       sync.Mutex
	closed   bool
	running  map[string]*Execution
	reserved map[string]bool // id → whether the execution is detached

	pmu   sync.Mutex           // one prune at a time; taken before imu
	imu   sync.Mutex           // guards index; held while loading it
	index map[string]time.Time // finished executions → end time (nil: not loaded yet)
}

// Open returns a Runtime over fsys routing to backends by id (ids: 1-64 of
// [A-Za-z0-9._-]). It finishes the records of executions that were running
// when a previous process stopped: each becomes StatusFailed with the error
// Options.Recovered (default ErrStopped's text), an exit event, and as end
// time the time of its last stored event. Close the Runtime before closing fsys.
func Open(ctx context.Context, fsys *vfs.FS, backends map[string]Backend, opts Options) (*Runtime, error) {
	if fsys == nil {
		return nil, fmt.Errorf("open runtime: nil store: %w", ErrInvalid)
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("open runtime: %w", err)
	}
	for id, b := range backends {
		if !ValidID(id) || b == nil {
			return nil, fmt.Errorf("open runtime: backend %q: bad id or nil backend: %w", id, ErrInvalid)
		}
	}
	if o.DefaultBackend != "" && backends[o.DefaultBackend] == nil {
		return nil, fmt.Errorf("open runtime: default backend %q: %w", o.DefaultBackend, ErrUnknownBackend)
	}
	r := &Runtime{fs: fsys, rec: fsys.Records(), backends: maps.Clone(backends), opts: o,
		running: map[string]*Execution{}, reserved: map[string]bool{}}
	if r.backends == nil {
		r.backends = map[string]Backend{}
	}
	if err := r.recover(ctx); err != nil {
		return nil, fmt.Errorf("open runtime: %w", err)
	}
	return r, nil
}

// recover finishes the records left running by a previous process.
func (r *Runtime) recover(ctx context.Context) error {
	for after := ""; ; {
		live, err := r.rec.List(ctx, kindLive, after, 1000)
		if err != nil {
			return fmt.Errorf("list running executions: %w", err)
		}
		for _, l := range live {
			if err := r.recoverOne(ctx, l.ID); err != nil {
				return err
			}
		}
		if len(live) < 1000 {
			return nil
		}
		after = live[len(live)-1].ID
	}
}

func (r *Runtime) recoverOne(ctx context.Context, id string) error {
	info, err := r.getInfo(ctx, id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if err != nil || info.Status != StatusRunning {
		if err := r.rec.Delete(ctx, kindLive, id); err != nil {
			return fmt.Errorf("recover execution %s: %w", id, err)
		}
		return nil
	}
	v, err := r.readView(ctx, id)
	if err != nil {
		return fmt.Errorf("recover execution %s: %w", id, err)
	}
	exit := Event{Type: EventExit, Time: info.Started}
	if n := len(v); n > 0 {
		last := &v[n-1][len(v[n-1])-1]
		exit.Seq = last.Seq
		exit.StdoutOffset, exit.StderrOffset = last.ends()
		if last.Time.After(exit.Time) {
			exit.Time = last.Time
		}
	}
	exit.Seq++
	why := r.opts.Recovered
	if why == "" {
		why = ErrStopped.Error()
	}
	info.Status, info.ExitCode, info.Error = StatusFailed, ExitFailed, why
	info.Ended, info.Events = exit.Time, exit.Seq
	info.StdoutBytes, info.StderrBytes = exit.StdoutOffset, exit.StderrOffset
	info.Changes = &Changes{Created: []string{}, Modified: []string{}, Deleted: []string{}, Truncated: true}
	exit.Exit = &Exit{Status: info.Status, ExitCode: info.ExitCode, Error: info.Error}
	rec, _ := json.Marshal(info)
	err = r.rec.Batch(ctx, func(b *vfs.RecordBatch) error {
		if _, err := b.AppendLog(kindTail, id, encodeEvent(&exit)); err != nil {
			return err
		}
		if err := b.Put(kindExec, id, rec); err != nil {
			return err
		}
		return b.Delete(kindLive, id)
	})
	if err != nil {
		return fmt.Errorf("recover execution %s: %w", id, err)
	}
	return nil
}

// Backends returns the backend ids, sorted.
func (r *Runtime) Backends() []string {
	return slices.Sorted(maps.Keys(r.backends))
}

// Running returns the number of running executions.
func (r *Runtime) Running() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.running) + len(r.reserved)
}

// Exec starts an execution of source on the backend opts.Backend and returns
// once its record (status running) is durable. ctx bounds only the start: the
// execution runs until it ends, is killed, times out or the Runtime closes;
// ctx's values (vfs.WithOwner, for example) reach the backend.
//
// A detached execution (opts.Detached) returns later: once its program has
// started (its backend called started), or once it has ended if it ended
// first (a program that could not start: its record says why). When ctx ends
// before either, the execution is killed (SIGKILL) and Exec returns ctx's
// error.
//
// Errors: ErrInvalid, ErrTooLarge, ErrTimeoutTooLong (bad options),
// ErrUnknownBackend, ErrNotAllowed (see WithBackends), ErrExists (id in use),
// ErrBusy (Options.MaxRunning executions, or Options.MaxDetached detached
// ones, running), ErrClosed, or a store error.
func (r *Runtime) Exec(ctx context.Context, source string, opts ExecOptions) (*Execution, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := r.check(source, opts, allowedBackends(ctx))
	if err != nil {
		return nil, err
	}
	if r.opts.Gate != nil {
		gctx, err := r.opts.Gate(ctx, GateRequest{Backend: c.Backend, Source: source, FS: r.fs})
		if err != nil {
			return nil, fmt.Errorf("start execution: %w", err)
		}
		ctx = gctx
	}
	maxCPU := r.opts.MaxCPU
	quota := quotaFrom(ctx)
	if quota != nil {
		m, err := quota.Admit(ctx, Admission{Backend: c.Backend, Detached: c.Detached})
		if err != nil {
			return nil, fmt.Errorf("start execution: %w", err)
		}
		if m != 0 {
			maxCPU = m
		}
	}
	if maxCPU < 0 {
		maxCPU = 0 // no bound
	}
	if c.MaxCPU > 0 && (maxCPU == 0 || c.MaxCPU < maxCPU) {
		maxCPU = c.MaxCPU
	}
	id := c.ID
	if id == "" {
		id = newID(r.opts.Now())
	}
	adm := &admission{}
	if r.opts.Admit != nil {
		release, err := r.opts.Admit(ctx, Admission{Backend: c.Backend, Detached: c.Detached})
		if err != nil {
			return nil, fmt.Errorf("start execution: %w", err)
		}
		adm.release = release
		adm.left.Store(2)
	}
	r.mu.Lock()
	switch {
	case r.closed:
		r.mu.Unlock()
		adm.now()
		return nil, fmt.Errorf("start execution: %w", ErrClosed)
	case r.running[id] != nil || r.isReservedLocked(id):
		r.mu.Unlock()
		adm.now()
		return nil, fmt.Errorf("start execution %s: %w", id, ErrExists)
	case c.Detached && r.countLocked(true) >= r.opts.MaxDetached:
		r.mu.Unlock()
		adm.now()
		return nil, fmt.Errorf("start execution: %d detached executions running, the limit: %w", r.opts.MaxDetached, ErrBusy)
	case !c.Detached && r.countLocked(false) >= r.opts.MaxRunning:
		r.mu.Unlock()
		adm.now()
		return nil, fmt.Errorf("start execution: %d running, the limit: %w", r.opts.MaxRunning, ErrBusy)
	}
	r.reserved[id] = c.Detached
	r.wg.Add(1)
	r.mu.Unlock()
	started := false
	defer func() {
		if !started {
			r.mu.Lock()
			delete(r.reserved, id)
			r.mu.Unlock()
			r.wg.Done()
			adm.now()
		}
	}()

	if _, err := r.rec.Get(ctx, kindExec, id); err == nil {
		return nil, fmt.Errorf("start execution %s: %w", id, ErrExists)
	} else if !errors.Is(err, vfs.ErrNoRecord) {
		return nil, fmt.Errorf("start execution %s: %w", id, err)
	}
	info := Info{ID: id, Backend: c.Backend, Requested: c.requested, Route: c.route, Status: StatusRunning, Source: source, Cwd: c.Cwd,
		Timeout: c.Timeout, OutputLimit: c.OutputLimit, MaxCPU: maxCPU, Detached: c.Detached, Foreground: c.Foreground, StdinStream: c.StdinStream,
		Started: r.opts.Now(), JournalStart: r.fs.Seq()}
	rec, _ := json.Marshal(info)
	err = r.rec.Batch(ctx, func(b *vfs.RecordBatch) error {
		if err := b.Put(kindExec, id, rec); err != nil {
			return err
		}
		return b.Put(kindLive, id, nil)
	})
	if err != nil {
		return nil, fmt.Errorf("start execution %s: %w", id, err)
	}

	e := &Execution{r: r, id: id, backend: r.backends[c.Backend], info: info, detached: c.Detached, adm: adm, quota: quota,
		kick: make(chan struct{}, 1), done: make(chan struct{}), wake: make(chan struct{}), started: make(chan struct{})}
	e.headMax = c.OutputLimit / 2
	e.tailMax = c.OutputLimit - e.headMax
	e.chunk = int(min(32<<10, e.tailMax/4))
	e.followCond = sync.NewCond(&e.mu)
	e.awaitClient = c.Foreground
	base := vfs.WithActor(context.WithoutCancel(ctx), id)
	cctx, cancel := context.WithCancelCause(base)
	e.ctx, e.stopTO = context.WithTimeoutCause(cctx, c.Timeout, ErrTimedOut)
	e.cancel = cancel
	// A writer waiting for followers stops waiting when the execution ends.
	context.AfterFunc(e.ctx, func() {
		e.mu.Lock()
		e.followCond.Broadcast()
		e.mu.Unlock()
	})
	env := c.env
	env["DESK_EXEC_ID"] = id
	in := c.Stdin
	if c.StdinStream {
		pr, pw := io.Pipe()
		in, e.stdinW = pr, pw
		// A backend blocked reading stdin returns once the execution is
		// killed, times out or ends; CopyStdin's writes fail then.
		context.AfterFunc(e.ctx, func() { pr.CloseWithError(errStdinEnded) })
	}
	if in == nil {
		in = bytes.NewReader(nil)
	}
	e.job = &Job{ID: id, Backend: c.Backend, Source: source, Cwd: c.Cwd, Env: env,
		Stdin: &stdin{r: in, left: r.opts.MaxStdinBytes}, Input: c.Input,
		Stdout: output{e, EventStdout}, Stderr: output{e, EventStderr}, FS: r.fs.WithBatching(r.opts.CommitDelay), Detached: c.Detached}
	if r.opts.Network != nil {
		e.job.Net = r.opts.Network(ctx, e.job)
	}

	r.mu.Lock()
	delete(r.reserved, id)
	r.running[id] = e
	closed := r.closed
	r.mu.Unlock()
	started = true
	if c.Foreground {
		e.mu.Lock()
		e.armHangupLocked() // until a client holds it
		e.mu.Unlock()
	}
	go e.supervise()
	if closed {
		e.cancel(ErrStopped)
	}
	if fn := startedHook(ctx); fn != nil {
		fn(e)
	}
	if c.Detached {
		select {
		case <-e.started:
		case <-e.done:
		case <-ctx.Done():
			e.Kill(SIGKILL)
			return nil, fmt.Errorf("start execution %s: %w", id, context.Cause(ctx))
		}
	}
	return e, nil
}

// admission is what Options.Admit gave an execution: release is called
// once both the backend has returned and the execution has left the
// running set (left counts them down), or at once (now) when it did not
// start.
type admission struct {
	release func()
	left    atomic.Int32
}

// half is one of the two ends.
func (a *admission) half() {
	if a != nil && a.release != nil && a.left.Add(-1) == 0 {
		a.release()
	}
}

// now releases what an execution that did not start was admitted with.
func (a *admission) now() {
	if a != nil && a.release != nil && a.left.Swap(0) > 0 {
		a.release()
	}
}

// isReservedLocked reports whether id is reserved by an Exec in progress.
func (r *Runtime) isReservedLocked(id string) bool {
	_, ok := r.reserved[id]
	return ok
}

// countLocked counts the running and reserved executions that are detached
// (or not).
func (r *Runtime) countLocked(detached bool) int {
	n := 0
	for _, e := range r.running {
		if e.detached == detached {
			n++
		}
	}
	for _, d := range r.reserved {
		if d == detached {
			n++
		}
	}
	return n
}

// ended is called by an execution once its final record is stored and it has
// left the running set.
func (r *Runtime) ended(e *Execution, info Info) {
	r.imu.Lock()
	if r.index != nil {
		r.index[e.id] = info.Ended
	}
	r.imu.Unlock()
	r.pruneIfDue(context.Background())
}

// pruneIfDue prunes when an execution's end may have made something
// prunable: more than Options.MaxRecords finished records, or one older than
// Options.MaxAge. Deciding costs a scan of the index, not a sort or a commit.
func (r *Runtime) pruneIfDue(ctx context.Context) {
	r.imu.Lock()
	due := r.index == nil || len(r.index) > r.opts.MaxRecords
	if !due {
		cutoff := r.opts.Now().Add(-r.opts.MaxAge)
		for _, t := range r.index {
			if t.Before(cutoff) {
				due = true
				break
			}
		}
	}
	r.imu.Unlock()
	if due {
		r.prune(ctx)
	}
}

// Lookup returns the running execution with that id.
func (r *Runtime) Lookup(id string) (*Execution, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.running[id]
	return e, ok
}

func (r *Runtime) getInfo(ctx context.Context, id string) (Info, error) {
	var info Info
	rec, err := r.rec.Get(ctx, kindExec, id)
	if errors.Is(err, vfs.ErrNoRecord) {
		return info, fmt.Errorf("get execution %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return info, fmt.Errorf("get execution %s: %w", id, err)
	}
	if err := json.Unmarshal(rec.Value, &info); err != nil {
		return info, fmt.Errorf("decode execution %s: %w", id, err)
	}
	return info, nil
}

// Get returns an execution's record and kept output, running or ended
// (ErrNotFound if there is none).
func (r *Runtime) Get(ctx context.Context, id string) (*Result, error) {
	if e, ok := r.Lookup(id); ok {
		return e.Result(), nil
	}
	info, err := r.getInfo(ctx, id)
	if err != nil {
		return nil, err
	}
	v, err := r.readView(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("get execution %s: %w", id, err)
	}
	return resultOf(info, v), nil
}

// Wait waits for an execution to end and returns its result; for an ended one
// it is Get.
func (r *Runtime) Wait(ctx context.Context, id string) (*Result, error) {
	if e, ok := r.Lookup(id); ok {
		return e.Wait(ctx)
	}
	return r.Get(ctx, id)
}

// Attach returns a Stream of an execution's events from number from on (0 or
// 1: from the first). For an ended execution it replays the stored events; for
// a running one it replays what is kept and follows live.
func (r *Runtime) Attach(ctx context.Context, id string, from uint64) (*Stream, error) {
	return r.attach(ctx, id, from, false)
}

// Follow is Attach for a client that must receive every byte of a running
// execution's output from now on (Execution.Follow: the program waits for
// it); close the Stream when done.
func (r *Runtime) Follow(ctx context.Context, id string, from uint64) (*Stream, error) {
	return r.attach(ctx, id, from, true)
}

func (r *Runtime) attach(ctx context.Context, id string, from uint64, follow bool) (*Stream, error) {
	if e, ok := r.Lookup(id); ok {
		if follow {
			return e.Follow(from), nil
		}
		return e.Events(from), nil
	}
	if _, err := r.getInfo(ctx, id); err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	v, err := r.readView(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("attach to execution %s: %w", id, err)
	}
	return &Stream{c: newStream(from), v: v}, nil
}

// Kill kills a running execution (see Execution.Kill): ErrNotRunning if it
// has ended, ErrNotFound if there is none.
func (r *Runtime) Kill(ctx context.Context, id string, sig Signal) error {
	if e, ok := r.Lookup(id); ok {
		return e.Kill(sig)
	}
	if _, err := r.getInfo(ctx, id); err != nil {
		return fmt.Errorf("kill: %w", err)
	}
	return fmt.Errorf("kill execution %s: %w", id, ErrNotRunning)
}

// Dispose deletes an ended execution's record and output. A running
// execution is not disposed: ErrRunning (kill it, wait, then dispose).
func (r *Runtime) Dispose(ctx context.Context, id string) error {
	r.mu.Lock()
	running := r.running[id] != nil || r.isReservedLocked(id)
	r.mu.Unlock()
	if running {
		return fmt.Errorf("dispose execution %s: %w", id, ErrRunning)
	}
	if _, err := r.getInfo(ctx, id); err != nil {
		return fmt.Errorf("dispose: %w", err)
	}
	if err := r.delete(ctx, []string{id}); err != nil {
		return fmt.Errorf("dispose execution %s: %w", id, err)
	}
	return nil
}

// delete removes records and their logs, and their index entries.
func (r *Runtime) delete(ctx context.Context, ids []string) error {
	err := r.rec.Batch(ctx, func(b *vfs.RecordBatch) error {
		for _, id := range ids {
			for _, k := range []string{kindExec, kindTail, kindLive} {
				if err := b.Delete(k, id); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.imu.Lock()
	for _, id := range ids {
		delete(r.index, id)
	}
	r.imu.Unlock()
	return nil
}

// ListOptions select records for List.
type ListOptions struct {
	// After lists ids sorting after this one (paging: pass the last id seen).
	After string
	// Limit is the most records returned (default 100, at most 1000).
	Limit int
	// Status keeps only records with this status ("" for all).
	Status Status
}

// List returns execution records in id order (generated ids sort by start
// time). Running executions show their current counters. It prunes first.
func (r *Runtime) List(ctx context.Context, o ListOptions) ([]Info, error) {
	if o.Limit <= 0 {
		o.Limit = 100
	}
	o.Limit = min(o.Limit, 1000)
	r.prune(ctx)
	var out []Info
	for after := o.After; len(out) < o.Limit; {
		recs, err := r.rec.List(ctx, kindExec, after, 1000)
		if err != nil {
			return nil, fmt.Errorf("list executions: %w", err)
		}
		for _, rec := range recs {
			var info Info
			if err := json.Unmarshal(rec.Value, &info); err != nil {
				return nil, fmt.Errorf("decode execution %s: %w", rec.ID, err)
			}
			if e, ok := r.Lookup(rec.ID); ok {
				info = e.Info()
			}
			if o.Status == "" || info.Status == o.Status {
				out = append(out, info)
				if len(out) == o.Limit {
					break
				}
			}
		}
		if len(recs) < 1000 {
			break
		}
		after = recs[len(recs)-1].ID
	}
	return out, nil
}

// prune deletes the finished records past Options.MaxAge and, when there are
// more than Options.MaxRecords, the oldest down to MaxRecords less a tenth
// (so that a workspace running one execution after another pays a pruning
// commit every MaxRecords/10 executions, not one per execution). Errors are
// ignored: the next prune retries.
func (r *Runtime) prune(ctx context.Context) {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	r.imu.Lock()
	if r.index == nil {
		idx, err := r.loadIndex(ctx)
		if err != nil {
			r.imu.Unlock()
			return
		}
		r.index = idx
	}
	type ent struct {
		id    string
		ended time.Time
	}
	ents := make([]ent, 0, len(r.index))
	for id, t := range r.index {
		ents = append(ents, ent{id, t})
	}
	r.imu.Unlock()
	sort.Slice(ents, func(i, j int) bool {
		if !ents[i].ended.Equal(ents[j].ended) {
			return ents[i].ended.After(ents[j].ended)
		}
		return ents[i].id > ents[j].id
	})
	cutoff := r.opts.Now().Add(-r.opts.MaxAge)
	keep := r.opts.MaxRecords
	if len(ents) > keep {
		keep -= keep / 10
	}
	var victims []string
	for i, e := range ents {
		if i >= keep || e.ended.Before(cutoff) {
			victims = append(victims, e.id)
		}
	}
	for len(victims) > 0 {
		n := min(len(victims), 100)
		if err := r.delete(ctx, victims[:n]); err != nil {
			return
		}
		victims = victims[n:]
	}
}

// loadIndex reads the end times of every finished record.
func (r *Runtime) loadIndex(ctx context.Context) (map[string]time.Time, error) {
	idx := map[string]time.Time{}
	for after := ""; ; {
		recs, err := r.rec.List(ctx, kindExec, after, 1000)
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			var s struct {
				Status Status    `json:"status"`
				Ended  time.Time `json:"ended"`
			}
			if json.Unmarshal(rec.Value, &s) == nil && s.Status != StatusRunning {
				idx[rec.ID] = s.Ended
			}
		}
		if len(recs) < 1000 {
			return idx, nil
		}
		after = recs[len(recs)-1].ID
	}
}

// Close stops every running execution (their backends' ctx is cancelled with
// ErrStopped; each is recorded as failed with that reason), waits for their
// records to be stored (at most Options.KillGrace for a backend to return),
// and refuses new executions with ErrClosed. It does not close the store.
func (r *Runtime) Close() error {
	r.mu.Lock()
	r.closed = true
	list := slices.Collect(maps.Values(r.running))
	r.mu.Unlock()
	for _, e := range list {
		e.cancel(ErrStopped)
	}
	r.wg.Wait()
	return nil
}

// ValidID reports whether s is a valid execution or backend id: 1 to 64 of
// [A-Za-z0-9._-], starting with a letter or a digit.
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case (c == '.' || c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// newID returns 26 characters of Crockford base32: 48 bits of milliseconds
// since 1970, then 80 random bits, so ids sort by creation time.
func newID(now time.Time) string {
	const digits = "0123456789abcdefghjkmnpqrstvwxyz"
	var b [16]byte
	ms := uint64(now.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	rand.Read(b[6:])
	// 128 bits read as 130 (two leading zero bits): 26 digits of 5 bits.
	out := make([]byte, 26)
	for i := range out {
		var d byte
		for k := range 5 {
			d <<= 1
			if bit := i*5 + k - 2; bit >= 0 && b[bit/8]>>(7-bit%8)&1 == 1 {
				d |= 1
			}
		}
		out[i] = digits[d]
	}
	return string(out)
}
