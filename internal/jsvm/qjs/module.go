package qjs

import (
	"errors"
	"fmt"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/libquickjs"
)

// Module is what Options.Load returns for a module name: source text, or the
// exports of a native module.
type Module struct {
	// Source is the module's JavaScript, compiled with the module's name as
	// its file name (stack traces show it).
	Source string
	// Meta are extra properties of the module's import.meta (url, filename,
	// dirname...).
	Meta map[string]string
	// Exports, when Source is empty, makes a native module: each of Names
	// is exported as Exports[name], and the default export is Exports
	// itself. Load gives up its reference to Exports.
	Exports Value
	Names   []string
}

// EvalModule compiles src as the module name (its imports are resolved with
// Options.Normalize and Options.Load), evaluates it, and returns the module's
// namespace and the promise of its evaluation (which top-level await may
// leave pending). The caller frees both.
func (c *Context) EvalModule(src, name string, meta map[string]string) (ns, promise Value, err error) {
	if c.aborted.Load() {
		return exception, exception, c.Reason()
	}
	mod, err := c.compileModule(src, name)
	if err != nil {
		return exception, exception, err
	}
	m := valuePtr(mod.v)
	if err := c.setMeta(m, meta); err != nil {
		c.Free(mod)
		return exception, exception, err
	}
	if lib.XJS_ResolveModule(c.tls, c.ctx, mod.v) < 0 {
		c.Free(mod)
		return exception, exception, c.exception()
	}
	promise = Value{lib.XJS_EvalFunction(c.tls, c.ctx, mod.v)} // consumes mod
	if promise.isException() {
		return exception, exception, c.exception()
	}
	ns = Value{lib.XJS_GetModuleNamespace(c.tls, c.ctx, m)}
	if ns.isException() {
		c.Free(promise)
		return exception, exception, c.exception()
	}
	return ns, promise, nil
}

// compileModule compiles src as a module named name and returns the module
// value (tag JS_TAG_MODULE).
func (c *Context) compileModule(src, name string) (Value, error) {
	v := c.compileModuleRaw(src, name)
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}

// compileModuleRaw is compileModule leaving a failure as the pending
// exception (the exception marker is returned).
func (c *Context) compileModuleRaw(src, name string) Value {
	src = ToValidUTF8(src)
	ps := c.cstring(src)
	pn := c.cstring(name)
	defer libc.Xfree(c.tls, ps)
	defer libc.Xfree(c.tls, pn)
	if ps == 0 || pn == 0 {
		c.oom()
		return Value{c.throwAbort()}
	}
	return Value{lib.XJS_Eval(c.tls, c.ctx, ps, lib.Tsize_t(len(src)), pn, lib.MJS_EVAL_TYPE_MODULE|lib.MJS_EVAL_FLAG_COMPILE_ONLY)}
}

// setMeta sets properties of the import.meta of the module m.
func (c *Context) setMeta(m uintptr, meta map[string]string) error {
	if len(meta) == 0 {
		return nil
	}
	obj := Value{lib.XJS_GetImportMeta(c.tls, c.ctx, m)}
	if obj.isException() {
		return c.exception()
	}
	defer c.Free(obj)
	for k, s := range meta {
		v, err := c.String(s)
		if err != nil {
			return err
		}
		if err := c.Set(obj, k, v); err != nil {
			return err
		}
	}
	if c.metaHook != nil {
		return c.metaHook(c, obj)
	}
	return nil
}

// moduleNormalize is the engine's module name normalizer.
func moduleNormalize(tls *libc.TLS, ctx, base, name, opaque uintptr) (r uintptr) {
	c := lookup(opaque)
	if c == nil {
		return 0
	}
	defer func() {
		if p := recover(); p != nil {
			c.Abort(fmt.Errorf("internal error: the module normalizer panicked: %v", p))
			c.throwAbort()
			r = 0
		}
	}()
	if c.aborted.Load() {
		c.throwAbort()
		return 0
	}
	if c.opts.Normalize == nil {
		c.throw(errors.New("modules cannot be imported here"))
		return 0
	}
	out, err := c.opts.Normalize(libc.GoString(base), libc.GoString(name))
	if c.aborted.Load() {
		c.throwAbort()
		return 0
	}
	if err != nil {
		c.throw(err)
		return 0
	}
	p := c.cstring(out)
	if p == 0 {
		c.throwAbort()
		return 0
	}
	defer libc.Xfree(tls, p)
	return lib.Xjs_strdup(tls, ctx, p)
}

// moduleLoader is the engine's module loader: it returns a JSModuleDef*.
func moduleLoader(tls *libc.TLS, ctx, cname, opaque uintptr, attrs lib.TJSValue) (r uintptr) {
	c := lookup(opaque)
	if c == nil {
		return 0
	}
	defer func() {
		if p := recover(); p != nil {
			c.Abort(fmt.Errorf("internal error: the module loader panicked: %v", p))
			c.throwAbort()
			r = 0
		}
	}()
	if c.aborted.Load() {
		c.throwAbort()
		return 0
	}
	name := libc.GoString(cname)
	if c.opts.Load == nil {
		c.throw(fmt.Errorf("cannot load module %s", name))
		return 0
	}
	mod, err := c.opts.Load(name)
	if c.aborted.Load() {
		if mod != nil {
			c.Free(mod.Exports)
		}
		c.throwAbort()
		return 0
	}
	if err != nil {
		c.throw(err)
		return 0
	}
	if mod.Source == "" && mod.Exports.IsObject() {
		return c.nativeModule(name, mod)
	}
	v := c.compileModuleRaw(mod.Source, name)
	if v.isException() {
		return 0 // the SyntaxError is pending, with its file and line
	}
	m := valuePtr(v.v)
	c.Free(v) // the context's list of modules keeps it
	if err := c.setMeta(m, mod.Meta); err != nil {
		c.rethrow(err)
		return 0
	}
	return m
}

// rethrow makes an error from this package pending again as an exception
// (its original value is gone: a SyntaxError keeps its text).
func (c *Context) rethrow(err error) {
	if c.aborted.Load() {
		c.throwAbort()
		return
	}
	var e *Exception
	if errors.As(err, &e) && e.Name != "" {
		if v, nerr := c.NewError(e.Name, e.Message); nerr == nil {
			lib.XJS_Throw(c.tls, c.ctx, v.v)
			return
		}
		return
	}
	c.throw(err)
}

// nativeModule makes a module whose exports are mod.Exports's properties.
func (c *Context) nativeModule(name string, mod *Module) uintptr {
	pn := c.cstring(name)
	defer libc.Xfree(c.tls, pn)
	m := lib.XJS_NewCModule(c.tls, c.ctx, pn, fp(nativeInit))
	if m == 0 {
		c.Free(mod.Exports)
		return 0
	}
	for _, n := range append(mod.Names, "default") {
		p := c.cstring(n)
		rc := lib.XJS_AddModuleExport(c.tls, c.ctx, m, p)
		libc.Xfree(c.tls, p)
		if rc < 0 {
			c.Free(mod.Exports)
			return 0
		}
	}
	if c.natives == nil {
		c.natives = map[string]native{}
	}
	c.natives[name] = native{exports: mod.Exports, names: mod.Names}
	return m
}

// native is a native module waiting for its init.
type native struct {
	exports Value
	names   []string
}

// nativeInit is a native module's init function: it sets the exports.
func nativeInit(tls *libc.TLS, ctx, m uintptr) (r int32) {
	c := lookup(lib.XJS_GetContextOpaque(tls, ctx))
	if c == nil {
		return -1
	}
	defer func() {
		if p := recover(); p != nil {
			c.Abort(fmt.Errorf("internal error: a native module's init panicked: %v", p))
			c.throwAbort()
			r = -1
		}
	}()
	atom := lib.XJS_GetModuleName(tls, ctx, m)
	p := lib.XJS_AtomToCStringLen(tls, ctx, 0, atom)
	lib.XJS_FreeAtom(tls, ctx, atom)
	if p == 0 {
		return -1
	}
	name := libc.GoString(p)
	lib.XJS_FreeCString(tls, ctx, p)
	nm, ok := c.natives[name]
	if !ok {
		c.throw(fmt.Errorf("native module %s has no exports", name))
		return -1
	}
	delete(c.natives, name)
	defer c.Free(nm.exports)
	set := func(n string, v Value) bool {
		pn := c.cstring(n)
		defer libc.Xfree(tls, pn)
		return lib.XJS_SetModuleExport(tls, ctx, m, pn, v.v) >= 0 // consumes v
	}
	for _, n := range nm.names {
		v, err := c.Get(nm.exports, n)
		if err != nil {
			c.rethrow(err)
			return -1
		}
		if !set(n, v) {
			return -1
		}
	}
	if !set("default", c.Dup(nm.exports)) {
		return -1
	}
	return 0
}

// EvalScript evaluates src as global code with the file name filename and
// returns its completion value.
func (c *Context) EvalScript(src, filename string) (Value, error) {
	if c.aborted.Load() {
		return exception, c.Reason()
	}
	src = ToValidUTF8(src)
	ps := c.cstring(src)
	pn := c.cstring(filename)
	defer libc.Xfree(c.tls, ps)
	defer libc.Xfree(c.tls, pn)
	v := Value{lib.XJS_Eval(c.tls, c.ctx, ps, lib.Tsize_t(len(src)), pn, lib.MJS_EVAL_TYPE_GLOBAL)}
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}

// CompileScript compiles src as global code and returns its bytecode, for
// RunBytecode on any Context of this process. The functions it defines keep
// no source text (Function.prototype.toString shows none) but keep their
// line numbers.
func (c *Context) CompileScript(src, filename string) ([]byte, error) {
	lib.XJS_SetStripInfo(c.tls, c.rt, lib.MJS_STRIP_SOURCE)
	defer lib.XJS_SetStripInfo(c.tls, c.rt, 0)
	ps := c.cstring(src)
	pn := c.cstring(filename)
	defer libc.Xfree(c.tls, ps)
	defer libc.Xfree(c.tls, pn)
	v := Value{lib.XJS_Eval(c.tls, c.ctx, ps, lib.Tsize_t(len(src)), pn, lib.MJS_EVAL_TYPE_GLOBAL|lib.MJS_EVAL_FLAG_COMPILE_ONLY)}
	if v.isException() {
		return nil, c.exception()
	}
	defer lib.XFreeValue(c.tls, c.ctx, v.v)
	plen := c.tls.Alloc(8)
	defer c.tls.Free(8)
	p := lib.XJS_WriteObject(c.tls, c.ctx, plen, v.v, lib.MJS_WRITE_OBJ_BYTECODE)
	if p == 0 {
		return nil, c.exception()
	}
	n := int(*(*lib.Tsize_t)(ptr(plen)))
	b := append([]byte(nil), unsafe.Slice((*byte)(ptr(p)), n)...)
	lib.Xjs_free(c.tls, c.ctx, p)
	return b, nil
}

// RunBytecode runs global code compiled by CompileScript and returns its
// completion value.
func (c *Context) RunBytecode(b []byte) (Value, error) {
	if c.aborted.Load() {
		return exception, c.Reason()
	}
	p := c.cbytes(b)
	if p == 0 {
		return exception, c.oom()
	}
	fn := Value{lib.XJS_ReadObject(c.tls, c.ctx, p, lib.Tsize_t(len(b)), lib.MJS_READ_OBJ_BYTECODE)}
	libc.Xfree(c.tls, p)
	if fn.isException() {
		return fn, c.exception()
	}
	// Bytecode is not compiled here: record its frames (see frames.go).
	c.noteCode(fn.v)
	v := Value{lib.XJS_EvalFunction(c.tls, c.ctx, fn.v)} // consumes fn
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}
