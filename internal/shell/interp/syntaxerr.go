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
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		return fmt.Sprintf("%s: %s: %v\n", name, where, err), 1
	}
	lines := strings.Split(src, "\n")
	last := len(lines)
	if strings.HasSuffix(src, "\n") {
		last--
	}
	head := func(n int) string { return fmt.Sprintf("%s: %s: line %d: ", name, where, n) }
	text := pe.Text
	ln := int(pe.Pos.Line())
	if syntax.IsIncomplete(err) || pe.Incomplete {
		for _, q := range []string{"'", "\"", "`"} {
			if strings.Contains(text, "closing quote `"+q+"`") || strings.Contains(text, "closing quote \""+q+"\"") {
				return head(ln) + "unexpected EOF while looking for matching `" + q + "'\n", ln
			}
		}
		if strings.Contains(text, "`$(` with `)`") || strings.Contains(text, "`$((` with `))`") {
			return head(last+1) + "unexpected EOF while looking for matching `)'\n", ln
		}
		if strings.Contains(text, "`[[` with `]]`") {
			return head(ln) + "unexpected token `newline', conditional binary operator expected\n", ln
		}
		return head(last+1) + "syntax error: unexpected end of file\n", ln
	}
	srcLine := ""
	if ln >= 1 && ln <= len(lines) {
		srcLine = lines[ln-1]
	}
	col := int(pe.Pos.Col()) - 1
	tok := ""
	if strings.Contains(text, "must be followed by") {
		// the token after the one the message names
		op := ""
		if i := strings.Index(text, "`"); i >= 0 {
			if j := strings.Index(text[i+1:], "`"); j >= 0 {
				op = text[i+1 : i+1+j]
			}
		}
		rest := ""
		if col >= 0 && col <= len(srcLine) {
			rest = srcLine[col:]
		}
		if strings.HasPrefix(rest, op) && !strings.Contains(op, " ") {
			rest = rest[len(op):]
		} else if f := strings.Fields(rest); len(f) > 0 {
			rest = strings.TrimPrefix(strings.TrimLeft(rest, " \t"), f[0])
		}
		tok = firstToken(rest)
	} else if col >= 0 && col <= len(srcLine) {
		tok = firstToken(srcLine[col:])
	}
	if tok == "" {
		tok = "newline"
	}
	return head(ln) + "syntax error near unexpected token `" + tok + "'\n" + head(ln) + "`" + srcLine + "'\n", ln
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
	f, err := Parse(src, r.name0)
	if err == nil {
		return r.Run(f, src)
	}
	msg, line := SyntaxError(err, src, r.name0, "-c")
	if line > 1 {
		prefix := strings.Join(strings.SplitAfter(src, "\n")[:line-1], "")
		if pf, perr := Parse(prefix, r.name0); perr == nil {
			r.src = prefix
			err := r.stmts(pf.Stmts)
			if _, ok := err.(exitCode); ok {
				return r.finish(err)
			}
			if _, ok := err.(fatalErr); ok {
				return r.finish(err)
			}
		}
	}
	fmt.Fprint(r.stderr(), msg)
	r.status = 2
	return r.finish(exitCode(2))
}
