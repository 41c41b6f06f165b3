package search

import (
	"errors"
	"fmt"
	"time"
)

// Defaults of Limits. A zero field takes its default.
const (
	DefaultMaxEntries      = 100_000          // directory entries one walk reads
	DefaultMaxBytes        = 64 << 20         // file bytes one grep reads
	DefaultMaxFileBytes    = 8 << 20          // grep skips larger files
	DefaultMaxPatternBytes = 1024             // a glob or an expression
	DefaultMaxRegexpInsts  = 2000             // compiled program of an expression
	DefaultMaxTime         = 30 * time.Second // one find or grep call
)

// Limits bound one find or grep call, so that a hostile tree or pattern
// costs the caller its answer, not the server its memory.
type Limits struct {
	// MaxEntries bounds the directory entries a walk reads (listed, whether
	// or not they match). Default 100,000.
	MaxEntries int
	// MaxBytes bounds the file bytes grep reads, listings' inline content
	// included. Default 64 MiB.
	MaxBytes int64
	// MaxFileBytes: grep skips (and counts) larger files. Default 8 MiB.
	MaxFileBytes int64
	// MaxPatternBytes bounds a glob or an expression. Default 1024.
	MaxPatternBytes int
	// MaxRegexpInsts bounds the compiled program of an expression
	// (regexp/syntax instructions); matching costs up to one step per
	// instruction per byte. Default 2000.
	MaxRegexpInsts int
	// MaxTime bounds the time of one call; past it the call stops as at the
	// other limits, with what it found. Default 30s.
	MaxTime time.Duration
}

// WithDefaults returns l with each zero field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxPatternBytes <= 0 {
		l.MaxPatternBytes = DefaultMaxPatternBytes
	}
	if l.MaxRegexpInsts <= 0 {
		l.MaxRegexpInsts = DefaultMaxRegexpInsts
	}
	if l.MaxTime <= 0 {
		l.MaxTime = DefaultMaxTime
	}
	return l
}

// ErrLimit is wrapped by every LimitError.
var ErrLimit = errors.New("search limit reached")

// LimitError says which limit stopped a call.
type LimitError struct {
	Limit string // the Limits field, e.g. "MaxEntries"
	Value int64  // its value (nanoseconds for MaxTime)
}

// Error reads "search limit reached: MaxEntries (100000)".
func (e *LimitError) Error() string {
	if e.Limit == "MaxTime" {
		return fmt.Sprintf("%v: %s (%v)", ErrLimit, e.Limit, time.Duration(e.Value))
	}
	return fmt.Sprintf("%v: %s (%d)", ErrLimit, e.Limit, e.Value)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// AsLimit returns the LimitError in err's chain, if any.
func AsLimit(err error) (*LimitError, bool) {
	var le *LimitError
	ok := errors.As(err, &le)
	return le, ok
}
