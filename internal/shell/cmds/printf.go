package cmds

import (
	"bufio"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
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
// PrintfBuiltin).
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
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	p := &printer{env: env, w: w, bash: bash}
	format, rest := args[1], args[2:]
	for {
		if env.Canceled() {
			return 1
		}
		used, stop := p.format(format, rest)
		if stop {
			break
		}
		rest = rest[used:]
		if used == 0 || len(rest) == 0 {
			if used == 0 && len(rest) > 0 && !bash {
				env.Errorf("printf", "warning: ignoring excess arguments, starting with %s", quote(env, rest[0]))
			}
			break
		}
	}
	return p.status
}

// printer holds the state of one printf run.
type printer struct {
	env    *Env
	w      *bufio.Writer
	status int
	bash   bool // the shell builtin's flavour
}

// format prints format once with args, and returns how many were used; stop
// is set after \c or a fatal error.
func (p *printer) format(f string, args []string) (used int, stop bool) {
	next := func() (string, bool) {
		if used < len(args) {
			used++
			return args[used-1], true
		}
		return "", false
	}
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c == '\\' {
			n, stop, ok := p.escape(f[i+1:], false)
			if !ok {
				p.env.Errorf("printf", "missing hexadecimal number in escape")
				p.status = 1
				return used, true
			}
			if stop {
				return used, true
			}
			i += n
			continue
		}
		if c != '%' {
			p.w.WriteByte(c)
			continue
		}
		start := i
		i++
		if i >= len(f) {
			return used, p.invalid(f[start:])
		}
		switch f[i] {
		case '%':
			p.w.WriteByte('%')
			continue
		case 'b':
			a, _ := next()
			if p.escapes(a) {
				return used, true
			}
			continue
		case 'q':
			a, _ := next()
			if p.bash {
				p.w.WriteString(quoteBashQ(a))
			} else {
				p.w.WriteString(quoteShell(p.env, a))
			}
			continue
		}
		var s spec
		for ; i < len(f) && strings.IndexByte("-+ #0'", f[i]) >= 0; i++ {
			switch f[i] {
			case '-':
				s.minus = true
			case '+':
				s.plus = true
			case ' ':
				s.space = true
			case '#':
				s.alt = true
			case '0':
				s.zero = true
			}
		}
		s.width, s.prec = -1, -1
		if i < len(f) && f[i] == '*' {
			a, _ := next()
			v := p.intArg(a)
			if v < 0 {
				s.minus = true
				v = -v
			}
			s.width = int(min(v, maxFieldSeen))
			i++
		} else {
			j := i
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
			}
			if i > j {
				s.width = fieldNumber(f[j:i])
			}
		}
		if i < len(f) && f[i] == '.' {
			i++
			if i < len(f) && f[i] == '*' {
				a, _ := next()
				v := p.intArg(a)
				s.prec = -1
				if v >= 0 {
					s.prec = int(min(v, maxFieldSeen))
				}
				i++
			} else {
				j := i
				for i < len(f) && f[i] >= '0' && f[i] <= '9' {
					i++
				}
				s.prec = fieldNumber(f[j:i])
			}
		}
		if s.width > MaxPrintfField || s.prec > MaxPrintfField {
			if r, ok := p.env.Stdout.(Reserver); ok {
				// A destination that holds what it is given (printf
				// -v) is told first how much this field would take:
				// it may stop the execution with its own limit.
				j := i
				for j < len(f) && strings.IndexByte("hlLjztq", f[j]) >= 0 {
					j++
				}
				n := s.width
				if j < len(f) && strings.IndexByte("diouxXfFeEgG", f[j]) >= 0 {
					n = max(n, s.prec)
				}
				if n > MaxPrintfField {
					if err := r.Reserve(int64(n)); err != nil {
						p.status = 1
						return used, true
					}
				}
			}
			end := min(i+1, len(f))
			p.env.Errorf("printf", "%s: %s: field width or precision over %d", f[start:end], Strerror(syscall.ERANGE), MaxPrintfField)
			p.status = 1
			return used, true
		}
		for i < len(f) && strings.IndexByte("hlLjztq", f[i]) >= 0 {
			i++
		}
		if i >= len(f) || strings.IndexByte("diouxXfFeEgGcs", f[i]) < 0 {
			end := min(i+1, len(f))
			return used, p.invalid(f[start:end])
		}
		a, _ := next()
		p.conv(f[i], s, a)
	}
	return used, false
}

// invalid reports a bad conversion; it ends printf.
func (p *printer) invalid(conv string) bool {
	if p.bash {
		p.env.Errorf("printf", "`%s': invalid format character", conv[len(conv)-1:])
		p.status = 1
		return true
	}
	p.env.Errorf("printf", "%s: invalid conversion specification", conv)
	p.status = 1
	return true
}

// MaxPrintfField is the largest field width and precision printf and the
// printf builtin take (1 MiB): a larger one (%999999999d, or * with a large
// argument) fails with ERANGE before anything is padded, where bash and GNU
// would build the field in memory.
const MaxPrintfField = 1 << 20

// maxFieldSeen is where widths and precisions saturate (far past
// MaxPrintfField: a Reserver is told the width asked for).
const maxFieldSeen = 1 << 40

// Reserver is a printf destination that holds what it is given (the
// shell's printf -v): before a field over MaxPrintfField is refused, it is
// told the bytes the field would take, and may fail (and stop the
// execution) instead.
type Reserver interface {
	Reserve(n int64) error
}

// fieldNumber reads a width or precision, saturating at maxFieldSeen.
func fieldNumber(digits string) int {
	if digits == "" {
		return 0 // "%.d": precision 0
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > maxFieldSeen {
		return maxFieldSeen
	}
	return int(n)
}

// spec is a parsed conversion's flags, width and precision (-1: none).
type spec struct {
	minus, plus, space, alt, zero bool
	width, prec                   int
}

// conv prints one argument a under conversion c.
func (p *printer) conv(c byte, s spec, a string) {
	switch c {
	case 's':
		if s.prec >= 0 && s.prec < len(a) {
			a = a[:s.prec]
		}
		p.pad(s, "", a, false)
	case 'c':
		b := "\x00"
		if a != "" {
			b = a[:1]
		}
		p.pad(s, "", b, false)
	case 'd', 'i':
		v := p.intArg(a)
		sign := ""
		var mag uint64
		if v < 0 {
			sign, mag = "-", uint64(-(v+1))+1
		} else {
			mag = uint64(v)
			if s.plus {
				sign = "+"
			} else if s.space {
				sign = " "
			}
		}
		p.intOut(s, sign, strconv.FormatUint(mag, 10))
	case 'o', 'u', 'x', 'X':
		v := p.uintArg(a)
		base := map[byte]int{'o': 8, 'u': 10, 'x': 16, 'X': 16}[c]
		digits := strconv.FormatUint(v, base)
		if c == 'X' {
			digits = strings.ToUpper(digits)
		}
		prefix := ""
		if s.alt {
			switch {
			case c == 'o':
				if s.prec <= len(digits) && digits[0] != '0' {
					digits = "0" + digits
				}
			case v != 0 && c == 'x':
				prefix = "0x"
			case v != 0 && c == 'X':
				prefix = "0X"
			}
		}
		p.intOut(s, prefix, digits)
	default:
		p.floatOut(c, s, p.floatArg(a))
	}
}

// intOut prints integer digits with precision, prefix (sign or 0x) and
// padding.
func (p *printer) intOut(s spec, prefix, digits string) {
	if s.prec >= 0 {
		if s.prec == 0 && digits == "0" {
			digits = ""
		}
		if len(digits) < s.prec {
			digits = strings.Repeat("0", s.prec-len(digits)) + digits
		}
		s.zero = false
	}
	p.pad(s, prefix, digits, true)
}

// pad writes prefix+body in the field width: left-justified with -, zero
// filled between prefix and body with 0 (numeric only).
func (p *printer) pad(s spec, prefix, body string, numeric bool) {
	n := s.width - len(prefix) - len(body)
	switch {
	case n <= 0:
		p.w.WriteString(prefix + body)
	case s.minus:
		p.w.WriteString(prefix + body + strings.Repeat(" ", n))
	case s.zero && numeric:
		p.w.WriteString(prefix + strings.Repeat("0", n) + body)
	default:
		p.w.WriteString(strings.Repeat(" ", n) + prefix + body)
	}
}

// floatOut formats v as C's %e %f %g (and upper-case forms) do.
func (p *printer) floatOut(c byte, s spec, v *big.Float) {
	upper := c == 'E' || c == 'F' || c == 'G'
	if v == nil {
		body := "nan"
		if upper {
			body = "NAN"
		}
		s.zero = false
		p.pad(s, "", body, true)
		return
	}
	sign := ""
	if v.Signbit() {
		sign = "-"
		v = new(big.Float).Neg(v)
	} else if s.plus {
		sign = "+"
	} else if s.space {
		sign = " "
	}
	lc := c | 0x20
	if v.IsInf() {
		body := "inf"
		if upper {
			body = "INF"
		}
		s.zero = false
		p.pad(s, sign, body, true)
		return
	}
	prec := s.prec
	if prec < 0 {
		prec = 6
	}
	var body string
	switch lc {
	case 'f':
		body = v.Text('f', prec)
		if s.alt && prec == 0 {
			body += "."
		}
	case 'e':
		body = cExp(v.Text('e', prec))
		if s.alt && prec == 0 {
			k := strings.IndexByte(body, 'e')
			body = body[:k] + "." + body[k:]
		}
	case 'g':
		if prec == 0 {
			prec = 1
		}
		e := cExp(v.Text('e', prec-1))
		k := strings.IndexByte(e, 'e')
		x, _ := strconv.Atoi(e[k+1:])
		if x < prec && x >= -4 {
			body = v.Text('f', prec-1-x)
		} else {
			body = e
		}
		if !s.alt {
			mant, exp := body, ""
			if k := strings.IndexByte(body, 'e'); k >= 0 {
				mant, exp = body[:k], body[k:]
			}
			if strings.Contains(mant, ".") {
				mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
			}
			body = mant + exp
		} else if !strings.Contains(body, ".") {
			if k := strings.IndexByte(body, 'e'); k >= 0 {
				body = body[:k] + "." + body[k:]
			} else {
				body += "."
			}
		}
	}
	if upper {
		body = strings.ToUpper(body)
	}
	p.pad(s, sign, body, true)
}

// cExp makes big.Float's exponent at least two digits, as C prints it.
func cExp(s string) string {
	k := strings.IndexByte(s, 'e')
	if k < 0 || len(s)-k-2 >= 2 {
		return s
	}
	return s[:k+2] + "0" + s[k+2:]
}

// numErr reports a bad numeric argument as GNU's verify_numeric does.
func (p *printer) numErr(a string, kind int) {
	if p.bash {
		// bash: one wording for a bad or partial number; out of range is
		// a warning (the value is clamped) and does not fail.
		if kind == 3 {
			p.env.Errorf("printf", "warning: %s: Numerical result out of range", a)
			return
		}
		p.env.Errorf("printf", "%s: invalid number", a)
		p.status = 1
		return
	}
	switch kind {
	case 1:
		p.env.Errorf("printf", "%s: expected a numeric value", quote(p.env, a))
	case 2:
		p.env.Errorf("printf", "%s: value not completely converted", quote(p.env, a))
	case 3:
		p.env.Errorf("printf", "%s: Numerical result out of range", quote(p.env, a))
	}
	p.status = 1
}

// charConst handles 'c and "c arguments; ok is false when a is not one.
func (p *printer) charConst(a string) (rune, bool) {
	if len(a) < 2 || a[0] != '\'' && a[0] != '"' {
		return 0, false
	}
	r, size := utf8.DecodeRuneInString(a[1:])
	if r == utf8.RuneError && size <= 1 {
		r, size = rune(a[1]), 1
	}
	if rest := a[1+size:]; rest != "" && !p.bash {
		p.env.Errorf("printf", "warning: %s: character(s) following character constant have been ignored", rest)
	}
	return r, true
}

// cInt scans a C integer (strtoimax/strtoumax, base 0) at the start of a:
// its sign, magnitude digits and base, and where it ends (0: no number).
func cInt(a string) (neg bool, digits string, base, end int) {
	i := 0
	for i < len(a) && strings.IndexByte(" \t\n\v\f\r", a[i]) >= 0 {
		i++
	}
	if i < len(a) && (a[i] == '+' || a[i] == '-') {
		neg = a[i] == '-'
		i++
	}
	base = 10
	isDigit := func(c byte) bool {
		switch base {
		case 16:
			return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
		case 8:
			return c >= '0' && c <= '7'
		}
		return c >= '0' && c <= '9'
	}
	if i+2 < len(a)+0 && a[i] == '0' && (a[i+1] == 'x' || a[i+1] == 'X') && i+2 < len(a) && (base == 10) {
		c := a[i+2]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			base = 16
			i += 2
		}
	}
	if base == 10 && i < len(a) && a[i] == '0' {
		base = 8
	}
	j := i
	for i < len(a) && isDigit(a[i]) {
		i++
	}
	if i == j {
		return false, "", 10, 0
	}
	return neg, a[j:i], base, i
}

// intDigits reads an integer argument of %d %i %o %u %x %X: a character
// constant ('c) is its code, with end len(a); an argument with no number
// ("" quietly, else reported) is end 0. Otherwise neg and u are its sign
// and magnitude (err from strconv.ParseUint, an overflow) and end where
// its digits end, for the caller to report what follows.
func (p *printer) intDigits(a string) (neg bool, u uint64, end int, err error) {
	if r, ok := p.charConst(a); ok {
		return false, uint64(r), len(a), nil
	}
	if a == "" {
		return false, 0, 0, nil
	}
	neg, digits, base, end := cInt(a)
	if end == 0 {
		p.numErr(a, 1)
		return false, 0, 0, nil
	}
	u, err = strconv.ParseUint(digits, base, 64)
	return neg, u, end, err
}

// intArg converts a %d argument (intmax_t); errors are reported.
func (p *printer) intArg(a string) int64 {
	neg, u, end, err := p.intDigits(a)
	if end == 0 {
		return 0
	}
	var v int64
	switch {
	case err != nil || !neg && u > math.MaxInt64:
		v = math.MaxInt64
		if neg {
			v = math.MinInt64
		}
		p.numErr(a, 3)
		return v
	case neg && u > 1<<63:
		p.numErr(a, 3)
		return math.MinInt64
	case neg:
		v = -int64(u-1) - 1
	default:
		v = int64(u)
	}
	if end < len(a) {
		p.numErr(a, 2)
	}
	return v
}

// uintArg converts a %o %u %x argument (uintmax_t, negatives wrap).
func (p *printer) uintArg(a string) uint64 {
	neg, u, end, err := p.intDigits(a)
	if end == 0 {
		return 0
	}
	if err != nil {
		p.numErr(a, 3)
		return math.MaxUint64
	}
	if neg {
		u = -u
	}
	if end < len(a) {
		p.numErr(a, 2)
	}
	return u
}

// floatArg converts a %f argument (strtold: decimal, hex, inf, nan).
func (p *printer) floatArg(a string) *big.Float {
	z := new(big.Float).SetPrec(64)
	if r, ok := p.charConst(a); ok {
		return z.SetInt64(int64(r))
	}
	if a == "" {
		return z
	}
	i := 0
	for i < len(a) && strings.IndexByte(" \t\n\v\f\r", a[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(a) && (a[i] == '+' || a[i] == '-') {
		neg = a[i] == '-'
		i++
	}
	rest := strings.ToLower(a[i:])
	var end int
	switch {
	case strings.HasPrefix(rest, "infinity"), strings.HasPrefix(rest, "inf"):
		end = i + 3
		if strings.HasPrefix(rest, "infinity") {
			end = i + 8
		}
		z.SetInf(neg)
	case strings.HasPrefix(rest, "nan"):
		// big.Float has no NaN: nil stands for it (the sign is lost).
		if end = i + 3; end < len(a) {
			p.numErr(a, 2)
		}
		return nil
	default:
		num, n := scanCFloat(a[i:])
		if n == 0 {
			p.numErr(a, 1)
			return z
		}
		end = i + n
		if _, _, err := z.Parse(num, 0); err != nil {
			p.numErr(a, 1)
			return z
		}
		if neg {
			z.Neg(z)
		}
		if e := z.MantExp(nil); !z.IsInf() && (e > 16384 || e < -16445 && z.Sign() != 0) {
			p.numErr(a, 3)
		}
	}
	if end < len(a) {
		p.numErr(a, 2)
	}
	return z
}

// scanCFloat finds the longest C floating constant at the start of s (no
// sign) and returns it in a form big.Float.Parse takes, and its length.
func scanCFloat(s string) (string, int) {
	i := 0
	digits := func(hex bool) int {
		n := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || hex && (s[i]|0x20 >= 'a' && s[i]|0x20 <= 'f')) {
			i++
			n++
		}
		return n
	}
	hex := len(s) > 2 && s[0] == '0' && s[1]|0x20 == 'x'
	if hex {
		i = 2
	}
	n := digits(hex)
	if i < len(s) && s[i] == '.' {
		i++
		n += digits(hex)
	}
	if n == 0 {
		if hex {
			return "0", 1
		}
		return "", 0
	}
	mant := s[:i]
	exp := ""
	expc := byte('e')
	if hex {
		expc = 'p'
	}
	if i < len(s) && s[i]|0x20 == expc {
		j := i
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits(false) == 0 {
			i = j
		} else {
			exp = s[j:i]
		}
	}
	if hex && exp == "" {
		exp = "p0"
	}
	if strings.HasSuffix(mant, ".") {
		mant += "0"
	}
	if hex && strings.HasPrefix(mant, "0x.") || hex && strings.HasPrefix(mant, "0X.") {
		mant = mant[:2] + "0" + mant[2:]
	}
	if !hex && strings.HasPrefix(mant, ".") {
		mant = "0" + mant
	}
	return mant + exp, i
}

// escape interprets the backslash escape at the start of s (after the
// backslash) for the format (octal0 false) or %b (true), writing it; it
// returns how many bytes of s it used, stop for \c, ok false for \x without
// hex digits.
func (p *printer) escape(s string, octal0 bool) (n int, stop, ok bool) {
	if s == "" {
		p.w.WriteByte('\\')
		return 0, false, true
	}
	c := s[0]
	if e, ok := cEscape(c); ok {
		p.w.WriteByte(e)
		return 1, false, true
	}
	switch {
	case c == 'x':
		i := 1
		v := 0
		for i < len(s) && i < 3 && escIsHex(s[i]) {
			v = v*16 + escHexVal(s[i])
			i++
		}
		if i == 1 {
			return 0, false, false
		}
		p.w.WriteByte(byte(v))
		return i, false, true
	case c >= '0' && c <= '7':
		i := 0
		if octal0 && c == '0' {
			i = 1
		}
		v, k := 0, 0
		for ; k < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7'; k++ {
			v = v*8 + int(s[i]-'0')
			i++
		}
		p.w.WriteByte(byte(v))
		return i, false, true
	case c == 'c':
		return 1, true, true
	case c == '"':
		p.w.WriteByte('"')
		return 1, false, true
	case c == 'e':
		p.w.WriteByte(0x1b)
		return 1, false, true
	case c == 'u' || c == 'U':
		want := 4
		if c == 'U' {
			want = 8
		}
		v := 0
		i := 1
		for ; i <= want && i < len(s) && escIsHex(s[i]); i++ {
			v = v*16 + escHexVal(s[i])
		}
		if i != want+1 {
			p.w.WriteString("\\" + s[:i])
			return i, false, true
		}
		p.w.WriteString(string(rune(v)))
		return i, false, true
	}
	p.w.WriteByte('\\')
	p.w.WriteByte(c)
	return 1, false, true
}

// escapes prints a %b argument; it reports a \c (stop all output).
func (p *printer) escapes(a string) bool {
	for i := 0; i < len(a); i++ {
		if a[i] != '\\' {
			p.w.WriteByte(a[i])
			continue
		}
		n, stop, ok := p.escape(a[i+1:], true)
		if stop {
			return true
		}
		if !ok {
			p.w.WriteString("\\x")
			n = 1
		}
		i += n
	}
	return false
}
