package jsvm

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Defaults of Options. Every limit is per execution unless it says otherwise.
const (
	DefaultTimeout        = time.Minute      // wall time of an execution that asks for none
	DefaultMaxTimeout     = 10 * time.Minute // the longest wall time an execution may ask for
	DefaultMaxMemory      = 64 << 20         // bytes the engine may allocate
	DefaultMaxStackDepth  = 5000             // engine stack slots (about one per JavaScript call)
	DefaultMaxOutputBytes = 16 << 20         // stdout + stderr
	DefaultMaxSourceBytes = 16 << 20         // source of every module loaded, the main one included
	DefaultMaxModules     = 1000             // modules loaded (built-in ones included)
	DefaultMaxModuleDepth = 100              // length of an import chain
	DefaultMaxFSCalls     = 100_000          // fs/promises calls
	DefaultMaxFSBytes     = 256 << 20        // bytes read and written by fs/promises
	DefaultMaxConcurrent  = 8                // executions of one Backend at once (all workspaces)
	DefaultMaxTimers      = 10_000           // timers pending at once
	DefaultMaxStuck       = 8                // stuck engines tolerated beyond MaxConcurrent (all workspaces)
	DefaultStopGrace      = 20 * time.Millisecond
	DefaultMaxFetches     = 64       // fetches in flight at once
	DefaultMaxFetchBody   = 16 << 20 // bytes of one fetch request body
)

// Options configure a Backend. Zero fields take the documented defaults;
// negative ones are an error.
type Options struct {
	// Timeout is the wall time of an execution that asks for none, and
	// MaxTimeout the longest one may ask for (run.ExecOptions.Timeout; beyond
	// it Exec fails with run.ErrTimeoutTooLong). run's own maximum still
	// applies. Defaults DefaultTimeout (1m) and DefaultMaxTimeout (10m).
	Timeout, MaxTimeout time.Duration
	// MaxMemory bounds the bytes the JavaScript engine allocates (default
	// 64 MiB). Reaching it ends the execution, even if the script catches
	// the "out of memory" error.
	MaxMemory int64
	// MaxStackDepth bounds the depth of JavaScript calls, in engine stack
	// slots, about one per plain call and 3-9 through built-ins (default
	// 5000). Past it the engine throws a catchable RangeError "stack
	// overflow" (Node's says "Maximum call stack size exceeded"); uncaught,
	// it ends the execution with exit code 1.
	MaxStackDepth int
	// MaxStackMemory bounds the bytes the frames of the calls on the stack
	// take (arguments, local variables, operand stacks), which the engine
	// allocates apart from MaxMemory (default: MaxMemory). The call depth
	// limit is MaxStackDepth, or less: MaxStackMemory divided by the
	// largest frame of the code loaded (the runtime's own is 6.5 KiB; with
	// the defaults, code whose functions have fewer than about 800 local
	// variables and operands keeps 5000). A function bound to many
	// arguments counts them in its frame.
	MaxStackMemory int64
	// MaxOutputBytes bounds stdout plus stderr (default 16 MiB; run keeps
	// only its own output cap of it).
	MaxOutputBytes int64
	// MaxSourceBytes bounds the source text of all modules loaded, the main
	// one included (default 16 MiB).
	MaxSourceBytes int64
	// MaxModules bounds the modules loaded, built-in ones included (default
	// 1000); MaxModuleDepth the length of an import chain (default 100).
	MaxModules, MaxModuleDepth int
	// MaxFSCalls bounds the calls of node:fs/promises functions (default
	// 100,000) and MaxFSBytes the bytes they read and write (default 256 MiB).
	MaxFSCalls int64
	MaxFSBytes int64
	// MaxTimers bounds the timers (setTimeout, setInterval, setImmediate)
	// pending at once (default 10,000).
	MaxTimers int
	// MaxConcurrent bounds the executions this Backend runs at once, over
	// all workspaces (default 8). One more fails at once with a LimitError.
	MaxConcurrent int
	// StopGrace is how long Run waits, once its ctx has ended (kill,
	// timeout, server stop), for the aborted engine to stop (default 20ms).
	// An engine inside a built-in call that does not check for interrupts
	// may not; Run then returns, the execution ends (killed, timed out) and
	// its MaxConcurrent slot is free, and the engine, left to finish the
	// call in the background with its thread at the lowest CPU priority,
	// counts as stuck (Stats.Stuck) until it stops.
	StopGrace time.Duration
	// MaxStuck bounds the stuck engines tolerated beyond MaxConcurrent
	// (default 8, over all workspaces): an execution starts only while
	// fewer than MaxConcurrent+MaxStuck engines exist, running or stuck,
	// else it fails at once with a LimitError naming MaxStuck. So up to
	// MaxStuck stuck engines take nothing from MaxConcurrent, and at most
	// MaxConcurrent+MaxStuck engines exist at once.
	MaxStuck int
	// OnStuck, if set, is called on a goroutine of its own each time an
	// engine is left running after its execution ended (a stuck engine,
	// see Stats). A supervisor that can restart the process uses it: a
	// workspace worker restarts once nothing runs (see cmd/desk).
	OnStuck func()
	// MaxFetches bounds the fetches in flight at once (default 64), and
	// MaxFetchBodyBytes the body of one request (default 16 MiB). Response
	// bodies come into the engine a chunk (64 KiB at most) at a time, so
	// MaxMemory bounds what a script keeps of them.
	MaxFetches        int
	MaxFetchBodyBytes int64
	// Logger gets a warning for every engine left running and a note when
	// one stops (nil: no log).
	Logger *slog.Logger
	// Modules are trusted modules offered to bare imports: specifier →
	// ES module source (import "csv-parse" → Modules["csv-parse"]). Their
	// relative imports resolve among the same map, against the specifier as
	// a path ("csv/lib/x.js" importing "./y.js" gets "csv/lib/y.js"). Nil:
	// none.
	Modules map[string]string
	// HostModules are built-in modules implemented in Go, by specifier
	// ("desk:git" will be one). Nil: none.
	HostModules map[string]HostModule
}

func (o Options) withDefaults() (Options, error) {
	if o.Timeout < 0 || o.MaxTimeout < 0 || o.MaxMemory < 0 || o.MaxStackDepth < 0 || o.MaxOutputBytes < 0 ||
		o.MaxSourceBytes < 0 || o.MaxModules < 0 || o.MaxModuleDepth < 0 || o.MaxFSCalls < 0 || o.MaxFSBytes < 0 ||
		o.MaxTimers < 0 || o.MaxConcurrent < 0 || o.MaxStackMemory < 0 || o.StopGrace < 0 || o.MaxStuck < 0 ||
		o.MaxFetches < 0 || o.MaxFetchBodyBytes < 0 {
		return o, errors.New("check js options: negative limit")
	}
	def := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	defi := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if o.MaxTimeout == 0 {
		o.MaxTimeout = DefaultMaxTimeout
	}
	if o.Timeout == 0 {
		o.Timeout = min(DefaultTimeout, o.MaxTimeout)
	}
	if o.Timeout > o.MaxTimeout {
		return o, fmt.Errorf("check js options: timeout %v over the maximum %v", o.Timeout, o.MaxTimeout)
	}
	def(&o.MaxMemory, DefaultMaxMemory)
	defi(&o.MaxStackDepth, DefaultMaxStackDepth)
	def(&o.MaxOutputBytes, DefaultMaxOutputBytes)
	def(&o.MaxSourceBytes, DefaultMaxSourceBytes)
	defi(&o.MaxModules, DefaultMaxModules)
	defi(&o.MaxModuleDepth, DefaultMaxModuleDepth)
	def(&o.MaxFSCalls, DefaultMaxFSCalls)
	def(&o.MaxFSBytes, DefaultMaxFSBytes)
	defi(&o.MaxTimers, DefaultMaxTimers)
	defi(&o.MaxConcurrent, DefaultMaxConcurrent)
	def(&o.MaxStackMemory, o.MaxMemory)
	defi(&o.MaxStuck, DefaultMaxStuck)
	defi(&o.MaxFetches, DefaultMaxFetches)
	def(&o.MaxFetchBodyBytes, DefaultMaxFetchBody)
	if o.StopGrace == 0 {
		o.StopGrace = DefaultStopGrace
	}
	return o, nil
}

// ErrLimit is wrapped by every LimitError.
var ErrLimit = errors.New("limit exceeded")

// LimitError says which limit ended an execution.
type LimitError struct {
	Limit string // the Options field, e.g. "MaxFSCalls"
	Value int64  // its value
	What  string // what hit it, in words ("fs/promises calls")
}

// Error reads "limit exceeded: MaxFSCalls (100000 fs/promises calls)".
func (e *LimitError) Error() string {
	return fmt.Sprintf("%v: %s (%d %s)", ErrLimit, e.Limit, e.Value, e.What)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }
