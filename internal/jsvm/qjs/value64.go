//go:build !(386 || arm)

package qjs

import (
	"unsafe"

	lib "modernc.org/libquickjs"
)

// The representation of a JSValue on 64-bit targets: a union payload (the
// widest member, an uint64) and a tag. Narrow members are accessed in the
// value domain (JS_MKVAL zero-extends into the low 32 bits), which keeps
// big-endian targets right.

const sizeofValue = unsafe.Sizeof(lib.TJSValue{})

func mkTag(t int32) lib.TJSValue { return lib.TJSValue{Ftag: int64(t)} }

func valueTag(v lib.TJSValue) int32 { return int32(v.Ftag) }

func mkInt32(t int32, n int32) (r lib.TJSValue) {
	*(*uint64)(unsafe.Pointer(&r)) = uint64(uint32(n))
	r.Ftag = int64(t)
	return r
}

func valueInt32(v lib.TJSValue) int32 { return int32(*(*uint64)(unsafe.Pointer(&v))) }

func mkFloat(f float64) (r lib.TJSValue) {
	*(*float64)(unsafe.Pointer(&r)) = f
	r.Ftag = lib.EJS_TAG_FLOAT64
	return r
}

func valueFloat(v lib.TJSValue) float64 { return *(*float64)(unsafe.Pointer(&v)) }

func valuePtr(v lib.TJSValue) uintptr { return *(*uintptr)(unsafe.Pointer(&v)) }
