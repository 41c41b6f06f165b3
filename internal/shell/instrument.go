package shell

import (
	"runtime"
	"strings"
	"sync"

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

// instrument prepares a parsed script: every while/until condition and every
// for ((;;)) body starts with a loop tick (an internal command the call
// handler counts against MaxLoopIters and runs as ":"). It returns the names
// of the functions the script declares.
func instrument(file *syntax.File) map[string]bool {
	var whiles []*syntax.WhileClause
	var cfors []*syntax.ForClause
	funcs := map[string]bool{}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.WhileClause:
			whiles = append(whiles, n)
		case *syntax.ForClause:
			if _, ok := n.Loop.(*syntax.CStyleLoop); ok {
				cfors = append(cfors, n)
			}
		}
		return true
	})
	for n := range declaredFuncs(file) {
		funcs[n] = true
	}
	fixLiteralEscapes(file)
	for _, w := range whiles {
		w.Cond = append([]*syntax.Stmt{tickStmt()}, w.Cond...)
	}
	for _, f := range cfors {
		f.Do = append([]*syntax.Stmt{tickStmt()}, f.Do...)
	}
	return funcs
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

// declaredFuncs returns the names of the functions node declares.
func declaredFuncs(node syntax.Node) map[string]bool {
	funcs := map[string]bool{}
	syntax.Walk(node, func(n syntax.Node) bool {
		if d, ok := n.(*syntax.FuncDecl); ok && d.Name != nil {
			funcs[d.Name.Value] = true
		}
		return true
	})
	return funcs
}

func tickStmt() *syntax.Stmt {
	return &syntax.Stmt{Cmd: &syntax.CallExpr{Args: []*syntax.Word{{
		Parts: []syntax.WordPart{&syntax.Lit{Value: loopTick}},
	}}}}
}

var pcPool = sync.Pool{New: func() any { b := make([]uintptr, 4096); return &b }}

// stackDepth counts the Go stack frames of the calling goroutine, up to
// limit+1 (0: no bound beyond the buffer).
func stackDepth(limit int) int {
	if limit <= 0 {
		limit = 1 << 20
	}
	bp := pcPool.Get().(*[]uintptr)
	defer pcPool.Put(bp)
	total := 0
	skip := 1
	for {
		n := runtime.Callers(skip, *bp)
		total += n
		if n < len(*bp) || total > limit {
			return total
		}
		skip += n
	}
}
