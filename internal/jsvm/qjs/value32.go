//go:build 386 || arm

package qjs

import (
	"math"
	"unsafe"

	lib "modernc.org/libquickjs"
)

// The representation of a JSValue on 32-bit targets: NaN-boxing in an
// uint64, the tag in the high 32 bits (JS_NAN_BOXING in quickjs.h).

const sizeofValue = unsafe.Sizeof(lib.TJSValue(0))

const floatTagAddend = 0x7ff80000 - lib.EJS_TAG_FIRST + 1

const nanValue = 0x7ff8000000000000 - (floatTagAddend << 32)

func mkTag(t int32) lib.TJSValue { return lib.TJSValue(uint64(uint32(t)) << 32) }

func valueTag(v lib.TJSValue) int32 {
	r := int32(v >> 32)
	first := int32(lib.EJS_TAG_FIRST)
	if uint32(r)-uint32(first) >= lib.EJS_TAG_FLOAT64-lib.EJS_TAG_FIRST {
		r = lib.EJS_TAG_FLOAT64
	}
	return r
}

func mkInt32(t int32, n int32) lib.TJSValue {
	return lib.TJSValue(uint64(uint32(t))<<32 | uint64(uint32(n)))
}

func valueInt32(v lib.TJSValue) int32 { return int32(v) }

func mkFloat(f float64) lib.TJSValue {
	u := math.Float64bits(f)
	if u&0x7fffffffffffffff > 0x7ff0000000000000 {
		n := int64(nanValue)
		return lib.TJSValue(n)
	}
	return lib.TJSValue(u - uint64(floatTagAddend)<<32)
}

func valueFloat(v lib.TJSValue) float64 {
	return math.Float64frombits(uint64(v) + uint64(floatTagAddend)<<32)
}

func valuePtr(v lib.TJSValue) uintptr { return uintptr(v) }
