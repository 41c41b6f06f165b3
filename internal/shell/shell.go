package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell/cmds"
)

// Exit statuses the backend reports besides the script's own.
const (
	// ExitLimit is the exit status of an execution stopped by one of the
	// backend's limits (Options); stderr says which ("desk: shell: limit:
	// ...").
	ExitLimit = 122
	// ExitSyntax is the exit status of a script that does not parse, or that
	// uses a construct the backend refuses (process substitution), as bash
	// exits 2 on a syntax error.
	ExitSyntax = 2
	// ExitNotFound is the status of an unknown command, as in bash.
	ExitNotFound = 127
)

// Defaults of Options.
const (
	DefaultMaxOutputBytes   = 64 << 20  // stdout + stderr of one execution
	DefaultMaxCommands      = 1_000_000 // simple commands (builtins, functions, commands)
	DefaultMaxLoopIters     = 1_000_000 // iterations of all while/until/for((;;)) loops
	DefaultMaxCallDepth     = 1000      // nesting of functions, eval and source
	DefaultMaxStringBytes   = 16 << 20  // one argument or one variable
	DefaultMaxVarBytes      = 64 << 20  // all variables together
	DefaultMaxReadBytes     = 64 << 20  // what one command may hold in memory (cmds.Limits)
	DefaultMaxGlobEntries   = 100_000   // directory entries read by globbing for one command
	DefaultMaxArgs          = 100_000   // arguments of one command
	DefaultMaxBraceWords    = 100_000   // words brace expansion makes for one command
	DefaultMaxMemoryBytes   = 256 << 20 // what one execution may hold in memory at once
	internalPrefix          = "\x00desk-"
	loopTick                = "__desk_loop" // printable: eval'd text holding it is printed back to source
	typeCmd                 = internalPrefix + "type"
	builtinPrefix           = internalPrefix + "builtin-" // + a name in ownBuiltins
	statusCmd               = internalPrefix + "status"   // exits with its argument
	sourcePrefix            = "/\x00desk-source"
	tempDirSentinel         = "/\x00desk-no-tmp"
	defaultPath             = "/usr/local/bin:/usr/bin:/bin"
	defaultHome             = "/workspace"
	defaultUser             = "user"
	defaultShell            = "/bin/bash"
	defaultLang             = "C.UTF-8" // LANG when the job sets neither LANG nor LC_ALL
	notExecutableSuffixText = "the shell backend runs only its own commands"
)

// Options configure a Backend. Zero fields take the documented defaults; the
// wall-time limit is run's (ExecOptions.Timeout).
type Options struct {
	// MaxOutputBytes bounds stdout plus stderr of one execution (default
	// DefaultMaxOutputBytes, 64 MiB). run keeps only its own output cap; this
	// stops runaway output early.
	MaxOutputBytes int64
	// MaxCommands bounds the simple commands run (builtins, function calls and
	// commands; default 1,000,000).
	MaxCommands int64
	// MaxLoopIters bounds the iterations of while, until and for ((;;))
	// loops of the script, all together (default 1,000,000).
	MaxLoopIters int64
	// MaxCallDepth bounds the call frames alive at once: function calls,
	// eval'd strings, sourced files, subshells and command substitutions,
	// nested or running side by side in pipelines and background jobs
	// (default 1000).
	MaxCallDepth int
	// MaxStringBytes bounds one argument of a command and one variable
	// (default 16 MiB).
	MaxStringBytes int
	// MaxVarBytes bounds all variables together (default 64 MiB).
	MaxVarBytes int
	// MaxReadBytes is what one command may hold in memory from one input
	// (cmds.Limits.MaxReadBytes; default 64 MiB).
	MaxReadBytes int64
	// MaxGlobEntries bounds the directory entries globbing may read while
	// expanding one command (default 100,000).
	MaxGlobEntries int
	// MaxArgs bounds the number of arguments of one command (default 100,000).
	MaxArgs int
	// MaxBraceWords bounds the words brace expansion may make for one
	// command, over all its words (default 100,000); the literal text they
	// hold is bounded by MaxStringBytes. Both are checked on the parsed
	// text, before anything is expanded.
	MaxBraceWords int
	// MaxMemoryBytes is the memory budget of one execution (default
	// DefaultMaxMemoryBytes, 256 MiB): what all its variables, positional
	// parameters, the values its statements are building and the input
	// its commands hold may take at once, counted before (or as) it is
	// allocated. See the package documentation ("Memory").
	MaxMemoryBytes int64
	// Now is the clock of the commands (date, touch, ls, find, tar); nil:
	// time.Now.
	Now func() time.Time
	// Commands are extra commands, looked up before package cmds (the place
	// for git, which comes from another package). Nil: none.
	Commands map[string]cmds.Func
	// Interpreter chooses the bash interpreter: InterpDesk (or "", the
	// default; so is any value but InterpMvdan) is desk's own
	// (internal/shell/interp), InterpMvdan mvdan.cc/sh's.
	Interpreter string
}

func (o Options) withDefaults() Options {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	defi := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxOutputBytes, DefaultMaxOutputBytes)
	def(&o.MaxCommands, DefaultMaxCommands)
	def(&o.MaxLoopIters, DefaultMaxLoopIters)
	defi(&o.MaxCallDepth, DefaultMaxCallDepth)
	defi(&o.MaxStringBytes, DefaultMaxStringBytes)
	defi(&o.MaxVarBytes, DefaultMaxVarBytes)
	def(&o.MaxReadBytes, DefaultMaxReadBytes)
	defi(&o.MaxGlobEntries, DefaultMaxGlobEntries)
	defi(&o.MaxArgs, DefaultMaxArgs)
	defi(&o.MaxBraceWords, DefaultMaxBraceWords)
	def(&o.MaxMemoryBytes, DefaultMaxMemoryBytes)
	if o.Interpreter == "" {
		o.Interpreter = InterpDesk
	}
	return o
}

// ErrLimit is wrapped by every LimitError.
var ErrLimit = errors.New("limit exceeded")

// LimitError says which limit stopped an execution.
type LimitError struct {
	Limit string // the Options field, e.g. "MaxCommands"
	Value int64  // its value
}

// Error reads "limit exceeded: MaxCommands (1000000)".
func (e *LimitError) Error() string {
	return fmt.Sprintf("%v: %s (%d)", ErrLimit, e.Limit, e.Value)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// ErrProcSubst is reported for process substitution, which the backend refuses.
var ErrProcSubst = errors.New("process substitution <(...) and >(...) is not supported by the shell backend")

// Backend is the shell backend: bash, interpreted in process (by desk's
// interpreter, or mvdan.cc/sh's: Options.Interpreter), on the workspace
// store. It is safe for concurrent use; every execution gets
// its own interpreter.
type Backend struct {
	opts Options
}

var _ run.Backend = (*Backend)(nil)

// New returns a Backend with opts (zero fields take their defaults).
func New(opts Options) *Backend {
	return &Backend{opts: opts.withDefaults()}
}

// Options returns the backend's options with defaults filled in.
func (b *Backend) Options() Options { return b.opts }

// Run interprets job.Source. See the package documentation.
func (b *Backend) Run(ctx context.Context, job *run.Job) (run.Outcome, error) {
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	x := &execution{
		b:      b,
		job:    job,
		ctx:    ctx,
		cancel: cancel,
	}
	// The execution's CPU time is its goroutines' (this one and those the
	// interpreter starts): run bounds and records it.
	job.MeterCPU(x.cpu.Read)
	defer x.cpu.Enter()()
	x.stdout = &limitWriter{w: job.Stdout, x: x}
	x.stderr = &limitWriter{w: job.Stderr, x: x}
	x.mem = newMemory(x, b.opts.MaxMemoryBytes)
	x.plans = &planTable{}
	// The script's syntax tree lives as long as the execution.
	if err := x.mem.add(int64(len(job.Source)) * costParse); err != nil {
		return x.outcome(parent, err)
	}

	x.parentCtx = parent
	if b.opts.Interpreter != InterpMvdan {
		return x.runDeskChecked()
	}
	// The name is $0, as for bash -c.
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(job.Source), "bash")
	if err != nil {
		fmt.Fprintf(x.stderr, "bash: %s\n", syntaxMessage(err))
		return run.Outcome{ExitCode: ExitSyntax}, nil
	}
	if ps := findProcSubst(file); ps != nil {
		fmt.Fprintf(x.stderr, "bash: line %d: %v\n", ps.Pos().Line(), ErrProcSubst)
		return run.Outcome{ExitCode: ExitSyntax}, nil
	}
	x.funcNames = instrument(file, false, x.braceLimits(), planner{table: x.plans})
	if !x.enterCwd() {
		return run.Outcome{ExitCode: 1}, nil
	}

	stdin, closeStdin, err := stdinFile(job.Stdin)
	if err != nil {
		return run.Outcome{}, fmt.Errorf("shell: open stdin: %w", err)
	}
	defer closeStdin()

	r, err := x.newRunner(stdin)
	if err != nil {
		return run.Outcome{}, fmt.Errorf("shell: start interpreter: %w", err)
	}
	err = r.Run(ctx, file)
	x.closeAll()
	if memDebug != nil {
		memDebug("peak %d\n", x.mem.peak.Load())
	}
	return x.outcome(parent, err)
}

// outcome turns the interpreter's result into an Outcome.
func (x *execution) outcome(parent context.Context, err error) (run.Outcome, error) {
	if parent.Err() != nil {
		// Killed, timed out or stopped: run decides the status from the cause.
		return run.Outcome{ExitCode: ExitLimit}, nil
	}
	var le *LimitError
	if cause := context.Cause(x.ctx); errors.As(cause, &le) || errors.As(err, &le) {
		x.stderr.force(fmt.Sprintf("desk: shell: %v\n", le))
		return run.Outcome{ExitCode: ExitLimit}, nil
	}
	if err == nil {
		return run.Outcome{}, nil
	}
	if errors.Is(err, ErrProcSubst) {
		fmt.Fprintf(x.stderr, "bash: %v\n", err)
		return run.Outcome{ExitCode: ExitSyntax}, nil
	}
	var es interp.ExitStatus
	if errors.As(err, &es) {
		return run.Outcome{ExitCode: int(es)}, nil
	}
	// A fatal error from the interpreter or a handler: report it as bash
	// reports its own fatal errors, with status 1 (or 2 for syntax in eval).
	fmt.Fprintf(x.stderr, "bash: %v\n", err)
	return run.Outcome{ExitCode: 1}, nil
}

// syntaxMessage words a parse error as bash does, roughly:
// "line 1: syntax error: ...".
func syntaxMessage(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: syntax error: %s", pe.Pos.Line(), pe.Text)
	}
	var pe2 *syntax.ParseError
	if errors.As(err, &pe2) {
		return fmt.Sprintf("line %d: syntax error: %s", pe2.Pos.Line(), pe2.Text)
	}
	return err.Error()
}

// stdinFile gives the interpreter an *os.File for stdin (it wants one): nil
// for a known-empty reader, else a pipe fed by a goroutine, closed by the
// returned function. The function does not wait for the goroutine: it may be
// blocked reading r, a stream whose client has more to send (run ends such a
// read when the execution ends, just after Run returns); a goroutine blocked
// writing to the pipe fails at once with EPIPE.
func stdinFile(r io.Reader) (*os.File, func(), error) {
	if r == nil {
		return nil, func() {}, nil
	}
	if l, ok := r.(interface{ Len() int }); ok && l.Len() == 0 {
		return nil, func() {}, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	go func() {
		io.Copy(pw, r)
		pw.Close()
	}()
	return pr, func() {
		pr.Close() // a blocked write fails with EPIPE
	}, nil
}

// execution is the state of one Run.
type execution struct {
	b         *Backend
	job       *run.Job
	ctx       context.Context
	parentCtx context.Context
	cancel    context.CancelCauseFunc

	stdout, stderr *limitWriter
	cpu            run.ThreadMeter // the CPU time of its goroutines (Job.MeterCPU)
	outBytes       atomic.Int64
	commands       atomic.Int64
	fdSeq          atomic.Int64 // names of materializeFds' files
	loops          atomic.Int64
	globEntries    atomic.Int64
	frames         atomic.Int64    // call frames open (MaxCallDepth)
	mem            *memory         // MaxMemoryBytes
	stopped        atomic.Bool     // a limit stopped the execution
	plans          *planTable      // the statements' plans (see check)
	aliases        *aliasTable     // words of the aliases defined (see aliasWords)
	mapfiles       sync.Map        // *os.File -> true: the inputs openMapfile made
	fnmu           sync.Mutex      // guards funcNames
	funcNames      map[string]bool // functions the script declares (type, command -v)

	fmu   sync.Mutex // guards files and pipes
	files map[*trackedFile]bool
	pipes []*os.File
	wg    sync.WaitGroup // input-copying goroutines
}

// limit stops the execution because of l and returns the error for the
// interpreter (a fatal error: it stops at once).
func (x *execution) limit(name string, value int64) error {
	err := &LimitError{Limit: name, Value: value}
	x.cancel(err)
	var le *LimitError
	if errors.As(context.Cause(x.ctx), &le) {
		x.stopped.Store(true)
	}
	return err
}

// limited reports whether a limit has stopped the execution.
func (x *execution) limited() bool { return x.stopped.Load() }

// limitWriter counts output against MaxOutputBytes.
type limitWriter struct {
	w io.Writer
	x *execution
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.x.limited() {
		// Stopped by a limit: what the interpreter prints while it
		// unwinds ("context canceled") is dropped; the limit's line
		// (force) says why.
		return len(p), nil
	}
	limit := l.x.b.opts.MaxOutputBytes
	n := l.x.outBytes.Add(int64(len(p)))
	if n > limit {
		keep := max(int64(len(p))-(n-limit), 0)
		if keep > 0 {
			l.w.Write(p[:keep])
		}
		l.x.limit("MaxOutputBytes", limit)
		return int(keep), fmt.Errorf("write output: %w", ErrLimit)
	}
	return l.w.Write(p)
}

// force writes a message past the output limit (the limit's own message).
func (l *limitWriter) force(s string) { io.WriteString(l.w, s) }
