package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// env is a store, a runtime over it and the mini backend (ids "mini" and "b").
type env struct {
	t    *testing.T
	path string
	fs   *vfs.FS
	r    *Runtime
	m    *mini
}

func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	return openEnv(t, opts, func(m *mini) map[string]Backend { return map[string]Backend{"mini": m, "b": m} })
}

// openEnv opens an env whose runtime has the backends backends gives for
// its mini backend (the default backend is "mini" unless opts names one).
func openEnv(t *testing.T, opts Options, backends func(*mini) map[string]Backend) *env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ws.db")
	fsys, err := vfs.Open(t.Context(), path, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	m := newMini()
	if opts.DefaultBackend == "" {
		opts.DefaultBackend = "mini"
	}
	r, err := Open(t.Context(), fsys, backends(m), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return &env{t: t, path: path, fs: fsys, r: r, m: m}
}

// ctx is a context for one step of a test: bounded, so that a bug hangs
// nothing for long.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func (e *env) exec(src string, o ExecOptions) *Execution {
	e.t.Helper()
	x, err := e.r.Exec(ctx(e.t), src, o)
	if err != nil {
		e.t.Fatalf("Exec(%q): %v", src, err)
	}
	return x
}

func (e *env) run(src string, o ExecOptions) *Result {
	e.t.Helper()
	res, err := e.exec(src, o).Wait(ctx(e.t))
	if err != nil {
		e.t.Fatalf("Wait(%q): %v", src, err)
	}
	return res
}

// drain reads a stream to its end.
func drain(t *testing.T, s *Stream) []Event {
	t.Helper()
	var out []Event
	for {
		ev, err := s.Next(ctx(t))
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, ev)
	}
}

// checkEvents checks the stream invariants: numbers increase by one (an
// elided marker covers First..Seq), the kept data plus the elided bytes add
// up to all the output, offsets agree, and the last event is the exit.
func checkEvents(t *testing.T, evs []Event, from uint64, info Info) {
	t.Helper()
	if from == 0 {
		from = 1
	}
	next := from
	var out, errb int64
	haveOff := false
	for i, ev := range evs {
		if ev.Type == EventElided {
			if i == 0 && (ev.First > next || ev.Seq < next) || i > 0 && ev.First != next {
				t.Fatalf("event %d: marker %d..%d, want it to start at %d", i, ev.First, ev.Seq, next)
			}
			if haveOff && (ev.StdoutOffset != out || ev.StderrOffset != errb) {
				t.Fatalf("marker %d..%d: offsets %d/%d, want %d/%d", ev.First, ev.Seq, ev.StdoutOffset, ev.StderrOffset, out, errb)
			}
			if i+1 < len(evs) {
				n := evs[i+1]
				if got := n.StdoutOffset + n.StderrOffset - ev.StdoutOffset - ev.StderrOffset; got != ev.Bytes {
					t.Fatalf("marker %d..%d: %d bytes, the offsets say %d", ev.First, ev.Seq, ev.Bytes, got)
				}
			}
			haveOff = false
		} else {
			if ev.Seq != next {
				t.Fatalf("event %d: seq %d, want %d", i, ev.Seq, next)
			}
			if haveOff && (ev.StdoutOffset != out || ev.StderrOffset != errb) {
				t.Fatalf("event %d (seq %d): offsets %d/%d, want %d/%d", i, ev.Seq, ev.StdoutOffset, ev.StderrOffset, out, errb)
			}
			out, errb = ev.ends()
			haveOff = true
		}
		next = ev.Seq + 1
	}
	if len(evs) == 0 {
		return
	}
	last := evs[len(evs)-1]
	if last.Type != EventExit || last.Exit == nil || last.Exit.Status != info.Status || last.Exit.ExitCode != info.ExitCode {
		t.Fatalf("last event %+v, want the exit of %s/%d", last, info.Status, info.ExitCode)
	}
	if last.Seq != info.Events || last.StdoutOffset != info.StdoutBytes || last.StderrOffset != info.StderrBytes {
		t.Fatalf("exit event %d %d/%d, record says %d %d/%d", last.Seq, last.StdoutOffset, last.StderrOffset, info.Events, info.StdoutBytes, info.StderrBytes)
	}
}

func TestRuntime_Exec_routing(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct {
		name, backend, want string
		err                 error
	}{
		{"named", "b", "b\n", nil},
		{"other", "mini", "mini\n", nil},
		{"default", "", "mini\n", nil},
		{"unknown", "python", "", ErrUnknownBackend},
		{"bad id", "../x", "", ErrUnknownBackend},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := e.r.Exec(ctx(t), "backend", ExecOptions{Backend: tc.backend})
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Exec: %v, want %v", err, tc.err)
				}
				if !strings.Contains(err.Error(), "mini") {
					t.Errorf("error %q does not name the available backends", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res, err := x.Wait(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if res.Stdout != tc.want || res.Backend != strings.TrimSpace(tc.want) {
				t.Errorf("ran on %q (%q), want %q", res.Stdout, res.Backend, tc.want)
			}
		})
	}
	t.Run("no default", func(t *testing.T) {
		fsys := e.fs
		r, err := Open(ctx(t), fsys, map[string]Backend{"mini": e.m}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Exec(ctx(t), "echo", ExecOptions{}); !errors.Is(err, ErrUnknownBackend) {
			t.Errorf("Exec without backend: %v, want ErrUnknownBackend", err)
		}
	})
}

func TestRuntime_Exec_invalid(t *testing.T) {
	e := newEnv(t, Options{MaxSourceBytes: 100, MaxInputBytes: 10, MaxEnvBytes: 50, MaxTimeout: time.Minute})
	for _, tc := range []struct {
		name string
		src  string
		o    ExecOptions
		err  error
	}{
		{"id charset", "", ExecOptions{ID: "a/b"}, ErrInvalid},
		{"id leading dot", "", ExecOptions{ID: ".a"}, ErrInvalid},
		{"id too long", "", ExecOptions{ID: strings.Repeat("a", 65)}, ErrInvalid},
		{"cwd with NUL", "", ExecOptions{Cwd: "work\x00"}, ErrInvalid},
		{"negative timeout", "", ExecOptions{Timeout: -1}, ErrInvalid},
		{"timeout over max", "", ExecOptions{Timeout: time.Hour}, ErrTimeoutTooLong},
		{"source too large", strings.Repeat("x", 101), ExecOptions{}, ErrTooLarge},
		{"input too large", "", ExecOptions{Input: json.RawMessage(`"0123456789"`)}, ErrTooLarge},
		{"input not JSON", "", ExecOptions{Input: json.RawMessage(`{`)}, ErrInvalid},
		{"env name", "", ExecOptions{Env: map[string]string{"A=B": "c"}}, ErrInvalid},
		{"env NUL", "", ExecOptions{Env: map[string]string{"A": "c\x00"}}, ErrInvalid},
		{"env too large", "", ExecOptions{Env: map[string]string{"A": strings.Repeat("v", 60)}}, ErrTooLarge},
		{"output limit over max", "", ExecOptions{OutputLimit: 1 << 40}, ErrTooLarge},
		{"output limit under min", "", ExecOptions{OutputLimit: 10}, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.r.Exec(ctx(t), tc.src, tc.o)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Exec: %v, want %v", err, tc.err)
			}
		})
	}
	if n := e.r.Running(); n != 0 {
		t.Errorf("%d running after refused Execs", n)
	}
	recs, err := e.fs.Records().List(ctx(t), kindExec, "", 0)
	if err != nil || len(recs) != 0 {
		t.Errorf("refused Execs left records: %v %v", recs, err)
	}
}

func TestOpen_invalid(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct {
		name     string
		backends map[string]Backend
		o        Options
	}{
		{"negative", nil, Options{MaxRunning: -1}},
		{"timeout over max", nil, Options{Timeout: 2 * time.Hour}},
		{"bad backend id", map[string]Backend{"a b": e.m}, Options{}},
		{"nil backend", map[string]Backend{"a": nil}, Options{}},
		{"unknown default", map[string]Backend{"a": e.m}, Options{DefaultBackend: "z"}},
		{"bad env", nil, Options{Env: map[string]string{"": "x"}}},
		{"small output limit", nil, Options{OutputLimit: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r, err := Open(ctx(t), e.fs, tc.backends, tc.o); err == nil {
				r.Close()
				t.Fatal("Open succeeded")
			}
		})
	}
}

func TestExecution_Wait(t *testing.T) {
	e := newEnv(t, Options{MaxValueBytes: 100})
	for _, tc := range []struct {
		name           string
		src            string
		status         Status
		code           int
		stdout, stderr string
		value          string
		errText        string
	}{
		{"completed", "echo hi\nerr oops\necho there", StatusCompleted, 0, "hi\nthere\n", "oops\n", "", ""},
		{"exit code", "echo a\nexit 3\necho not reached", StatusCompleted, 3, "a\n", "", "", ""},
		{"value", `value {"a": [1, 2]}`, StatusCompleted, 0, "", "", `{"a":[1,2]}`, ""},
		{"backend error", "echo before\nfail no such thing", StatusFailed, ExitFailed, "before\n", "", "", "no such thing"},
		{"panic", "panic boom", StatusFailed, ExitFailed, "", "", "", "panicked: mini: boom"},
		{"bad value", "value {", StatusFailed, ExitFailed, "", "", "", "not valid JSON"},
		{"value too large", `value "` + strings.Repeat("v", 200) + `"`, StatusFailed, ExitFailed, "", "", "", "over the limit"},
		{"empty", "", StatusCompleted, 0, "", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.run(tc.src, ExecOptions{})
			if res.Status != tc.status || res.ExitCode != tc.code || res.Stdout != tc.stdout || res.Stderr != tc.stderr ||
				string(res.Value) != tc.value || !strings.Contains(res.Error, tc.errText) || (tc.errText == "") != (res.Error == "") {
				t.Fatalf("got %s/%d stdout %q stderr %q value %s error %q", res.Status, res.ExitCode, res.Stdout, res.Stderr, res.Value, res.Error)
			}
			if res.Started.IsZero() || res.Ended.Before(res.Started) || res.Backend != "mini" || res.Source != tc.src || res.Cwd != DefaultCwd {
				t.Fatalf("record %+v", res.Info)
			}
			// Durable and the same through Get (from the store) once Wait returned.
			got, err := e.r.Get(ctx(t), res.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !equalResults(got, res) {
				t.Fatalf("Get:\n%+v\nWait:\n%+v", got, res)
			}
			rec, err := e.fs.Records().Get(ctx(t), kindExec, res.ID)
			if err != nil || !bytes.Contains(rec.Value, []byte(`"status":"`+string(tc.status)+`"`)) {
				t.Fatalf("stored record %s, %v", rec.Value, err)
			}
			checkEvents(t, drain(t, mustAttach(t, e.r, res.ID, 0)), 1, res.Info)
		})
	}
}

func equalResults(a, b *Result) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func mustAttach(t *testing.T, r *Runtime, id string, from uint64) *Stream {
	t.Helper()
	s, err := r.Attach(ctx(t), id, from)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExecution_Events_live(t *testing.T) {
	e := newEnv(t, Options{})
	x := e.exec("echo hello\nwait g\necho bye", ExecOptions{})
	s := mustAttach(t, e.r, x.ID(), 0)
	ev, err := s.Next(ctx(t))
	if err != nil || ev.Type != EventStdout || string(ev.Data) != "hello\n" || ev.Seq != 1 {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	// The event arrived while the execution still runs: it waits for the gate.
	if st := x.Info().Status; st != StatusRunning {
		t.Fatalf("status %s while blocked", st)
	}
	// Next waits: nothing new while the gate is closed.
	short, cancel := context.WithTimeout(ctx(t), 10*time.Millisecond)
	if _, err := s.Next(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next while nothing new: %v", err)
	}
	cancel()
	e.m.open("g")
	rest := drain(t, s)
	if len(rest) != 2 || string(rest[0].Data) != "bye\n" || rest[0].Seq != 2 || rest[1].Type != EventExit || rest[1].Seq != 3 {
		t.Fatalf("rest %+v", rest)
	}
	// Next after the end keeps returning EOF.
	if _, err := s.Next(ctx(t)); err != io.EOF {
		t.Fatalf("Next after exit: %v", err)
	}
}

func TestRuntime_Attach(t *testing.T) {
	e := newEnv(t, Options{})
	res := e.run("echo 1\necho 2\nerr 3\necho 4\nexit 1", ExecOptions{ID: "att"})
	if res.Events != 5 {
		t.Fatalf("%d events, want 5", res.Events)
	}
	// From the store (a new runtime) and from the live execution object.
	r2, err := Open(ctx(t), e.fs, map[string]Backend{"mini": e.m}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	for _, tc := range []struct {
		name string
		from uint64
		want []uint64
	}{
		{"from 0", 0, []uint64{1, 2, 3, 4, 5}},
		{"from 1", 1, []uint64{1, 2, 3, 4, 5}},
		{"middle", 3, []uint64{3, 4, 5}},
		{"exit", 5, []uint64{5}},
		{"after the end", 6, nil},
		{"far after the end", 1000, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []uint64
			for _, ev := range drain(t, mustAttach(t, r2, "att", tc.from)) {
				got = append(got, ev.Seq)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("events %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := e.r.Attach(ctx(t), "nope", 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Attach unknown: %v", err)
	}
}

func TestRuntime_Attach_concurrent(t *testing.T) {
	e := newEnv(t, Options{})
	const n = 400
	x := e.exec(fmt.Sprintf("lines %d\nwait g\nlines %d", n, n), ExecOptions{})
	var want bytes.Buffer
	for range 2 {
		for i := range n {
			fmt.Fprintf(&want, "%07d\n", i)
		}
	}
	// Wait until the first half is out.
	s := x.Events(0)
	for range n {
		if _, err := s.Next(ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	type got struct {
		from uint64
		evs  []Event
	}
	var wg sync.WaitGroup
	results := make([]got, 8)
	for i := range results {
		from := uint64(i * 100)
		results[i].from = from
		wg.Go(func() {
			st, err := e.r.Attach(ctx(t), x.ID(), from)
			if err != nil {
				t.Error(err)
				return
			}
			for {
				ev, err := st.Next(ctx(t))
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				results[i].evs = append(results[i].evs, ev)
			}
		})
	}
	e.m.open("g") // the second half is written while the readers read
	wg.Wait()
	res, err := x.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range results {
		checkEvents(t, g.evs, g.from, res.Info)
		var data bytes.Buffer
		for _, ev := range g.evs {
			data.Write(ev.Data)
		}
		from := max(g.from, 1)
		if !bytes.Equal(data.Bytes(), want.Bytes()[(from-1)*8:]) {
			t.Fatalf("reader from %d: wrong data", g.from)
		}
	}
}

func TestExecution_outputCap(t *testing.T) {
	e := newEnv(t, Options{})
	const limit = 1024
	for _, tc := range []struct {
		name string
		src  string
	}{
		{"lines", "lines 1000"},
		{"drip", "drip 5000"},
		{"mixed", "lines 100\nerr middle\nlines 100\nerr end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.run(tc.src, ExecOptions{OutputLimit: limit})
			all := e.run(tc.src, ExecOptions{}) // same output, uncapped
			if all.StdoutElided != 0 || all.StderrElided != 0 {
				t.Fatalf("default limit elided output")
			}
			if res.StdoutBytes != all.StdoutBytes || res.StderrBytes != all.StderrBytes {
				t.Fatalf("counted %d/%d bytes, want %d/%d", res.StdoutBytes, res.StderrBytes, all.StdoutBytes, all.StderrBytes)
			}
			for _, s := range []struct {
				name      string
				got, full string
				elided    int64
			}{{"stdout", res.Stdout, all.Stdout, res.StdoutElided}, {"stderr", res.Stderr, all.Stderr, res.StderrElided}} {
				if s.elided == 0 {
					if s.got != s.full {
						t.Fatalf("%s: nothing elided but output differs", s.name)
					}
					continue
				}
				line := elisionLine(s.elided)
				head, tail, ok := strings.Cut(s.got, line)
				if !ok {
					t.Fatalf("%s: no elision line in %q", s.name, s.got)
				}
				if !strings.HasPrefix(s.full, head) || !strings.HasSuffix(s.full, tail) || int64(len(head)+len(tail))+s.elided != int64(len(s.full)) {
					t.Fatalf("%s: kept %d+%d bytes and elided %d of %d", s.name, len(head), len(tail), s.elided, len(s.full))
				}
			}
			if res.StdoutElided+res.StderrElided == 0 {
				t.Fatalf("nothing elided")
			}
			// The store holds at most the cap (data + per-event cost).
			stored := int64(0)
			v, err := e.r.readView(ctx(t), res.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, seg := range v {
				for _, ev := range seg {
					if ev.Type != EventExit {
						stored += int64(len(ev.Data)) + eventCost
					}
				}
			}
			if stored > limit {
				t.Fatalf("stored %d bytes, over the cap %d", stored, limit)
			}
			if len(v) != 2 {
				t.Fatalf("stored %d segments, want head and tail", len(v))
			}
			// Replayed from the store: one marker, the rest consistent.
			evs := drain(t, mustAttach(t, e.r, res.ID, 0))
			checkEvents(t, evs, 1, res.Info)
			markers := 0
			for _, ev := range evs {
				if ev.Type == EventElided {
					markers++
					if ev.Bytes != res.StdoutElided+res.StderrElided {
						t.Fatalf("marker of %d bytes, result elided %d", ev.Bytes, res.StdoutElided+res.StderrElided)
					}
				}
			}
			if markers != 1 {
				t.Fatalf("%d markers", markers)
			}
			got, err := e.r.Get(ctx(t), res.ID)
			if err != nil || !equalResults(got, res) {
				t.Fatalf("stored result differs from Wait's (%v)", err)
			}
		})
	}
}

// A reader of a running execution with a small cap sees consistent events
// however far it lags.
func TestExecution_Events_lagging(t *testing.T) {
	e := newEnv(t, Options{})
	x := e.exec("lines 3000\nerr x\nlines 2000", ExecOptions{OutputLimit: 2048})
	evs := drain(t, x.Events(0))
	res, err := x.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	checkEvents(t, evs, 1, res.Info)
	var total int64
	for _, ev := range evs {
		total += int64(len(ev.Data)) + ev.Bytes
	}
	if total != res.StdoutBytes+res.StderrBytes {
		t.Fatalf("events account for %d bytes of %d", total, res.StdoutBytes+res.StderrBytes)
	}
}

func TestExecution_timeout(t *testing.T) {
	e := newEnv(t, Options{KillGrace: 20 * time.Millisecond})
	for _, tc := range []struct {
		name, src string
		abandoned bool
	}{
		{"spin", "echo start\nspin", false},
		{"sleep", "sleep 1h", false},
		{"ignores ctx", "hang never", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.run(tc.src, ExecOptions{Timeout: 10 * time.Millisecond})
			if res.Status != StatusTimedOut || res.ExitCode != ExitTimedOut || !strings.Contains(res.Error, "timed out") {
				t.Fatalf("got %s/%d %q", res.Status, res.ExitCode, res.Error)
			}
			if got := strings.Contains(res.Error, "abandoned"); got != tc.abandoned {
				t.Fatalf("error %q: abandoned %v, want %v", res.Error, got, tc.abandoned)
			}
		})
	}
	e.m.open("never")
}

func TestExecution_Kill(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct {
		sig  Signal
		src  string
		code int
	}{
		{SIGTERM, "echo a\nspin", 143},
		{SIGKILL, "echo a\nspin", 137},
		{SIGINT, "wait forever", 130},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			x := e.exec(tc.src, ExecOptions{})
			if tc.src != "wait forever" {
				if _, err := x.Events(1).Next(ctx(t)); err != nil { // it is spinning
					t.Fatal(err)
				}
			}
			if err := e.r.Kill(ctx(t), x.ID(), tc.sig); err != nil {
				t.Fatal(err)
			}
			if err := x.Kill(SIGKILL); err != nil && !errors.Is(err, ErrNotRunning) { // a second kill is harmless
				t.Fatal(err)
			}
			res, err := x.Wait(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != StatusCancelled || res.ExitCode != tc.code || res.Signal != tc.sig.String() {
				t.Fatalf("got %s/%d %q %q", res.Status, res.ExitCode, res.Signal, res.Error)
			}
			if err := x.Kill(SIGKILL); !errors.Is(err, ErrNotRunning) {
				t.Fatalf("Kill after the end: %v", err)
			}
			if err := e.r.Kill(ctx(t), x.ID(), SIGKILL); !errors.Is(err, ErrNotRunning) {
				t.Fatalf("Runtime.Kill after the end: %v", err)
			}
		})
	}
	if err := e.r.Kill(ctx(t), "nope", SIGKILL); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Kill unknown: %v", err)
	}
	x := e.exec("wait forever", ExecOptions{})
	if err := x.Kill(Signal(99)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Kill(99): %v", err)
	}
	x.Kill(SIGKILL)
	x.Wait(ctx(t))
}

func TestParseSignal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Signal
		ok   bool
	}{
		{"SIGKILL", SIGKILL, true}, {"KILL", SIGKILL, true}, {"term", SIGTERM, true}, {"15", SIGTERM, true},
		{"2", SIGINT, true}, {"SIGFOO", 0, false}, {"0", 0, false}, {"", 0, false}, {"-9", 0, false},
	} {
		got, err := ParseSignal(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSignal(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestExecution_changes(t *testing.T) {
	e := newEnv(t, Options{})
	c := ctx(t)
	for _, p := range []string{"/old", "/keep", "/p"} {
		if err := e.fs.WriteFile(c, p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x := e.exec(strings.Join([]string{
		"write /a 1", "mkdir /d", "write /d/x 2", "write /tmp1 3", "rm /tmp1", "rm /old",
		"write /keep 4", "mv /p /q", "mkdir /e", "write /e/f 5", "mv /e /g",
		"rm /keep", "write /keep 6", // removed then created again: modified
		"echo ready", "wait g", "write /b 7",
	}, "\n"), ExecOptions{})
	if _, err := x.Events(0).Next(c); err != nil {
		t.Fatal(err)
	}
	// Concurrent changes by others while it runs: the test itself and another execution.
	if err := e.fs.WriteFile(c, "/c", []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := e.run("write /other 1\nrm /p2", ExecOptions{})
	if other.Status != StatusCompleted && other.Status != StatusFailed {
		t.Fatal(other.Status)
	}
	e.m.open("g")
	res, err := x.Wait(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusCompleted {
		t.Fatalf("%s: %s %s", res.Status, res.Error, res.Stderr)
	}
	want := &Changes{
		Created:  []string{"/a", "/b", "/d", "/d/x", "/g", "/g/f", "/q"},
		Modified: []string{"/keep"},
		Deleted:  []string{"/old", "/p"},
	}
	if !equalJSON(res.Changes, want) {
		t.Fatalf("changes\n%+v\nwant\n%+v", res.Changes, want)
	}
	if !equalJSON(other.Changes, &Changes{Created: []string{"/other"}, Modified: []string{}, Deleted: []string{}}) {
		t.Fatalf("other's changes %+v", other.Changes)
	}
	// The journal attributes them to the execution.
	chs, err := e.fs.Changes(c, res.JournalStart, 0)
	if err != nil {
		t.Fatal(err)
	}
	actors := map[string]bool{}
	for _, ch := range chs {
		actors[ch.Actor] = true
	}
	if !actors[res.ID] || !actors[other.ID] || !actors[""] {
		t.Fatalf("journal actors %v", actors)
	}
}

func TestExecOptions_MaxChanges(t *testing.T) {
	e := newEnv(t, Options{MaxChanges: 2})
	res := e.run("write /a 1\nwrite /b 1\nwrite /c 1", ExecOptions{})
	if !res.Changes.Truncated || len(res.Changes.Created) != 2 {
		t.Fatalf("changes %+v", res.Changes)
	}
}

func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func TestChangeSet(t *testing.T) {
	type ch = vfs.Change
	for _, tc := range []struct {
		name                      string
		ops                       []ch
		created, modified, delete []string
	}{
		{"create+write", []ch{{Op: vfs.OpCreate, Path: "/a"}, {Op: vfs.OpWrite, Path: "/a"}}, []string{"/a"}, nil, nil},
		{"create+remove", []ch{{Op: vfs.OpCreate, Path: "/a"}, {Op: vfs.OpRemove, Path: "/a"}}, nil, nil, nil},
		{"remove+create", []ch{{Op: vfs.OpRemove, Path: "/a"}, {Op: vfs.OpCreate, Path: "/a"}}, nil, []string{"/a"}, nil},
		{"write", []ch{{Op: vfs.OpWrite, Path: "/a"}, {Op: vfs.OpSetattr, Path: "/a"}}, nil, []string{"/a"}, nil},
		{"write+remove", []ch{{Op: vfs.OpTruncate, Path: "/a"}, {Op: vfs.OpRemove, Path: "/a"}}, nil, nil, []string{"/a"}},
		{"rename existing", []ch{{Op: vfs.OpRename, OldPath: "/a", Path: "/b"}}, []string{"/b"}, nil, []string{"/a"}},
		{"rename created", []ch{{Op: vfs.OpCreate, Path: "/a"}, {Op: vfs.OpRename, OldPath: "/a", Path: "/b"}}, []string{"/b"}, nil, nil},
		{"rename back", []ch{{Op: vfs.OpRename, OldPath: "/a", Path: "/b"}, {Op: vfs.OpRename, OldPath: "/b", Path: "/a"}}, nil, []string{"/a"}, nil},
		{"rename dir", []ch{{Op: vfs.OpMkdir, Path: "/d"}, {Op: vfs.OpCreate, Path: "/d/f"}, {Op: vfs.OpCreate, Path: "/dd"},
			{Op: vfs.OpRename, OldPath: "/d", Path: "/e"}}, []string{"/dd", "/e", "/e/f"}, nil, nil},
		{"exchange", []ch{{Op: vfs.OpExchange, OldPath: "/a", Path: "/b"}}, nil, []string{"/a", "/b"}, nil},
		{"symlink+link", []ch{{Op: vfs.OpSymlink, Path: "/s"}, {Op: vfs.OpLink, Path: "/l", OldPath: "/x"}}, []string{"/l", "/s"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := changeSet{}
			for i := range tc.ops {
				cs.apply(&tc.ops[i])
			}
			got := cs.result(100)
			norm := func(s []string) []string {
				if s == nil {
					return []string{}
				}
				return s
			}
			want := &Changes{Created: norm(tc.created), Modified: norm(tc.modified), Deleted: norm(tc.delete)}
			if !equalJSON(got, want) {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestRuntime_busy(t *testing.T) {
	e := newEnv(t, Options{MaxRunning: 2})
	a := e.exec("wait a", ExecOptions{})
	b := e.exec("wait b", ExecOptions{})
	_, err := e.r.Exec(ctx(t), "echo", ExecOptions{})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("third Exec: %v, want ErrBusy", err)
	}
	e.m.open("a")
	if _, err := a.Wait(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if n := e.r.Running(); n != 1 { // an ended execution leaves the running set before Done is closed
		t.Fatalf("%d running", n)
	}
	if res := e.run("echo ok", ExecOptions{}); res.Status != StatusCompleted {
		t.Fatal(res.Status)
	}
	e.m.open("b")
	b.Wait(ctx(t))
}

func TestRuntime_Exec_duplicateID(t *testing.T) {
	e := newEnv(t, Options{})
	x := e.exec("wait g", ExecOptions{ID: "dup"})
	if _, err := e.r.Exec(ctx(t), "echo", ExecOptions{ID: "dup"}); !errors.Is(err, ErrExists) {
		t.Fatalf("Exec running id: %v", err)
	}
	e.m.open("g")
	x.Wait(ctx(t))
	if _, err := e.r.Exec(ctx(t), "echo", ExecOptions{ID: "dup"}); !errors.Is(err, ErrExists) {
		t.Fatalf("Exec ended id: %v", err)
	}
	if got := e.run("id", ExecOptions{ID: "my-id_1.x"}); got.Stdout != "my-id_1.x\n" || got.ID != "my-id_1.x" {
		t.Fatalf("id %q", got.Stdout)
	}
}

func TestRuntime_retention(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Add(int64(time.Millisecond))) }
	e := newEnv(t, Options{MaxRecords: 3, MaxAge: time.Hour, Now: now})
	var ids []string
	for i := range 5 {
		ids = append(ids, e.run(fmt.Sprintf("echo %d", i), ExecOptions{}).ID)
	}
	running := e.exec("wait g", ExecOptions{})
	list, err := e.r.List(ctx(t), ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range list {
		got = append(got, i.ID)
	}
	want := append(slices.Clone(ids[2:]), running.ID())
	if !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	if _, err := e.r.Get(ctx(t), ids[0]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get pruned: %v", err)
	}
	if ents, _ := e.fs.Records().ReadLog(ctx(t), kindExec, ids[0], 0, 0); len(ents) != 0 {
		t.Fatalf("pruned execution left its log")
	}
	// Age: everything finished is older than MaxAge; the running one stays.
	clock.Add(int64(2 * time.Hour))
	list, err = e.r.List(ctx(t), ListOptions{})
	if err != nil || len(list) != 1 || list[0].ID != running.ID() || list[0].Status != StatusRunning {
		t.Fatalf("after MaxAge: %+v %v", list, err)
	}
	e.m.open("g")
	running.Wait(ctx(t))
	list, _ = e.r.List(ctx(t), ListOptions{Status: StatusCompleted})
	if len(list) != 1 {
		t.Fatalf("%d completed records", len(list))
	}
}

func TestRuntime_List(t *testing.T) {
	e := newEnv(t, Options{})
	for i := range 5 {
		e.run(fmt.Sprintf("exit %d", i%2), ExecOptions{ID: fmt.Sprintf("x%d", i)})
	}
	list, err := e.r.List(ctx(t), ListOptions{After: "x1", Limit: 2})
	if err != nil || len(list) != 2 || list[0].ID != "x2" || list[1].ID != "x3" {
		t.Fatalf("page %+v %v", list, err)
	}
}

func TestOpen_recovers(t *testing.T) {
	t.Run("simulated", func(t *testing.T) {
		e := newEnv(t, Options{})
		c := ctx(t)
		started := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		info := Info{ID: "dead", Backend: "mini", Status: StatusRunning, Started: started, Cwd: "/", Source: "x"}
		rec, _ := json.Marshal(info)
		e.fs.Records().Put(c, kindExec, "dead", rec)
		e.fs.Records().Put(c, kindLive, "dead", nil)
		last := started.Add(time.Minute)
		e.fs.Records().AppendLog(c, kindExec, "dead", encodeEvent(&Event{Seq: 1, Time: started, Type: EventStdout, Data: []byte("a\n")}))
		e.fs.Records().AppendLog(c, kindTail, "dead", encodeEvent(&Event{Seq: 7, Time: last, Type: EventStderr, Data: []byte("b\n"), StdoutOffset: 20}))
		r, err := Open(c, e.fs, map[string]Backend{"mini": e.m}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		res, err := r.Get(c, "dead")
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != StatusFailed || res.Error != ErrStopped.Error() || !res.Ended.Equal(last) || res.Events != 8 ||
			res.StdoutBytes != 20 || res.StderrBytes != 2 || res.StdoutElided != 18 || !res.Changes.Truncated {
			t.Fatalf("recovered %+v", res)
		}
		checkEvents(t, drain(t, mustAttach(t, r, "dead", 0)), 1, res.Info)
		if live, _ := e.fs.Records().List(c, kindLive, "", 0); len(live) != 0 {
			t.Fatalf("live markers left: %v", live)
		}
	})
	t.Run("store closed while running", func(t *testing.T) {
		e := newEnv(t, Options{FlushInterval: time.Millisecond})
		x := e.exec("echo out\nhang g", ExecOptions{ID: "victim"})
		if _, err := x.Events(0).Next(ctx(t)); err != nil {
			t.Fatal(err)
		}
		// Wait until the output is flushed (50 ms at most by default; 1 ms here).
		poll(t, "the victim's log in the store", func() bool {
			ents, err := e.fs.Records().ReadLog(ctx(t), kindExec, "victim", 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			return len(ents) > 0
		})
		// The "server dies": the store closes under the runtime.
		if err := e.fs.Close(); err != nil {
			t.Fatal(err)
		}
		fs2, err := vfs.Open(ctx(t), e.path, vfs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer fs2.Close()
		r2, err := Open(ctx(t), fs2, map[string]Backend{"mini": e.m}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r2.Close()
		res, err := r2.Get(ctx(t), "victim")
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != StatusFailed || !strings.Contains(res.Error, "desk server stopped while the execution was running") ||
			res.Stdout != "out\n" || res.Ended.IsZero() {
			t.Fatalf("recovered %+v", res)
		}
		// The old runtime cannot store its end any more; Wait says so.
		e.m.open("g")
		if _, err := x.Wait(ctx(t)); err == nil {
			t.Fatal("Wait on a closed store: no error")
		}
	})
}

func TestRuntime_Close(t *testing.T) {
	e := newEnv(t, Options{})
	x := e.exec("echo a\nspin", ExecOptions{})
	if _, err := x.Events(0).Next(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := e.r.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-x.Done():
	default:
		t.Fatal("Close returned before the execution ended")
	}
	res, err := e.r.Get(ctx(t), x.ID())
	if err != nil || res.Status != StatusFailed || res.Error != ErrStopped.Error() || res.Stdout != "a\n" {
		t.Fatalf("after Close: %+v %v", res, err)
	}
	if _, err := e.r.Exec(ctx(t), "echo", ExecOptions{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Exec after Close: %v", err)
	}
}

func TestExecution_env(t *testing.T) {
	t.Setenv("DESK_RUN_TEST_SECRET", "host secret")
	e := newEnv(t, Options{})
	res := e.run("env", ExecOptions{ID: "envy", Env: map[string]string{"FOO": "bar", "PATH": "/opt/bin", "DESK_EXEC_ID": "spoof"}})
	want := "DESK_EXEC_ID=envy\nFOO=bar\nHOME=/workspace\nLANG=C.UTF-8\nPATH=/opt/bin\nTERM=dumb\n"
	if res.Stdout != want {
		t.Fatalf("env:\n%s\nwant:\n%s", res.Stdout, want)
	}
	// Options.Env replaces the defaults.
	r, err := Open(ctx(t), e.fs, map[string]Backend{"mini": e.m}, Options{DefaultBackend: "mini", Env: map[string]string{"ONLY": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	x, err := r.Exec(ctx(t), "env", ExecOptions{ID: "envz"})
	if err != nil {
		t.Fatal(err)
	}
	res, _ = x.Wait(ctx(t))
	if res.Stdout != "DESK_EXEC_ID=envz\nONLY=1\n" {
		t.Fatalf("env with Options.Env:\n%s", res.Stdout)
	}
}

func TestExecution_stdinInputCwd(t *testing.T) {
	e := newEnv(t, Options{MaxStdinBytes: 8})
	for _, tc := range []struct {
		name, src string
		o         ExecOptions
		status    Status
		stdout    string
	}{
		{"stdin", "cat", ExecOptions{Stdin: strings.NewReader("12345678")}, StatusCompleted, "12345678"},
		{"stdin too large", "cat", ExecOptions{Stdin: strings.NewReader("123456789")}, StatusFailed, "12345678"},
		{"no stdin", "cat", ExecOptions{}, StatusCompleted, ""},
		{"input", "input", ExecOptions{Input: json.RawMessage(`{"k": 1}`)}, StatusCompleted, `{"k": 1}`},
		{"cwd", "cwd", ExecOptions{Cwd: "/a/../b//c/"}, StatusCompleted, "/b/c\n"},
		{"default cwd", "cwd", ExecOptions{}, StatusCompleted, "/workspace\n"},
		{"relative cwd", "cwd", ExecOptions{Cwd: "src/./lib/"}, StatusCompleted, "/workspace/src/lib\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.run(tc.src, tc.o)
			if res.Status != tc.status || res.Stdout != tc.stdout {
				t.Fatalf("got %s %q %q", res.Status, res.Stdout, res.Error)
			}
		})
	}
}

func TestRuntime_Dispose(t *testing.T) {
	e := newEnv(t, Options{})
	x := e.exec("lines 500\nwait g", ExecOptions{ID: "d", OutputLimit: 1024})
	if err := e.r.Dispose(ctx(t), "d"); !errors.Is(err, ErrRunning) {
		t.Fatalf("Dispose running: %v", err)
	}
	e.m.open("g")
	x.Wait(ctx(t))
	if err := e.r.Dispose(ctx(t), "d"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.Get(ctx(t), "d"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get disposed: %v", err)
	}
	for _, k := range []string{kindExec, kindTail, kindLive} {
		if ents, _ := e.fs.Records().ReadLog(ctx(t), k, "d", 0, 0); len(ents) != 0 {
			t.Fatalf("log %s left", k)
		}
	}
	if err := e.r.Dispose(ctx(t), "d"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Dispose twice: %v", err)
	}
	// The id is free again.
	if res := e.run("echo again", ExecOptions{ID: "d"}); res.Stdout != "again\n" || res.Events != 2 {
		t.Fatalf("reused id: %+v", res)
	}
}

func TestExecution_flush(t *testing.T) {
	// Output is durable before the execution ends, in batches.
	e := newEnv(t, Options{FlushInterval: time.Hour, FlushBytes: 4096})
	x := e.exec("lines 100\nwait g", ExecOptions{ID: "f"})
	s := x.Events(0)
	for range 100 {
		s.Next(ctx(t))
	}
	// 800 bytes + per-event cost < 4096 and the interval is an hour: nothing stored yet.
	if ents, _ := e.fs.Records().ReadLog(ctx(t), kindExec, "f", 0, 0); len(ents) != 0 {
		t.Fatalf("%d entries stored before a flush was due", len(ents))
	}
	x2 := e.exec("lines 1000\nwait g2", ExecOptions{ID: "f2"})
	s = x2.Events(0)
	for range 1000 {
		s.Next(ctx(t))
	}
	poll(t, "f2's log in the store", func() bool {
		ents, _ := e.fs.Records().ReadLog(ctx(t), kindExec, "f2", 0, 0)
		return len(ents) >= 1000*(8+eventCost)/4096-1
	})
	e.m.open("g")
	e.m.open("g2")
	x.Wait(ctx(t))
	x2.Wait(ctx(t))
	if ents, _ := e.fs.Records().ReadLog(ctx(t), kindExec, "f", 0, 0); len(ents) != 100 {
		t.Fatalf("%d entries stored at exit, want 100", len(ents))
	}
}

func TestEvent_encoding(t *testing.T) {
	now := time.Unix(1700000000, 123456789)
	for _, ev := range []Event{
		{Seq: 1, Time: now, Type: EventStdout, Data: []byte("hello\x00\xff"), StdoutOffset: 0, StderrOffset: 5},
		{Seq: 1 << 40, Time: now, Type: EventStderr, Data: []byte{}, StdoutOffset: 1 << 50, StderrOffset: 3},
		{Seq: 9, Time: now, Type: EventExit, StdoutOffset: 4, StderrOffset: 5, Exit: &Exit{Status: StatusCancelled, ExitCode: 137, Signal: "SIGKILL", Error: "x"}},
	} {
		got, err := decodeEvent(encodeEvent(&ev))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Time.Equal(ev.Time) || !equalJSON(got, Event{Seq: ev.Seq, Time: got.Time, Type: ev.Type, Data: ev.Data, StdoutOffset: ev.StdoutOffset, StderrOffset: ev.StderrOffset, Exit: ev.Exit}) {
			t.Fatalf("round trip %+v → %+v", ev, got)
		}
	}
	for _, bad := range [][]byte{nil, {1}, {2, 1}, {1, 9}, {1, 1, 0x80}, {1, 3, 1, 1, 1, 1, '{'}} {
		if _, err := decodeEvent(bad); err == nil {
			t.Errorf("decodeEvent(%v): no error", bad)
		}
	}
}

func TestNewID(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := ""
	seen := map[string]bool{}
	for i := range 100 {
		id := newID(t0.Add(time.Duration(i) * time.Millisecond))
		if len(id) != 26 || !ValidID(id) || id <= prev || seen[id] {
			t.Fatalf("id %q after %q", id, prev)
		}
		seen[id] = true
		prev = id
	}
}

// A live reader whose next events were evicted from the tail gets one marker
// for exactly what it missed, then the kept tail.
func TestExecution_Events_evicted(t *testing.T) {
	e := newEnv(t, Options{})
	// 2048 bytes: 25 events of 8+32 in the head (1..25), 25 in the tail.
	x := e.exec("lines 50\nwait g\nlines 3000\nwait h", ExecOptions{OutputLimit: 2048})
	poll(t, "50 events", func() bool { return x.Info().Events >= 50 })
	s := x.Events(0)
	var evs []Event
	for range 50 { // all kept: the head and the tail
		ev, err := s.Next(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	e.m.open("g")
	poll(t, "3050 events", func() bool { return x.Info().Events >= 3050 })
	// A fresh reader from the middle of the elided stretch.
	fresh := x.Events(1000)
	m, err := fresh.Next(ctx(t))
	if err != nil || m.Type != EventElided || m.First > 1000 || m.Seq < 1000 {
		t.Fatalf("fresh reader from 1000: %+v, %v", m, err)
	}
	ev, err := s.Next(ctx(t))
	if err != nil || ev.Type != EventElided || ev.First != 51 || ev.StdoutOffset != 50*8 {
		t.Fatalf("lagging reader: %+v, %v", ev, err)
	}
	if ev.Seq != m.Seq {
		t.Fatalf("markers end at %d and %d", ev.Seq, m.Seq)
	}
	evs = append(evs, ev)
	e.m.open("h")
	evs = append(evs, drain(t, s)...)
	res, err := x.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	checkEvents(t, evs, 1, res.Info)
	// The live reader saw what a replay from the store shows, from the marker on.
	stored := drain(t, mustAttach(t, e.r, x.ID(), 51))
	if !equalJSON(stripTimes(stored[1:]), stripTimes(evs[51:])) {
		t.Fatalf("live and stored tails differ")
	}
}

func stripTimes(evs []Event) []Event {
	out := slices.Clone(evs)
	for i := range out {
		out[i].Time = time.Time{}
	}
	return out
}

// TestExec_AutoRouting: "auto" asks the Router, the result says which backend
// ran and why, and a Router error or a missing Router is a clear error.
func TestExec_AutoRouting(t *testing.T) {
	ctx := context.Background()
	f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	router := func(source string, backends []string) (string, string, error) {
		if strings.Contains(source, "npm") {
			return "", "", fmt.Errorf("npm: not a command of any configured backend (%s)", strings.Join(backends, ", "))
		}
		return "mini", "every command is one mini has", nil
	}
	rt, err := Open(ctx, f, map[string]Backend{"mini": newMini()}, Options{Router: router})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	ex, err := rt.Exec(ctx, "echo hi", ExecOptions{Backend: AutoBackend})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "mini" || res.Requested != AutoBackend || res.Route != "every command is one mini has" {
		t.Fatalf("routed result: backend %q requested %q route %q", res.Backend, res.Requested, res.Route)
	}
	if _, err := rt.Exec(ctx, "npm install", ExecOptions{Backend: AutoBackend}); err == nil || !strings.Contains(err.Error(), "npm: not a command") {
		t.Fatalf("router error: %v", err)
	}
	rt2, err := Open(ctx, f, map[string]Backend{"mini": newMini()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt2.Close()
	if _, err := rt2.Exec(ctx, "echo", ExecOptions{Backend: AutoBackend}); !errors.Is(err, ErrUnknownBackend) {
		t.Fatalf("auto without a router: %v", err)
	}
}

// TestRuntime_retentionSlack: past MaxRecords the oldest are pruned down to
// MaxRecords less a tenth, so that the next executions add records without
// pruning commits.
func TestRuntime_retentionSlack(t *testing.T) {
	e := newEnv(t, Options{MaxRecords: 20})
	var ids []string
	for i := range 21 {
		ids = append(ids, e.run(fmt.Sprintf("echo %d", i), ExecOptions{}).ID)
	}
	count := func() int {
		t.Helper()
		list, err := e.r.List(ctx(t), ListOptions{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	if n := count(); n != 18 {
		t.Fatalf("after 21 executions with MaxRecords 20: %d kept, want 18", n)
	}
	if _, err := e.r.Get(ctx(t), ids[2]); !errors.Is(err, ErrNotFound) {
		t.Errorf("the third oldest: %v, want pruned", err)
	}
	if _, err := e.r.Get(ctx(t), ids[3]); err != nil {
		t.Errorf("the fourth oldest: %v, want kept", err)
	}
	e.run("echo more", ExecOptions{})
	e.run("echo more", ExecOptions{})
	if n := count(); n != 20 {
		t.Fatalf("two more: %d kept, want 20 (no prune below the limit)", n)
	}
}

// poll waits until cond holds, checking every millisecond, and fails after
// 30 s (a hang guard). Use it only where nothing signals the state: a log
// the runtime flushes to the store on its own schedule, an event count read
// without consuming the events.
func poll(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s (hang guard)", what)
		}
	}
}

// TestRuntime_Admit: Options.Admit is asked with the chosen backend before
// each start; its refusal is Exec's error and takes no slot; what it
// admitted is released once the execution has ended and its backend has
// returned — before Wait returns, and not before an abandoned backend
// returns.
func TestRuntime_Admit(t *testing.T) {
	refuse := errors.New("refused by the test")
	var mu sync.Mutex
	var asked []Admission
	held := 0
	released := make(chan struct{}, 16)
	admit := func(_ context.Context, a Admission) (func(), error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, a)
		if a.Backend == "b" {
			return nil, refuse
		}
		held++
		return func() { mu.Lock(); held--; mu.Unlock(); released <- struct{}{} }, nil
	}
	heldNow := func() int { mu.Lock(); defer mu.Unlock(); return held }
	e := newEnv(t, Options{Admit: admit, KillGrace: time.Millisecond, MaxRunning: 1})
	if res := e.run("echo ok", ExecOptions{}); res.Status != StatusCompleted || heldNow() != 0 {
		t.Fatalf("%s, held %d after Wait", res.Status, heldNow())
	}
	if _, err := e.r.Exec(ctx(t), "echo", ExecOptions{Backend: "b"}); !errors.Is(err, refuse) {
		t.Fatalf("refused: %v", err)
	}
	if e.r.Running() != 0 || heldNow() != 0 {
		t.Fatalf("a refusal took a slot: %d running, %d held", e.r.Running(), heldNow())
	}
	// An admitted execution refused by the runtime itself gives back.
	x := e.exec("wait g", ExecOptions{})
	if _, err := e.r.Exec(ctx(t), "echo", ExecOptions{}); !errors.Is(err, ErrBusy) || heldNow() != 1 {
		t.Fatalf("busy: %v, held %d", err, heldNow())
	}
	e.m.open("g")
	x.Wait(ctx(t))
	if heldNow() != 0 {
		t.Fatalf("held %d after the end", heldNow())
	}
	// A backend abandoned after KillGrace keeps its admission until it
	// returns.
	x = e.exec("hang h", ExecOptions{})
	x.Kill(SIGKILL)
	for len(released) > 0 {
		<-released
	}
	if res, _ := x.Wait(ctx(t)); !strings.Contains(res.Error, "abandoned") || heldNow() != 1 {
		t.Fatalf("abandoned: %q, held %d", res.Error, heldNow())
	}
	e.m.open("h")
	select {
	case <-released:
	case <-time.After(20 * time.Second): // hang guard
		t.Fatal("the abandoned backend's admission was never released")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 5 || asked[0] != (Admission{Backend: "mini"}) || asked[1].Backend != "b" {
		t.Fatalf("asked %+v", asked)
	}
}
