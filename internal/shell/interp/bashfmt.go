package interp

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// funcText prints a function as bash's type and declare -f print it:
//
//	f ()
//	{
//	    echo a;
//	    echo b
//	}
func funcText(name string, body *syntax.Stmt) string {
	var b strings.Builder
	b.WriteString(name + " () \n")
	if blk, ok := body.Cmd.(*syntax.Block); ok && len(body.Redirs) == 0 {
		b.WriteString("{ \n")
		fmtList(&b, blk.Stmts, 1, false)
		b.WriteString("}\n")
		return b.String()
	}
	fmtStmt(&b, body, 0)
	b.WriteString("\n")
	return b.String()
}

// fmtList prints statements one a line at depth; semi puts ';' after the
// last one too (bash does inside if, while and for bodies).
func fmtList(b *strings.Builder, list []*syntax.Stmt, depth int, semi bool) {
	for i, st := range list {
		b.WriteString(strings.Repeat("    ", depth))
		fmtStmt(b, st, depth)
		if semi || i < len(list)-1 {
			b.WriteString(";")
		}
		b.WriteString("\n")
	}
}

func fmtStmt(b *strings.Builder, st *syntax.Stmt, depth int) {
	ind := strings.Repeat("    ", depth)
	if st.Negated {
		b.WriteString("! ")
	}
	redirs := func() {
		for _, r := range st.Redirs {
			b.WriteString(" ")
			if r.N != nil {
				b.WriteString(r.N.Value)
			}
			b.WriteString(r.Op.String())
			if r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc {
				b.WriteString(" ")
			}
			b.WriteString(printNode(r.Word))
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.IfClause:
		first := true
		for ; c != nil; c = c.Else {
			if !first && len(c.Cond) == 0 {
				b.WriteString(ind + "else\n")
				fmtList(b, c.Then, depth+1, true)
				break
			}
			if !first {
				// elif is printed as else + a nested if
				b.WriteString(ind + "else\n" + ind + "    ")
				fmtStmt(b, &syntax.Stmt{Cmd: c}, depth+1)
				b.WriteString(";\n")
				break
			}
			first = false
			b.WriteString("if " + inlineList(c.Cond) + "; then\n")
			fmtList(b, c.Then, depth+1, true)
		}
		b.WriteString(ind + "fi")
	case *syntax.WhileClause:
		kw := "while "
		if c.Until {
			kw = "until "
		}
		b.WriteString(kw + inlineList(c.Cond) + "; do\n")
		fmtList(b, c.Do, depth+1, true)
		b.WriteString(ind + "done")
	case *syntax.ForClause:
		s := "for " + printNode(c.Loop)
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			s = "for " + wi.Name.Value
			if wi.InPos.IsValid() {
				s += " in"
				for _, w := range wi.Items {
					s += " " + printNode(w)
				}
			}
		}
		b.WriteString(s + ";\n" + ind + "do\n")
		fmtList(b, c.Do, depth+1, true)
		b.WriteString(ind + "done")
	case *syntax.CaseClause:
		b.WriteString("case " + printNode(c.Word) + " in \n")
		for _, it := range c.Items {
			var pats []string
			for _, p := range it.Patterns {
				pats = append(pats, printNode(p))
			}
			b.WriteString(ind + "    " + strings.Join(pats, " | ") + ")\n")
			fmtList(b, it.Stmts, depth+2, false)
			b.WriteString(ind + "    " + it.Op.String() + "\n")
		}
		b.WriteString(ind + "esac")
	case *syntax.Subshell:
		b.WriteString("( " + inlineList(c.Stmts) + " )")
	case *syntax.Block:
		b.WriteString("{ \n")
		fmtList(b, c.Stmts, depth+1, false)
		b.WriteString(ind + "}")
	default:
		s := *st
		s.Negated, s.Redirs = false, nil
		b.WriteString(printNode(&s))
	}
	redirs()
}

func inlineList(list []*syntax.Stmt) string {
	var parts []string
	for _, st := range list {
		parts = append(parts, printNode(st))
	}
	return strings.Join(parts, "; ")
}

func printNode(n syntax.Node) string {
	var buf bytes.Buffer
	syntax.NewPrinter(syntax.Minify(false), syntax.SingleLine(true)).Print(&buf, n)
	return unmark(strings.TrimSuffix(buf.String(), "\n"))
}
