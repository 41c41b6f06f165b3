package jsvm

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"
	"time"

	"golang.org/x/text/collate"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/run"
)

// mainModuleName is the base name the main module (the execution's source)
// gets in the cwd: stack traces and import.meta show it, and its relative
// imports resolve from its directory.
const mainModuleName = "<source>"

// execution is the state of one Run. Everything runs on Run's goroutine
// except the Abort that ctx's end triggers.
type execution struct {
	ctx  context.Context
	b    *Backend
	o    *Options
	job  *run.Job
	c    *qjs.Context
	eng  *engine // the goroutine running it
	main string  // the main module's name
	t0   time.Time

	internals qjs.Value
	fire      qjs.Value

	outBytes  int64
	fsCalls   int64
	fsBytes   int64
	srcBytes  int64
	modules   int
	depth     map[string]int                    // import chain length of each module name
	importer  map[string]string                 // the module that first imported each name
	sources   map[string]string                 // the source of each workspace module loaded, by name (assert.ok quotes it)
	fds       map[int]*openFile                 // open file handles (fs.open)
	tsMaps    map[string]*posMap                // TypeScript modules: generated → source positions
	collators map[collatorKey]*collate.Collator // Intl.Collator's, by locale and options

	timers   timerQueue
	ticks    bool     // process.nextTick queued callbacks
	net      netState // fetches in flight (fetch.go)
	hostMods map[string]map[string]HostFunc

	settled  bool
	value    string // JSON of the default export's result
	hasValue bool
	failure  error // an uncaught exception, unhandled rejection or rejected result
}

func newExecution(ctx context.Context, b *Backend, job *run.Job) *execution {
	return &execution{
		ctx: ctx, b: b, o: &b.opts, job: job, t0: time.Now(),
		main:      path.Join(job.Cwd, mainModuleName),
		depth:     map[string]int{},
		importer:  map[string]string{},
		sources:   map[string]string{},
		fds:       map[int]*openFile{},
		tsMaps:    map[string]*posMap{},
		collators: map[collatorKey]*collate.Collator{},
		timers:    newTimerQueue(),
	}
}

// close frees the engine and everything it holds.
func (x *execution) close() {
	x.closeFiles()
	x.net.close()
	if x.c != nil {
		x.c.Free(x.internals)
		x.c.Free(x.fire)
		x.c.Close()
	}
}

// exitRequest is the abort reason of process.exit.
type exitRequest struct{ code int }

// Error names the call.
func (e *exitRequest) Error() string { return fmt.Sprintf("process.exit(%d)", e.code) }

// stopped is the abort reason when ctx ends (kill, timeout, server stop).
type stopped struct{ cause error }

// Error is the cause's.
func (e *stopped) Error() string { return e.cause.Error() }

// uncaught is an exception nothing caught: thrown by the module or a timer,
// an unhandled rejection, or the rejection of the default export's result.
type uncaught struct {
	text      string // as Node prints it
	inPromise bool
}

// Error is the first line of what was printed, as the record's error.
func (e *uncaught) Error() string {
	first, _, _ := strings.Cut(e.text, "\n")
	first = strings.TrimPrefix(first, "[")
	if len(first) > 300 {
		first = first[:300] + "..."
	}
	if e.inPromise {
		return "Uncaught (in promise) " + first
	}
	return "Uncaught " + first
}

// errNeverSettled ends an execution whose result can no longer settle.
var errNeverSettled = errors.New("the module's top-level await or the default export's promise never settled (nothing was left to run)")

// run runs the execution to its end.
func (x *execution) run() (run.Outcome, error) {
	if err := x.checkCwd(); err != nil {
		fmt.Fprintf(x.job.Stderr, "desk: js: %v\n", err)
		return run.Outcome{}, fmt.Errorf("js: %w", err)
	}
	c, err := qjs.New(qjs.Options{
		MemoryLimit: x.o.MaxMemory,
		StackSlots:  x.o.MaxStackDepth,
		FrameMemory: x.o.MaxStackMemory,
		Normalize:   x.normalize,
		Load:        x.load,
	})
	if err != nil {
		return run.Outcome{}, fmt.Errorf("js: start engine: %w", err)
	}
	x.c = c
	if x.eng != nil {
		x.eng.setContext(c)
	}
	stop := context.AfterFunc(x.ctx, func() { c.Abort(&stopped{context.Cause(x.ctx)}) })
	defer stop()
	if err := x.boot(); err != nil {
		return x.end(err)
	}
	x.srcBytes = int64(len(x.job.Source))
	if x.srcBytes > x.o.MaxSourceBytes {
		return x.end(x.limit("MaxSourceBytes", x.o.MaxSourceBytes, "bytes of module source"))
	}
	x.sources[x.main] = x.job.Source
	ns, evaluated, err := c.EvalModule(x.job.Source, x.main, x.meta(x.main))
	var ex *qjs.Exception
	if errors.As(err, &ex) && ex.Name == "SyntaxError" && x.modules == 0 && c.Reason() == nil {
		// Not JavaScript: it may be TypeScript (desk exec --file main.ts
		// sends the content only). Strip its types and run that.
		if js, pm, terr := stripTypes(x.job.Source, x.main); terr == nil {
			x.tsMaps[x.main] = pm
			x.sources[x.main] = js
			ns, evaluated, err = c.EvalModule(js, x.main, x.meta(x.main))
		}
	}
	if err != nil {
		return x.end(err)
	}
	var input qjs.Value = qjs.Undefined
	if len(x.job.Input) > 0 {
		input = x.str(string(x.job.Input))
	}
	_, err = x.callInternal("start", ns, evaluated, input)
	if err == nil {
		err = x.loop()
	}
	return x.end(err)
}

// checkCwd makes the default working directory of a fresh workspace and
// checks that the cwd is a directory.
func (x *execution) checkCwd() error {
	fsys, cwd := x.job.FS, x.job.Cwd
	if _, err := fsys.Stat(x.ctx, cwd); errors.Is(err, fs.ErrNotExist) && cwd == run.DefaultCwd {
		fsys.MkdirAll(x.ctx, cwd, 0o755)
	}
	fi, err := fsys.Stat(x.ctx, cwd)
	if err == nil && !fi.IsDir() {
		err = &fs.PathError{Op: "stat", Path: cwd, Err: syscall.ENOTDIR}
	}
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	return nil
}

// end turns how the execution ended into run's Outcome or error, and says
// on stderr what went wrong.
func (x *execution) end(err error) (run.Outcome, error) {
	if x.ctx.Err() != nil {
		// Killed, timed out or stopped: run records the cause.
		return run.Outcome{ExitCode: 1}, nil
	}
	if r := x.c.Reason(); r != nil {
		err = r
	}
	var (
		exit *exitRequest
		me   *qjs.MemoryError
		le   *LimitError
		ex   *qjs.Exception
		uc   *uncaught
	)
	switch {
	case err == nil:
		out := run.Outcome{ExitCode: x.exitCode()}
		if x.hasValue {
			out.Value = []byte(x.value)
		}
		return out, nil
	case errors.As(err, &exit):
		return run.Outcome{ExitCode: exit.code}, nil
	case errors.As(err, &me):
		le = &LimitError{Limit: "MaxMemory", Value: x.o.MaxMemory, What: "bytes of engine memory"}
		fallthrough
	case errors.As(err, &le):
		x.stderrf("desk: js: %v\n", le)
		return run.Outcome{}, fmt.Errorf("js: %w", le)
	case errors.As(err, &ex):
		uc = &uncaught{text: ex.Text}
		fallthrough
	case errors.As(err, &uc):
		prefix := "Uncaught "
		if uc.inPromise {
			prefix = "Uncaught (in promise) "
		}
		x.stderrf("%s%s\n", prefix, uc.text)
		// As Node: the program ran and exited 1 (the text is on stderr).
		return run.Outcome{ExitCode: 1}, nil
	case errors.Is(err, errNeverSettled):
		// As Node, which warns "Detected unsettled top-level await" and
		// exits 13.
		x.stderrf("Warning: %v\n", err)
		return run.Outcome{ExitCode: 13}, nil
	default:
		x.stderrf("desk: js: %v\n", err)
		return run.Outcome{}, fmt.Errorf("js: %w", err)
	}
}

// exitCode is process.exitCode, or 0.
func (x *execution) exitCode() int {
	v, err := x.callInternal("exitCode")
	if err != nil {
		return 0
	}
	f, _ := x.c.ToFloat(v)
	return int(f)
}

// stderrf writes a message of the backend to stderr, past the output limit
// if need be (it says why the execution ended).
func (x *execution) stderrf(format string, args ...any) {
	fmt.Fprintf(x.job.Stderr, format, args...)
}

// limit ends the execution for the limit name and returns the error.
func (x *execution) limit(name string, value int64, what string) error {
	err := &LimitError{Limit: name, Value: value, What: what}
	x.c.Abort(err)
	return err
}

// meta returns the import.meta properties of the workspace module name.
func (x *execution) meta(name string) map[string]string {
	return map[string]string{
		"url":      fileURL(name),
		"filename": name,
		"dirname":  path.Dir(name),
	}
}
