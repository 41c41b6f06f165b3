package shell

import (
	"math"
	"regexp"
	rxsyntax "regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/desk-dev/desk/internal/search"
	"github.com/desk-dev/desk/internal/shell/interp"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// The bound of a statement: before the interpreter expands anything of a
// statement, the check evaluates the statement's plan (its words, in the
// order the interpreter expands them) against the variables as they are,
// and computes an upper bound of the bytes the expansion allocates: every
// string, field, list and map it makes, the garbage of growing them (a
// strings.Builder grows by a quarter at a time), the regular expressions
// the patterns compile to and what matching them allocates. The costs
// below are per byte or per item, measured on mvdan.cc/sh v3.14.1 and
// rounded up; TestBound_sound runs every form at sizes in the megabytes and
// checks that the bytes allocated stay under the bound.
const (
	costJoin    = 3        // per byte of a word built from several parts
	costCapture = 4        // per byte of a command substitution's output
	costField   = 256      // per field of a word expanded as arguments
	costMatch   = 96       // per match of ${x//pattern/...}
	costRunes   = 8        // per byte of a string turned into runes and back
	costList    = 64       // per element of a list built or copied
	costMapEnt  = 160      // per entry of an associative array built or copied
	costGlobRaw = 1024     // per byte of a pattern whose text is not known
	costReRaw   = 1 << 17  // per byte of a regular expression whose text is not known
	costReByte  = 160      // per byte of a regular expression, plus
	costReInst  = 256      // per instruction it compiles to
	costNumber  = 24       // bytes of an arithmetic result
	costBrace   = 320      // per word brace expansion makes
	costParse   = 200      // per byte of shell text the interpreter parses (eval, source)
	exactMax    = 64 << 10 // patterns longer than this are bounded by their size only
)

// sat saturates the arithmetic (far above any limit).
const satMax = math.MaxInt64 / 4

// sadd and smul add and multiply, counting a negative operand as 0.
func sadd(v ...int64) int64 {
	var n int64
	for _, x := range v {
		n = min(n+max(x, 0), satMax)
	}
	return n
}

func smul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return min(a, satMax/b) * b
}

// specials are the values a check gets from the interpreter because no
// handler can read them: the positional parameters ($# and the length of
// "$*") and the directory stack (the length of "${DIRSTACK[*]}"), all
// bounded by bytes.
type specials struct {
	ok           bool
	count, bytes int64
	text         string // "$*" (and "${DIRSTACK[*]}"): each parameter's splitting is bounded by its
}

// vbound is a bound of a variable assigned by the statement being
// evaluated (its value is no longer the one the environment holds).
type vbound struct {
	bytes, elems, maxEl int64
	list                bool
}

// shadowed is a variable the statement being evaluated assigned.
type shadowed struct {
	name string
	b    vbound
}

// shadowOf returns the bound of a variable the statement assigned.
func (e *evaluator) shadowOf(name string) (vbound, bool) {
	for i := len(e.shadow) - 1; i >= 0; i-- {
		if e.shadow[i].name == name {
			return e.shadow[i].b, true
		}
	}
	for i := e.nsh - 1; i >= 0; i-- {
		if e.sh[i].name == name {
			return e.sh[i].b, true
		}
	}
	return vbound{}, false
}

// evaluator computes the bound of one statement.
type evaluator struct {
	x      *execution
	env    expand.Environ
	spec   specials
	substs []substStat
	p      *plan
	sh     [2]shadowed // variables the statement assigned, in order: the first two,
	nsh    int
	shadow []shadowed // then the others
	wild   int64      // a variable assigned by a computed name may be this big
	ifs    string
	ifsOK  bool
	cost   int64
}

func (x *execution) newEvaluator(env expand.Environ, spec specials) *evaluator {
	e := &evaluator{x: x, env: env, spec: spec}
	return e
}

// plan evaluates p and returns its bound.
func (e *evaluator) plan(p *plan) int64 {
	e.p = p
	e.shadow, e.nsh = e.shadow[:0], 0
	e.wild = 0
	e.cost = 0
	e.ifsOK = false
	for i := range p.items {
		e.item(&p.items[i])
	}
	return e.cost
}

func (e *evaluator) add(n ...int64) { e.cost = sadd(append(n, e.cost)...) }

func (e *evaluator) item(it *pitem) {
	switch it.kind {
	case itFields:
		e.fieldsOf(it.words)
	case itLiteral:
		e.literal(it.words[0])
	case itPattern:
		w := e.pattern(it.words[0])
		e.add(e.globCost(w))
	case itDoc:
		w := e.word(it.words[0], ctxDoc)
		e.add(w.bytes) // the here-document is held until written
		if it.dash {
			e.add(smul(w.bytes, costJoin))
		}
	case itHereStr:
		w := e.literal(it.words[0])
		e.add(w.bytes, 1)
	case itArith:
		e.arith(it.arith)
	case itAssign:
		e.assign(it.as, it.mode)
	case itDeclDyn:
		n, b := e.fieldsOf(it.words)
		_ = n
		e.wild = max(e.wild, b)
		e.ifsOK = false
	case itTest:
		e.test(it.test)
	case itAlias:
		// Words an alias may put in front of the arguments.
		e.aliasWords(it.words[0])
	}
}

// ---- words ----

type wctx int

const (
	ctxFields  wctx = iota // arguments: split, globbed
	ctxLiteral             // one string (assignment, redirection, case word)
	ctxPattern             // one string where quoted parts are escaped
	ctxDoc                 // a here-document body
	ctxDQ                  // inside double quotes
	ctxExact               // ctxLiteral, keeping the exact text
)

// wval is a word's value: its bytes, the fields it may make (in ctxFields),
// whether it may hold a glob character, and its exact text when the check
// knows it (patterns only).
type wval struct {
	bytes  int64
	fields int64 // fields beyond the first
	run    int64 // the longest field it may make
	glob   bool  // a field may hold a glob character
	nparts int   // the parts the interpreter joins (a quoted part's own count)
	exact  bool
	str    string
}

func (e *evaluator) literal(w *syntax.Word) wval { return e.word(w, ctxLiteral) }

func (e *evaluator) pattern(w *syntax.Word) wval { return e.word(w, ctxPattern) }

// word evaluates a word in a context other than ctxFields, or one word of
// ctxFields after brace expansion.
func (e *evaluator) word(w *syntax.Word, ctx wctx) wval {
	if w == nil {
		return wval{exact: true}
	}
	return e.parts(w.Parts, ctx, true)
}

func (e *evaluator) parts(parts []syntax.WordPart, ctx wctx, top bool) wval {
	out := wval{exact: true}
	var sb strings.Builder
	keep := ctx == ctxPattern || ctx == ctxDQ || ctx == ctxExact
	addExact := func(s string, quoted bool) {
		if !out.exact || !keep {
			return
		}
		if int64(sb.Len()+len(s)) > exactMax {
			out.exact = false
			return
		}
		if quoted && ctx == ctxPattern {
			s = pattern.QuoteMeta(s, 0)
		}
		sb.WriteString(s)
	}
	quoted := ctx == ctxDQ || ctx == ctxDoc
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			n := int64(len(p.Value))
			if i == 0 && top && (ctx == ctxFields || ctx == ctxLiteral || ctx == ctxExact || ctx == ctxPattern) && strings.HasPrefix(p.Value, "~") {
				// ~ and ~/...: HOME (instrument quotes ~name).
				home := e.env.Get("HOME").String()
				n += int64(len(home))
				e.add(n)
				out.exact = false
			}
			if (ctx == ctxDQ || ctx == ctxDoc) && strings.Contains(p.Value, "\\") {
				e.add(smul(n, costJoin))
			}
			if ctx == ctxFields && strings.ContainsAny(p.Value, "*?[") {
				out.glob = true
			}
			out.bytes = sadd(out.bytes, n)
			out.run = sadd(out.run, n)
			out.nparts++
			addExact(p.Value, false)
		case *syntax.SglQuoted:
			n := int64(len(p.Value))
			if p.Dollar {
				e.add(smul(n, costJoin))
				out.exact = false
			}
			out.bytes = sadd(out.bytes, n)
			out.run = sadd(out.run, n)
			out.nparts++
			addExact(p.Value, true)
		case *syntax.DblQuoted:
			if ctx == ctxFields && len(p.Parts) == 1 {
				if pe, ok := p.Parts[0].(*syntax.ParamExp); ok {
					pv := e.param(pe, true)
					if pv.list && !pv.star {
						// "${a[@]}": a field per element.
						out.bytes = sadd(out.bytes, pv.bytes)
						out.fields = sadd(out.fields, pv.elems)
						out.run = sadd(out.run, pv.maxEl)
						out.exact = false
						continue
					}
					if pv.list {
						e.add(pv.joined()) // "${a[*]}": joined
					}
					out.bytes = sadd(out.bytes, pv.joined())
					out.run = sadd(out.run, pv.joined())
					out.nparts++
					addExact(pv.str, true)
					if !pv.exact {
						out.exact = false
					}
					continue
				}
			}
			in := e.parts(p.Parts, ctxDQ, false)
			out.nparts += max(in.nparts, 1)
			out.bytes = sadd(out.bytes, in.bytes)
			out.fields = sadd(out.fields, in.fields)
			out.run = sadd(out.run, in.bytes)
			if in.exact {
				addExact(in.str, true)
			} else {
				out.exact = false
			}
		case *syntax.ParamExp:
			pv := e.param(pe(p), quoted)
			out.nparts++
			if ctx == ctxFields && !quoted {
				sp := e.splitOf(pv)
				out.bytes = sadd(out.bytes, pv.bytes)
				out.fields = sadd(out.fields, sp.fields)
				out.run = sadd(out.run, sp.run)
				out.glob = out.glob || sp.meta
				out.exact = false
				continue
			}
			if pv.list {
				e.add(pv.joined()) // joined into one string
			}
			out.bytes = sadd(out.bytes, pv.joined())
			out.run = sadd(out.run, pv.joined())
			if pv.exact {
				addExact(pv.str, quoted)
			} else {
				out.exact = false
			}
		case *syntax.CmdSubst:
			st := e.subst(p)
			out.nparts++
			out.bytes = sadd(out.bytes, st.bytes)
			if ctx == ctxFields && !quoted {
				out.fields = sadd(out.fields, st.fields)
				out.run = sadd(out.run, st.run)
				out.glob = out.glob || st.meta
			} else {
				out.run = sadd(out.run, st.bytes)
			}
			out.exact = false
		case *syntax.ArithmExp:
			e.arith(p.X)
			out.nparts++
			out.bytes = sadd(out.bytes, costNumber)
			out.run = sadd(out.run, costNumber)
			out.exact = false
		case *syntax.ExtGlob:
			n := int64(len(p.Op.String()) + len(p.Pattern.Value) + 1)
			out.bytes = sadd(out.bytes, n)
			out.run = sadd(out.run, n)
			out.nparts++
			out.glob = true
			addExact(p.Op.String()+p.Pattern.Value+")", false)
		case *syntax.ProcSubst:
			out.exact = false // refused before the script runs
		default:
			out.exact = false
		}
	}
	if out.nparts > 1 && top {
		// Several parts are joined in a strings.Builder.
		e.add(smul(out.bytes, costJoin))
	}
	if ctx == ctxPattern && top {
		// Pattern escapes quoted parts (at most doubling them) in a
		// builder of its own.
		e.add(smul(out.bytes, 2*costJoin))
		out.bytes = smul(out.bytes, 2)
	}
	out.run = min(out.run, out.bytes)
	if out.exact {
		out.str = sb.String()
	}
	return out
}

// pe is the identity (a name for readability at the call).
func pe(p *syntax.ParamExp) *syntax.ParamExp { return p }

// split is what splitting a value by IFS makes: the fields beyond the
// first, the longest field and whether one may hold a glob character.
type split struct {
	fields, run int64
	meta        bool
}

// splitOf bounds the splitting of pv: counted when its text is known.
func (e *evaluator) splitOf(pv pval) split {
	if pv.spec && e.spec.ok {
		// Each parameter's fields are fields of "$*" (joined by an IFS
		// character, or by nothing when IFS is empty).
		f, run, meta := e.scanFields(e.spec.text)
		if pv.list {
			f = sadd(f, pv.elems)
		}
		return split{fields: f, run: run, meta: meta}
	}
	if pv.exact {
		strs := pv.strs
		if !pv.list {
			strs = []string{pv.str}
		}
		var sp split
		for _, s := range strs {
			f, run, meta := e.scanFields(s)
			sp.fields = sadd(sp.fields, f)
			sp.run = max(sp.run, run)
			sp.meta = sp.meta || meta
		}
		return sp
	}
	sp := split{run: pv.maxEl, meta: !pv.noMeta}
	switch {
	case pv.noIFS && pv.list:
		sp.fields = pv.elems
	case pv.noIFS:
	default:
		sp.fields = sadd(pv.bytes/2, pv.elems)
	}
	return sp
}

// scanFields counts the fields splitting s by IFS makes, the longest, and
// whether one holds a glob character.
func (e *evaluator) scanFields(s string) (fields, run int64, meta bool) {
	ifs := e.curIFS()
	if ifs == "" {
		return 1, int64(len(s)), strings.ContainsAny(s, "*?[")
	}
	in := false
	var cur int64
	for _, r := range s {
		if strings.ContainsRune(ifs, r) {
			in, cur = false, 0
			continue
		}
		if !in {
			fields++
			in = true
		}
		cur += int64(utf8.RuneLen(r))
		run = max(run, cur)
		if r == '*' || r == '?' || r == '[' {
			meta = true
		}
	}
	return fields, run, meta
}

func (e *evaluator) curIFS() string {
	if !e.ifsOK {
		e.ifs = " \t\n"
		if _, ok := e.shadowOf("IFS"); ok || e.wild > 0 {
			// Assigned by the statement: every byte may separate.
			e.ifs = "\x00"
		} else if v := e.env.Get("IFS"); v.IsSet() {
			e.ifs = v.String()
		}
		e.ifsOK = true
	}
	if e.ifs == "\x00" {
		return ""
	}
	return e.ifs
}

// fieldsOf evaluates words expanded as arguments (brace expansion,
// splitting, globbing), returning the fields and the bytes they hold.
func (e *evaluator) fieldsOf(words []*syntax.Word) (fields, bytes int64) {
	for _, w := range words {
		cp := *w
		var f, b int64
		if syntax.SplitBraces(&cp) {
			f, b = e.braceFields(&cp)
		} else {
			v := e.word(w, ctxFields)
			f, b = sadd(v.fields, 1), v.bytes
			if v.glob {
				// One field at a time is escaped and compiled (the
				// garbage of the others is gone): the longest counts.
				e.add(e.globCostRaw(v))
			}
		}
		fields, bytes = sadd(fields, f), sadd(bytes, b)
	}
	// Each field: its string, its slot in the lists that gather it.
	e.add(smul(fields, costField))
	return fields, bytes
}

// globCostRaw is what globbing a field may cost besides the directory
// entries (charged as they are read): the escaped copy of the field and
// its pattern compiled.
func (e *evaluator) globCostRaw(v wval) int64 {
	return sadd(smul(v.run, 2*costJoin), smul(v.run, costGlobRaw))
}

// braceSum is the brace expansion of a word: the words it makes, and over
// all of them the bytes, the fields beyond one per word and the cost.
type braceSum struct {
	words, bytes, fields, cost, run int64
	glob                            bool
}

func (e *evaluator) braceFields(w *syntax.Word) (fields, bytes int64) {
	s := e.braceWord(w)
	e.add(s.cost, smul(s.words, costBrace), smul(s.bytes, costJoin))
	if s.glob {
		e.add(smul(s.run, 2*costJoin+costGlobRaw))
	}
	return sadd(s.words, s.fields), s.bytes
}

// braceWord combines the parts of a word with brace expansions: a part's
// bytes, fields and cost repeat once per combination of the others.
func (e *evaluator) braceWord(w *syntax.Word) braceSum {
	acc := braceSum{words: 1}
	for _, p := range w.Parts {
		var ps braceSum
		switch p := p.(type) {
		case *syntax.BraceExp:
			ps = e.braceExp(p)
		default:
			saved := e.cost
			e.cost = 0
			v := e.parts([]syntax.WordPart{p}, ctxFields, false)
			ps = braceSum{words: 1, bytes: v.bytes, fields: v.fields, cost: e.cost, run: v.run, glob: v.glob}
			e.cost = saved
		}
		acc = braceSum{
			words:  smul(acc.words, ps.words),
			bytes:  sadd(smul(acc.bytes, ps.words), smul(ps.bytes, acc.words)),
			fields: sadd(smul(acc.fields, ps.words), smul(ps.fields, acc.words)),
			cost:   sadd(smul(acc.cost, ps.words), smul(ps.cost, acc.words)),
			run:    sadd(acc.run, ps.run),
			glob:   acc.glob || ps.glob,
		}
	}
	return acc
}

func (e *evaluator) braceExp(br *syntax.BraceExp) braceSum {
	if br.Sequence {
		n, b := interp.BraceExpSize(br)
		return braceSum{words: n, bytes: b, run: b / max(n, 1)}
	}
	var s braceSum
	for _, el := range br.Elems {
		es := e.braceWord(el)
		s = braceSum{sadd(s.words, es.words), sadd(s.bytes, es.bytes), sadd(s.fields, es.fields), sadd(s.cost, es.cost), max(s.run, es.run), s.glob || es.glob}
	}
	return s
}

// substStat is what a command substitution's capture saw of its output:
// its bytes, the fields beyond the first splitting it by IFS makes, the
// longest field holding a glob character (0: none), the longest field.
type substStat struct {
	bytes, fields, run int64
	meta               bool
}

// subst is a command substitution: its output (nothing until it ends) and
// what taking it costs.
func (e *evaluator) subst(cs *syntax.CmdSubst) substStat {
	i, ok := e.p.substs[cs]
	var st substStat
	if ok && i < len(e.substs) {
		st = e.substs[i]
	}
	e.add(smul(st.bytes, costCapture))
	return st
}

// ---- parameters ----

// pval is the value of a parameter expansion.
type pval struct {
	bytes  int64 // all elements together
	elems  int64
	maxEl  int64
	list   bool // expands to its elements (${a[@]}, $@, ...)
	star   bool // * rather than @ (joined when quoted)
	exact  bool
	str    string   // the exact value (scalar)
	strs   []string // the exact elements (list)
	noIFS  bool     // holds no IFS character (splitting makes one field)
	noMeta bool     // holds no glob character
	spec   bool     // positional parameters or DIRSTACK: split as specials.text bounds
}

// joined is the size of the value as one string.
func (v pval) joined() int64 {
	if v.list {
		return sadd(v.bytes, smul(v.elems, utf8.UTFMax))
	}
	return v.bytes
}

func scalar(s string) pval {
	return pval{bytes: int64(len(s)), elems: 1, maxEl: int64(len(s)), exact: true, str: s}
}

func listOf(strs []string) pval {
	v := pval{elems: int64(len(strs)), list: true, exact: true, strs: strs}
	for _, s := range strs {
		v.bytes += int64(len(s))
		v.maxEl = max(v.maxEl, int64(len(s)))
	}
	return v
}

func boundOf(b vbound) pval {
	return pval{bytes: b.bytes, elems: max(b.elems, 1), maxEl: b.maxEl, list: b.list}
}

// lookup is a variable's value (the bound of its new value when the
// statement assigned it).
func (e *evaluator) lookup(name string) (expand.Variable, pval, bool) {
	if b, ok := e.shadowOf(name); ok {
		return expand.Variable{}, e.widen(boundOf(b)), false
	}
	v := e.env.Get(name)
	if n, r := v.Resolve(e.env); n != "" {
		if b, ok := e.shadowOf(n); ok {
			return expand.Variable{}, e.widen(boundOf(b)), false
		}
		v = r
	}
	var pv pval
	switch v.Kind {
	case expand.Indexed:
		pv = listOf(v.List)
	case expand.Associative:
		strs := make([]string, 0, len(v.Map))
		for _, s := range v.Map {
			strs = append(strs, s)
		}
		pv = listOf(strs)
	default:
		pv = scalar(v.String())
	}
	if e.wild > 0 {
		return v, e.widen(pv), false
	}
	return v, pv, true
}

// widen adds what a computed assignment may have made.
func (e *evaluator) widen(v pval) pval {
	if e.wild > 0 {
		v.bytes = sadd(v.bytes, e.wild)
		v.maxEl = sadd(v.maxEl, e.wild)
		v.elems = sadd(v.elems, e.wild)
		v.exact = false
	}
	return v
}

// special is one of the parameters the environment does not hold.
func (e *evaluator) special(name string) (pval, bool) {
	switch name {
	case "@", "*":
		v := e.specBound()
		v.list, v.star = true, name == "*"
		return v, true
	case "1", "2", "3", "4", "5", "6", "7", "8", "9":
		v := e.specBound()
		v.elems = 1
		return v, true
	case "0":
		return pval{bytes: 4096 + int64(len(sourcePrefix)), elems: 1, maxEl: 4096}, true
	case "#", "?", "!", "-", "$", "LINENO", "RANDOM", "SRANDOM", "PPID":
		return pval{bytes: costNumber, elems: 1, maxEl: costNumber}, true
	case "DIRSTACK":
		v := e.specBound()
		v.list = true
		v.elems = sadd(v.bytes, 1)
		return v, true
	}
	if name != "" && name[0] >= '0' && name[0] <= '9' {
		v := e.specBound()
		v.elems = 1
		return v, true
	}
	return pval{}, false
}

func (e *evaluator) specBound() pval {
	if !e.spec.ok {
		// Not passed (the plan did not expect it): as large as the
		// arguments of a command may be.
		n := smul(int64(e.x.b.opts.MaxArgs), int64(e.x.b.opts.MaxStringBytes))
		return pval{bytes: n, elems: int64(e.x.b.opts.MaxArgs), maxEl: int64(e.x.b.opts.MaxStringBytes)}
	}
	return pval{bytes: e.spec.bytes, elems: max(e.spec.count, 1), maxEl: e.spec.bytes, spec: true}
}

// param bounds a parameter expansion (as expand's paramExp and its
// quotedElemFields/unquotedElemFields do it).
func (e *evaluator) param(p *syntax.ParamExp, quoted bool) pval {
	if p.Param == nil {
		return pval{elems: 1}
	}
	name := p.Param.Value
	idx := ""
	if w, ok := p.Index.(*syntax.Word); ok {
		idx = w.Lit()
	}
	all := idx == "@" || idx == "*"
	var v pval
	var vr expand.Variable
	exactVar := false
	if sp, ok := e.special(name); ok {
		v = sp // an index of DIRSTACK: bounded by the whole
	} else {
		vr, v, exactVar = e.lookup(name)
		switch {
		case all:
			v.list, v.star = true, idx == "*"
			if vr.Kind == expand.Associative {
				e.add(smul(v.elems, costList)) // the sorted copy
			}
		case p.Index != nil:
			if vr.Kind == expand.Associative {
				e.literalIndex(p.Index)
			} else {
				e.arith(p.Index)
			}
			v = pval{bytes: v.maxEl, elems: 1, maxEl: v.maxEl}
			if n, err := strconv.Atoi(idx); err == nil && exactVar && vr.Kind == expand.Indexed {
				if s, ok := indexedVal(vr, n); ok {
					v = scalar(s)
				}
			} else if exactVar && vr.Kind == expand.Associative && idx != "" {
				v = scalar(vr.Map[idx])
			}
		default:
			if v.list {
				// $a of an array: its first element.
				s := ""
				if exactVar {
					s = vr.String()
					v = scalar(s)
				} else {
					v = pval{bytes: v.maxEl, elems: 1, maxEl: v.maxEl}
				}
			}
		}
	}
	if v.list && (p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Excl) {
		// paramExp joins the elements (strings.Join) before the
		// operation, whichever form the result then takes.
		e.add(v.joined())
	}
	switch {
	case p.Length:
		return pval{bytes: costNumber, elems: 1, maxEl: costNumber}
	case p.Excl:
		return e.excl(p, name, vr, v, exactVar)
	case p.Width, p.IsSet:
		return pval{elems: 1}
	case p.Slice != nil:
		if p.Slice.Offset != nil {
			e.arith(p.Slice.Offset)
		}
		if p.Slice.Length != nil {
			e.arith(p.Slice.Length)
		}
		if v.list {
			if name == "@" || name == "*" {
				e.add(smul(sadd(v.elems, 1), costList)) // $0 prepended
				v.bytes = sadd(v.bytes, 4096)
			}
			v.exact = false
			return v
		}
		// Sliced as runes: []rune, then back to a string (an invalid
		// byte becomes three).
		e.add(smul(v.bytes, costRunes))
		if v.exact {
			if sub, ok := sliceExact(v.str, p.Slice); ok {
				e.add(int64(len(sub)))
				return scalar(sub)
			}
		}
		res := smul(v.bytes, 3)
		if v.exact && utf8.ValidString(v.str) {
			res = v.bytes
		}
		e.add(res)
		noIFS, noMeta := e.props(v)
		return pval{bytes: res, elems: 1, maxEl: res, noIFS: noIFS, noMeta: noMeta}
	case p.Repl != nil:
		return e.repl(p.Repl, v)
	case p.Exp != nil:
		return e.exp(p, name, vr, v)
	}
	return v
}

// sliceExact is ${x:offset:length} of s when both are literal numbers (as
// paramExp slices: by runes, negative counting from the end).
func sliceExact(s string, sl *syntax.Slice) (string, bool) {
	num := func(x syntax.ArithmExpr) (int, bool) {
		w, ok := x.(*syntax.Word)
		if !ok {
			return 0, false
		}
		n, err := strconv.Atoi(w.Lit())
		return n, err == nil
	}
	if !utf8.ValidString(s) {
		return "", false
	}
	runes := utf8.RuneCountInString(s)
	pos := func(n int) int {
		if n < 0 {
			n = runes + n
			if n < 0 {
				n = runes
			}
		} else if n > runes {
			n = runes
		}
		return n
	}
	// byteAt is where rune i starts.
	byteAt := func(str string, i int) int {
		for j := range str {
			if i == 0 {
				return j
			}
			i--
		}
		return len(str)
	}
	if sl.Offset != nil {
		n, ok := num(sl.Offset)
		if !ok {
			return "", false
		}
		p := pos(n)
		s = s[byteAt(s, p):]
		runes -= p
	}
	if sl.Length != nil {
		n, ok := num(sl.Length)
		if !ok {
			return "", false
		}
		s = s[:byteAt(s, pos(n))]
	}
	return s, true
}

// props reports whether v holds no IFS character and no glob character
// (known from its text, or kept by the operation that made it).
func (e *evaluator) props(v pval) (noIFS, noMeta bool) {
	if !v.exact {
		return v.noIFS, v.noMeta
	}
	strs := v.strs
	if !v.list {
		strs = []string{v.str}
	}
	return e.allNoIFS(strs), allNoMeta(strs)
}

func indexedVal(v expand.Variable, i int) (string, bool) {
	if i < 0 {
		return "", false
	}
	if v.Indexes == nil {
		if i < len(v.List) {
			return v.List[i], true
		}
		return "", false
	}
	for k, j := range v.Indexes {
		if j == i {
			return v.List[k], true
		}
	}
	return "", false
}

// literalIndex is the key of an associative array (a word).
func (e *evaluator) literalIndex(idx syntax.ArithmExpr) {
	if w, ok := idx.(*syntax.Word); ok {
		e.literal(w)
		return
	}
	e.arith(idx)
}

// excl is ${!...}: names, keys or an indirection.
func (e *evaluator) excl(p *syntax.ParamExp, name string, vr expand.Variable, v pval, exact bool) pval {
	switch {
	case p.Names != 0:
		var names []string
		e.env.Each(func(n string, _ expand.Variable) bool {
			if strings.HasPrefix(n, name) {
				names = append(names, n)
			}
			return true
		})
		out := listOf(names)
		e.add(smul(out.elems, costList), out.joined())
		out.star = p.Names == syntax.NamesPrefix
		return out
	case p.Index != nil && v.list:
		// Keys.
		e.add(smul(v.elems, costList))
		if vr.Kind == expand.Associative {
			var b int64
			for k := range vr.Map {
				b += int64(len(k))
			}
			e.add(b, smul(v.elems, utf8.UTFMax))
			return pval{bytes: b, elems: v.elems, maxEl: b, list: true}
		}
		b := smul(v.elems, 20)
		e.add(b, smul(v.elems, costList))
		return pval{bytes: b, elems: v.elems, maxEl: 20, list: true}
	}
	// ${!x}: the variable x names.
	if exact {
		if vr.Kind == expand.NameRef {
			return scalar(vr.Str)
		}
		target := vr.String()
		if target == "" {
			return pval{elems: 1}
		}
		if sp, ok := e.special(target); ok {
			sp.list = false
			return sp
		}
		_, tv, _ := e.lookup(target)
		if tv.list {
			return pval{bytes: tv.maxEl, elems: 1, maxEl: tv.maxEl}
		}
		return tv
	}
	// Any variable: the largest.
	var most int64
	e.env.Each(func(_ string, v expand.Variable) bool {
		most = max(most, int64(len(v.String())))
		return true
	})
	for _, sh := range append(e.shadow, e.sh[:e.nsh]...) {
		most = max(most, sh.b.maxEl)
	}
	most = sadd(most, e.wild, e.specBound().bytes)
	return pval{bytes: most, elems: 1, maxEl: most}
}

// repl is ${x/pattern/with} and ${x//pattern/with}, on each element.
func (e *evaluator) repl(r *syntax.Replace, v pval) pval {
	pat := e.pattern(r.Orig)
	if pat.exact && pat.str == "" {
		return v // nothing replaced
	}
	with := e.word(r.With, ctxExact)
	// The pattern is compiled again for each element (each compiled one
	// is garbage by the next).
	e.add(e.compileGlob(pat))
	elems := []string{v.str}
	if v.list {
		elems = v.strs
	}
	var out pval
	if v.exact && pat.exact {
		rx := e.countable(pat.str)
		for _, s := range elems {
			var n, matched int64
			switch {
			case !r.All:
				n, matched = firstMatch(rx, pat.str, s)
			default:
				n, matched = allMatches(rx, pat.str, s)
			}
			res := sadd(int64(len(s))-matched, smul(n, with.bytes))
			e.add(smul(n, costMatch), smul(res, costJoin))
			out.bytes = sadd(out.bytes, res)
			out.maxEl = max(out.maxEl, res)
		}
		out.elems, out.list, out.star = v.elems, v.list, v.star
		out.noIFS = with.exact && !strings.ContainsAny(with.str, e.curIFS()) && e.allNoIFS(elems)
		out.noMeta = with.exact && !strings.ContainsAny(with.str, "*?[") && allNoMeta(elems)
		return out
	}
	// Matches: each takes at least the pattern's shortest match.
	var n int64
	switch {
	case !r.All:
		n = v.elems
	default:
		m := int64(0)
		if pat.exact {
			m = minMatch(pat.str)
		}
		if m > 0 {
			n = sadd(v.bytes/m, v.elems)
		} else {
			n = sadd(v.bytes, v.elems)
		}
	}
	res := sadd(v.bytes, smul(n, with.bytes))
	e.add(smul(n, costMatch), smul(res, costJoin))
	noIFS := (v.noIFS || v.exact && e.allNoIFS(elems)) && with.exact && !strings.ContainsAny(with.str, e.curIFS())
	noMeta := (v.noMeta || v.exact && allNoMeta(elems)) && with.exact && !strings.ContainsAny(with.str, "*?[")
	return pval{bytes: res, elems: v.elems, maxEl: res, list: v.list, star: v.star, noIFS: noIFS, noMeta: noMeta}
}

func allNoMeta(strs []string) bool {
	for _, s := range strs {
		if strings.ContainsAny(s, "*?[") {
			return false
		}
	}
	return true
}

// allNoIFS reports whether no string of strs holds an IFS character.
func (e *evaluator) allNoIFS(strs []string) bool {
	ifs := e.curIFS()
	if ifs == "" {
		return true
	}
	for _, s := range strs {
		if strings.ContainsAny(s, ifs) {
			return false
		}
	}
	return true
}

// countable compiles a pattern the check can count matches of: nil for a
// literal one (strings.Count), else its regular expression (nil when it does
// not compile: nothing matches).
func (e *evaluator) countable(pat string) *regexp.Regexp {
	if !pattern.HasMeta(pat, 0) {
		return nil
	}
	expr, err := pattern.Regexp(pat, 0)
	if err != nil {
		return nil
	}
	rx, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	return rx
}

// unescape removes the backslashes of a pattern without meta characters.
func unescape(pat string) string {
	if !strings.Contains(pat, "\\") {
		return pat
	}
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		if pat[i] == '\\' && i+1 < len(pat) {
			i++
		}
		b.WriteByte(pat[i])
	}
	return b.String()
}

func firstMatch(rx *regexp.Regexp, pat, s string) (n, matched int64) {
	if rx == nil {
		lit := unescape(pat)
		if lit != "" && strings.Contains(s, lit) {
			return 1, int64(len(lit))
		}
		return 0, 0
	}
	if loc := rx.FindStringIndex(s); loc != nil {
		return 1, int64(loc[1] - loc[0])
	}
	return 0, 0
}

func allMatches(rx *regexp.Regexp, pat, s string) (n, matched int64) {
	if rx == nil {
		lit := unescape(pat)
		if lit == "" {
			return 0, 0
		}
		k := int64(strings.Count(s, lit))
		return k, k * int64(len(lit))
	}
	// As FindAllStringIndex walks: after an empty match, one byte on.
	i := 0
	prevEnd := -1
	for i <= len(s) {
		loc := rx.FindStringIndex(s[i:])
		if loc == nil {
			break
		}
		a, b := i+loc[0], i+loc[1]
		if a == b && a == prevEnd {
			// An empty match right after the previous one is skipped.
			_, w := utf8.DecodeRuneInString(s[a:])
			i = a + max(w, 1)
			continue
		}
		n++
		matched += int64(b - a)
		prevEnd = b
		if b > a {
			i = b
		} else {
			_, w := utf8.DecodeRuneInString(s[a:])
			i = a + max(w, 1)
		}
	}
	return n, matched
}

// minMatch is the fewest bytes a pattern matches (0 when unsure).
func minMatch(pat string) int64 {
	var n int64
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*':
		case '?':
			n++
		case '[':
			j := strings.IndexByte(pat[i+1:], ']')
			if j < 0 {
				n++
				continue
			}
			i += j + 1
			n++
		case '\\':
			if i+1 < len(pat) {
				i++
			}
			n++
		case '@', '!', '+':
			if i+1 < len(pat) && pat[i+1] == '(' {
				return 0 // extended patterns: unsure
			}
			n++
		default:
			n++
		}
	}
	return n
}

// exp is the ${x op word} forms.
func (e *evaluator) exp(p *syntax.ParamExp, name string, vr expand.Variable, v pval) pval {
	arg := e.word(p.Exp.Word, ctxExact) // always expanded
	switch p.Exp.Op {
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
		syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
		v.bytes = sadd(v.bytes, arg.bytes)
		v.maxEl = sadd(v.maxEl, arg.bytes)
		v.exact = false
		return v
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return v
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if vr.Kind == expand.Indexed || vr.Kind == expand.Associative {
			e.add(smul(v.elems, costList), smul(v.elems, costMapEnt))
		}
		e.assigned(name, vbound{bytes: sadd(v.bytes, arg.bytes), elems: sadd(v.elems, 1), maxEl: sadd(v.maxEl, arg.bytes), list: v.list})
		v.bytes = sadd(v.bytes, arg.bytes)
		v.maxEl = sadd(v.maxEl, arg.bytes)
		v.exact = false
		return v
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		pat := arg
		if !pat.exact {
			pat.bytes = smul(pat.bytes, 2)
		}
		e.add(e.compileGlob(pat), smul(v.elems, 64), v.bytes)
		v.exact = false
		return v
	case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		e.add(e.compileGlob(arg), smul(v.bytes, costRunes))
		res := smul(v.bytes, 3)
		e.add(res)
		// Letters change case: glob characters stay what they are, and
		// so do separators unless IFS holds letters.
		noIFS, noMeta := e.props(v)
		if strings.IndexFunc(e.curIFS(), unicode.IsLetter) >= 0 {
			noIFS = false
		}
		return pval{bytes: res, elems: v.elems, maxEl: smul(v.maxEl, 3), list: v.list, star: v.star, noIFS: noIFS, noMeta: noMeta}
	case syntax.OtherParamOps:
		b := v.joined()
		switch arg.str {
		case "Q", "A":
			res := sadd(smul(b, 4), 3, int64(len(name))+32)
			e.add(smul(res, costJoin))
			return pval{bytes: res, elems: 1, maxEl: res}
		case "E":
			res := smul(b, 3)
			e.add(smul(b, 5*4), res)
			return pval{bytes: res, elems: 1, maxEl: res}
		case "U", "L":
			res := smul(b, 3)
			e.add(smul(res, 2))
			return pval{bytes: res, elems: 1, maxEl: res}
		case "u":
			res := smul(b, 3)
			e.add(smul(b, costRunes))
			return pval{bytes: res, elems: 1, maxEl: res}
		case "a":
			return pval{bytes: 16, elems: 1, maxEl: 16}
		}
		if !arg.exact {
			res := smul(b, 4)
			e.add(smul(res, costJoin+5*4))
			return pval{bytes: res, elems: 1, maxEl: res}
		}
		return pval{bytes: b, elems: 1, maxEl: b}
	}
	return v
}

// assigned records the bound of a variable the statement assigns.
func (e *evaluator) assigned(name string, b vbound) {
	if v := e.env.Get(name); v.Kind == expand.NameRef {
		if n, _ := v.Resolve(e.env); n != "" {
			name = n
		}
	}
	if e.nsh < len(e.sh) && len(e.shadow) == 0 {
		e.sh[e.nsh] = shadowed{name, b}
		e.nsh++
	} else {
		e.shadow = append(e.shadow, shadowed{name, b})
	}
	if name == "IFS" {
		e.ifsOK = false
	}
}

// current is the bound of a variable as the statement sees it so far.
func (e *evaluator) current(name string) (expand.Variable, pval) {
	vr, v, _ := e.lookup(name)
	return vr, v
}

// ---- patterns and regular expressions ----

// compileGlob is what turning a pattern into a regular expression and
// compiling it may allocate.
func (e *evaluator) compileGlob(pat wval) int64 {
	if !pat.exact {
		return smul(pat.bytes, costGlobRaw)
	}
	expr, err := pattern.Regexp(pat.str, pattern.ExtendedOperators)
	if err != nil {
		return sadd(smul(int64(len(pat.str)), 16), 1024)
	}
	return sadd(smul(int64(len(pat.str)), 16), e.regexCost(expr, true))
}

// globCost is a pattern matched (case, [[ == ]]).
func (e *evaluator) globCost(pat wval) int64 {
	return sadd(e.compileGlob(pat), 1024)
}

// regexCost is what compiling expr and matching with it may allocate: its
// text, the instructions it compiles to (estimated as internal/search
// does, before anything is compiled) and the matcher's threads.
func (e *evaluator) regexCost(expr string, glob bool) int64 {
	re, err := rxsyntax.Parse(expr, rxsyntax.Perl)
	if err != nil {
		return sadd(smul(int64(len(expr)), costReByte), 1024)
	}
	insts := search.EstimateInsts(re, satMax)
	caps := int64(re.MaxCap())*2 + 4
	if glob {
		caps = 6
	}
	return sadd(smul(int64(len(expr)), costReByte), smul(insts, costReInst), smul(smul(insts, caps), 16), 4096)
}

// regex is the right side of =~.
func (e *evaluator) regex(w *syntax.Word) wval {
	v := e.word(w, ctxDQ)
	e.add(smul(v.bytes, costJoin))
	if !v.exact {
		e.add(smul(v.bytes, costReRaw))
		return v
	}
	e.add(e.regexCost(v.str, false))
	return v
}

// ---- arithmetic ----

func (e *evaluator) arith(x syntax.ArithmExpr) {
	switch x := x.(type) {
	case nil:
	case *syntax.Word:
		e.literal(x)
	case *syntax.ParenArithm:
		e.arith(x.X)
	case *syntax.UnaryArithm:
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			if w, ok := x.X.(*syntax.Word); ok {
				e.arithAssigned(w.Lit())
			}
			return
		}
		e.arith(x.X)
	case *syntax.BinaryArithm:
		switch x.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
			syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
			e.arith(x.Y)
			if w, ok := x.X.(*syntax.Word); ok {
				e.arith(w)
				e.arithAssigned(w.Lit())
			}
			return
		}
		e.arith(x.X)
		e.arith(x.Y)
	}
}

// arithAssigned: an arithmetic assignment stores a number.
func (e *evaluator) arithAssigned(name string) {
	if name == "" {
		return
	}
	vr, v := e.current(name)
	if vr.Kind == expand.Indexed || vr.Kind == expand.Associative {
		e.add(smul(v.elems, costList))
	}
	e.assigned(name, vbound{bytes: sadd(v.bytes, costNumber), elems: v.elems, maxEl: max(v.maxEl, costNumber), list: v.list})
	e.add(costNumber)
}

// ---- assignments ----

// assignMode says how an assignment's variable relates to the old one.
type assignMode byte

const (
	asPlain  assignMode = iota // x=v: replaces x
	asPrefix                   // x=v cmd: beside the old value until cmd ends
	asDecl                     // declare/local x=v (typed by the clause's flags)
	asDeclA                    // declare -A
)

func (e *evaluator) assign(as *syntax.Assign, mode assignMode) {
	if as.Name == nil {
		return
	}
	name := as.Name.Value
	vr, old := e.current(name)
	assoc := vr.Kind == expand.Associative || mode == asDeclA
	switch {
	case as.Naked:
		return
	case as.Array != nil:
		var b, n, most int64
		if assoc || (len(as.Array.Elems) > 0 && stringIndex(as.Array.Elems[0].Index)) {
			for _, el := range as.Array.Elems {
				k := int64(0)
				if w, ok := el.Index.(*syntax.Word); ok {
					k = e.literal(w).bytes
				}
				val := e.literal(el.Value).bytes
				b, n, most = sadd(b, k, val), sadd(n, 1), max(most, val)
			}
			e.add(smul(n, costMapEnt))
		} else {
			for _, el := range as.Array.Elems {
				if el.Index != nil {
					e.arith(el.Index)
					val := e.literal(el.Value).bytes
					b, n, most = sadd(b, val), sadd(n, 1), max(most, val)
					continue
				}
				f, fb := e.fieldsOf([]*syntax.Word{el.Value})
				b, n, most = sadd(b, fb), sadd(n, f), max(most, fb)
			}
			e.add(smul(n, costList))
		}
		if as.Append {
			e.add(smul(old.elems, costList))
			b, n, most = sadd(b, old.bytes), sadd(n, old.elems), max(most, old.maxEl)
		}
		e.assigned(name, vbound{bytes: b, elems: n, maxEl: most, list: true})
	case as.Index != nil:
		if assoc {
			e.literalIndex(as.Index)
		} else {
			e.arith(as.Index)
		}
		val := e.literal(as.Value).bytes
		if as.Append {
			val = sadd(val, old.maxEl)
			e.add(val)
		}
		// The list (or map) is copied with the element set.
		e.add(smul(sadd(old.elems, 1), costList+costMapEnt))
		e.assigned(name, vbound{bytes: sadd(old.bytes, val), elems: sadd(old.elems, 1), maxEl: max(old.maxEl, val), list: true})
	default:
		val := e.literal(as.Value).bytes
		if as.Append {
			if old.list {
				val = sadd(val, old.maxEl)
				e.add(val, smul(old.elems, costList))
				e.assigned(name, vbound{bytes: sadd(old.bytes, val), elems: old.elems, maxEl: max(old.maxEl, val), list: true})
				return
			}
			val = sadd(val, old.bytes)
			e.add(val) // a new string, old and new
		}
		if old.list && mode != asDecl {
			// A string assigned to an array sets element 0.
			e.add(smul(sadd(old.elems, 1), costList+costMapEnt))
			e.assigned(name, vbound{bytes: sadd(old.bytes, val), elems: old.elems, maxEl: max(old.maxEl, val), list: true})
			return
		}
		e.assigned(name, vbound{bytes: val, elems: 1, maxEl: val})
	}
}

// stringIndex reports whether an array element's index is a string key (as
// the interpreter decides an array is associative).
func stringIndex(idx syntax.ArithmExpr) bool {
	w, ok := idx.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return false
	}
	switch w.Parts[0].(type) {
	case *syntax.DblQuoted, *syntax.SglQuoted:
		return true
	}
	return false
}

// ---- [[ ]] ----

func (e *evaluator) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		e.literal(x)
	case *syntax.ParenTest:
		e.test(x.X)
	case *syntax.UnaryTest:
		e.test(x.X)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.AndTest, syntax.OrTest:
			e.test(x.X)
			e.test(x.Y)
		case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch:
			e.test(x.X)
			if w, ok := x.Y.(*syntax.Word); ok {
				e.add(e.globCost(e.pattern(w)))
			}
		case syntax.TsReMatch:
			e.test(x.X)
			if w, ok := x.Y.(*syntax.Word); ok {
				v := e.regex(w)
				// BASH_REMATCH: the match and each group.
				groups := sadd(v.bytes/2, 1)
				e.add(smul(groups, costList))
				e.assigned("BASH_REMATCH", vbound{bytes: satMax / 2, elems: groups, maxEl: satMax / 2, list: true})
			}
		default:
			e.test(x.X)
			e.test(x.Y)
		}
	}
}

// ---- aliases ----

// aliasWords adds the words the aliases of a command name may expand to.
func (e *evaluator) aliasWords(w *syntax.Word) {
	if e.x.aliases == nil {
		return
	}
	for _, ws := range e.x.aliases.lookup(w.Lit()) {
		e.fieldsOf(ws)
	}
}
