package interp

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// seg is a piece of an expanded word: text, whether it was quoted (no
// splitting, no globbing), whether it may be split (an unquoted expansion),
// or a break between fields ("$@").
type seg struct {
	text   string
	quoted bool
	split  bool
	brk    bool
}

type errUnbound struct{ name string }

func (e errUnbound) Error() string {
	if e.name != "" && e.name[0] >= '0' && e.name[0] <= '9' {
		return "$" + e.name + ": unbound variable"
	}
	return e.name + ": unbound variable"
}

type errParamUnset struct{ msg string }

func (e errParamUnset) Error() string { return e.msg }

type errBadSubst struct {
	text, msg string
	status    int // the exit status (0: 1)
}

func (e errBadSubst) Error() string {
	if e.msg != "" {
		return e.text + ": " + e.msg
	}
	return e.text + ": bad substitution"
}

// fields expands words as command arguments, for lists and array elements:
// brace expansion, expansions, field splitting, globbing, quote removal.
// The list is bounded by the memory budget (a command's arguments also by
// MaxArgs: args).
func (r *Runner) fields(words ...*syntax.Word) ([]string, error) {
	var out []string
	for _, w := range words {
		ws := []*syntax.Word{w}
		if r.opts["braceexpand"] && hasBraceCandidate(w) {
			var err error
			if ws, err = r.braces(w); err != nil {
				return nil, err
			}
		}
		for _, w := range ws {
			segs, err := r.segs(w.Parts, false)
			if err != nil {
				return nil, err
			}
			fs, err := r.splitGlob(segs)
			if err != nil {
				return nil, err
			}
			if err := r.hold(len(fs) * costStr); err != nil {
				return nil, err
			}
			out = append(out, fs...)
		}
	}
	return out, nil
}

// args expands a simple command's words: fields, at most MaxArgs of them.
func (r *Runner) args(words ...*syntax.Word) ([]string, error) {
	out, err := r.fields(words...)
	if m := r.cfg.Limits.MaxArgs; err == nil && m > 0 && len(out) > m {
		return nil, r.limit("MaxArgs", int64(m))
	}
	return out, err
}

func hasBraceCandidate(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// literal expands a word to one string, without splitting or globbing
// (assignments, redirection targets, case subjects, [[ ]] operands).
func (r *Runner) literal(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	segs, err := r.segs(w.Parts, false)
	if err != nil {
		return "", err
	}
	parts := make([]string, len(segs))
	for i, s := range segs {
		if s.brk {
			parts[i] = " "
			continue
		}
		parts[i] = s.text
	}
	if len(parts) == 0 {
		return "", nil
	}
	if len(parts) == 1 {
		return parts[0], r.checkLen(len(parts[0]))
	}
	return r.concat(parts...)
}

func (r *Runner) checkLen(n int) error {
	if m := r.cfg.Limits.MaxStringBytes; m > 0 && n > m {
		return r.limit("MaxStringBytes", int64(m))
	}
	return nil
}

// pattern expands a word as a pattern: quoted characters are escaped with
// a backslash.
func (r *Runner) pattern(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	segs, err := r.segs(w.Parts, false)
	if err != nil {
		return "", err
	}
	b := r.newBuf(0)
	for _, s := range segs {
		if s.brk {
			b.WriteByte(' ')
			continue
		}
		if s.quoted {
			b.WriteString(quotePattern(s.text))
		} else {
			b.WriteString(s.text)
		}
	}
	return b.String()
}

// quotePattern escapes the pattern characters of s.
func quotePattern(s string) string {
	if !strings.ContainsAny(s, `*?[]\()|!+@{}`) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]\()|!+@{}`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// segs expands word parts. quoted tells the parts are inside "...".
func (r *Runner) segs(parts []syntax.WordPart, quoted bool) ([]seg, error) {
	var out []seg
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if quoted {
				out = append(out, seg{text: unescapeDq(v), quoted: true})
				continue
			}
			// tilde at the start of a word
			if i == 0 && strings.HasPrefix(v, "~") {
				var s seg
				var ok bool
				s, v, ok = r.tilde(v, len(parts) == 1)
				if ok {
					out = append(out, s)
				}
			}
			out = appendUnquotedLit(out, v)
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v = ansiC(v)
			}
			out = append(out, seg{text: v, quoted: true})
		case *syntax.DblQuoted:
			in, err := r.segs(p.Parts, true)
			if err != nil {
				return nil, err
			}
			if len(p.Parts) == 0 {
				out = append(out, seg{quoted: true})
				continue
			}
			if len(in) == 0 {
				// "$@" with no parameters: nothing, not even an empty field
				// unless other parts exist.
				continue
			}
			out = append(out, in...)
		case *syntax.ParamExp:
			s, err := r.paramExp(p, quoted)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		case *syntax.CmdSubst:
			s, err := r.cmdSubst(p.Stmts)
			if err != nil {
				return nil, err
			}
			out = append(out, seg{text: s, quoted: quoted, split: !quoted})
		case *syntax.ArithmExp:
			n, err := r.arith(p.X)
			if err != nil {
				return nil, r.arithRawErr(p.X, p.Right, err)
			}
			out = append(out, seg{text: strconv.FormatInt(n, 10), quoted: quoted, split: !quoted})
		case *syntax.ExtGlob:
			out = append(out, seg{text: p.Op.String() + p.Pattern.Value + ")"})
		case *syntax.ProcSubst:
			s, err := r.procSubst(p)
			if err != nil {
				return nil, err
			}
			out = append(out, seg{text: s, quoted: true})
		case *syntax.BraceExp:
			// left after brace expansion did not apply: print it back
			var b strings.Builder
			syntax.NewPrinter().Print(&b, &syntax.Word{Parts: []syntax.WordPart{p}})
			out = append(out, seg{text: b.String()})
		default:
			return nil, fmt.Errorf("unsupported word part %T", p)
		}
	}
	if len(out) > 8 {
		if err := r.hold(len(out) * costSeg); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendUnquotedLit splits an unquoted literal at backslash escapes: an
// escaped character is quoted.
func appendUnquotedLit(out []seg, v string) []seg {
	if !strings.Contains(v, `\`) {
		if v != "" {
			out = append(out, seg{text: v})
		}
		return out
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			if b.Len() > 0 {
				out = append(out, seg{text: b.String()})
				b.Reset()
			}
			if v[i+1] == '\n' {
				i++
				continue
			}
			_, n := utf8.DecodeRuneInString(v[i+1:])
			out = append(out, seg{text: v[i+1 : i+1+n], quoted: true})
			i += n
			continue
		}
		b.WriteByte(v[i])
	}
	if b.Len() > 0 {
		out = append(out, seg{text: b.String()})
	}
	return out
}

// unescapeDq removes the backslashes that are special inside "...".
func unescapeDq(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(v[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// tilde expands ~ and ~/... (HOME), ~+ and ~-; ~user stays as written.
func (r *Runner) tilde(v string, whole bool) (seg, string, bool) {
	end := strings.IndexByte(v, '/')
	if end < 0 {
		end = len(v)
	}
	name := v[1:end]
	switch name {
	case "":
		return seg{text: r.getStr("HOME"), quoted: true}, v[end:], true
	case "+":
		return seg{text: r.dir, quoted: true}, v[end:], true
	case "-":
		if o, ok := r.getVar("OLDPWD"); ok {
			return seg{text: o, quoted: true}, v[end:], true
		}
	}
	return seg{}, v, false
}

// splitGlob splits segments into fields with IFS and globs each field.
func (r *Runner) splitGlob(segs []seg) ([]string, error) {
	ifs, ok := r.getVar("IFS")
	if !ok {
		ifs = " \t\n"
	}
	// At most one field and one segment per separator or segment: held
	// before the lists are made.
	n := len(segs) + 1
	for _, s := range segs {
		if s.split && ifs != "" {
			for i := 0; i < len(s.text); i++ {
				if strings.IndexByte(ifs, s.text[i]) >= 0 {
					n++
				}
			}
		}
	}
	if err := r.hold(n * (costSeg + 8 + costStr)); err != nil {
		return nil, err
	}
	// The fields' segments, one after the other in flat; field i is
	// flat[bounds[i]:bounds[i+1]].
	flat := make([]seg, 0, n)
	bounds := make([]int, 1, n+1)
	started := false
	wsJust := false
	emit := func() {
		bounds = append(bounds, len(flat))
		started = false
	}
	for _, s := range segs {
		if s.brk {
			if started {
				emit()
			}
			wsJust = false
			continue
		}
		if !s.split || ifs == "" {
			if s.text != "" || s.quoted {
				flat = append(flat, s)
				started = true
				wsJust = false
			}
			continue
		}
		start := 0
		txt := s.text
		for i := 0; i < len(txt); i++ {
			c := txt[i]
			if !strings.ContainsRune(ifs, rune(c)) {
				continue
			}
			if i > start {
				flat = append(flat, seg{text: txt[start:i]})
				started = true
			}
			start = i + 1
			if c == ' ' || c == '\t' || c == '\n' {
				if started {
					emit()
					wsJust = true
				}
				continue
			}
			if started {
				emit()
			} else if !wsJust {
				emit()
			}
			wsJust = false
		}
		if start < len(txt) {
			flat = append(flat, seg{text: txt[start:]})
			started = true
			wsJust = false
		}
	}
	if started {
		emit()
	}
	out := make([]string, 0, len(bounds)-1)
	var texts []string
	for fi := 0; fi+1 < len(bounds); fi++ {
		f := flat[bounds[fi]:bounds[fi+1]]
		glob := false
		if !r.opts["noglob"] {
			for _, s := range f {
				if !s.quoted && hasGlobMeta(s.text, true) {
					glob = true
					break
				}
			}
		}
		var lit string
		if len(f) == 1 {
			lit = f[0].text
			if err := r.checkLen(len(lit)); err != nil {
				return nil, err
			}
		} else {
			texts = texts[:0]
			for _, s := range f {
				texts = append(texts, s.text)
			}
			var err error
			if lit, err = r.concat(texts...); err != nil {
				return nil, err
			}
		}
		if !glob {
			out = append(out, lit)
			continue
		}
		pat := r.newBuf(len(lit))
		for _, s := range f {
			if s.quoted {
				pat.WriteString(quotePattern(s.text))
			} else {
				pat.WriteString(s.text)
			}
		}
		patStr, err := pat.String()
		if err != nil {
			return nil, err
		}
		matches, err := r.glob(patStr)
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			if r.shopts["failglob"] {
				return nil, errNoMatch{lit}
			}
			if r.shopts["nullglob"] {
				continue
			}
			out = append(out, lit)
			continue
		}
		out = append(out, matches...)
	}
	return out, nil
}

type errNoMatch struct{ pat string }

func (e errNoMatch) Error() string { return "no match: " + e.pat }

// paramExp expands ${...}.
func (r *Runner) paramExp(p *syntax.ParamExp, quoted bool) ([]seg, error) {
	name := p.Param.Value
	if raw, ok := marked(name, markPE); ok {
		return r.lenientParamExp(raw, quoted)
	}
	mk := func(vals []string, star bool) ([]seg, error) {
		return r.joinVals(vals, star, quoted)
	}
	// ${!prefix*} ${!prefix@}
	if p.Names != 0 {
		names := r.namesWithPrefix(name)
		return mk(names, p.Names == syntax.NamesPrefix)
	}
	// ${!a[@]} keys
	if p.Excl && p.Index != nil {
		if sub, ok := allIndex(p.Index); ok {
			v := r.lookup(name)
			var keys []string
			if v != nil {
				keys = v.keyList()
			}
			return mk(keys, sub == "*")
		}
	}
	if p.Excl && !p.Length {
		// indirect: ${!x}, or a nameref's name
		if v := r.lookupRaw(name); v != nil && v.ref && p.Index == nil {
			return []seg{{text: v.str, quoted: quoted, split: !quoted}}, nil
		}
		target, ok := r.getVar(name)
		if !ok && r.opts["nounset"] {
			return nil, errUnbound{name}
		}
		if target == "" {
			return nil, errBadSubst{text: name, msg: "invalid indirect expansion"}
		}
		np, err := r.parseParamRef(target)
		if err != nil {
			return nil, err
		}
		q := *p
		q.Excl = false
		q.Param = &syntax.Lit{Value: np.name}
		q.Index = np.index
		return r.paramExp(&q, quoted)
	}
	vals, isArr, star, set, err := r.paramValues(name, p.Index)
	if err != nil {
		return nil, err
	}
	if p.Length {
		if isArr {
			if !set && r.opts["nounset"] && name != "@" && name != "*" {
				// ${#a[@]} of an unset (or declared, never assigned) array
				r.errf("%s: unbound variable", name)
				return nil, discard(1)
			}
			return []seg{{text: strconv.Itoa(len(vals)), quoted: quoted, split: !quoted}}, nil
		}
		if !set && r.opts["nounset"] {
			return nil, errUnbound{name}
		}
		s := ""
		if len(vals) > 0 {
			s = vals[0]
		}
		return []seg{{text: strconv.Itoa(utf8.RuneCountInString(s)), quoted: quoted, split: !quoted}}, nil
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull, syntax.DefaultUnset, syntax.DefaultUnsetOrNull,
			syntax.ErrorUnset, syntax.ErrorUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			null := !set || isArr && len(vals) == 0 || !isArr && len(vals) > 0 && vals[0] == "" || len(vals) == 0
			if isArr && len(vals) > 0 {
				null = star && strings.Join(vals, "") == "" && false
				if len(vals) == 1 && vals[0] == "" {
					null = true
				}
			}
			colon := p.Exp.Op == syntax.AlternateUnsetOrNull || p.Exp.Op == syntax.DefaultUnsetOrNull || p.Exp.Op == syntax.ErrorUnsetOrNull || p.Exp.Op == syntax.AssignUnsetOrNull
			// an array with no elements ($@ with none) is unset here
			use := !set || isArr && len(vals) == 0 || colon && null
			switch p.Exp.Op {
			case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
				if use {
					if quoted && !(isArr && !star) {
						// "${y+set}" of an unset y is still an empty word
						// ("${a[@]+x}" of an empty array is none)
						return []seg{{quoted: true}}, nil
					}
					return nil, nil
				}
				return r.segs(p.Exp.Word.Parts, quoted)
			case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
				if use {
					if p.Exp.Word == nil {
						if quoted {
							return []seg{{quoted: true}}, nil
						}
						return nil, nil
					}
					return r.wordSegs(p.Exp.Word, quoted)
				}
			case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
				if use {
					msg := "parameter null or not set"
					if p.Exp.Word != nil {
						m, err := r.literal(p.Exp.Word)
						if err != nil {
							return nil, err
						}
						msg = m
					}
					return nil, errParamUnset{displayName(name, p.Index) + ": " + msg}
				}
			case syntax.AssignUnset, syntax.AssignUnsetOrNull:
				if use {
					v, err := r.literal(p.Exp.Word)
					if err != nil {
						return nil, err
					}
					var key *string
					if p.Index != nil {
						k, err := r.subscript(name, p.Index)
						if err != nil {
							return nil, err
						}
						key = &k
					}
					if isSpecialParam(name) {
						return nil, errBadSubst{text: "$" + name, msg: "cannot assign in this way"}
					}
					if err := r.assign(name, key, v, false, false); err != nil {
						return nil, err
					}
					return []seg{{text: v, quoted: quoted, split: !quoted}}, nil
				}
			}
		}
	}
	if !set && r.opts["nounset"] && !isArr {
		if name == "@" || name == "*" {
			if len(vals) == 0 && p.Exp == nil {
				// bash: $@ and $* are allowed under set -u
			}
		} else {
			return nil, errUnbound{displayName(name, p.Index)}
		}
	}
	// transformations, element-wise
	var err2 error
	apply := func(f func(string) (string, error)) {
		for i, v := range vals {
			if err2 != nil {
				return
			}
			vals[i], err2 = f(v)
		}
	}
	switch {
	case p.Slice != nil:
		vals, err = r.slice(name, vals, isArr, p.Slice)
		if err != nil {
			return nil, err
		}
	case p.Repl != nil:
		pat, err := r.pattern(p.Repl.Orig)
		if err != nil {
			return nil, err
		}
		with, err := r.replWord(p.Repl.With, quoted)
		if err != nil {
			return nil, err
		}
		apply(func(s string) (string, error) { return r.replace(s, pat, with, p.Repl.All) })
	case p.Exp != nil:
		switch op := p.Exp.Op; op {
		case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			pat, err := r.pattern(p.Exp.Word)
			if err != nil {
				return nil, err
			}
			apply(func(s string) (string, error) { return r.trim(s, pat, op), nil })
		case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll, opToggleFirst, opToggleAll:
			pat := "?"
			if p.Exp.Word != nil {
				if pat, err = r.pattern(p.Exp.Word); err != nil {
					return nil, err
				}
			}
			apply(func(s string) (string, error) { return r.caseMod(s, pat, op) })
		case syntax.OtherParamOps:
			opc, _ := r.literal(p.Exp.Word)
			if opc == "A" || opc == "a" || opc == "K" || opc == "k" {
				return r.attrOp(name, p.Index, opc, vals, isArr, star, quoted)
			}
			apply(func(s string) (string, error) { return r.atOp(s, opc) })
		}
	}
	if err2 != nil {
		return nil, err2
	}
	if !isArr {
		if len(vals) == 0 {
			if quoted {
				return []seg{{quoted: true}}, nil
			}
			return nil, nil
		}
		return []seg{{text: vals[0], quoted: quoted, split: !quoted}}, nil
	}
	return mk(vals, star)
}

// replWord expands the replacement of ${x/p/rep}: an & that was quoted
// (or escaped) stays literal, as bash's patsub_replacement does.
func (r *Runner) replWord(w *syntax.Word, quoted bool) (string, error) {
	if w == nil {
		return "", nil
	}
	var b strings.Builder
	esc := func(s string) {
		for _, c := range s {
			if c == '&' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
		}
	}
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && quoted {
			// inside "...": \& and \\ are read by the replacement
			b.WriteString(strings.NewReplacer(`\$`, "$", "\\`", "`", `\"`, `"`).Replace(l.Value))
			continue
		}
		segs, err := r.segs([]syntax.WordPart{p}, quoted)
		if err != nil {
			return "", err
		}
		for _, s := range segs {
			if s.quoted {
				esc(s.text)
			} else {
				b.WriteString(s.text)
			}
		}
	}
	return b.String(), nil
}

// wordSegs expands a word inside a ${x:-word}, keeping quoting context.
func (r *Runner) wordSegs(w *syntax.Word, quoted bool) ([]seg, error) {
	s, err := r.segs(w.Parts, quoted)
	if err != nil {
		return nil, err
	}
	if !quoted {
		for i := range s {
			if !s[i].quoted && !s[i].split && !s[i].brk {
				// unquoted literal text inside ${x:-a b} is split too
				s[i].split = true
			}
		}
	}
	return s, nil
}

func displayName(name string, idx syntax.ArithmExpr) string {
	if idx == nil {
		return name
	}
	var b strings.Builder
	syntax.NewPrinter().Print(&b, idx)
	return name + "[" + b.String() + "]"
}

func isSpecialParam(name string) bool {
	switch name {
	case "@", "*", "#", "?", "-", "$", "!", "0":
		return true
	}
	return name[0] >= '0' && name[0] <= '9'
}

// joinVals turns array values into segments: "${a[@]}" one field each,
// "${a[*]}" joined with IFS's first character.
func (r *Runner) joinVals(vals []string, star, quoted bool) ([]seg, error) {
	if star && quoted {
		ifs, ok := r.getVar("IFS")
		sep := " "
		if ok {
			sep = ""
			if ifs != "" {
				sep = ifs[:1]
			}
		}
		j, err := r.join(vals, sep)
		return []seg{{text: j, quoted: true}}, err
	}
	if err := r.hold(2 * len(vals) * costSeg); err != nil {
		return nil, err
	}
	out := make([]seg, 0, 2*len(vals))
	for i, v := range vals {
		if i > 0 {
			out = append(out, seg{brk: true})
		}
		out = append(out, seg{text: v, quoted: quoted, split: !quoted})
	}
	if quoted && len(vals) == 0 {
		return nil, nil
	}
	return out, nil
}

func allIndex(x syntax.ArithmExpr) (string, bool) {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || l.Value != "@" && l.Value != "*" {
		return "", false
	}
	return l.Value, true
}

// subscript evaluates an index for name: an associative array's key as a
// string, else arithmetic.
func (r *Runner) subscript(name string, x syntax.ArithmExpr) (string, error) {
	if v := r.lookup(name); v != nil && v.kind == kAssoc {
		if w, ok := x.(*syntax.Word); ok {
			return r.literal(w)
		}
		var b strings.Builder
		syntax.NewPrinter().Print(&b, x)
		return b.String(), nil
	}
	n, err := r.arith(x)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(n, 10), nil
}

// paramValues returns the values of name[index]: the list, whether it is
// an array expansion ([@] [*] $@ $*), whether it is [*]/$*, whether set.
func (r *Runner) paramValues(name string, index syntax.ArithmExpr) (vals []string, isArr, star, set bool, err error) {
	switch name {
	case "@", "*":
		if err := r.hold(len(r.params) * costStr); err != nil {
			return nil, false, false, false, err
		}
		return append([]string(nil), r.params...), true, name == "*", true, nil
	case "PIPESTATUS":
		if r.lookupRaw(name) == nil {
			ps := make([]string, len(r.pipeSt))
			for i, s := range r.pipeSt {
				ps[i] = strconv.Itoa(s)
			}
			if index == nil {
				if len(ps) == 0 {
					return nil, false, false, false, nil
				}
				return ps[:1], false, false, true, nil
			}
			if sub, ok := allIndex(index); ok {
				return ps, true, sub == "*", true, nil
			}
			n, err := r.arith(index)
			if err != nil {
				return nil, false, false, false, err
			}
			if n >= 0 && n < int64(len(ps)) {
				return []string{ps[n]}, false, false, true, nil
			}
			return nil, false, false, false, nil
		}
	case "FUNCNAME", "BASH_SOURCE", "BASH_LINENO":
		if r.lookupRaw(name) == nil {
			fs := r.stackVar(name)
			if index == nil {
				if len(fs) == 0 {
					return nil, false, false, false, nil
				}
				return fs[:1], false, false, true, nil
			}
			if sub, ok := allIndex(index); ok {
				return fs, true, sub == "*", true, nil
			}
			n, err := r.arith(index)
			if err != nil {
				return nil, false, false, false, err
			}
			if n < 0 {
				n += int64(len(fs))
			}
			if n >= 0 && n < int64(len(fs)) {
				return []string{fs[n]}, false, false, true, nil
			}
			return nil, false, false, false, nil
		}
	}
	if index != nil {
		if sub, ok := allIndex(index); ok {
			v := r.lookup(name)
			if s, ok2, special := r.special(name); special {
				if ok2 {
					return []string{s}, true, sub == "*", true, nil
				}
				return nil, true, sub == "*", false, nil
			}
			if v == nil || !v.set {
				return nil, true, sub == "*", false, nil
			}
			return v.values(), true, sub == "*", true, nil
		}
		v := r.lookup(name)
		if v == nil {
			k, err := r.subscript(name, index)
			if err != nil {
				return nil, false, false, false, err
			}
			if strings.HasPrefix(k, "-") {
				r.errf("%s: bad array subscript", name)
			}
			return nil, false, false, false, nil
		}
		k, err := r.subscript(name, index)
		if err != nil {
			return nil, false, false, false, err
		}
		switch v.kind {
		case kAssoc:
			s, ok := v.assoc[k]
			if !ok {
				return nil, false, false, false, nil
			}
			return []string{s}, false, false, true, nil
		case kIndexed:
			i, _ := strconv.Atoi(k)
			if i < 0 {
				i += v.maxIndex() + 1
				if i < 0 {
					r.errf("%s: bad array subscript", name)
					return nil, false, false, false, nil
				}
			}
			s, ok := v.idx[i]
			if !ok {
				return nil, false, false, false, nil
			}
			return []string{s}, false, false, true, nil
		}
		if k == "0" && v.set {
			return []string{v.str}, false, false, true, nil
		}
		if strings.HasPrefix(k, "-") {
			// a scalar has no last element to count back from
			r.errf("%s: bad array subscript", name)
		}
		return nil, false, false, false, nil
	}
	s, ok := r.getVar(name)
	if !ok {
		return nil, false, false, false, nil
	}
	return []string{s}, false, false, true, nil
}

// special answers the special parameters; special reports whether name is
// one.
func (r *Runner) special(name string) (s string, set, special bool) {
	switch name {
	case "#":
		return strconv.Itoa(len(r.params)), true, true
	case "?":
		return strconv.Itoa(r.status), true, true
	case "$":
		return strconv.Itoa(r.cfg.Pid), true, true
	case "!":
		if r.lastBg == 0 {
			return "", false, true
		}
		return strconv.Itoa(r.lastBg), true, true
	case "-":
		return r.flagString(), true, true
	case "0":
		return r.name0, true, true
	case "_":
		return r.lastArg, true, true
	case "@", "*":
		return strings.Join(r.params, " "), len(r.params) > 0, true
	case "RANDOM":
		if v := r.lookupRaw(name); v != nil && !v.set {
			return "", false, false
		}
		x := r.sh.rnd.Load()
		x = x*1103515245 + 12345
		r.sh.rnd.Store(x)
		return strconv.Itoa(int(x>>16) & 0x7fff), true, true
	case "SECONDS":
		return strconv.Itoa(int(r.sinceStart().Seconds())), true, true
	case "LINENO":
		return strconv.Itoa(int(r.line)), true, true
	case "BASH_SUBSHELL":
		return strconv.Itoa(r.subshell), true, true
	case "BASHPID":
		return strconv.Itoa(r.pid), true, true
	case "BASH_COMMAND":
		return r.bashCommand(), true, true
	case "PWD":
		return r.dir, true, true
	case "FUNCNAME", "BASH_SOURCE", "BASH_LINENO":
		if r.lookupRaw(name) != nil {
			return "", false, false
		}
		fs := r.stackVar(name)
		if len(fs) == 0 {
			return "", false, true
		}
		return fs[0], true, true
	case "EPOCHSECONDS":
		return strconv.FormatInt(nowUnix(), 10), true, true
	}
	if name[0] >= '1' && name[0] <= '9' {
		n, err := strconv.Atoi(name)
		if err != nil || n > len(r.params) {
			return "", false, true
		}
		return r.params[n-1], true, true
	}
	return "", false, false
}

func (r *Runner) namesWithPrefix(prefix string) []string {
	seen := map[string]bool{}
	for _, sc := range r.scopes {
		for n, v := range sc.vars {
			if strings.HasPrefix(n, prefix) && (v.set || v.kind != kScalar) {
				seen[n] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

type paramRef struct {
	name  string
	index syntax.ArithmExpr
}

// parseParamRef parses "name" or "name[sub]" (the target of ${!x}).
func (r *Runner) parseParamRef(s string) (paramRef, error) {
	name, sub, hasSub := strings.Cut(s, "[")
	if hasSub && strings.HasSuffix(sub, "]") {
		sub = sub[:len(sub)-1]
		if !validName(name) {
			return paramRef{}, errBadSubst{text: "${!" + s + "}"}
		}
		if sub == "@" || sub == "*" {
			return paramRef{name, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: sub}}}}, nil
		}
		x, err := parseArith(sub)
		if err != nil {
			return paramRef{}, err
		}
		return paramRef{name, x}, nil
	}
	if !validName(s) && !(len(s) > 0 && (isSpecialParam(s))) {
		return paramRef{}, errBadSubst{text: s}
	}
	return paramRef{name: s}, nil
}

// slice is ${x:off:len}.
func (r *Runner) slice(name string, vals []string, isArr bool, sl *syntax.Slice) ([]string, error) {
	off, err := r.arith(sl.Offset)
	if err != nil {
		return nil, err
	}
	if isArr && name != "@" && name != "*" {
		if v := r.lookup(name); v != nil && v.kind == kScalar {
			// ${x[@]:o:l} of a scalar is a substring of its value
			isArr = false
		}
	}
	if isArr && name != "@" && name != "*" {
		if v := r.lookup(name); v != nil && v.kind == kIndexed {
			ks := v.indexes()
			if off < 0 {
				off += int64(v.maxIndex() + 1)
				if off < 0 {
					return nil, nil
				}
			}
			var out []string
			var limit int64 = -1
			if off > int64(v.maxIndex()) {
				return nil, nil
			}
			if sl.Length != nil {
				l, err := r.arith(sl.Length)
				if err != nil {
					return nil, err
				}
				if l < 0 {
					return nil, errArith{expr: r.leadText(sl.Length), msg: "substring expression < 0", fatal: true}
				}
				limit = l
			}
			for _, k := range ks {
				if int64(k) >= off && (limit < 0 || int64(len(out)) < limit) {
					out = append(out, v.idx[k])
				}
			}
			return out, nil
		}
	}
	if isArr {
		all := vals
		if name == "@" || name == "*" {
			all = append([]string{r.name0}, vals...)
		}
		n := int64(len(all))
		if off < 0 {
			off += n
			if off < 0 {
				return nil, nil
			}
		}
		if off > n {
			return nil, nil
		}
		end := n
		if sl.Length != nil {
			l, err := r.arith(sl.Length)
			if err != nil {
				return nil, err
			}
			if l < 0 {
				return nil, errArith{expr: r.leadText(sl.Length), msg: "substring expression < 0", fatal: true}
			}
			end = min(off+l, n)
		}
		return all[off:end], nil
	}
	if len(vals) == 0 {
		return nil, nil
	}
	str := vals[0]
	n := int64(utf8.RuneCountInString(str))
	if off < 0 {
		off += n
		if off < 0 {
			return []string{""}, nil
		}
	}
	if off > n {
		return []string{""}, nil
	}
	end := n
	if sl.Length != nil {
		l, err := r.arith(sl.Length)
		if err != nil {
			return nil, err
		}
		if l < 0 {
			end = n + l
			if end < off {
				return nil, errArith{expr: r.leadText(sl.Length), msg: "substring expression < 0", fatal: true}
			}
		} else {
			end = min(off+l, n)
		}
	}
	// a substring of the value, found by counting runes: no copy
	return []string{str[runeOffset(str, off):runeOffset(str, end)]}, nil
}

// runeOffset returns the byte offset of the n-th rune of s (len(s) past
// the end).
func runeOffset(s string, n int64) int {
	if isASCII(s) {
		return int(min(n, int64(len(s))))
	}
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// replace is ${x/pat/with}, ${x//pat/with}, ${x/#pat/with}, ${x/%pat/with}.
func (r *Runner) replace(s, pat, with string, all bool) (string, error) {
	anchor := byte(0)
	if !all && len(pat) > 0 && (pat[0] == '#' || pat[0] == '%') {
		anchor, pat = pat[0], pat[1:]
	}
	m := r.compile(pat, false)
	// & in the replacement is the match (patsub_replacement)
	amp := r.shopts["patsub_replacement"] && strings.Contains(with, "&")
	b := r.newBuf(len(s))
	put := func(match string) {
		if !amp {
			b.WriteString(with)
			return
		}
		for i := 0; i < len(with); i++ {
			if with[i] == '\\' && i+1 < len(with) && (with[i+1] == '&' || with[i+1] == '\\') {
				b.WriteByte(with[i+1])
				i++
				continue
			}
			if with[i] == '&' {
				b.WriteString(match)
				continue
			}
			b.WriteByte(with[i])
		}
	}
	switch anchor {
	case '#':
		j := -1
		if m.simple() {
			if loc := m.re("^", "", true).FindStringIndex(s); loc != nil {
				j = loc[1]
			}
		} else {
			for k := len(s); k >= 0; k-- {
				if m.match(s[:k]) {
					j = k
					break
				}
			}
		}
		if j < 0 {
			return s, nil
		}
		put(s[:j])
		b.WriteString(s[j:])
		return b.String()
	case '%':
		j := -1
		if m.simple() {
			if loc := m.re("", "$", false).FindStringIndex(s); loc != nil {
				j = loc[0]
			}
		} else {
			for k := 0; k <= len(s); k++ {
				if m.match(s[k:]) {
					j = k
					break
				}
			}
		}
		if j < 0 {
			return s, nil
		}
		b.WriteString(s[:j])
		put(s[j:])
		return b.String()
	}
	if pat == "" {
		return s, nil
	}
	// Non-empty matches, leftmost and longest, one after the other.
	var next func(i int) (start, end int)
	if lit, ok := m.literal(); ok {
		next = func(i int) (int, int) {
			k := strings.Index(s[i:], lit)
			if k < 0 {
				return -1, -1
			}
			return i + k, i + k + len(lit)
		}
	} else if m.simple() {
		re := m.re("", "", true)
		next = func(i int) (int, int) {
			for i <= len(s) {
				loc := re.FindStringIndex(s[i:])
				if loc == nil {
					return -1, -1
				}
				if loc[1] > loc[0] {
					return i + loc[0], i + loc[1]
				}
				// an empty match: bash tries the next character
				if i+loc[0] >= len(s) {
					return -1, -1
				}
				_, n := utf8.DecodeRuneInString(s[i+loc[0]:])
				i += loc[0] + n
			}
			return -1, -1
		}
	} else {
		next = func(i int) (int, int) {
			for ; i < len(s); i++ {
				for j := len(s); j > i; j-- {
					if m.match(s[i:j]) {
						return i, j
					}
				}
			}
			return -1, -1
		}
	}
	i := 0
	for i < len(s) {
		if err := r.check(); err != nil {
			return "", err
		}
		st, en := next(i)
		if st < 0 {
			break
		}
		b.WriteString(s[i:st])
		put(s[st:en])
		i = en
		if !all {
			break
		}
	}
	b.WriteString(s[i:])
	return b.String()
}

// trim is ${x#p} ${x##p} ${x%p} ${x%%p}.
func (r *Runner) trim(s, pat string, op syntax.ParExpOperator) string {
	m := r.compile(pat, false)
	switch op {
	case syntax.RemSmallPrefix:
		for j := 0; j <= len(s); j++ {
			if m.match(s[:j]) {
				return s[j:]
			}
		}
	case syntax.RemLargePrefix:
		if m.simple() {
			if loc := m.re("^", "", true).FindStringIndex(s); loc != nil {
				return s[loc[1]:]
			}
			return s
		}
		for j := len(s); j >= 0; j-- {
			if m.match(s[:j]) {
				return s[j:]
			}
		}
	case syntax.RemSmallSuffix:
		for j := len(s); j >= 0; j-- {
			if m.match(s[j:]) {
				return s[:j]
			}
		}
	case syntax.RemLargeSuffix:
		if m.simple() {
			if loc := m.re("", "$", false).FindStringIndex(s); loc != nil {
				return s[:loc[0]]
			}
			return s
		}
		for j := 0; j <= len(s); j++ {
			if m.match(s[j:]) {
				return s[:j]
			}
		}
	}
	return s
}

func (r *Runner) caseMod(s, pat string, op syntax.ParExpOperator) (string, error) {
	m := r.compile(pat, false)
	b := r.newBuf(len(s))
	first := true
	for _, c := range s {
		if (first || op == syntax.UpperAll || op == syntax.LowerAll || op == opToggleAll) && m.match(string(c)) {
			if op == opToggleFirst || op == opToggleAll {
				if u := []rune(strings.ToUpper(string(c)))[0]; u != c {
					c = u
				} else {
					c = []rune(strings.ToLower(string(c)))[0]
				}
			} else if op == syntax.UpperFirst || op == syntax.UpperAll {
				c = []rune(strings.ToUpper(string(c)))[0]
			} else {
				c = []rune(strings.ToLower(string(c)))[0]
			}
		}
		first = false
		b.WriteRune(c)
	}
	return b.String()
}

// atOp is ${x@Q}, ${x@E}, ${x@P}, ${x@U}, ${x@u}, ${x@L}.
func (r *Runner) atOp(s, op string) (string, error) {
	// Quoting can make four bytes of one (\001 as \001 in $'...'); case
	// changes keep about the length.
	grow := len(s)
	if op == "Q" {
		grow = 4*len(s) + 3
	}
	if err := r.room(grow); err != nil {
		return "", err
	}
	switch op {
	case "Q":
		return shellQuote(s), nil
	case "E":
		return ansiC(s), nil
	case "P":
		return s, nil
	case "U":
		return strings.ToUpper(s), nil
	case "L":
		return strings.ToLower(s), nil
	case "u":
		if s == "" {
			return s, nil
		}
		rs := []rune(s)
		return strings.ToUpper(string(rs[0])) + string(rs[1:]), nil
	}
	return "", errBadSubst{text: "${@" + op + "}"}
}

// attrOp is ${x@a}, ${x@A}, ${a[@]@K}.
func (r *Runner) attrOp(name string, index syntax.ArithmExpr, op string, vals []string, isArr, star, quoted bool) ([]seg, error) {
	v := r.lookup(name)
	switch op {
	case "a":
		s := ""
		if v != nil {
			s = v.flags()
		}
		return []seg{{text: s, quoted: quoted, split: !quoted}}, nil
	case "A":
		if v == nil {
			return nil, nil
		}
		line := r.declareLine(name, v)
		if v.kind == kScalar && v.set {
			if f := v.flags(); f == "" {
				line = name + "=" + shellQuote(v.str)
			} else {
				line = "declare -" + f + " " + name + "=" + shellQuote(v.str)
			}
		}
		return []seg{{text: line, quoted: quoted, split: !quoted}}, nil
	case "K", "k":
		if v == nil {
			return nil, nil
		}
		var parts []string
		for i, k := range v.keyList() {
			val := v.values()[i]
			if v.kind == kAssoc {
				parts = append(parts, declKey(k), declQuote(val))
			} else {
				parts = append(parts, k, declQuote(val))
			}
		}
		if op == "k" {
			var kv []string
			for i, k := range v.keyList() {
				kv = append(kv, k, v.values()[i])
			}
			return r.joinVals(kv, star, quoted)
		}
		return []seg{{text: strings.Join(parts, " "), quoted: quoted, split: !quoted}}, nil
	}
	return nil, nil
}

// shellQuote quotes as bash's ${x@Q}: '...' with ' as '\”; $'...' when
// the value holds control characters.
func shellQuote(s string) string {
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return dollarQuote(s)
		}
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func dollarQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for _, c := range []byte(s) {
		switch c {
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\v':
			b.WriteString(`\v`)
		case 0x1b:
			b.WriteString(`\E`)
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, "\\%03o", c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// ansiC decodes $'...' escapes.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case '\\', '\'', '"', '?':
			b.WriteByte(s[i])
		case 'c':
			if i+1 < len(s) {
				i++
				if s[i] == '?' {
					b.WriteByte(0x7f)
				} else {
					b.WriteByte(s[i] & 0x1f)
				}
			}
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteString(`\x`)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 8)
			b.WriteByte(byte(n))
			i = j - 1
		case 'u', 'U':
			max := 4
			if s[i] == 'U' {
				max = 8
			}
			j := i + 1
			for j < len(s) && j < i+1+max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(s[i])
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			b.WriteRune(rune(n))
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			if byte(n) == 0 {
				// a NUL ends the string, as in C
				return b.String()
			}
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
