package interp

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// errArith is an arithmetic error, worded as bash words it:
// "EXPR: MSG (error token is "TOK")". fatal: it stops a bash -c script (an
// expansion), as opposed to (( )) and let, which fail with status 1.
type errArith struct {
	expr, msg, tok string
	fatal          bool
	// at is the source offset of the token plus one (0: unknown): bash's
	// token is the rest of the expression from there
	at int
}

func (e errArith) Error() string {
	if e.expr == "" && e.tok == "" {
		return e.msg
	}
	if e.tok == "" {
		return fmt.Sprintf("%s: %s", e.expr, e.msg)
	}
	return fmt.Sprintf("%s: %s (error token is \"%s\")", e.expr, e.msg, e.tok)
}

const maxArithDepth = 1024

// arith evaluates an arithmetic expression of the syntax tree.
func (r *Runner) arith(x syntax.ArithmExpr) (int64, error) {
	if x == nil {
		return 0, nil
	}
	if raw, ok := arithMarker(x); ok {
		return r.arithLenient(raw)
	}
	e := arithEval{r: r}
	var n int64
	var err error
	if hasDollar(x) {
		// bash expands $x, ${x} and $(...) in the text first, then
		// evaluates the result: e='1+2'; $(($e*2)) is 1+2*2.
		var s string
		if s, err = r.arithText(x); err != nil {
			return 0, err
		}
		n, err = e.evalString(s)
	} else {
		n, err = e.eval(x)
	}
	if err != nil {
		if ae, ok := err.(errArith); ok && ae.expr == "" {
			ae.expr = strings.TrimSpace(r.nodeText(x))
			if end := int(x.End().Offset()); ae.at > 0 && !hasDollar(x) && r.src != "" && ae.at-1 <= end && end <= len(r.src) {
				ae.tok = r.src[ae.at-1 : end]
			}
			ae.fatal = true
			return 0, ae
		}
		if ae, ok := err.(errArith); ok {
			ae.fatal = true
			return 0, ae
		}
	}
	return n, err
}

// hasDollar reports whether an arithmetic expression holds $ expansions.
func hasDollar(x syntax.ArithmExpr) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			if n.Dollar.IsValid() {
				found = true
			}
		case *syntax.CmdSubst:
			found = true
		}
		return !found
	})
	return found
}

// arithText expands the expansions of an arithmetic expression's text.
func (r *Runner) arithText(x syntax.ArithmExpr) (string, error) {
	text := r.nodeText(x)
	w, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(text))
	if err != nil {
		return "", errArith{expr: text, msg: "syntax error in expression", tok: text, fatal: true}
	}
	old := r.src
	r.src = text
	segs, err := r.segs(w.Parts, true)
	r.src = old
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range segs {
		if s.brk {
			b.WriteByte(' ')
		}
		b.WriteString(s.text)
	}
	return b.String(), nil
}

// nodeText is the source text of a node when known, else printed.
func (r *Runner) nodeText(n syntax.Node) string {
	if r.src != "" {
		a, b := int(n.Pos().Offset()), int(n.End().Offset())
		if a >= 0 && b <= len(r.src) && a <= b {
			return r.src[a:b]
		}
	}
	var sb strings.Builder
	syntax.NewPrinter(syntax.Minify(true)).Print(&sb, n)
	return sb.String()
}

// arithRawErr words an error of $(( )) as bash does with the text as
// written: the expression without its leading blanks, and an error token
// at its end with the blanks after it ($(( 1 / 0 )): "1 / 0 : division by
// 0 (error token is "0 ")").
func (r *Runner) arithRawErr(x syntax.ArithmExpr, right syntax.Pos, err error) error {
	ae, ok := err.(errArith)
	if !ok || r.src == "" || x == nil {
		return err
	}
	a, b := int(x.Pos().Offset()), int(right.Offset())
	if a < 0 || b > len(r.src) || a > b {
		return err
	}
	raw := r.src[a:b]
	trimmed := strings.TrimRight(raw, " \t\n")
	if trimmed == raw || strings.ContainsAny(raw, "$`") {
		return err
	}
	if ae.expr == trimmed {
		ae.expr = raw
		if ae.tok != "" && strings.HasSuffix(trimmed, ae.tok) {
			ae.tok += raw[len(trimmed):]
		}
	}
	return ae
}

// leadText is nodeText with the blanks before the node in the source (bash
// names the text of a slice's length as written after the colon).
func (r *Runner) leadText(n syntax.Node) string {
	t := r.nodeText(n)
	a := int(n.Pos().Offset())
	if r.src == "" || a > len(r.src) {
		return t
	}
	i := a
	for i > 0 && (r.src[i-1] == ' ' || r.src[i-1] == '\t') {
		i--
	}
	return r.src[i:a] + t
}

// arithString evaluates a string as an arithmetic expression.
func (r *Runner) arithString(s string) (int64, error) {
	e := arithEval{r: r}
	return e.evalString(s)
}

// parseArith parses s as an arithmetic expression.
func parseArith(s string) (syntax.ArithmExpr, error) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	f, err := p.Parse(strings.NewReader("(("+s+"\n))"), "")
	if err != nil {
		if ae, ok := arithParseErr(s, err); ok {
			return nil, ae
		}
	}
	if err != nil || len(f.Stmts) != 1 {
		return nil, errArith{expr: s, msg: "syntax error in expression", tok: lastToken(s)}
	}
	ac, ok := f.Stmts[0].Cmd.(*syntax.ArithmCmd)
	if !ok || len(f.Stmts[0].Redirs) > 0 {
		return nil, errArith{expr: s, msg: "syntax error in expression", tok: lastToken(s)}
	}
	return ac.X, nil
}

// arithParseErr words the parser's error on the arithmetic text s (parsed
// as ((s))) as bash words its own: the message, and the token as the rest
// of the text from where bash stopped.
func arithParseErr(s string, err error) (errArith, bool) {
	pe, ok := asParseError(err)
	if !ok {
		return errArith{}, false
	}
	off := errOffset("(("+s+"\n))", pe) - 2
	rest := ""
	if off >= 0 && off <= len(s) {
		rest = s[off:]
	} else if !strings.Contains(pe.Text, "without matching `((`") {
		return errArith{}, false
	}
	// after skips the operator at the error and the blanks after it
	after := func() string {
		t := strings.TrimLeft(rest, "+-*/%<>=&|^!~?:")
		if t = strings.TrimLeft(t, " \t\n"); t == "" {
			return rest
		}
		return t
	}
	switch text := pe.Text; {
	case strings.Contains(text, "without matching `((` with `))`"):
		if strings.Count(s, "(") > strings.Count(s, ")") {
			return errArith{expr: s, msg: "missing `)'", tok: lastOperand(s)}, true
		}
		depth := 0
		for i, c := range s {
			switch c {
			case '(':
				depth++
			case ')':
				if depth--; depth < 0 {
					return errArith{expr: s, msg: "syntax error in expression", tok: s[i:]}, true
				}
			}
		}
		return errArith{}, false
	case strings.Contains(text, "floating point"):
		return errArith{expr: s, msg: "syntax error: invalid arithmetic operator", tok: rest}, true
	case strings.Contains(text, "`[` must be followed by an expression"):
		return errArith{expr: s, msg: "bad array subscript", tok: s}, true
	case strings.Contains(text, "must be followed by an expression") && strings.HasPrefix(rest, ":"):
		return errArith{expr: s, msg: "expression expected", tok: rest}, true
	case strings.Contains(text, "must follow a name"):
		return errArith{expr: s, msg: "attempted assignment to non-variable", tok: rest}, true
	case strings.Contains(text, "not a valid arithmetic operator"):
		return errArith{expr: s, msg: "syntax error in expression", tok: rest}, true
	case strings.Contains(text, "must be followed by an expression"):
		return errArith{expr: s, msg: "syntax error: operand expected", tok: after()}, true
	case strings.Contains(text, "must follow an expression"):
		return errArith{expr: s, msg: "syntax error: operand expected", tok: rest}, true
	case strings.Contains(text, "ternary operator missing `?` before `:`"):
		return errArith{expr: s, msg: "syntax error in expression", tok: rest}, true
	case strings.Contains(text, "missing `:` after `?`"):
		return errArith{expr: s, msg: "`:' expected for conditional expression", tok: after()}, true
	}
	return errArith{}, false
}

// lastOperand is the operand s ends with (bash's token for a missing ")").
func lastOperand(s string) string {
	s = strings.TrimRight(s, " \t\n")
	i := len(s)
	for i > 0 && (isNameByte(s[i-1]) || s[i-1] == '#' || s[i-1] == '@' || s[i-1] == '.') {
		i--
	}
	return s[i:]
}

func lastToken(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexAny(s, " \t\n"); i >= 0 {
		return s[i+1:]
	}
	return s
}

type arithEval struct {
	r     *Runner
	depth int
}

func (e *arithEval) evalString(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, nil
	}
	if n, ok := parseNumFast(t); ok {
		return n, nil
	}
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > maxArithDepth {
		return 0, errArith{expr: t, msg: "expression recursion level exceeded", tok: t}
	}
	x, err := parseArith(t)
	if err == nil {
		// the tree's offsets are in the text parsed: error tokens and
		// operands' text are read from it
		old := e.r.src
		e.r.src = "((" + t + "\n))"
		defer func() { e.r.src = old }()
	}
	if err != nil {
		if ae, ok := err.(errArith); ok {
			// bash: "1 +: syntax error: operand expected"
			if ae.msg == "syntax error in expression" && ae.tok == lastToken(t) && strings.ContainsAny(t[len(t)-1:], "+-*/%<>=&|^!~") {
				ae.msg = "syntax error: operand expected"
				ae.tok = t[len(t)-1:]
			}
			return 0, ae
		}
		return 0, err
	}
	n, err := e.eval(x)
	if ae, ok := err.(errArith); ok && ae.expr == "" {
		ae.expr = t
		if o := ae.at - 1 - 2; ae.at > 0 && o >= 0 && o <= len(t) {
			ae.tok = t[o:]
		}
		ae.at = 0
		return 0, ae
	}
	return n, err
}

func parseNumFast(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	if s[0] == '0' && len(s) > 1 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// number parses a bash integer constant: 10, 0x1f, 017, 2#101, 64#@.
func number(s string) (int64, error) {
	bad := errArith{msg: "value too great for base", tok: s}
	base := int64(10)
	digits := s
	if b, d, ok := strings.Cut(s, "#"); ok {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 2 || n > 64 {
			return 0, errArith{msg: "invalid arithmetic base", tok: s}
		}
		base, digits = n, d
		if digits == "" {
			return 0, errArith{msg: "invalid integer constant", tok: s}
		}
	} else if len(s) > 1 && s[0] == '0' {
		if s[1] == 'x' || s[1] == 'X' {
			base, digits = 16, s[2:]
			if digits == "" {
				return 0, nil // bash: 0x is 0
			}
		} else {
			base, digits = 8, s[1:]
		}
	}
	var n int64
	for _, c := range digits {
		var d int64
		switch {
		case c >= '0' && c <= '9':
			d = int64(c - '0')
		case c >= 'a' && c <= 'z':
			d = int64(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			if base <= 36 {
				d = int64(c-'A') + 10
			} else {
				d = int64(c-'A') + 36
			}
		case c == '@':
			d = 62
		case c == '_':
			d = 63
		default:
			return 0, errArith{msg: "syntax error in expression", tok: s}
		}
		if d >= base {
			return 0, bad
		}
		n = n*base + d
	}
	return n, nil
}

// lvalue is an assignable arithmetic operand: name or name[index].
type lvalue struct {
	name  string
	index syntax.ArithmExpr
}

func (e *arithEval) lval(x syntax.ArithmExpr) (lvalue, bool) {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return lvalue{}, false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if validName(p.Value) {
			return lvalue{name: p.Value}, true
		}
	case *syntax.ParamExp:
		if !p.Dollar.IsValid() && p.Param != nil && validName(p.Param.Value) && p.Exp == nil && p.Repl == nil && p.Slice == nil && !p.Length && !p.Excl {
			return lvalue{name: p.Param.Value, index: p.Index}, true
		}
	}
	return lvalue{}, false
}

func (e *arithEval) key(lv lvalue) (*string, error) {
	if lv.index == nil {
		return nil, nil
	}
	if v := e.r.lookup(lv.name); v != nil && v.kind == kAssoc {
		k, err := e.r.subscript(lv.name, lv.index)
		return &k, err
	}
	n, err := e.eval(lv.index)
	if err != nil {
		return nil, err
	}
	k := strconv.FormatInt(n, 10)
	return &k, nil
}

func (e *arithEval) get(lv lvalue, key *string) (int64, error) {
	var s string
	if key == nil {
		var ok bool
		s, ok = e.r.getVar(lv.name)
		if !ok && e.r.opts["nounset"] {
			return 0, errUnbound{lv.name}
		}
	} else {
		v := e.r.lookup(lv.name)
		if v != nil {
			s = e.r.elemKey(v, *key)
		}
	}
	return e.evalString(s)
}

func (e *arithEval) set(lv lvalue, key *string, n int64) error {
	return e.r.assign(lv.name, key, strconv.FormatInt(n, 10), false, false)
}

func (e *arithEval) eval(x syntax.ArithmExpr) (int64, error) {
	if err := e.r.check(); err != nil {
		return 0, err
	}
	switch x := x.(type) {
	case *syntax.Word:
		if lv, ok := e.lval(x); ok {
			k, err := e.key(lv)
			if err != nil {
				return 0, err
			}
			return e.get(lv, k)
		}
		if len(x.Parts) == 1 {
			if l, ok := x.Parts[0].(*syntax.Lit); ok {
				if l.Value != "" && l.Value[0] >= '0' && l.Value[0] <= '9' {
					return number(l.Value)
				}
				if !validName(l.Value) && !strings.ContainsAny(l.Value, "\\") {
					// $ or @ alone: no operand (its value would be read
					// as the same text again)
					return 0, errArith{msg: "syntax error: operand expected", tok: l.Value, at: int(l.Pos().Offset()) + 1}
				}
			}
		}
		for _, p := range x.Parts {
			if q, ok := p.(*syntax.SglQuoted); ok {
				// bash removes no single quotes in arithmetic: 'a' is no operand
				return 0, errArith{msg: "syntax error: operand expected", tok: e.r.nodeText(q), at: int(q.Pos().Offset()) + 1}
			}
		}
		s, err := e.r.literal(x)
		if err != nil {
			return 0, err
		}
		return e.evalString(s)
	case *syntax.ParenArithm:
		return e.eval(x.X)
	case *syntax.UnaryArithm:
		switch x.Op {
		case syntax.Inc, syntax.Dec:
			lv, ok := e.lval(x.X)
			if !ok && !x.Post {
				// ++5 is +(+5) to bash, --5 is -(-5)
				n, err := e.eval(x.X)
				return n, err
			}
			if !ok {
				return 0, errArith{msg: "syntax error: operand expected", tok: x.Op.String()[:1]}
			}
			k, err := e.key(lv)
			if err != nil {
				return 0, err
			}
			old, err := e.get(lv, k)
			if err != nil {
				return 0, err
			}
			n := old + 1
			if x.Op == syntax.Dec {
				n = old - 1
			}
			if err := e.set(lv, k, n); err != nil {
				return 0, err
			}
			if x.Post {
				return old, nil
			}
			return n, nil
		}
		n, err := e.eval(x.X)
		if err != nil {
			return 0, err
		}
		switch x.Op {
		case syntax.Not:
			return int64(b2i(n == 0)), nil
		case syntax.BitNegation:
			return ^n, nil
		case syntax.Plus:
			return n, nil
		case syntax.Minus:
			return -n, nil
		}
	case *syntax.BinaryArithm:
		return e.binary(x)
	}
	return 0, errArith{msg: "syntax error in expression"}
}

func (e *arithEval) binary(x *syntax.BinaryArithm) (int64, error) {
	switch x.Op {
	case syntax.AndArit:
		a, err := e.eval(x.X)
		if err != nil || a == 0 {
			return 0, err
		}
		b, err := e.eval(x.Y)
		return int64(b2i(b != 0)), err
	case syntax.OrArit:
		a, err := e.eval(x.X)
		if err != nil {
			return 0, err
		}
		if a != 0 {
			return 1, nil
		}
		b, err := e.eval(x.Y)
		return int64(b2i(b != 0)), err
	case syntax.TernQuest:
		c, err := e.eval(x.X)
		if err != nil {
			return 0, err
		}
		col, ok := x.Y.(*syntax.BinaryArithm)
		if !ok || col.Op != syntax.TernColon {
			return 0, errArith{msg: "`:' expected for conditional expression"}
		}
		if c != 0 {
			return e.eval(col.X)
		}
		return e.eval(col.Y)
	case syntax.Comma:
		if _, err := e.eval(x.X); err != nil {
			return 0, err
		}
		return e.eval(x.Y)
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn, syntax.PowAssgn:
		lv, ok := e.lval(x.X)
		if !ok {
			return 0, errArith{msg: "attempted assignment to non-variable", tok: strings.TrimSpace(e.r.nodeText(x.X))}
		}
		k, err := e.key(lv)
		if err != nil {
			return 0, err
		}
		// a op= b: bash reads a before it evaluates b (a += a *= 2)
		var a int64
		if x.Op != syntax.Assgn {
			if a, err = e.get(lv, k); err != nil {
				return 0, err
			}
		}
		b, err := e.eval(x.Y)
		if err != nil {
			return 0, err
		}
		n := b
		if x.Op != syntax.Assgn {
			op := map[syntax.BinAritOperator]syntax.BinAritOperator{
				syntax.AddAssgn: syntax.Add, syntax.SubAssgn: syntax.Sub, syntax.MulAssgn: syntax.Mul,
				syntax.QuoAssgn: syntax.Quo, syntax.RemAssgn: syntax.Rem, syntax.AndAssgn: syntax.And,
				syntax.OrAssgn: syntax.Or, syntax.XorAssgn: syntax.Xor, syntax.ShlAssgn: syntax.Shl,
				syntax.ShrAssgn: syntax.Shr, syntax.PowAssgn: syntax.Pow,
			}[x.Op]
			if n, err = e.op(op, a, b, x.Y); err != nil {
				return 0, err
			}
		}
		return n, e.set(lv, k, n)
	}
	a, err := e.eval(x.X)
	if err != nil {
		return 0, err
	}
	b, err := e.eval(x.Y)
	if err != nil {
		return 0, err
	}
	return e.op(x.Op, a, b, x.Y)
}

func (e *arithEval) op(op syntax.BinAritOperator, a, b int64, y syntax.ArithmExpr) (int64, error) {
	switch op {
	case syntax.Add:
		return a + b, nil
	case syntax.Sub:
		return a - b, nil
	case syntax.Mul:
		return a * b, nil
	case syntax.Quo, syntax.Rem:
		if b == 0 {
			return 0, errArith{msg: "division by 0", tok: strings.TrimSpace(e.r.nodeText(y)), at: int(y.Pos().Offset()) + 1}
		}
		if b == -1 {
			if op == syntax.Rem {
				return 0, nil
			}
			return -a, nil
		}
		if op == syntax.Quo {
			return a / b, nil
		}
		return a % b, nil
	case syntax.Pow:
		if b < 0 {
			// bash names the operand after a minus sign
			ty := y
			if u, ok := y.(*syntax.UnaryArithm); ok && u.Op == syntax.Minus && !u.Post {
				ty = u.X
			}
			return 0, errArith{msg: "exponent less than 0", tok: strings.TrimSpace(e.r.nodeText(ty)), at: int(ty.Pos().Offset()) + 1}
		}
		n := int64(1)
		for ; b > 0; b >>= 1 {
			if b&1 == 1 {
				n *= a
			}
			a *= a
		}
		return n, nil
	case syntax.Eql:
		return int64(b2i(a == b)), nil
	case syntax.Neq:
		return int64(b2i(a != b)), nil
	case syntax.Lss:
		return int64(b2i(a < b)), nil
	case syntax.Gtr:
		return int64(b2i(a > b)), nil
	case syntax.Leq:
		return int64(b2i(a <= b)), nil
	case syntax.Geq:
		return int64(b2i(a >= b)), nil
	case syntax.And:
		return a & b, nil
	case syntax.Or:
		return a | b, nil
	case syntax.Xor:
		return a ^ b, nil
	case syntax.Shl:
		return a << (uint64(b) & 63), nil
	case syntax.Shr:
		return a >> (uint64(b) & 63), nil
	case syntax.XorBool:
		return int64(b2i((a != 0) != (b != 0))), nil
	}
	return 0, errArith{msg: "syntax error in expression"}
}

// elemKey reads element k (already evaluated) of v.
func (r *Runner) elemKey(v *Var, k string) string {
	switch v.kind {
	case kAssoc:
		return v.assoc[k]
	case kIndexed:
		i, _ := strconv.Atoi(k)
		if i < 0 {
			i += v.maxIndex() + 1
		}
		return v.idx[i]
	}
	if k == "0" {
		return v.str
	}
	return ""
}
