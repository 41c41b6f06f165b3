package posixre

import (
	"errors"
	"fmt"
	"regexp/syntax"
)

// ErrTooLarge is wrapped by Check's error for an expression over its
// bounds.
var ErrTooLarge = errors.New("expression too large")

// Check checks that expr (RE2 syntax, as regexp.Compile takes it) is
// at most maxBytes long and compiles to at most maxInsts instructions. It
// estimates the size from the parse tree first, so a hostile expression
// such as "(?:x{1000}){1000}" is refused before a program is built for it.
func Check(expr string, maxBytes, maxInsts int) error {
	if len(expr) > maxBytes {
		return fmt.Errorf("%w: longer than %d bytes", ErrTooLarge, maxBytes)
	}
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return err
	}
	// The estimate is coarse (up to about twice the program): only one
	// well over the cap is refused before it is compiled.
	if n := EstimateInsts(re, 4*int64(maxInsts)+1); n > 4*int64(maxInsts) {
		return fmt.Errorf("%w: over %d instructions", ErrTooLarge, maxInsts)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return err
	}
	if len(prog.Inst) > maxInsts {
		return fmt.Errorf("%w: %d instructions, over %d", ErrTooLarge, len(prog.Inst), maxInsts)
	}
	return nil
}

// EstimateInsts returns an upper bound of the instructions re compiles to
// (each repetition counts its body as often as it may repeat), saturating
// at limit, without compiling anything: a hostile expression such as
// "(?:x{1000}){1000}" is measured in time linear in its parse tree.
func EstimateInsts(re *syntax.Regexp, limit int64) int64 {
	sat := func(n int64) int64 { return min(n, limit) }
	switch re.Op {
	case syntax.OpLiteral:
		return sat(int64(len(re.Rune)) + 1)
	case syntax.OpConcat, syntax.OpAlternate:
		n := int64(len(re.Sub))
		for _, s := range re.Sub {
			if n = sat(n + EstimateInsts(s, limit)); n == limit {
				break
			}
		}
		return n
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		return sat(EstimateInsts(re.Sub[0], limit) + 2)
	case syntax.OpRepeat:
		times := int64(re.Max)
		if times < 0 {
			times = int64(re.Min) + 1
		}
		body := EstimateInsts(re.Sub[0], limit) + 2
		times = max(times, 1)
		if body > limit/times { // saturate instead of overflowing
			return limit
		}
		return sat(body * times)
	case syntax.OpCharClass:
		return sat(int64(len(re.Rune))/2 + 1)
	}
	return 1
}
