package run

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestExecution_cpuLimit runs a busy loop under a CPU limit beside a
// metered execution that waits: the first ends as cpu-limit with at least
// its limit of CPU recorded, the other completes charged with the little it
// used.
func TestExecution_cpuLimit(t *testing.T) {
	const limit = 300 * time.Millisecond
	e := newEnv(t, Options{MaxCPU: limit})
	waiter := e.exec("metered\nwait go", ExecOptions{ID: "waiter"})
	busy := e.run("metered\nburn", ExecOptions{ID: "busy"})
	e.m.open("go")
	res, err := waiter.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if busy.Status != StatusCPULimit || busy.ExitCode != ExitCPULimit || busy.MaxCPU != limit {
		t.Fatalf("busy: status %s, exit %d, max_cpu %v; want %s, %d, %v", busy.Status, busy.ExitCode, busy.MaxCPU, StatusCPULimit, ExitCPULimit, limit)
	}
	if !strings.Contains(busy.Error, "CPU limit of 300ms") {
		t.Errorf("busy: error %q does not name the CPU limit", busy.Error)
	}
	if busy.Usage == nil || busy.Usage.CPU < limit {
		t.Fatalf("busy: usage %+v, want at least %v of CPU", busy.Usage, limit)
	}
	if res.Status != StatusCompleted || res.Usage == nil || res.Usage.CPU >= limit {
		t.Fatalf("waiter: status %s, usage %+v; want completed with less than %v of CPU", res.Status, res.Usage, limit)
	}
	// Stored as it ended.
	got, err := e.r.Get(ctx(t), "busy")
	if err != nil || got.Status != StatusCPULimit || got.Usage == nil || got.Usage.CPU != busy.Usage.CPU {
		t.Fatalf("stored: %+v, %v", got, err)
	}
}

// TestExecution_cpuNoMeter: a backend without a meter is not bounded and
// records no CPU.
func TestExecution_cpuNoMeter(t *testing.T) {
	e := newEnv(t, Options{MaxCPU: 10 * time.Millisecond})
	res := e.run("echo hi", ExecOptions{})
	if res.Status != StatusCompleted || res.Usage != nil {
		t.Fatalf("status %s, usage %+v", res.Status, res.Usage)
	}
}

// quotaRec is a Quota that grants a CPU limit and keeps what it was told.
type quotaRec struct {
	grant time.Duration
	err   error
	mu    sync.Mutex
	asked []Admission
	ended []Info
}

func (q *quotaRec) Admit(ctx context.Context, a Admission) (time.Duration, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.asked = append(q.asked, a)
	return q.grant, q.err
}

func (q *quotaRec) Ended(info Info) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended = append(q.ended, info)
}

// TestExecution_quota: a context's Quota decides the CPU limit (over
// Options.MaxCPU), may refuse, and is told of the end with the CPU used
// before Wait returns; ExecOptions.MaxCPU only lowers the limit.
func TestExecution_quota(t *testing.T) {
	e := newEnv(t, Options{MaxCPU: -1})
	q := &quotaRec{grant: 200 * time.Millisecond}
	qctx := WithQuota(ctx(t), q)
	x, err := e.r.Exec(qctx, "metered\nburn", ExecOptions{ID: "q1", MaxCPU: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusCPULimit || res.MaxCPU != q.grant {
		t.Fatalf("status %s, max_cpu %v; want cpu-limit at %v", res.Status, res.MaxCPU, q.grant)
	}
	q.mu.Lock()
	if len(q.asked) != 1 || q.asked[0].Backend != "mini" || len(q.ended) != 1 || q.ended[0].ID != "q1" || q.ended[0].Usage.CPUTime() < q.grant {
		t.Fatalf("quota saw %+v, ended %+v", q.asked, q.ended)
	}
	q.mu.Unlock()

	x, err = e.r.Exec(qctx, "metered\nburn", ExecOptions{ID: "q2", MaxCPU: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ = x.Wait(ctx(t)); res.Status != StatusCPULimit || res.MaxCPU != 50*time.Millisecond {
		t.Fatalf("lowered: status %s, max_cpu %v", res.Status, res.MaxCPU)
	}

	q.err = errors.New("no more today")
	if _, err := e.r.Exec(qctx, "echo x", ExecOptions{}); err == nil || !strings.Contains(err.Error(), "no more today") {
		t.Fatalf("refused: %v", err)
	}
	if _, err := e.r.Exec(ctx(t), "echo x", ExecOptions{MaxCPU: -1}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("negative MaxCPU: %v", err)
	}
}

// TestThreadMeter counts the CPU of every goroutine inside it, those that
// left and those inside now, and nothing of a goroutine outside it.
func TestThreadMeter(t *testing.T) {
	var m ThreadMeter
	burnFor := func(d time.Duration) time.Duration { // own thread CPU burnt
		start := ownThreadCPU()
		s := 0
		for n := 0; ownThreadCPU()-start < d; n++ {
			s += n
		}
		burnSink.Add(int64(s))
		return ownThreadCPU() - start
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var inside time.Duration
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			leave := m.Enter()
			d := burnFor(50 * time.Millisecond)
			leave()
			mu.Lock()
			inside += d
			mu.Unlock()
		}()
	}
	outside := make(chan struct{})
	go func() { burnFor(50 * time.Millisecond); close(outside) }()
	wg.Wait()
	<-outside
	got := m.Read()
	// Each span's clock reads bracket the goroutine's own (Enter's read
	// before, leave's after): the meter reads at least what they burnt,
	// and not the outsider's 50 ms on top.
	if got < inside || got >= inside+50*time.Millisecond {
		t.Fatalf("meter read %v; the goroutines inside burnt %v (and one outside 50ms)", got, inside)
	}
	// Live: a goroutine inside now counts as it burns.
	leave := m.Enter()
	before := m.Read()
	burnFor(20 * time.Millisecond)
	if live := m.Read(); live-before < 20*time.Millisecond {
		t.Fatalf("live: read %v after burning 20ms inside, %v before", live, before)
	}
	leave()
}

// TestThreadMeter_pause: a goroutine paused while it blocks is not inside
// the meter (what it burns meanwhile is not counted) and counts again once
// resumed; Pause of a goroutine outside the meter does nothing.
func TestThreadMeter_pause(t *testing.T) {
	var m ThreadMeter
	burn := func(d time.Duration) {
		start := ownThreadCPU()
		s := 0
		for n := 0; ownThreadCPU()-start < d; n++ {
			s += n
		}
		burnSink.Add(int64(s))
	}
	m.Pause()() // outside: nothing to pause
	leave := m.Enter()
	burn(20 * time.Millisecond)
	resume := m.Pause()
	paused := m.Read()
	burn(60 * time.Millisecond) // still locked by nobody: not the meter's
	if got := m.Read(); got != paused {
		t.Fatalf("paused: read %v, then %v", paused, got)
	}
	resume()
	burn(20 * time.Millisecond)
	leave()
	if got := m.Read(); got < 40*time.Millisecond || got >= 100*time.Millisecond {
		t.Fatalf("read %v: want the 40ms burnt inside, without the 60ms paused", got)
	}
}
