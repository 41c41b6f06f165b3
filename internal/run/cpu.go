package run

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// CPU time: every backend exposes a meter of its execution's CPU time
// (Job.MeterCPU); run reads it, records its last reading as Usage.CPU and
// ends the execution past its CPU limit (ExecOptions.MaxCPU,
// Options.MaxCPU, a Quota's grant): the one place the limit is enforced.

// ErrCPULimit is the context cause a backend sees when its execution used
// its CPU limit; the execution ends as StatusCPULimit.
var ErrCPULimit = errors.New("execution reached its CPU limit")

// ErrQuota is what a Quota's refusal wraps: the workspace's execution quota
// is used up (429, EDQUOT).
var ErrQuota = errors.New("execution quota exceeded")

// CPUMeter reads the CPU time an execution's program has used so far: it
// never decreases and is safe for concurrent use (run calls it from its own
// goroutine while the backend runs, and once after it returned).
type CPUMeter func() time.Duration

// cpuMeter is where a Job keeps its meter.
type cpuMeter struct{ m atomic.Pointer[CPUMeter] }

// MeterCPU gives run the execution's CPU meter (once the program runs; a
// later call replaces it). run polls it while the execution has a CPU
// limit, ends the execution (ErrCPULimit) when it reads the limit or more,
// and records its reading after the backend returned as Usage.CPU, the
// figure the workspace's CPU quota counts.
func (j *Job) MeterCPU(m CPUMeter) {
	if j == nil || m == nil {
		return
	}
	j.cpu.m.Store(&m)
}

// readCPU is the meter's reading, and whether there is a meter.
func (j *Job) readCPU() (time.Duration, bool) {
	if j == nil {
		return 0, false
	}
	m := j.cpu.m.Load()
	if m == nil {
		return 0, false
	}
	return (*m)(), true
}

// cpuPoll is how often the meter is read for a limit: a twentieth of it,
// between 10 ms and 1 s. A program can pass its limit by at most one
// interval of CPU per core it keeps busy.
func cpuPoll(limit time.Duration) time.Duration {
	return min(max(limit/20, 10*time.Millisecond), time.Second)
}

// ThreadMeter measures the CPU time of the goroutines that run inside it:
// Enter locks the calling goroutine to its OS thread and reads the thread's
// CPU clock; the leave function it returns reads it again, adds the
// difference and unlocks. While locked, the thread runs that goroutine
// only, so the difference is that goroutine's CPU time, whatever else the
// process runs. Read adds the threads inside it now. The in-process
// backends (shell, js) meter their executions with it; its cost is a
// clock read (a system call) at each entry and exit, and that a locked
// goroutine which blocks hands its thread's P to another thread and is
// woken on its own thread again (see docs/decisions.md, "CPU time per
// execution"). The zero value is ready to use; safe for concurrent use.
type ThreadMeter struct {
	mu   sync.Mutex
	done time.Duration            // the CPU of the goroutines that left
	live map[*threadSpan]struct{} // the goroutines inside now
}

// threadSpan is one goroutine inside a ThreadMeter: its thread's id and
// CPU clock at Enter.
type threadSpan struct {
	tid   int
	start time.Duration
}

// Enter starts metering the calling goroutine; call leave (once, from the
// same goroutine) before it ends or when it stops doing the execution's
// work. Entries nest (LockOSThread counts them), but a goroutine must not
// enter the same meter twice (its time would count twice).
func (m *ThreadMeter) Enter() (leave func()) {
	runtime.LockOSThread()
	sp := &threadSpan{tid: unix.Gettid(), start: ownThreadCPU()}
	m.mu.Lock()
	if m.live == nil {
		m.live = map[*threadSpan]struct{}{}
	}
	m.live[sp] = struct{}{}
	m.mu.Unlock()
	return func() {
		end := ownThreadCPU()
		m.mu.Lock()
		if _, ok := m.live[sp]; ok {
			delete(m.live, sp)
			if end > sp.start {
				m.done += end - sp.start
			}
		}
		m.mu.Unlock()
		// Unlocked only now: while the span is live its thread runs this
		// goroutine alone, so Read may read the thread's clock.
		runtime.UnlockOSThread()
	}
}

// Pause takes the calling goroutine out of the meter while it blocks (on a
// pipe, a condition): its span ends and its thread is unlocked, so that its
// wake-up costs no hand-off between threads; resume (from the same
// goroutine) enters again. A goroutine not inside the meter is left as it
// is (resume does nothing).
func (m *ThreadMeter) Pause() (resume func()) {
	tid := unix.Gettid()
	end := ownThreadCPU()
	m.mu.Lock()
	var sp *threadSpan
	for s := range m.live {
		// A live span's thread runs its goroutine alone: the same thread
		// is the same goroutine.
		if s.tid == tid {
			sp = s
			break
		}
	}
	if sp == nil {
		m.mu.Unlock()
		return func() {}
	}
	delete(m.live, sp)
	if end > sp.start {
		m.done += end - sp.start
	}
	m.mu.Unlock()
	runtime.UnlockOSThread()
	return func() {
		runtime.LockOSThread()
		sp.tid, sp.start = unix.Gettid(), ownThreadCPU()
		m.mu.Lock()
		m.live[sp] = struct{}{}
		m.mu.Unlock()
	}
}

// Read returns the CPU time of the goroutines that left plus that of those
// inside now, so far. It never decreases.
func (m *ThreadMeter) Read() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.done
	for sp := range m.live {
		if now, err := threadCPU(sp.tid); err == nil && now > sp.start {
			t += now - sp.start
		}
	}
	return t
}

// ownThreadCPU is the calling thread's CPU time.
func ownThreadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// threadCPU is the CPU time of thread tid of this process, read through its
// CPU clock (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) of the kernel).
func threadCPU(tid int) (time.Duration, error) {
	var ts unix.Timespec
	clock := int32(^uint32(tid)<<3 | 4 | 2)
	if err := unix.ClockGettime(clock, &ts); err != nil {
		return 0, fmt.Errorf("read CPU clock of thread %d: %w", tid, err)
	}
	return time.Duration(ts.Nano()), nil
}

// Quota is asked about every execution started with a context that carries
// it (WithQuota): the API's per-workspace execution quotas, for every
// surface that starts executions (the exec route, the tool route, MCP
// sessions served in process).
type Quota interface {
	// Admit is asked after the Gate and before Options.Admit: an error
	// refuses the execution (Exec returns it wrapped; a quota's refusal
	// wraps ErrQuota); maxCPU is its CPU limit (0: Options.MaxCPU;
	// negative: none).
	Admit(ctx context.Context, a Admission) (maxCPU time.Duration, err error)
	// Ended is told of each execution Admit admitted once its end is
	// stored, before its exit event is visible and Wait returns.
	Ended(info Info)
}

type quotaKey struct{}

// WithQuota returns ctx whose Exec calls ask q (see Quota).
func WithQuota(ctx context.Context, q Quota) context.Context {
	return context.WithValue(ctx, quotaKey{}, q)
}

func quotaFrom(ctx context.Context) Quota {
	q, _ := ctx.Value(quotaKey{}).(Quota)
	return q
}

// CPUTime is the CPU time of u: CPU when a meter measured it, else the
// program's user and system time.
func (u *Usage) CPUTime() time.Duration {
	if u == nil {
		return 0
	}
	if u.CPU > 0 {
		return u.CPU
	}
	return u.UserTime + u.SysTime
}
