package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// Backend runs source written in its language. Implementations live in their
// own packages and assert the interface:
//
//	var _ run.Backend = (*Backend)(nil)
//
// Run is called once per execution, on its own goroutine, with a ctx that
//   - carries vfs.WithActor(ctx, job.ID), so every change made with it (or a
//     context derived from it) is attributed to the execution in the change
//     journal — the change set in the Result depends on it;
//   - is cancelled when the execution is killed, times out or the Runtime
//     closes; context.Cause(ctx) tells which (a *KillError, ErrTimedOut or
//     ErrStopped). Run must return promptly once ctx is done: the runtime waits
//     Options.KillGrace, then records the execution as ended and abandons the
//     goroutine (its later output is dropped).
//
// Run writes output to job.Stdout and job.Stderr (safe for concurrent use; the
// data is copied) and returns the program's exit code and optional JSON value.
// A non-nil error means the backend could not run the source at all (the
// execution is recorded as failed with the error's text); a program that ran
// and failed reports a non-zero Outcome.ExitCode and a nil error. Run must
// close every vfs.File it opened before it returns: handle writes flushed later
// fall outside the execution's change window.
type Backend interface {
	Run(ctx context.Context, job *Job) (Outcome, error)
}

// Detacher is implemented by a Backend that can run detached executions
// (ExecOptions.Detached): long-running programs, services, whose processes
// are not bound to the program's main process. Exec refuses Detached for a
// backend that does not implement it (ErrInvalid), and AutoBackend sends a
// detached execution to one that does. The sandbox backend does.
//
// RunDetached is called instead of Run, on its own goroutine, with the same
// ctx and Job and under the same contract, with these differences:
//   - it calls started once the program runs, at most once, and not at all
//     when the program could not be started (it returns the error then);
//     Exec of a detached execution returns when started is called (or the
//     execution ended first);
//   - processes the main process leaves behind are not killed when it
//     exits: RunDetached returns once the main process has exited, its
//     output has ended and no process of the execution is left, reporting
//     the main process's exit code;
//   - when ctx is done it signals every process of the execution (the
//     signal of a *KillError, else SIGTERM; SIGKILL a grace period later)
//     and returns once they are gone, as Run does;
//   - job.Stdin is always empty (Exec refuses stdin for detached executions).
type Detacher interface {
	Backend
	RunDetached(ctx context.Context, job *Job, started func()) (Outcome, error)
}

// TimeoutBounds is implemented by a Backend that has its own wall-time
// default and maximum (the js backend). Exec then gives an execution of that
// backend that asks for no timeout the backend's default, and refuses one
// beyond the backend's maximum (ErrTimeoutTooLong); Options.MaxTimeout still
// bounds both. A zero value leaves run's own.
type TimeoutBounds interface {
	Timeouts() (def, max time.Duration)
}

// Job is what a Backend gets for one execution. The runtime owns it; a backend
// reads it and must not keep it after Run returns.
type Job struct {
	// ID is the execution id (also the journal actor of ctx).
	ID string
	// Backend is the id the execution was routed by.
	Backend string
	// Source is the program text, in the backend's language.
	Source string
	// Cwd is the absolute, cleaned working directory (default DefaultCwd).
	Cwd string
	// Env is the complete environment: Options.Env (or DefaultEnv) overlaid
	// with ExecOptions.Env, plus DESK_EXEC_ID. Never the host's environment.
	Env map[string]string
	// Stdin is standard input (empty when none was given; never nil). Reads
	// past Options.MaxStdinBytes fail with ErrTooLarge.
	Stdin io.Reader
	// Input is an optional JSON value for backends that take one (nil if none).
	Input json.RawMessage
	// Stdout and Stderr receive the program's output. Writes after Run
	// returned fail with ErrNotRunning.
	Stdout, Stderr io.Writer
	// FS is the workspace store, as a handle from vfs.FS.WithBatching
	// (Options.CommitDelay): the execution's file changes share commits and
	// are all durable when it ends. Use Run's ctx for every call.
	FS *vfs.FS
	// Detached is set for a detached execution (ExecOptions.Detached): the
	// runtime calls Detacher.RunDetached, not Run.
	Detached bool
	// Net is the execution's network, for backends whose programs make
	// requests from inside desk (js fetch, the shell's curl and wget, git):
	// every request goes through it, and it enforces the workspace's egress
	// policy (a refused request gets a 403 response whose body says why). nil
	// means no network: such clients fail with ErrNoNetwork. Set by
	// Options.Network.
	Net http.RoundTripper

	cpu cpuMeter // MeterCPU's
}

// ErrNoNetwork is what an in-process client reports when its execution has
// no network (Job.Net is nil).
var ErrNoNetwork = errors.New("no network: the workspace's egress policy is none")

// Outcome is what a backend reports when the program ran to its end.
type Outcome struct {
	// ExitCode is the program's exit status (0 success).
	ExitCode int
	// Value is an optional JSON value (a js module's result, for example). It
	// must be valid JSON and at most Options.MaxValueBytes long, or the
	// execution is recorded as failed.
	Value json.RawMessage
	// Usage is the resources the program used, if the backend measures them
	// (nil when it does not). It is recorded in Info.Usage.
	Usage *Usage
}

// Usage is what an execution's program used, as its backend measured it.
type Usage struct {
	// CPU is the CPU time of the execution, as its meter read it after the
	// backend returned (Job.MeterCPU): all its goroutines (shell, js), all
	// its processes (the sandbox: its cgroup's); 0 for a backend without a
	// meter (then UserTime and SysTime count). It is what the CPU limit
	// and the workspace's CPU quota count (CPUTime).
	CPU time.Duration `json:"cpu_ns,omitempty"`
	// UserTime and SysTime are the CPU time spent in user and kernel mode by
	// the program and the descendants it waited for, when the backend
	// tells them apart (the sandbox).
	UserTime time.Duration `json:"user_ns"`
	SysTime  time.Duration `json:"sys_ns"`
	// MaxRSS is the peak resident set size, in bytes, of the largest of them.
	MaxRSS int64 `json:"max_rss_bytes"`
}

// Status is the state of an execution.
type Status string

// Statuses. Every execution starts running and ends in exactly one of the others.
const (
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed" // the backend ran the source to its end (any exit code)
	StatusFailed    Status = "failed"    // the backend returned an error, panicked, or the server stopped
	StatusCancelled Status = "cancelled" // Kill
	StatusTimedOut  Status = "timed-out" // the timeout elapsed
	StatusCPULimit  Status = "cpu-limit" // the execution used its CPU limit (ErrCPULimit)
)

// Exit codes reported for executions that did not end on their own, following
// the conventions of timeout(1), docker run and shells.
const (
	ExitTimedOut = 124 // timed-out (as GNU timeout)
	ExitFailed   = 125 // failed: the backend could not run the source (as docker run)
	ExitCPULimit = 152 // cpu-limit: 128 + SIGXCPU, as a shell reports a program ulimit -t stopped
	// A cancelled execution reports 128 + the signal number (137 for SIGKILL,
	// 143 for SIGTERM), as a shell reports a process killed by a signal.
)

// Signal is a signal sent to an execution by Kill. Its number is the Linux one.
type Signal int

// Signals Kill accepts.
const (
	SIGHUP  Signal = 1
	SIGINT  Signal = 2
	SIGQUIT Signal = 3
	SIGKILL Signal = 9
	SIGTERM Signal = 15
)

var signalNames = map[Signal]string{SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM"}

// String returns the signal's name ("SIGKILL").
func (s Signal) String() string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}

// Valid reports whether Kill accepts s.
func (s Signal) Valid() bool { _, ok := signalNames[s]; return ok }

// ParseSignal parses a signal given as "SIGTERM", "TERM", "term" or "15".
func ParseSignal(s string) (Signal, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if sig := Signal(n); sig.Valid() {
			return sig, nil
		}
	} else {
		u := strings.ToUpper(s)
		if !strings.HasPrefix(u, "SIG") {
			u = "SIG" + u
		}
		for sig, name := range signalNames {
			if name == u {
				return sig, nil
			}
		}
	}
	return 0, fmt.Errorf("parse signal %q: %w", s, ErrInvalid)
}

// Errors. Adapters map them with errors.Is; the suggested HTTP status and
// errno are given for each.
var (
	// ErrUnknownBackend: no backend has the requested id (400, EINVAL).
	ErrUnknownBackend = errors.New("unknown backend")
	// ErrBusy: Options.MaxRunning executions (Options.MaxDetached detached
	// ones) are already running (429, EBUSY).
	ErrBusy = errors.New("too many running executions")
	// ErrTooLarge: source, input, stdin, env, value or output limit over its bound (413, E2BIG).
	ErrTooLarge = errors.New("too large")
	// ErrTimeoutTooLong: a timeout beyond Options.MaxTimeout (for a detached
	// execution: Options.DetachedTimeout) (400, EINVAL).
	ErrTimeoutTooLong = errors.New("timeout exceeds the maximum")
	// ErrInvalid: malformed options (id, cwd, env, input JSON, signal...) (400, EINVAL).
	ErrInvalid = errors.New("invalid argument")
	// ErrNotFound: no execution has that id (404, ENOENT).
	ErrNotFound = errors.New("no such execution")
	// ErrExists: an execution with that id already exists (409, EEXIST).
	ErrExists = errors.New("execution id already in use")
	// ErrRunning: the execution is still running (Dispose) (409, EBUSY).
	ErrRunning = errors.New("execution is running")
	// ErrNotRunning: the execution has ended (Kill, output writes) (409, ESRCH).
	ErrNotRunning = errors.New("execution is not running")
	// ErrStdinTaken: CopyStdin was called for an execution whose stdin
	// stream is already being (or was) sent (409, EBUSY).
	ErrStdinTaken = errors.New("the execution's stdin stream is taken")
	// ErrClosed: the Runtime is closed (503, ESHUTDOWN).
	ErrClosed = errors.New("runtime is closed")
	// ErrTimedOut is the context cause a backend sees when the timeout elapsed.
	ErrTimedOut = errors.New("execution timed out")
	// ErrStopped is the context cause a backend sees when the Runtime closes.
	ErrStopped = errors.New("desk server stopped while the execution was running")
)

// KillError is the context cause a backend sees when the execution was killed.
type KillError struct {
	Signal Signal
	// Reason says why, when the runtime itself killed it (a foreground
	// execution nobody followed); "" for Kill.
	Reason string
}

// Error says which signal killed the execution, and why when known.
func (e *KillError) Error() string {
	if e.Reason != "" {
		return "execution killed by " + e.Signal.String() + ": " + e.Reason
	}
	return "execution killed by " + e.Signal.String()
}
