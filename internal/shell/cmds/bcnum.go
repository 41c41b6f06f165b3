package cmds

// bc's numbers: decimal fixed point of any size (math/big), with GNU bc's
// rules for the scale of each operation's result.

import (
	"errors"
	"math/big"
	"strings"
)

// bcNum is v / 10^s. negz marks a negative zero, which GNU bc's raise
// leaves when it truncates a negative power to zero ((-.1)^3 at scale 0):
// it prints as -0, is less than 0 and has no square root; every other
// operation's zero is plain.
type bcNum struct {
	v    *big.Int
	s    int
	negz bool
}

var (
	bigTen = big.NewInt(10)
)

// errBcTooLarge: a result past bcMaxDigits.
var errBcTooLarge = errors.New("number too large for the shell backend's bc (more than 100000 digits)")

// bcMaxDigits bounds the digits of any number bc builds (and so scale):
// what one operation may cost in time and memory.
const bcMaxDigits = 100_000

func bcInt(n int64) bcNum { return bcNum{v: big.NewInt(n)} }

func pow10(n int) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

func (a bcNum) isZero() bool { return a.v.Sign() == 0 }

// rescale returns a at scale s, truncating.
func (a bcNum) rescale(s int) bcNum {
	switch {
	case s == a.s:
		return a
	case s > a.s:
		return bcNum{v: new(big.Int).Mul(a.v, pow10(s-a.s)), s: s}
	default:
		return bcNum{v: new(big.Int).Quo(a.v, pow10(a.s-s)), s: s}
	}
}

func bcCheck(a bcNum) (bcNum, error) {
	if a.s > bcMaxDigits || a.v.BitLen() > bcMaxDigits*332/100 {
		return a, errBcTooLarge
	}
	return a, nil
}

func bcAdd(a, b bcNum, sub bool) (bcNum, error) {
	s := max(a.s, b.s)
	x, y := a.rescale(s), b.rescale(s)
	z := new(big.Int)
	if sub {
		z.Sub(x.v, y.v)
	} else {
		z.Add(x.v, y.v)
	}
	return bcCheck(bcNum{v: z, s: s})
}

func bcMul(a, b bcNum, scale int) (bcNum, error) {
	if a.v.BitLen()+b.v.BitLen() > bcMaxDigits*332/100+64 {
		return a, errBcTooLarge
	}
	full := a.s + b.s
	rs := min(full, max(scale, a.s, b.s))
	return bcCheck(bcNum{v: new(big.Int).Mul(a.v, b.v), s: full}.rescale(rs))
}

var errBcDivZero error = gnuMessage("Divide by zero")

func bcDiv(a, b bcNum, scale int) (bcNum, error) {
	if b.isZero() {
		return a, errBcDivZero
	}
	if scale > bcMaxDigits {
		return a, errBcTooLarge
	}
	// a.v/10^a.s / (b.v/10^b.s) * 10^scale
	n := new(big.Int).Mul(a.v, pow10(scale+b.s))
	d := new(big.Int).Mul(b.v, pow10(a.s))
	return bcCheck(bcNum{v: n.Quo(n, d), s: scale})
}

// errBcModZero: GNU bc's message for % 0.
var errBcModZero error = gnuMessage("Modulo by zero")

func bcMod(a, b bcNum, scale int) (bcNum, error) {
	if b.isZero() {
		return a, errBcModZero
	}
	rs := max(a.s, b.s+scale)
	q, err := bcDiv(a, b, scale)
	if err != nil {
		return a, err
	}
	p, err := bcMul(q, b, rs)
	if err != nil {
		return a, err
	}
	return bcAdd(a, p, true)
}

// bcPow raises a to b's integer part (warn is told when b has a
// fraction), as GNU bc: the exact power, truncated.
func bcPow(a, b bcNum, scale int, warn func(string)) (bcNum, error) {
	if b.s > 0 && new(big.Int).Rem(b.v, pow10(b.s)).Sign() != 0 {
		warn("non-zero scale in exponent")
	}
	e := b.rescale(0).v
	if !e.IsInt64() {
		return a, errors.New("exponent too large in raise")
	}
	n := e.Int64()
	if n == 0 {
		return bcInt(1), nil
	}
	neg := n < 0
	if neg {
		n = -n
	}
	rs := scale
	if !neg {
		rs = int(min(int64(a.s)*n, int64(max(scale, a.s))))
	}
	if a.v.CmpAbs(big.NewInt(1)) > 0 {
		// The exact power has about n times a's digits.
		digits := int64(len(new(big.Int).Abs(a.v).String()))
		if n > 2*bcMaxDigits || digits*n > 2*bcMaxDigits {
			return a, errBcTooLarge
		}
	}
	if int64(a.s)*n > 2*bcMaxDigits {
		return a, errBcTooLarge
	}
	p := bcNum{v: new(big.Int).Exp(a.v, big.NewInt(n), nil), s: int(int64(a.s) * n)}
	if neg {
		if p.isZero() {
			return a, errors.New("divide by zero")
		}
		return bcDiv(bcInt(1), p, rs)
	}
	r := p.rescale(min(p.s, rs))
	r.negz = r.isZero() && p.v.Sign() < 0
	return bcCheck(r)
}

func bcSqrt(a bcNum, scale int) (bcNum, error) {
	if a.v.Sign() < 0 || a.negz {
		return a, gnuMessage("Square root of a negative number")
	}
	if a.isZero() {
		return bcInt(0), nil
	}
	if bcCmp(a, bcInt(1)) == 0 {
		return bcInt(1), nil
	}
	rs := max(scale, a.s)
	if rs > bcMaxDigits {
		return a, errBcTooLarge
	}
	// sqrt(v / 10^s) * 10^rs = sqrt(v * 10^(2rs - s))
	x := new(big.Int).Mul(a.v, pow10(2*rs-a.s))
	return bcNum{v: x.Sqrt(x), s: rs}, nil
}

func bcCmp(a, b bcNum) int {
	if a.negz != b.negz && a.isZero() && b.isZero() {
		if a.negz {
			return -1
		}
		return 1
	}
	s := max(a.s, b.s)
	return a.rescale(s).v.Cmp(b.rescale(s).v)
}

// bcLength is GNU bc's length(): the digits, with the scale's when the
// integer part is zero.
func bcLength(a bcNum) int {
	ip := new(big.Int).Quo(a.v, pow10(a.s))
	if ip.Sign() == 0 {
		return max(1, a.s)
	}
	return len(new(big.Int).Abs(ip).String()) + a.s
}

// bcFormat renders a in base obase as GNU bc's out_num.
func bcFormat(a bcNum, obase int) string {
	if a.isZero() {
		if a.negz {
			return "-0"
		}
		return "0"
	}
	var b strings.Builder
	if a.v.Sign() < 0 {
		b.WriteByte('-')
	}
	abs := new(big.Int).Abs(a.v)
	if obase == 10 {
		str := abs.String()
		if len(str) < a.s {
			str = strings.Repeat("0", a.s-len(str)) + str
		}
		ip := str[:len(str)-a.s]
		if strings.TrimLeft(ip, "0") == "" {
			ip = ""
		}
		b.WriteString(ip)
		if a.s > 0 {
			b.WriteByte('.')
			b.WriteString(str[len(str)-a.s:])
		}
		return b.String()
	}
	unit := pow10(a.s)
	ip, frac := new(big.Int).QuoRem(abs, unit, new(big.Int))
	width := len(big.NewInt(int64(obase - 1)).String())
	digit := func(d int64, space bool) {
		if obase <= 16 {
			b.WriteByte("0123456789ABCDEF"[d])
			return
		}
		if space {
			b.WriteByte(' ')
		}
		s := big.NewInt(d).String()
		b.WriteString(strings.Repeat("0", width-len(s)))
		b.WriteString(s)
	}
	var digits []int64
	base := big.NewInt(int64(obase))
	for ip.Sign() > 0 {
		var r big.Int
		ip.QuoRem(ip, base, &r)
		digits = append(digits, r.Int64())
	}
	for i := len(digits) - 1; i >= 0; i-- {
		digit(digits[i], true)
	}
	if a.s > 0 {
		b.WriteByte('.')
		// frac / unit at scale a.s; digits while obase^k has at most a.s
		// integer digits, as GNU's.
		t := big.NewInt(1)
		space := false
		for len(t.String()) <= a.s {
			frac.Mul(frac, base)
			d, r := new(big.Int).QuoRem(frac, unit, new(big.Int))
			frac = r
			digit(d.Int64(), space)
			space = true
			t.Mul(t, base)
		}
	}
	return b.String()
}

// bcParseNum reads a constant in base ibase as GNU bc: a single digit is
// its value whatever the base; in a longer number a digit past the base
// counts as the base's last; the scale is the number of fraction digits.
func bcParseNum(s string, ibase int) bcNum {
	val := func(c byte) int64 {
		if c >= 'A' {
			return int64(c-'A') + 10
		}
		return int64(c - '0')
	}
	if len(s) == 1 {
		return bcInt(val(s[0]))
	}
	ip, fp, _ := strings.Cut(s, ".")
	if ibase == 10 {
		allDec := true
		for i := 0; i < len(s); i++ {
			if s[i] >= 'A' {
				allDec = false
			}
		}
		if allDec {
			v, _ := new(big.Int).SetString(ip+fp, 10)
			if v == nil {
				v = new(big.Int)
			}
			return bcNum{v: v, s: len(fp)}
		}
	}
	base := big.NewInt(int64(ibase))
	clamp := func(c byte) *big.Int {
		d := val(c)
		if d >= int64(ibase) {
			d = int64(ibase) - 1
		}
		return big.NewInt(d)
	}
	v := new(big.Int)
	for i := 0; i < len(ip); i++ {
		v.Mul(v, base).Add(v, clamp(ip[i]))
	}
	if fp == "" {
		return bcNum{v: v}
	}
	f, div := new(big.Int), big.NewInt(1)
	for i := 0; i < len(fp); i++ {
		f.Mul(f, base).Add(f, clamp(fp[i]))
		div.Mul(div, base)
	}
	fr, _ := bcDiv(bcNum{v: f}, bcNum{v: div}, len(fp))
	r, _ := bcAdd(bcNum{v: v}, fr, false)
	return r
}
