package qjs

import (
	"sync"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/libquickjs"
)

// The engine allocates the frame of every JavaScript call (its arguments,
// local variables and operand stack), and the arguments of every call of a
// bound function, with alloca, which in the Go translation is a C heap
// allocation that does not go through the allocator hooks: Options.
// MemoryLimit does not see it. A function with 60,000 local variables
// recursing 4,000 deep took 3.8 GB that way, and a function bound to 60,000
// arguments 1.6 GB. This file bounds that memory instead: every call holds
// at least one of the engine's stack slots, so the frames take at most
// (stack slot limit) × (largest frame) bytes. The Context learns the largest
// frame from all code that is compiled (every compilation goes through the
// engine's eval_internal hook, replaced below: modules, scripts, eval, new
// Function) or loaded as bytecode, and the largest number of bound arguments
// from Function.prototype.bind (wrapped below), and lowers the stack slot
// limit so that the product stays within Options.FrameMemory.

// evalInternal is the engine's own eval_internal (__JS_EvalInternal), the
// same for every context, read from the first one.
var (
	evalInternal uintptr
	evalOnce     sync.Once
)

// evalFunc is the type of eval_internal.
type evalFunc = func(tls *libc.TLS, ctx uintptr, this lib.TJSValue, input uintptr, inputLen lib.Tsize_t, filename uintptr, flags, scopeIdx int32) lib.TJSValue

func callEval(tls *libc.TLS, ctx uintptr, this lib.TJSValue, input uintptr, inputLen lib.Tsize_t, filename uintptr, flags, scopeIdx int32) lib.TJSValue {
	// A C function pointer is a Go func value's pointer (see fp).
	f := *(*evalFunc)(unsafe.Pointer(&struct{ uintptr }{evalInternal}))
	return f(tls, ctx, this, input, inputLen, filename, flags, scopeIdx)
}

// evalHook replaces the engine's eval_internal: it compiles the code without
// running it, records its frame sizes and fits the stack slot limit to them,
// then, unless only the compilation was asked for, runs it as the engine
// would. Global code (scripts, indirect eval, new Function) and modules run
// as they were compiled, which is what the engine's function does with them.
// Direct eval needs the caller's frame, which only the engine's function can
// give to the code it runs: that code is compiled a second time, under the
// fitted limit (so a direct eval of code with frames too large for even its
// own parsing gets a SyntaxError "stack overflow").
func evalHook(tls *libc.TLS, ctx uintptr, this lib.TJSValue, input uintptr, inputLen lib.Tsize_t, filename uintptr, flags, scopeIdx int32) lib.TJSValue {
	c := lookup(lib.XJS_GetContextOpaque(tls, ctx))
	if c == nil {
		return callEval(tls, ctx, this, input, inputLen, filename, flags, scopeIdx)
	}
	f := callEval(tls, ctx, this, input, inputLen, filename, flags|lib.MJS_EVAL_FLAG_COMPILE_ONLY, scopeIdx)
	if valueTag(f) == lib.EJS_TAG_EXCEPTION {
		return f
	}
	c.noteCode(f)
	switch {
	case flags&lib.MJS_EVAL_FLAG_COMPILE_ONLY != 0:
		return f
	case flags&lib.MJS_EVAL_TYPE_MASK != lib.MJS_EVAL_TYPE_DIRECT && c.isGlobal(this):
		return lib.XJS_EvalFunction(tls, ctx, f) // consumes f
	default:
		lib.XFreeValue(tls, ctx, f)
		return callEval(tls, ctx, this, input, inputLen, filename, flags, scopeIdx)
	}
}

// isGlobal reports whether v is the realm's global object.
func (c *Context) isGlobal(v lib.TJSValue) bool {
	g := (*lib.TJSContext)(ptr(c.ctx)).Fglobal_obj
	return valueTag(v) == lib.EJS_TAG_OBJECT && valuePtr(v) == valuePtr(g)
}

// noteCode records the frame sizes of compiled code: a module or a
// function's bytecode, and the functions it defines.
func (c *Context) noteCode(v lib.TJSValue) {
	switch valueTag(v) {
	case lib.EJS_TAG_MODULE:
		m := (*lib.TJSModuleDef)(ptr(valuePtr(v)))
		c.noteCode(m.Ffunc_obj)
	case lib.EJS_TAG_FUNCTION_BYTECODE:
		c.noteBytecode(valuePtr(v))
	default:
		return
	}
	c.fitStack()
}

// noteBytecode records the frame of the function b and of the functions in
// its constant pool.
func (c *Context) noteBytecode(b uintptr) {
	fb := (*lib.TJSFunctionBytecode)(ptr(b))
	frame := int64(sizeofValue)*(int64(fb.Farg_count)+int64(fb.Fvar_count)+int64(fb.Fstack_size)) +
		int64(unsafe.Sizeof(uintptr(0)))*int64(fb.Fvar_ref_count)
	c.maxFrame = max(c.maxFrame, frame)
	for i := range int(fb.Fcpool_count) {
		v := *(*lib.TJSValue)(ptr(fb.Fcpool + uintptr(i)*sizeofValue))
		if valueTag(v) == lib.EJS_TAG_FUNCTION_BYTECODE {
			c.noteBytecode(valuePtr(v))
		}
	}
}

// fitStack sets the engine's stack slot limit: Options.StackSlots, or less
// if frames of the largest size in every slot would take more than
// Options.FrameMemory.
func (c *Context) fitStack() {
	slots := c.slots
	if c.opts.FrameMemory > 0 {
		// A bound function's call copies its bound arguments and the call's
		// own, which come from the caller's frame (or from the heap, for a
		// spread or apply: there the memory limit sees them).
		unit := c.maxFrame + int64(sizeofValue)*c.maxBound
		if unit > 0 {
			slots = int(min(int64(slots), max(c.opts.FrameMemory/unit, 1)))
		}
	}
	if slots != c.stackLimit {
		c.stackLimit = slots
		lib.XJS_SetMaxStackSize(c.tls, c.rt, lib.Tsize_t(slots))
	}
}

// StackSlots returns the engine's stack slot limit now: Options.StackSlots
// (its default), or less once code with large frames was compiled (see
// Options.FrameMemory).
func (c *Context) StackSlots() int { return c.stackLimit }

// FrameBytes returns the largest frame of a call that the compiled code can
// make, in bytes (a bound function's arguments included).
func (c *Context) FrameBytes() int64 { return c.maxFrame + int64(sizeofValue)*c.maxBound }

// wrapBind replaces Function.prototype.bind by a host function that records
// the number of bound arguments, then calls the engine's bind.
func (c *Context) wrapBind() error {
	g := c.Global()
	defer c.Free(g)
	ctor, err := c.Get(g, "Function")
	if err != nil {
		return err
	}
	defer c.Free(ctor)
	proto, err := c.Get(ctor, "prototype")
	if err != nil {
		return err
	}
	defer c.Free(proto)
	orig, err := c.Get(proto, "bind")
	if err != nil {
		return err
	}
	c.bind = orig
	w, err := c.Function("bind", 1, func(c *Context, this Value, args []Value) (Value, error) {
		if n := int64(len(args)) - 1; n > c.maxBound {
			c.maxBound = n
			c.fitStack()
		}
		// The engine's exception, if bind throws one, stays pending and
		// the exception marker returned throws it as it is.
		return c.callRaw(c.bind, this, args), nil
	})
	if err != nil {
		return err
	}
	return c.Set(proto, "bind", w)
}

// callRaw calls fn and returns what the engine returned: on an exception,
// the exception marker, with the exception pending.
func (c *Context) callRaw(fn, this Value, args []Value) Value {
	n := len(args) * int(sizeofValue)
	var argv uintptr
	if n > 0 {
		// The engine reads the arguments through a pointer: they must not
		// live on a Go stack, which may move while the call runs.
		argv = c.tls.Alloc(n)
		defer c.tls.Free(n)
		for i, a := range args {
			*(*lib.TJSValue)(ptr(argv + uintptr(i)*sizeofValue)) = a.v
		}
	}
	return Value{lib.XJS_Call(c.tls, c.ctx, fn.v, this.v, int32(len(args)), argv)}
}
