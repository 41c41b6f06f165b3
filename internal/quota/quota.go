package quota

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
)

// Defaults of the execution quotas (Options' zero values).
const (
	DefaultMaxExecsPerMinute  = 600               // executions started per workspace per minute
	DefaultMaxCPUPerDay       = 24 * time.Hour    // CPU time per workspace per UTC day: one core all day
	DefaultMaxCPUPerExecution = run.DefaultMaxCPU // CPU time of one execution: 10 minutes
)

// MaxWorkspaces bounds the workspaces a Counter counts at once (a worker
// has one; past it the counts are forgotten, see the package doc).
const MaxWorkspaces = 4096

// Journal is where the day's CPU is read back from: the audit journal's
// execution records (*audit.Store).
type Journal interface {
	SumArg(ctx context.Context, f audit.Filter, name string) (int64, error)
}

// Options configure a Counter.
type Options struct {
	// Limits returns a workspace's own limits (policy.Store.Limits); nil:
	// no workspace has limits of its own.
	Limits func(ws string) (policy.Limits, error)
	// MaxExecsPerMinute, MaxCPUPerDay and MaxCPUPerExecution are the
	// defaults a workspace's own limits override: 0, the Default
	// constants; negative, no bound.
	MaxExecsPerMinute  int
	MaxCPUPerDay       time.Duration
	MaxCPUPerExecution time.Duration
	// Journal, if set, seeds each workspace's day with the CPU its
	// recorded executions used.
	Journal Journal
	// Command names what sets the defaults in a refusal's message
	// ("desk serve": "desk serve --max-cpu-per-day"). Default "desk serve".
	Command string
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Counter counts workspaces' executions against their quotas. It is safe
// for concurrent use.
type Counter struct {
	opts Options

	mu  sync.Mutex
	now func() time.Time
	ws  map[string]*counts
}

type counts struct {
	minute int64 // the Unix minute counted
	execs  int
	day    int64 // the Unix day counted
	cpu    time.Duration
	seeded bool // cpu includes the journal's records of day
}

// New returns a Counter with the options' defaults.
func New(o Options) *Counter {
	def := func(v *time.Duration, d time.Duration) {
		switch {
		case *v == 0:
			*v = d
		case *v < 0:
			*v = -1
		}
	}
	switch {
	case o.MaxExecsPerMinute == 0:
		o.MaxExecsPerMinute = DefaultMaxExecsPerMinute
	case o.MaxExecsPerMinute < 0:
		o.MaxExecsPerMinute = -1
	}
	def(&o.MaxCPUPerDay, DefaultMaxCPUPerDay)
	def(&o.MaxCPUPerExecution, DefaultMaxCPUPerExecution)
	if o.Command == "" {
		o.Command = "desk serve"
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return &Counter{opts: o, now: now}
}

// SetClock replaces the counter's clock (tests move the minute and the
// day with it).
func (c *Counter) SetClock(now func() time.Time) {
	c.mu.Lock()
	c.now = now
	c.mu.Unlock()
}

// Own returns workspace ws's own limits (none without Options.Limits).
func (c *Counter) Own(ws string) (policy.Limits, error) {
	if c.opts.Limits == nil {
		return policy.Limits{}, nil
	}
	return c.opts.Limits(ws)
}

// Effective returns the execution quotas in force for a workspace whose
// own limits are own: own's where it sets them, else the counter's
// defaults; negative, no bound. (Its store quota, MaxBytes and MaxInodes,
// is own's as given: the store's defaults are the host's.)
func (c *Counter) Effective(own policy.Limits) policy.Limits {
	e := own
	if e.MaxExecsPerMinute == 0 {
		e.MaxExecsPerMinute = c.opts.MaxExecsPerMinute
	}
	if e.MaxCPUPerDay == 0 {
		e.MaxCPUPerDay = c.opts.MaxCPUPerDay
	}
	if e.MaxCPUPerExecution == 0 {
		e.MaxCPUPerExecution = c.opts.MaxCPUPerExecution
	}
	if e.MaxExecsPerMinute < 0 {
		e.MaxExecsPerMinute = -1
	}
	if e.MaxCPUPerDay < 0 {
		e.MaxCPUPerDay = -1
	}
	if e.MaxCPUPerExecution < 0 {
		e.MaxCPUPerExecution = -1
	}
	return e
}

// For returns workspace ws's quotas as a run.Quota (see the package doc).
func (c *Counter) For(ws string) run.Quota { return wsQuota{c, ws} }

type wsQuota struct {
	c  *Counter
	ws string
}

// Admit counts the execution or refuses it (wrapping run.ErrQuota), and
// grants the workspace's CPU limit per execution (negative: none).
func (q wsQuota) Admit(ctx context.Context, _ run.Admission) (time.Duration, error) {
	own, err := q.c.Own(q.ws)
	if err != nil {
		return 0, err
	}
	lim := q.c.Effective(own)
	if err := q.c.admit(ctx, q.ws, own, lim); err != nil {
		return 0, err
	}
	return lim.MaxCPUPerExecution, nil
}

// Ended charges the execution's CPU time to the workspace's day.
func (q wsQuota) Ended(info run.Info) { q.c.charge(q.ws, info.Usage) }

// admit counts one execution of workspace ws, or refuses it past either
// quota of lim (own's over the defaults).
func (c *Counter) admit(ctx context.Context, ws string, own, lim policy.Limits) error {
	per, perDay := lim.MaxExecsPerMinute, lim.MaxCPUPerDay
	if per < 0 && perDay < 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	w := c.get(ws, now)
	if perDay > 0 && !w.seeded && c.opts.Journal != nil {
		// The day's CPU so far, from the journal (other processes' and
		// earlier workers' executions): once per workspace and day.
		start := time.Unix(w.day*86400, 0)
		used, err := c.opts.Journal.SumArg(ctx, audit.Filter{Workspace: ws, Action: "execution", Since: start}, "cpu_us")
		if err == nil {
			w.cpu += time.Duration(used) * time.Microsecond
			w.seeded = true
		}
	}
	if per > 0 && w.execs >= per {
		return fmt.Errorf("%w: workspace %s started %d executions this minute, its quota (%s): retry in %ds", run.ErrQuota, ws, per, c.source(own.MaxExecsPerMinute != 0, "--max-execs-per-minute"), 60-now.Unix()%60)
	}
	if perDay > 0 && w.cpu >= perDay {
		return fmt.Errorf("%w: workspace %s used %s of CPU today (UTC), its quota of %s (%s): retry after midnight UTC", run.ErrQuota, ws, w.cpu.Round(time.Millisecond), perDay, c.source(own.MaxCPUPerDay != 0, "--max-cpu-per-day"))
	}
	w.execs++
	return nil
}

// charge adds an ended execution's CPU time (as its meter measured it,
// run.Usage.CPUTime) to its workspace's day.
func (c *Counter) charge(ws string, u *run.Usage) {
	if u == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.get(ws, c.now())
	if !w.seeded && c.opts.Journal != nil {
		return // the execution's record is in the journal, which the day's first admission reads
	}
	w.cpu += u.CPUTime()
}

// get returns ws's counts, moved to now's minute and day.
func (c *Counter) get(ws string, now time.Time) *counts {
	if c.ws == nil || len(c.ws) >= MaxWorkspaces {
		c.ws = map[string]*counts{}
	}
	w := c.ws[ws]
	if w == nil {
		w = &counts{}
		c.ws[ws] = w
	}
	if m := now.Unix() / 60; m != w.minute {
		w.minute, w.execs = m, 0
	}
	if d := now.Unix() / 86400; d != w.day {
		w.day, w.cpu, w.seeded = d, 0, false
	}
	return w
}

// source names where a quota comes from: the workspace's own limits or
// the command's flag.
func (c *Counter) source(own bool, flag string) string {
	if own {
		return "the workspace's limits: desk ws limits"
	}
	return c.opts.Command + " " + flag
}
