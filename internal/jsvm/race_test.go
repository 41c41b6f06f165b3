//go:build race

package jsvm

// inputScale scales the inputs of the long built-in calls of the tests: the
// race detector makes the engine many times slower.
const inputScale = 0.05
