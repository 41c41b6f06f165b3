package interp

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SyntaxError words a parse error of src as bash does, e.g.
//
//	bash: -c: line 1: syntax error near unexpected token `then'
//	bash: -c: line 1: `if then fi'
//
// where is "-c" for a bash -c string, "eval" for eval, the file name for a
// sourced file; name is $0. The line returned is the number of the first
// line bash would not have run (the lines before it parse and run).
func SyntaxError(err error, src, name, where string) (msg string, line int) {
	msg, line, _ = syntaxError(err, src, name, where)
	return msg, line
}

// syntaxError is SyntaxError; keep reports an error of a [[ ]] expression,
// after which bash leaves the exit status as it was (one line of message).
func syntaxError(err error, src, name, where string) (msg string, line int, keep bool) {
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		return fmt.Sprintf("%s: %s: %v\n", name, where, err), 1, false
	}
	// tokens are found in the text parsed (a lenient rewrite of src), the
	// line bash echoes is src's
	tsrc := src
	var le *lenientErr
	if errors.As(err, &le) {
		tsrc = le.src
	}
	lines := strings.Split(src, "\n")
	tlines := strings.Split(tsrc, "\n")
	last := len(lines)
	if strings.HasSuffix(src, "\n") {
		last--
	}
	head := func(n int) string { return fmt.Sprintf("%s: %s: line %d: ", name, where, n) }
	text := pe.Text
	ln := int(pe.Pos.Line())
	if m, l, st, ok := condError(tsrc, pe, last, name, where); ok {
		if st == 2 {
			return m, l, false
		}
		return fmt.Sprintf("%s: %s: line %d: %s\n", name, where, ln, m), ln, true
	}
	if syntax.IsIncomplete(err) || pe.Incomplete {
		for _, q := range []string{"'", "\"", "`"} {
			if strings.Contains(text, "closing quote `"+q+"`") || strings.Contains(text, "closing quote \""+q+"\"") {
				return head(ln) + "unexpected EOF while looking for matching `" + q + "'\n", ln, false
			}
		}
		if strings.Contains(text, "`$(` with `)`") || strings.Contains(text, "`$((` with `))`") {
			return head(last+1) + "unexpected EOF while looking for matching `)'\n", ln, false
		}
		if strings.Contains(text, "`[[` with `]]`") {
			return head(ln) + "unexpected token `newline', conditional binary operator expected\n", ln, false
		}
		return head(last+1) + "syntax error: unexpected end of file\n", ln, false
	}
	srcLine, tLine := "", ""
	if ln >= 1 && ln <= len(lines) {
		srcLine = lines[ln-1]
	}
	if ln >= 1 && ln <= len(tlines) {
		tLine = tlines[ln-1]
	}
	col := int(pe.Pos.Col()) - 1
	tok := ""
	if strings.Contains(text, "`foo(` must be followed by `)`") {
		// [ ( ]: bash's token is the one after the (
		if col >= 0 && col <= len(tLine) {
			if i := strings.IndexByte(tLine[col:], '('); i >= 0 {
				tok = firstToken(tLine[col+i+1:])
			}
		}
	} else if strings.Contains(text, "must be followed by") {
		// the token after the one the message names
		op := ""
		if i := strings.Index(text, "`"); i >= 0 {
			if j := strings.Index(text[i+1:], "`"); j >= 0 {
				op = text[i+1 : i+1+j]
			}
		}
		rest := ""
		if col >= 0 && col <= len(tLine) {
			rest = tLine[col:]
		}
		if strings.HasPrefix(rest, op) && !strings.Contains(op, " ") {
			rest = rest[len(op):]
		} else if f := strings.Fields(rest); len(f) > 0 {
			rest = strings.TrimPrefix(strings.TrimLeft(rest, " \t"), f[0])
		}
		tok = firstToken(rest)
	} else if col >= 0 && col <= len(tLine) {
		tok = firstToken(tLine[col:])
	}
	if tok == "" {
		tok = "newline"
	}
	return head(ln) + "syntax error near unexpected token `" + tok + "'\n" + head(ln) + "`" + srcLine + "'\n", ln, false
}

// condError words a parse error inside [[ ]] as bash does: one line, the
// exit status left as it was (st 0), or for a =~ regex with an open ( the
// two lines of an unexpected end of file (msg complete, st 2). ok is false
// when the error is not one of these.
func condError(src string, pe syntax.ParseError, last int, name, where string) (msg string, line, st int, ok bool) {
	off := errOffset(src, pe)
	if off < 0 {
		return "", 0, 0, false
	}
	lineStart := strings.LastIndexByte(src[:min(off, len(src))], '\n') + 1
	open := strings.LastIndex(src[lineStart:min(off+2, len(src))], "[[")
	if open < 0 {
		return "", 0, 0, false
	}
	open += lineStart
	lineEnd := strings.IndexByte(src[open:], '\n')
	if lineEnd < 0 {
		lineEnd = len(src)
	} else {
		lineEnd += open
	}
	words := condWords(src[open+2 : lineEnd])
	n := -1 // the words before the first ]]
	for i, w := range words {
		if w == "]]" {
			n = i
			break
		}
	}
	if n < 0 {
		return "", 0, 0, false
	}
	ws := words[:n]
	for _, w := range ws {
		switch w {
		case "&&", "||", "!", ")":
			return "", 0, 0, false
		}
	}
	ln := int(pe.Pos.Line())
	binop := func(w string) bool {
		switch w {
		case "==", "=", "!=", "=~", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef":
			return true
		}
		return false
	}
	unop := func(w string) bool {
		return len(w) == 2 && w[0] == '-' && strings.IndexByte("abcdefghknoprstuvwxzGLNOSR", w[1]) >= 0
	}
	if len(ws) >= 3 && ws[1] == "=~" && strings.HasPrefix(ws[2], "(") {
		// the regex runs on to a matching ): bash reads to the end
		depth := 0
		for _, c := range src[strings.Index(src[open:], ws[2])+open:] {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		if depth > 0 {
			return fmt.Sprintf("%s: %s: line %d: unexpected EOF while looking for matching `)'\n", name, where, ln) +
				fmt.Sprintf("%s: %s: line %d: unexpected argument to conditional binary operator\n", name, where, last+1), ln, 2, true
		}
	}
	for _, w := range ws {
		if w == "(" {
			if len(ws) == 1 {
				return "expected `)'", ln, 0, true
			}
			return "", 0, 0, false
		}
	}
	switch {
	case len(ws) == 1 && unop(ws[0]):
		return "unexpected argument `]]' to conditional unary operator", ln, 0, true
	case len(ws) == 2 && binop(ws[1]):
		return "unexpected argument `]]' to conditional binary operator", ln, 0, true
	case len(ws) == 2 && !unop(ws[0]):
		return "conditional binary operator expected", ln, 0, true
	case len(ws) >= 3 && (binop(ws[1]) || unop(ws[0])):
		if len(ws) == 3 && binop(ws[1]) || len(ws) == 2 {
			return "", 0, 0, false
		}
		return "syntax error in conditional expression", ln, 0, true
	}
	return "", 0, 0, false
}

// condWords splits the text after [[ into words at blanks (quotes kept in
// their words), operators ( ) && || on their own.
func condWords(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '\\', '\'', '"':
			i = copyQuoted(&b, s, i)
			continue
		case ' ', '\t':
			flush()
		case ';':
			flush()
			return out
		case '(', ')':
			if b.Len() == 0 || c == ')' {
				flush()
				out = append(out, string(c))
			} else {
				b.WriteByte(c)
			}
		case '&', '|':
			if i+1 < len(s) && s[i+1] == c {
				flush()
				out = append(out, s[i:i+2])
				i += 2
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		i++
	}
	flush()
	return out
}

// firstToken is the shell token s starts with (after blanks).
func firstToken(s string) string {
	s = strings.TrimLeft(s, " \t")
	for _, op := range []string{";;&", ";;", ";&", "&&", "||", "|&", ">>", "<<", ";", "&", "|", "(", ")", "<", ">"} {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	i := strings.IndexAny(s, " \t;&|()<>")
	if i < 0 {
		return s
	}
	return s[:i]
}

// RunSource parses and runs a script as bash -c does: when it does not
// parse, the lines before the error run, then the error is printed and the
// status is 2.
func (r *Runner) RunSource(src string) (st int, ferr error) {
	defer r.recoverPanic(&st, &ferr)
	if r.cfg.Script == "" {
		r.scopes[0].vars["BASH_EXECUTION_STRING"] = &Var{set: true, str: src}
	}
	f, text, err := parse(src, r.name0)
	if err == nil {
		return r.Run(f, text)
	}
	msg, line, keep := syntaxError(err, src, r.name0, "-c")
	if line > 1 {
		prefix := strings.Join(strings.SplitAfter(src, "\n")[:line-1], "")
		if pf, ptext, perr := parse(prefix, r.name0); perr == nil {
			r.src = ptext
			err := r.units(pf.Stmts)
			if _, ok := err.(exitCode); ok {
				return r.finish(err)
			}
			if _, ok := err.(fatalErr); ok {
				return r.finish(err)
			}
		}
	}
	fmt.Fprint(r.stderr(), msg)
	if keep {
		return r.finish(exitCode(r.status))
	}
	r.status = 2
	return r.finish(exitCode(2))
}
