// Package qjs is the small binding of the js backend to QuickJS: the engine of
// modernc.org/libquickjs (QuickJS release 2026-06-04, transpiled to pure Go,
// the version modernc.org/quickjs v0.27.0 pins), used directly.
//
// # Why not modernc.org/quickjs
//
// The wrapper modernc.org/quickjs is made for embedding scripts with Go values
// crossing by reflection and JSON. The js backend needs parts of the engine
// the wrapper does not offer: a promise rejection tracker (unhandled
// rejections must fail an execution), ArrayBuffer contents without a JSON
// round trip (Buffer, readFile), the module namespace and a file name for
// the main module (the default export and stack traces), native modules
// whose exports come from a JavaScript object (node:path and friends),
// a memory limit whose hit can end the execution even when a script catches
// the "out of memory" error, and host functions that can end an execution
// with an uncatchable error. Mixing the wrapper with direct engine calls
// would defeat its own bookkeeping (it checks the engine's stack frame on
// every call), so this package binds the engine directly, using the wrapper's
// technique for callbacks: a top-level Go function's value is the C function
// pointer, and per-context state is found through an id in the engine's
// opaque pointers.
//
// # Model
//
// A Context is one engine runtime with one realm. It is not safe for
// concurrent use, except Abort, which any goroutine may call to end what
// runs. A Value is owned by whoever holds it and must be given to Free once
// (Values for undefined, null, booleans and numbers need not be).
// Functions that take a Value borrow it unless their documentation says they
// consume it.
//
// Host functions (Func) receive borrowed arguments and return an owned
// Value or an error, which is thrown: a *Throw throws its value, anything
// else an Error with the error's text. Context.Abort records the reason an
// execution must end and makes the engine stop: the running JavaScript gets
// an uncatchable error at its next interrupt check (Abort resets the
// engine's countdown of ticks between two checks, so the next call or
// backward jump checks) or host call, every allocation that needs new
// memory fails from then on, and every later call into the engine fails at
// once. A built-in call that neither checks for interrupts nor allocates
// (a typed array sort, a string search, a walk over a sparse array) still
// runs to its end: package jsvm's documentation lists them.
//
// # Memory
//
// Options.MemoryLimit bounds the engine's heap through its allocator hooks.
// The frames of JavaScript calls (arguments, locals, operand stack) and the
// arguments of bound functions' calls are allocated apart (alloca, in the
// Go translation a C heap allocation the hooks do not see). Options.
// FrameMemory bounds them: every compilation goes through the engine's
// eval_internal, which the Context replaces by a function that compiles
// first, records the largest frame of the code (and Function.prototype.bind
// is wrapped to record the most arguments bound), and lowers the stack slot
// limit so that the largest frame times the limit fits FrameMemory; since
// every call holds a stack slot, the frames on the stack fit too. A direct
// eval is compiled a second time to run (it needs the caller's frame, which
// only the engine's own function gives to code it runs).
//
// A Go panic in a callback never unwinds through engine frames: it is
// recovered and becomes an Abort with an internal error.
package qjs
