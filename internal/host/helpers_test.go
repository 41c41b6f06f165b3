package host_test

import (
	"context"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/workspace"
)

var ctx = context.Background()

// fakeClock is a Clock whose timers fire only when Advance passes them. The
// callbacks run synchronously inside Advance, so a test knows a hibernation
// has finished when Advance returns.
type fakeClock struct {
	ignoreStop bool // Stop reports false and the timer fires anyway

	mu     sync.Mutex
	now    time.Duration
	timers []*fakeTimer
}

type fakeTimer struct {
	c       *fakeClock
	at      time.Duration
	f       func()
	stopped bool // stopped or fired
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) host.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now + d, f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.c.ignoreStop {
		return false
	}
	was := !t.stopped
	t.stopped = true
	return was
}

// Advance moves the clock by d and runs the timers that fall due, in order.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	var due []*fakeTimer
	keep := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.stopped:
		case t.at <= c.now:
			t.stopped = true
			due = append(due, t)
		default:
			keep = append(keep, t)
		}
	}
	c.timers = keep
	c.mu.Unlock()
	sort.SliceStable(due, func(i, j int) bool { return due[i].at < due[j].at })
	for _, t := range due {
		t.f()
	}
}

// pending counts timers not yet fired or stopped.
func (c *fakeClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}

// openHost opens a host on a fresh data directory and closes it at the end of
// the test.
func openHost(t testing.TB, opts host.Options) *host.Host {
	t.Helper()
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	h, err := host.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func mustCreate(t testing.TB, h *host.Host, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := h.Create(ctx, n, host.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func mustAcquire(t testing.TB, h *host.Host, name string) *host.Lease {
	t.Helper()
	l, err := h.Acquire(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// tracker is an Attach that counts opens per workspace and the runtimes open
// now (and at most), each with a goroutine that its Close stops, like a real
// runtime would have.
type tracker struct {
	mu      sync.Mutex
	opens   map[string]int
	live    atomic.Int64
	maxLive atomic.Int64
	block   chan struct{} // if not nil, Attach waits for it to be closed
	arrived chan string   // each Attach that will wait on block sends its workspace's name
	fail    error         // if not nil, Attach fails with it
}

func newTracker() *tracker {
	return &tracker{opens: make(map[string]int), arrived: make(chan string, 64)}
}

func (tr *tracker) attach(ctx context.Context, ws *workspace.Workspace) (io.Closer, error) {
	tr.mu.Lock()
	tr.opens[ws.Name()]++
	block, fail := tr.block, tr.fail
	tr.mu.Unlock()
	if block != nil {
		select {
		case tr.arrived <- ws.Name():
		default: // nobody is counting that many
		}
		<-block
	}
	if fail != nil {
		return nil, fail
	}
	n := tr.live.Add(1)
	for {
		m := tr.maxLive.Load()
		if n <= m || tr.maxLive.CompareAndSwap(m, n) {
			break
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { <-stop; close(done) }()
	return closer(func() error { close(stop); <-done; tr.live.Add(-1); return nil }), nil
}

func (tr *tracker) count(name string) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.opens[name]
}

type closer func() error

func (c closer) Close() error { return c() }

func countFDs(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("count descriptors: %v", err)
	}
	return len(ents)
}

// deskGoroutines counts the goroutines running desk's own (non-test) code:
// the stores', runtimes' and host's. The runtime's, the SQLite driver's and
// the test framework's goroutines do not count, so a count taken right after
// work is not thrown off by goroutines of other packages still winding down.
func deskGoroutines() int {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, line := range strings.Split(g, "\n") {
			if strings.Contains(line, "github.com/desk-dev/desk/internal/") && !strings.Contains(line, "_test.") {
				n++
				break
			}
		}
	}
	return n
}

// settle waits (up to a generous deadline, never asserting on time) until
// at most g0 goroutines run desk's code. Nothing signals that a goroutine
// has exited, so this polls.
func settle(g0 int) int {
	deadline := time.Now().Add(30 * time.Second)
	for deskGoroutines() > g0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling: no event exists
	}
	return deskGoroutines()
}

// baseline is the number of goroutines running desk's code now.
func baseline() int { return deskGoroutines() }

// waitUntil waits until cond holds, checking every millisecond, and fails
// after 30 s (a hang guard). Use it only where nothing signals the state
// (the host's count of callers waiting for an open).
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s (hang guard)", what)
		}
	}
}
