package cmds

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"
)

func init() { Register("expr", Expr) }

// Expr evaluates EXPRESSION as GNU expr (coreutils 9.1): the operators
// | & < <= = == != >= > + - * / % : and the keywords match, substr,
// index, length and "+ TOKEN", with parentheses. Integers are of any
// size (math/big, as GNU's GMP), a token is an integer when it is an
// optional '-' and digits. The result is printed; the exit status is 0
// when it is neither empty nor zero, 1 when it is, 2 for a syntax error,
// a bad operand (non-integer argument, division by zero) or a bad regular
// expression, 3 for a product past the limit below. Regular expressions
// are GNU BREs anchored at the start of the string, translated as grep's
// (back-references are refused, and character classes such as
// [[:alpha:]] are ASCII, where GNU's take é in a UTF-8 locale);
// lengths and positions count characters in a UTF-8 locale, bytes in C.
// Operands longer than MaxReadBytes are refused (an integer's digits are
// what it costs: one operation cannot grow past the sum of its operands'
// sizes, except *, which is bounded by the same limit).
func Expr(env *Env, args []string) int {
	a := args[1:]
	if len(a) == 1 && a[0] == "--help" {
		fmt.Fprint(env.Stdout, "Usage: expr EXPRESSION\n  or:  expr OPTION\n\nPrint the value of EXPRESSION to standard output.\n")
		return 0
	}
	if len(a) == 1 && a[0] == "--version" {
		fmt.Fprint(env.Stdout, "expr (GNU coreutils) 9.1\n")
		return 0
	}
	if len(a) > 0 && a[0] == "--" {
		a = a[1:]
	}
	if len(a) == 0 {
		tryHelp(env, "expr", "missing operand")
		return 2
	}
	p := &exprParser{env: env, args: a, utf8: utf8Locale(env)}
	v, err := p.run()
	if err != nil {
		env.Errorf("expr", "%s", err.msg)
		return err.status
	}
	fmt.Fprintln(env.Stdout, v.String())
	if v.null() {
		return 1
	}
	return 0
}

// exprValue is an integer (i non-nil) or a string.
type exprValue struct {
	i *big.Int
	s string
}

func (v exprValue) String() string {
	if v.i != nil {
		return v.i.String()
	}
	return v.s
}

// null: zero, or a string that is empty or zeros with an optional '-'.
func (v exprValue) null() bool {
	if v.i != nil {
		return v.i.Sign() == 0
	}
	s := v.s
	if s == "" {
		return true
	}
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	return strings.Trim(s, "0") == ""
}

// exprLooksInt: an optional '-' then one or more ASCII digits.
func exprLooksInt(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// toInt converts v to an integer if it is one.
func (v *exprValue) toInt() bool {
	if v.i != nil {
		return true
	}
	if !exprLooksInt(v.s) {
		return false
	}
	v.i, _ = new(big.Int).SetString(v.s, 10)
	return true
}

type exprError struct {
	status int
	msg    string
}

type exprParser struct {
	env  *Env
	args []string
	pos  int
	utf8 bool
}

// exprFail is panicked with to unwind the recursive descent.
type exprFail struct{ err *exprError }

func (p *exprParser) run() (v exprValue, err *exprError) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(exprFail)
			if !ok {
				panic(r)
			}
			err = f.err
		}
	}()
	v = p.or(true)
	if p.pos < len(p.args) {
		p.fail(2, "syntax error: unexpected argument %s", quote(p.env, p.args[p.pos]))
	}
	return v, nil
}

func (p *exprParser) fail(status int, format string, a ...any) {
	panic(exprFail{&exprError{status: status, msg: fmt.Sprintf(format, a...)}})
}

func (p *exprParser) next(tok string) bool {
	if p.pos < len(p.args) && p.args[p.pos] == tok {
		p.pos++
		return true
	}
	return false
}

func exprInt(n int64) exprValue { return exprValue{i: big.NewInt(n)} }

func (p *exprParser) or(eval bool) exprValue {
	l := p.and(eval)
	for p.next("|") {
		r := p.and(eval && l.null())
		if l.null() {
			l = r
			if l.null() {
				l = exprInt(0)
			}
		}
	}
	return l
}

func (p *exprParser) and(eval bool) exprValue {
	l := p.compare(eval)
	for p.next("&") {
		r := p.compare(eval && !l.null())
		if l.null() || r.null() {
			l = exprInt(0)
		}
	}
	return l
}

func (p *exprParser) compare(eval bool) exprValue {
	l := p.sum(eval)
	for {
		var op string
		for _, o := range []string{"<", "<=", "=", "==", "!=", ">=", ">"} {
			if p.next(o) {
				op = o
				break
			}
		}
		if op == "" {
			return l
		}
		r := p.sum(eval)
		if !eval {
			l = exprInt(0)
			continue
		}
		var c int
		if li, ri := l, r; li.toInt() && ri.toInt() {
			c = li.i.Cmp(ri.i)
		} else {
			c = strings.Compare(l.String(), r.String())
		}
		var t bool
		switch op {
		case "<":
			t = c < 0
		case "<=":
			t = c <= 0
		case "=", "==":
			t = c == 0
		case "!=":
			t = c != 0
		case ">=":
			t = c >= 0
		case ">":
			t = c > 0
		}
		if t {
			l = exprInt(1)
		} else {
			l = exprInt(0)
		}
	}
}

func (p *exprParser) sum(eval bool) exprValue {
	l := p.product(eval)
	for {
		var op string
		switch {
		case p.next("+"):
			op = "+"
		case p.next("-"):
			op = "-"
		default:
			return l
		}
		r := p.product(eval)
		if !eval {
			continue
		}
		if !l.toInt() || !r.toInt() {
			p.fail(2, "non-integer argument")
		}
		z := new(big.Int)
		if op == "+" {
			z.Add(l.i, r.i)
		} else {
			z.Sub(l.i, r.i)
		}
		l = exprValue{i: z}
	}
}

func (p *exprParser) product(eval bool) exprValue {
	l := p.colon(eval)
	for {
		var op string
		switch {
		case p.next("*"):
			op = "*"
		case p.next("/"):
			op = "/"
		case p.next("%"):
			op = "%"
		default:
			return l
		}
		r := p.colon(eval)
		if !eval {
			continue
		}
		if !l.toInt() || !r.toInt() {
			p.fail(2, "non-integer argument")
		}
		z := new(big.Int)
		switch op {
		case "*":
			if max := p.env.Limits.MaxReadBytes; max > 0 && int64(l.i.BitLen()+r.i.BitLen()) > max*8 {
				p.fail(3, "%s", ErrTooLarge)
			}
			z.Mul(l.i, r.i)
		default:
			if r.i.Sign() == 0 {
				p.fail(2, "division by zero")
			}
			if op == "/" {
				z.Quo(l.i, r.i)
			} else {
				z.Rem(l.i, r.i)
			}
		}
		l = exprValue{i: z}
	}
}

func (p *exprParser) colon(eval bool) exprValue {
	l := p.unary(eval)
	for p.next(":") {
		r := p.unary(eval)
		if eval {
			l = p.match(l, r)
		}
	}
	return l
}

func (p *exprParser) unary(eval bool) exprValue {
	switch {
	case p.next("+"):
		if p.pos >= len(p.args) {
			p.fail(2, "syntax error: missing argument after %s", quote(p.env, p.args[p.pos-1]))
		}
		p.pos++
		return exprValue{s: p.args[p.pos-1]}
	case p.next("length"):
		r := p.unary(eval)
		return exprInt(int64(p.length(r.String())))
	case p.next("match"):
		l := p.unary(eval)
		r := p.unary(eval)
		if eval {
			return p.match(l, r)
		}
		return exprInt(0)
	case p.next("index"):
		l := p.unary(eval)
		r := p.unary(eval)
		s, chars := l.String(), r.String()
		n := 0
		for i := 0; i < len(s); {
			c, size := p.char(s[i:])
			n++
			if strings.Contains(chars, c) {
				return exprInt(int64(n))
			}
			i += size
		}
		return exprInt(0)
	case p.next("substr"):
		l := p.unary(eval)
		i1 := p.unary(eval)
		i2 := p.unary(eval)
		s := l.String()
		if !i1.toInt() || !i2.toInt() {
			return exprValue{s: ""}
		}
		n := p.length(s)
		size := func(z *big.Int) int64 {
			if z.Sign() < 0 || !z.IsInt64() {
				return -1
			}
			return z.Int64()
		}
		pos, ln := size(i1.i), size(i2.i)
		if i2.i.Sign() > 0 && !i2.i.IsInt64() {
			ln = int64(len(s)) // longer than any string: the rest
		}
		if pos < 0 || ln < 0 || pos == 0 || ln == 0 || int64(n) < pos {
			return exprValue{s: ""}
		}
		// Skip pos-1 characters, take at most ln.
		i := 0
		for k := int64(1); k < pos; k++ {
			_, w := p.char(s[i:])
			i += w
		}
		j := i
		for k := int64(0); k < ln && j < len(s); k++ {
			_, w := p.char(s[j:])
			j += w
		}
		return exprValue{s: s[i:j]}
	}
	return p.primary(eval)
}

func (p *exprParser) primary(eval bool) exprValue {
	if p.pos >= len(p.args) {
		p.fail(2, "syntax error: missing argument after %s", quote(p.env, p.args[p.pos-1]))
	}
	if p.next("(") {
		v := p.or(eval)
		if p.pos >= len(p.args) {
			p.fail(2, "syntax error: expecting ')' after %s", quote(p.env, p.args[p.pos-1]))
		}
		if !p.next(")") {
			p.fail(2, "syntax error: expecting ')' instead of %s", quote(p.env, p.args[p.pos]))
		}
		return v
	}
	if p.next(")") {
		p.fail(2, "syntax error: unexpected ')'")
	}
	p.pos++
	return exprValue{s: p.args[p.pos-1]}
}

// char returns the first character of s (one byte in C, or an invalid
// UTF-8 byte) and its size.
func (p *exprParser) char(s string) (string, int) {
	if !p.utf8 {
		return s[:1], 1
	}
	_, w := utf8.DecodeRuneInString(s)
	return s[:w], w
}

func (p *exprParser) length(s string) int {
	if !p.utf8 {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// match is STRING : REGEX: the length of the match anchored at the start
// (0 when none), or the first group's text when the pattern has one.
func (p *exprParser) match(l, r exprValue) exprValue {
	s, pat := l.String(), r.String()
	re, err := exprCompile(pat)
	if err != nil {
		p.fail(2, "%s", err)
	}
	m := re.FindStringSubmatchIndex(s)
	if re.NumSubexp() > 0 {
		if m == nil || m[2] < 0 {
			return exprValue{s: ""}
		}
		return exprValue{s: s[m[2]:m[3]]}
	}
	if m == nil {
		return exprInt(0)
	}
	return exprInt(int64(p.length(s[:m[1]])))
}

// exprCompile translates a GNU BRE, anchored at the start, to Go syntax,
// leftmost-longest as POSIX matches.
func exprCompile(pat string) (*regexp.Regexp, error) {
	g, err := grepTranslate(pat, false, func(string) {})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(`(?s)^(?:`)
	writeGoEscapes(&b, g)
	b.WriteString(`)`)
	re, err := compileRegexp(b.String())
	if err != nil {
		return nil, err
	}
	re.Longest()
	return re, nil
}
