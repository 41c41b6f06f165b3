package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// findProcSubst returns the first process substitution in node, or nil.
func findProcSubst(node syntax.Node) *syntax.ProcSubst {
	var found *syntax.ProcSubst
	syntax.Walk(node, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		if ps, ok := n.(*syntax.ProcSubst); ok {
			found = ps
			return false
		}
		return true
	})
	return found
}

// instrument prepares a parsed script, an eval'd string or a sourced file
// before the interpreter runs it, and returns the names of the functions it
// declares:
//
//   - every while/until condition and every for ((;;)) body starts with a
//     loop tick (an internal command the call handler counts against
//     MaxLoopIters and runs as ":");
//   - every function body, subshell and command substitution holds a call
//     frame (see frameFile) for its whole run;
//   - $$ and $PPID read the execution's own values (see pidVar);
//   - escaped characters in words the interpreter expands as one string
//     are quoted (see fixLiteralEscapes).
//
// An eval'd string or a sourced file (whole is set) is itself one frame: its
// statements are wrapped in a group holding one.
func instrument(file *syntax.File, whole bool) map[string]bool {
	var whiles []*syntax.WhileClause
	var cfors []*syntax.ForClause
	var framed []*syntax.Stmt
	var substs []*syntax.CmdSubst
	funcs := map[string]bool{}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.WhileClause:
			whiles = append(whiles, n)
		case *syntax.ForClause:
			if _, ok := n.Loop.(*syntax.CStyleLoop); ok {
				cfors = append(cfors, n)
			}
		case *syntax.FuncDecl:
			if n.Name != nil {
				funcs[n.Name.Value] = true
			}
			if n.Body != nil {
				framed = append(framed, n.Body)
			}
		case *syntax.Stmt:
			if _, ok := n.Cmd.(*syntax.Subshell); ok {
				framed = append(framed, n)
			}
		case *syntax.CmdSubst:
			// $(<file) is read by the interpreter itself: it must stay
			// a lone redirection.
			if len(n.Stmts) != 1 || n.Stmts[0].Cmd != nil {
				substs = append(substs, n)
			}
		case *syntax.ParamExp:
			if n.Param != nil && (n.Param.Value == "$" || n.Param.Value == "PPID") {
				// ${...}: $$x must not print back as $__desk_pidx.
				n.Short = false
				renamePid(n.Param)
			}
		case *syntax.ArithmExp:
			renameArithmPid(n.X)
		case *syntax.ArithmCmd:
			renameArithmPid(n.X)
		case *syntax.CStyleLoop:
			renameArithmPid(n.Init)
			renameArithmPid(n.Cond)
			renameArithmPid(n.Post)
		case *syntax.LetClause:
			for _, e := range n.Exprs {
				renameArithmPid(e)
			}
		}
		return true
	})
	fixLiteralEscapes(file)
	for _, w := range whiles {
		w.Cond = append([]*syntax.Stmt{tickStmt()}, w.Cond...)
	}
	for _, f := range cfors {
		f.Do = append([]*syntax.Stmt{tickStmt()}, f.Do...)
	}
	for _, st := range framed {
		st.Redirs = append([]*syntax.Redirect{frameRedirect()}, st.Redirs...)
	}
	for _, cs := range substs {
		if len(cs.Stmts) > 0 {
			cs.Stmts = []*syntax.Stmt{framedGroup(cs.Stmts)}
		}
	}
	if whole && len(file.Stmts) > 0 {
		file.Stmts = []*syntax.Stmt{framedGroup(file.Stmts)}
	}
	return funcs
}

// frameFile is the path of a call frame: instrument adds the redirection
// 2>>frameFile to every function body, subshell, command substitution, eval'd
// string and sourced file, so the interpreter opens it (the open handler)
// when one starts and closes it when it ends, however it ends (return,
// exit, an error). The open handler counts the frames open at once against
// MaxCallDepth and hands back the current stderr. It is the interpreter's
// only hook around a whole function call (its CallHandler sees the call,
// not its end); TestCallDepth_frames fails if an upgrade changes that.
const frameFile = "/dev/desk-frame"

func frameRedirect() *syntax.Redirect {
	return &syntax.Redirect{Op: syntax.AppOut, N: &syntax.Lit{Value: "2"},
		Word: &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: frameFile}}}}
}

// framedGroup is { stmts; } 2>>frameFile.
func framedGroup(stmts []*syntax.Stmt) *syntax.Stmt {
	return &syntax.Stmt{Cmd: &syntax.Block{Stmts: stmts}, Redirs: []*syntax.Redirect{frameRedirect()}}
}

// Variables $$ and $PPID are read as: the interpreter answers them from the
// host process (os.Getpid, os.Getppid) before looking at its environment, so
// instrument renames them to these, which the environment answers with the
// execution's values (see execPid).
const (
	pidVar  = "__desk_pid"
	ppidVar = "__desk_ppid"
)

func renamePid(l *syntax.Lit) {
	if l == nil {
		return
	}
	switch l.Value {
	case "$":
		l.Value = pidVar
	case "PPID":
		l.Value = ppidVar
	}
}

// renameArithmPid renames PPID where an arithmetic expression names it
// without a $ ($(( PPID + 1 ))).
func renameArithmPid(e syntax.ArithmExpr) {
	if e == nil {
		return
	}
	syntax.Walk(e, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if w.Lit() == "PPID" {
				w.Parts = []syntax.WordPart{&syntax.Lit{Value: ppidVar}}
			}
			return false
		}
		return true
	})
}

// prepareText parses and instruments an eval'd string or a sourced file and
// prints it back for the interpreter to parse, with the functions it
// declares. Text that does not parse is returned as it is (the interpreter
// reports the error itself); text with process substitution fails with
// ErrProcSubst.
func prepareText(src, name string) (string, map[string]bool, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(src), name)
	if err != nil {
		return src, nil, nil
	}
	if findProcSubst(f) != nil {
		return "", nil, ErrProcSubst
	}
	funcs := instrument(f, true)
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return "", nil, fmt.Errorf("print %s: %w", name, err)
	}
	return b.String(), funcs, nil
}

// fixLiteralEscapes works around mvdan/sh v3.14.1 keeping the backslash of
// an escaped character in words it expands as one string (expand.Literal):
// assignment values (x=a\ b, x=it\'s), redirection targets (> a\ b)
// and the operands of [[ ]]. bash removes the backslash; the interpreter
// stored "a\ b". Each escaped character of an unquoted literal becomes a
// single-quoted part, which is what the escape means. It reports whether it
// changed anything. eval's text (the call handler) and a sourced file (the
// open handler) are rewritten the same way before they run.
func fixLiteralEscapes(file *syntax.File) (changed bool) {
	fix := func(w *syntax.Word) bool {
		if w == nil {
			return false
		}
		var parts []syntax.WordPart
		changed := false
		for _, p := range w.Parts {
			lit, ok := p.(*syntax.Lit)
			if !ok || !strings.Contains(lit.Value, "\\") {
				parts = append(parts, p)
				continue
			}
			changed = true
			v := lit.Value
			for v != "" {
				i := strings.IndexByte(v, '\\')
				if i < 0 || i == len(v)-1 {
					parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: v})
					break
				}
				if i > 0 {
					parts = append(parts, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: v[:i]})
				}
				switch v[i+1] {
				case '\n': // a line continuation disappears
				case '\'':
					// "'" (a quote cannot be single-quoted, and eval's
					// rewritten text is printed back to source).
					parts = append(parts, &syntax.DblQuoted{Left: lit.ValuePos, Right: lit.ValueEnd,
						Parts: []syntax.WordPart{&syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: "'"}}})
				default:
					parts = append(parts, &syntax.SglQuoted{Left: lit.ValuePos, Right: lit.ValueEnd, Value: v[i+1 : i+2]})
				}
				v = v[i+2:]
			}
		}
		if changed {
			w.Parts = parts
		}
		return changed
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			changed = fix(n.Value) || changed
		case *syntax.Redirect:
			if n.Op != syntax.Hdoc && n.Op != syntax.DashHdoc {
				changed = fix(n.Word) || changed
			}
		case *syntax.TestClause:
			syntax.Walk(n.X, func(m syntax.Node) bool {
				if w, ok := m.(*syntax.Word); ok {
					changed = fix(w) || changed
					return false
				}
				return true
			})
			return false
		}
		return true
	})
	return changed
}

func tickStmt() *syntax.Stmt {
	return &syntax.Stmt{Cmd: &syntax.CallExpr{Args: []*syntax.Word{{
		Parts: []syntax.WordPart{&syntax.Lit{Value: loopTick}},
	}}}}
}
