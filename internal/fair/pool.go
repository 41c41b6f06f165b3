package fair

import (
	"context"
	"errors"
	"sync"
	"time"
)

// DefaultReclaimWait bounds how long a request waits for an idle holder
// to give its slot back (PoolOptions.ReclaimWait).
const DefaultReclaimWait = 5 * time.Second // half a sandbox start's bound (sandbox.DefaultStartTimeout)

// ErrGone is the answer to a request of an owner that was dropped (a worker
// that died while it waited).
var ErrGone = errors.New("slot owner gone")

// Owner holds slots of a Pool: a worker process, or a holder in this
// process (Pool.Local).
type Owner interface {
	// Reclaim asks the owner to give back slot id (Pool.Release) if its
	// resource is still idle, or to say it is not (Pool.Idle false). It
	// must not block: the pool calls it outside its lock, on the goroutine
	// that needed the slot.
	Reclaim(id uint64)
}

// PoolOptions configure a Pool.
type PoolOptions struct {
	// Limits bound each kind across the pool's owners; a kind without a
	// bound (or Max 0) is granted at once, and still counted.
	Limits map[Kind]Bound
	// ReclaimWait bounds the wait for a reclaimed slot. Default
	// DefaultReclaimWait (5s).
	ReclaimWait time.Duration
}

// Pool gives out the host-wide slots: counted, per kind, to owners, with
// reclaim of idle ones. See the package documentation.
type Pool struct {
	limits map[Kind]Bound
	wait   time.Duration

	mu      sync.Mutex
	next    uint64
	tick    uint64 // orders idle marks: the least recently idle is reclaimed first
	slots   map[uint64]*slot
	held    map[Kind]int
	pending map[Kind][]*request
}

// slot is a slot held.
type slot struct {
	id          uint64
	kind        Kind
	owner       Owner
	reclaimable bool
	idle        bool
	since       uint64 // tick of the idle mark
	asked       bool   // reclaim was asked for and not yet answered
}

// request is a Take that waits for a reclaimed slot.
type request struct {
	owner       Owner
	kind        Kind
	reclaimable bool
	victim      uint64 // the slot asked to come back for it
	done        func(uint64, error)
	timer       *time.Timer
}

// NewPool returns a pool.
func NewPool(o PoolOptions) *Pool {
	if o.ReclaimWait <= 0 {
		o.ReclaimWait = DefaultReclaimWait
	}
	lim := make(map[Kind]Bound, len(o.Limits))
	for k, b := range o.Limits {
		if b.Max > 0 {
			lim[k] = b
		}
	}
	return &Pool{limits: lim, wait: o.ReclaimWait, slots: map[uint64]*slot{}, held: map[Kind]int{}, pending: map[Kind][]*request{}}
}

// Bounds reports whether the pool bounds kind k.
func (p *Pool) Bounds(k Kind) bool { return p.limits[k].Max > 0 }

// Limit returns k's bound (Max 0: none).
func (p *Pool) Limit(k Kind) Bound { return p.limits[k] }

// Held returns how many slots of kind k are held.
func (p *Pool) Held(k Kind) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held[k]
}

// Counts are what a pool holds of one kind.
type Counts struct {
	Held    int // slots held
	Idle    int // of those, reclaimable ones whose resource is idle
	Waiting int // requests waiting for a reclaimed slot
}

// Counts returns what the pool holds of kind k.
func (p *Pool) Counts(k Kind) Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := Counts{Held: p.held[k], Waiting: len(p.pending[k])}
	for _, s := range p.slots {
		if s.kind == k && s.idle {
			c.Idle++
		}
	}
	return c
}

// Take asks for a slot of kind k for o. done gets the slot's id, or a
// *LimitError; it is called exactly once, before Take returns when the
// answer is known at once, or later when a reclaimed slot comes back (or
// does not within ReclaimWait), and never with the pool's lock held.
//
// When k is at its bound, Take asks the least recently idle reclaimable
// slot of k that is not already asked for to come back, and waits for it;
// when there is none, it refuses.
func (p *Pool) Take(o Owner, k Kind, reclaimable bool, done func(id uint64, err error)) {
	p.mu.Lock()
	if p.hasRoomLocked(k) {
		id := p.grantLocked(o, k, reclaimable)
		p.mu.Unlock()
		done(id, nil)
		return
	}
	v := p.victimLocked(k)
	if v == nil {
		err := p.refusalLocked(k)
		p.mu.Unlock()
		done(0, err)
		return
	}
	v.asked = true
	r := &request{owner: o, kind: k, reclaimable: reclaimable, victim: v.id, done: done}
	p.pending[k] = append(p.pending[k], r)
	r.timer = time.AfterFunc(p.wait, func() { p.expire(r) })
	p.mu.Unlock()
	v.owner.Reclaim(v.id)
}

// hasRoomLocked reports whether a slot of k can be granted now.
func (p *Pool) hasRoomLocked(k Kind) bool {
	b := p.limits[k]
	return b.Max == 0 || p.held[k] < b.Max
}

func (p *Pool) grantLocked(o Owner, k Kind, reclaimable bool) uint64 {
	p.next++
	p.slots[p.next] = &slot{id: p.next, kind: k, owner: o, reclaimable: reclaimable}
	p.held[k]++
	return p.next
}

// victimLocked returns the least recently idle reclaimable slot of k not
// asked for yet.
func (p *Pool) victimLocked(k Kind) *slot {
	var v *slot
	for _, s := range p.slots {
		if s.kind == k && s.reclaimable && s.idle && !s.asked && (v == nil || s.since < v.since) {
			v = s
		}
	}
	return v
}

func (p *Pool) refusalLocked(k Kind) error {
	b := p.limits[k]
	return &LimitError{Kind: k, Scope: ScopeHost, Held: p.held[k], Max: b.Max, Setting: b.Setting}
}

// Release gives slot id of o back; a slot o does not hold is ignored. A
// request waiting for k gets it (the one that asked for this slot first).
func (p *Pool) Release(o Owner, id uint64) {
	p.mu.Lock()
	s := p.slots[id]
	if s == nil || s.owner != o {
		p.mu.Unlock()
		return
	}
	give := p.releaseLocked(s)
	p.mu.Unlock()
	give()
}

// releaseLocked frees s and returns what to call outside the lock.
func (p *Pool) releaseLocked(s *slot) func() {
	delete(p.slots, s.id)
	p.held[s.kind]--
	q := p.pending[s.kind]
	if len(q) == 0 || !p.hasRoomLocked(s.kind) {
		return func() {}
	}
	i := 0
	for j, r := range q {
		if r.victim == s.id {
			i = j
			break
		}
	}
	r := q[i]
	p.pending[s.kind] = append(q[:i:i], q[i+1:]...)
	r.timer.Stop()
	if v := p.slots[r.victim]; v != nil {
		v.asked = false // served by another: its reclaim, if it comes, frees a slot for the next
	}
	id := p.grantLocked(r.owner, r.kind, r.reclaimable)
	return func() { r.done(id, nil) }
}

// Idle records whether o's slot id is idle. A slot asked to come back that
// is not idle after all sends its waiting request to the next idle slot,
// or refuses it.
func (p *Pool) Idle(o Owner, id uint64, idle bool) {
	p.mu.Lock()
	s := p.slots[id]
	if s == nil || s.owner != o || !s.reclaimable {
		p.mu.Unlock()
		return
	}
	p.tick++
	s.idle, s.since = idle, p.tick
	if idle || !s.asked {
		p.mu.Unlock()
		return
	}
	s.asked = false
	var r *request
	for _, q := range p.pending[s.kind] {
		if q.victim == id {
			r = q
			break
		}
	}
	if r == nil {
		p.mu.Unlock()
		return
	}
	if v := p.victimLocked(s.kind); v != nil {
		v.asked = true
		r.victim = v.id
		p.mu.Unlock()
		v.owner.Reclaim(v.id)
		return
	}
	p.removeLocked(r)
	err := p.refusalLocked(s.kind)
	p.mu.Unlock()
	r.done(0, err)
}

// removeLocked takes r off its queue; false if it was not there.
func (p *Pool) removeLocked(r *request) bool {
	q := p.pending[r.kind]
	for i, x := range q {
		if x == r {
			p.pending[r.kind] = append(q[:i:i], q[i+1:]...)
			r.timer.Stop()
			return true
		}
	}
	return false
}

// expire refuses r if it still waits.
func (p *Pool) expire(r *request) {
	p.mu.Lock()
	if !p.removeLocked(r) {
		p.mu.Unlock()
		return
	}
	if v := p.slots[r.victim]; v != nil {
		v.asked = false
	}
	err := p.refusalLocked(r.kind)
	p.mu.Unlock()
	r.done(0, err)
}

// Drop releases every slot o holds and refuses its waiting requests
// (ErrGone): call it when the owner is gone (a worker that exited). It
// returns how many slots o held.
func (p *Pool) Drop(o Owner) int {
	p.mu.Lock()
	var after []func()
	for _, q := range p.pending {
		for _, r := range q {
			if r.owner == o {
				p.removeLocked(r)
				after = append(after, func() { r.done(0, ErrGone) })
			}
		}
	}
	n := 0
	for _, s := range p.slots {
		if s.owner == o {
			n++
			after = append(after, p.releaseLocked(s))
		}
	}
	p.mu.Unlock()
	for _, f := range after {
		f()
	}
	return n
}

// Local returns a Host over the pool for holders in this process.
func (p *Pool) Local() Host { return localHost{p} }

type localHost struct{ p *Pool }

func (h localHost) Bounds(k Kind) bool { return h.p.Bounds(k) }

// localSlot is a slot held in this process: its own owner.
type localSlot struct {
	p       *Pool
	id      uint64
	reclaim func()
}

type answer struct {
	id  uint64
	err error
}

func (h localHost) Acquire(ctx context.Context, k Kind, reclaim func()) (Slot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &localSlot{p: h.p, reclaim: reclaim}
	got := make(chan answer, 1)
	h.p.Take(s, k, reclaim != nil, func(id uint64, err error) { got <- answer{id, err} })
	select {
	case a := <-got:
		if a.err != nil {
			return nil, a.err
		}
		s.id = a.id
		return s, nil
	case <-ctx.Done():
		go func() {
			if a := <-got; a.err == nil {
				h.p.Release(s, a.id)
			}
		}()
		return nil, ctx.Err()
	}
}

func (s *localSlot) Reclaim(uint64) {
	if s.reclaim != nil {
		go s.reclaim()
	}
}

func (s *localSlot) Release()       { s.p.Release(s, s.id) }
func (s *localSlot) Idle(idle bool) { s.p.Idle(s, s.id, idle) }
