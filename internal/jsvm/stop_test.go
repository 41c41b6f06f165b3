package jsvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// longCall is a built-in call that runs long on its input: the survey of
// the package documentation's "Stopping an execution".
type longCall struct {
	name  string
	setup string  // statements run once before the loop; n is the input size
	call  string  // the expression the loop evaluates again and again
	n     float64 // the input size (scaled by inputScale unless fixed)
	fixed bool
}

// longCalls are the calls of the survey, with inputs that make each take
// from tens of milliseconds to about a second (without the race detector).
var longCalls = []longCall{
	{name: "Array sort", setup: "const a = Array.from({ length: n }, (_, i) => (i * 7919) % n);", call: "a.sort()", n: 200000},
	{name: "Array sort with a comparator", setup: "const a = Array.from({ length: n }, (_, i) => (i * 7919) % n);", call: "a.sort((x, y) => x - y)", n: 200000},
	{name: "typed array sort", setup: "const a = new Float64Array(n); for (let i = 0; i < n; i++) a[i] = (i * 7919) % n;", call: "a.sort()", n: 1e6},
	{name: "typed array sort with a comparator", setup: "const a = new Float64Array(n); for (let i = 0; i < n; i++) a[i] = (i * 7919) % n;", call: "a.sort((x, y) => x - y)", n: 1e5},
	{name: "JSON.parse", setup: "const j = JSON.stringify(Array.from({ length: n }, (_, i) => ({ a: i, b: 'x' + i })));", call: "JSON.parse(j)", n: 100000},
	{name: "JSON.stringify", setup: "const o = Array.from({ length: n }, (_, i) => ({ a: i, b: 'x' + i }));", call: "JSON.stringify(o)", n: 100000},
	{name: "String.prototype.repeat", call: "'x'.repeat(n)", n: 3e7},
	{name: "String.prototype.padStart", call: "'x'.padStart(n)", n: 3e7},
	{name: "regexp with catastrophic backtracking", call: "/(a+)+b/.test('a'.repeat(n))", n: 40, fixed: true},
	{name: "Array.prototype.join", setup: "const a = Array.from({ length: n }, (_, i) => i);", call: "a.join('-')", n: 1e6},
	{name: "join of a sparse array", setup: "const a = new Array(n);", call: "a.join('')", n: 1 << 23},
	{name: "indexOf of a sparse array", setup: "const a = new Array(n);", call: "a.indexOf(1)", n: 1 << 23},
	{name: "indexOf of an array-like", setup: "const o = { length: n };", call: "Array.prototype.indexOf.call(o, 1)", n: 1 << 24},
	{name: "indexOf of a long string (quadratic)", setup: "const s = 'a'.repeat(n), p = 'a'.repeat(n / 2) + 'b';", call: "s.indexOf(p)", n: 4e4},
	{name: "String.prototype.split", setup: "const s = 'ab'.repeat(n);", call: "s.split('')", n: 2e6},
	{name: "String.prototype.replaceAll", setup: "const s = 'ab'.repeat(n);", call: "s.replaceAll('a', 'cc')", n: 2e6},
	{name: "BigInt toString", setup: "const x = 7n ** BigInt(n);", call: "String(x)", n: 100000},
	{name: "BigInt multiplication", setup: "const x = 7n ** BigInt(n);", call: "x * x", n: 100000},
	{name: "structuredClone", setup: "const o = Array.from({ length: n }, (_, i) => ({ a: i, b: [i] }));", call: "structuredClone(o)", n: 100000},
}

// source is the execution of c: the setup, a line on stdout, then the call
// forever.
func (c longCall) source() string {
	n := c.n
	if !c.fixed {
		n = max(1, math.Round(n*inputScale))
	}
	return fmt.Sprintf("const n = %v;\n%s\nconsole.log('go');\nfor (;;) %s;\n", n, c.setup, c.call)
}

// engineWatch records the ends of a Backend's engines.
type engineWatch struct {
	mu    sync.Mutex
	ended int
	stuck int // of those, the ones that had been left running
	ch    chan struct{}
}

// watchEngines makes w see the ends of b's engines; call it before b runs
// anything.
func watchEngines(b *Backend) *engineWatch {
	w := &engineWatch{ch: make(chan struct{}, 1)}
	b.engineEnded = func(stuck bool) {
		w.mu.Lock()
		w.ended++
		if stuck {
			w.stuck++
		}
		w.mu.Unlock()
		select {
		case w.ch <- struct{}{}:
		default:
		}
	}
	return w
}

// wait waits until n engines have ended (hang guard: d).
func (w *engineWatch) wait(t testing.TB, n int, d time.Duration) (stuck int) {
	t.Helper()
	guard := time.NewTimer(d)
	defer guard.Stop()
	for {
		w.mu.Lock()
		ended, stuck := w.ended, w.stuck
		w.mu.Unlock()
		if ended >= n {
			return stuck
		}
		select {
		case <-w.ch:
		case <-guard.C:
			t.Fatalf("%d of %d engines ended (hang guard: %v)", ended, n, d)
		}
	}
}

// TestStopNativeCalls kills, and times out, an execution looping over each
// long built-in call: it ends with the status of its cause at once, whether
// the engine stops inside the call or is left to finish it in the
// background (StopGrace), and every engine stops in the end.
func TestStopNativeCalls(t *testing.T) {
	b := newBackend(t, Options{})
	w := watchEngines(b)
	fsys, r := openRuntime(t, filepath.Join(t.TempDir(), "ws.db"), b)
	t.Cleanup(func() { r.Close(); fsys.Close() })
	engines := 0
	for _, lc := range longCalls {
		t.Run(lc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			// Kill, once the loop has begun.
			stuckBefore := b.Stats().StuckEver
			t0 := time.Now()
			x, err := r.Exec(ctx, lc.source(), run.ExecOptions{})
			if err != nil {
				t.Fatal(err)
			}
			engines++
			if ev, err := x.Events(0).Next(ctx); err != nil || ev.Type != run.EventStdout {
				t.Fatalf("first event %+v %v", ev, err)
			}
			setup := time.Since(t0)
			if err := x.Kill(run.SIGKILL); err != nil {
				t.Fatal(err)
			}
			res, err := x.Wait(ctx)
			if err != nil {
				t.Fatalf("Wait after SIGKILL: %v", err)
			}
			if res.Status != run.StatusCancelled || res.ExitCode != 137 {
				t.Fatalf("killed: status %s exit %d: %+v", res.Status, res.ExitCode, res)
			}
			if w.wait(t, engines, 5*time.Minute); b.Stats().StuckEver > stuckBefore != strings.Contains(res.Stderr, "did not stop within") {
				t.Errorf("stuck engines %d → %d, stderr %q", stuckBefore, b.Stats().StuckEver, res.Stderr)
			}

			// Time out: the timeout is set past the setup the kill above
			// took (a configuration, not a check: the status is the same
			// wherever the timeout lands).
			x, err = r.Exec(ctx, lc.source(), run.ExecOptions{Timeout: 2*setup + 100*time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			engines++
			res, err = x.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != run.StatusTimedOut || res.ExitCode != run.ExitTimedOut {
				t.Fatalf("timed out: status %s exit %d: %+v", res.Status, res.ExitCode, res)
			}
			w.wait(t, engines, 5*time.Minute)
		})
	}
	if st := b.Stats(); st.Running != 0 || st.Stuck != 0 || st.Recovered != st.StuckEver {
		t.Fatalf("stats at the end %+v", st)
	}
	t.Logf("%d engines, %d of them left running for a while", engines, b.Stats().StuckEver)
}

// blocker is a host module whose function block does not return, whatever
// its ctx says, until the test releases it: a stand-in for a built-in call
// that cannot be interrupted, which makes the engine stuck for as long as
// the test wants.
type blocker struct {
	entered chan string // the job id, when block is called
	release chan struct{}
}

func (m *blocker) Functions(ctx context.Context, job *run.Job) map[string]HostFunc {
	return map[string]HostFunc{"block": func(context.Context, json.RawMessage) (json.RawMessage, error) {
		m.entered <- job.ID
		<-m.release
		return nil, nil
	}}
}

// runBlocked starts an execution that blocks in the blocker and returns its
// cancel and the channel of its end, once it is inside block.
func runBlocked(t *testing.T, b *Backend, m *blocker, fsys *vfs.FS, id string) (context.CancelFunc, chan result) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() {
		var out, errb testenv.SyncBuffer
		o, err := b.Run(vfs.WithActor(ctx, "test"), &run.Job{ID: id, Backend: ID, Cwd: "/workspace", FS: fsys,
			Source: "import { block } from 'test:block'; await block();",
			Stdin:  strings.NewReader(""), Stdout: &out, Stderr: &errb})
		done <- result{stdout: out.String(), stderr: errb.String(), exit: o.ExitCode, err: err}
	}()
	select {
	case got := <-m.entered:
		if got != id {
			t.Fatalf("entered by %s, want %s", got, id)
		}
	case r := <-done:
		t.Fatalf("%s ended before it blocked: %v %s", id, r.err, r.stderr)
	}
	return cancel, done
}

// TestStuckEngines: an engine that cannot be stopped gives up its
// execution's slot when its ctx ends (the execution ends), is counted as
// stuck until it stops; MaxStuck stuck engines take nothing from
// MaxConcurrent, and past MaxConcurrent+MaxStuck engines new executions are
// refused with a LimitError naming MaxStuck.
func TestStuckEngines(t *testing.T) {
	m := &blocker{entered: make(chan string), release: make(chan struct{})}
	hm := map[string]HostModule{"test:block": m}
	fsys := newStore(t, nil)

	t.Run("eight stuck engines do not block a ninth execution", func(t *testing.T) {
		b := newBackend(t, Options{HostModules: hm}) // MaxConcurrent 8, MaxStuck 8
		w := watchEngines(b)
		var dones []chan result
		for i := range 8 {
			cancel, done := runBlocked(t, b, m, fsys, "stuck"+string(rune('0'+i)))
			cancel()
			dones = append(dones, done)
		}
		for i, done := range dones {
			r := <-done // Run returns once StopGrace is over
			if r.err != nil || !strings.Contains(r.stderr, "the engine did not stop within 20ms of the end (context canceled)") {
				t.Fatalf("stuck execution %d: %v, stderr %q", i, r.err, r.stderr)
			}
		}
		if st := b.Stats(); st.Running != 0 || st.Stuck != 8 || st.StuckEver != 8 {
			t.Fatalf("stats with eight stuck engines: %+v", st)
		}
		r := runJS(testCtx(t), b, fsys, job{src: "export default () => 'ninth'"})
		if r.err != nil || r.value != `"ninth"` {
			t.Fatalf("ninth execution: %v %q %s", r.err, r.value, r.stderr)
		}
		for range 8 {
			m.release <- struct{}{}
		}
		if stuck := w.wait(t, 9, time.Minute); stuck != 8 {
			t.Fatalf("%d of the ended engines had been stuck, want 8", stuck)
		}
		if st := b.Stats(); st.Running != 0 || st.Stuck != 0 || st.Recovered != 8 {
			t.Fatalf("stats after the engines stopped: %+v", st)
		}
	})

	t.Run("past MaxConcurrent+MaxStuck engines new executions are refused", func(t *testing.T) {
		b := newBackend(t, Options{HostModules: hm, MaxConcurrent: 1, MaxStuck: 1})
		w := watchEngines(b)
		for i := range 2 {
			cancel, done := runBlocked(t, b, m, fsys, "s"+string(rune('0'+i)))
			cancel()
			<-done
		}
		r := runJS(testCtx(t), b, fsys, job{src: "export default () => 1"})
		var le *LimitError
		if !errors.As(r.err, &le) || le.Limit != "MaxStuck" || !strings.Contains(r.stderr, "desk: js: limit exceeded: MaxStuck (1 stuck js engines beyond MaxConcurrent: 2 engines could not be stopped and still run, 0 executions are running;") {
			t.Fatalf("with two stuck engines: %v, stderr %q", r.err, r.stderr)
		}
		m.release <- struct{}{}
		w.wait(t, 1, time.Minute)
		if r := runJS(testCtx(t), b, fsys, job{src: "export default () => 1"}); r.err != nil || r.value != "1" {
			t.Fatalf("after one stopped: %v %q", r.err, r.value)
		}
		m.release <- struct{}{}
		w.wait(t, 3, time.Minute)
	})

	t.Run("a stuck execution ends killed under run", func(t *testing.T) {
		b := newBackend(t, Options{HostModules: hm})
		w := watchEngines(b)
		store, rt := openRuntime(t, filepath.Join(t.TempDir(), "ws.db"), b)
		defer store.Close()
		defer rt.Close()
		x, err := rt.Exec(testCtx(t), "import { block } from 'test:block'; await block();", run.ExecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		<-m.entered
		if err := x.Kill(run.SIGKILL); err != nil {
			t.Fatal(err)
		}
		res, err := x.Wait(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != run.StatusCancelled || res.ExitCode != 137 || strings.Contains(res.Error, "abandoned") ||
			!strings.Contains(res.Stderr, "the engine did not stop within") {
			t.Fatalf("result %+v", res)
		}
		if st := b.Stats(); st.Stuck != 1 {
			t.Fatalf("stats %+v", st)
		}
		m.release <- struct{}{}
		w.wait(t, 1, time.Minute)
	})
}
