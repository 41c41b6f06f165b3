package api

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
)

// Defaults of the execution quotas (Options.MaxExecsPerMinute,
// MaxCPUPerDay, MaxCPUPerExecution).
const (
	DefaultMaxExecsPerMinute  = 600               // executions started per workspace per minute
	DefaultMaxCPUPerDay       = 24 * time.Hour    // CPU time per workspace per UTC day: one core all day
	DefaultMaxCPUPerExecution = run.DefaultMaxCPU // CPU time of one execution: 10 minutes
)

// quotas counts each workspace's executions against MaxExecsPerMinute (a
// fixed window of one minute) and their CPU time against MaxCPUPerDay (the
// UTC day), in the process that starts them (a workspace's worker). The
// day's CPU is read back from the audit journal's execution records when a
// workspace is first seen in a day, so a worker's restart does not reset it.
type quotas struct {
	mu  sync.Mutex
	now func() time.Time
	ws  map[string]*wsQuota
}

type wsQuota struct {
	minute int64 // the Unix minute counted
	execs  int
	day    int64 // the Unix day counted
	cpu    time.Duration
	seeded bool // cpu includes the journal's records of day
}

// maxQuotaWorkspaces bounds the workspaces counted at once (a worker has
// one; a server without workers forgets all counts past it).
const maxQuotaWorkspaces = 4096

// execQuota is workspace ws's execution quotas as a run.Quota: the
// context of every workspace call carries it (policyContext), so that every
// execution such a call starts — the exec route, the exec tool through the
// tool route or an MCP session served in this process — is counted where it
// starts (run.Exec), gets the workspace's CPU limit per execution, and has
// its CPU charged to the workspace's day when it ends.
type execQuota struct {
	s  *Server
	ws string
}

var _ run.Quota = execQuota{}

// Admit counts the execution or refuses it (429 too_many), and grants the
// workspace's CPU limit per execution (negative: none).
func (q execQuota) Admit(ctx context.Context, _ run.Admission) (time.Duration, error) {
	own, err := q.s.limitsOf(q.ws)
	if err != nil {
		return 0, err
	}
	lim := q.s.effectiveLimits(own)
	if err := q.s.admitExec(ctx, q.ws, own, lim); err != nil {
		// 429 on the API's routes (the *Error), busy for the tools.
		return 0, fmt.Errorf("%w: %w", run.ErrQuota, err)
	}
	return lim.MaxCPUPerExecution, nil
}

// Ended charges the execution's CPU time to the workspace's day.
func (q execQuota) Ended(info run.Info) { q.s.chargeCPU(q.ws, info.Usage) }

// admitExec counts one execution of workspace ws, or refuses it (429
// too_many) past either quota of lim (own's over the server's).
func (s *Server) admitExec(ctx context.Context, ws string, own, lim policy.Limits) error {
	per, perDay := lim.MaxExecsPerMinute, lim.MaxCPUPerDay
	if per < 0 && perDay < 0 {
		return nil
	}
	q := &s.quota
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	w := q.get(ws, now)
	if perDay > 0 && !w.seeded && s.opts.Audit != nil {
		// The day's CPU so far, from the journal (other processes' and
		// earlier workers' executions): once per workspace and day.
		start := time.Unix(w.day*86400, 0)
		used, err := s.opts.Audit.SumArg(ctx, audit.Filter{Workspace: ws, Action: "execution", Since: start}, "cpu_us")
		if err == nil {
			w.cpu += time.Duration(used) * time.Microsecond
			w.seeded = true
		}
	}
	if per > 0 && w.execs >= per {
		return errorf(http.StatusTooManyRequests, CodeTooMany, "workspace %s started %d executions this minute, its quota (%s): retry in %ds", ws, per, limitSource(own.MaxExecsPerMinute != 0, "--max-execs-per-minute"), 60-now.Unix()%60)
	}
	if perDay > 0 && w.cpu >= perDay {
		return errorf(http.StatusTooManyRequests, CodeTooMany, "workspace %s used %s of CPU today (UTC), its quota of %s (%s): retry after midnight UTC", ws, w.cpu.Round(time.Millisecond), perDay, limitSource(own.MaxCPUPerDay != 0, "--max-cpu-per-day"))
	}
	w.execs++
	return nil
}

// chargeCPU adds an ended execution's CPU time (as its meter measured it,
// run.Usage.CPUTime) to its workspace's day.
func (s *Server) chargeCPU(ws string, u *run.Usage) {
	if u == nil {
		return
	}
	q := &s.quota
	q.mu.Lock()
	defer q.mu.Unlock()
	w := q.get(ws, q.now())
	if !w.seeded && s.opts.Audit != nil {
		return // the execution's record is in the journal, which the day's first admission reads
	}
	w.cpu += u.CPUTime()
}

// get returns ws's counts, moved to now's minute and day.
func (q *quotas) get(ws string, now time.Time) *wsQuota {
	if q.ws == nil || len(q.ws) >= maxQuotaWorkspaces {
		q.ws = map[string]*wsQuota{}
	}
	w := q.ws[ws]
	if w == nil {
		w = &wsQuota{}
		q.ws[ws] = w
	}
	if m := now.Unix() / 60; m != w.minute {
		w.minute, w.execs = m, 0
	}
	if d := now.Unix() / 86400; d != w.day {
		w.day, w.cpu, w.seeded = d, 0, false
	}
	return w
}

// limitSource names where a quota comes from: the workspace's own limits
// or desk serve's flag.
func limitSource(own bool, flag string) string {
	if own {
		return "the workspace's limits: desk ws limits"
	}
	return "desk serve " + flag
}
