package interp

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// call runs a simple command.
func (r *Runner) call(c *syntax.CallExpr) error {
	r.globN = 0
	if err := r.checkBraces(c.Args, c.Assigns); err != nil {
		return err
	}
	if len(c.Args) == 0 {
		// $? in the values is the previous command's; the status is the
		// last command substitution's, else 0
		runs := r.substRuns
		for _, a := range c.Assigns {
			if err := r.assignStmt(a, false, ""); err != nil {
				return r.assignErr(err)
			}
			if r.opts["xtrace"] && a.Index == nil {
				if a.Array != nil {
					var q []string
					if v := r.lookup(a.Name.Value); v != nil {
						for _, x := range v.values() {
							q = append(q, traceQuote(x))
						}
					}
					r.trace([]string{a.Name.Value + "=(" + strings.Join(q, " ") + ")"}, true)
				} else {
					r.trace([]string{a.Name.Value + "=" + traceQuote(r.getStr(a.Name.Value))}, true)
				}
			}
		}
		if r.substRuns == runs {
			r.status = 0
		}
		return nil
	}
	if r.opts["keyword"] && len(c.Args) > 1 {
		c = keywordAssigns(c)
	}
	if r.shopts["expand_aliases"] && len(r.aliases) > 0 {
		if name := c.Args[0].Lit(); name != "" && r.aliases[name] != "" && !r.inAlias[name] {
			restore, ok, err := r.applyPending()
			if !ok {
				return err
			}
			defer restore()
			return r.runAlias(name, c)
		}
	}
	st := r.status
	pending := r.pendingRedirs
	r.pendingRedirs = nil
	args, err := r.args(c.Args...)
	r.pendingRedirs = pending
	if err != nil {
		if nm, ok := err.(errNoMatch); ok {
			r.errf("%s", nm.Error())
			r.status = 1
			return exitCode(1)
		}
		return r.expErr(err)
	}
	_ = st
	if r.opts["xtrace"] && len(args) > 0 {
		// bash traces a command before it performs its redirections
		r.trace(args, false)
	}
	restore, ok, rerr := r.applyPending()
	if !ok {
		return rerr
	}
	defer restore()
	if len(args) == 0 {
		r.status = 0
		for _, a := range c.Assigns {
			if err := r.assignStmt(a, false, ""); err != nil {
				return r.assignErr(err)
			}
		}
		return nil
	}
	if len(c.Assigns) > 0 {
		tmp := &scope{vars: map[string]*Var{}}
		vals := make([]string, len(c.Assigns))
		for i, a := range c.Assigns {
			v := ""
			if a.Value != nil {
				if v, err = r.literal(a.Value); err != nil {
					return r.expErr(err)
				}
			}
			vals[i] = v
		}
		r.scopes = append(r.scopes, tmp)
		for i, a := range c.Assigns {
			if a.Array != nil || a.Index != nil {
				continue
			}
			name := a.Name.Value
			old := r.lookupRaw(name)
			if old != nil && old.ro {
				r.scopes = r.scopes[:len(r.scopes)-1]
				r.errf("%s: readonly variable", name)
				r.status = 1
				return nil
			}
			v := &Var{set: true, export: true}
			if a.Append && old != nil {
				v.str = old.str
			}
			v.str += vals[i]
			tmp.vars[name] = v
		}
		defer func() {
			// the temporary scope is the top one unless a function call
			// left more (it cannot: calls pop theirs)
			for i := len(r.scopes) - 1; i > 0; i-- {
				if r.scopes[i] == tmp {
					r.scopes = append(r.scopes[:i:i], r.scopes[i+1:]...)
					break
				}
			}
		}()
	}
	return r.run(args)
}

func (r *Runner) trace(args []string, raw bool) {
	ps4, ok := r.getVar("PS4")
	if !ok {
		ps4 = "+ "
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if !raw {
			q[i] = traceQuote(a)
		}
	}
	fmt.Fprintf(r.stderr(), "%s%s\n", ps4, strings.Join(q, " "))
}

func traceQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.ContainsAny(s, " \t\n'\"\\$`*?[]|&;<>(){}!#~") {
		return shellQuote(s)
	}
	return s
}

func (r *Runner) assignErr(err error) error {
	switch e := err.(type) {
	case errReadonly:
		r.errf("%v", e)
		r.status = 1
		return discard(1)
	case errInvalidName, errBadSubscript:
		r.errf("%v", e)
		r.status = 1
		return nil
	case errArith:
		r.errf("%v", e)
		r.status = 1
		return discard(1)
	case errSubArith:
		r.errf("%v", e.errArith)
		r.status = 1
		return exitCode(1)
	}
	return r.expErr(err)
}

// runAlias runs a command whose name is an alias: the alias's text and
// the rest of the words, parsed again (the alias is not expanded inside
// itself).
func (r *Runner) runAlias(name string, c *syntax.CallExpr) error {
	text := r.aliases[name]
	for _, w := range c.Args[1:] {
		text += " " + printNode(w)
	}
	f, parsed, ok := r.parseReported(text, "alias", "alias")
	if !ok {
		return nil
	}
	if r.inAlias == nil {
		r.inAlias = map[string]bool{}
	}
	r.inAlias[name] = true
	defer delete(r.inAlias, name)
	old := r.src
	r.src = parsed
	defer func() { r.src = old }()
	return r.stmts(f.Stmts)
}

// run runs a command by its expanded arguments.
func (r *Runner) run(args []string) error {
	n := r.sh.commands.Add(1)
	if m := r.cfg.Limits.MaxCommands; m > 0 && n > m {
		return r.limit("MaxCommands", m)
	}
	if err := r.check(); err != nil {
		return err
	}
	name := args[0]
	defer func() { r.lastArg = args[len(args)-1] }()
	if body, ok := r.funcs[name]; ok {
		return r.callFunc(name, body, args[1:])
	}
	if b, ok := builtins[name]; ok {
		return b(r, args)
	}
	return r.external(args)
}

// external runs a command through Config.Exec.
func (r *Runner) external(args []string) error {
	if r.cfg.Exec == nil || !strings.Contains(args[0], "/") && r.cfg.HasCommand != nil && !r.cfg.HasCommand(args[0]) {
		r.errf("%s: command not found", args[0])
		r.status = 127
		return nil
	}
	f0 := r.fds[0]
	c := &Call{
		Args:    args,
		Dir:     r.dir,
		Stdin:   r.stdin(),
		NoStdin: f0 == nil || f0.noStdin,
		Stdout:  r.stdout(),
		Stderr:  r.stderr(),
		Environ: r.environ(),
		Prefix:  r.prefix(),
		Fd: func(n int) io.Reader {
			if f := r.fds[n]; f != nil && f.r != nil {
				return f.r
			}
			return nil
		},
		Sub:     r.subScript,
		SubFile: r.subScriptFile,
	}
	if f0 == nil {
		c.Stdin = eofReader{}
	}
	r.status = r.cfg.Exec(r.ctx, c)
	if err := r.check(); err != nil {
		return err
	}
	return nil
}

// subScriptFile runs src, read from the file args[0], in a child
// interpreter (bash file).
func (r *Runner) subScriptFile(ctx context.Context, c *Call, src string, args []string) int {
	return r.subScriptAs(ctx, c, src, args, args[0])
}

// subScript runs src in a child interpreter (bash -c): a fresh shell with
// the call's environment and files.
func (r *Runner) subScript(ctx context.Context, c *Call, src string, args []string) int {
	return r.subScriptAs(ctx, c, src, args, "")
}

func (r *Runner) subScriptAs(ctx context.Context, c *Call, src string, args []string, file string) int {
	cfg := *r.cfg
	cfg.Script = file
	cfg.Stdin, cfg.Stdout, cfg.Stderr = c.Stdin, c.Stdout, c.Stderr
	if c.NoStdin {
		cfg.Stdin = nil
	}
	cfg.Dir, cfg.Env = c.Dir, c.Environ
	cfg.Name, cfg.Args = "bash", nil
	if len(args) > 0 {
		cfg.Name, cfg.Args = args[0], args[1:]
	}
	if err := r.chargeText(len(src)); err != nil {
		return 1
	}
	defer r.chargeText(-len(src))
	if err := r.enter(); err != nil {
		return 1
	}
	defer r.leave()
	// the child's $$ is its own, so that kill $$ ends it alone
	cfg.Pid = int(r.sh.nextPid.Add(1))
	child := New(ctx, &cfg)
	child.sh = r.sh
	child.pid = cfg.Pid
	child.scopes[0].vars["PPID"] = &Var{set: true, str: strconv.Itoa(r.pid)}
	r.sh.procs.add(child.pid, &proc{r: child})
	defer r.sh.procs.remove(child.pid)
	st, ferr := child.RunSource(src)
	if ferr != nil {
		return 1
	}
	if child.killedBy != 0 {
		// reported once the statement's redirections are undone
		r.killReport, r.killPid = child.killedBy, child.pid
	}
	return st
}

// keywordAssigns is c under set -k: the assignment words among its
// arguments are assignments of its environment.
func keywordAssigns(c *syntax.CallExpr) *syntax.CallExpr {
	var moved []*syntax.Assign
	args := c.Args[:1:1]
	for _, w := range c.Args[1:] {
		l, ok := w.Parts[0].(*syntax.Lit)
		name, val, isAssign := "", "", false
		if ok {
			name, val, isAssign = strings.Cut(l.Value, "=")
		}
		if !isAssign || !validName(name) {
			args = append(args, w)
			continue
		}
		parts := append([]syntax.WordPart{}, w.Parts[1:]...)
		if val != "" {
			parts = append([]syntax.WordPart{&syntax.Lit{ValuePos: l.ValuePos, ValueEnd: l.ValueEnd, Value: val}}, parts...)
		}
		a := &syntax.Assign{Name: &syntax.Lit{ValuePos: l.ValuePos, Value: name}}
		if len(parts) > 0 {
			a.Value = &syntax.Word{Parts: parts}
		}
		moved = append(moved, a)
	}
	if len(moved) == 0 {
		return c
	}
	nc := *c
	nc.Assigns = append(append([]*syntax.Assign(nil), c.Assigns...), moved...)
	nc.Args = args
	return &nc
}

// callFunc runs a function.
func (r *Runner) callFunc(name string, body *syntax.Stmt, args []string) error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	oldParams := r.params
	r.params = args
	r.scopes = append(r.scopes, &scope{vars: map[string]*Var{}})
	r.frames = append(r.frames, frame{name: name, file: r.funcFile[name], line: r.line, fn: true})
	oldSrc := r.src
	if s, ok := r.funcSrc[name]; ok {
		r.src = s
	}
	// the DEBUG and RETURN traps are the function's own unless it is
	// traced; one it sets stays set
	var saved map[string]string
	if !r.traced(name) {
		for _, k := range []string{"RETURN", "DEBUG"} {
			if t, ok := r.traps[k]; ok {
				if saved == nil {
					saved = map[string]string{}
				}
				saved[k] = t
				r.setTrap(k, nil)
			}
		}
	} else if t, ok := r.traps["DEBUG"]; ok && !r.inTrap {
		if err := r.runTrap(t); err != nil {
			return err
		}
	}
	r.inFunc++
	err := r.stmt(body)
	r.inFunc--
	r.src = oldSrc
	r.frames = r.frames[:len(r.frames)-1]
	top := r.scopes[len(r.scopes)-1]
	for _, v := range top.vars {
		r.charge(-v.size())
	}
	r.scopes = r.scopes[:len(r.scopes)-1]
	r.params = oldParams
	_, isRet := err.(returnCtl)
	if isRet {
		err = nil
	}
	if t, ok := r.traps["RETURN"]; ok && err == nil && !r.inTrap {
		r.returnTrap(t, isRet)
	}
	for k, t := range saved {
		if _, now := r.traps[k]; !now {
			r.setTrap(k, &t)
		}
	}
	return err
}

// assignStmt runs one assignment (x=v, x+=v, x[i]=v, x=(...)). attrs are
// declare's (-a / -A) for an array value.
func (r *Runner) assignStmt(a *syntax.Assign, local bool, attrs string) error {
	name := a.Name.Value
	if a.Array != nil {
		return r.assignArray(name, a.Array, a.Append, local, strings.Contains(attrs, "A"))
	}
	val := ""
	if a.Value != nil {
		var err error
		if val, err = r.literal(a.Value); err != nil {
			return err
		}
	}
	if a.Index != nil {
		k, err := r.indexKey(name, a.Index)
		if ae, ok := err.(errArith); ok {
			return errSubArith{ae}
		}
		if err != nil {
			return err
		}
		return r.assign(name, &k, val, a.Append, local)
	}
	return r.assign(name, nil, val, a.Append, local)
}

// errSubArith is an arithmetic error of an assignment's subscript
// (a[1/0]=v): it ends the shell, where one of the value discards the
// command.
type errSubArith struct{ errArith }

// indexKey evaluates the subscript of an assignment: the key of an
// associative array, else an arithmetic index.
func (r *Runner) indexKey(name string, x syntax.ArithmExpr) (string, error) {
	if v := r.lookup(name); v != nil && v.kind == kAssoc {
		return r.subscript(name, x)
	}
	n, err := r.arith(x)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(n, 10), nil
}

// assignArray is name=(...) and name+=(...).
func (r *Runner) assignArray(name string, arr *syntax.ArrayExpr, app, local, assoc bool) error {
	v := r.varFor(name, local)
	if v.ro {
		return errReadonly{name}
	}
	before := v.size()
	if assoc && v.kind != kAssoc {
		*v = Var{kind: kAssoc, set: true, export: v.export, local: v.local, assoc: map[string]string{}}
	}
	if v.kind == kAssoc {
		if !app {
			v.assoc, v.keys = map[string]string{}, nil
		}
		v.set = true
		var pend []string
		for _, el := range arr.Elems {
			if el.Index != nil {
				k, err := r.subscriptWord(el.Index)
				if err != nil {
					return err
				}
				val, err := r.literal(el.Value)
				if err != nil {
					return err
				}
				if app && false {
					val = v.assoc[k] + val
				}
				v.setAssoc(k, v.transform(val))
				continue
			}
			fs, err := r.fields(el.Value)
			if err != nil {
				return err
			}
			pend = append(pend, fs...)
		}
		for i := 0; i < len(pend); i += 2 {
			val := ""
			if i+1 < len(pend) {
				val = pend[i+1]
			}
			v.setAssoc(pend[i], v.transform(val))
		}
		return r.charge(v.size() - before)
	}
	// indexed: evaluate every element before assigning
	type kv struct {
		idx   int64
		hasIx bool
		vals  []string
	}
	var items []kv
	for _, el := range arr.Elems {
		if el.Index != nil {
			n, err := r.arith(el.Index)
			if err != nil {
				return err
			}
			val := ""
			if el.Value != nil {
				if val, err = r.literal(el.Value); err != nil {
					return err
				}
			}
			items = append(items, kv{idx: n, hasIx: true, vals: []string{val}})
			continue
		}
		fs, err := r.fields(el.Value)
		if err != nil {
			return err
		}
		items = append(items, kv{vals: fs})
	}
	if !app || v.kind != kIndexed {
		if app && v.kind == kScalar && v.set {
			v.toIndexed()
		} else if !app {
			v.kind, v.idx, v.str = kIndexed, map[int]string{}, ""
		} else {
			v.toIndexed()
		}
	}
	v.set = true
	next := int64(v.maxIndex() + 1)
	for _, it := range items {
		if it.hasIx {
			i := it.idx
			if i < 0 {
				i += int64(v.maxIndex() + 1)
				if i < 0 {
					return errBadSubscript{name, strconv.FormatInt(it.idx, 10)}
				}
			}
			v.idx[int(i)] = v.transform(it.vals[0])
			next = i + 1
			continue
		}
		for _, s := range it.vals {
			v.idx[int(next)] = v.transform(s)
			next++
		}
	}
	if v.integ {
		for k, s := range v.idx {
			n, err := r.arithString(s)
			if err != nil {
				return err
			}
			v.idx[k] = strconv.FormatInt(n, 10)
		}
	}
	return r.charge(v.size() - before)
}

func (r *Runner) subscriptWord(x syntax.ArithmExpr) (string, error) {
	if w, ok := x.(*syntax.Word); ok {
		return r.literal(w)
	}
	return r.nodeText(x), nil
}

// declClause is declare, typeset, local, export, readonly, nameref.
func (r *Runner) declClause(c *syntax.DeclClause) error {
	variant := c.Variant.Value
	r.globN = 0
	if err := r.checkBraces(nil, c.Args); err != nil {
		return err
	}
	var flags []string
	type op struct {
		a    *syntax.Assign
		text string // a computed "name=value" or "name"
	}
	var ops []op
	for _, a := range c.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			fs, err := r.fields(a.Value)
			if err != nil {
				return r.expErr(err)
			}
			for _, f := range fs {
				if len(ops) == 0 && (strings.HasPrefix(f, "-") || strings.HasPrefix(f, "+")) && f != "-" && f != "+" {
					flags = append(flags, f)
				} else {
					ops = append(ops, op{text: f})
				}
			}
			continue
		}
		ops = append(ops, op{a: a})
	}
	st := 0
	set := map[byte]bool{}
	unset := map[byte]bool{}
	for _, f := range flags {
		if f == "--" {
			continue
		}
		for i := 1; i < len(f); i++ {
			ch := f[i]
			if !strings.ContainsRune("aAilunrxgpfFtI", rune(ch)) {
				r.errf("%s: %s: invalid option", variant, f[:1]+string(ch))
				fmt.Fprintf(r.stderr(), "%s: usage: %s\n", variant, declUsage(variant))
				r.status = 2
				return nil
			}
			if f[0] == '-' {
				set[ch] = true
			} else {
				unset[ch] = true
			}
		}
	}
	switch variant {
	case "export":
		if !unset['x'] {
			set['x'] = true
		}
		if set['n'] {
			delete(set, 'n')
			delete(set, 'x')
			unset['x'] = true
		}
	case "readonly":
		set['r'] = true
	case "nameref":
		set['n'] = true
	}
	local := (variant == "local" || variant == "declare" || variant == "typeset") && !set['g'] && len(r.scopes) > 1
	if variant == "local" && r.inFunc == 0 {
		r.errf("local: can only be used in a function")
		r.status = 1
		return nil
	}
	if set['f'] || set['F'] {
		names := ops2names(ops, func(o op) string {
			if o.a != nil {
				return o.a.Name.Value
			}
			return o.text
		})
		if len(names) > 0 && (set['t'] || set['x'] || set['r'] || unset['t'] || unset['x']) && !set['p'] {
			return r.setFuncAttrs(names, set, unset)
		}
		return r.declFuncs(names, set['F'], set['p'])
	}
	if len(ops) == 0 && variant == "local" && !set['p'] {
		sc := r.scopes[len(r.scopes)-1]
		var names []string
		for n, v := range sc.vars {
			if v.set {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			v := sc.vars[n]
			if v.kind == kScalar {
				fmt.Fprintf(r.stdout(), "%s=%s\n", n, setQuote(v.str))
			} else {
				fmt.Fprintln(r.stdout(), strings.TrimPrefix(r.declareLine(n, v), "declare -"+v.flags()+" "))
			}
		}
		r.status = 0
		return nil
	}
	if len(ops) == 0 && (set['p'] || len(flags) == 0 || variant == "export" || variant == "readonly") {
		return r.declPrintAll(variant, set)
	}
	for _, o := range ops {
		a := o.a
		if a == nil {
			name, val, hasVal := strings.Cut(o.text, "=")
			appendv := false
			if strings.HasSuffix(name, "+") && hasVal {
				name, appendv = name[:len(name)-1], true
			}
			var idx syntax.ArithmExpr
			if i := strings.IndexByte(name, '['); i > 0 && strings.HasSuffix(name, "]") {
				x, err := parseArith(name[i+1 : len(name)-1])
				if err == nil {
					idx = x
				}
				name = name[:i]
			}
			if !validName(name) {
				r.errf("%s: `%s': not a valid identifier", variant, o.text)
				st = 1
				continue
			}
			a = &syntax.Assign{Name: &syntax.Lit{Value: name}, Naked: !hasVal, Append: appendv, Index: idx}
			if hasVal {
				if strings.HasPrefix(val, "(") && strings.HasSuffix(val, ")") && (set['a'] || set['A']) {
					f, err := Parse(name+"="+val, "")
					if err == nil && len(f.Stmts) == 1 {
						if ce, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(ce.Assigns) == 1 {
							a = ce.Assigns[0]
						}
					}
				} else {
					a.Value = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: val}}}
				}
			}
		}
		name := a.Name.Value
		if set['p'] {
			v := r.lookupRaw(name)
			if v == nil {
				r.errf("%s: %s: not found", variant, name)
				st = 1
				continue
			}
			fmt.Fprintln(r.stdout(), r.declareLine(name, v))
			continue
		}
		declOne := r.declOne
		if set['g'] && len(r.scopes) > 1 {
			// -g: the global, past any local of the same name
			declOne = func(a *syntax.Assign, set, unset map[byte]bool, local bool, variant string) error {
				saved := r.scopes
				r.scopes = r.scopes[:1]
				defer func() { r.scopes = saved }()
				return r.declOne(a, set, unset, false, variant)
			}
		}
		if err := declOne(a, set, unset, local, variant); err != nil {
			switch e := err.(type) {
			case errReadonly, errInvalidName, errBadSubscript, errConvert:
				r.errf("%s: %v", variant, e)
				st = 1
				continue
			}
			if _, ok := err.(errArith); ok {
				return r.expErr(err)
			}
			return r.expErr(err)
		}
	}
	r.status = st
	return nil
}

// errConvert is declare's refusal to change an array's kind.
type errConvert struct{ msg string }

func (e errConvert) Error() string { return e.msg }

func ops2names[T any](ops []T, f func(T) string) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = f(o)
	}
	return out
}

func declUsage(v string) string {
	switch v {
	case "local":
		return "local [option] name[=value] ..."
	case "export":
		return "export [-fn] [name[=value] ...] or export -p"
	case "readonly":
		return "readonly [-aAf] [name[=value] ...] or readonly -p"
	}
	return v + " [-aAfFgiIlnrtux] [name[=value] ...] or " + v + " -p [-aAfFilnrtux] [name ...]"
}

// declOne declares one name with attributes and maybe a value.
func (r *Runner) declOne(a *syntax.Assign, set, unset map[byte]bool, local bool, variant string) error {
	name := a.Name.Value
	var v *Var
	if set['n'] {
		// the nameref itself, not its target
		if local {
			sc := r.scopes[len(r.scopes)-1]
			if v = sc.vars[name]; v == nil {
				v = &Var{local: true}
				sc.vars[name] = v
			}
		} else if v = r.lookupRaw(name); v == nil {
			v = &Var{}
			r.scopes[0].vars[name] = v
		}
		if v.ro {
			return errReadonly{name}
		}
		v.ref = true
		if a.Value != nil {
			t, err := r.literal(a.Value)
			if err != nil {
				return err
			}
			v.str, v.set = t, true
		}
		return nil
	}
	if local {
		sc := r.scopes[len(r.scopes)-1]
		if _, ok := sc.vars[r.resolveRef(name)]; !ok {
			nv := &Var{local: true}
			// local without a value: inherits nothing (bash: unset), but
			// local -x etc. keep going
			sc.vars[r.resolveRef(name)] = nv
		}
		v = sc.vars[r.resolveRef(name)]
	} else {
		v = r.varFor(name, false)
	}
	if v.ro && (a.Value != nil || a.Array != nil || unset['r']) {
		return errReadonly{name}
	}
	if set['a'] && v.kind == kAssoc {
		return errConvert{name + ": cannot convert associative to indexed array"}
	}
	if set['a'] && v.kind == kScalar {
		v.toIndexed()
		if !v.set {
			v.set = true
		}
	}
	if set['A'] && v.kind != kAssoc {
		if v.kind == kIndexed && len(v.idx) > 0 {
			return errConvert{name + ": cannot convert indexed to associative array"}
		}
		*v = Var{kind: kAssoc, set: true, assoc: map[string]string{}, export: v.export, local: v.local}
	}
	if set['i'] {
		v.integ = true
	}
	if unset['i'] {
		v.integ = false
	}
	if set['l'] {
		v.lower, v.upper = true, false
	}
	if set['u'] {
		v.upper, v.lower = true, false
	}
	if unset['l'] {
		v.lower = false
	}
	if unset['u'] {
		v.upper = false
	}
	if set['x'] {
		v.export = true
	}
	if unset['x'] {
		v.export = false
	}
	if unset['n'] {
		v.ref = false
	}
	if set['t'] {
		v.trace = true
	}
	if unset['t'] {
		v.trace = false
	}
	if a.Array == nil && a.Value != nil && a.Index == nil && (set['a'] || set['A'] || v.kind != kScalar) {
		// declare -a x='(1 2)': a quoted compound value is one too
		if t, err := r.literal(a.Value); err == nil && strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") {
			if f, perr := Parse(name+"="+t, ""); perr == nil && len(f.Stmts) == 1 {
				if ce, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(ce.Assigns) == 1 && ce.Assigns[0].Array != nil {
					a = ce.Assigns[0]
				}
			}
		}
	}
	if a.Array != nil {
		attrs := ""
		if set['A'] || v.kind == kAssoc {
			attrs = "A"
		}
		if err := r.assignArrayVar(v, name, a, attrs); err != nil {
			return err
		}
	} else if a.Value != nil {
		val, err := r.literal(a.Value)
		if err != nil {
			return err
		}
		var key *string
		if a.Index != nil {
			k, err := r.indexKey(name, a.Index)
			if err != nil {
				return err
			}
			key = &k
		}
		if local {
			// assign into this scope's variable
			if err := r.assign(name, key, val, a.Append, true); err != nil {
				return err
			}
		} else if err := r.assign(name, key, val, a.Append, false); err != nil {
			return err
		}
	}
	if set['r'] {
		v.ro = true
	}
	return nil
}

func (r *Runner) assignArrayVar(v *Var, name string, a *syntax.Assign, attrs string) error {
	ro := v.ro
	v.ro = false
	defer func() { v.ro = ro }()
	local := v.local && len(r.scopes) > 1
	return r.assignArray(name, a.Array, a.Append, local, attrs == "A")
}

// flags are a variable's attributes as ${x@a} and declare -p give them.
func (v *Var) flags() string {
	var b strings.Builder
	switch v.kind {
	case kIndexed:
		b.WriteByte('a')
	case kAssoc:
		b.WriteByte('A')
	}
	// bash's order: a A i n r t x c l u
	for _, f := range [...]struct {
		on     bool
		letter byte
	}{{v.integ, 'i'}, {v.ref, 'n'}, {v.ro, 'r'}, {v.trace, 't'}, {v.export, 'x'}, {v.lower, 'l'}, {v.upper, 'u'}} {
		if f.on {
			b.WriteByte(f.letter)
		}
	}
	return b.String()
}

// declareLine is one line of declare -p.
func (r *Runner) declareLine(name string, v *Var) string {
	f := v.flags()
	if f == "" {
		f = "-"
	}
	head := "declare -" + f + " " + name
	if !v.set && v.kind == kScalar {
		return head
	}
	if v.ref {
		return head + "=" + declQuote(v.str)
	}
	switch v.kind {
	case kIndexed:
		var b strings.Builder
		b.WriteString(head + "=(")
		for i, k := range v.indexes() {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "[%d]=%s", k, declQuote(v.idx[k]))
		}
		b.WriteString(")")
		return b.String()
	case kAssoc:
		var b strings.Builder
		b.WriteString(head + "=(")
		for _, k := range v.keys {
			fmt.Fprintf(&b, "[%s]=%s ", declKey(k), declQuote(v.assoc[k]))
		}
		b.WriteString(")")
		return b.String()
	}
	return head + "=" + declQuote(v.str)
}

func declKey(k string) string {
	if k != "" && !strings.ContainsAny(k, " \t\n'\"\\$`*?[]|&;<>(){}!#~=") {
		return k
	}
	return declQuote(k)
}

// declQuote quotes a value as declare -p does: "..." with \ before " \ $ `;
// $'...' when it holds control characters.
func declQuote(s string) string {
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return dollarQuote(s)
		}
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		if c == '"' || c == '\\' || c == '$' || c == '`' {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('"')
	return b.String()
}

// visibleVars is every variable a lookup reaches (the innermost scope's
// where a name is in several) and their names, sorted: what set and
// declare -p list.
func (r *Runner) visibleVars() (map[string]*Var, []string) {
	names := map[string]*Var{}
	for i := len(r.scopes) - 1; i >= 0; i-- {
		for n, v := range r.scopes[i].vars {
			if _, ok := names[n]; !ok {
				names[n] = v
			}
		}
	}
	keys := make([]string, 0, len(names))
	for n := range names {
		keys = append(keys, n)
	}
	sort.Strings(keys)
	return names, keys
}

func (r *Runner) declPrintAll(variant string, set map[byte]bool) error {
	names, keys := r.visibleVars()
	w := r.stdout()
	for _, n := range keys {
		v := names[n]
		switch {
		case variant == "export" || set['x']:
			if !v.export {
				continue
			}
		case variant == "readonly" || set['r']:
			if !v.ro {
				continue
			}
		case set['a'] && v.kind != kIndexed, set['A'] && v.kind != kAssoc, set['i'] && !v.integ:
			continue
		}
		if !set['p'] && variant == "declare" && len(set) == 0 {
			// plain declare: name=value like set
			if v.kind == kScalar && v.set {
				fmt.Fprintf(w, "%s=%s\n", n, setQuote(v.str))
			} else if v.kind != kScalar {
				fmt.Fprintln(w, strings.TrimPrefix(r.declareLine(n, v), "declare -"+v.flags()+" "))
			}
			continue
		}
		fmt.Fprintln(w, r.declareLine(n, v))
	}
	r.status = 0
	return nil
}

// setFuncAttrs is declare -f[rtx] names: the attributes of functions.
func (r *Runner) setFuncAttrs(names []string, set, unset map[byte]bool) error {
	st := 0
	for _, n := range names {
		if _, ok := r.funcs[n]; !ok {
			st = 1
			continue
		}
		if r.funcAttr == nil {
			r.funcAttr = map[string]string{}
		}
		has := func(c byte) bool { return strings.IndexByte(r.funcAttr[n], c) >= 0 }
		var b strings.Builder
		for _, c := range []byte("rtx") {
			if (has(c) || set[c]) && !(unset[c] && c != 'r') {
				b.WriteByte(c)
			}
		}
		r.funcAttr[n] = b.String()
		if r.funcTrace == nil {
			r.funcTrace = map[string]bool{}
		}
		r.funcTrace[n] = has('t')
	}
	r.status = st
	return nil
}

func (r *Runner) declFuncs(names []string, onlyNames, p bool) error {
	listAll := len(names) == 0
	if len(names) == 0 {
		for n := range r.funcs {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	st := 0
	for _, n := range names {
		body, ok := r.funcs[n]
		if !ok {
			st = 1
			continue
		}
		if onlyNames {
			if listAll || p {
				fmt.Fprintf(r.stdout(), "declare -f%s %s\n", r.funcAttr[n], n)
			} else {
				fmt.Fprintln(r.stdout(), n)
			}
			continue
		}
		fmt.Fprint(r.stdout(), funcText(n, body))
		if a := r.funcAttr[n]; a != "" && listAll {
			fmt.Fprintf(r.stdout(), "declare -f%s %s\n", a, n)
		}
	}
	r.status = st
	return nil
}

// setQuote quotes a value as set prints it.
func setQuote(s string) string {
	if s == "" {
		return "''"
	}
	if !strings.ContainsAny(s, " \t\n'\"\\$`*?[]|&;<>(){}!#~=") {
		return s
	}
	return shellQuote(s)
}

var _ = io.Discard
