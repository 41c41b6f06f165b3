package jsvm

import (
	"container/heap"
	"time"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// timer is one pending setTimeout, setInterval or setImmediate.
type timer struct {
	id       int64
	due      time.Time
	interval time.Duration // the delay; repeated for an interval
	repeat   bool
	ref      bool // keeps the execution alive (unref() clears it)
	seq      uint64
	index    int // in the heap; -1 when not queued
}

// timerQueue orders pending timers by due time, then by creation.
type timerQueue struct {
	h    timerHeap
	byID map[int64]*timer
	refs int // queued timers with ref set
	seq  uint64
}

func newTimerQueue() timerQueue { return timerQueue{byID: map[int64]*timer{}} }

// timerHeap is container/heap's view of the queue.
type timerHeap []*timer

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if !h[i].due.Equal(h[j].due) {
		return h[i].due.Before(h[j].due)
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(v any) {
	t := v.(*timer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	t.index = -1
	return t
}

func (q *timerQueue) add(t *timer) {
	q.seq++
	t.seq = q.seq
	heap.Push(&q.h, t)
	q.byID[t.id] = t
	if t.ref {
		q.refs++
	}
}

func (q *timerQueue) remove(id int64) *timer {
	t, ok := q.byID[id]
	if !ok {
		return nil
	}
	delete(q.byID, id)
	if t.index >= 0 {
		heap.Remove(&q.h, t.index)
	}
	if t.ref {
		q.refs--
	}
	return t
}

func (q *timerQueue) next() *timer {
	if len(q.h) == 0 {
		return nil
	}
	return q.h[0]
}

func init() {
	hostFuncs["timerStart"] = hostTimerStart
	hostFuncs["tickQueued"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		x.ticks = true
		return qjs.Undefined, nil
	}
	hostFuncs["timerClear"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		id, err := x.argInt(args, 0)
		if err == nil {
			x.timers.remove(id)
		}
		return qjs.Undefined, err
	}
	hostFuncs["timerRef"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		id, err := x.argInt(args, 0)
		if err != nil {
			return qjs.Undefined, err
		}
		if t := x.timers.byID[id]; t != nil {
			ref := x.argBool(args, 1)
			if ref != t.ref {
				t.ref = ref
				if ref {
					x.timers.refs++
				} else {
					x.timers.refs--
				}
			}
		}
		return qjs.Undefined, nil
	}
	hostFuncs["timerRefresh"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		id, err := x.argInt(args, 0)
		if err != nil {
			return qjs.Undefined, err
		}
		if t := x.timers.remove(id); t != nil {
			t.due = time.Now().Add(t.interval)
			x.timers.add(t)
		}
		return qjs.Undefined, nil
	}
}

// hostTimerStart is host.timerStart(id, delayMs, repeat).
func hostTimerStart(x *execution, args []qjs.Value) (qjs.Value, error) {
	id, err := x.argInt(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	ms, err := x.argInt(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	if len(x.timers.byID) >= x.o.MaxTimers {
		return qjs.Undefined, x.limit("MaxTimers", int64(x.o.MaxTimers), "pending timers")
	}
	d := time.Duration(ms) * time.Millisecond
	x.timers.add(&timer{id: id, due: time.Now().Add(d), interval: d, repeat: x.argBool(args, 2), ref: true})
	return qjs.Undefined, nil
}

// loop is the event loop: run promise jobs, check for unhandled rejections
// and the result, then wait for the next timer and fire it (or for a
// fetch's event and deliver it), until nothing keeps the execution alive.
func (x *execution) loop() error {
	var wait *time.Timer
	defer func() {
		if wait != nil {
			wait.Stop()
		}
	}()
	for {
		if err := x.drain(); err != nil {
			return err
		}
		if x.failure != nil {
			return x.failure
		}
		if rs := x.c.TakeRejections(); len(rs) > 0 {
			text, err := x.format(rs[0])
			for _, r := range rs {
				x.c.Free(r)
			}
			if err != nil {
				return err
			}
			return &uncaught{text: text, inPromise: true}
		}
		if x.timers.refs == 0 && x.net.pending == 0 {
			if x.settled {
				return nil
			}
			return errNeverSettled
		}
		t := x.timers.next()
		var due <-chan time.Time // nil: no timer (fetches keep the execution alive)
		if t != nil {
			if d := time.Until(t.due); d > 0 {
				if wait == nil {
					wait = time.NewTimer(d)
				} else {
					wait.Reset(d)
				}
				due = wait.C
			}
		}
		if t == nil || due != nil {
			select {
			case <-due:
			case ev := <-x.net.events: // nil without fetches
				if err := x.deliverFetch(ev); err != nil {
					return err
				}
				continue
			case <-x.ctx.Done():
				return x.c.Reason()
			}
		}
		if x.ctx.Err() != nil {
			return x.c.Reason()
		}
		if err := x.fireTimer(t); err != nil {
			return err
		}
	}
}

// fireTimer runs t's callback; an interval is queued again unless the
// callback cleared it.
func (x *execution) fireTimer(t *timer) error {
	x.timers.remove(t.id)
	if t.repeat {
		t.due = time.Now().Add(max(t.interval, time.Millisecond))
		x.timers.add(t)
	}
	v, err := x.c.Call(x.fire, qjs.Undefined, qjs.Int(t.id))
	x.c.Free(v)
	if err == nil {
		// As Node: the ticks the callback queued run before its microtasks.
		err = x.runTicks()
	}
	if err != nil {
		if ex, ok := err.(*qjs.Exception); ok {
			return &uncaught{text: ex.Text}
		}
		return err
	}
	return nil
}

// drain runs promise jobs and process.nextTick callbacks until neither is
// left: all jobs, then the ticks queued, then the jobs they queued, ...
func (x *execution) drain() error {
	for {
		if err := x.c.RunJobs(); err != nil {
			return err
		}
		if !x.ticks {
			return nil
		}
		if err := x.runTicks(); err != nil {
			if ex, ok := err.(*qjs.Exception); ok {
				return &uncaught{text: ex.Text}
			}
			return err
		}
	}
}

// runTicks runs the nextTick queue, if anything is queued.
func (x *execution) runTicks() error {
	if !x.ticks {
		return nil
	}
	x.ticks = false
	v, err := x.callInternal("runTicks")
	x.c.Free(v)
	return err
}
