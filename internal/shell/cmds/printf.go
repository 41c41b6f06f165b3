package cmds

import (
	"fmt"

	pf "github.com/desk-dev/desk/internal/shell/printf"
)

func init() { Register("printf", Printf) }

// Printf is GNU coreutils' standalone printf (/usr/bin/printf), for commands
// run through Env.Exec (xargs, env, find -exec, timeout): printf FORMAT
// [ARGUMENT...]. The format is reused until the arguments are consumed. It
// understands %s %b %q %c %d %i %o %u %x %X %e %E %f %F %g %G and %%, the
// flags - + space # 0 ', width and precision (also *), the length modifiers
// h l L j z t q (ignored), and backslash escapes in the format (\" \\ \a \b
// \c \e \f \n \r \t \v \NNN \xHH \uHHHH \UHHHHHHHH). Numeric arguments are C
// constants (decimal, 0x hex, 0 octal, 'c or "c for a character's code);
// a bad one is reported ("printf: ‘abc’: expected a numeric value"), the
// rest is still printed, and the exit status is 1. Floating point follows
// the x86 long double GNU uses (64-bit mantissa) through math/big.
// Not supported: %a and %A (reported as invalid conversions).
func Printf(env *Env, args []string) int {
	return printf(env, args, false)
}

// printf runs printf; bash selects the shell builtin's flavour (see
// PrintfBuiltin). The formats are package printf's.
func printf(env *Env, args []string, bash bool) int {
	if len(args) > 1 && args[1] == "--" {
		args = append([]string{args[0]}, args[2:]...)
	}
	if len(args) < 2 {
		if bash {
			fmt.Fprintln(env.Stderr, "printf: usage: printf [-v var] format [arguments]")
			return 2
		}
		missingOperand(env, "printf")
		return 1
	}
	flavor := pf.Coreutils
	if bash {
		flavor = pf.Bash
	}
	return pf.Format(&pf.Env{
		Out:        env.Stdout,
		Errorf:     func(format string, a ...any) { env.Errorf("printf", format, a...) },
		Quote:      func(s string) string { return quote(env, s) },
		QuoteShell: func(s string) string { return quoteShell(env, s) },
		Canceled:   env.Canceled,
	}, flavor, args[1], args[2:])
}

// MaxPrintfField is the largest field width and precision printf and the
// printf builtin take (package printf's MaxField).
const MaxPrintfField = pf.MaxField

// Reserver is a printf destination told a field's size before a field
// over MaxPrintfField is refused (package printf's Reserver).
type Reserver = pf.Reserver
