package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/wspath"
)

// Defaults for Options and ExecOptions. A zero field takes its default.
const (
	DefaultCwd             = wspath.Dir // "/workspace"
	DefaultMaxRunning      = 16
	DefaultMaxDetached     = 8 // running detached executions, besides MaxRunning
	DefaultTimeout         = 5 * time.Minute
	DefaultMaxTimeout      = time.Hour
	DefaultDetachedTimeout = 24 * time.Hour // wall time of a detached execution: default and maximum
	DefaultOutputLimit     = 1 << 20        // stored output per execution: head + tail
	DefaultMaxOutputLimit  = 64 << 20       // the largest OutputLimit an execution may ask for
	MinOutputLimit         = 1 << 10
	DefaultMaxSourceBytes  = 1 << 20
	DefaultMaxInputBytes   = 1 << 20
	DefaultMaxValueBytes   = 1 << 20
	DefaultMaxStdinBytes   = math.MaxInt64 // no bound: stdin is streamed, never held whole
	DefaultMaxEnvBytes     = 128 << 10
	DefaultMaxChanges      = 10_000 // paths reported per execution (created + modified + deleted)
	DefaultMaxRecords      = 1000   // finished executions kept
	DefaultMaxAge          = 7 * 24 * time.Hour
	DefaultFlushInterval   = 50 * time.Millisecond
	DefaultFlushBytes      = 64 << 10
	DefaultCommitDelay     = 50 * time.Millisecond // an execution's file changes: see Options.CommitDelay
	DefaultKillGrace       = 10 * time.Second
	DefaultForegroundGrace = 10 * time.Second
	DefaultMaxCPU          = 10 * time.Minute // CPU time of one execution (Options.MaxCPU)
)

// DefaultEnv returns the environment every execution starts from unless
// Options.Env replaces it. ExecOptions.Env is laid over it, and DESK_EXEC_ID
// (the execution id) is always set.
func DefaultEnv() map[string]string {
	return map[string]string{
		"PATH": "/usr/local/bin:/usr/bin:/bin",
		"HOME": DefaultCwd,
		"LANG": "C.UTF-8",
		"TERM": "dumb",
	}
}

// Options configure a Runtime. The zero value gives the documented defaults;
// negative values are an error.
type Options struct {
	// Recovered is the error recorded on the executions a previous process
	// left running, which Open finishes as failed. Default ErrStopped's
	// text; a workspace worker restarted after a crash says why the last
	// one died ("the workspace's worker was killed: out of memory").
	Recovered string
	// MaxRunning bounds concurrently running executions; Exec past it fails
	// with ErrBusy. Default DefaultMaxRunning (16).
	MaxRunning int
	// Timeout is the timeout of an execution that asks for none. Default
	// DefaultTimeout (5m), or MaxTimeout if that is shorter.
	Timeout time.Duration
	// MaxTimeout is the largest timeout an execution may ask for (beyond:
	// ErrTimeoutTooLong). Default DefaultMaxTimeout (1h). It does not bound
	// detached executions, which DetachedTimeout bounds.
	MaxTimeout time.Duration
	// MaxDetached bounds concurrently running detached executions
	// (ExecOptions.Detached); they do not count against MaxRunning, so that
	// services cannot starve ordinary executions. Exec past it fails with
	// ErrBusy. Default DefaultMaxDetached (8).
	MaxDetached int
	// DetachedTimeout is the wall-time limit of a detached execution: what
	// one that asks for no timeout gets, and the most one may ask for
	// (beyond: ErrTimeoutTooLong). There is no "none": set a long one.
	// Default DefaultDetachedTimeout (24h).
	DetachedTimeout time.Duration
	// OutputLimit is the stored output of an execution that asks for none: the
	// first half and the last half of its output are kept, what lies between is
	// elided (counted). Default DefaultOutputLimit (1 MiB).
	OutputLimit int64
	// MaxOutputLimit bounds ExecOptions.OutputLimit (ErrTooLarge). Default 64 MiB.
	MaxOutputLimit int64
	// MaxSourceBytes bounds the source (ErrTooLarge). Default 1 MiB.
	MaxSourceBytes int
	// MaxInputBytes bounds ExecOptions.Input (ErrTooLarge). Default 1 MiB.
	MaxInputBytes int
	// MaxValueBytes bounds Outcome.Value; a larger value fails the execution.
	// Default 1 MiB.
	MaxValueBytes int
	// MaxStdinBytes bounds what a backend may read from stdin; the read past it
	// fails with ErrTooLarge. Default: no bound (math.MaxInt64): stdin flows
	// from its reader to the backend as the backend reads it, never held
	// whole, so its size costs the execution's time only (bounded by its
	// timeout).
	MaxStdinBytes int64
	// MaxEnvBytes bounds the given environment (keys + values) (ErrTooLarge).
	// Default 128 KiB.
	MaxEnvBytes int
	// MaxChanges bounds the paths listed in a change set; past it the set is
	// marked Truncated. Default 10,000.
	MaxChanges int
	// MaxRecords is how many finished executions are kept; when an ending
	// execution takes their number past it, the oldest (by end time) are
	// pruned down to MaxRecords less a tenth, so that pruning commits once
	// per MaxRecords/10 executions. Default 1000.
	MaxRecords int
	// MaxAge is how long a finished execution is kept. Default 7 days.
	MaxAge time.Duration
	// FlushInterval and FlushBytes set how output is written to the database:
	// in one batch at most FlushInterval after it was produced, or as soon as
	// FlushBytes are waiting, and at exit. Defaults 50ms and 64 KiB.
	FlushInterval time.Duration
	FlushBytes    int
	// CommitDelay is how long a file change an execution makes through
	// Job.FS may wait for its commit: the job's store handle is
	// vfs.FS.WithBatching(CommitDelay), so the changes of one execution share
	// commits (at most CommitDelay apart, earlier when anything else commits:
	// an output flush, a durable write by anyone, File.Sync), and all are
	// durable when the execution ends, before its end is recorded. A kill -9
	// of the process loses at most the changes of the last CommitDelay, and
	// only the newest ones, in order. Default 50ms (FlushInterval's: output
	// and files are lost or kept over the same span); negative: every change
	// is durable when its call returns.
	CommitDelay time.Duration
	// KillGrace is how long a backend has to return once its ctx is cancelled
	// (kill, timeout, Close) before the execution is recorded as ended without
	// it. Default 10s.
	KillGrace time.Duration
	// ForegroundGrace is how long a foreground execution
	// (ExecOptions.Foreground) may go without anyone holding it
	// (Execution.Hold: following its events, sending its stdin, waiting for
	// it) before it is killed with SIGHUP, as a terminal's hang-up kills its
	// job. Default 10s.
	ForegroundGrace time.Duration
	// MaxCPU is the CPU time an execution may use (all its processes or
	// goroutines, as its backend's meter reads it: Job.MeterCPU); past it
	// the execution ends as StatusCPULimit (its backend's ctx is cancelled
	// with ErrCPULimit, as for a timeout). A Quota's grant replaces it
	// (the workspace's max_cpu_per_execution), and ExecOptions.MaxCPU may
	// lower it. Default DefaultMaxCPU (10 minutes); negative: no bound. A
	// backend without a meter is not bounded.
	MaxCPU time.Duration
	// Network gives an execution its Job.Net (and may add to its Job.Env,
	// e.g. proxy settings); nil, or a nil result, means no network.
	Network func(ctx context.Context, job *Job) http.RoundTripper
	// Env replaces DefaultEnv as the base environment (nil: DefaultEnv()).
	Env map[string]string
	// Router chooses the backend for executions that ask for AutoBackend
	// ("auto"): given the source and the configured backends, it returns the
	// backend to run and a reason a person can read ("every command is one the
	// shell has", "npm is not a shell command"), or an error naming what
	// cannot run anywhere. Without a Router, "auto" is an unknown backend. The
	// shell package provides one (it knows its commands and parses scripts);
	// run only calls it, so backends never import each other.
	Router func(source string, backends []string) (backend, reason string, err error)
	// DefaultBackend is used when ExecOptions.Backend is empty ("" means a
	// backend must always be named).
	DefaultBackend string
	// Admit, if set, is asked before each execution starts (once its
	// options are checked and its backend chosen, before it counts against
	// MaxRunning or MaxDetached) whether it may start now: an error refuses
	// it (Exec returns the error wrapped), else release is called once the
	// execution's end is stored — before its exit event is visible and Wait
	// returns, so that whoever saw it end may start another — and its
	// backend has returned (a backend abandoned after KillGrace keeps what
	// it was admitted with until it returns).
	// ctx is Exec's. It is the seam of fair shares (package fair): bounds
	// per workspace, per token and host-wide.
	Admit func(ctx context.Context, a Admission) (release func(), err error)
	// Gate, if set, is asked before admission whether an execution may
	// start: the seam of package policy (PolicyGate: the command rules and
	// approvals, the path rules the store checks). It may block (an
	// approval is awaited); its error refuses the execution (Exec returns
	// it wrapped); the context it returns is the execution's.
	Gate func(ctx context.Context, g GateRequest) (context.Context, error)
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Admission is what Options.Admit is asked about: an execution about to
// start.
type Admission struct {
	Backend  string // the backend that will run it (after routing)
	Detached bool   // a detached execution (a service)
}

func (o Options) withDefaults() (Options, error) {
	if o.MaxRunning < 0 || o.Timeout < 0 || o.MaxTimeout < 0 || o.MaxDetached < 0 || o.DetachedTimeout < 0 || o.OutputLimit < 0 || o.MaxOutputLimit < 0 ||
		o.MaxSourceBytes < 0 || o.MaxInputBytes < 0 || o.MaxValueBytes < 0 || o.MaxStdinBytes < 0 ||
		o.MaxEnvBytes < 0 || o.MaxChanges < 0 || o.MaxRecords < 0 || o.MaxAge < 0 || o.FlushInterval < 0 ||
		o.FlushBytes < 0 || o.KillGrace < 0 || o.ForegroundGrace < 0 {
		return o, fmt.Errorf("check options: negative limit: %w", ErrInvalid)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def64 := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.MaxRunning, DefaultMaxRunning)
	defD(&o.MaxTimeout, DefaultMaxTimeout)
	defD(&o.Timeout, min(DefaultTimeout, o.MaxTimeout))
	def(&o.MaxDetached, DefaultMaxDetached)
	defD(&o.DetachedTimeout, DefaultDetachedTimeout)
	def64(&o.OutputLimit, DefaultOutputLimit)
	def64(&o.MaxOutputLimit, DefaultMaxOutputLimit)
	def(&o.MaxSourceBytes, DefaultMaxSourceBytes)
	def(&o.MaxInputBytes, DefaultMaxInputBytes)
	def(&o.MaxValueBytes, DefaultMaxValueBytes)
	def64(&o.MaxStdinBytes, DefaultMaxStdinBytes)
	def(&o.MaxEnvBytes, DefaultMaxEnvBytes)
	def(&o.MaxChanges, DefaultMaxChanges)
	def(&o.MaxRecords, DefaultMaxRecords)
	defD(&o.MaxAge, DefaultMaxAge)
	defD(&o.FlushInterval, DefaultFlushInterval)
	defD(&o.CommitDelay, DefaultCommitDelay)
	def(&o.FlushBytes, DefaultFlushBytes)
	defD(&o.KillGrace, DefaultKillGrace)
	defD(&o.ForegroundGrace, DefaultForegroundGrace)
	defD(&o.MaxCPU, DefaultMaxCPU)
	if o.Env == nil {
		o.Env = DefaultEnv()
	} else {
		o.Env = maps.Clone(o.Env)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Timeout > o.MaxTimeout {
		return o, fmt.Errorf("check options: timeout %v over the maximum %v: %w", o.Timeout, o.MaxTimeout, ErrTimeoutTooLong)
	}
	if o.OutputLimit < MinOutputLimit || o.OutputLimit > o.MaxOutputLimit {
		return o, fmt.Errorf("check options: output limit %d not in [%d, %d]: %w", o.OutputLimit, MinOutputLimit, o.MaxOutputLimit, ErrInvalid)
	}
	for k, v := range o.Env {
		if err := checkEnv(k, v); err != nil {
			return o, fmt.Errorf("check options: %w", err)
		}
	}
	return o, nil
}

// ExecOptions configure one execution. The zero value runs Options.DefaultBackend
// in DefaultCwd with the default timeout and output limit.
type ExecOptions struct {
	// ID is the execution id: 1 to 64 of [A-Za-z0-9._-], starting with a letter
	// or digit. Empty: a new id is generated (26 characters, sorting by
	// creation time). An id in use is ErrExists.
	ID string
	// Backend selects the backend by id (empty: Options.DefaultBackend; for
	// a detached execution, AutoBackend).
	Backend string
	// Cwd is the working directory (default DefaultCwd). A relative one is
	// taken from /workspace, as on every surface (wspath.Resolve); it is
	// cleaned, not checked for existence (the backend does that).
	Cwd string
	// Env is laid over the base environment for this execution only.
	Env map[string]string
	// Stdin is standard input, read by the backend while it runs (use
	// bytes.NewReader for bytes). The runtime never closes it. Nil: empty.
	Stdin io.Reader
	// StdinStream says standard input arrives after the start, through
	// Execution.CopyStdin (one stream, of any size, flowing as the backend
	// reads it). Until it starts, the backend's reads wait. Not with Stdin.
	StdinStream bool
	// Foreground ties the execution to a client that follows it: when nobody
	// holds it (Execution.Hold) for Options.ForegroundGrace, from its start
	// on, it is killed with SIGHUP (its error says why). Not with Detached.
	Foreground bool
	// Timeout bounds the execution's run time (0: Options.Timeout; more than
	// Options.MaxTimeout: ErrTimeoutTooLong). For a detached execution: 0 is
	// Options.DetachedTimeout, and more than that is ErrTimeoutTooLong.
	Timeout time.Duration
	// Input is a JSON value passed to the backend (at most Options.MaxInputBytes).
	Input json.RawMessage
	// OutputLimit is the stored output cap (0: Options.OutputLimit; at least
	// MinOutputLimit, at most Options.MaxOutputLimit).
	OutputLimit int64
	// MaxCPU lowers the execution's CPU limit (Options.MaxCPU, or its
	// Quota's grant) to this (0: that limit; a larger value: that limit
	// too; negative: ErrInvalid).
	MaxCPU time.Duration
	// Detached starts a detached execution: a long-running program (a
	// service) whose processes outlive its main process. Only a backend that
	// implements Detacher runs one (others: ErrInvalid); with AutoBackend a
	// Detacher is chosen. Exec returns once the program has started. It ends
	// when its main process has exited and none of its processes is left, is
	// killed, times out (Options.DetachedTimeout) or the Runtime closes. It
	// reads no stdin (Stdin must be nil) and counts against
	// Options.MaxDetached, not MaxRunning.
	Detached bool
}

// checked is ExecOptions validated and completed.
type checked struct {
	ExecOptions
	env       map[string]string
	requested string // "auto" when a Router chose Backend
	route     string // the Router's reason
}

// AutoBackend is the backend id that asks Options.Router to choose.
const AutoBackend = "auto"

func (r *Runtime) check(source string, o ExecOptions, allowed []string) (checked, error) {
	c := checked{ExecOptions: o}
	if o.ID != "" && !ValidID(o.ID) {
		return c, fmt.Errorf("check execution id %q: want 1-64 of [A-Za-z0-9._-] starting with a letter or digit: %w", o.ID, ErrInvalid)
	}
	if c.Backend == "" && c.Detached {
		// The default backend (the shell, usually) seldom runs services:
		// a detached execution that names none goes where one can run.
		c.Backend = AutoBackend
	}
	if c.Backend == "" {
		c.Backend = r.opts.DefaultBackend
	}
	if c.Backend == "" {
		return c, fmt.Errorf("route execution: no backend given (%s): %w", haveBackends(r.Backends()), ErrUnknownBackend)
	}
	if err := allowBackend(allowed, c.Backend); err != nil {
		return c, err
	}
	if c.Stdin != nil && c.StdinStream {
		return c, fmt.Errorf("check stdin: give Stdin or StdinStream, not both: %w", ErrInvalid)
	}
	if c.Detached {
		if c.Stdin != nil || c.StdinStream {
			return c, fmt.Errorf("check stdin: a detached execution reads no standard input: %w", ErrInvalid)
		}
		if c.Foreground {
			return c, fmt.Errorf("check options: a detached execution (a service) outlives its client; it cannot be a foreground one: %w", ErrInvalid)
		}
		if c.Backend == AutoBackend {
			b, err := r.detacher(routable(r.Backends(), allowed))
			if err != nil {
				return c, err
			}
			c.requested, c.route, c.Backend = AutoBackend, "detached executions run on "+b+", a backend that can run them", b
		} else if be, ok := r.backends[c.Backend]; ok {
			if _, ok := be.(Detacher); !ok {
				return c, fmt.Errorf("route execution: backend %s cannot run detached executions (%s): %w", c.Backend, detachersText(r.detachers(r.Backends())), ErrInvalid)
			}
		}
	}
	if c.Backend == AutoBackend {
		if r.opts.Router == nil {
			return c, fmt.Errorf("route execution: %q: automatic routing is not configured (%s): %w", AutoBackend, haveBackends(r.Backends()), ErrUnknownBackend)
		}
		b, reason, err := r.opts.Router(source, routable(r.Backends(), allowed))
		if err != nil {
			// No configured backend can run it: for callers, an unknown backend.
			return c, fmt.Errorf("route execution: %w (%w)", err, ErrUnknownBackend)
		}
		c.requested, c.route, c.Backend = AutoBackend, reason, b
	}
	if _, ok := r.backends[c.Backend]; !ok {
		return c, fmt.Errorf("route execution: backend %q (%s): %w", c.Backend, haveBackends(r.Backends()), ErrUnknownBackend)
	}
	if len(source) > r.opts.MaxSourceBytes {
		return c, fmt.Errorf("check source: %d bytes, over the limit of %d: %w", len(source), r.opts.MaxSourceBytes, ErrTooLarge)
	}
	if strings.IndexByte(c.Cwd, 0) >= 0 {
		return c, fmt.Errorf("check cwd %q: contains a NUL byte: %w", c.Cwd, ErrInvalid)
	}
	c.Cwd = wspath.Resolve(c.Cwd)
	defTimeout, maxTimeout := r.opts.Timeout, r.opts.MaxTimeout
	if c.Detached {
		defTimeout, maxTimeout = r.opts.DetachedTimeout, r.opts.DetachedTimeout
	}
	if tb, ok := r.backends[c.Backend].(TimeoutBounds); ok && !c.Detached {
		d, m := tb.Timeouts()
		if m > 0 && m < maxTimeout {
			maxTimeout = m
		}
		if d > 0 {
			defTimeout = d
		}
		defTimeout = min(defTimeout, maxTimeout)
	}
	switch {
	case c.Timeout < 0:
		return c, fmt.Errorf("check timeout %v: negative: %w", c.Timeout, ErrInvalid)
	case c.Timeout == 0:
		c.Timeout = defTimeout
	case c.Timeout > maxTimeout:
		return c, fmt.Errorf("check timeout: %v over the maximum of %v for backend %s: %w", c.Timeout, maxTimeout, c.Backend, ErrTimeoutTooLong)
	}
	if c.MaxCPU < 0 {
		return c, fmt.Errorf("check CPU limit %v: negative: %w", c.MaxCPU, ErrInvalid)
	}
	switch {
	case c.OutputLimit < 0:
		return c, fmt.Errorf("check output limit %d: negative: %w", c.OutputLimit, ErrInvalid)
	case c.OutputLimit == 0:
		c.OutputLimit = r.opts.OutputLimit
	case c.OutputLimit > r.opts.MaxOutputLimit:
		return c, fmt.Errorf("check output limit: %d over the maximum of %d: %w", c.OutputLimit, r.opts.MaxOutputLimit, ErrTooLarge)
	case c.OutputLimit < MinOutputLimit:
		return c, fmt.Errorf("check output limit: %d under the minimum of %d: %w", c.OutputLimit, MinOutputLimit, ErrInvalid)
	}
	if len(c.Input) > 0 {
		if len(c.Input) > r.opts.MaxInputBytes {
			return c, fmt.Errorf("check input: %d bytes, over the limit of %d: %w", len(c.Input), r.opts.MaxInputBytes, ErrTooLarge)
		}
		if !json.Valid(c.Input) {
			return c, fmt.Errorf("check input: not valid JSON: %w", ErrInvalid)
		}
		c.Input = append(json.RawMessage(nil), c.Input...)
	} else {
		c.Input = nil
	}
	size := 0
	for k, v := range c.Env {
		if err := checkEnv(k, v); err != nil {
			return c, err
		}
		size += len(k) + len(v) + 2
	}
	if size > r.opts.MaxEnvBytes {
		return c, fmt.Errorf("check env: %d bytes, over the limit of %d: %w", size, r.opts.MaxEnvBytes, ErrTooLarge)
	}
	c.env = maps.Clone(r.opts.Env)
	maps.Copy(c.env, c.Env)
	return c, nil
}

func checkEnv(k, v string) error {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return fmt.Errorf("check env: bad name %q: %w", k, ErrInvalid)
	}
	if strings.IndexByte(v, 0) >= 0 {
		return fmt.Errorf("check env: value of %s holds a NUL byte: %w", k, ErrInvalid)
	}
	return nil
}

// detachers returns the backends among ids that can run detached executions.
func (r *Runtime) detachers(ids []string) []string {
	var out []string
	for _, id := range ids {
		if _, ok := r.backends[id].(Detacher); ok {
			out = append(out, id)
		}
	}
	return out
}

// detacher chooses the backend of a detached execution that asked for
// AutoBackend: the first (by id) of ids that can run one.
func (r *Runtime) detacher(ids []string) (string, error) {
	d := r.detachers(ids)
	if len(d) == 0 {
		offered := strings.Join(ids, ", ")
		if offered == "" {
			offered = "none"
		}
		return "", fmt.Errorf("route execution: no backend that can run detached executions is available (they need the sandbox backend; available here: %s): %w", offered, ErrInvalid)
	}
	return d[0], nil
}

// detachersText names the backends that can run detached executions, for an
// error message.
func detachersText(ids []string) string {
	if len(ids) == 0 {
		return "no backend here can"
	}
	return "use " + strings.Join(ids, " or ")
}

// haveBackends describes the configured backends for an error message.
func haveBackends(ids []string) string {
	if len(ids) == 0 {
		return "this runtime has no backends"
	}
	return "have " + strings.Join(ids, ", ")
}
