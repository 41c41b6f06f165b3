package jsvm

import (
	"context"
	"fmt"
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
	sem  chan struct{}
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
	return &Backend{opts: o, sem: make(chan struct{}, o.MaxConcurrent)}, nil
}

// Options returns the backend's options with the defaults filled in.
func (b *Backend) Options() Options { return b.opts }

// Timeouts gives run the backend's default and maximum wall time
// (run.TimeoutBounds).
func (b *Backend) Timeouts() (def, max time.Duration) { return b.opts.Timeout, b.opts.MaxTimeout }

// Run evaluates job.Source as an ES module and, if it default-exports a
// function, calls it with job.Input and returns its result as the value. See
// the package documentation.
func (b *Backend) Run(ctx context.Context, job *run.Job) (run.Outcome, error) {
	select {
	case b.sem <- struct{}{}:
	default:
		err := &LimitError{Limit: "MaxConcurrent", Value: int64(b.opts.MaxConcurrent), What: "js executions at once"}
		fmt.Fprintf(job.Stderr, "desk: js: %v\n", err)
		return run.Outcome{}, fmt.Errorf("js: %w", err)
	}
	defer func() { <-b.sem }()
	x := newExecution(ctx, b, job)
	defer x.close()
	return x.run()
}
