package qjs

import (
	"math"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/libquickjs"
)

// Value is a JavaScript value. Values with a reference (strings, objects,
// symbols, big integers) must be given to Context.Free once; the others
// (undefined, null, booleans, numbers) may be.
type Value struct{ v lib.TJSValue }

// Constants.
var (
	Undefined = Value{mkTag(lib.EJS_TAG_UNDEFINED)}
	Null      = Value{mkTag(lib.EJS_TAG_NULL)}
	exception = Value{mkTag(lib.EJS_TAG_EXCEPTION)}
)

func (v Value) tag() int32 { return valueTag(v.v) }

func (v Value) isException() bool { return v.tag() == lib.EJS_TAG_EXCEPTION }

// IsUndefined reports whether v is undefined.
func (v Value) IsUndefined() bool { return v.tag() == lib.EJS_TAG_UNDEFINED }

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.tag() == lib.EJS_TAG_NULL }

// IsNullish reports whether v is undefined or null.
func (v Value) IsNullish() bool { return v.IsUndefined() || v.IsNull() }

// IsString reports whether v is a string.
func (v Value) IsString() bool {
	t := v.tag()
	return t == lib.EJS_TAG_STRING || t == lib.EJS_TAG_STRING_ROPE
}

// IsNumber reports whether v is a number.
func (v Value) IsNumber() bool {
	t := v.tag()
	return t == lib.EJS_TAG_INT || t == lib.EJS_TAG_FLOAT64
}

// IsBool reports whether v is a boolean.
func (v Value) IsBool() bool { return v.tag() == lib.EJS_TAG_BOOL }

// IsObject reports whether v is an object (functions and arrays included).
func (v Value) IsObject() bool { return v.tag() == lib.EJS_TAG_OBJECT }

// Same reports whether v and w are the same reference (or the same
// non-reference value bits).
func (v Value) Same(w Value) bool { return v.v == w.v }

// Bool returns a boolean.
func Bool(b bool) Value {
	if b {
		return Value{mkInt32(lib.EJS_TAG_BOOL, 1)}
	}
	return Value{mkInt32(lib.EJS_TAG_BOOL, 0)}
}

// Float returns a number.
func Float(f float64) Value {
	if f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32 && !(f == 0 && math.Signbit(f)) {
		return Value{mkInt32(lib.EJS_TAG_INT, int32(f))}
	}
	return Value{mkFloat(f)}
}

// Int returns a number (exact up to 2^53).
func Int(n int64) Value {
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		return Value{mkInt32(lib.EJS_TAG_INT, int32(n))}
	}
	return Value{mkFloat(float64(n))}
}

// Free releases v.
func (c *Context) Free(v Value) {
	if v.tag() < 0 && !c.closed {
		lib.XFreeValue(c.tls, c.ctx, v.v)
	}
}

// Dup returns another reference to v (to be freed on its own).
func (c *Context) Dup(v Value) Value {
	if v.tag() < 0 {
		return Value{lib.XDupValue(c.tls, c.ctx, v.v)}
	}
	return v
}

// cbytes copies b to C memory; free it with libc.Xfree.
func (c *Context) cbytes(b []byte) uintptr {
	p := libc.Xmalloc(c.tls, lib.Tsize_t(len(b)+1))
	if p == 0 {
		return 0
	}
	dst := unsafe.Slice((*byte)(ptr(p)), len(b)+1)
	copy(dst, b)
	dst[len(b)] = 0
	return p
}

// cstring is cbytes for a string.
func (c *Context) cstring(s string) uintptr {
	return c.cbytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// String returns a string. Bytes of s that are not UTF-8 become U+FFFD as
// the WHATWG decoder makes them (the engine would drop them).
func (c *Context) String(s string) (Value, error) {
	s = ToValidUTF8(s)
	p := c.cstring(s)
	if p == 0 {
		return exception, c.oom()
	}
	v := Value{lib.XJS_NewStringLen(c.tls, c.ctx, p, lib.Tsize_t(len(s)))}
	libc.Xfree(c.tls, p)
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}

// ArrayBuffer returns a new ArrayBuffer holding a copy of b.
func (c *Context) ArrayBuffer(b []byte) (Value, error) {
	p := c.cbytes(b)
	if p == 0 {
		return exception, c.oom()
	}
	v := Value{lib.XJS_NewArrayBufferCopy(c.tls, c.ctx, p, lib.Tsize_t(len(b)))}
	libc.Xfree(c.tls, p)
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}

// Object returns a new plain object.
func (c *Context) Object() Value { return Value{lib.XJS_NewObject(c.tls, c.ctx)} }

// Array returns a new empty array.
func (c *Context) Array() Value { return Value{lib.XJS_NewArray(c.tls, c.ctx)} }

// ToString converts v with JavaScript's String(v) and returns it as UTF-8
// (a lone surrogate becomes U+FFFD, as TextEncoder makes it).
func (c *Context) ToString(v Value) (string, error) {
	if c.closed {
		return "", ErrClosed
	}
	plen := c.tls.Alloc(8)
	defer c.tls.Free(8)
	p := lib.XJS_ToCStringLen2(c.tls, c.ctx, plen, v.v, 0)
	if p == 0 {
		return "", c.exception()
	}
	n := int(*(*lib.Tsize_t)(ptr(plen)))
	s := fromWTF8(unsafe.Slice((*byte)(ptr(p)), n))
	lib.XJS_FreeCString(c.tls, c.ctx, p)
	return s, nil
}

// ToFloat converts v with Number(v).
func (c *Context) ToFloat(v Value) (float64, error) {
	switch v.tag() {
	case lib.EJS_TAG_INT:
		return float64(valueInt32(v.v)), nil
	case lib.EJS_TAG_FLOAT64:
		return valueFloat(v.v), nil
	}
	p := c.tls.Alloc(8)
	defer c.tls.Free(8)
	if lib.XJS_ToFloat64(c.tls, c.ctx, p, v.v) < 0 {
		return 0, c.exception()
	}
	return *(*float64)(ptr(p)), nil
}

// ToBool converts v with Boolean(v).
func (c *Context) ToBool(v Value) bool {
	return lib.XJS_ToBool(c.tls, c.ctx, v.v) > 0
}

// Bytes returns a copy of the bytes v views: an ArrayBuffer, a typed array
// or a DataView. ok is false for anything else.
func (c *Context) Bytes(v Value) (b []byte, ok bool) {
	if !v.IsObject() {
		return nil, false
	}
	p := c.tls.Alloc(24)
	defer c.tls.Free(24)
	if buf := lib.XJS_GetArrayBuffer(c.tls, c.ctx, p, v.v); buf != 0 {
		n := int(*(*lib.Tsize_t)(ptr(p)))
		return append([]byte(nil), unsafe.Slice((*byte)(ptr(buf)), n)...), true
	}
	c.dropException()
	ab := Value{lib.XJS_GetTypedArrayBuffer(c.tls, c.ctx, v.v, p, p+8, p+16)}
	if ab.isException() {
		c.dropException()
		return nil, false
	}
	defer c.Free(ab)
	off := int(*(*lib.Tsize_t)(ptr(p)))
	n := int(*(*lib.Tsize_t)(ptr(p + 8)))
	buf := lib.XJS_GetArrayBuffer(c.tls, c.ctx, p+16, ab.v)
	if buf == 0 {
		c.dropException() // detached
		return nil, false
	}
	return append([]byte(nil), unsafe.Slice((*byte)(ptr(buf+uintptr(off))), n)...), true
}

// Get returns obj[name].
func (c *Context) Get(obj Value, name string) (Value, error) {
	p := c.cstring(name)
	if p == 0 {
		return exception, c.oom()
	}
	v := Value{lib.XJS_GetPropertyStr(c.tls, c.ctx, obj.v, p)}
	libc.Xfree(c.tls, p)
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}

// Set sets obj[name] = val, consuming val.
func (c *Context) Set(obj Value, name string, val Value) error {
	p := c.cstring(name)
	if p == 0 {
		c.Free(val)
		return c.oom()
	}
	r := lib.XJS_SetPropertyStr(c.tls, c.ctx, obj.v, p, val.v)
	libc.Xfree(c.tls, p)
	if r < 0 {
		return c.exception()
	}
	return nil
}

// SetIndex sets arr[i] = val, consuming val.
func (c *Context) SetIndex(arr Value, i int, val Value) error {
	if lib.XJS_SetPropertyUint32(c.tls, c.ctx, arr.v, uint32(i), val.v) < 0 {
		return c.exception()
	}
	return nil
}

// GetIndex returns arr[i].
func (c *Context) GetIndex(arr Value, i int) (Value, error) {
	v := Value{lib.XJS_GetPropertyUint32(c.tls, c.ctx, arr.v, uint32(i))}
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}

// IsFunction reports whether v can be called.
func (c *Context) IsFunction(v Value) bool {
	return v.IsObject() && lib.XJS_IsFunction(c.tls, c.ctx, v.v) != 0
}

// IsError reports whether v is an Error object.
func (c *Context) IsError(v Value) bool {
	return v.IsObject() && lib.XJS_IsError(c.tls, c.ctx, v.v) != 0
}

// Global returns the global object.
func (c *Context) Global() Value { return Value{lib.XJS_GetGlobalObject(c.tls, c.ctx)} }

// ParseJSON parses JSON text (JSON.parse).
func (c *Context) ParseJSON(text []byte) (Value, error) {
	p := c.cbytes(text)
	if p == 0 {
		return exception, c.oom()
	}
	name := c.cstring("<input>")
	v := Value{lib.XJS_ParseJSON(c.tls, c.ctx, p, lib.Tsize_t(len(text)), name)}
	libc.Xfree(c.tls, name)
	libc.Xfree(c.tls, p)
	if v.isException() {
		return v, c.exception()
	}
	return v, nil
}

// Stringify returns JSON.stringify(v); ok is false when that is undefined
// (v is undefined, a function or a symbol).
func (c *Context) Stringify(v Value) (s string, ok bool, err error) {
	r := Value{lib.XJS_JSONStringify(c.tls, c.ctx, v.v, Undefined.v, Undefined.v)}
	if r.isException() {
		return "", false, c.exception()
	}
	defer c.Free(r)
	if r.IsUndefined() {
		return "", false, nil
	}
	s, err = c.ToString(r)
	return s, err == nil, err
}

// ptr turns an address of C memory (modernc.org/libc allocates it outside
// the Go heap, so it never moves) into a pointer.
func ptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }
