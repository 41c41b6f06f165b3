package qjs

import (
	"errors"
	"fmt"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/libquickjs"
)

// Func is a host function. args and this are borrowed; the returned Value
// is given to the engine. A non-nil error is thrown instead (the Value is
// then ignored): a *Throw throws its value, anything else a plain Error with
// the error's text. After Context.Abort, the call ends the JavaScript that
// made it whatever Func returns.
type Func func(c *Context, this Value, args []Value) (Value, error)

// Throw is an error that throws a JavaScript value, which it owns.
type Throw struct{ Value Value }

// Error describes the thrown value.
func (t *Throw) Error() string { return "JavaScript exception" }

// Exception is a JavaScript exception that reached Go.
type Exception struct {
	// Text is the exception as Context.SetFormatter's function prints it
	// (by default String(exception), with the stack of an Error after it).
	Text string
	// Name and Message are an Error's name and message, empty otherwise.
	Name, Message string
}

// Error returns Text.
func (e *Exception) Error() string { return e.Text }

// SetFormatter sets the function that turns a thrown value into
// Exception.Text. It must not throw (if it does, the default is used).
func (c *Context) SetFormatter(f func(c *Context, v Value) (string, error)) { c.formatter = f }

// Function returns a JavaScript function that calls f.
func (c *Context) Function(name string, length int, f Func) (Value, error) {
	if len(c.funcs) >= 1<<15 {
		return exception, errors.New("qjs: too many host functions")
	}
	c.funcs = append(c.funcs, f)
	p := c.cstring(name)
	if p == 0 {
		return exception, c.oom()
	}
	v := Value{lib.XJS_NewCFunction2(c.tls, c.ctx, fp(hostCall), p, int32(length), lib.EJS_CFUNC_generic_magic, int32(len(c.funcs)-1))}
	libc.Xfree(c.tls, p)
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}

// hostCall is the engine's entry to every Func.
func hostCall(tls *libc.TLS, ctx uintptr, this lib.TJSValue, argc int32, argv uintptr, magic int32) (r lib.TJSValue) {
	c := lookup(lib.XJS_GetContextOpaque(tls, ctx))
	if c == nil || int(magic) >= len(c.funcs) {
		return lib.XJS_Throw(tls, ctx, lib.XJS_NewError(tls, ctx))
	}
	if c.aborted.Load() {
		return c.throwAbort()
	}
	defer func() {
		if p := recover(); p != nil {
			c.Abort(fmt.Errorf("internal error: a host function panicked: %v", p))
			r = c.throwAbort()
		}
	}()
	var args []Value
	if argc > 0 {
		args = unsafe.Slice((*Value)(ptr(argv)), argc)
	}
	v, err := c.funcs[magic](c, Value{this}, args)
	switch {
	case c.aborted.Load():
		if err == nil {
			c.Free(v)
		} else if t, ok := err.(*Throw); ok {
			c.Free(t.Value)
		}
		return c.throwAbort()
	case err != nil:
		return c.throw(err).v
	}
	return v.v
}

// throw makes err the pending exception and returns the exception marker.
func (c *Context) throw(err error) Value {
	var t *Throw
	if errors.As(err, &t) {
		return Value{lib.XJS_Throw(c.tls, c.ctx, t.Value.v)}
	}
	v, e := c.NewError("Error", err.Error())
	if e != nil {
		return exception // the constructor threw; that exception is pending
	}
	return Value{lib.XJS_Throw(c.tls, c.ctx, v.v)}
}

// throwAbort throws the uncatchable error that ends an aborted execution.
func (c *Context) throwAbort() lib.TJSValue {
	msg := "execution aborted"
	if r := c.Reason(); r != nil {
		msg = r.Error()
	}
	v, err := c.NewError("InternalError", msg)
	if err == nil {
		lib.XJS_Throw(c.tls, c.ctx, v.v)
	}
	lib.XJS_SetUncatchableException(c.tls, c.ctx, 1)
	return exception.v
}

// NewError returns new kind(message), kind being a global error constructor
// ("Error", "TypeError", "RangeError", ...).
func (c *Context) NewError(kind, message string) (Value, error) {
	g := c.Global()
	defer c.Free(g)
	ctor, err := c.Get(g, kind)
	if err != nil {
		return exception, err
	}
	defer c.Free(ctor)
	msg, err := c.String(message)
	if err != nil {
		return exception, err
	}
	defer c.Free(msg)
	argv := c.tls.Alloc(int(sizeofValue))
	defer c.tls.Free(int(sizeofValue))
	*(*lib.TJSValue)(ptr(argv)) = msg.v
	v := Value{lib.XJS_CallConstructor(c.tls, c.ctx, ctor.v, 1, argv)}
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}

// Call calls fn with this and args (all borrowed).
func (c *Context) Call(fn, this Value, args ...Value) (Value, error) {
	if c.closed {
		return exception, ErrClosed
	}
	if c.aborted.Load() {
		return exception, c.Reason()
	}
	v := c.callRaw(fn, this, args)
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}

// oom is the error for an allocation by this package that failed.
func (c *Context) oom() error {
	c.Abort(&MemoryError{Limit: c.opts.MemoryLimit})
	return c.Reason()
}

// dropException discards the pending exception, if any.
func (c *Context) dropException() {
	if lib.XJS_HasException(c.tls, c.ctx) != 0 {
		c.Free(Value{lib.XJS_GetException(c.tls, c.ctx)})
	}
}

// exception takes the pending exception and returns it as an error: the
// Abort reason if the context was aborted, else an *Exception.
func (c *Context) exception() error {
	ex := Value{lib.XJS_GetException(c.tls, c.ctx)}
	defer c.Free(ex)
	if c.aborted.Load() {
		return c.Reason()
	}
	return c.describe(ex)
}

// describe turns a thrown value into an *Exception.
func (c *Context) describe(ex Value) *Exception {
	e := &Exception{}
	if c.IsError(ex) {
		e.Name = c.stringProp(ex, "name")
		e.Message = c.stringProp(ex, "message")
	}
	if c.formatter != nil && !c.formatting {
		c.formatting = true
		s, err := c.formatter(c, ex)
		c.formatting = false
		if err == nil {
			e.Text = s
			return e
		}
		if c.aborted.Load() {
			e.Text = c.Reason().Error()
			return e
		}
	}
	s, err := c.ToString(ex)
	if err != nil {
		s = "(an exception that cannot be printed)"
	}
	if st := c.stringProp(ex, "stack"); st != "" {
		s += "\n" + st
	}
	e.Text = s
	return e
}

// stringProp returns obj[name] if it is a string, else "".
func (c *Context) stringProp(obj Value, name string) string {
	v, err := c.Get(obj, name)
	if err != nil {
		return ""
	}
	defer c.Free(v)
	if !v.IsString() {
		return ""
	}
	s, _ := c.ToString(v)
	return s
}

// Describe returns the *Exception a thrown value v makes (v is borrowed).
func (c *Context) Describe(v Value) *Exception { return c.describe(v) }

// StringProp returns obj[name] if it is a string, else "" (a getter runs; an
// exception it throws is dropped).
func (c *Context) StringProp(obj Value, name string) string {
	s := c.stringProp(obj, name)
	if !c.aborted.Load() {
		c.dropException()
	}
	return s
}
