package shell

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// A plan is what one statement expands, in the order the interpreter
// expands it (its redirections first, then its command's words), kept
// apart from the script: copies of the words with every command
// substitution emptied (its output's size is all that matters, and it is
// known only when it ends; see capture). instrument makes one for every
// statement that expands something, and the statement's check (memFile)
// evaluates it (see bound).
type plan struct {
	items  []pitem
	substs map[*syntax.CmdSubst]int // the substitutions, in order
	nsubst int
	pos    bool   // refers to positional parameters
	dirs   bool   // refers to DIRSTACK
	token  uint32 // names the plan in capture paths
	// What the statement may assign, to account the variables when it
	// ends: the names it assigns (their sizes before and after), or, when
	// it may assign others (declare, read, a computed command...), all
	// of them measured again.
	names   []string
	measure bool
}

// assigningCommands are the builtins that may set variables no plan
// names (through eval for the backend's own read and printf -v).
var assigningCommands = map[string]bool{
	"read": true, "mapfile": true, "readarray": true, "printf": true, "getopts": true,
	"cd": true, "pushd": true, "popd": true, "select": true, "export": true, "declare": true,
	"local": true, "typeset": true, "readonly": true, "let": true,
}

type itemKind byte

const (
	itFields   itemKind = 'F' // words expanded as arguments
	itLiteral  itemKind = 'L' // a word expanded as one string
	itPattern  itemKind = 'P' // a pattern (case)
	itDoc      itemKind = 'D' // a here-document
	itHereStr  itemKind = 'H' // a here-string
	itArith    itemKind = 'A' // an arithmetic expression
	itAssign   itemKind = 'S' // an assignment
	itDeclDyn  itemKind = 'Y' // declare's computed operand (declare "$x")
	itTest     itemKind = 'T' // [[ ]]
	itAlias    itemKind = 'a' // a command name that may be an alias
	itNothing  itemKind = '0'
	planPinned          = 'i' // key: an index in the execution's table
	planCoded           = 'p' // key: the plan itself, encoded
)

type pitem struct {
	kind  itemKind
	words []*syntax.Word
	arith syntax.ArithmExpr
	as    *syntax.Assign
	mode  assignMode
	test  syntax.TestExpr
	dash  bool
}

// planTable holds the plans of the script (pinned: their keys are
// indexes) and a cache of decoded ones (eval'd strings and sourced files
// carry their plans encoded in their text, so a plan lives as long as the
// text the interpreter runs).
type planTable struct {
	mu     sync.Mutex
	pinned []*plan
	cache  map[string]*plan
}

const planCacheSize = 4096

// pin keeps p and returns its key.
func (t *planTable) pin(p *plan) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pinned = append(t.pinned, p)
	key := string(planPinned) + strconv.Itoa(len(t.pinned)-1)
	p.token = tokenOf(key)
	return key
}

func tokenOf(key string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return h.Sum32()
}

// lookup finds the plan of a check path (after memFile): KEY, then, when
// the plan refers to them, /$#/"$*${DIRSTACK[*]}".
func (t *planTable) lookup(rest string) (*plan, specials, error) {
	key, tail, hasTail := strings.Cut(rest, "/")
	var spec specials
	if hasTail {
		count, bytes, _ := strings.Cut(tail, "/")
		n, err := strconv.ParseInt(count, 10, 64)
		if err == nil {
			spec = specials{ok: true, count: n, bytes: int64(len(bytes)), text: bytes}
		}
	}
	if key == "" {
		return nil, spec, errors.New("check: no plan")
	}
	switch key[0] {
	case planPinned:
		i, err := strconv.Atoi(key[1:])
		t.mu.Lock()
		defer t.mu.Unlock()
		if err != nil || i < 0 || i >= len(t.pinned) {
			return nil, spec, fmt.Errorf("check: no plan %q", key)
		}
		return t.pinned[i], spec, nil
	case planCoded:
		t.mu.Lock()
		p := t.cache[key]
		t.mu.Unlock()
		if p != nil {
			return p, spec, nil
		}
		p, err := decodePlan(key[1:])
		if err != nil {
			return nil, spec, fmt.Errorf("check: %w", err)
		}
		p.token = tokenOf(key)
		t.mu.Lock()
		if t.cache == nil || len(t.cache) >= planCacheSize {
			t.cache = map[string]*plan{}
		}
		t.cache[key] = p
		t.mu.Unlock()
		return p, spec, nil
	}
	return nil, spec, fmt.Errorf("check: no plan %q", key)
}

// planner registers the plans of one text: pinned for the script, encoded
// for eval'd strings, sourced files and traps.
type planner struct {
	table  *planTable
	encode bool
}

func (pl planner) key(p *plan) string {
	if pl.encode || pl.table == nil {
		key := string(planCoded) + encodePlan(p)
		p.token = tokenOf(key)
		return key
	}
	return pl.table.pin(p)
}

// ---- building ----

// builder makes a plan's items from a statement's nodes.
type builder struct {
	p     *plan
	pairs map[*syntax.CmdSubst]*syntax.CmdSubst // copy -> original
}

func newBuilder() *builder {
	return &builder{p: &plan{}}
}

// buildPlan makes the plan of st (its redirections, then its command) and
// returns it with the index of each original command substitution, or nil
// when st expands nothing.
func buildPlan(st *syntax.Stmt) (*plan, map[*syntax.CmdSubst]int) {
	b := newBuilder()
	for _, rd := range st.Redirs {
		b.redirect(rd)
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) > 0 {
			name := c.Args[0].Lit()
			if (name == "command" || name == "builtin") && len(c.Args) > 1 {
				name = c.Args[1].Lit()
			}
			if name == "" || assigningCommands[name] {
				b.p.measure = true
			}
			b.add(pitem{kind: itFields, words: b.words(c.Args)})
			for _, w := range c.Args {
				if w.Lit() != "" {
					b.add(pitem{kind: itAlias, words: []*syntax.Word{b.word(w)}})
				}
			}
			for _, as := range c.Assigns {
				b.add(pitem{kind: itAssign, as: b.assign(as), mode: asPrefix})
			}
		} else {
			for _, as := range c.Assigns {
				b.add(pitem{kind: itAssign, as: b.assign(as), mode: asPlain})
			}
		}
	case *syntax.DeclClause:
		b.p.measure = true
		mode := asDecl
		for _, as := range c.Args {
			if as.Name == nil && as.Value != nil {
				if lit := as.Value.Lit(); strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "+") {
					if strings.Contains(lit, "A") {
						mode = asDeclA
					}
					continue
				}
				b.add(pitem{kind: itDeclDyn, words: []*syntax.Word{b.word(as.Value)}})
				continue
			}
			b.add(pitem{kind: itAssign, as: b.assign(as), mode: mode})
		}
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			b.p.names = append(b.p.names, l.Name.Value)
			if l.InPos.IsValid() {
				b.add(pitem{kind: itFields, words: b.words(l.Items)})
			} else {
				b.p.pos = true
			}
		case *syntax.CStyleLoop:
			for _, x := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
				if x != nil {
					b.add(pitem{kind: itArith, arith: b.arith(x)})
				}
			}
		}
	case *syntax.CaseClause:
		b.add(pitem{kind: itLiteral, words: []*syntax.Word{b.word(c.Word)}})
		for _, ci := range c.Items {
			for _, pat := range ci.Patterns {
				b.add(pitem{kind: itPattern, words: []*syntax.Word{b.word(pat)}})
			}
		}
	case *syntax.TestClause:
		b.add(pitem{kind: itTest, test: b.test(c.X)})
		b.p.names = append(b.p.names, "BASH_REMATCH")
	case *syntax.ArithmCmd:
		b.add(pitem{kind: itArith, arith: b.arith(c.X)})
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			b.add(pitem{kind: itArith, arith: b.arith(x)})
		}
	}
	if len(b.p.items) == 0 {
		return nil, nil
	}
	return b.finish()
}

// loopPlan is the plan of a for ((;;)) loop's condition and step, which
// the interpreter evaluates again at every iteration (the loop tick
// checks it).
func loopPlan(l *syntax.CStyleLoop) (*plan, map[*syntax.CmdSubst]int) {
	b := newBuilder()
	for _, x := range []syntax.ArithmExpr{l.Cond, l.Post} {
		if x != nil {
			b.add(pitem{kind: itArith, arith: b.arith(x)})
		}
	}
	if len(b.p.items) == 0 {
		return nil, nil
	}
	return b.finish()
}

func (b *builder) add(it pitem) { b.p.items = append(b.p.items, it) }

// finish numbers the command substitutions in the order walk meets them,
// which decodePlan repeats.
func (b *builder) finish() (*plan, map[*syntax.CmdSubst]int) {
	b.p.index()
	if b.p.nsubst == 0 {
		return b.p, nil
	}
	orig := map[*syntax.CmdSubst]int{}
	for cp, i := range b.p.substs {
		if o := b.pairs[cp]; o != nil {
			orig[o] = i
		}
	}
	return b.p, orig
}

// index numbers the plan's command substitutions and notes what it refers
// to.
func (p *plan) index() {
	names := p.names
	addName := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	arithName := func(x syntax.ArithmExpr) {
		if w, ok := x.(*syntax.Word); ok {
			if l := w.Lit(); l != "" {
				addName(l)
			} else {
				p.measure = true
			}
		}
	}
	visit := func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil {
				addName(n.Name.Value)
			}
		case *syntax.BinaryArithm:
			switch n.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
				syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
				arithName(n.X)
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				arithName(n.X)
			}
		case *syntax.CmdSubst:
			if p.substs == nil {
				p.substs = map[*syntax.CmdSubst]int{}
			}
			p.substs[n] = p.nsubst
			p.nsubst++
		case *syntax.ParamExp:
			if n.Param != nil && n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				addName(n.Param.Value)
			}
			if n.Param != nil {
				switch v := n.Param.Value; {
				case v == "@" || v == "*" || (v != "" && v[0] >= '0' && v[0] <= '9' && v != "0"):
					p.pos = true
				case v == "DIRSTACK":
					p.dirs = true
				}
			}
		}
		return true
	}
	for i := range p.items {
		it := &p.items[i]
		for _, w := range it.words {
			syntax.Walk(w, visit)
		}
		if it.arith != nil {
			syntax.Walk(it.arith, visit)
		}
		if it.as != nil {
			syntax.Walk(it.as, visit)
		}
		if it.test != nil {
			syntax.Walk(it.test, visit)
		}
	}
	p.names = names
}

func (b *builder) redirect(rd *syntax.Redirect) {
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if rd.Hdoc != nil {
			b.add(pitem{kind: itDoc, words: []*syntax.Word{b.word(rd.Hdoc)}, dash: rd.Op == syntax.DashHdoc})
		}
	case syntax.WordHdoc:
		b.add(pitem{kind: itHereStr, words: []*syntax.Word{b.word(rd.Word)}})
	default:
		if rd.Word != nil && rd.Word.Lit() == "" {
			b.add(pitem{kind: itLiteral, words: []*syntax.Word{b.word(rd.Word)}})
		}
	}
}

func (b *builder) words(ws []*syntax.Word) []*syntax.Word {
	out := make([]*syntax.Word, len(ws))
	for i, w := range ws {
		out[i] = b.word(w)
	}
	return out
}

// word copies w with its command substitutions emptied.
func (b *builder) word(w *syntax.Word) *syntax.Word {
	if w == nil {
		return nil
	}
	return &syntax.Word{Parts: b.parts(w.Parts)}
}

func (b *builder) parts(ps []syntax.WordPart) []syntax.WordPart {
	out := make([]syntax.WordPart, 0, len(ps))
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			out = append(out, &syntax.Lit{Value: p.Value})
		case *syntax.SglQuoted:
			out = append(out, &syntax.SglQuoted{Dollar: p.Dollar, Value: p.Value})
		case *syntax.DblQuoted:
			out = append(out, &syntax.DblQuoted{Dollar: p.Dollar, Parts: b.parts(p.Parts)})
		case *syntax.ParamExp:
			out = append(out, b.param(p))
		case *syntax.CmdSubst:
			cp := &syntax.CmdSubst{}
			if b.pairs == nil {
				b.pairs = map[*syntax.CmdSubst]*syntax.CmdSubst{}
			}
			b.pairs[cp] = p
			out = append(out, cp)
		case *syntax.ArithmExp:
			out = append(out, &syntax.ArithmExp{Bracket: p.Bracket, Unsigned: p.Unsigned, X: b.arith(p.X)})
		case *syntax.ExtGlob:
			out = append(out, &syntax.ExtGlob{Op: p.Op, Pattern: &syntax.Lit{Value: p.Pattern.Value}})
		case *syntax.ProcSubst:
			out = append(out, &syntax.ProcSubst{Op: p.Op})
		case *syntax.BraceExp:
			out = append(out, &syntax.BraceExp{Sequence: p.Sequence, Elems: b.words(p.Elems)})
		}
	}
	return out
}

func (b *builder) param(p *syntax.ParamExp) *syntax.ParamExp {
	q := &syntax.ParamExp{Short: p.Short, Excl: p.Excl, Length: p.Length, Width: p.Width, IsSet: p.IsSet, Names: p.Names}
	if p.Param != nil {
		q.Param = &syntax.Lit{Value: p.Param.Value}
	}
	q.Index = b.arith(p.Index)
	if p.Slice != nil {
		q.Slice = &syntax.Slice{Offset: b.arith(p.Slice.Offset), Length: b.arith(p.Slice.Length)}
	}
	if p.Repl != nil {
		q.Repl = &syntax.Replace{All: p.Repl.All, Orig: b.word(p.Repl.Orig), With: b.word(p.Repl.With)}
	}
	if p.Exp != nil {
		q.Exp = &syntax.Expansion{Op: p.Exp.Op, Word: b.word(p.Exp.Word)}
	}
	return q
}

func (b *builder) arith(x syntax.ArithmExpr) syntax.ArithmExpr {
	switch x := x.(type) {
	case *syntax.Word:
		return b.word(x)
	case *syntax.BinaryArithm:
		return &syntax.BinaryArithm{Op: x.Op, X: b.arith(x.X), Y: b.arith(x.Y)}
	case *syntax.UnaryArithm:
		return &syntax.UnaryArithm{Op: x.Op, Post: x.Post, X: b.arith(x.X)}
	case *syntax.ParenArithm:
		return &syntax.ParenArithm{X: b.arith(x.X)}
	}
	return nil
}

func (b *builder) test(x syntax.TestExpr) syntax.TestExpr {
	switch x := x.(type) {
	case *syntax.Word:
		return b.word(x)
	case *syntax.BinaryTest:
		return &syntax.BinaryTest{Op: x.Op, X: b.test(x.X), Y: b.test(x.Y)}
	case *syntax.UnaryTest:
		return &syntax.UnaryTest{Op: x.Op, X: b.test(x.X)}
	case *syntax.ParenTest:
		return &syntax.ParenTest{X: b.test(x.X)}
	}
	return nil
}

func (b *builder) assign(as *syntax.Assign) *syntax.Assign {
	q := &syntax.Assign{Append: as.Append, Naked: as.Naked, Index: b.arith(as.Index), Value: b.word(as.Value)}
	if as.Name != nil {
		q.Name = &syntax.Lit{Value: as.Name.Value}
	}
	if as.Array != nil {
		q.Array = &syntax.ArrayExpr{}
		for _, el := range as.Array.Elems {
			q.Array.Elems = append(q.Array.Elems, &syntax.ArrayElem{Index: b.arith(el.Index), Value: b.word(el.Value)})
		}
	}
	return q
}

// ---- check and capture paths ----

// checkRedirect is the check of a plan: 2>>memFile/KEY, with the
// positional parameters' count and text when the plan refers to them.
func checkRedirect(key string, p *plan) *syntax.Redirect {
	w := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: memFile + key}}}
	if p.pos || p.dirs {
		var q []syntax.WordPart
		if p.pos {
			q = append(q, &syntax.ParamExp{Param: &syntax.Lit{Value: "*"}})
		}
		if p.dirs {
			q = append(q, &syntax.ParamExp{Param: &syntax.Lit{Value: "DIRSTACK"},
				Index: &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "*"}}}})
		}
		w.Parts = append(w.Parts,
			&syntax.Lit{Value: "/"},
			&syntax.ParamExp{Param: &syntax.Lit{Value: "#"}},
			&syntax.Lit{Value: "/"},
			&syntax.DblQuoted{Parts: q})
	}
	return &syntax.Redirect{Op: syntax.AppOut, N: &syntax.Lit{Value: "2"}, Word: w}
}

// captureRedirect is >captureFile/TOKEN/INDEX.
func captureRedirect(token uint32, index int) *syntax.Redirect {
	return &syntax.Redirect{Op: syntax.RdrOut, Word: &syntax.Word{Parts: []syntax.WordPart{
		&syntax.Lit{Value: captureFile + strconv.FormatUint(uint64(token), 10) + "/" + strconv.Itoa(index)}}}}
}

func parseCapture(rest string) (uint32, int) {
	t, i, _ := strings.Cut(rest, "/")
	token, err1 := strconv.ParseUint(t, 10, 32)
	index, err2 := strconv.Atoi(i)
	if err1 != nil || err2 != nil {
		return 0, -1
	}
	return uint32(token), index
}

// ---- encoding ----

// encodePlan writes p compactly (base64url, so it prints as a bare word in
// eval'd text printed back to source).
func encodePlan(p *plan) string {
	var e enc
	e.uvarint(uint64(len(p.items)))
	for i := range p.items {
		it := &p.items[i]
		e.b = append(e.b, byte(it.kind), byte(it.mode))
		e.bool(it.dash)
		e.uvarint(uint64(len(it.words)))
		for _, w := range it.words {
			e.word(w)
		}
		e.arith(it.arith)
		e.assign(it.as)
		e.test(it.test)
	}
	e.bool(p.measure)
	e.uvarint(uint64(len(p.names)))
	for _, n := range p.names {
		e.str(n)
	}
	return base64.RawURLEncoding.EncodeToString(e.b)
}

func decodePlan(s string) (p *plan, err error) {
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("decode plan: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("decode plan: %v", r)
		}
	}()
	d := &dec{b: data}
	p = &plan{}
	n := d.uvarint()
	for range n {
		var it pitem
		it.kind = itemKind(d.byte())
		it.mode = assignMode(d.byte())
		it.dash = d.bool()
		nw := d.uvarint()
		for range nw {
			it.words = append(it.words, d.word())
		}
		it.arith = d.arith()
		it.as = d.assign()
		it.test = d.test()
		p.items = append(p.items, it)
	}
	p.measure = d.bool()
	k := d.uvarint()
	for range k {
		p.names = append(p.names, d.str())
	}
	p.index()
	return p, nil
}

type enc struct{ b []byte }

func (e *enc) uvarint(n uint64) { e.b = binary.AppendUvarint(e.b, n) }
func (e *enc) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *enc) str(s string) { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }

func (e *enc) word(w *syntax.Word) {
	if w == nil {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.parts(w.Parts)
}

func (e *enc) parts(ps []syntax.WordPart) {
	e.uvarint(uint64(len(ps)))
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			e.b = append(e.b, 'L')
			e.str(p.Value)
		case *syntax.SglQuoted:
			e.b = append(e.b, 'S')
			e.bool(p.Dollar)
			e.str(p.Value)
		case *syntax.DblQuoted:
			e.b = append(e.b, 'D')
			e.bool(p.Dollar)
			e.parts(p.Parts)
		case *syntax.ParamExp:
			e.b = append(e.b, 'P')
			e.bool(p.Short)
			e.bool(p.Excl)
			e.bool(p.Length)
			e.bool(p.Width)
			e.bool(p.IsSet)
			e.b = append(e.b, byte(p.Names))
			e.bool(p.Param != nil)
			if p.Param != nil {
				e.str(p.Param.Value)
			}
			e.arith(p.Index)
			e.bool(p.Slice != nil)
			if p.Slice != nil {
				e.arith(p.Slice.Offset)
				e.arith(p.Slice.Length)
			}
			e.bool(p.Repl != nil)
			if p.Repl != nil {
				e.bool(p.Repl.All)
				e.word(p.Repl.Orig)
				e.word(p.Repl.With)
			}
			e.bool(p.Exp != nil)
			if p.Exp != nil {
				e.b = append(e.b, byte(p.Exp.Op))
				e.word(p.Exp.Word)
			}
		case *syntax.CmdSubst:
			e.b = append(e.b, 'C')
		case *syntax.ArithmExp:
			e.b = append(e.b, 'A')
			e.bool(p.Bracket)
			e.bool(p.Unsigned)
			e.arith(p.X)
		case *syntax.ExtGlob:
			e.b = append(e.b, 'E')
			e.b = append(e.b, byte(p.Op))
			e.str(p.Pattern.Value)
		case *syntax.BraceExp:
			e.b = append(e.b, 'B')
			e.bool(p.Sequence)
			e.uvarint(uint64(len(p.Elems)))
			for _, w := range p.Elems {
				e.word(w)
			}
		default: // ProcSubst: refused before it runs
			e.b = append(e.b, 'R')
		}
	}
}

func (e *enc) arith(x syntax.ArithmExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		e.b = append(e.b, 'W')
		e.word(x)
	case *syntax.BinaryArithm:
		e.b = append(e.b, 'B', byte(x.Op))
		e.arith(x.X)
		e.arith(x.Y)
	case *syntax.UnaryArithm:
		e.b = append(e.b, 'U', byte(x.Op))
		e.bool(x.Post)
		e.arith(x.X)
	case *syntax.ParenArithm:
		e.b = append(e.b, 'p')
		e.arith(x.X)
	default:
		e.b = append(e.b, 0)
	}
}

func (e *enc) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		e.b = append(e.b, 'w')
		e.word(x)
	case *syntax.BinaryTest:
		e.b = append(e.b, 'b', byte(x.Op))
		e.test(x.X)
		e.test(x.Y)
	case *syntax.UnaryTest:
		e.b = append(e.b, 'u', byte(x.Op))
		e.test(x.X)
	case *syntax.ParenTest:
		e.b = append(e.b, 'q')
		e.test(x.X)
	default:
		e.b = append(e.b, 0)
	}
}

func (e *enc) assign(as *syntax.Assign) {
	if as == nil {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.bool(as.Append)
	e.bool(as.Naked)
	e.bool(as.Name != nil)
	if as.Name != nil {
		e.str(as.Name.Value)
	}
	e.arith(as.Index)
	e.word(as.Value)
	e.bool(as.Array != nil)
	if as.Array != nil {
		e.uvarint(uint64(len(as.Array.Elems)))
		for _, el := range as.Array.Elems {
			e.arith(el.Index)
			e.word(el.Value)
		}
	}
}

// dec reads what enc wrote; a short or bad input panics (decodePlan
// recovers).
type dec struct {
	b []byte
	i int
}

var errPlan = errors.New("bad plan")

func (d *dec) byte() byte {
	if d.i >= len(d.b) {
		panic(errPlan)
	}
	c := d.b[d.i]
	d.i++
	return c
}

func (d *dec) bool() bool { return d.byte() != 0 }

func (d *dec) uvarint() uint64 {
	n, k := binary.Uvarint(d.b[d.i:])
	if k <= 0 || n > uint64(len(d.b)) {
		panic(errPlan)
	}
	d.i += k
	return n
}

func (d *dec) str() string {
	n := int(d.uvarint())
	if d.i+n > len(d.b) {
		panic(errPlan)
	}
	s := string(d.b[d.i : d.i+n])
	d.i += n
	return s
}

func (d *dec) word() *syntax.Word {
	if !d.bool() {
		return nil
	}
	return &syntax.Word{Parts: d.parts()}
}

func (d *dec) parts() []syntax.WordPart {
	n := d.uvarint()
	ps := make([]syntax.WordPart, 0, n)
	for range n {
		switch d.byte() {
		case 'L':
			ps = append(ps, &syntax.Lit{Value: d.str()})
		case 'S':
			dollar := d.bool()
			ps = append(ps, &syntax.SglQuoted{Dollar: dollar, Value: d.str()})
		case 'D':
			dollar := d.bool()
			ps = append(ps, &syntax.DblQuoted{Dollar: dollar, Parts: d.parts()})
		case 'P':
			p := &syntax.ParamExp{}
			p.Short, p.Excl, p.Length, p.Width, p.IsSet = d.bool(), d.bool(), d.bool(), d.bool(), d.bool()
			p.Names = syntax.ParNamesOperator(d.byte())
			if d.bool() {
				p.Param = &syntax.Lit{Value: d.str()}
			}
			p.Index = d.arith()
			if d.bool() {
				p.Slice = &syntax.Slice{Offset: d.arith(), Length: d.arith()}
			}
			if d.bool() {
				all := d.bool()
				p.Repl = &syntax.Replace{All: all, Orig: d.word(), With: d.word()}
			}
			if d.bool() {
				op := syntax.ParExpOperator(d.byte())
				p.Exp = &syntax.Expansion{Op: op, Word: d.word()}
			}
			ps = append(ps, p)
		case 'C':
			ps = append(ps, &syntax.CmdSubst{})
		case 'A':
			bracket, unsigned := d.bool(), d.bool()
			ps = append(ps, &syntax.ArithmExp{Bracket: bracket, Unsigned: unsigned, X: d.arith()})
		case 'E':
			op := syntax.GlobOperator(d.byte())
			ps = append(ps, &syntax.ExtGlob{Op: op, Pattern: &syntax.Lit{Value: d.str()}})
		case 'B':
			br := &syntax.BraceExp{Sequence: d.bool()}
			k := d.uvarint()
			for range k {
				br.Elems = append(br.Elems, d.word())
			}
			ps = append(ps, br)
		case 'R':
			ps = append(ps, &syntax.ProcSubst{})
		default:
			panic(errPlan)
		}
	}
	return ps
}

func (d *dec) arith() syntax.ArithmExpr {
	switch d.byte() {
	case 'W':
		if w := d.word(); w != nil {
			return w
		}
		return nil
	case 'B':
		op := syntax.BinAritOperator(d.byte())
		return &syntax.BinaryArithm{Op: op, X: d.arith(), Y: d.arith()}
	case 'U':
		op := syntax.UnAritOperator(d.byte())
		post := d.bool()
		return &syntax.UnaryArithm{Op: op, Post: post, X: d.arith()}
	case 'p':
		return &syntax.ParenArithm{X: d.arith()}
	}
	return nil
}

func (d *dec) test() syntax.TestExpr {
	switch d.byte() {
	case 'w':
		if w := d.word(); w != nil {
			return w
		}
		return nil
	case 'b':
		op := syntax.BinTestOperator(d.byte())
		return &syntax.BinaryTest{Op: op, X: d.test(), Y: d.test()}
	case 'u':
		op := syntax.UnTestOperator(d.byte())
		return &syntax.UnaryTest{Op: op, X: d.test()}
	case 'q':
		return &syntax.ParenTest{X: d.test()}
	}
	return nil
}

func (d *dec) assign() *syntax.Assign {
	if !d.bool() {
		return nil
	}
	as := &syntax.Assign{}
	as.Append, as.Naked = d.bool(), d.bool()
	if d.bool() {
		as.Name = &syntax.Lit{Value: d.str()}
	}
	as.Index = d.arith()
	as.Value = d.word()
	if d.bool() {
		as.Array = &syntax.ArrayExpr{}
		n := d.uvarint()
		for range n {
			idx := d.arith()
			as.Array.Elems = append(as.Array.Elems, &syntax.ArrayElem{Index: idx, Value: d.word()})
		}
	}
	return as
}
