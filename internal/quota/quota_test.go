package quota_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/quota"
	"github.com/desk-dev/desk/internal/run"
)

var bg = context.Background()

// clock is a settable clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func admit(q run.Quota) (time.Duration, error) { return q.Admit(bg, run.Admission{}) }

func ended(q run.Quota, cpu time.Duration) { q.Ended(run.Info{Usage: &run.Usage{CPU: cpu}}) }

func TestEffective(t *testing.T) {
	c := quota.New(quota.Options{})
	if e := c.Effective(policy.Limits{}); e.MaxExecsPerMinute != quota.DefaultMaxExecsPerMinute || e.MaxCPUPerDay != quota.DefaultMaxCPUPerDay || e.MaxCPUPerExecution != quota.DefaultMaxCPUPerExecution {
		t.Errorf("defaults: %+v", e)
	}
	c = quota.New(quota.Options{MaxExecsPerMinute: -5, MaxCPUPerDay: time.Hour, MaxCPUPerExecution: -time.Second})
	e := c.Effective(policy.Limits{MaxBytes: 7, MaxCPUPerDay: -3, MaxExecsPerMinute: 9})
	if e.MaxBytes != 7 || e.MaxExecsPerMinute != 9 || e.MaxCPUPerDay != -1 || e.MaxCPUPerExecution != -1 {
		t.Errorf("own over the options: %+v", e)
	}
	if e := c.Effective(policy.Limits{}); e.MaxExecsPerMinute != -1 || e.MaxCPUPerDay != time.Hour {
		t.Errorf("the options: %+v", e)
	}
}

func TestExecsPerMinute(t *testing.T) {
	clk := &clock{time.Date(2026, 12, 2, 10, 0, 30, 0, time.UTC)}
	own := map[string]policy.Limits{"b": {MaxExecsPerMinute: 1, MaxCPUPerExecution: time.Second}}
	c := quota.New(quota.Options{MaxExecsPerMinute: 2, MaxCPUPerExecution: time.Minute, Now: clk.now, Command: "desk mcp",
		Limits: func(ws string) (policy.Limits, error) { return own[ws], nil }})
	a, b := c.For("a"), c.For("b")
	for i := range 2 {
		if grant, err := admit(a); err != nil || grant != time.Minute {
			t.Fatalf("a's execution %d: %v %v", i, grant, err)
		}
	}
	_, err := admit(a)
	if !errors.Is(err, run.ErrQuota) || !strings.Contains(err.Error(), "started 2 executions this minute") || !strings.Contains(err.Error(), "desk mcp --max-execs-per-minute") || !strings.Contains(err.Error(), "retry in 30s") {
		t.Errorf("a's third: %v", err)
	}
	if grant, err := admit(b); err != nil || grant != time.Second {
		t.Errorf("b's first, under its own limits: %v %v", grant, err)
	}
	if _, err := admit(b); !errors.Is(err, run.ErrQuota) || !strings.Contains(err.Error(), "desk ws limits") {
		t.Errorf("b's second: %v", err)
	}
	clk.t = clk.t.Add(30 * time.Second) // the next minute
	if _, err := admit(a); err != nil {
		t.Errorf("a in the next minute: %v", err)
	}
}

func TestCPUPerDay(t *testing.T) {
	clk := &clock{time.Date(2026, 12, 2, 23, 59, 0, 0, time.UTC)}
	c := quota.New(quota.Options{MaxExecsPerMinute: -1, MaxCPUPerDay: time.Second, Now: clk.now})
	q := c.For("a")
	if _, err := admit(q); err != nil {
		t.Fatal(err)
	}
	ended(q, 600*time.Millisecond)
	if _, err := admit(q); err != nil {
		t.Fatalf("at 600ms of 1s: %v", err)
	}
	ended(q, 400*time.Millisecond)
	_, err := admit(q)
	if !errors.Is(err, run.ErrQuota) || !strings.Contains(err.Error(), "used 1s of CPU today") || !strings.Contains(err.Error(), "desk serve --max-cpu-per-day") {
		t.Errorf("at 1s of 1s: %v", err)
	}
	clk.t = clk.t.Add(time.Minute) // midnight UTC
	if _, err := admit(q); err != nil {
		t.Errorf("the next day: %v", err)
	}
	// No bound at all: nothing is counted.
	c = quota.New(quota.Options{MaxExecsPerMinute: -1, MaxCPUPerDay: -1, Now: clk.now})
	q = c.For("a")
	for range 3 {
		ended(q, time.Hour)
		if _, err := admit(q); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCPUPerDay_journal: the day's CPU is read back from the audit
// journal's execution records once per workspace and day, so a new
// process (a restarted worker, desk mcp --data after desk serve) goes on
// from it; records of an earlier day do not count.
func TestCPUPerDay_journal(t *testing.T) {
	day := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	j, err := audit.Open(filepath.Join(t.TempDir(), audit.FileName), audit.Options{Retention: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, r := range []struct {
		at  time.Time
		cpu string
	}{{day.Add(-24 * time.Hour), "5000000"}, {day.Add(-time.Hour), "700000"}, {day.Add(-time.Minute), "200000"}} {
		rec := audit.Record{Time: r.at, Kind: audit.KindExec, Action: "execution", Workspace: "a", Args: []audit.Arg{{Name: "cpu_us", Value: r.cpu}}}
		if err := j.Append(bg, &rec); err != nil {
			t.Fatal(err)
		}
	}
	clk := &clock{day}
	c := quota.New(quota.Options{MaxExecsPerMinute: -1, MaxCPUPerDay: time.Second, Journal: j, Now: clk.now})
	q := c.For("a")
	if _, err := admit(q); err != nil {
		t.Fatalf("at 900ms of today's 1s: %v", err)
	}
	ended(q, 100*time.Millisecond)
	if _, err := admit(q); !errors.Is(err, run.ErrQuota) || !strings.Contains(err.Error(), "used 1s of CPU today") {
		t.Errorf("at 1s: %v", err)
	}
	if _, err := admit(c.For("b")); err != nil {
		t.Errorf("another workspace: %v", err)
	}
}

// TestMaxWorkspaces: past MaxWorkspaces the counts are forgotten, so the
// memory a Counter holds is bounded whatever the workspace names.
func TestMaxWorkspaces(t *testing.T) {
	clk := &clock{time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	c := quota.New(quota.Options{MaxExecsPerMinute: 1, Now: clk.now})
	if _, err := admit(c.For("first")); err != nil {
		t.Fatal(err)
	}
	if _, err := admit(c.For("first")); err == nil {
		t.Fatal("first's second execution admitted")
	}
	for i := range quota.MaxWorkspaces {
		if _, err := admit(c.For("w" + strings.Repeat("x", i%7) + time.Duration(i).String())); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admit(c.For("first")); err != nil {
		t.Errorf("after the counts were forgotten: %v", err)
	}
}
