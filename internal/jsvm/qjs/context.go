package qjs

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/libquickjs"
)

// Options configure a Context.
type Options struct {
	// MemoryLimit bounds the bytes the engine allocates (0: no limit). An
	// allocation past it fails, the engine throws "out of memory", and the
	// Context aborts with a *MemoryError.
	MemoryLimit int64
	// StackSlots bounds the depth of JavaScript calls, in the engine's stack
	// slots (about one per plain call; 0: lib.MaxStackSlots, 5000). Past it
	// the engine throws a catchable "InternalError: stack overflow".
	StackSlots int
	// FrameMemory bounds the bytes the frames of the JavaScript calls on the
	// stack may take (0: no bound). The engine allocates them outside
	// MemoryLimit; the Context lowers the stack slot limit below StackSlots
	// when code whose largest frame times StackSlots would exceed
	// FrameMemory is compiled (see StackSlots).
	FrameMemory int64
	// Normalize resolves an import specifier given the name of the importing
	// module (for the main module: its name; for code evaluated as a script:
	// "<eval>" or the script's file name). Nil: imports fail.
	Normalize func(base, name string) (string, error)
	// Load returns the module a normalized name stands for. Nil: imports fail.
	Load func(name string) (*Module, error)
}

// MemoryError is the abort reason when Options.MemoryLimit was hit.
type MemoryError struct{ Limit int64 }

// Error says which limit was hit.
func (e *MemoryError) Error() string {
	return fmt.Sprintf("out of memory: the engine's memory limit of %d bytes was reached", e.Limit)
}

// ErrClosed is returned by calls on a closed Context.
var ErrClosed = errors.New("qjs: context is closed")

// Context is one engine runtime with one realm. It is not safe for
// concurrent use, except Abort.
type Context struct {
	id   uintptr
	tls  *libc.TLS
	rt   uintptr // JSRuntime*
	ctx  uintptr // JSContext*
	opts Options

	// aborted is set by Abort; the interrupt handler reads it.
	aborted atomic.Bool
	amu     sync.Mutex
	reason  error
	freed   bool // Close has begun freeing the engine (guarded by amu)

	slots      int   // the stack slot limit asked for (Options.StackSlots or its default)
	stackLimit int   // the engine's stack slot limit now
	maxFrame   int64 // the largest frame of the compiled code, in bytes
	maxBound   int64 // the most arguments bound by Function.prototype.bind
	bind       Value // the engine's Function.prototype.bind

	funcs      []Func
	natives    map[string]native // native modules waiting for their init
	rejections []rejection       // rejected promises without a handler
	formatter  func(c *Context, v Value) (string, error)
	formatting bool // the formatter is running (an exception in it is not formatted again)
	metaHook   func(c *Context, meta Value) error
	closed     bool
}

// SetMetaHook sets f to be called with each module's import.meta object
// once its Module.Meta strings are set (to add functions such as
// import.meta.resolve). meta is borrowed.
func (c *Context) SetMetaHook(f func(c *Context, meta Value) error) { c.metaHook = f }

// rejection is a promise rejected while it had no handler.
type rejection struct {
	promise, reason Value
}

// contexts finds a Context from the id kept in the engine's opaque pointers.
var (
	contexts sync.Map // uintptr → *Context
	nextID   atomic.Uintptr
)

func lookup(id uintptr) *Context {
	c, _ := contexts.Load(id)
	cx, _ := c.(*Context)
	return cx
}

// mallocFuncs are the engine's allocator hooks (JSMallocFunctions): the
// engine's default accounting, plus a record of a failed allocation so that
// the Context aborts.
var mallocFuncs lib.TJSMallocFunctions

func init() {
	// The engine's local time is the C library's, whose TZ comes from the
	// host process's environment: make it UTC, so that no execution sees the
	// host's time zone and all see the same.
	tls := libc.NewTLS()
	name, _ := libc.CString("TZ")
	utc, _ := libc.CString("UTC")
	libc.Xsetenv(tls, name, utc, 1)
	libc.Xtzset(tls)
	libc.Xfree(tls, name)
	libc.Xfree(tls, utc)
	tls.Close()

	mallocFuncs.Fjs_malloc = fp(jsMalloc)
	mallocFuncs.Fjs_free = fp(jsFree)
	mallocFuncs.Fjs_realloc = fp(jsRealloc)
	mallocFuncs.Fjs_malloc_usable_size = fp(jsMallocUsableSize)
}

// fp returns the value of a top-level Go function as the engine's function
// pointer (how modernc.org/libc represents C function pointers).
func fp(f any) uintptr {
	type iface [2]uintptr
	return (*iface)(unsafe.Pointer(&f))[1]
}

// New returns a Context with the engine's standard objects.
func New(opts Options) (*Context, error) {
	c := &Context{id: nextID.Add(1), tls: libc.NewTLS(), opts: opts}
	contexts.Store(c.id, c)
	c.rt = lib.XJS_NewRuntime2(c.tls, uintptr(unsafe.Pointer(&mallocFuncs)), c.id)
	if c.rt == 0 {
		contexts.Delete(c.id)
		c.tls.Close()
		return nil, errors.New("create JavaScript runtime: out of memory")
	}
	lib.XJS_SetRuntimeOpaque(c.tls, c.rt, c.id)
	if opts.MemoryLimit > 0 {
		lib.XJS_SetMemoryLimit(c.tls, c.rt, lib.Tsize_t(opts.MemoryLimit))
	}
	c.slots = opts.StackSlots
	if c.slots <= 0 {
		c.slots = lib.MaxStackSlots
	}
	c.stackLimit = c.slots
	lib.XJS_SetMaxStackSize(c.tls, c.rt, lib.Tsize_t(c.slots))
	lib.XJS_SetInterruptHandler(c.tls, c.rt, fp(interruptHandler), c.id)
	lib.XJS_SetHostPromiseRejectionTracker(c.tls, c.rt, fp(rejectionTracker), c.id)
	lib.XJS_SetModuleLoaderFunc2(c.tls, c.rt, fp(moduleNormalize), fp(moduleLoader), 0, c.id)
	c.ctx = lib.XJS_NewContext(c.tls, c.rt)
	if c.ctx == 0 {
		lib.XJS_FreeRuntime(c.tls, c.rt)
		contexts.Delete(c.id)
		c.tls.Close()
		return nil, errors.New("create JavaScript context: out of memory")
	}
	lib.XJS_SetContextOpaque(c.tls, c.ctx, c.id)
	cx := (*lib.TJSContext)(ptr(c.ctx))
	evalOnce.Do(func() { evalInternal = cx.Feval_internal }) // the same for every context
	cx.Feval_internal = fp(evalHook)
	if err := c.wrapBind(); err != nil {
		c.Close()
		return nil, fmt.Errorf("create JavaScript context: %w", err)
	}
	return c, nil
}

// Close frees the engine and every value it still holds. Values obtained
// from c must not be used afterwards.
func (c *Context) Close() {
	if c.closed {
		return
	}
	for _, r := range c.rejections {
		c.Free(r.promise)
		c.Free(r.reason)
	}
	c.rejections = nil
	for _, n := range c.natives {
		c.Free(n.exports)
	}
	c.natives = nil
	c.Free(c.bind)
	c.bind = Undefined
	c.closed = true
	c.amu.Lock()
	c.freed = true // Abort no longer touches the engine
	c.amu.Unlock()
	lib.XJS_FreeContext(c.tls, c.ctx)
	lib.XJS_FreeRuntime(c.tls, c.rt)
	contexts.Delete(c.id)
	c.tls.Close()
	c.funcs = nil
}

// Abort makes the engine stop: running JavaScript gets an uncatchable error
// at its next interrupt check (the next backward jump, call or regexp step)
// or host call, and later calls into the engine fail. From then on every
// allocation that reaches the allocator hooks fails too (large blocks and
// new arenas: the engine recycles small blocks itself), so that a built-in
// function that needs more memory as it goes (JSON.parse, Array.from...)
// ends at its next allocation instead of running to its end. The first
// reason is kept (Reason). Abort is safe to call from any goroutine, also
// after Close, and may be called again (each call makes the next interrupt
// check come at once).
func (c *Context) Abort(reason error) {
	c.amu.Lock()
	defer c.amu.Unlock()
	if c.reason == nil {
		c.reason = reason
	}
	c.aborted.Store(true)
	if c.freed {
		return
	}
	// The engine calls the interrupt handler when its countdown of ticks
	// (calls and backward jumps) reaches zero, every 10,000 ticks: after a
	// long built-in call (a sort), 10,000 more of those. Zero makes the
	// next tick call it. The engine's thread decrements the counter without
	// atomics; a store racing with a decrement may be lost, which costs at
	// most one more countdown, and another Abort stores zero again. Neither
	// field is Go memory (the engine's structures are C heap).
	cx := (*lib.TJSContext)(ptr(c.ctx))
	atomic.StoreInt32(&cx.Finterrupt_counter, 0)
	rt := (*lib.TJSRuntime)(ptr(c.rt))
	atomic.StoreUintptr(sizeWord(&rt.Fmalloc_ctx.Fmalloc_state.Fmalloc_limit), 0)
}

// Reason returns the first reason given to Abort, or nil.
func (c *Context) Reason() error {
	c.amu.Lock()
	defer c.amu.Unlock()
	return c.reason
}

// MemoryUsed returns the bytes the engine has allocated now.
func (c *Context) MemoryUsed() int64 {
	rt := (*lib.TJSRuntime)(ptr(c.rt))
	return int64(rt.Fmalloc_ctx.Fmalloc_state.Fmalloc_size)
}

// interruptHandler is the engine's interrupt hook: non-zero stops the
// running JavaScript with an uncatchable error.
func interruptHandler(tls *libc.TLS, rt, opaque uintptr) int32 {
	if c := lookup(opaque); c != nil && c.aborted.Load() {
		return 1
	}
	return 0
}

// The allocator hooks below repeat the engine's defaults (js_def_malloc and
// friends), with one addition: a failed allocation aborts the Context.

const mallocOverhead = lib.MMALLOC_OVERHEAD

func mallocState(s uintptr) *lib.TJSMallocState { return (*lib.TJSMallocState)(ptr(s)) }

func overLimit(s *lib.TJSMallocState) {
	if c := lookup(s.Fopaque); c != nil {
		c.Abort(&MemoryError{Limit: c.opts.MemoryLimit})
	}
}

// limit is the allocation limit: Options.MemoryLimit, or 0 once the Context
// is aborted (Abort sets it from another goroutine).
func limit(s *lib.TJSMallocState) lib.Tsize_t {
	return lib.Tsize_t(atomic.LoadUintptr(sizeWord(&s.Fmalloc_limit)))
}

// sizeWord is a size_t as a uintptr, which has its size on every target.
func sizeWord(p *lib.Tsize_t) *uintptr { return (*uintptr)(unsafe.Pointer(p)) }

func jsMalloc(tls *libc.TLS, s uintptr, size lib.Tsize_t) uintptr {
	st := mallocState(s)
	if st.Fmalloc_size+size > limit(st) {
		overLimit(st)
		return 0
	}
	p := libc.Xmalloc(tls, size)
	if p == 0 {
		overLimit(st)
		return 0
	}
	st.Fmalloc_count++
	st.Fmalloc_size += libc.Xmalloc_usable_size(tls, p) + mallocOverhead
	return p
}

func jsFree(tls *libc.TLS, s uintptr, p uintptr) {
	if p == 0 {
		return
	}
	st := mallocState(s)
	st.Fmalloc_count--
	st.Fmalloc_size -= libc.Xmalloc_usable_size(tls, p) + mallocOverhead
	libc.Xfree(tls, p)
}

func jsRealloc(tls *libc.TLS, s uintptr, p uintptr, size lib.Tsize_t) uintptr {
	if p == 0 {
		if size == 0 {
			return 0
		}
		return jsMalloc(tls, s, size)
	}
	st := mallocState(s)
	old := libc.Xmalloc_usable_size(tls, p)
	if size == 0 {
		st.Fmalloc_count--
		st.Fmalloc_size -= old + mallocOverhead
		libc.Xfree(tls, p)
		return 0
	}
	if st.Fmalloc_size+size-old > limit(st) {
		overLimit(st)
		return 0
	}
	np := libc.Xrealloc(tls, p, size)
	if np == 0 {
		overLimit(st)
		return 0
	}
	st.Fmalloc_size += libc.Xmalloc_usable_size(tls, np) - old
	return np
}

func jsMallocUsableSize(tls *libc.TLS, p uintptr) lib.Tsize_t {
	return libc.Xmalloc_usable_size(tls, p)
}
