package testenv

import "runtime"

// Allocated returns the bytes f allocates (the growth of
// runtime.MemStats.TotalAlloc, after a collection), for the hostile-input
// tests that check a call's memory stays under a bound.
func Allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}
