package interp

import (
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Parser leniency. mvdan.cc/sh's parser refuses, at parse time, some text
// bash accepts and reports (if at all) only when the command runs: bash
// parses the inside of ${...} and of $(( )) when it expands them. parse
// rewrites such a part of the source into one the parser takes and the
// interpreter recognises, then parses again (at most maxRewrites times):
//
//   - a ${...} the parser refuses (${x~~}, ${x!y}, ${a b}, ${#@:1}) becomes
//     ${__deskpe_HEX}, HEX the original text: expanding it runs bash's
//     case toggle or reports bash's "bad substitution";
//   - the inside of a $(( )), $[ ] or (( )) the parser refuses ($((1 +)),
//     ((2 3)), $((1=2))) becomes __deskar_HEX: evaluating it expands and
//     evaluates the original text, with bash's arithmetic error;
//   - blanks in the subscript of ${m[a b]}, m[a b]=v and ([a b]=v) are
//     quoted (bash keeps the subscript one word);
//   - A=(a b) before a command becomes the string A=\(a\ b\) (bash assigns
//     the text "(a b)" there);
//   - declare 1x=2 gets an empty quote before the name (an ordinary word:
//     declare reports the invalid name); let with nothing after it is \let
//     (the builtin reports "expression expected").
//
// A rewrite keeps every newline, so line numbers stay bash's (a ${...}
// marker carries those of its text as an alternative word, ${M:+"\n"},
// an arithmetic one after its name; a compound value's become escaped
// blanks and continuations), and a construct may span lines; printed
// functions show the original text (unmark). When the rewritten text still
// does not parse, the error is the parser's on the rewritten text
// (lenientErr), worded from the original's lines.

const (
	markPE    = "__deskpe_"
	markArith = "__deskar_"
	// maxRewrites bounds the rewrites of one source (each parses it again).
	maxRewrites = 32
	// lenientSpan and lenientCandidates bound the search for the construct
	// around a parse error.
	lenientSpan       = 64 << 10
	lenientCandidates = 64
)

// lenientErr is a parse error of src, a rewrite of the source parsed.
type lenientErr struct {
	err error
	src string
}

func (e *lenientErr) Error() string { return e.err.Error() }
func (e *lenientErr) Unwrap() error { return e.err }

// parse parses src as bash, leniently; text is the source the tree's
// offsets refer to (src, or its rewrite).
func parse(src, name string) (f *syntax.File, text string, err error) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	f, err = p.Parse(strings.NewReader(src), name)
	if err == nil {
		return letAsBuiltin(p, f, src, name)
	}
	first := err
	cur := src
	var warns []hereWarn
	for i := 0; i < maxRewrites; i++ {
		if w, ok := unclosedHere(cur, err); ok {
			// bash reads a here-document to the end of the text, with a
			// warning: the delimiter is added, the warning comes before
			// the command (warnHere)
			warns = append(warns, w)
			if !strings.HasSuffix(cur, "\n") {
				cur += "\n"
			}
			cur += w.delim + "\n"
			f, err = p.Parse(strings.NewReader(cur), name)
			if err == nil {
				cur = warnHere(f, cur, warns)
				f, err = p.Parse(strings.NewReader(cur), name)
				if err == nil {
					return letAsBuiltin(p, f, cur, name)
				}
			}
			continue
		}
		next, ok := rewrite(cur, err)
		if !ok || next == cur {
			break
		}
		cur = next
		f, err = p.Parse(strings.NewReader(cur), name)
		if err == nil {
			return letAsBuiltin(p, f, cur, name)
		}
	}
	if cur == src {
		return nil, src, first
	}
	return nil, src, &lenientErr{err: err, src: cur}
}

// hereWarn is a here-document the text ends inside of.
type hereWarn struct {
	line, end int // the line of its operator, the text's last line
	col       int // the column of its operator
	delim     string
}

const markWarn = "__deskwarn_"

// unclosedHere reports whether err is the parser's "unclosed here-document"
// of src.
func unclosedHere(src string, err error) (hereWarn, bool) {
	pe, ok := asParseError(err)
	if !ok || !strings.HasPrefix(pe.Text, "unclosed here-document `") || !strings.HasSuffix(pe.Text, "`") {
		return hereWarn{}, false
	}
	end := strings.Count(src, "\n")
	if !strings.HasSuffix(src, "\n") {
		end++
	}
	delim := strings.TrimSuffix(strings.TrimPrefix(pe.Text, "unclosed here-document `"), "`")
	if delim == "" || strings.ContainsAny(delim, "\n") {
		return hereWarn{}, false
	}
	return hereWarn{line: int(pe.Pos.Line()), col: int(pe.Pos.Col()), end: end, delim: delim}, true
}

// warnHere puts before the command that holds the here-documents of warns
// (with the commands on the lines it starts on: bash reads them as one)
// the marker that prints bash's warnings when it runs.
func warnHere(f *syntax.File, src string, warns []hereWarn) string {
	at := -1
	for i, st := range f.Stmts {
		if int(st.End().Line()) >= warns[0].line {
			at = i
			break
		}
	}
	if at < 0 {
		return src
	}
	for at > 0 && f.Stmts[at-1].End().Line() >= f.Stmts[at].Pos().Line() {
		at--
	}
	// bash names the line before the document's first
	syntax.Walk(f, func(n syntax.Node) bool {
		if rd, ok := n.(*syntax.Redirect); ok && rd.Hdoc != nil && rd.Hdoc.Pos().IsValid() {
			for i, w := range warns {
				if int(rd.OpPos.Line()) == w.line && int(rd.OpPos.Col()) == w.col {
					warns[i].line = int(rd.Hdoc.Pos().Line()) - 1
				}
			}
		}
		return true
	})
	var msg strings.Builder
	for _, w := range warns {
		fmt.Fprintf(&msg, "line %d: warning: here-document at line %d delimited by end-of-file (wanted `%s')\n", w.end, w.line, w.delim)
	}
	off := int(f.Stmts[at].Pos().Offset())
	return src[:off] + markWarn + hex.EncodeToString([]byte(msg.String())) + "; " + src[off:]
}

// letAsBuiltin makes every let of f the builtin (\let): bash's let is a
// simple command whose words are expanded, quotes removed, before they are
// evaluated as text, while the parser's LetClause holds expressions parsed
// from the words' source (let '1/0' named the quote as its error token).
func letAsBuiltin(p *syntax.Parser, f *syntax.File, src, name string) (*syntax.File, string, error) {
	if !strings.Contains(src, "let") {
		return f, src, nil
	}
	var at []int
	syntax.Walk(f, func(n syntax.Node) bool {
		if lc, ok := n.(*syntax.LetClause); ok {
			if o := int(lc.Let.Offset()); o < len(src) && strings.HasPrefix(src[o:], "let") {
				at = append(at, o)
			}
		}
		return true
	})
	if len(at) == 0 {
		return f, src, nil
	}
	var b strings.Builder
	last := 0
	for _, o := range at {
		if o < last {
			continue
		}
		b.WriteString(src[last:o])
		b.WriteByte('\\')
		last = o
	}
	b.WriteString(src[last:])
	text := b.String()
	f2, err := p.Parse(strings.NewReader(text), name)
	if err != nil {
		return f, src, nil
	}
	return f2, text, nil
}

// asParseError is err as a ParseError; a LangError (bash text the parser
// takes for another shell's, $((1.5))) becomes one too.
func asParseError(err error) (syntax.ParseError, bool) {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return pe, true
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return syntax.ParseError{Filename: le.Filename, Pos: le.Pos, Text: le.Feature}, true
	}
	return pe, false
}

// errOffset is the byte offset in src of a parse error's position.
func errOffset(src string, pe syntax.ParseError) int {
	line, col := int(pe.Pos.Line()), int(pe.Pos.Col())
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	off += col - 1
	if off < 0 || off > len(src) {
		return -1
	}
	return off
}

// rewrite makes one lenient rewrite of src for its parse error err.
func rewrite(src string, err error) (string, bool) {
	pe, ok := asParseError(err)
	if !ok {
		return "", false
	}
	off := errOffset(src, pe)
	if off < 0 {
		return "", false
	}
	text := pe.Text
	switch {
	case strings.Contains(text, "inline variables cannot be arrays"):
		return rewriteInlineArray(src, off)
	case strings.Contains(text, "invalid var name"):
		// declare 1x=2: an ordinary word
		return src[:off] + `""` + src[off:], true
	case strings.Contains(text, "`let` must be followed by an expression"):
		if strings.HasPrefix(src[off:], "let") {
			return src[:off] + `\` + src[off:], true
		}
		return "", false
	}
	if at, ok := letAt(src, off); ok {
		// let's words are expressions bash evaluates when it runs: the
		// builtin, a simple command, does the same
		return src[:at] + `\` + src[at:], true
	}
	open, kind := enclosing(src, off)
	switch kind {
	case "${":
		end := matchBrace(src, open+2)
		if end < 0 {
			return "", false
		}
		raw := src[open : end+1]
		return src[:open] + "${" + markPE + hex.EncodeToString([]byte(raw)) + keepLines(raw) + "}" + src[end+1:], true
	case "$((", "((":
		start := open + len(kind)
		end := matchArith(src, start)
		if end < 0 {
			return "", false
		}
		return src[:start] + markArith + hex.EncodeToString([]byte(src[start:end])) + strings.Repeat("\n", strings.Count(src[start:end], "\n")) + src[end:], true
	case "$[":
		start := open + 2
		end := matchBracket(src, start)
		if end < 0 {
			return "", false
		}
		return src[:open] + "$((" + markArith + hex.EncodeToString([]byte(src[start:end])) + strings.Repeat("\n", strings.Count(src[start:end], "\n")) + "))" + src[end+1:], true
	case "[":
		end := matchBracket(src, open+1)
		if end < 0 {
			return "", false
		}
		inner := quoteBlanks(src[open+1 : end])
		if inner == src[open+1:end] {
			return "", false
		}
		return src[:open+1] + inner + src[end:], true
	}
	return "", false
}

// enclosing finds the innermost construct around offset off of src that
// the lenient rewrites know: "${", "$((", "((" (a command), "$[" or "[" (a
// subscript after a name, or the key of an array literal's element).
//
// The work is bounded: at most lenientCandidates openers within
// lenientSpan bytes before off are tried, each matched within lenientSpan
// bytes.
func enclosing(src string, off int) (int, string) {
	lineStart := max(0, off-lenientSpan)
	src = src[:min(len(src), off+lenientSpan)]
	tried := 0
	for p := min(off, len(src)-1); p >= lineStart && tried < lenientCandidates; p-- {
		switch c := src[p]; {
		case c == '$' || c == '(' || c == '[':
			tried++
		default:
			continue
		}
		switch {
		case strings.HasPrefix(src[p:], "${"):
			if e := matchBrace(src, p+2); e >= off {
				return p, "${"
			}
		case strings.HasPrefix(src[p:], "$(("):
			if e := matchArith(src, p+3); e >= off {
				return p, "$(("
			}
		case strings.HasPrefix(src[p:], "((") && (p == 0 || src[p-1] != '$' && src[p-1] != '('):
			if !arithCmdStart(src[strings.LastIndexByte(src[:p], '\n')+1 : p]) {
				continue
			}
			if e := matchArith(src, p+2); e >= off {
				return p, "(("
			}
		case strings.HasPrefix(src[p:], "$["):
			if e := matchBracket(src, p+2); e >= off {
				return p, "$["
			}
		case src[p] == '[' && p > 0 && (isNameByte(src[p-1]) || src[p-1] == '(' || src[p-1] == ' ' || src[p-1] == '\t'):
			if e := matchBracket(src, p+1); e >= off {
				if isNameByte(src[p-1]) || strings.HasPrefix(src[e:], "]=") || strings.HasPrefix(src[e:], "]+=") {
					return p, "["
				}
			}
		}
	}
	return -1, ""
}

// letAt finds the let command whose words hold offset off of src.
func letAt(src string, off int) (int, bool) {
	lineStart := strings.LastIndexByte(src[:min(off, len(src))], '\n') + 1
	for p := min(off, len(src)) - 3; p >= lineStart; p-- {
		if !strings.HasPrefix(src[p:], "let ") && !strings.HasPrefix(src[p:], "let\t") {
			continue
		}
		if p > lineStart && isNameByte(src[p-1]) || !arithCmdStart(src[lineStart:p]) {
			continue
		}
		if strings.ContainsAny(src[p:off], ";&|\n") {
			return 0, false
		}
		return p, true
	}
	return 0, false
}

// arithCmdStart reports whether (( after before starts an arithmetic
// command (not for (( ... )), whose parts the rewrites leave alone).
func arithCmdStart(before string) bool {
	t := strings.TrimRight(before, " \t")
	if t == "" {
		return true
	}
	if strings.HasSuffix(t, "for") {
		return false
	}
	switch t[len(t)-1] {
	case ';', '&', '|', '(', '{', '!':
		return true
	}
	for _, kw := range []string{"if", "then", "else", "elif", "do", "while", "until"} {
		if t == kw || strings.HasSuffix(t, " "+kw) || strings.HasSuffix(t, ";"+kw) || strings.HasSuffix(t, "\t"+kw) {
			return true
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// skipQuoted returns the index after the quoted part or escape starting at
// src[i] (a quote or backslash), or i when there is none.
func skipQuoted(src string, i int) int {
	switch src[i] {
	case '\\':
		return min(i+2, len(src))
	case '\'':
		if j := strings.IndexByte(src[i+1:], '\''); j >= 0 {
			return i + 1 + j + 1
		}
		return len(src)
	case '"':
		for j := i + 1; j < len(src); j++ {
			switch src[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(src)
	}
	return i
}

// matchClose is the index of the close byte that ends the text starting
// at i (open bytes nest; quotes and escapes are skipped), -1 when there is
// none or, nl false, a newline comes first.
func matchClose(src string, i int, open, close byte, nl bool) int {
	depth := 0
	for i < len(src) {
		switch c := src[i]; {
		case c == '\\' || c == '\'' || c == '"':
			i = skipQuoted(src, i)
			continue
		case c == '\n' && !nl:
			return -1
		case c == open:
			depth++
		case c == close:
			if depth == 0 {
				return i
			}
			depth--
		}
		i++
	}
	return -1
}

// matchBrace is the index of the } closing a ${ whose text starts at i.
func matchBrace(src string, i int) int { return matchClose(src, i, '{', '}', true) }

// matchArith is the index of the )) closing a $(( or (( whose text
// starts at i.
func matchArith(src string, i int) int {
	if j := matchClose(src, i, '(', ')', true); j >= 0 && strings.HasPrefix(src[j:], "))") {
		return j
	}
	return -1
}

// matchBracket is the index of the ] closing a [ whose text starts at i
// on the same line.
func matchBracket(src string, i int) int { return matchClose(src, i, '[', ']', false) }

// copyQuoted writes the quoted part or escape at s[i] to b and returns the
// index after it.
func copyQuoted(b *strings.Builder, s string, i int) int {
	j := skipQuoted(s, i)
	b.WriteString(s[i:j])
	return j
}

// quoteBlanks puts the unquoted blanks of s in double quotes.
func quoteBlanks(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '\\', '\'', '"':
			i = copyQuoted(&b, s, i)
			continue
		case ' ', '\t':
			b.WriteString(`"` + string(c) + `"`)
		default:
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}

// rewriteInlineArray turns NAME=(...) at or after off, before a command,
// into the string NAME=\(...\) with its blanks escaped.
func rewriteInlineArray(src string, off int) (string, bool) {
	eq := strings.Index(src[off:], "=(")
	if eq < 0 {
		return "", false
	}
	open := off + eq + 1
	depth := 0
	end := -1
	for i := open + 1; i < len(src) && end < 0; {
		switch c := src[i]; c {
		case '\\', '\'', '"':
			i = skipQuoted(src, i)
			continue
		case '(':
			depth++
		case ')':
			if depth == 0 {
				end = i
			}
			depth--
		}
		i++
	}
	if end < 0 {
		return "", false
	}
	var b strings.Builder
	b.WriteString(src[:open])
	b.WriteString(`\(`)
	inner := src[open+1 : end]
	for i := 0; i < len(inner); {
		switch c := inner[i]; c {
		case '\\', '\'', '"':
			i = copyQuoted(&b, inner, i)
			continue
		case ' ', '\t', '(', ')', '<', '>', '|', '&', ';':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			// bash's text has a blank there; the newline stays (a
			// continuation), so lines keep their numbers
			b.WriteString("\\ \\\n")
		default:
			b.WriteByte(c)
		}
		i++
	}
	b.WriteString(`\)`)
	b.WriteString(src[end+1:])
	return b.String(), true
}

// keepLines is what a ${...} marker carries so that the newlines of the
// text it replaces stay: an alternative word of them, never expanded.
func keepLines(raw string) string {
	n := strings.Count(raw, "\n")
	if n == 0 {
		return ""
	}
	return `:+"` + strings.Repeat("\n", n) + `"`
}

// marked decodes a marker's text: the original of a rewritten part.
func marked(name, mark string) (string, bool) {
	if !strings.HasPrefix(name, mark) {
		return "", false
	}
	raw, err := hex.DecodeString(name[len(mark):])
	if err != nil {
		return "", false
	}
	return string(raw), true
}

// letRe finds the let commands letAsBuiltin made \let.
var letRe = regexp.MustCompile(`(^|[\s;&|(!{])\\let\b`)

var markRe = regexp.MustCompile(`\$\{` + markPE + `([0-9a-f]*)(?::\+"\n*")?\}|` + markArith + `([0-9a-f]*)\n*`)

// unmark puts the original text back in place of the markers of printed
// code.
func unmark(s string) string {
	if strings.Contains(s, `\let`) {
		s = letRe.ReplaceAllString(s, "${1}let")
	}
	if !strings.Contains(s, "__desk") {
		return s
	}
	return markRe.ReplaceAllStringFunc(s, func(m string) string {
		h := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(m, "${"+markPE), markArith), "}")
		h, _, _ = strings.Cut(strings.TrimRight(h, "\n"), ":")
		raw, err := hex.DecodeString(h)
		if err != nil {
			return m
		}
		return string(raw)
	})
}

// Case toggles, bash's undocumented ${x~} and ${x~~}: operators of
// paramExp past syntax's own.
const (
	opToggleFirst syntax.ParExpOperator = 200 + iota
	opToggleAll
)

var sliceRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:\[[^]]*\])?|[0-9]+|[@*]):([^:]*):(.*:.*)$`)

var toggleRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(\[[^]]*\])?(~~?)(.*)$`)

// lenientParamExp expands the original text of a ${...} the parser
// refused: a case toggle, else bash's "bad substitution".
func (r *Runner) lenientParamExp(raw string, quoted bool) ([]seg, error) {
	body := strings.TrimSuffix(strings.TrimPrefix(raw, "${"), "}")
	if m := toggleRe.FindStringSubmatch(body); m != nil {
		op := "^"
		if m[3] == "~~" {
			op = "^^"
		}
		w, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader("${" + m[1] + m[2] + op + m[4] + "}"))
		if err == nil && len(w.Parts) == 1 {
			if p, ok := w.Parts[0].(*syntax.ParamExp); ok && p.Exp != nil {
				p.Exp.Op = opToggleFirst
				if op == "^^" {
					p.Exp.Op = opToggleAll
				}
				return r.paramExp(p, quoted)
			}
		}
	}
	if m := sliceRe.FindStringSubmatch(body); m != nil {
		// ${x:o:l} whose length holds a colon: an arithmetic error of the
		// offset, else of the length, named by the parameter
		for _, x := range m[2:] {
			if _, err := r.arithLenient(x); err != nil {
				if ae, ok := err.(errArith); ok {
					ae.expr = m[1] + ": " + ae.expr
					return nil, ae
				}
				return nil, err
			}
		}
	}
	if strings.HasPrefix(body, "#@") {
		// bash: ${#@...} fails as $# would be unset
		return nil, errBadSubst{text: raw, status: 127}
	}
	return nil, errBadSubst{text: raw}
}

// arithMarker is the original text of a rewritten arithmetic expression.
func arithMarker(x syntax.ArithmExpr) (string, bool) {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return marked(l.Value, markArith)
}

// arithLenient evaluates the original text of an arithmetic expression
// the parser refused, as bash does: its expansions first, then the text;
// the error names the text from its first non-blank, and the token to its
// end, blanks included.
func (r *Runner) arithLenient(raw string) (int64, error) {
	s := raw
	if strings.ContainsAny(raw, "$`") {
		w, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(raw))
		if err != nil {
			return 0, errArith{expr: raw, msg: "syntax error in expression", tok: raw, fatal: true}
		}
		old := r.src
		r.src = raw
		segs, err := r.segs(w.Parts, true)
		r.src = old
		if err != nil {
			return 0, err
		}
		var b strings.Builder
		for _, sg := range segs {
			if sg.brk {
				b.WriteByte(' ')
			}
			b.WriteString(sg.text)
		}
		s = b.String()
	}
	e := arithEval{r: r}
	n, err := e.evalString(s)
	if ae, ok := err.(errArith); ok {
		full := strings.TrimLeft(s, " \t\n")
		trimmed := strings.TrimRight(full, " \t\n")
		if ae.expr == trimmed {
			ae.expr = full
			if ae.tok != "" && strings.HasSuffix(trimmed, ae.tok) {
				ae.tok += full[len(trimmed):]
			}
		}
		ae.fatal = true
		return 0, ae
	}
	return n, err
}
