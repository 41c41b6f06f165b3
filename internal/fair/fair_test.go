package fair

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// owner is a test Owner: it records reclaims and can answer them.
type owner struct {
	mu     sync.Mutex
	asked  []uint64
	signal chan uint64
}

func newOwner() *owner { return &owner{signal: make(chan uint64, 16)} }

func (o *owner) Reclaim(id uint64) {
	o.mu.Lock()
	o.asked = append(o.asked, id)
	o.mu.Unlock()
	o.signal <- id
}

// take is Take with its answer, waiting (hang guard) when it comes later.
func take(t *testing.T, p *Pool, o Owner, k Kind, reclaimable bool) (chan answer, func() answer) {
	t.Helper()
	c := make(chan answer, 1)
	p.Take(o, k, reclaimable, func(id uint64, err error) { c <- answer{id, err} })
	return c, func() answer {
		t.Helper()
		select {
		case a := <-c:
			return a
		case <-time.After(time.Minute):
			t.Fatal("no answer within a minute (hang guard)")
			return answer{}
		}
	}
}

func TestPool_BoundAndRelease(t *testing.T) {
	p := NewPool(PoolOptions{Limits: map[Kind]Bound{JS: {Max: 2, Setting: "--max-js"}}})
	a, b := newOwner(), newOwner()
	_, w := take(t, p, a, JS, false)
	s1 := w()
	_, w = take(t, p, b, JS, false)
	s2 := w()
	if s1.err != nil || s2.err != nil || s1.id == s2.id {
		t.Fatalf("grants: %+v %+v", s1, s2)
	}
	_, w = take(t, p, b, JS, false)
	r := w()
	var le *LimitError
	if !errors.As(r.err, &le) || !errors.Is(r.err, ErrTooMany) || le.Scope != ScopeHost || le.Held != 2 || le.Max != 2 {
		t.Fatalf("third: %+v", r)
	}
	if want := "the server holds 2 of its 2 running js executions, across all workspaces (--max-js)"; r.err.Error() != want {
		t.Errorf("message %q, want %q", r.err, want)
	}
	// Another owner's id releases nothing.
	p.Release(b, s1.id)
	if p.Held(JS) != 2 {
		t.Fatalf("held %d after a release by the wrong owner", p.Held(JS))
	}
	p.Release(a, s1.id)
	p.Release(a, s1.id) // twice: ignored
	if p.Held(JS) != 1 {
		t.Fatalf("held %d after one release", p.Held(JS))
	}
	if _, w = take(t, p, b, JS, false); w().err != nil {
		t.Fatal("no slot after a release")
	}
	// Unbounded kinds are granted and counted.
	for range 100 {
		if _, w = take(t, p, a, Exec, false); w().err != nil {
			t.Fatal("an unbounded kind refused")
		}
	}
	if p.Held(Exec) != 100 || p.Bounds(Exec) || !p.Bounds(JS) {
		t.Fatalf("held %d, bounds %v %v", p.Held(Exec), p.Bounds(Exec), p.Bounds(JS))
	}
}

func TestPool_DropReleasesAndServesWaiters(t *testing.T) {
	p := NewPool(PoolOptions{Limits: map[Kind]Bound{Sandbox: {Max: 1}, Service: {Max: 3}}})
	dead, other := newOwner(), newOwner()
	_, w := take(t, p, dead, Sandbox, true)
	sb := w()
	for range 3 {
		if _, w = take(t, p, dead, Service, false); w().err != nil {
			t.Fatal("service refused")
		}
	}
	p.Idle(dead, sb.id, true)
	// other waits for the idle sandbox; the dead owner never answers the
	// reclaim, but dropping it serves the waiter.
	c, w := take(t, p, other, Sandbox, true)
	select {
	case id := <-dead.signal:
		if id != sb.id {
			t.Fatalf("reclaim of %d, want %d", id, sb.id)
		}
	case <-time.After(time.Minute):
		t.Fatal("no reclaim (hang guard)")
	}
	select {
	case a := <-c:
		t.Fatalf("answered before the slot came back: %+v", a)
	default:
	}
	if n := p.Drop(dead); n != 4 {
		t.Fatalf("Drop released %d, want 4", n)
	}
	if a := w(); a.err != nil {
		t.Fatalf("the waiter: %v", a.err)
	}
	if p.Held(Service) != 0 || p.Held(Sandbox) != 1 {
		t.Fatalf("held %d services, %d sandboxes", p.Held(Service), p.Held(Sandbox))
	}
}

func TestPool_ReclaimIdle(t *testing.T) {
	p := NewPool(PoolOptions{Limits: map[Kind]Bound{Sandbox: {Max: 2, Setting: "--max-sandboxes"}}})
	a, b, c := newOwner(), newOwner(), newOwner()
	_, w := take(t, p, a, Sandbox, true)
	sa := w()
	_, w = take(t, p, b, Sandbox, true)
	sb := w()
	// Busy sandboxes: refused at once.
	_, w = take(t, p, c, Sandbox, true)
	if r := w(); !errors.Is(r.err, ErrTooMany) {
		t.Fatalf("with both busy: %+v", r)
	}
	// b idle first, then a: b is the least recently idle.
	p.Idle(b, sb.id, true)
	p.Idle(a, sa.id, true)
	ch, w := take(t, p, c, Sandbox, true)
	if id := <-b.signal; id != sb.id {
		t.Fatalf("reclaim %d, want b's %d", id, sb.id)
	}
	// b is busy after all: the request moves on to a.
	p.Idle(b, sb.id, false)
	if id := <-a.signal; id != sa.id {
		t.Fatalf("reclaim %d, want a's %d", id, sa.id)
	}
	select {
	case r := <-ch:
		t.Fatalf("answered early: %+v", r)
	default:
	}
	p.Release(a, sa.id)
	if r := w(); r.err != nil {
		t.Fatalf("after a gave its slot back: %v", r.err)
	}
	// With b busy and a gone, the next one is refused; when b declines the
	// last candidate, the request is refused.
	p.Idle(b, sb.id, true)
	_, w = take(t, p, a, Sandbox, true)
	<-b.signal
	p.Idle(b, sb.id, false)
	if r := w(); !errors.Is(r.err, ErrTooMany) || !strings.Contains(r.err.Error(), "--max-sandboxes") {
		t.Fatalf("with the only candidate declining: %+v", r)
	}
}

func TestPool_ReclaimWaitExpires(t *testing.T) {
	p := NewPool(PoolOptions{Limits: map[Kind]Bound{Sandbox: {Max: 1}}, ReclaimWait: time.Millisecond})
	a, b := newOwner(), newOwner()
	_, w := take(t, p, a, Sandbox, true)
	s := w()
	p.Idle(a, s.id, true)
	_, w = take(t, p, b, Sandbox, true)
	if r := w(); !errors.Is(r.err, ErrTooMany) {
		t.Fatalf("after the wait: %+v", r)
	}
	// The slot is askable again, and a late release still frees it.
	_, w = take(t, p, b, Sandbox, true)
	<-a.signal
	<-a.signal
	w()
	p.Release(a, s.id)
	if _, w = take(t, p, b, Sandbox, true); w().err != nil || p.Held(Sandbox) != 1 {
		t.Fatalf("held %d", p.Held(Sandbox))
	}
}

func TestLocal_AcquireReclaimCancel(t *testing.T) {
	p := NewPool(PoolOptions{Limits: map[Kind]Bound{Sandbox: {Max: 1}}})
	h := p.Local()
	ctx := context.Background()
	reclaimed := make(chan struct{})
	var s1 Slot
	s1, err := h.Acquire(ctx, Sandbox, func() { s1.Release(); close(reclaimed) })
	if err != nil {
		t.Fatal(err)
	}
	s1.Idle(true)
	s2, err := h.Acquire(ctx, Sandbox, nil)
	if err != nil {
		t.Fatalf("after reclaiming the idle one: %v", err)
	}
	<-reclaimed
	// A cancelled acquire that is granted later gives the slot back.
	s2.Idle(true) // not reclaimable: ignored
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := h.Acquire(cctx, Sandbox, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	s2.Release()
	if p.Held(Sandbox) != 0 {
		t.Fatalf("held %d", p.Held(Sandbox))
	}
}

func TestLedger_Levels(t *testing.T) {
	p := NewPool(PoolOptions{Limits: map[Kind]Bound{Service: {Max: 5, Setting: "--max-services"}}})
	l := NewLedger(Limits{
		Workspace: map[Kind]Bound{Service: {Max: 3, Setting: "--max-services-per-workspace"}, Exec: {Max: 2}},
		Token:     map[Kind]Bound{Service: {Max: 2, Setting: "--max-services-per-token"}},
	}, p.Local())
	ctx := context.Background()
	must := func(ws, tok string, k ...Kind) func() {
		t.Helper()
		rel, err := l.Acquire(ctx, ws, tok, k...)
		if err != nil {
			t.Fatalf("%s %s %v: %v", ws, tok, k, err)
		}
		return rel
	}
	refused := func(ws, tok string, want string, k ...Kind) {
		t.Helper()
		_, err := l.Acquire(ctx, ws, tok, k...)
		if !errors.Is(err, ErrTooMany) || err.Error() != want {
			t.Fatalf("%s %s %v: %v, want %q", ws, tok, k, err, want)
		}
	}
	t1a := must("a", "t1", Service)
	must("a", "t1", Service)
	refused("a", "t1", "token t1 holds 2 of its 2 services in workspace a (--max-services-per-token)", Service)
	// Another token of a still gets the workspace's last one.
	must("a", "t2", Service)
	refused("a", "t2", "workspace a holds 3 of its 3 services (--max-services-per-workspace)", Service)
	// The admin is exempt from token shares, not from the workspace's.
	refused("a", "", "workspace a holds 3 of its 3 services (--max-services-per-workspace)", Service)
	// Another workspace is not refused because of a.
	must("b", "", Service)
	must("b", "", Service)
	// The host-wide bound is shared.
	refused("c", "", "the server holds 5 of its 5 services, across all workspaces (--max-services)", Service)
	if in, by := l.Held("c", "", Service); in != 0 || by != 0 {
		t.Fatalf("a refusal counted: %d %d", in, by)
	}
	t1a()
	t1a() // once only
	if in, by := l.Held("a", "t1", Service); in != 2 || by != 1 || p.Held(Service) != 4 {
		t.Fatalf("after a release: a holds %d, t1 %d, the server %d", in, by, p.Held(Service))
	}
	must("c", "", Service)
	// All or nothing: a refused second kind takes back the first.
	must("d", "", Exec)
	must("d", "", Exec)
	refused("d", "", "workspace d holds 2 of its 2 running executions", Service, Exec)
	if in, _ := l.Held("d", "", Service); in != 0 || p.Held(Service) != 5 {
		t.Fatalf("the refused acquire kept its service: %d, server %d", in, p.Held(Service))
	}
}
