package qjs

import (
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/libquickjs"
)

// PromiseState is the state of a promise.
type PromiseState int

// Promise states. NotAPromise is returned for a value that is not one.
const (
	NotAPromise PromiseState = -1
	Pending     PromiseState = lib.EJS_PROMISE_PENDING
	Fulfilled   PromiseState = lib.EJS_PROMISE_FULFILLED
	Rejected    PromiseState = lib.EJS_PROMISE_REJECTED
)

// PromiseState returns the state of the promise p.
func (c *Context) PromiseState(p Value) PromiseState {
	return PromiseState(lib.XJS_PromiseState(c.tls, c.ctx, p.v))
}

// PromiseResult returns the value or reason of a settled promise (undefined
// while pending). The caller frees it.
func (c *Context) PromiseResult(p Value) Value {
	return Value{lib.XJS_PromiseResult(c.tls, c.ctx, p.v)}
}

// JobPending reports whether promise jobs (microtasks) are queued.
func (c *Context) JobPending() bool {
	return lib.XJS_IsJobPending(c.tls, c.rt) != 0
}

// RunJobs runs queued promise jobs until none is left. A job's exceptions
// become promise rejections; what reaches RunJobs is the Abort reason or an
// uncatchable exception, which stops it.
func (c *Context) RunJobs() error {
	if c.closed {
		return ErrClosed
	}
	pctx := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	defer c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	for {
		if c.aborted.Load() {
			return c.Reason()
		}
		r := lib.XJS_ExecutePendingJob(c.tls, c.rt, pctx)
		if r == 0 {
			return nil
		}
		if r < 0 {
			return c.exception()
		}
	}
}

// TakeRejections returns the reasons of the promises rejected without a
// handler that still have none, oldest first, and forgets them. The caller
// frees the reasons.
func (c *Context) TakeRejections() []Value {
	var out []Value
	for _, r := range c.rejections {
		c.Free(r.promise)
		out = append(out, r.reason)
	}
	c.rejections = c.rejections[:0]
	return out
}

// rejectionTracker is the engine's hook for promises rejected without a
// handler (isHandled 0) and for handlers added to them later (1). A
// rejection is reported (TakeRejections) if no handler was added by then.
func rejectionTracker(tls *libc.TLS, ctx uintptr, promise, reason lib.TJSValue, isHandled int32, opaque uintptr) {
	c := lookup(opaque)
	if c == nil {
		return
	}
	if isHandled == 0 {
		c.rejections = append(c.rejections, rejection{
			promise: c.Dup(Value{promise}),
			reason:  c.Dup(Value{reason}),
		})
		return
	}
	// A handler was added to promise. Forget it, and every other promise
	// rejected so far with the same object: the engine rejects promises of
	// its own along the way (evaluating a module calls its body as an async
	// function and drops that function's rejected promise), which nobody can
	// handle but which pass the reason on to the one that gets handled.
	byReason := Value{reason}.IsObject()
	kept := c.rejections[:0]
	for _, r := range c.rejections {
		if r.promise.v == promise || byReason && r.reason.v == reason {
			c.Free(r.promise)
			c.Free(r.reason)
			continue
		}
		kept = append(kept, r)
	}
	c.rejections = kept
}
