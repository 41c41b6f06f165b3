package printf

import (
	"bufio"
	"errors"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Flavor selects whose printf Format is: GNU coreutils' standalone one or
// bash's builtin.
type Flavor int

const (
	// Coreutils is GNU coreutils' printf (/usr/bin/printf).
	Coreutils Flavor = iota
	// Bash is bash's printf builtin.
	Bash
)

// Env is what Format needs from its caller.
type Env struct {
	// Out receives the output (Format buffers it and flushes before it
	// returns). When it is a Reserver, it is told a field's size before a
	// field over MaxField is refused.
	Out io.Writer
	// Errorf prints a diagnostic: the message, which the caller prefixes
	// with its own "printf: " (and bash's "bash: line N: ").
	Errorf func(format string, args ...any)
	// Quote renders an argument in a coreutils message as gnulib's quote()
	// does in the caller's locale; nil: 'x'.
	Quote func(string) string
	// QuoteShell is coreutils' %q (gnulib's shell-escape quoting in the
	// caller's locale); bash's %q and %Q are Format's own.
	QuoteShell func(string) string
	// Canceled reports that the caller is stopping (checked between
	// passes over the format); nil: never.
	Canceled func() bool
	// Strftime formats bash's %(FORMAT)T; nil: %(...)T is an invalid
	// conversion. Now is the time of an empty or -1 argument and Start
	// the time of -2 (the shell's start).
	Strftime func(format string, t time.Time) string
	Now      func() time.Time
	Start    time.Time
}

func (e *Env) quote(s string) string {
	if e.Quote != nil {
		return e.Quote(s)
	}
	return "'" + s + "'"
}

// errRange is strerror(ERANGE).
const errRange = "Numerical result out of range"

// Format prints format with args as printf does in the flavor's way: the
// format is used again until the arguments are consumed; its exit status.
// The caller handles the usage (no format) and bash's -v.
func Format(e *Env, flavor Flavor, format string, args []string) int {
	w := bufio.NewWriter(e.Out)
	defer w.Flush()
	p := &printer{e: e, w: w, bash: flavor == Bash}
	rest := args
	for {
		if e.Canceled != nil && e.Canceled() {
			return 1
		}
		used, stop := p.format(format, rest)
		if stop {
			break
		}
		rest = rest[used:]
		if used == 0 || len(rest) == 0 {
			if used == 0 && len(rest) > 0 && !p.bash {
				e.Errorf("warning: ignoring excess arguments, starting with %s", e.quote(rest[0]))
			}
			break
		}
	}
	return p.status
}

// printer holds the state of one printf run.
type printer struct {
	e      *Env
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
				p.e.Errorf("missing hexadecimal number in escape")
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
			if !p.bash { // coreutils: %b and %q take no flags, width or precision
				a, _ := next()
				if p.escapes(a) {
					return used, true
				}
				continue
			}
		case 'q':
			if !p.bash {
				a, _ := next()
				p.w.WriteString(p.e.QuoteShell(a))
				continue
			}
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
		if s.width > MaxField || s.prec > MaxField {
			// The bytes the field takes: its width, or the precision of
			// a number (a string's precision only cuts it).
			j := i
			for j < len(f) && strings.IndexByte("hlLjztq", f[j]) >= 0 {
				j++
			}
			n := max(s.width, 0)
			if j < len(f) && strings.IndexByte("diouxXfFeEgG", f[j]) >= 0 {
				n = max(n, s.prec)
			}
			if n > MaxField {
				// A destination that holds what it is given and bounds
				// it (printf -v, the interpreter's output) is asked
				// first: it may take the field, or fail and stop the
				// execution with its own limit.
				var err error = ErrRefused
				if r, ok := p.e.Out.(Reserver); ok {
					err = r.Reserve(int64(n))
				}
				if err != nil && !errors.Is(err, ErrRefused) {
					p.status = 1
					return used, true
				}
				if errors.Is(err, ErrRefused) {
					end := min(i+1, len(f))
					p.e.Errorf("%s: %s: field width or precision over %d", f[start:end], errRange, MaxField)
					p.status = 1
					return used, true
				}
			}
		}
		for i < len(f) && strings.IndexByte("hlLjzt", f[i]) >= 0 || !p.bash && i < len(f) && f[i] == 'q' {
			i++
		}
		if p.bash {
			if i >= len(f) {
				p.e.Errorf("`%s': missing format character", f[start:])
				p.status = 1
				return used, true
			}
			switch f[i] {
			case 'b', 'q', 'Q':
				a, _ := next()
				stop := p.bashText(f[i], s, a)
				if stop {
					return used, true
				}
				continue
			case '(':
				end := strings.Index(f[i:], ")T")
				if end < 0 || p.e.Strftime == nil {
					return used, p.invalid("(")
				}
				a, _ := next()
				p.bashTime(f[i+1:i+end], s, a)
				i += end + 1
				continue
			}
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

// bashText prints bash's %b (escapes expanded), %q (quoted, the
// precision cutting the quoted text) and %Q (the precision cutting the
// argument before it is quoted), in the field's width; stop is a \c in %b.
func (p *printer) bashText(c byte, s spec, a string) (stop bool) {
	var text string
	switch c {
	case 'b':
		var b strings.Builder
		out := p.w
		p.w = bufio.NewWriter(&b) // escape and escapes write to p.w
		stop = p.escapes(a)
		p.w.Flush()
		p.w = out
		text = b.String()
	case 'q':
		text = quoteBashQ(a)
	case 'Q':
		if s.prec >= 0 && s.prec < len(a) {
			a = a[:s.prec]
		}
		text, s.prec = quoteBashQ(a), -1
	}
	if s.prec >= 0 && s.prec < len(text) {
		text = text[:s.prec]
	}
	p.pad(s, "", text, false)
	return stop
}

// bashTime prints bash's %(FORMAT)T: the argument is seconds since the
// epoch, empty or -1 the time now, -2 the shell's start.
func (p *printer) bashTime(format string, s spec, a string) {
	t := time.Now()
	if p.e.Now != nil {
		t = p.e.Now()
	}
	if a != "" {
		switch n := p.intArg(a); n {
		case -1:
		case -2:
			t = p.e.Start
		default:
			t = time.Unix(n, 0)
		}
	}
	text := p.e.Strftime(format, t)
	if s.prec >= 0 && s.prec < len(text) {
		text = text[:s.prec]
	}
	p.pad(s, "", text, false)
}

// invalid reports a bad conversion; it ends printf.
func (p *printer) invalid(conv string) bool {
	if p.bash {
		p.e.Errorf("`%s': invalid format character", conv[len(conv)-1:])
		p.status = 1
		return true
	}
	p.e.Errorf("%s: invalid conversion specification", conv)
	p.status = 1
	return true
}

// MaxField is the largest field (width, or a number's precision) printf
// and the printf builtin build for a destination that is not a Reserver
// (1 MiB): a larger one (%999999999d, or * with a large argument) fails
// with ERANGE before anything is padded, where bash and GNU would build the
// field in memory. A Reserver decides for itself.
const MaxField = 1 << 20

// maxFieldSeen is where widths and precisions saturate (far past
// MaxField: a Reserver is told the width asked for).
const maxFieldSeen = 1 << 40

// Reserver is a printf destination that holds what it is given and bounds
// it (bash's printf -v, the interpreter's builder): before a field over
// MaxField is built, it is told the bytes the field would take, and may
// take them or fail (and stop the execution) instead. Other destinations
// get an error for such a field.
// ErrRefused is what a Reserver returns to have Format refuse the field as
// it does for any other destination.
var ErrRefused = errors.New("field not held")

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
			p.e.Errorf("warning: %s: Numerical result out of range", a)
			return
		}
		p.e.Errorf("%s: invalid number", a)
		p.status = 1
		return
	}
	switch kind {
	case 1:
		p.e.Errorf("%s: expected a numeric value", p.e.quote(a))
	case 2:
		p.e.Errorf("%s: value not completely converted", p.e.quote(a))
	case 3:
		p.e.Errorf("%s: Numerical result out of range", p.e.quote(a))
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
		p.e.Errorf("warning: %s: character(s) following character constant have been ignored", rest)
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
	if e, ok := CEscape(c); ok {
		p.w.WriteByte(e)
		return 1, false, true
	}
	switch {
	case c == 'x':
		i := 1
		v := 0
		for i < len(s) && i < 3 && IsHex(s[i]) {
			v = v*16 + HexVal(s[i])
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
		for ; i <= want && i < len(s) && IsHex(s[i]); i++ {
			v = v*16 + HexVal(s[i])
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

// quoteBashQ quotes s as bash's printf %q does (sh_backslash_quote, or
// ansic_quote when s holds a character that is not printable).
func quoteBashQ(s string) string {
	if s == "" {
		return "''"
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || !unicode.IsPrint(r) && r != ' ' {
			return quoteANSIC(s)
		}
		i += n
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case (r == '~' || r == '#') && i == 0,
			strings.ContainsRune(" \t\n'\"\\|&;()<>!{}*[?]^$`,", r):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// quoteANSIC is bash's $'...' form.
func quoteANSIC(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString("\\" + octal3(s[i]))
		case r == '\a':
			b.WriteString(`\a`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == 0x1b:
			b.WriteString(`\E`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\v':
			b.WriteString(`\v`)
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case !unicode.IsPrint(r) && r != ' ':
			for _, c := range []byte(s[i : i+n]) {
				b.WriteString("\\" + octal3(c))
			}
		default:
			b.WriteRune(r)
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

func octal3(c byte) string {
	o := strconv.FormatInt(int64(c), 8)
	return strings.Repeat("0", 3-len(o)) + o
}

// CEscape returns the byte that the letter of a C backslash escape stands
// for (\a \b \f \n \r \t \v and \\), false for any other letter: the
// escapes that echo -e, printf, find -printf and stat --printf share; each
// adds its own (\c, \e, \", octal and hex).
func CEscape(c byte) (byte, bool) {
	switch c {
	case 'a':
		return '\a', true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'v':
		return '\v', true
	case '\\':
		return '\\', true
	}
	return 0, false
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// HexVal is the value of the hexadecimal digit c.
func HexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	default:
		return int(c-'A') + 10
	}
}

// EchoOptions splits echo's leading options off args (the arguments after
// the name), for both echos: the interpreter's builtin and the standalone
// command. An argument made only of '-' and the letters n, e and E is an
// option (-n: no trailing newline, -e: interpret backslash escapes, -E: do
// not); the first other argument ends them. escapes is the default (bash's
// xpg_echo). The escapes themselves differ between the two echos (bash's
// \u and \U, coreutils' \NNN) and stay with each.
func EchoOptions(args []string, escapes bool) (rest []string, newline, esc bool) {
	newline, esc = true, escapes
	for len(args) > 0 {
		a := args[0]
		if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				esc = true
			case 'E':
				esc = false
			}
		}
		args = args[1:]
	}
	return args, newline, esc
}
