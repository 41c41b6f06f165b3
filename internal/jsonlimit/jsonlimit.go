package jsonlimit

import "fmt"

// DefaultMaxDepth is the nesting depth request bodies may have: far beyond
// any tool input or execution input a person writes.
const DefaultMaxDepth = 64

// DepthError is the error of JSON text nested deeper than Max.
type DepthError struct{ Max int }

// Error says what the bound is.
func (e *DepthError) Error() string {
	return fmt.Sprintf("JSON nested deeper than %d levels", e.Max)
}

// CheckDepth returns a *DepthError when b nests arrays and objects deeper
// than max. It does not validate b otherwise: brackets inside strings are
// skipped, and malformed text is the decoder's to report.
func CheckDepth(b []byte, max int) error {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > max {
				return &DepthError{Max: max}
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}
