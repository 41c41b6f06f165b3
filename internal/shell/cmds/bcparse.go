package cmds

// bc's lexer and parser: source text to statements, a unit (what GNU bc
// compiles and runs at once: the statements up to a newline, or a define)
// at a time.

import (
	"errors"
	"strings"
)

type bcTokKind int

const (
	bcEOF bcTokKind = iota
	bcNewline
	bcNumber
	bcName
	bcString
	bcOp // operators and punctuation
	bcKeyword
	bcBad // a character no token takes: reported, and its unit is not run
)

type bcTok struct {
	kind bcTokKind
	text string
	line int
}

var bcKeywords = map[string]bool{
	"auto": true, "break": true, "continue": true, "define": true, "else": true, "for": true,
	"halt": true, "if": true, "ibase": true, "last": true, "length": true, "limits": true,
	"obase": true, "print": true, "quit": true, "read": true, "return": true, "scale": true,
	"sqrt": true, "warranty": true, "while": true,
}

// errBcLex is a character bc has no token for.
type errBcLex struct {
	line int
	msg  string
}

func (e *errBcLex) Error() string { return e.msg }

// bcLex splits src into tokens. Comments (/* */ and #) are dropped, a
// backslash before a newline joins the lines.
func bcLex(src string, firstLine int) ([]bcTok, error) {
	var toks []bcTok
	line := firstLine
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			toks = append(toks, bcTok{bcNewline, "\n", line})
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			line++
			i += 2
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				toks = append(toks, bcTok{bcEOF, "", line})
				return toks, &errBcLex{line, "EOF encountered in a comment."}
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += end + 4
		case c == '"':
			end := strings.IndexByte(src[i+1:], '"')
			if end < 0 {
				toks = append(toks, bcTok{bcBad, `"`, line})
				i++
				continue
			}
			s := src[i+1 : i+1+end]
			toks = append(toks, bcTok{bcString, s, line})
			line += strings.Count(s, "\n")
			i += end + 2
		case c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c == '.' && i+1 < len(src) && bcDigit(src[i+1]):
			j := i
			dot := false
			for j < len(src) {
				d := src[j]
				if bcDigit(d) {
					j++
				} else if d == '.' && !dot {
					dot = true
					j++
				} else if d == '\\' && j+1 < len(src) && src[j+1] == '\n' {
					j += 2
					line++
				} else {
					break
				}
			}
			toks = append(toks, bcTok{bcNumber, strings.ReplaceAll(src[i:j], "\\\n", ""), line})
			i = j
		case c == '.':
			toks = append(toks, bcTok{bcName, "last", line})
			i++
		case c >= 'a' && c <= 'z':
			j := i
			for j < len(src) && (src[j] >= 'a' && src[j] <= 'z' || src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
				j++
			}
			w := src[i:j]
			k := bcName
			if bcKeywords[w] {
				k = bcKeyword
			}
			toks = append(toks, bcTok{k, w, line})
			i = j
		default:
			op := ""
			for _, o := range []string{"++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "&&", "||"} {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				if !strings.ContainsRune("+-*/%^=<>!()[]{},;", rune(c)) {
					toks = append(toks, bcTok{bcBad, string(c), line})
					i++
					continue
				}
				op = string(c)
			}
			toks = append(toks, bcTok{bcOp, op, line})
			i += len(op)
		}
	}
	toks = append(toks, bcTok{bcEOF, "", line})
	return toks, nil
}

func bcDigit(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' }

// bcExpr is an expression node.
type bcExpr struct {
	op   string // "num", "var", "arr", "call", "neg", "!", binary ops, "=", "+=", ..., "++x", "x++", "--x", "x--", "length", "scale", "sqrt", "read"
	text string // num: the constant; var, arr, call: the name
	a, b *bcExpr
	args []bcArg
}

// bcArg is a call's argument: an expression or a whole array (name[]).
type bcArg struct {
	e     *bcExpr
	array string
}

type bcStmt struct {
	kind  string // "expr", "str", "print", "if", "while", "for", "break", "continue", "return", "halt", "block", "limits", "warranty"
	e     *bcExpr
	init  *bcExpr
	post  *bcExpr
	str   string
	items []bcPrintItem
	body  []*bcStmt
	els   []*bcStmt
	hasE  bool
}

type bcPrintItem struct {
	str  string
	e    *bcExpr
	isES bool
}

type bcParam struct {
	name  string
	array bool
	ref   bool
}

type bcFunc struct {
	name   string
	params []bcParam
	autos  []bcParam
	body   []*bcStmt
}

// errBcSyntax is a syntax error at a line.
type errBcSyntax struct{ line int }

func (e *errBcSyntax) Error() string { return "syntax error" }

// errBcQuit: quit was read (GNU bc exits as it parses it).
var errBcQuit = errors.New("quit")

type bcParser struct {
	// bad reports a bcBad token as the parser reaches it.
	bad     func(bcTok)
	badUnit bool // the unit held a bad token: it is not run
	toks    []bcTok
	pos     int
	depth   int // nesting of expressions, statements: bounded
	inFn    bool
	loops   int
}

// bcMaxNest bounds the parser's nesting (parentheses, blocks).
const bcMaxNest = 1000

func (p *bcParser) peek() bcTok {
	for p.toks[p.pos].kind == bcBad {
		if p.bad != nil {
			p.bad(p.toks[p.pos])
		}
		p.badUnit = true
		p.pos++
	}
	return p.toks[p.pos]
}

func (p *bcParser) is(text string) bool {
	t := p.peek()
	return (t.kind == bcOp || t.kind == bcKeyword) && t.text == text
}

func (p *bcParser) accept(text string) bool {
	if p.is(text) {
		p.pos++
		return true
	}
	return false
}

func (p *bcParser) fail() {
	t := p.peek()
	line := t.line
	if t.kind == bcNewline {
		line++
	}
	panic(&errBcSyntax{line})
}

func (p *bcParser) expect(text string) {
	if !p.accept(text) {
		p.fail()
	}
}

func (p *bcParser) skipNewlines() {
	for p.peek().kind == bcNewline {
		p.pos++
	}
}

// unit parses the next unit: a define (fn set) or the statements up to a
// newline. At the end of input it returns done.
func (p *bcParser) unit() (stmts []*bcStmt, fn *bcFunc, done bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	p.badUnit = false
	for p.peek().kind == bcNewline {
		p.pos++
	}
	if p.peek().kind == bcEOF {
		return nil, nil, true, nil
	}
	if p.accept("define") {
		return nil, p.define(), false, nil
	}
	for {
		if s := p.statement(); s != nil {
			stmts = append(stmts, s)
		}
		switch {
		case p.accept(";"):
			continue
		case p.peek().kind == bcNewline:
			p.pos++
			return stmts, nil, false, nil
		case p.peek().kind == bcEOF:
			return stmts, nil, false, nil
		default:
			p.fail()
		}
	}
}

// recover skips to the token after the next newline.
func (p *bcParser) recover() {
	for p.peek().kind != bcNewline && p.peek().kind != bcEOF {
		p.pos++
	}
	if p.peek().kind == bcNewline {
		p.pos++
	}
}

func (p *bcParser) define() *bcFunc {
	t := p.peek()
	if t.kind != bcName {
		p.fail()
	}
	p.pos++
	f := &bcFunc{name: t.text}
	p.expect("(")
	if !p.is(")") {
		f.params = p.paramList(true)
	}
	p.expect(")")
	p.skipNewlines()
	p.expect("{")
	p.skipNewlines()
	if p.accept("auto") {
		f.autos = p.paramList(false)
		if !p.accept(";") && p.peek().kind != bcNewline {
			p.fail()
		}
	}
	p.inFn = true
	f.body = p.blockBody()
	p.inFn = false
	return f
}

func (p *bcParser) paramList(params bool) []bcParam {
	var out []bcParam
	for {
		ref := params && p.accept("*")
		t := p.peek()
		if t.kind != bcName {
			p.fail()
		}
		p.pos++
		prm := bcParam{name: t.text, ref: ref}
		if p.accept("[") {
			p.expect("]")
			prm.array = true
		} else if ref {
			p.fail()
		}
		out = append(out, prm)
		if !p.accept(",") {
			return out
		}
		p.skipNewlines()
	}
}

// blockBody parses statements up to the closing brace.
func (p *bcParser) blockBody() []*bcStmt {
	p.depth++
	if p.depth > bcMaxNest {
		p.fail()
	}
	defer func() { p.depth-- }()
	var out []*bcStmt
	for {
		for p.peek().kind == bcNewline || p.is(";") {
			p.pos++
		}
		if p.accept("}") {
			return out
		}
		if s := p.statement(); s != nil {
			out = append(out, s)
		}
		if p.is("}") {
			continue
		}
		if !p.accept(";") && p.peek().kind != bcNewline {
			p.fail()
		}
	}
}

// statement parses one statement; nil for an empty one.
func (p *bcParser) statement() *bcStmt {
	t := p.peek()
	switch {
	case t.kind == bcNewline, t.kind == bcEOF, p.is(";"):
		return nil
	case t.kind == bcString:
		p.pos++
		return &bcStmt{kind: "str", str: t.text}
	case p.accept("{"):
		return &bcStmt{kind: "block", body: p.blockBody()}
	case p.accept("quit"):
		panic(errBcQuit)
	case p.accept("halt"):
		return &bcStmt{kind: "halt"}
	case p.accept("limits"):
		return &bcStmt{kind: "limits"}
	case p.accept("warranty"):
		return &bcStmt{kind: "warranty"}
	case p.accept("break"):
		if p.loops == 0 {
			p.pos--
			p.fail()
		}
		return &bcStmt{kind: "break"}
	case p.accept("continue"):
		if p.loops == 0 {
			p.pos--
			p.fail()
		}
		return &bcStmt{kind: "continue"}
	case p.accept("return"):
		if !p.inFn {
			p.pos--
			p.fail()
		}
		s := &bcStmt{kind: "return"}
		if p.accept("(") {
			if !p.accept(")") {
				s.e = p.expr()
				s.hasE = true
				p.expect(")")
			}
		} else if !(p.peek().kind == bcNewline || p.peek().kind == bcEOF || p.is(";") || p.is("}")) {
			s.e = p.expr() // a GNU extension: return without parentheses
			s.hasE = true
		}
		return s
	case p.accept("print"):
		s := &bcStmt{kind: "print"}
		for {
			if t := p.peek(); t.kind == bcString {
				p.pos++
				s.items = append(s.items, bcPrintItem{str: t.text, isES: true})
			} else {
				s.items = append(s.items, bcPrintItem{e: p.expr()})
			}
			if !p.accept(",") {
				return s
			}
		}
	case p.accept("if"):
		p.expect("(")
		s := &bcStmt{kind: "if", e: p.expr()}
		p.expect(")")
		s.body = p.sub()
		// else may follow on the next lines.
		save := p.pos
		p.skipNewlines()
		if p.accept("else") {
			s.els = p.sub()
		} else {
			p.pos = save
		}
		return s
	case p.accept("while"):
		p.expect("(")
		s := &bcStmt{kind: "while", e: p.expr()}
		p.expect(")")
		p.loops++
		s.body = p.sub()
		p.loops--
		return s
	case p.accept("for"):
		p.expect("(")
		s := &bcStmt{kind: "for"}
		if !p.is(";") {
			s.init = p.expr()
		}
		p.expect(";")
		if !p.is(";") {
			s.e = p.expr()
		}
		p.expect(";")
		if !p.is(")") {
			s.post = p.expr()
		}
		p.expect(")")
		p.loops++
		s.body = p.sub()
		p.loops--
		return s
	}
	return &bcStmt{kind: "expr", e: p.expr()}
}

// sub is the statement of an if, while or for (newlines may come first).
func (p *bcParser) sub() []*bcStmt {
	p.depth++
	if p.depth > bcMaxNest {
		p.fail()
	}
	defer func() { p.depth-- }()
	p.skipNewlines()
	if p.is(";") {
		return nil
	}
	s := p.statement()
	if s == nil {
		return nil
	}
	return []*bcStmt{s}
}

// Precedence, loosest first: || && ! relational assignment + - * / % ^
// unary minus, ++ --. An assignment binds tighter than a comparison, as in
// GNU bc (a = 1 < 2 compares the assignment's value).
func (p *bcParser) expr() *bcExpr {
	p.depth++
	if p.depth > bcMaxNest {
		p.fail()
	}
	defer func() { p.depth-- }()
	return p.or()
}

func (p *bcParser) or() *bcExpr {
	l := p.and()
	for p.accept("||") {
		l = &bcExpr{op: "||", a: l, b: p.and()}
	}
	return l
}

func (p *bcParser) and() *bcExpr {
	l := p.not()
	for p.accept("&&") {
		l = &bcExpr{op: "&&", a: l, b: p.not()}
	}
	return l
}

func (p *bcParser) not() *bcExpr {
	if p.accept("!") {
		return &bcExpr{op: "!", a: p.not()}
	}
	return p.rel()
}

func (p *bcParser) rel() *bcExpr {
	l := p.sum()
	for {
		t := p.peek()
		if t.kind != bcOp {
			return l
		}
		switch t.text {
		case "<", "<=", ">", ">=", "==", "!=":
			p.pos++
			l = &bcExpr{op: t.text, a: l, b: p.sum()}
		default:
			return l
		}
	}
}

func bcNamed(e *bcExpr) bool {
	return e.op == "var" || e.op == "arr"
}

// assignTail parses an assignment to the named expression l when an
// assignment operator follows. As in GNU bc's grammar (yacc shifts the
// operator after a named expression), an assignment may stand wherever an
// operand does, and its right side takes every operator that binds
// tighter than a comparison: 2 * x = 3 + 1 is 2 * (x = 4), and x = 1 < 2
// compares the assignment's value.
func (p *bcParser) assignTail(l *bcExpr) *bcExpr {
	t := p.peek()
	if t.kind == bcOp {
		switch t.text {
		case "=", "+=", "-=", "*=", "/=", "%=", "^=":
			p.pos++
			p.depth++
			if p.depth > bcMaxNest {
				p.fail()
			}
			defer func() { p.depth-- }()
			var r *bcExpr
			if p.is("!") {
				r = p.not()
			} else {
				r = p.sum()
			}
			return &bcExpr{op: t.text, a: l, b: r}
		}
	}
	return l
}

func (p *bcParser) sum() *bcExpr {
	l := p.product()
	for {
		switch {
		case p.accept("+"):
			l = &bcExpr{op: "+", a: l, b: p.product()}
		case p.accept("-"):
			l = &bcExpr{op: "-", a: l, b: p.product()}
		default:
			return l
		}
	}
}

func (p *bcParser) product() *bcExpr {
	l := p.power()
	for {
		switch {
		case p.accept("*"):
			l = &bcExpr{op: "*", a: l, b: p.power()}
		case p.accept("/"):
			l = &bcExpr{op: "/", a: l, b: p.power()}
		case p.accept("%"):
			l = &bcExpr{op: "%", a: l, b: p.power()}
		default:
			return l
		}
	}
}

func (p *bcParser) power() *bcExpr {
	l := p.unary()
	if p.accept("^") {
		p.depth++
		if p.depth > bcMaxNest {
			p.fail()
		}
		defer func() { p.depth-- }()
		return &bcExpr{op: "^", a: l, b: p.power()}
	}
	return l
}

func (p *bcParser) unary() *bcExpr {
	if p.accept("-") {
		p.depth++
		if p.depth > bcMaxNest {
			p.fail()
		}
		defer func() { p.depth-- }()
		return &bcExpr{op: "neg", a: p.unary()}
	}
	if p.accept("++") || p.accept("--") {
		op := p.toks[p.pos-1].text
		if t := p.peek(); !(t.kind == bcName || t.kind == bcKeyword && (t.text == "scale" || t.text == "ibase" || t.text == "obase" || t.text == "last")) {
			p.fail()
		}
		e := p.primary()
		if !bcNamed(e) {
			p.fail()
		}
		return &bcExpr{op: op + "x", a: e}
	}
	return p.primary()
}

// named is what may follow a named expression: x++, x--, an assignment.
func (p *bcParser) named(e *bcExpr) *bcExpr {
	if p.is("++") || p.is("--") {
		op := p.peek().text
		p.pos++
		return &bcExpr{op: "x" + op, a: e}
	}
	return p.assignTail(e)
}

func (p *bcParser) primary() *bcExpr {
	t := p.peek()
	switch t.kind {
	case bcNumber:
		p.pos++
		return &bcExpr{op: "num", text: t.text}
	case bcName:
		p.pos++
		if t.text == "last" {
			return p.named(&bcExpr{op: "var", text: "last"})
		}
		if p.accept("[") {
			idx := p.expr()
			p.expect("]")
			return p.named(&bcExpr{op: "arr", text: t.text, a: idx})
		}
		if p.accept("(") {
			e := &bcExpr{op: "call", text: t.text}
			if !p.accept(")") {
				for {
					// name[] passes a whole array.
					if n := p.peek(); n.kind == bcName && p.toks[p.pos+1].text == "[" && p.toks[p.pos+2].text == "]" {
						p.pos += 3
						e.args = append(e.args, bcArg{array: n.text})
					} else {
						e.args = append(e.args, bcArg{e: p.expr()})
					}
					if p.accept(")") {
						break
					}
					p.expect(",")
				}
			}
			return e
		}
		return p.named(&bcExpr{op: "var", text: t.text})
	case bcKeyword:
		switch t.text {
		case "scale", "ibase", "obase", "last":
			p.pos++
			if t.text == "scale" && p.accept("(") {
				e := &bcExpr{op: "scale", a: p.expr()}
				p.expect(")")
				return e
			}
			return p.named(&bcExpr{op: "var", text: t.text})
		case "length", "sqrt":
			p.pos++
			p.expect("(")
			e := &bcExpr{op: t.text, a: p.expr()}
			p.expect(")")
			return e
		case "read":
			p.pos++
			p.expect("(")
			p.expect(")")
			return &bcExpr{op: "read"}
		}
	case bcOp:
		if p.accept("(") {
			e := p.expr()
			p.expect(")")
			return &bcExpr{op: "()", a: e}
		}
	}
	p.fail()
	return nil
}
