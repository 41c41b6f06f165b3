package interp

import (
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// kind is what a variable holds.
type kind uint8

const (
	kScalar kind = iota
	kIndexed
	kAssoc
)

// Var is one shell variable: a scalar, an indexed array (sparse) or an
// associative array, with bash's attributes.
type Var struct {
	kind   kind
	set    bool // has a value (declare x: declared, not set)
	str    string
	idx    map[int]string
	assoc  map[string]string
	keys   []string // assoc keys in insertion order
	export bool
	ro     bool
	integ  bool
	lower  bool
	upper  bool
	ref    bool // nameref: str names the target
	local  bool
	trace  bool // declare -t (no effect on a variable but its listing)
}

func (v *Var) clone() *Var {
	c := *v
	if v.idx != nil {
		c.idx = make(map[int]string, len(v.idx))
		for k, x := range v.idx {
			c.idx[k] = x
		}
	}
	if v.assoc != nil {
		c.assoc = make(map[string]string, len(v.assoc))
		for k, x := range v.assoc {
			c.assoc[k] = x
		}
		c.keys = append([]string(nil), v.keys...)
	}
	return &c
}

// size is the bytes the variable holds, for the memory budget.
func (v *Var) size() int64 {
	n := int64(96 + len(v.str))
	for _, x := range v.idx {
		n += costElem + int64(len(x))
	}
	for k, x := range v.assoc {
		n += 64 + int64(len(k)+len(x))
	}
	return n
}

// indexes returns an indexed array's indexes in order.
func (v *Var) indexes() []int {
	ks := make([]int, 0, len(v.idx))
	for k := range v.idx {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// values returns the elements in order (a scalar is element 0).
func (v *Var) values() []string {
	switch v.kind {
	case kIndexed:
		ks := v.indexes()
		out := make([]string, len(ks))
		for i, k := range ks {
			out[i] = v.idx[k]
		}
		return out
	case kAssoc:
		out := make([]string, 0, len(v.keys))
		for _, k := range v.keys {
			out = append(out, v.assoc[k])
		}
		return out
	}
	if !v.set {
		return nil
	}
	return []string{v.str}
}

// keyList returns ${!a[@]}.
func (v *Var) keyList() []string {
	switch v.kind {
	case kIndexed:
		ks := v.indexes()
		out := make([]string, len(ks))
		for i, k := range ks {
			out[i] = strconv.Itoa(k)
		}
		return out
	case kAssoc:
		return append([]string(nil), v.keys...)
	}
	if !v.set {
		return nil
	}
	return []string{"0"}
}

func (v *Var) count() int {
	switch v.kind {
	case kIndexed:
		return len(v.idx)
	case kAssoc:
		return len(v.assoc)
	}
	if v.set {
		return 1
	}
	return 0
}

func (v *Var) maxIndex() int {
	m := -1
	for k := range v.idx {
		if k > m {
			m = k
		}
	}
	return m
}

func (v *Var) setAssoc(k, val string) {
	if v.assoc == nil {
		v.assoc = map[string]string{}
	}
	if _, ok := v.assoc[k]; !ok {
		v.keys = append(v.keys, k)
	}
	v.assoc[k] = val
}

func (v *Var) unsetAssoc(k string) {
	if _, ok := v.assoc[k]; !ok {
		return
	}
	delete(v.assoc, k)
	for i, x := range v.keys {
		if x == k {
			v.keys = append(v.keys[:i:i], v.keys[i+1:]...)
			break
		}
	}
}

// toIndexed turns a scalar into an indexed array (its value is element 0).
func (v *Var) toIndexed() {
	if v.kind == kIndexed {
		return
	}
	v.idx = map[int]string{}
	if v.kind == kScalar && v.set {
		v.idx[0] = v.str
	}
	v.kind, v.str, v.set = kIndexed, "", true
}

// transform applies -l / -u.
func (v *Var) transform(s string) string {
	switch {
	case v.lower:
		return strings.ToLower(s)
	case v.upper:
		return strings.ToUpper(s)
	}
	return s
}

// scope is one level of dynamic scope (the globals, or a function call).
type scope struct {
	vars map[string]*Var
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// lookupRaw finds the variable named name in the innermost scope that has it.
func (r *Runner) lookupRaw(name string) *Var {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if v, ok := r.scopes[i].vars[name]; ok {
			return v
		}
	}
	return nil
}

// resolveRef follows namerefs (at most 8 levels) and returns the final name.
func (r *Runner) resolveRef(name string) string {
	for range 8 {
		v := r.lookupRaw(name)
		if v == nil || !v.ref || v.str == "" {
			return name
		}
		name = v.str
	}
	return name
}

// lookup returns the variable name refers to (following namerefs), or nil.
func (r *Runner) lookup(name string) *Var {
	return r.lookupRaw(r.resolveRef(name))
}

// varFor returns the variable to assign name in: an existing one in its
// scope, or a new global (or local when local is true).
func (r *Runner) varFor(name string, local bool) *Var {
	name = r.resolveRef(name)
	if local {
		sc := r.scopes[len(r.scopes)-1]
		if v, ok := sc.vars[name]; ok {
			return v
		}
		v := &Var{local: len(r.scopes) > 1}
		sc.vars[name] = v
		return v
	}
	if v := r.lookupRaw(name); v != nil {
		return v
	}
	v := &Var{}
	r.scopes[0].vars[name] = v
	return v
}

// refElem reports whether name is a nameref to an array element
// (declare -n r='a[1]'): the array and the element's key.
func (r *Runner) refElem(name string) (base, key string, ok bool, err error) {
	t := r.resolveRef(name)
	if t == name {
		return "", "", false, nil
	}
	base, sub, has := strings.Cut(t, "[")
	if !has || !strings.HasSuffix(sub, "]") || !validName(base) {
		return "", "", false, nil
	}
	sub = sub[:len(sub)-1]
	if v := r.lookup(base); v != nil && v.kind == kAssoc {
		return base, sub, true, nil
	}
	n, err := r.arithLenient(sub)
	if err != nil {
		return "", "", false, err
	}
	return base, strconv.FormatInt(n, 10), true, nil
}

// refElemValue is element key of the array base (a scalar's element 0 is
// its value; a negative index counts back from the end).
func (r *Runner) refElemValue(base, key string) (string, bool) {
	v := r.lookup(base)
	if v == nil || !v.set && v.kind == kScalar {
		return "", false
	}
	switch v.kind {
	case kAssoc:
		s, ok := v.assoc[key]
		return s, ok
	case kIndexed:
		i, _ := strconv.Atoi(key)
		if i < 0 {
			i += v.maxIndex() + 1
		}
		s, ok := v.idx[i]
		return s, ok
	}
	if key == "0" {
		return v.str, true
	}
	return "", false
}

// getStr is $name as a string ("" if unset).
func (r *Runner) getStr(name string) string {
	s, _ := r.getVar(name)
	return s
}

// getVar is $name and whether it is set, including special variables.
func (r *Runner) getVar(name string) (string, bool) {
	if s, ok, special := r.special(name); special {
		return s, ok
	}
	v := r.lookup(name)
	if v == nil {
		if base, key, ok, _ := r.refElem(name); ok {
			return r.refElemValue(base, key)
		}
	}
	if v == nil || !v.set {
		return "", false
	}
	switch v.kind {
	case kIndexed:
		s, ok := v.idx[0]
		return s, ok
	case kAssoc:
		s, ok := v.assoc["0"]
		return s, ok
	}
	return v.str, true
}

// errReadonly is the error of assigning a readonly variable.
type errReadonly struct{ name string }

func (e errReadonly) Error() string { return e.name + ": readonly variable" }

// setStr assigns a scalar (or element 0 of an array), honouring the
// attributes.
func (r *Runner) setStr(name, val string) error {
	return r.assign(name, nil, val, false, false)
}

// assign sets name (element key when key is non-nil) to val, appending when
// app. local makes it in the current scope.
func (r *Runner) assign(name string, key *string, val string, app, local bool) error {
	if !validName(name) {
		return errInvalidName{name}
	}
	if key == nil {
		if base, k, ok, err := r.refElem(name); err != nil {
			return err
		} else if ok {
			name, key = base, &k
		}
	}
	v := r.varFor(name, local)
	if v.ro {
		return errReadonly{r.resolveRef(name)}
	}
	if r.opts["allexport"] {
		v.export = true
	}
	before := v.size()
	if v.integ {
		cur := ""
		if app {
			cur = r.elem(v, key)
			if cur == "" {
				cur = "0"
			}
			n, err := r.arithString(cur + "+(" + val + ")")
			if err != nil {
				return err
			}
			val, app = strconv.FormatInt(n, 10), false
		} else {
			n, err := r.arithString(val)
			if err != nil {
				return err
			}
			val = strconv.FormatInt(n, 10)
		}
	}
	val = v.transform(val)
	if key == nil {
		switch v.kind {
		case kIndexed:
			k := "0"
			key = &k
		case kAssoc:
			k := "0"
			key = &k
		default:
			if app && v.set {
				v.str += val
			} else {
				v.str = val
			}
			v.set = true
			return r.charge(v.size() - before)
		}
	}
	switch v.kind {
	case kAssoc:
		if app {
			val = v.assoc[*key] + val
		}
		v.setAssoc(*key, val)
	default:
		v.toIndexed()
		i, err := r.arithString(*key)
		if err != nil {
			return err
		}
		if i < 0 {
			m := v.maxIndex()
			if int(i)+m+1 < 0 {
				return errBadSubscript{name, *key}
			}
			i = int64(m+1) + i
		}
		if app {
			val = v.idx[int(i)] + val
		}
		v.idx[int(i)] = val
	}
	v.set = true
	return r.charge(v.size() - before)
}

// elem reads element key of v (key nil: element 0 / the scalar).
func (r *Runner) elem(v *Var, key *string) string {
	if key == nil {
		switch v.kind {
		case kIndexed:
			return v.idx[0]
		case kAssoc:
			return v.assoc["0"]
		}
		return v.str
	}
	switch v.kind {
	case kAssoc:
		return v.assoc[*key]
	case kIndexed:
		i, _ := r.arithString(*key)
		if i < 0 {
			i += int64(v.maxIndex() + 1)
		}
		return v.idx[int(i)]
	}
	i, _ := r.arithString(*key)
	if i == 0 {
		return v.str
	}
	return ""
}

type errInvalidName struct{ name string }

func (e errInvalidName) Error() string { return "`" + e.name + "': not a valid identifier" }

type errBadSubscript struct{ name, key string }

func (e errBadSubscript) Error() string { return e.name + "[" + e.key + "]: bad array subscript" }

// unsetVar removes name (following namerefs, as bash does without -n).
func (r *Runner) unsetVar(name string) error {
	name = r.resolveRef(name)
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if v, ok := r.scopes[i].vars[name]; ok {
			if v.ro {
				return errReadonly{name}
			}
			r.charge(-v.size())
			if i > 0 && v.local {
				// bash: unset of a local leaves it unset in its scope; the
				// global stays hidden until the function returns
				r.scopes[i].vars[name] = &Var{local: true}
			} else {
				delete(r.scopes[i].vars, name)
			}
			return nil
		}
	}
	return nil
}

// environ lists the exported variables as NAME=value, sorted.
func (r *Runner) environ() []string {
	seen := map[string]bool{}
	var out []string
	for i := len(r.scopes) - 1; i >= 0; i-- {
		for n, v := range r.scopes[i].vars {
			if seen[n] {
				continue
			}
			seen[n] = true
			if v.export && v.set && v.kind == kScalar {
				out = append(out, n+"="+v.str)
			}
		}
	}
	for n, a := range r.funcAttr {
		if body, ok := r.funcs[n]; ok && strings.Contains(a, "x") {
			out = append(out, "BASH_FUNC_"+n+"%%="+exportedFunc(n, body))
		}
	}
	sort.Strings(out)
	return out
}

// exportedFunc is a function's text as bash exports it: "() {  cmd\n}".
func exportedFunc(name string, body *syntax.Stmt) string {
	lines := strings.Split(strings.TrimSuffix(funcText(name, body), "\n"), "\n")
	if len(lines) < 4 || lines[1] != "{ " {
		return "() " + strings.Join(lines[1:], "\n")
	}
	inner := lines[2 : len(lines)-1]
	for i, l := range inner {
		inner[i] = " " + strings.TrimLeft(l, " ")
	}
	return "() { " + strings.Join(inner, "\n") + "\n" + lines[len(lines)-1]
}
