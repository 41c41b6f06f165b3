package cmds

import (
	"bufio"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

func init() { Register("bc", Bc) }

// Bc is GNU bc 1.07: it reads the files, then standard input, and runs
// each unit (the statements up to a newline, or a define) as it is read.
// -l loads the math library (s c a l e j, scale 20); -q is accepted (no
// banner is printed anyway: input is never a terminal), as are -i, -s
// and -w (without their checks). Numbers are decimal fixed point of any
// size (math/big) with GNU's scale rules; output wraps at BC_LINE_LENGTH
// (70; 0: never) with a backslash. Syntax errors ("(standard_in) 2:
// syntax error") drop the line, runtime errors ("Runtime error
// (func=f, adr=0): Divide by zero") the rest of the unit; the adr GNU
// prints is its byte code's address, which desk's has not (it prints 0).
// Limits: a number has at most bcMaxDigits (100,000) digits and scale is
// at most that (past it: a runtime error), nesting and calls are
// bounded (bcMaxNest, bcMaxCalls), input is read within MaxReadBytes,
// and every loop checks Env.Ctx, so a long computation ends with the
// execution's timeout or Kill.
func Bc(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "bc", args[1:], optSpec{shorts: "hilqswv",
		longs: []string{"help", "interactive", "mathlib", "quiet", "standard", "warn", "version"}})
	if !ok {
		return 1
	}
	math := false
	for _, o := range opts {
		switch o.name {
		case "h", "help":
			fmt.Fprint(env.Stdout, "usage: bc [options] [file ...]\n  -h  --help         print this usage and exit\n  -i  --interactive  force interactive mode\n  -l  --mathlib      use the predefined math routines\n  -q  --quiet        don't print initial banner\n  -s  --standard     non-standard bc constructs are errors\n  -w  --warn         warn about non-standard bc constructs\n  -v  --version      print version information and exit\n")
			return 0
		case "v", "version":
			fmt.Fprint(env.Stdout, "bc 1.07.1\n")
			return 0
		case "l", "mathlib":
			math = true
		}
	}
	ll := 70
	if v := env.Getenv("BC_LINE_LENGTH"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && (n == 0 || n >= 3) {
			ll = n
		}
	}
	out := bufio.NewWriter(env.Stdout)
	defer out.Flush()
	m := &bcMachine{env: env, out: out, lineLen: ll, ibase: 10, obase: 10, last: bcInt(0),
		vars: map[string][]bcNum{}, arrays: map[string][]*bcArray{}, funcs: map[string]*bcFunc{}}
	defer m.releaseAll()
	if math {
		if st := m.runSource("", bcMathLib); st >= 0 {
			return st
		}
		m.scale = 20
	}
	for _, f := range files {
		data, err := bcReadFile(env, f)
		if err != nil {
			out.Flush()
			fmt.Fprintf(env.Stderr, "File %s is unavailable.\n", f)
			return 1
		}
		st := m.runSource(f, string(data))
		env.Release(held(data))
		if st >= 0 {
			return st
		}
	}
	data, err := readAllLimited(env, ctxReader{env, env.Stdin})
	if err != nil {
		out.Flush()
		fmt.Fprintf(env.Stderr, "bc: %s\n", Strerror(err))
		return 1
	}
	defer env.Release(held(data))
	if st := m.runSource("(standard_in)", string(data)); st >= 0 {
		return st
	}
	return 0
}

// bcReadFile reads a file operand whole, charged to Env.Mem.
func bcReadFile(env *Env, name string) ([]byte, error) {
	f, err := env.FS.Open(env.Ctx, env.Abs(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllLimited(env, f)
}

// bcMathLib is the -l library, desk's own definitions (series with
// guard digits, truncated to the caller's scale).
const bcMathLib = `
define e(x) {
	auto s, m, k, r, t, i, z
	s = scale
	m = 0
	if (x < 0) { m = 1; x = -x }
	scale = 0
	z = s + 12 + x * 44 / 100
	scale = z
	k = 0
	while (x > 0.5) { x = x / 2; k = k + 1 }
	scale = z + k
	r = 1; t = 1; i = 1
	while (1) { t = t * x / i; if (t == 0) break; r = r + t; i = i + 1 }
	while (k > 0) { r = r * r; k = k - 1 }
	scale = s
	if (m) return (1 / r)
	return (r / 1)
}
define l(x) {
	auto s, k, u, r, t, i, v
	s = scale
	if (x <= 0) return ((1 - 10 ^ s) / 1)
	scale = s + 14
	k = 1
	while (x >= 2) { x = sqrt(x); k = k * 2 }
	while (x <= 0.5) { x = sqrt(x); k = k * 2 }
	u = (x - 1) / (x + 1)
	v = u * u
	r = u; t = u; i = 3
	while (1) { t = t * v; r = r + t / i; if (t / i == 0) break; i = i + 2 }
	r = 2 * r * k
	scale = s
	return (r / 1)
}
define a(x) {
	auto s, m, k, r, t, i, u, v
	s = scale
	m = 1
	if (x < 0) { m = -1; x = -x }
	scale = s + 12
	k = 1
	while (x > 0.2) { x = x / (1 + sqrt(1 + x * x)); k = k * 2 }
	r = x; t = x; u = x * x; i = 3
	while (1) { t = -t * u; v = t / i; if (v == 0) break; r = r + v; i = i + 2 }
	r = r * k * m
	scale = s
	return (r / 1)
}
define s(x) {
	auto s, m, r, t, i, p, u, q
	s = scale
	m = 1
	if (x < 0) { m = -1; x = -x }
	scale = s + 12 + length(x / 1)
	p = 4 * a(1)
	q = x / (2 * p)
	scale = 0
	q = q / 1
	scale = s + 12 + length(x / 1)
	x = x - q * 2 * p
	if (x > p) { x = x - p; m = -m }
	if (x > p / 2) x = p - x
	r = x; t = x; u = x * x; i = 1
	while (1) { t = -t * u / ((i + 1) * (i + 2)); if (t == 0) break; r = r + t; i = i + 2 }
	scale = s
	return (m * r / 1)
}
define c(x) {
	auto s, m, r, t, i, p, u, q
	s = scale
	m = 1
	if (x < 0) x = -x
	scale = s + 12 + length(x / 1)
	p = 4 * a(1)
	q = x / (2 * p)
	scale = 0
	q = q / 1
	scale = s + 12 + length(x / 1)
	x = x - q * 2 * p
	if (x > p) x = 2 * p - x
	if (x > p / 2) { x = p - x; m = -1 }
	r = 1; t = 1; u = x * x; i = 0
	while (1) { t = -t * u / ((i + 1) * (i + 2)); if (t == 0) break; r = r + t; i = i + 2 }
	scale = s
	return (m * r / 1)
}
define j(n, x) {
	auto s, m, k, t, r, f, i, u, z
	s = scale
	scale = 0
	n = n / 1
	m = 1
	if (n < 0) { n = -n; if (n % 2 == 1) m = -1 }
	z = x; if (z < 0) z = -z
	scale = s + 12 + z * 44 / 100
	f = 1
	for (i = 2; i <= n; i++) f = f * i
	t = (x / 2) ^ n / f
	r = t
	u = -x * x / 4
	k = 1
	while (1) { t = t * u / (k * (n + k)); if (t == 0) break; r = r + t; k = k + 1 }
	scale = s
	return (m * r / 1)
}
`

type bcArray struct {
	elems map[int64]bcNum
}

// bcMaxCalls bounds the depth of function calls.
const bcMaxCalls = 2000

// bcMaxIndex is GNU bc's BC_DIM_MAX: the largest array index + 1.
const bcMaxIndex = 16777215

type bcMachine struct {
	env                 *Env
	out                 *bufio.Writer
	col, lineLen        int
	scale, ibase, obase int
	last                bcNum
	vars                map[string][]bcNum
	arrays              map[string][]*bcArray
	funcs               map[string]*bcFunc
	fn                  string // the running function ("" : main)
	calls               int
	held                int64
	steps               int
}

type bcRuntime struct{ msg string }

// bcFlow unwinds break, continue, return and halt.
type bcFlow struct {
	kind string
	val  bcNum
}

// runSource runs a whole source; it returns an exit status when bc is to
// stop (quit, halt), -1 to go on.
func (m *bcMachine) runSource(name, src string) int {
	toks, lexErr := bcLex(src, 1)
	p := &bcParser{toks: toks, bad: func(t bcTok) {
		m.out.Flush()
		fmt.Fprintf(m.env.Stderr, "%s %d: illegal character: %s\n", name, t.line, t.text)
	}}
	for {
		stmts, fn, done, err := p.unit()
		if err != nil {
			var se *errBcSyntax
			switch {
			case errors.Is(err, errBcQuit):
				return 0
			case errors.As(err, &se):
				m.out.Flush()
				fmt.Fprintf(m.env.Stderr, "%s %d: syntax error\n", name, se.line)
				p.recover()
				continue
			}
			m.out.Flush()
			fmt.Fprintf(m.env.Stderr, "%s: %v\n", name, err)
			return 1
		}
		if done {
			break
		}
		if p.badUnit {
			continue
		}
		if fn != nil {
			m.funcs[fn.name] = fn
			continue
		}
		if st := m.runUnit(stmts); st >= 0 {
			return st
		}
		if m.env.Canceled() {
			return 1
		}
	}
	if lexErr != nil {
		m.out.Flush()
		var le *errBcLex
		if errors.As(lexErr, &le) {
			fmt.Fprintf(m.env.Stderr, "%s\n", le.msg)
		}
	}
	return -1
}

func (m *bcMachine) runUnit(stmts []*bcStmt) (status int) {
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case bcRuntime:
				m.out.Flush()
				fmt.Fprintf(m.env.Stderr, "Runtime error (func=%s, adr=0): %s\n", m.fnName(), e.msg)
				m.unwind()
				status = -1
			case bcFlow:
				if e.kind == "halt" {
					status = 0
					return
				}
				panic(r)
			default:
				panic(r)
			}
		}
	}()
	m.block(stmts)
	return -1
}

func (m *bcMachine) fnName() string {
	if m.fn == "" {
		return "(main)"
	}
	return m.fn
}

// unwind drops the frames of calls a runtime error left.
func (m *bcMachine) unwind() {
	m.fn = ""
	m.calls = 0
	for name, st := range m.vars {
		if len(st) > 1 {
			m.vars[name] = st[:1]
		}
	}
	for name, st := range m.arrays {
		if len(st) > 1 {
			m.arrays[name] = st[:1]
		}
	}
}

func (m *bcMachine) fail(format string, a ...any) {
	panic(bcRuntime{fmt.Sprintf(format, a...)})
}

// clampBase is GNU bc's assignment to ibase or obase (name): n held within
// 2 and most, with bc's warning when it is not.
func (m *bcMachine) clampBase(name string, n, most int64) int {
	switch {
	case n < 2:
		m.warn(name + " too small, set to 2")
		n = 2
	case n > most:
		m.warn(fmt.Sprintf("%s too large, set to %d", name, most))
		n = most
	}
	return int(n)
}

func (m *bcMachine) warn(msg string) {
	m.out.Flush()
	fmt.Fprintf(m.env.Stderr, "Runtime warning (func=%s, adr=0): %s\n", m.fnName(), msg)
}

func (m *bcMachine) check(n bcNum, err error) bcNum {
	if err != nil {
		if errors.Is(err, errBcDivZero) {
			m.fail("Divide by zero")
		}
		m.fail("%s", err.Error())
	}
	return n
}

// tick checks the context now and then.
func (m *bcMachine) tick() {
	m.steps++
	if m.steps&255 == 0 && m.env.Canceled() {
		m.fail("%s", m.env.Ctx.Err())
	}
}

// write prints s, wrapping as GNU's out_char at lineLen.
func (m *bcMachine) write(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			m.col = 0
			m.out.WriteByte('\n')
			continue
		}
		m.col++
		if m.lineLen != 0 && m.col == m.lineLen-1 {
			m.out.WriteString("\\\n")
			m.col = 1
		}
		m.out.WriteByte(c)
	}
}

func (m *bcMachine) block(stmts []*bcStmt) {
	for _, s := range stmts {
		m.stmt(s)
	}
}

func (m *bcMachine) stmt(s *bcStmt) {
	m.tick()
	switch s.kind {
	case "expr":
		v := m.eval(s.e)
		switch s.e.op {
		case "=", "+=", "-=", "*=", "/=", "%=", "^=":
		default:
			m.write(bcFormat(v, m.obase) + "\n")
			m.last = v
		}
	case "str":
		m.write(s.str)
	case "print":
		for _, it := range s.items {
			if it.isES {
				m.write(bcEscapes(it.str))
			} else {
				v := m.eval(it.e)
				m.write(bcFormat(v, m.obase))
				m.last = v
			}
		}
	case "block":
		m.block(s.body)
	case "if":
		if !m.eval(s.e).isZero() {
			m.block(s.body)
		} else {
			m.block(s.els)
		}
	case "while", "for":
		if s.init != nil {
			m.eval(s.init)
		}
		for {
			m.tick()
			if s.e != nil && m.eval(s.e).isZero() {
				return
			}
			if m.loopBody(s.body) {
				return
			}
			if s.post != nil {
				m.eval(s.post)
			}
		}
	case "break", "continue":
		panic(bcFlow{kind: s.kind})
	case "return":
		v := bcInt(0)
		if s.hasE {
			v = m.eval(s.e)
		}
		panic(bcFlow{kind: "return", val: v})
	case "halt":
		panic(bcFlow{kind: "halt"})
	case "limits":
		m.write("BC_BASE_MAX     = 2147483647\nBC_DIM_MAX      = 16777215\nBC_SCALE_MAX    = 2147483647\nBC_STRING_MAX   = 2147483647\nMAX Exponent    = 9223372036854775807\nNumber of vars  = 32767\n")
	case "warranty":
		m.write("bc 1.07.1\nThis is free software with ABSOLUTELY NO WARRANTY.\n")
	}
}

// loopBody runs a loop's body; true when it broke out.
func (m *bcMachine) loopBody(body []*bcStmt) (broke bool) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(bcFlow); ok && (f.kind == "break" || f.kind == "continue") {
				broke = f.kind == "break"
				return
			}
			panic(r)
		}
	}()
	m.block(body)
	return false
}

// bcEscapes expands print's backslash escapes.
func bcEscapes(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'q':
			b.WriteByte('"')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'e':
			b.WriteByte('\\')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func bcBool(t bool) bcNum {
	if t {
		return bcInt(1)
	}
	return bcInt(0)
}

func (m *bcMachine) eval(e *bcExpr) bcNum {
	switch e.op {
	case "num":
		return bcParseNum(e.text, m.ibase)
	case "var", "arr":
		return m.load(e)
	case "()":
		return m.eval(e.a)
	case "neg":
		v := m.eval(e.a)
		return bcNum{v: new(big.Int).Neg(v.v), s: v.s}
	case "!":
		return bcBool(m.eval(e.a).isZero())
	case "&&":
		// As GNU's byte code: a zero operand is the result.
		if a := m.eval(e.a); a.isZero() {
			return a
		}
		if b := m.eval(e.b); b.isZero() {
			return b
		}
		return bcInt(1)
	case "||":
		return bcBool(!m.eval(e.a).isZero() || !m.eval(e.b).isZero())
	case "<", "<=", ">", ">=", "==", "!=":
		c := bcCmp(m.eval(e.a), m.eval(e.b))
		switch e.op {
		case "<":
			return bcBool(c < 0)
		case "<=":
			return bcBool(c <= 0)
		case ">":
			return bcBool(c > 0)
		case ">=":
			return bcBool(c >= 0)
		case "==":
			return bcBool(c == 0)
		}
		return bcBool(c != 0)
	case "+", "-", "*", "/", "%", "^":
		return m.arith(e.op, m.eval(e.a), m.eval(e.b))
	case "=":
		v := m.eval(e.b)
		return m.store(e.a, v)
	case "+=", "-=", "*=", "/=", "%=", "^=":
		l := m.load(e.a)
		r := m.eval(e.b)
		return m.store(e.a, m.arith(e.op[:1], l, r))
	case "++x", "--x", "x++", "x--":
		old := m.load(e.a)
		d := e.op[0]
		if d == 'x' {
			d = e.op[1]
		}
		nv := m.check(bcAdd(old, bcInt(1), d == '-'))
		m.store(e.a, nv)
		if e.op[0] == 'x' {
			return old
		}
		return nv
	case "length":
		return bcInt(int64(bcLength(m.eval(e.a))))
	case "scale":
		return bcInt(int64(m.eval(e.a).s))
	case "sqrt":
		return m.check(bcSqrt(m.eval(e.a), m.scale))
	case "read":
		m.fail("read() is not supported by the shell backend's bc")
	case "call":
		return m.call(e)
	}
	m.fail("bad expression")
	return bcNum{}
}

func (m *bcMachine) arith(op string, a, b bcNum) bcNum {
	switch op {
	case "+":
		return m.check(bcAdd(a, b, false))
	case "-":
		return m.check(bcAdd(a, b, true))
	case "*":
		return m.check(bcMul(a, b, m.scale))
	case "/":
		return m.check(bcDiv(a, b, m.scale))
	case "%":
		return m.check(bcMod(a, b, m.scale))
	}
	return m.check(bcPow(a, b, m.scale, m.warn))
}

func (m *bcMachine) index(e *bcExpr) int64 {
	v := m.eval(e).rescale(0).v
	if v.Sign() < 0 || !v.IsInt64() || v.Int64() > bcMaxIndex {
		m.fail("Array %s subscript out of bounds.", "")
	}
	return v.Int64()
}

func (m *bcMachine) array(name string) *bcArray {
	st := m.arrays[name]
	if len(st) == 0 {
		a := &bcArray{elems: map[int64]bcNum{}}
		m.arrays[name] = []*bcArray{a}
		return a
	}
	return st[len(st)-1]
}

func (m *bcMachine) load(e *bcExpr) bcNum {
	if e.op == "arr" {
		i := m.index(e.a)
		if v, ok := m.array(e.text).elems[i]; ok {
			return v
		}
		return bcInt(0)
	}
	switch e.text {
	case "scale":
		return bcInt(int64(m.scale))
	case "ibase":
		return bcInt(int64(m.ibase))
	case "obase":
		return bcInt(int64(m.obase))
	case "last":
		return m.last
	}
	st := m.vars[e.text]
	if len(st) == 0 {
		return bcInt(0)
	}
	return st[len(st)-1]
}

// size is what holding n costs, for Env.Mem.
func bcSize(n bcNum) int64 { return int64(len(n.v.Bits()))*8 + 48 }

func (m *bcMachine) charge(n int64) {
	if err := m.env.Hold(n); err != nil {
		m.fail("%s", err)
	}
	m.held += n
}

func (m *bcMachine) releaseAll() { m.env.Release(m.held) }

func (m *bcMachine) store(e *bcExpr, v bcNum) bcNum {
	if e.op == "arr" {
		i := m.index(e.a)
		a := m.array(e.text)
		old, ok := a.elems[i]
		m.charge(bcSize(v))
		if ok {
			m.charge(-bcSize(old))
		}
		a.elems[i] = v
		return v
	}
	special := func() int64 {
		iv := v.rescale(0).v
		if !iv.IsInt64() {
			if iv.Sign() < 0 {
				return -1
			}
			return 1 << 62
		}
		return iv.Int64()
	}
	switch e.text {
	case "scale":
		n := special()
		if n < 0 {
			m.warn("negative scale, set to 0")
			n = 0
		}
		if n > bcMaxDigits {
			m.fail("scale too large for the shell backend's bc (at most %d)", bcMaxDigits)
		}
		m.scale = int(n)
		return v
	case "ibase":
		m.ibase = m.clampBase("ibase", special(), 16)
		return v
	case "obase":
		m.obase = m.clampBase("obase", special(), 2147483647)
		return v
	case "last":
		m.last = v
		return v
	}
	st := m.vars[e.text]
	m.charge(bcSize(v))
	if len(st) == 0 {
		m.vars[e.text] = []bcNum{v}
		return v
	}
	m.charge(-bcSize(st[len(st)-1]))
	st[len(st)-1] = v
	return v
}

func (m *bcMachine) call(e *bcExpr) bcNum {
	f, ok := m.funcs[e.text]
	if !ok {
		m.fail("Function %s not defined.", e.text)
	}
	if len(e.args) != len(f.params) {
		m.fail("Parameter number mismatch")
	}
	if m.calls >= bcMaxCalls {
		m.fail("function calls nested too deeply for the shell backend's bc (at most %d)", bcMaxCalls)
	}
	// Arguments are evaluated in the caller's scope, then bound.
	vals := make([]bcNum, len(f.params))
	arrs := make([]*bcArray, len(f.params))
	for i, prm := range f.params {
		a := e.args[i]
		if prm.array != (a.array != "") {
			m.fail("Parameter type mismatch, parameter %s.", prm.name)
		}
		if prm.array {
			src := m.array(a.array)
			if prm.ref {
				arrs[i] = src
			} else {
				cp := &bcArray{elems: make(map[int64]bcNum, len(src.elems))}
				for k, v := range src.elems {
					cp.elems[k] = v
				}
				arrs[i] = cp
			}
		} else {
			vals[i] = m.eval(a.e)
		}
	}
	push := func(p bcParam, v bcNum, a *bcArray) {
		if p.array {
			if a == nil {
				a = &bcArray{elems: map[int64]bcNum{}}
			}
			if len(m.arrays[p.name]) == 0 {
				m.array(p.name)
			}
			m.arrays[p.name] = append(m.arrays[p.name], a)
			return
		}
		if len(m.vars[p.name]) == 0 {
			m.vars[p.name] = []bcNum{bcInt(0)}
		}
		m.vars[p.name] = append(m.vars[p.name], v)
	}
	pop := func(p bcParam) {
		if p.array {
			st := m.arrays[p.name]
			m.arrays[p.name] = st[:len(st)-1]
			return
		}
		st := m.vars[p.name]
		m.vars[p.name] = st[:len(st)-1]
	}
	for i, prm := range f.params {
		push(prm, vals[i], arrs[i])
	}
	for _, a := range f.autos {
		push(a, bcInt(0), nil)
	}
	savedFn := m.fn
	m.fn = f.name
	m.calls++
	ret := bcInt(0)
	func() {
		defer func() {
			if r := recover(); r != nil {
				if fl, ok := r.(bcFlow); ok && fl.kind == "return" {
					ret = fl.val
					return
				}
				panic(r)
			}
		}()
		m.block(f.body)
	}()
	m.calls--
	m.fn = savedFn
	for i := len(f.autos) - 1; i >= 0; i-- {
		pop(f.autos[i])
	}
	for i := len(f.params) - 1; i >= 0; i-- {
		pop(f.params[i])
	}
	return ret
}
