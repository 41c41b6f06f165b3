package shell

import (
	"fmt"
	"strings"

	"github.com/desk-dev/desk/internal/shell/interp"
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
//     MaxLoopIters and runs as ":"; a for ((;;)) tick also checks the
//     memory its condition and step take, see loopPlan);
//   - every function body, subshell and command substitution holds a call
//     frame (see frameFile) for its whole run;
//   - every statement that expands something starts with its check (see
//     memFile and plan), every command substitution's output goes through
//     a capture (captureFile), and every pipeline stage but the last and
//     every background statement registers its runner (slotFile);
//   - $(<file) becomes $(catCmd <file), so its output is captured too;
//   - $$ and $PPID read the execution's own values (see pidVar);
//   - escaped characters in words the interpreter expands as one string
//     are quoted (see fixLiteralEscapes), and so is ~name (see fixTilde);
//   - a command whose brace expansion would exceed lim is replaced by the
//     internal command braceCmd, which stops the execution with the limit
//     when (and only if) it is reached (see limitBraces).
//
// An eval'd string or a sourced file (whole is set) is itself one frame: its
// statements are wrapped in a group holding one. Plans are registered with
// pl: pinned for the script, encoded in the text for the others.
func instrument(file *syntax.File, whole bool, lim braceLimits, pl planner) map[string]bool {
	var whiles []*syntax.WhileClause
	var cfors []*syntax.ForClause
	var framed []*syntax.Stmt // function bodies
	var subshells []*syntax.Stmt
	var substs []*syntax.CmdSubst
	var stmts []*syntax.Stmt
	var slotted []*syntax.Stmt
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
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				slotted = append(slotted, n.X)
			}
		case *syntax.Stmt:
			if _, ok := n.Cmd.(*syntax.Subshell); ok {
				subshells = append(subshells, n)
			}
			if n.Background || n.Disown || n.Coprocess {
				slotted = append(slotted, n)
			}
			// Before Walk descends: a replaced command's words are
			// never visited.
			limitBraces(n, lim)
			stmts = append(stmts, n)
		case *syntax.CmdSubst:
			substs = append(substs, n)
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
	fixTilde(file)
	// Plans, from the words as the interpreter will see them (before any
	// redirection of the backend's own is added).
	type checked struct {
		st  *syntax.Stmt
		key string
		p   *plan
	}
	var checks []checked
	captures := map[*syntax.CmdSubst]*syntax.Redirect{}
	note := func(p *plan, orig map[*syntax.CmdSubst]int) {
		for cs, i := range orig {
			captures[cs] = captureRedirect(p.token, i)
		}
	}
	for _, st := range stmts {
		if p, orig := buildPlan(st); p != nil {
			key := pl.key(p)
			note(p, orig)
			checks = append(checks, checked{st, key, p})
		}
	}
	var ticks []*syntax.Stmt
	for _, f := range cfors {
		tick := tickStmt()
		if p, orig := loopPlan(f.Loop.(*syntax.CStyleLoop)); p != nil {
			key := pl.key(p)
			note(p, orig)
			call := tick.Cmd.(*syntax.CallExpr)
			call.Args = append(call.Args, litWord(key))
			if p.pos || p.dirs {
				call.Args = append(call.Args, checkRedirect(key, p).Word)
			}
		}
		ticks = append(ticks, tick)
	}
	for _, w := range whiles {
		w.Cond = append([]*syntax.Stmt{tickStmt()}, w.Cond...)
	}
	for i, f := range cfors {
		f.Do = append([]*syntax.Stmt{ticks[i]}, f.Do...)
	}
	for _, c := range checks {
		c.st.Redirs = append([]*syntax.Redirect{checkRedirect(c.key, c.p)}, c.st.Redirs...)
	}
	for _, st := range stmts {
		if args, ok := mapfileCall(st); ok {
			st.Redirs = append(st.Redirs, mapfileRedirect(args))
		}
	}
	for _, st := range slotted {
		st.Redirs = append([]*syntax.Redirect{slotRedirect()}, st.Redirs...)
	}
	for _, st := range framed {
		st.Redirs = append([]*syntax.Redirect{frameRedirect()}, st.Redirs...)
	}
	for _, st := range subshells {
		st.Redirs = append([]*syntax.Redirect{subFrameRedirect()}, st.Redirs...)
	}
	for _, cs := range substs {
		if len(cs.Stmts) == 0 {
			continue
		}
		if w := catShortcut(cs); w != nil {
			// $(<file): the interpreter would read the file itself,
			// unseen; a command reads it instead.
			cs.Stmts = []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: []*syntax.Word{litWord(catCmd)}},
				Redirs: []*syntax.Redirect{{Op: syntax.RdrIn, Word: w}}}}
		}
		g := framedGroup(cs.Stmts)
		g.Redirs[0] = subFrameRedirect()
		if rd := captures[cs]; rd != nil {
			g.Redirs = append(g.Redirs, rd)
		} else {
			// Not part of any plan (cannot happen for a script the
			// parser made): still charged as it grows.
			g.Redirs = append(g.Redirs, captureRedirect(0, -1))
		}
		cs.Stmts = []*syntax.Stmt{g}
	}
	if whole && len(file.Stmts) > 0 {
		g := framedGroup(file.Stmts)
		g.Redirs[0] = textFrameRedirect()
		file.Stmts = []*syntax.Stmt{g}
	}
	return funcs
}

// catCmd is the internal command $(<file) becomes: cat of its stdin.
const catCmd = "__desk_cat"

// catShortcut returns the file of $(<file), or nil.
func catShortcut(cs *syntax.CmdSubst) *syntax.Word {
	if len(cs.Stmts) != 1 {
		return nil
	}
	st := cs.Stmts[0]
	if st.Cmd != nil || st.Negated || st.Background || st.Coprocess || st.Disown || len(st.Redirs) != 1 || st.Redirs[0].Op != syntax.RdrIn {
		return nil
	}
	return st.Redirs[0].Word
}

func litWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}

func slotRedirect() *syntax.Redirect {
	return &syntax.Redirect{Op: syntax.AppOut, N: &syntax.Lit{Value: "2"}, Word: litWord(slotFile)}
}

// subFrameRedirect is the frame of a subshell or a command substitution:
// its variables are gone when it ends (see frame).
func subFrameRedirect() *syntax.Redirect {
	return &syntax.Redirect{Op: syntax.AppOut, N: &syntax.Lit{Value: "2"}, Word: litWord(subFrameFile)}
}

// textFrameRedirect is the frame of an eval'd string or a sourced file:
// counted as a call frame, but not a scope of positional parameters.
func textFrameRedirect() *syntax.Redirect {
	return &syntax.Redirect{Op: syntax.AppOut, N: &syntax.Lit{Value: "2"}, Word: litWord(textFrameFile)}
}

// fixTilde quotes ~name at the start of a word: the interpreter would look
// the user up in the host's password database (os/user). As for an
// unknown user in bash, the word stays as written. ~ and ~/... (HOME) are
// left to the interpreter.
func fixTilde(file *syntax.File) {
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			if n.Op == syntax.Hdoc || n.Op == syntax.DashHdoc {
				return false // a here-document has no tilde expansion
			}
		case *syntax.Word:
			if len(n.Parts) == 0 {
				return true
			}
			lit, ok := n.Parts[0].(*syntax.Lit)
			if !ok || !strings.HasPrefix(lit.Value, "~") {
				return true
			}
			name, rest, slash := strings.Cut(lit.Value[1:], "/")
			if name == "" || (!slash && len(n.Parts) > 1) {
				return true
			}
			q := []syntax.WordPart{&syntax.SglQuoted{Left: lit.ValuePos, Right: lit.ValueEnd, Value: "~" + name}}
			if slash {
				q = append(q, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: "/" + rest})
			}
			n.Parts = append(q, n.Parts[1:]...)
		}
		return true
	})
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

// textFrameFile is the frame of an eval'd string or a sourced file.
const textFrameFile = "/dev/desk-frame-text"

// subFrameFile is the frame of a subshell or a command substitution.
const subFrameFile = "/dev/desk-frame-sub"

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
func prepareText(src, name string, lim braceLimits) (string, map[string]bool, error) {
	return prepareTextIn(src, name, lim, planner{encode: true})
}

// prepareTextIn is prepareText with the plans registered by pl.
func prepareTextIn(src, name string, lim braceLimits, pl planner) (string, map[string]bool, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(src), name)
	if err != nil {
		return src, nil, nil
	}
	if findProcSubst(f) != nil {
		return "", nil, ErrProcSubst
	}
	funcs := instrument(f, true, lim, pl)
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

// braceCmd is the internal command that replaces a command whose brace
// expansion is over a limit; its argument names the limit (MaxBraceWords or
// MaxStringBytes). Printable: eval'd text holding it is printed back to
// source.
const braceCmd = "__desk_brace_limit"

// braceLimits bound the brace expansion of one command: the words it makes
// and the literal bytes they hold.
type braceLimits struct{ words, bytes int64 }

// limitBraces replaces st's command by braceCmd when the brace expansion of
// its words (arguments, array elements of its assignments, the words of a
// for or select loop) would make more than lim.words words or lim.bytes
// bytes of literal text. The interpreter expands braces before anything
// checks MaxArgs or MaxStringBytes, and bounds only each word (16,384
// words), so without this one command of many such words could take
// gigabytes. Only words holding a brace expansion count.
func limitBraces(st *syntax.Stmt, lim braceLimits) {
	var words []*syntax.Word
	assigns := func(as []*syntax.Assign) {
		for _, a := range as {
			if a.Array != nil {
				for _, e := range a.Array.Elems {
					if e.Value != nil {
						words = append(words, e.Value)
					}
				}
			}
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		assigns(c.Assigns)
		words = append(words, c.Args...)
	case *syntax.DeclClause:
		assigns(c.Args)
	case *syntax.ForClause:
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			words = append(words, wi.Items...)
		}
	default:
		return
	}
	// mvdan's expand.Braces reads every sequence syntax.SplitBraces accepts
	// as desk's interpreter does (TestBraceSize_bash), so desk's count
	// bounds it.
	var total struct{ words, bytes int64 }
	for _, w := range words {
		if n, b, ok := interp.BraceSize(w); ok {
			total.words, total.bytes = sadd(total.words, n), sadd(total.bytes, b)
		}
	}
	name := ""
	switch {
	case total.words > lim.words:
		name = "MaxBraceWords"
	case total.bytes > lim.bytes:
		name = "MaxStringBytes"
	default:
		return
	}
	st.Cmd = &syntax.CallExpr{Args: []*syntax.Word{
		{Parts: []syntax.WordPart{&syntax.Lit{Value: braceCmd}}},
		{Parts: []syntax.WordPart{&syntax.Lit{Value: name}}},
	}}
	st.Redirs = nil
}
