package cmds

import (
	"bufio"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

func init() { Register("seq", Seq) }

// seqOperand is one parsed number: its exact value (nil for inf), its
// float value, and the width and precision GNU seq derives from its text.
type seqOperand struct {
	rat   *big.Rat
	f     float64
	width int
	prec  int // -1: unknown (inf, hex): use %g
}

// Seq prints numbers from FIRST (default 1) by INC (default 1) to LAST, as
// GNU seq: -s SEP between numbers, -w equal width (zero padded), -f FORMAT a
// printf floating-point format. Decimal operands are added exactly, so
// "seq 0 0.1 1" ends at 1.0; the precision of the output is the largest
// of FIRST's and INC's. "inf" as LAST runs until the command is cancelled.
func Seq(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "seq", args[1:], optSpec{shorts: "f:s:w",
		longs: []string{"format=", "separator=", "equal-width"}, negNumbers: true})
	if !ok {
		return 1
	}
	sep, format, hasFormat, wide := "\n", "", false, false
	for _, o := range opts {
		switch o.name {
		case "f", "format":
			format, hasFormat = o.val, true
		case "s", "separator":
			sep = o.val
		case "w", "equal-width":
			wide = true
		}
	}
	if len(ops) == 0 {
		missingOperand(env, "seq")
		return 1
	}
	if len(ops) > 3 {
		tryHelp(env, "seq", "extra operand %s", quote(env, ops[3]))
		return 1
	}
	if hasFormat && wide {
		tryHelp(env, "seq", "format string may not be specified when printing equal width strings")
		return 1
	}
	var nums []seqOperand
	for _, a := range ops {
		n, msg := parseSeqOperand(env, a)
		if msg != "" {
			tryHelp(env, "seq", "%s", msg)
			return 1
		}
		nums = append(nums, n)
	}
	first, step, last := seqOperand{rat: big.NewRat(1, 1), f: 1, width: 1}, seqOperand{rat: big.NewRat(1, 1), f: 1, width: 1}, nums[len(nums)-1]
	if len(nums) >= 2 {
		first = nums[0]
	}
	if len(nums) == 3 {
		step = nums[1]
		if step.f == 0 {
			tryHelp(env, "seq", "invalid Zero increment value: %s", quote(env, ops[1]))
			return 1
		}
	}
	var verb func(x float64) string
	if hasFormat {
		v, msg := seqFormat(env, format)
		if msg != "" {
			env.Errorf("seq", "%s", msg)
			return 1
		}
		verb = v
	}
	prec := max(first.prec, step.prec)
	if first.prec < 0 || step.prec < 0 || last.prec < 0 {
		prec = -1
	}
	width := 0
	if wide && prec >= 0 {
		fw := first.width + prec - first.prec
		lw := last.width + prec - last.prec
		if last.prec > 0 && prec == 0 {
			lw--
		}
		if last.prec == 0 && prec > 0 {
			lw++
		}
		if first.prec == 0 && prec > 0 {
			fw++
		}
		width = max(fw, lw)
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	printed := false
	emit := func(s string) bool {
		if printed {
			w.WriteString(sep)
		}
		printed = true
		w.WriteString(s)
		return true
	}
	pad := func(s string) string {
		if len(s) >= width {
			return s
		}
		z := strings.Repeat("0", width-len(s))
		if strings.HasPrefix(s, "-") {
			return "-" + z + s[1:]
		}
		return z + s
	}
	done := func() int {
		if printed {
			w.WriteString("\n")
		}
		if err := w.Flush(); err != nil {
			return 1
		}
		return 0
	}
	up := step.f > 0
	exact := first.rat != nil && step.rat != nil && last.rat != nil
	if !exact {
		// inf or nan somewhere: float arithmetic, as GNU's long double.
		for i := 0; ; i++ {
			if i&1023 == 0 && (env.Canceled() || w.Flush() != nil) {
				return 1
			}
			x := first.f
			if i > 0 {
				// Not for the first: 0*inf is NaN (GNU prints first first).
				x += float64(i) * step.f
			}
			if up && x > last.f || !up && x < last.f || math.IsNaN(x) {
				break
			}
			switch {
			case verb != nil:
				emit(verb(x))
			case prec >= 0:
				emit(pad(strconv.FormatFloat(x, 'f', prec, 64)))
			default:
				emit(cFormatG(x, 6))
			}
		}
		return done()
	}
	// Integers in range: a fast path.
	if verb == nil && first.rat.IsInt() && step.rat.IsInt() && last.rat.IsInt() &&
		first.rat.Num().IsInt64() && step.rat.Num().IsInt64() && last.rat.Num().IsInt64() && prec == 0 {
		a, s, b := first.rat.Num().Int64(), step.rat.Num().Int64(), last.rat.Num().Int64()
		if b < math.MaxInt64-abs64(s) && b > math.MinInt64+abs64(s) {
			var buf []byte
			for i, x := 0, a; s > 0 && x <= b || s < 0 && x >= b; i, x = i+1, x+s {
				if i&1023 == 0 && (env.Canceled() || w.Flush() != nil) {
					return 1
				}
				buf = strconv.AppendInt(buf[:0], x, 10)
				emit(pad(string(buf)))
			}
			return done()
		}
	}
	x := new(big.Rat).Set(first.rat)
	for i := 0; ; i++ {
		if i&1023 == 0 && (env.Canceled() || w.Flush() != nil) {
			return 1
		}
		c := x.Cmp(last.rat)
		if up && c > 0 || !up && c < 0 {
			break
		}
		switch {
		case verb != nil:
			f, _ := x.Float64()
			emit(verb(f))
		case prec >= 0:
			emit(pad(x.FloatString(prec)))
		default:
			f, _ := x.Float64()
			emit(cFormatG(f, 6))
		}
		x.Add(x, step.rat)
	}
	return done()
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// parseSeqOperand parses a number as GNU seq does, returning a diagnostic on
// failure.
func parseSeqOperand(env *Env, a string) (seqOperand, string) {
	s := strings.TrimLeft(a, " \t\n")
	low := strings.ToLower(strings.TrimLeft(s, "+-"))
	if low == "nan" {
		return seqOperand{}, fmt.Sprintf("invalid %s argument: %s", quote(env, "not-a-number"), quote(env, a))
	}
	if low == "inf" || low == "infinity" {
		f := math.Inf(1)
		if strings.HasPrefix(s, "-") {
			f = math.Inf(-1)
		}
		return seqOperand{f: f, width: len(a), prec: -1}, ""
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || s == "" || strings.ContainsAny(s, "/_") || strings.HasPrefix(low, "0b") || strings.HasPrefix(low, "0o") {
		return seqOperand{}, fmt.Sprintf("invalid floating point argument: %s", quote(env, a))
	}
	f, _ := r.Float64()
	n := seqOperand{rat: r, f: f, width: len(a)}
	if strings.ContainsAny(low, "x") {
		n.prec = -1
		return n, ""
	}
	dot := strings.IndexByte(a, '.')
	e := strings.IndexAny(a, "eE")
	frac := 0
	if dot >= 0 {
		end := len(a)
		if e > dot {
			end = e
		}
		frac = end - dot - 1
		switch {
		case frac == 0:
			n.width--
		case dot == 0 || a[dot-1] < '0' || a[dot-1] > '9':
			n.width++
		}
	}
	n.prec = frac
	if e >= 0 {
		exp, _ := strconv.Atoi(a[e+1:])
		n.width -= len(a) - e
		if exp < 0 {
			n.prec -= exp
			n.width -= exp
		} else {
			n.prec = max(0, n.prec-exp)
			n.width += exp
		}
	}
	return n, ""
}

// seqFormat checks a -f FORMAT (one floating-point directive) and returns a
// function rendering a number with it.
func seqFormat(env *Env, format string) (func(float64) string, string) {
	var pre, post strings.Builder
	var spec string
	found := false
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			if found {
				post.WriteByte(c)
			} else {
				pre.WriteByte(c)
			}
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			if found {
				post.WriteByte('%')
			} else {
				pre.WriteByte('%')
			}
			i++
			continue
		}
		if found {
			return nil, fmt.Sprintf("format %s has too many %% directives", quote(env, format))
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0'", format[j]) >= 0 {
			j++
		}
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			j++
		}
		if j < len(format) && format[j] == '.' {
			j++
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
		}
		if j < len(format) && format[j] == 'L' {
			j++
		}
		if j >= len(format) {
			return nil, fmt.Sprintf("format %s ends in %%", quote(env, format))
		}
		if strings.IndexByte("aAeEfFgG", format[j]) < 0 {
			return nil, fmt.Sprintf("format %s has unknown %%%c directive", quote(env, format), format[j])
		}
		spec = strings.ReplaceAll(strings.ReplaceAll(format[i:j+1], "L", ""), "'", "")
		found = true
		i = j
	}
	if !found {
		return nil, fmt.Sprintf("format %s has no %% directive", quote(env, format))
	}
	p, q := pre.String(), post.String()
	return func(x float64) string { return p + cFormatFloat(spec, x) + q }, ""
}

// cFormatFloat renders x with one C printf floating-point directive.
func cFormatFloat(spec string, x float64) string {
	verb := spec[len(spec)-1]
	body := spec[1 : len(spec)-1]
	if (verb == 'g' || verb == 'G') && !strings.Contains(body, ".") {
		body += ".6"
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return cFormatNonFinite(body, verb, x)
	}
	if verb == 'F' {
		verb = 'f'
	}
	return fmt.Sprintf("%"+body+string(verb), x)
}

// cFormatNonFinite renders an infinity or a NaN as C's printf does: the
// sign ("-", or "+" or " " as the flags ask), "inf" or "nan" (upper case for
// %E, %F, %G and %A), padded with spaces to the width (the 0 flag and the
// precision do not apply), on the left unless the - flag is given.
func cFormatNonFinite(body string, verb byte, x float64) string {
	flags := body[:len(body)-len(strings.TrimLeft(body, "-+ #0"))]
	width, _ := strconv.Atoi(strings.SplitN(body[len(flags):], ".", 2)[0])
	s := "inf"
	if math.IsNaN(x) {
		s = "nan"
	}
	if verb >= 'A' && verb <= 'Z' {
		s = strings.ToUpper(s)
	}
	switch {
	case x < 0:
		s = "-" + s
	case strings.Contains(flags, "+"):
		s = "+" + s
	case strings.Contains(flags, " "):
		s = " " + s
	}
	if strings.Contains(flags, "-") {
		return fmt.Sprintf("%-*s", width, s)
	}
	return fmt.Sprintf("%*s", width, s)
}

// cFormatG renders x as C's %.{prec}g.
func cFormatG(x float64, prec int) string {
	return cFormatFloat("%."+strconv.Itoa(prec)+"g", x)
}
