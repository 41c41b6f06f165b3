package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/desk-dev/desk/internal/fair"
)

// ErrNoParent: the worker's control channel is gone (its server died or is
// stopping), so no host-wide slot can be had.
var ErrNoParent = errors.New("no control channel to the server")

// Slots is a worker's fair.Host: the host-wide slots of the kinds the
// server bounds, asked of the server's pool over the control channel. An
// acquire is one round trip (a line each way); release and idle marks are
// one line. Give it to ServeOptions.Slots, which connects it.
type Slots struct {
	kinds map[fair.Kind]bool

	mu     sync.Mutex
	send   func(message) error // nil until connected
	closed bool
	next   uint64
	waits  map[uint64]chan grantAnswer // by request id; nil: its caller gave up
	held   map[uint64]*remoteSlot      // by slot id
}

type grantAnswer struct {
	slot uint64
	err  error
}

// NewSlots returns a worker's host-wide slots for kinds, the kinds its
// server bounds (others are not asked for: Bounds is false).
func NewSlots(kinds []fair.Kind) *Slots {
	m := map[fair.Kind]bool{}
	for _, k := range kinds {
		m[k] = true
	}
	return &Slots{kinds: m, waits: map[uint64]chan grantAnswer{}, held: map[uint64]*remoteSlot{}}
}

// Bounds reports whether the server bounds kind k.
func (c *Slots) Bounds(k fair.Kind) bool { return c.kinds[k] }

// Acquire asks the server's pool for a slot of kind k and waits for the
// answer: a slot, a *fair.LimitError of scope host, ctx's error (a grant
// that comes later is given back), or ErrNoParent.
func (c *Slots) Acquire(ctx context.Context, k fair.Kind, reclaim func()) (fair.Slot, error) {
	ch := make(chan grantAnswer, 1)
	c.mu.Lock()
	if c.closed || c.send == nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("acquire %s slot: %w", k, ErrNoParent)
	}
	c.next++
	id := c.next
	c.waits[id] = ch
	send := c.send
	c.mu.Unlock()
	if err := send(message{Acquire: &SlotAsk{ID: id, Kind: k, Reclaimable: reclaim != nil}}); err != nil {
		c.mu.Lock()
		delete(c.waits, id)
		c.mu.Unlock()
		return nil, fmt.Errorf("acquire %s slot: %w", k, ErrNoParent)
	}
	select {
	case a := <-ch:
		if a.err != nil {
			return nil, a.err
		}
		s := &remoteSlot{c: c, id: a.slot, reclaim: reclaim}
		c.mu.Lock()
		c.held[a.slot] = s
		c.mu.Unlock()
		return s, nil
	case <-ctx.Done():
		c.mu.Lock()
		if _, waiting := c.waits[id]; waiting {
			c.waits[id] = nil // deliver gives back what comes later
			c.mu.Unlock()
			return nil, ctx.Err()
		}
		c.mu.Unlock()
		// Answered meanwhile.
		if a := <-ch; a.err == nil {
			c.sendRelease(a.slot)
		}
		return nil, ctx.Err()
	}
}

// connect sets the line writer; close fails every wait (the channel is
// gone).
func (c *Slots) connect(send func(message) error) {
	c.mu.Lock()
	c.send = send
	c.mu.Unlock()
}

func (c *Slots) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, ch := range c.waits {
		if ch != nil {
			ch <- grantAnswer{err: fmt.Errorf("acquire slot: %w", ErrNoParent)}
		}
		delete(c.waits, id)
	}
}

// deliver handles the server's grant or reclaim lines.
func (c *Slots) deliver(m message) {
	switch {
	case m.Grant != nil:
		g := m.Grant
		c.mu.Lock()
		ch, ok := c.waits[g.ID]
		delete(c.waits, g.ID)
		c.mu.Unlock()
		var a grantAnswer
		if r := g.Refused; r != nil {
			if r.Gone {
				a.err = fmt.Errorf("acquire %s slot: %w", r.Kind, ErrNoParent)
			} else {
				a.err = &fair.LimitError{Kind: r.Kind, Scope: fair.ScopeHost, Held: r.Held, Max: r.Max, Setting: r.Setting}
			}
		} else {
			a.slot = g.Slot
		}
		switch {
		case ch != nil:
			ch <- a
		case ok && a.err == nil: // its caller gave up
			c.sendRelease(a.slot)
		}
	case m.Reclaim != 0:
		c.mu.Lock()
		s := c.held[m.Reclaim]
		c.mu.Unlock()
		if s == nil || s.reclaim == nil {
			return // released already (the server has its answer), or never reclaimable
		}
		go s.reclaim()
	}
}

func (c *Slots) sendRelease(slot uint64) {
	c.mu.Lock()
	send := c.send
	c.mu.Unlock()
	if send != nil {
		send(message{Release: slot})
	}
}

// remoteSlot is a slot the server's pool gave this worker.
type remoteSlot struct {
	c       *Slots
	id      uint64
	reclaim func()
	once    sync.Once
}

func (s *remoteSlot) Release() {
	s.once.Do(func() {
		s.c.mu.Lock()
		delete(s.c.held, s.id)
		s.c.mu.Unlock()
		s.c.sendRelease(s.id)
	})
}

func (s *remoteSlot) Idle(idle bool) {
	if s.reclaim == nil {
		return
	}
	s.c.mu.Lock()
	_, held := s.c.held[s.id]
	send := s.c.send
	s.c.mu.Unlock()
	if held && send != nil {
		send(message{SlotIdle: &SlotIdle{Slot: s.id, Idle: idle}})
	}
}
