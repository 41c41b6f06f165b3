//go:build !race

package jsvm

// inputScale scales the inputs of the long built-in calls of the tests (see
// race_test.go).
const inputScale = 1
