//go:build !linux

package jsvm

import "errors"

// threadID is 0: threads are not addressed on this system.
func threadID() int { return 0 }

// lowerPriority is not supported here.
func lowerPriority(int) error { return errors.New("not supported on this system") }
