package worker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/cgroup"
	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/testenv"
)

// TestMain doubles as the worker: the pool under test runs this binary with
// envWorker set.
const envWorker = "DESK_WORKER_TEST_PROCESS"

func TestMain(m *testing.M) {
	if os.Getenv(envWorker) == "1" {
		os.Exit(testWorker())
	}
	os.Exit(m.Run())
}

// hogged keeps what POST /hog allocates.
var hogged [][]byte

// testWorker is a worker whose handler does what the tests ask:
//
//	GET /pid         its pid
//	GET /recovered   its --recovered flag
//	GET /block       answers when the request ends
//	POST /busy       the workspace counts as in use from now on
//	POST /hibernate  reports itself hibernated (offers to exit)
//	POST /crash      dies with SIGKILL
//	POST /hog        allocates without end
//	GET /upgrade     switches protocols and echoes lines
//	POST /slot?kind=K[&reclaimable=1]  takes a host-wide slot (the error: 429)
//	POST /slot/cycle?kind=K  takes a host-wide slot and gives it back
//	POST /slot/idle  marks its reclaimable slots idle
//	GET /slots       how many slots it holds (a reclaimed one gives itself back)
func testWorker() int {
	hello, ctl, err := ReadHello(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	as, err := ctl.Assignment()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sock, recovered := &as.Socket, &as.Recovered
	var busy atomic.Bool
	var srv *Server
	slots := NewSlots([]fair.Kind{fair.JS, fair.Sandbox})
	var smu sync.Mutex
	held := map[fair.Slot]bool{} // value: reclaimable
	mux := http.NewServeMux()
	mux.HandleFunc("POST /slot", func(w http.ResponseWriter, r *http.Request) {
		var sl fair.Slot
		var reclaim func()
		if r.URL.Query().Get("reclaimable") == "1" {
			reclaim = func() {
				smu.Lock()
				delete(held, sl)
				smu.Unlock()
				sl.Release()
			}
		}
		got, err := slots.Acquire(r.Context(), fair.Kind(r.URL.Query().Get("kind")), reclaim)
		if err != nil {
			http.Error(w, err.Error(), http.StatusTooManyRequests)
			return
		}
		smu.Lock()
		sl = got
		held[got] = reclaim != nil
		smu.Unlock()
	})
	mux.HandleFunc("POST /slot/cycle", func(w http.ResponseWriter, r *http.Request) {
		got, err := slots.Acquire(r.Context(), fair.Kind(r.URL.Query().Get("kind")), nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusTooManyRequests)
			return
		}
		got.Release()
	})
	mux.HandleFunc("POST /slot/idle", func(w http.ResponseWriter, r *http.Request) {
		smu.Lock()
		defer smu.Unlock()
		for sl, rec := range held {
			if rec {
				sl.Idle(true)
			}
		}
	})
	mux.HandleFunc("GET /slots", func(w http.ResponseWriter, r *http.Request) {
		smu.Lock()
		defer smu.Unlock()
		fmt.Fprint(w, len(held))
	})
	mux.HandleFunc("GET /pid", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, os.Getpid()) })
	mux.HandleFunc("GET /recovered", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, *recovered) })
	mux.HandleFunc("GET /block", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("POST /busy", func(w http.ResponseWriter, r *http.Request) { busy.Store(true) })
	mux.HandleFunc("POST /hibernate", func(w http.ResponseWriter, r *http.Request) { srv.Hibernated() })
	mux.HandleFunc("POST /crash", func(w http.ResponseWriter, r *http.Request) {
		p, _ := os.FindProcess(os.Getpid())
		p.Kill()
	})
	mux.HandleFunc("POST /hog", func(w http.ResponseWriter, r *http.Request) {
		for {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = 1
			}
			hogged = append(hogged, b)
		}
	})
	mux.HandleFunc("GET /upgrade", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", "echo")
		w.WriteHeader(http.StatusSwitchingProtocols)
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		for {
			line, err := rw.ReadString('\n')
			if err != nil {
				return
			}
			rw.WriteString("echo " + line)
			rw.Flush()
		}
	})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !CheckKey(r, hello.Key) {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
	srv = NewServer(ServeOptions{Socket: *sock, Server: &http.Server{Handler: h}, Control: ctl, Report: os.Stdout, Slots: slots,
		Idle: func() bool { return !busy.Load() }, Close: func() error { return nil }})
	if err := srv.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// exits collects the pool's OnExit calls.
type exits struct{ ch chan string }

func (x exits) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-x.ch:
		return s
	case <-time.After(30 * time.Second):
		t.Fatal("no worker exit within the hang guard")
		return ""
	}
}

func newPool(t *testing.T, mod func(*Options)) (*Pool, exits) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	x := exits{ch: make(chan string, 16)}
	o := Options{
		Command: func() *exec.Cmd {
			cmd := exec.Command(self)
			cmd.Env = append(os.Environ(), envWorker+"=1")
			return cmd
		},
		SocketDir: t.TempDir(),
		Logger:    slog.New(slog.DiscardHandler),
		OnExit: func(ws string, crashed bool, why string) {
			x.ch <- fmt.Sprintf("%s crashed=%v %s", ws, crashed, why)
		},
	}
	if mod != nil {
		mod(&o)
	}
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		p.Close(ctx)
	})
	return p, x
}

// do sends one request to ws's worker and returns the body.
func do(t *testing.T, p *Pool, ws, method, path string) (string, error) {
	t.Helper()
	req, _ := http.NewRequest(method, path, nil)
	res, err := p.Transport(ws).RoundTrip(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return string(b), fmt.Errorf("status %d: %s", res.StatusCode, b)
	}
	return string(b), err
}

func must(t *testing.T, p *Pool, ws, method, path string) string {
	t.Helper()
	s, err := do(t, p, ws, method, path)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return s
}

func TestPool_OneWorkerForConcurrentRequests(t *testing.T) {
	p, _ := newPool(t, nil)
	var wg sync.WaitGroup
	pids := make([]string, 20)
	for i := range pids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pids[i], _ = do(t, p, "a", "GET", "/pid")
		}()
	}
	wg.Wait()
	for _, pid := range pids {
		if pid != pids[0] || pid == "" {
			t.Fatalf("pids %v: want one worker", pids)
		}
	}
	if s := p.Stats(); s.Starts != 1 || s.Live != 1 {
		t.Errorf("stats %+v, want one start, one live", s)
	}
	if other := must(t, p, "b", "GET", "/pid"); other == pids[0] {
		t.Error("two workspaces share a worker")
	}
}

func TestPool_IdleWorkerExits(t *testing.T) {
	p, x := newPool(t, nil)
	first := must(t, p, "a", "GET", "/pid")
	// The offer arrives while its own request is in flight: the pool asks
	// once that request is done.
	must(t, p, "a", "POST", "/hibernate")
	if got := x.next(t); got != "a crashed=false idle" {
		t.Fatalf("exit: %q", got)
	}
	if s := p.Stats(); s.Live != 0 || s.Exits != 1 {
		t.Errorf("stats %+v after the idle exit", s)
	}
	if again := must(t, p, "a", "GET", "/pid"); again == first {
		t.Error("the exited worker answered")
	}
}

func TestPool_IdleOfferWaitsForRequestsInFlight(t *testing.T) {
	p, x := newPool(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", "/block", nil)
	res, err := p.Transport("a").RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	must(t, p, "a", "POST", "/hibernate")
	// The blocked request holds the worker, whenever the offer arrives.
	if s := p.Stats(); s.Live != 1 || s.Exits != 0 {
		t.Fatalf("stats %+v while a request is in flight", s)
	}
	cancel()
	res.Body.Close()
	if got := x.next(t); got != "a crashed=false idle" {
		t.Fatalf("exit: %q", got)
	}
}

func TestPool_BusyWorkerRefusesIdleExit(t *testing.T) {
	p, x := newPool(t, nil)
	must(t, p, "a", "POST", "/busy")
	pid := must(t, p, "a", "GET", "/pid")
	must(t, p, "a", "POST", "/hibernate")
	// The worker answers "busy" to the pool's exit: the next request goes to
	// the same worker (it may wait for that answer, never for a new worker).
	if again := must(t, p, "a", "GET", "/pid"); again != pid {
		t.Fatalf("a busy worker was replaced: %s then %s", pid, again)
	}
	select {
	case e := <-x.ch:
		t.Fatalf("a busy worker exited: %s", e)
	default:
	}
}

func TestPool_CrashIsReportedAndTheNextWorkerLearnsWhy(t *testing.T) {
	p, x := newPool(t, nil)
	first := must(t, p, "a", "GET", "/pid")
	_, err := do(t, p, "a", "POST", "/crash")
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "signal: killed") {
		t.Fatalf("request to a dying worker: %v, want ErrExited saying it was killed", err)
	}
	if got := x.next(t); !strings.HasPrefix(got, "a crashed=true the workspace's worker died (signal: killed)") {
		t.Fatalf("exit: %q", got)
	}
	if got := must(t, p, "a", "GET", "/recovered"); got != "the workspace's worker died (signal: killed)" {
		t.Errorf("the next worker's --recovered: %q", got)
	}
	if again := must(t, p, "a", "GET", "/pid"); again == first {
		t.Error("the dead worker answered")
	}
	if s := p.Stats(); s.Crashes != 1 || s.Starts != 2 {
		t.Errorf("stats %+v", s)
	}
}

func TestPool_StopRefusesInFlightThenStops(t *testing.T) {
	p, x := newPool(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", "/block", nil)
	res, err := p.Transport("a").RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(context.Background(), "a"); !errors.Is(err, ErrInUse) {
		t.Fatalf("Stop with a request in flight: %v", err)
	}
	cancel()
	res.Body.Close()
	if err := p.Stop(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if got := x.next(t); got != "a crashed=false stop" {
		t.Fatalf("exit: %q", got)
	}
	if err := p.Stop(context.Background(), "nothing"); err != nil {
		t.Errorf("Stop of a workspace without a worker: %v", err)
	}
}

func TestPool_MaxWorkers(t *testing.T) {
	p, _ := newPool(t, func(o *Options) { o.MaxWorkers = 1 })
	must(t, p, "a", "GET", "/pid")
	if _, err := do(t, p, "b", "GET", "/pid"); !errors.Is(err, ErrTooMany) {
		t.Fatalf("a second worker past MaxWorkers 1: %v", err)
	}
}

func TestPool_CloseStopsEveryWorker(t *testing.T) {
	p, x := newPool(t, nil)
	pids := []string{must(t, p, "a", "GET", "/pid"), must(t, p, "b", "GET", "/pid")}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range pids {
		if got := x.next(t); !strings.HasSuffix(got, "crashed=false stop") {
			t.Errorf("exit: %q", got)
		}
	}
	for _, s := range pids {
		pid, _ := strconv.Atoi(s)
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			t.Errorf("worker %d still runs after Close", pid)
		}
	}
	if _, err := do(t, p, "a", "GET", "/pid"); !errors.Is(err, ErrClosed) {
		t.Errorf("a request after Close: %v", err)
	}
}

// A worker whose parent dies (its stdin ends) exits by itself.
func TestServe_ExitsWhenTheParentGoes(t *testing.T) {
	self, _ := os.Executable()
	sock := t.TempDir() + "/w.sock"
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), envWorker+"=1")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	send(in, message{Key: "k"})
	send(in, message{Assign: &Assign{Workspace: "a", Socket: sock}})
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || !strings.Contains(line, "ready") {
		t.Fatalf("no ready: %q %v", line, err)
	}
	// Without the key, the worker refuses.
	hc := &http.Client{Transport: newTransport(sock)}
	res, err := hc.Get("http://worker/pid")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without the key: %d", res.StatusCode)
	}
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("worker exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the worker did not exit when its stdin ended (hang guard)")
	}
}

func TestProxy_UpgradeAndErrors(t *testing.T) {
	p, _ := newPool(t, nil)
	var proxyErr atomic.Value
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.Proxy(w, r, "a", func(w http.ResponseWriter, r *http.Request, err error) {
			proxyErr.Store(err.Error())
			http.Error(w, err.Error(), http.StatusBadGateway)
		})
	}))
	defer ts.Close()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /upgrade HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade through the proxy: %v %v", res, err)
	}
	fmt.Fprintf(conn, "hello\n")
	if line, err := br.ReadString('\n'); err != nil || line != "echo hello\n" {
		t.Fatalf("echo over the upgraded connection: %q %v", line, err)
	}
	// While upgraded, the worker is busy: Stop refuses.
	if err := p.Stop(context.Background(), "a"); !errors.Is(err, ErrInUse) {
		t.Errorf("Stop during an upgraded connection: %v", err)
	}
	conn.Close()
	res2, err := http.Post(ts.URL+"/crash", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res2.Body.Close()
	if res2.StatusCode != http.StatusBadGateway {
		t.Errorf("a request whose worker died: %d", res2.StatusCode)
	}
	if e, _ := proxyErr.Load().(string); !strings.Contains(e, "signal: killed") {
		t.Errorf("proxy error %q", e)
	}
}

func TestPool_OOMKillInTheWorkersCgroup(t *testing.T) {
	testenv.NeedRoot(t)
	p, x := newPool(t, func(o *Options) {
		o.Cgroups = true
		o.Limits = cgroup.Limits{MemoryBytes: 64 << 20, Pids: 256}
	})
	must(t, p, "a", "GET", "/pid")
	_, err := do(t, p, "a", "POST", "/hog")
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "OOM killer (memory limit 64 MiB)") {
		t.Fatalf("hog: %v", err)
	}
	if got := x.next(t); !strings.Contains(got, "crashed=true") {
		t.Fatalf("exit: %q", got)
	}
	if s := p.Stats(); s.OOMKills != 1 {
		t.Errorf("stats %+v, want one OOM kill", s)
	}
	// The other workspaces, and the next worker of this one, are fine.
	must(t, p, "b", "GET", "/pid")
	must(t, p, "a", "GET", "/pid")
}

// BenchmarkPool_RoundTrip is one request to a live worker through the pool
// (the hop's own cost, without the API on either side).
func BenchmarkPool_RoundTrip(b *testing.B) {
	self, _ := os.Executable()
	p, err := New(Options{
		Command: func() *exec.Cmd {
			cmd := exec.Command(self)
			cmd.Env = append(os.Environ(), envWorker+"=1")
			return cmd
		},
		SocketDir: b.TempDir(), Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	rt := p.Transport("a")
	get := func() {
		req, _ := http.NewRequest("GET", "/pid", nil)
		res, err := rt.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	get()
	for b.Loop() {
		get()
	}
}

func TestPool_SpareServesTheNextWorkspace(t *testing.T) {
	spares := make(chan int, 4)
	p, _ := newPool(t, func(o *Options) {
		o.Spare = true
		o.onSpare = func(pid int) { spares <- pid }
	})
	next := func() int {
		select {
		case pid := <-spares:
			return pid
		case <-time.After(30 * time.Second):
			t.Fatal("no spare within the hang guard")
			return 0
		}
	}
	first := next()
	if got := must(t, p, "a", "GET", "/pid"); got != strconv.Itoa(first) {
		t.Fatalf("a is served by %s, not the spare %d", got, first)
	}
	// A spare that died waiting is replaced by a fresh start.
	second := next()
	syscall.Kill(second, syscall.SIGKILL)
	got := must(t, p, "b", "GET", "/pid")
	if got == strconv.Itoa(second) || got == strconv.Itoa(first) {
		t.Fatalf("b is served by %s (spares %d, %d)", got, first, second)
	}
}

// TestPool_HostSlots: workers take host-wide slots from the pool over
// their control channels; one at the bound is refused with the bound's
// setting while the slots of another kind are still given; a worker killed
// while it holds slots gives them back; an idle reclaimable slot of one
// worker is reclaimed for another.
func TestPool_HostSlots(t *testing.T) {
	slots := fair.NewPool(fair.PoolOptions{Limits: map[fair.Kind]fair.Bound{
		fair.JS: {Max: 2, Setting: "--max-js"}, fair.Sandbox: {Max: 1, Setting: "--max-sandboxes"}}})
	p, x := newPool(t, func(o *Options) { o.Slots = slots })
	must(t, p, "a", "POST", "/slot?kind=js")
	must(t, p, "a", "POST", "/slot?kind=js")
	_, err := do(t, p, "b", "POST", "/slot?kind=js")
	if err == nil || !strings.Contains(err.Error(), "the server holds 2 of its 2 running js executions, across all workspaces (--max-js)") {
		t.Fatalf("b past the bound: %v", err)
	}
	must(t, p, "b", "POST", "/slot?kind=sandbox&reclaimable=1") // another kind: its own bound
	if n := slots.Held(fair.JS); n != 2 {
		t.Fatalf("%d js slots held", n)
	}
	// a dies holding two: they come back.
	do(t, p, "a", "POST", "/crash")
	if got := x.next(t); !strings.HasPrefix(got, "a crashed=true") {
		t.Fatalf("exit: %q", got)
	}
	if n := slots.Held(fair.JS); n != 0 {
		t.Fatalf("%d js slots held after a died", n)
	}
	must(t, p, "b", "POST", "/slot?kind=js")
	// b's sandbox slot is reclaimable: busy, c is refused; idle, it is
	// reclaimed for c.
	_, err = do(t, p, "c", "POST", "/slot?kind=sandbox&reclaimable=1")
	if err == nil || !strings.Contains(err.Error(), "the server holds 1 of its 1 live sandboxes, across all workspaces (--max-sandboxes)") {
		t.Fatalf("c with b's sandbox busy: %v", err)
	}
	must(t, p, "b", "POST", "/slot/idle")
	waitFor(t, "b's idle mark to reach the pool", func() bool { return slots.Counts(fair.Sandbox).Idle == 1 })
	must(t, p, "c", "POST", "/slot?kind=sandbox&reclaimable=1")
	if n := must(t, p, "b", "GET", "/slots"); n != "1" {
		t.Fatalf("b holds %s slots after the reclaim, want its js one", n)
	}
	if n := slots.Held(fair.Sandbox); n != 1 {
		t.Fatalf("%d sandbox slots held", n)
	}
}

// waitFor checks cond until it holds; past 30s (a hang guard, not a
// timing assertion) the test fails.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("waited 30s (hang guard) for %s", what)
		}
	}
}

// BenchmarkSlotRoundTrip measures what a host-wide slot costs a worker: a
// request that takes a slot from the pool over the control channel and
// gives it back, against the same request without (slot-ns: the
// difference, the price of starting a bounded thing).
func BenchmarkSlotRoundTrip(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	p, err := New(Options{
		Command: func() *exec.Cmd {
			cmd := exec.Command(self)
			cmd.Env = append(os.Environ(), envWorker+"=1")
			return cmd
		},
		SocketDir: b.TempDir(),
		Logger:    slog.New(slog.DiscardHandler),
		Slots:     fair.NewPool(fair.PoolOptions{Limits: map[fair.Kind]fair.Bound{fair.JS: {Max: 1 << 20}}}),
	})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	req := func(b *testing.B, method, path string) {
		r, _ := http.NewRequest(method, path, nil)
		res, err := p.Transport("a").RoundTrip(r)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("%s %s: %d", method, path, res.StatusCode)
		}
	}
	var plain float64
	b.Run("plain", func(b *testing.B) {
		req(b, "GET", "/pid")
		for b.Loop() {
			req(b, "GET", "/pid")
		}
		plain = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("slot", func(b *testing.B) {
		req(b, "POST", "/slot/cycle?kind=js")
		for b.Loop() {
			req(b, "POST", "/slot/cycle?kind=js")
		}
		if plain > 0 {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)-plain, "slot-ns")
		}
	})
}

func TestPool_RemovesDeadServersGroups(t *testing.T) {
	testenv.NeedRoot(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone, err := cgroup.New(groupName(dead.Process.Pid, 1), cgroup.Limits{Pids: 8})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := cgroup.New(groupName(os.Getpid(), 1), cgroup.Limits{Pids: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Remove()
	newPool(t, func(o *Options) { o.Cgroups = true })
	for _, d := range gone.Dirs() {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("a dead server's worker group %s is left", d)
		}
	}
	for _, d := range kept.Dirs() {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("a live server's worker group went: %v", err)
		}
	}
}
