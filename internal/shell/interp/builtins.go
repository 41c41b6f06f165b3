package interp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/syntax"

	pf "github.com/desk-dev/desk/internal/shell/printf"
)

type builtin func(r *Runner, args []string) error

var builtins map[string]builtin

// Builtins lists the builtin names (for type, command -v and routing).
func Builtins() []string {
	out := make([]string, 0, len(builtins))
	for n := range builtins {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var keywords = map[string]bool{"if": true, "then": true, "else": true, "elif": true, "fi": true, "case": true, "esac": true, "for": true, "select": true, "while": true, "until": true, "do": true, "done": true, "in": true, "function": true, "time": true, "{": true, "}": true, "!": true, "[[": true, "]]": true, "coproc": true}

func init() {
	builtins = map[string]builtin{
		":":         func(r *Runner, a []string) error { r.status = 0; return nil },
		"true":      func(r *Runner, a []string) error { r.status = 0; return nil },
		"false":     func(r *Runner, a []string) error { r.status = 1; return nil },
		"echo":      biEcho,
		"printf":    biPrintfNative,
		"cd":        biCd,
		"pwd":       biPwd,
		"exit":      biExit,
		"return":    biReturn,
		"break":     biBreak,
		"continue":  biBreak,
		"shift":     biShift,
		"set":       biSet,
		"unset":     biUnset,
		"eval":      biEval,
		"source":    biSource,
		".":         biSource,
		"test":      biTest,
		"[":         biTest,
		"read":      biRead,
		"mapfile":   biMapfile,
		"readarray": biMapfile,
		"getopts":   biGetopts,
		"let":       biLet,
		"type":      biType,
		"command":   biCommand,
		"builtin":   biBuiltin,
		"trap":      biTrap,
		"wait":      biWait,
		"shopt":     biShopt,
		"alias":     biAlias,
		"unalias":   biUnalias,
		"pushd":     biPushd,
		"popd":      biPopd,
		"dirs":      biDirs,
		"umask":     biUmask,
		"times": func(r *Runner, a []string) error {
			fmt.Fprint(r.stdout(), "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n")
			r.status = 0
			return nil
		},
		"caller": biCaller,
		"history": func(r *Runner, a []string) error {
			// a bash -c shell keeps no history: the list is empty
			r.status = 0
			return nil
		},
		"hash": func(r *Runner, a []string) error {
			if len(a) == 1 {
				fmt.Fprintln(r.stdout(), "hash: hash table empty")
			}
			r.status = 0
			return nil
		},
		"enable":   func(r *Runner, a []string) error { r.status = 0; return nil },
		"exec":     biExec,
		"kill":     biKill,
		"jobs":     func(r *Runner, a []string) error { r.status = 0; return nil },
		"disown":   func(r *Runner, a []string) error { r.status = 0; return nil },
		"declare":  biDeclare,
		"typeset":  biDeclare,
		"local":    biDeclare,
		"export":   biDeclare,
		"readonly": biDeclare,
		"ulimit":   func(r *Runner, a []string) error { fmt.Fprintln(r.stdout(), "unlimited"); r.status = 0; return nil },
	}
}

func (r *Runner) usageErr(name, msg string, st int) error {
	r.errf("%s: %s", name, msg)
	r.status = st
	return nil
}

// biDeclare runs declare and friends called through a computed name.
func biDeclare(r *Runner, args []string) error {
	dc := &syntax.DeclClause{Variant: &syntax.Lit{Value: args[0]}}
	for _, a := range args[1:] {
		dc.Args = append(dc.Args, &syntax.Assign{Naked: true, Value: &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: a}}}})
	}
	return r.declClause(dc)
}

func biEcho(r *Runner, args []string) error {
	args, nl, esc := pf.EchoOptions(args[1:], r.shopts["xpg_echo"])
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if esc {
			s, stop := echoEscapes(a)
			b.WriteString(s)
			if stop {
				nl = false
				break
			}
			continue
		}
		b.WriteString(a)
	}
	if nl {
		b.WriteByte('\n')
	}
	_, err := io.WriteString(r.stdout(), b.String())
	r.status = 0
	if err != nil {
		if err == errWriteLimit {
			r.status = 1
			return nil
		}
		if errors.Is(err, syscall.EPIPE) && r.subshell > 0 {
			// bash dies of SIGPIPE
			return exitCode(141)
		}
		r.errf("echo: write error: %s", errText(err))
		r.status = 1
	}
	return nil
}

// echoEscapes decodes echo -e's escapes; stop is \c.
func echoEscapes(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, false
	}
	if i := strings.Index(s, `\c`); i >= 0 {
		out, _ := echoEscapes(s[:i])
		return out, true
	}
	// \0nnn is octal in echo; reuse $'...' otherwise
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '0' {
			j := i + 2
			for j < len(s) && j < i+5 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint("0"+s[i+2:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
			continue
		}
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`'"?`, s[i+1]) >= 0 {
			b.WriteString(s[i : i+2])
			i++
			continue
		}
		j := i
		for j < len(s) && !(s[j] == '\\' && j+1 < len(s) && (s[j+1] == '0' || strings.IndexByte(`'"?`, s[j+1]) >= 0)) {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		j = min(j, len(s))
		b.WriteString(ansiC(s[i:j]))
		i = j - 1
	}
	return b.String(), false
}

func biCd(r *Runner, args []string) error {
	args = args[1:]
	phys := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		if args[0] == "-P" {
			phys = true
		} else if args[0] != "-L" {
			return r.usageErr("cd", args[0]+": invalid option", 2)
		}
		args = args[1:]
	}
	_ = phys
	var dir string
	switch len(args) {
	case 0:
		h, ok := r.getVar("HOME")
		if !ok {
			return r.usageErr("cd", "HOME not set", 1)
		}
		dir = h
	case 1:
		dir = args[0]
	default:
		return r.usageErr("cd", "too many arguments", 1)
	}
	printDir := false
	if dir == "-" {
		o, ok := r.getVar("OLDPWD")
		if !ok {
			return r.usageErr("cd", "OLDPWD not set", 1)
		}
		dir, printDir = o, true
	}
	if dir == "" {
		r.status = 0
		return nil
	}
	abs := r.abs(dir)
	fi, err := r.statPath(abs, true)
	if err != nil {
		return r.usageErr("cd", dir+": "+errText(err), 1)
	}
	if !fi.IsDir() {
		return r.usageErr("cd", dir+": Not a directory", 1)
	}
	r.setStr("OLDPWD", r.dir)
	r.dir = abs
	if v := r.lookup("PWD"); v != nil {
		v.str, v.set = abs, true
	} else {
		r.scopes[0].vars["PWD"] = &Var{set: true, str: abs, export: true}
	}
	if printDir {
		fmt.Fprintln(r.stdout(), abs)
	}
	r.status = 0
	return nil
}

func biPwd(r *Runner, args []string) error {
	if len(args) > 1 && r.cfg.HasCommand != nil && r.cfg.HasCommand("pwd") {
		// -P resolves links: the command does it on the store
		return r.external(args)
	}
	fmt.Fprintln(r.stdout(), r.dir)
	r.status = 0
	return nil
}

func biExit(r *Runner, args []string) error {
	st := r.status
	if len(args) > 1 {
		n, err := strconv.Atoi(args[1])
		if err != nil {
			r.errf("exit: %s: numeric argument required", args[1])
			return exitCode(2)
		}
		if len(args) > 2 {
			return r.usageErr("exit", "too many arguments", 1)
		}
		st = n & 255
	}
	return exitCode(st)
}

func biReturn(r *Runner, args []string) error {
	if r.inFunc == 0 && len(r.srcStack) == 0 {
		return r.usageErr("return", "can only `return' from a function or sourced script", 2)
	}
	if len(args) > 1 {
		n, err := strconv.Atoi(args[1])
		if err != nil {
			r.errf("return: %s: numeric argument required", args[1])
			r.status = 2
			return returnCtl{}
		}
		r.status = n & 255
	}
	return returnCtl{}
}

func biBreak(r *Runner, args []string) error {
	if r.loopDepth == 0 {
		r.errf("%s: only meaningful in a `for', `while', or `until' loop", args[0])
		r.status = 0
		return nil
	}
	n := 1
	if len(args) > 1 {
		var err error
		n, err = strconv.Atoi(args[1])
		if err != nil || n < 1 {
			r.errf("%s: %s: loop count out of range", args[0], args[1])
			r.status = 1
			return nil
		}
	}
	r.status = 0
	return loopCtl{brk: args[0] == "break", n: min(n, r.loopDepth)}
}

func biShift(r *Runner, args []string) error {
	n := 1
	if len(args) > 1 {
		var err error
		n, err = strconv.Atoi(args[1])
		if err != nil {
			return r.usageErr("shift", args[1]+": numeric argument required", 1)
		}
	}
	if n > len(r.params) || n < 0 {
		r.status = 1
		return nil
	}
	r.params = r.params[n:]
	r.status = 0
	return nil
}

var setFlags = map[byte]string{'e': "errexit", 'u': "nounset", 'x': "xtrace", 'f': "noglob", 'C': "noclobber", 'a': "allexport", 'v': "verbose", 'n': "noexec", 'B': "braceexpand", 'h': "hashall", 'E': "errtrace", 'T': "functrace", 'b': "notify", 'H': "histexpand", 'k': "keyword", 'm': "monitor", 'P': "physical", 't': "onecmd"}

var setOptNames = []string{"allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall", "histexpand", "history", "ignoreeof", "interactive-comments", "keyword", "monitor", "noclobber", "noexec", "noglob", "nolog", "notify", "nounset", "onecmd", "physical", "pipefail", "posix", "privileged", "verbose", "vi", "xtrace"}

func (r *Runner) flagString() string {
	var b strings.Builder
	for _, c := range "abefhkmnptuvxBCEHPT" {
		if n, ok := setFlags[byte(c)]; ok && r.opts[n] {
			b.WriteRune(c)
		}
	}
	b.WriteString("c")
	return b.String()
}

func biSet(r *Runner, args []string) error {
	args = args[1:]
	if len(args) == 0 {
		names, keys := r.visibleVars()
		for _, n := range keys {
			v := names[n]
			if !v.set {
				continue
			}
			if v.kind == kScalar {
				fmt.Fprintf(r.stdout(), "%s=%s\n", n, setQuote(v.str))
			} else {
				fmt.Fprintln(r.stdout(), strings.TrimPrefix(r.declareLine(n, v), "declare -"+v.flags()+" "))
			}
		}
		r.status = 0
		return nil
	}
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			r.params = append([]string(nil), args[1:]...)
			r.status = 0
			return nil
		}
		if a == "-" {
			r.opts["xtrace"], r.opts["verbose"] = false, false
			args = args[1:]
			if len(args) > 0 {
				r.params = append([]string(nil), args...)
			}
			break
		}
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			r.params = append([]string(nil), args...)
			break
		}
		on := a[0] == '-'
		args = args[1:]
		for i := 1; i < len(a); i++ {
			if a[i] == 'o' {
				if len(args) == 0 {
					r.printOpts(on)
					continue
				}
				name := args[0]
				args = args[1:]
				if !validOpt(name) {
					r.errf("set: %s: invalid option name", name)
					r.status = 2
					return nil
				}
				r.opts[name] = on
				continue
			}
			n, ok := setFlags[a[i]]
			if !ok {
				r.errf("set: %c%c: invalid option", a[0], a[i])
				fmt.Fprintln(r.stderr(), "set: usage: set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]")
				r.status = 2
				return nil
			}
			r.opts[n] = on
		}
	}
	r.status = 0
	return nil
}

func validOpt(n string) bool {
	for _, o := range setOptNames {
		if o == n {
			return true
		}
	}
	return false
}

func (r *Runner) printOpts(minus bool) {
	for _, o := range setOptNames {
		if minus {
			st := "off"
			if r.opts[o] {
				st = "on"
			}
			fmt.Fprintf(r.stdout(), "%-15s\t%s\n", o, st)
		} else {
			c := "+o"
			if r.opts[o] {
				c = "-o"
			}
			fmt.Fprintf(r.stdout(), "set %s %s\n", c, o)
		}
	}
}

func biUnset(r *Runner, args []string) error {
	args = args[1:]
	mode := "v"
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-f":
			mode = "f"
		case "-v":
			mode = "v"
		case "-n":
			mode = "n"
		case "--":
		default:
			r.errf("unset: %s: invalid option", args[0])
			fmt.Fprintln(r.stderr(), "unset: usage: unset [-f] [-v] [-n] [name ...]")
			r.status = 2
			return nil
		}
		args = args[1:]
	}
	st := 0
	for _, n := range args {
		if mode == "f" || mode == "v" && r.lookup(n) == nil {
			if _, ok := r.funcs[n]; ok && strings.Contains(r.funcAttr[n], "r") {
				r.errf("unset: %s: cannot unset: readonly function", n)
				st = 1
				continue
			}
		}
		if mode == "f" {
			delete(r.funcs, n)
			delete(r.funcAttr, n)
			r.unchargeFunc(n)
			continue
		}
		if i := strings.IndexByte(n, '['); i > 0 && strings.HasSuffix(n, "]") {
			name, sub := n[:i], n[i+1:len(n)-1]
			v := r.lookup(name)
			if v == nil {
				continue
			}
			if v.ro {
				r.errf("unset: %s: cannot unset: readonly variable", name)
				st = 1
				continue
			}
			if sub == "@" || sub == "*" {
				r.unsetVar(name)
				continue
			}
			before := v.size()
			switch v.kind {
			case kAssoc:
				v.unsetAssoc(sub)
			case kIndexed:
				k, err := r.arithString(sub)
				if err != nil {
					r.errf("%v", err)
					st = 1
					continue
				}
				if k < 0 {
					k += int64(v.maxIndex() + 1)
				}
				delete(v.idx, int(k))
			default:
				if sub == "0" {
					r.unsetVar(name)
				}
			}
			r.charge(v.size() - before)
			continue
		}
		if !validName(n) {
			continue
		}
		if mode == "n" {
			for i := len(r.scopes) - 1; i >= 0; i-- {
				if _, ok := r.scopes[i].vars[n]; ok {
					delete(r.scopes[i].vars, n)
					break
				}
			}
			continue
		}
		if v := r.lookup(n); v == nil {
			if _, ok := r.funcs[n]; ok && mode == "v" {
				// bash: unset name falls back to a function
				delete(r.funcs, n)
				delete(r.funcAttr, n)
				r.unchargeFunc(n)
			}
			continue
		}
		if err := r.unsetVar(n); err != nil {
			r.errf("unset: %s: cannot unset: readonly variable", n)
			st = 1
		}
	}
	r.status = st
	return nil
}

func biEval(r *Runner, args []string) error {
	src := strings.Join(args[1:], " ")
	if strings.TrimSpace(src) == "" {
		r.status = 0
		return nil
	}
	if err := r.chargeText(len(src)); err != nil {
		return err
	}
	defer r.chargeText(-len(src))
	old := r.src
	r.src = src
	defer func() { r.src = old }()
	return r.evalString(src, "eval")
}

// chargeText charges the syntax tree of text about to be parsed.
func (r *Runner) chargeText(n int) error {
	if r.cfg.Mem == nil {
		return nil
	}
	return r.cfg.Mem.Grow(int64(n) * costParse)
}

func biSource(r *Runner, args []string) error {
	if len(args) < 2 {
		r.errf("%s: filename argument required", args[0])
		fmt.Fprintf(r.stderr(), "%s: usage: %s filename [arguments]\n", args[0], args[0])
		r.status = 2
		return nil
	}
	name := args[1]
	f, err := r.openFile(name, os.O_RDONLY, 0)
	if err != nil {
		r.errf("%s", err)
		r.status = 1
		return nil
	}
	var buf limitBuf
	limit := "MaxReadBytes"
	buf.max, buf.mem = r.cfg.Limits.MaxReadBytes, r.cfg.Mem
	if buf.max <= 0 {
		limit, buf.max = "MaxStringBytes", r.cfg.Limits.MaxStringBytes
	}
	_, err = io.Copy(&buf, f)
	f.Close()
	defer buf.release()
	if buf.over {
		return r.limit(limit, int64(buf.max))
	}
	if buf.memErr != nil {
		return fatalErr{buf.memErr}
	}
	if err != nil {
		r.errf("%s: %s", name, errText(err))
		r.status = 1
		return nil
	}
	src := buf.b.String()
	if err := r.chargeText(len(src)); err != nil {
		return err
	}
	defer r.chargeText(-len(src))
	file, text, ok := r.parseReported(src, name, name)
	if !ok {
		return nil
	}
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	oldParams := r.params
	if len(args) > 2 {
		r.params = args[2:]
	}
	old := r.src
	r.src = text
	r.srcStack = append(r.srcStack, name)
	r.frames = append(r.frames, frame{name: "source", file: name, line: r.line})
	r.status = 0
	r.evalDepth++
	err = r.units(file.Stmts)
	r.evalDepth--
	if t, ok := r.traps["RETURN"]; ok && !r.inTrap {
		if _, isRet := err.(returnCtl); err == nil || isRet {
			r.returnTrap(t, isRet)
		}
	}
	r.srcStack = r.srcStack[:len(r.srcStack)-1]
	r.frames = r.frames[:len(r.frames)-1]
	r.src = old
	if len(args) > 2 {
		r.params = oldParams
	}
	if _, ok := err.(returnCtl); ok {
		return nil
	}
	return err
}

func biLet(r *Runner, args []string) error {
	if len(args) < 2 {
		return r.usageErr("let", "expression expected", 1)
	}
	var n int64
	for _, a := range args[1:] {
		var err error
		n, err = r.arithString(a)
		if err != nil {
			return r.arithCmdErr("let", err)
		}
	}
	r.status = b2i(n == 0)
	return nil
}

func (r *Runner) typeOf(name string) string {
	switch {
	case r.aliases[name] != "" && r.shopts["expand_aliases"]:
		return "alias"
	case keywords[name]:
		return "keyword"
	}
	if _, ok := r.funcs[name]; ok {
		return "function"
	}
	if _, ok := builtins[name]; ok {
		return "builtin"
	}
	if r.cfg.HasCommand != nil && r.cfg.HasCommand(name) {
		return "file"
	}
	return ""
}

func cmdPath(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	return "/usr/bin/" + name
}

func biType(r *Runner, args []string) error {
	args = args[1:]
	mode := ""
	all := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		for _, c := range args[0][1:] {
			switch c {
			case 't':
				mode = "t"
			case 'p', 'P':
				mode = "p"
			case 'a':
				all = true
			case 'f':
			default:
				r.errf("type: -%c: invalid option", c)
				fmt.Fprintln(r.stderr(), "type: usage: type [-afptP] name [name ...]")
				r.status = 2
				return nil
			}
		}
		args = args[1:]
	}
	_ = all
	st := 0
	w := r.stdout()
	for _, n := range args {
		t := r.typeOf(n)
		if t == "" {
			if mode != "t" && mode != "p" {
				r.errf("type: %s: not found", n)
			}
			st = 1
			continue
		}
		switch mode {
		case "t":
			fmt.Fprintln(w, t)
		case "p":
			if t == "file" {
				fmt.Fprintln(w, cmdPath(n))
			}
		default:
			switch t {
			case "alias":
				fmt.Fprintf(w, "%s is aliased to `%s'\n", n, r.aliases[n])
			case "keyword":
				fmt.Fprintf(w, "%s is a shell keyword\n", n)
			case "function":
				fmt.Fprintf(w, "%s is a function\n", n)
				fmt.Fprint(w, funcText(n, r.funcs[n]))
			case "builtin":
				fmt.Fprintf(w, "%s is a shell builtin\n", n)
			case "file":
				fmt.Fprintf(w, "%s is %s\n", n, cmdPath(n))
			}
		}
	}
	r.status = st
	return nil
}

func biCommand(r *Runner, args []string) error {
	args = args[1:]
	mode := ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		for _, c := range args[0][1:] {
			switch c {
			case 'v':
				mode = "v"
			case 'V':
				mode = "V"
			case 'p':
			default:
				r.errf("command: -%c: invalid option", c)
				fmt.Fprintln(r.stderr(), "command: usage: command [-pVv] command [arg ...]")
				r.status = 2
				return nil
			}
		}
		args = args[1:]
	}
	if len(args) == 0 {
		r.status = 0
		return nil
	}
	if mode != "" {
		st := 1
		for _, n := range args {
			if r.typeOf(n) != "" {
				st = 0
			}
			t := r.typeOf(n)
			switch {
			case t == "":
				if mode == "V" {
					r.errf("command: %s: not found", n)
				}
			case mode == "v":
				if t == "file" {
					fmt.Fprintln(r.stdout(), cmdPath(n))
				} else if t == "alias" {
					fmt.Fprintf(r.stdout(), "alias %s='%s'\n", n, r.aliases[n])
				} else {
					fmt.Fprintln(r.stdout(), n)
				}
			default:
				sub := *r
				sub.fds = map[int]*fdesc{1: r.fds[1], 2: r.fds[2]}
				biType(&sub, []string{"type", n})
			}
		}
		r.status = st
		return nil
	}
	if b, ok := builtins[args[0]]; ok {
		return b(r, args)
	}
	return r.external(args)
}

func biBuiltin(r *Runner, args []string) error {
	if len(args) < 2 {
		r.status = 0
		return nil
	}
	b, ok := builtins[args[1]]
	if !ok {
		return r.usageErr("builtin", args[1]+": not a shell builtin", 1)
	}
	return b(r, args[1:])
}

func biWait(r *Runner, args []string) error {
	if len(args) == 1 {
		r.waitAll()
		r.bgJobs = nil
		r.status = 0
		return nil
	}
	st := 0
	for _, a := range args[1:] {
		n, _ := strconv.Atoi(strings.TrimPrefix(a, "%"))
		found := false
		for _, j := range r.bgJobs {
			if j.pid == n {
				<-j.done
				st = j.status
				found = true
			}
		}
		if !found {
			r.errf("wait: pid %s is not a child of this shell", a)
			st = 127
		}
	}
	r.status = st
	return nil
}

var shoptNames = []string{"autocd", "assoc_expand_once", "cdable_vars", "cdspell", "checkhash", "checkjobs", "checkwinsize", "cmdhist", "compat31", "compat32", "compat40", "compat41", "compat42", "compat43", "compat44", "complete_fullquote", "direxpand", "dirspell", "dotglob", "execfail", "expand_aliases", "extdebug", "extglob", "extquote", "failglob", "force_fignore", "globasciiranges", "globskipdots", "globstar", "gnu_errfmt", "histappend", "histreedit", "histverify", "hostcomplete", "huponexit", "inherit_errexit", "interactive_comments", "lastpipe", "lithist", "localvar_inherit", "localvar_unset", "login_shell", "mailwarn", "no_empty_cmd_completion", "nocaseglob", "nocasematch", "noexpand_translation", "nullglob", "patsub_replacement", "progcomp", "progcomp_alias", "promptvars", "restricted_shell", "shift_verbose", "sourcepath", "varredir_close", "xpg_echo"}

func validShopt(n string) bool {
	for _, o := range shoptNames {
		if o == n {
			return true
		}
	}
	return false
}

func biShopt(r *Runner, args []string) error {
	args = args[1:]
	mode := ""
	quiet, print, useO := false, false, false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		for _, c := range args[0][1:] {
			switch c {
			case 's', 'u':
				mode = string(c)
			case 'q':
				quiet = true
			case 'p':
				print = true
			case 'o':
				useO = true
			default:
				r.errf("shopt: -%c: invalid option", c)
				fmt.Fprintln(r.stderr(), "shopt: usage: shopt [-pqsu] [-o] [optname ...]")
				r.status = 2
				return nil
			}
		}
		args = args[1:]
	}
	get := func(n string) bool {
		if useO {
			return r.opts[n]
		}
		return r.shopts[n]
	}
	valid := validShopt
	if useO {
		valid = validOpt
	}
	names := args
	if len(names) == 0 {
		names = shoptNames
		if useO {
			names = setOptNames
		}
		if mode != "" {
			var sel []string
			for _, n := range names {
				if get(n) == (mode == "s") {
					sel = append(sel, n)
				}
			}
			if mode != "" && len(args) == 0 {
				for _, n := range sel {
					printShopt(r, n, get(n), print, useO)
				}
				r.status = 0
				return nil
			}
		}
	}
	st := 0
	for _, n := range names {
		if !valid(n) {
			r.errf("shopt: %s: invalid shell option name", n)
			st = 1
			continue
		}
		switch mode {
		case "s", "u":
			if useO {
				r.opts[n] = mode == "s"
			} else {
				r.shopts[n] = mode == "s"
			}
		default:
			if !get(n) && len(args) > 0 {
				st = 1
			}
			if !quiet {
				printShopt(r, n, get(n), print, useO)
			}
		}
	}
	r.status = st
	return nil
}

func printShopt(r *Runner, n string, on, print, useO bool) {
	if print {
		f := "-u"
		if on {
			f = "-s"
		}
		if useO {
			f = "+o"
			if on {
				f = "-o"
			}
			fmt.Fprintf(r.stdout(), "set %s %s\n", f, n)
			return
		}
		fmt.Fprintf(r.stdout(), "shopt %s %s\n", f, n)
		return
	}
	st := "off"
	if on {
		st = "on"
	}
	fmt.Fprintf(r.stdout(), "%-15s\t%s\n", n, st)
}

func biAlias(r *Runner, args []string) error {
	st := 0
	if len(args) == 1 || args[1] == "-p" {
		keys := make([]string, 0, len(r.aliases))
		for k := range r.aliases {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(r.stdout(), "alias %s=%s\n", k, shellQuote(r.aliases[k]))
		}
		r.status = 0
		return nil
	}
	for _, a := range args[1:] {
		n, v, ok := strings.Cut(a, "=")
		if !ok {
			if x, ok := r.aliases[n]; ok {
				fmt.Fprintf(r.stdout(), "alias %s=%s\n", n, shellQuote(x))
			} else {
				r.errf("alias: %s: not found", n)
				st = 1
			}
			continue
		}
		r.aliases[n] = v
	}
	r.status = st
	return nil
}

func biUnalias(r *Runner, args []string) error {
	st := 0
	for _, a := range args[1:] {
		if a == "-a" {
			r.aliases = map[string]string{}
			continue
		}
		if _, ok := r.aliases[a]; !ok {
			r.errf("unalias: %s: not found", a)
			st = 1
			continue
		}
		delete(r.aliases, a)
	}
	r.status = st
	return nil
}

func (r *Runner) dirList() []string {
	out := []string{r.dir}
	for i := len(r.dirs) - 1; i >= 0; i-- {
		out = append(out, r.dirs[i])
	}
	return out
}

func (r *Runner) tildeDir(d string) string {
	h := r.getStr("HOME")
	if h != "" && h != "/" && (d == h || strings.HasPrefix(d, h+"/")) {
		return "~" + d[len(h):]
	}
	return d
}

func biDirs(r *Runner, args []string) error {
	if len(args) > 1 && args[1] == "-c" {
		r.dirs = nil
		r.status = 0
		return nil
	}
	long := len(args) > 1 && strings.Contains(args[1], "l")
	var parts []string
	for _, d := range r.dirList() {
		if !long {
			d = r.tildeDir(d)
		}
		parts = append(parts, d)
	}
	if len(args) > 1 && strings.Contains(args[1], "v") {
		for i, p := range parts {
			fmt.Fprintf(r.stdout(), "%2d  %s\n", i, p)
		}
	} else if len(args) > 1 && strings.Contains(args[1], "p") {
		for _, p := range parts {
			fmt.Fprintln(r.stdout(), p)
		}
	} else {
		fmt.Fprintln(r.stdout(), strings.Join(parts, " "))
	}
	r.status = 0
	return nil
}

func biPushd(r *Runner, args []string) error {
	if len(args) < 2 {
		if len(r.dirs) == 0 {
			return r.usageErr("pushd", "no other directory", 1)
		}
		top := r.dirs[len(r.dirs)-1]
		cur := r.dir
		if err := biCd(r, []string{"cd", top}); err != nil || r.status != 0 {
			return err
		}
		r.dirs[len(r.dirs)-1] = cur
		return biDirs(r, []string{"dirs"})
	}
	cur := r.dir
	if fi, err := r.statPath(args[1], true); err != nil || !fi.IsDir() {
		msg := "Not a directory"
		if err != nil {
			msg = errText(err)
		}
		return r.usageErr("pushd", args[1]+": "+msg, 1)
	}
	biCd(r, []string{"cd", args[1]})
	if r.status != 0 {
		return nil
	}
	r.dirs = append(r.dirs, cur)
	return biDirs(r, []string{"dirs"})
}

func biPopd(r *Runner, args []string) error {
	if len(r.dirs) == 0 {
		return r.usageErr("popd", "directory stack empty", 1)
	}
	top := r.dirs[len(r.dirs)-1]
	biCd(r, []string{"cd", top})
	if r.status != 0 {
		return nil
	}
	r.dirs = r.dirs[:len(r.dirs)-1]
	return biDirs(r, []string{"dirs"})
}

func biUmask(r *Runner, args []string) error {
	if len(args) == 1 {
		fmt.Fprintf(r.stdout(), "%04o\n", r.umask())
	} else if args[1] == "-S" {
		m := r.umask()
		f := func(shift uint) string {
			p := ""
			bits := (^m >> shift) & 7
			if bits&4 != 0 {
				p += "r"
			}
			if bits&2 != 0 {
				p += "w"
			}
			if bits&1 != 0 {
				p += "x"
			}
			return p
		}
		fmt.Fprintf(r.stdout(), "u=%s,g=%s,o=%s\n", f(6), f(3), f(0))
	} else {
		n, err := strconv.ParseUint(args[1], 8, 32)
		if err != nil {
			return r.usageErr("umask", args[1]+": octal number out of range", 1)
		}
		r.umaskV = n | 1<<20
	}
	r.status = 0
	return nil
}

func (r *Runner) umask() uint64 {
	if r.umaskV != 0 {
		return r.umaskV &^ (1 << 20)
	}
	return 0o022
}

func biCaller(r *Runner, args []string) error {
	lines, files, names := r.stackVar("BASH_LINENO"), r.stackVar("BASH_SOURCE"), r.stackVar("FUNCNAME")
	r.status = 1
	if len(lines) == 0 {
		return nil
	}
	at := func(s []string, i int) (string, bool) {
		if i < len(s) {
			return s[i], true
		}
		return "NULL", false
	}
	if len(args) < 2 {
		f, _ := at(files, 1)
		fmt.Fprintf(r.stdout(), "%s %s\n", lines[0], f)
		r.status = 0
		return nil
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 {
		r.errf("caller: %s: invalid number", args[1])
		fmt.Fprintln(r.stderr(), "caller: usage: caller [expr]")
		r.status = 2
		return nil
	}
	l, ok1 := at(lines, n)
	fn, ok2 := at(names, n+1)
	f, ok3 := at(files, n+1)
	if ok1 && ok2 && ok3 {
		fmt.Fprintf(r.stdout(), "%s %s %s\n", l, fn, f)
		r.status = 0
	}
	return nil
}

func biExec(r *Runner, args []string) error {
	if len(args) == 1 {
		r.status = 0
		return nil
	}
	if err := r.run(args[1:]); err != nil {
		return err
	}
	return exitCode(r.status)
}

// getopts optstring name [args]
func biGetopts(r *Runner, args []string) error {
	if len(args) < 3 {
		fmt.Fprintln(r.stderr(), "getopts: usage: getopts optstring name [arg ...]")
		r.status = 2
		return nil
	}
	optstr, name := args[1], args[2]
	params := r.params
	if len(args) > 3 {
		params = args[3:]
	}
	silent := strings.HasPrefix(optstr, ":")
	if silent {
		optstr = optstr[1:]
	}
	optind, _ := strconv.Atoi(r.getStr("OPTIND"))
	if optind < 1 {
		optind = 1
	}
	if optind == 1 && r.optPos == 0 {
		r.optPos = 0
	}
	end := func() error {
		r.setStr(name, "?")
		r.status = 1
		return nil
	}
	if optind > len(params) {
		return end()
	}
	arg := params[optind-1]
	if r.optPos == 0 {
		if arg == "--" {
			r.setStr("OPTIND", strconv.Itoa(optind+1))
			return end()
		}
		if len(arg) < 2 || arg[0] != '-' {
			return end()
		}
		r.optPos = 1
	}
	c := arg[r.optPos]
	r.optPos++
	next := func() {
		if r.optPos >= len(arg) {
			r.optPos = 0
			optind++
		}
	}
	// bad reports an unknown option or a missing argument: silently (name
	// set to quiet, OPTARG to the letter) after a leading ':', else on
	// stderr (name "?", OPTARG unset).
	bad := func(quiet, msg string) error {
		r.setStr("OPTIND", strconv.Itoa(optind))
		if silent {
			r.setStr(name, quiet)
			r.setStr("OPTARG", string(c))
		} else {
			fmt.Fprintf(r.stderr(), "%s: %s -- %c\n", r.name0, msg, c)
			r.setStr(name, "?")
			r.unsetVar("OPTARG")
		}
		r.status = 0
		return nil
	}
	i := strings.IndexByte(optstr, c)
	if i < 0 || c == ':' {
		next()
		return bad("?", "illegal option")
	}
	if i+1 < len(optstr) && optstr[i+1] == ':' {
		var val string
		if r.optPos < len(arg) {
			val = arg[r.optPos:]
			r.optPos = 0
			optind++
		} else {
			r.optPos = 0
			optind++
			if optind > len(params) {
				return bad(":", "option requires an argument")
			}
			val = params[optind-1]
			optind++
		}
		r.setStr("OPTARG", val)
	} else {
		next()
		r.unsetVar("OPTARG")
	}
	r.setStr("OPTIND", strconv.Itoa(optind))
	r.setStr(name, string(c))
	r.status = 0
	return nil
}

// readLine reads up to delim (not included) a byte at a time; max < 0 is
// no bound on characters. err is io.EOF when the input ended first.
func readLine(rd io.Reader, delim byte, max int) (string, error) {
	s, _, err := readLineDelim(rd, delim, max)
	return s, err
}

// readLineDelim is readLine that also reports whether it read the
// delimiter; the line is one allocation (a stack buffer holds short ones).
func readLineDelim(rd io.Reader, delim byte, max int) (string, bool, error) {
	var stack [256]byte
	b := stack[:0]
	var one [1]byte
	for max < 0 || len(b) < max {
		n, err := rd.Read(one[:])
		if n == 1 {
			if one[0] == delim {
				return string(b), true, nil
			}
			b = append(b, one[0])
			continue
		}
		if err != nil {
			return string(b), false, io.EOF
		}
	}
	return string(b), false, nil
}

func biRead(r *Runner, args []string) error {
	args = args[1:]
	raw, silent := false, false
	delim := byte('\n')
	nchars, exact := -1, false
	arrName, prompt := "", ""
	fd := 0
	timeout := -1.0
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		for i := 1; i < len(a); i++ {
			c := a[i]
			needVal := strings.IndexByte("adnNptui", c) >= 0
			val := ""
			if needVal {
				if i+1 < len(a) {
					val = a[i+1:]
				} else if len(args) > 0 {
					val, args = args[0], args[1:]
				} else {
					r.errf("read: -%c: option requires an argument", c)
					fmt.Fprintln(r.stderr(), "read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]")
					r.status = 2
					return nil
				}
				i = len(a)
			}
			switch c {
			case 'r':
				raw = true
			case 's':
				silent = true
			case 'e':
			case 'a':
				arrName = val
			case 'd':
				if val == "" {
					delim = 0
				} else {
					delim = val[0]
				}
			case 'n', 'N':
				n, err := strconv.Atoi(val)
				if err != nil || n < 0 {
					r.errf("read: %s: invalid number", val)
					r.status = 1
					return nil
				}
				nchars, exact = n, c == 'N'
			case 'p':
				prompt = val
			case 't':
				t, err := strconv.ParseFloat(val, 64)
				if err != nil {
					r.errf("read: %s: invalid timeout specification", val)
					r.status = 1
					return nil
				}
				timeout = t
			case 'u':
				n, err := strconv.Atoi(val)
				if err != nil || r.fds[n] == nil {
					r.errf("read: %s: invalid file descriptor specification", val)
					r.status = 1
					return nil
				}
				fd = n
			case 'i':
			default:
				r.errf("read: -%c: invalid option", c)
				fmt.Fprintln(r.stderr(), "read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]")
				r.status = 2
				return nil
			}
		}
	}
	_ = silent
	_ = prompt // bash shows the prompt only on a terminal
	for _, n := range args {
		if !validName(n) && !validElem(n) {
			r.errf("read: `%s': not a valid identifier", n)
			r.status = 1
			return nil
		}
	}
	if timeout == 0 {
		// input available? only a reader that knows its length can say
		r.status = 1
		if f := r.fds[fd]; f != nil && f.r != nil {
			if l, ok := f.r.(interface{ Len() int }); ok && l.Len() > 0 {
				r.status = 0
			}
		}
		return nil
	}
	var in io.Reader = badReader{}
	if f := r.fds[fd]; f != nil && f.r != nil {
		in = f.r
	}
	// read the line, handling backslash continuation unless -r
	var b strings.Builder
	eof := false
	var one [1]byte
	count := 0
	max := r.cfg.Limits.MaxStringBytes
	for nchars < 0 || count < nchars {
		n, err := in.Read(one[:])
		if n == 0 {
			if err != nil {
				eof = true
				if err != io.EOF {
					r.errf("read: read error: %d: %s", fd, errText(err))
					r.status = 1
					return nil
				}
				break
			}
			continue
		}
		c := one[0]
		if !exact && c == delim {
			break
		}
		if !raw && c == '\\' {
			n, _ := in.Read(one[:])
			if n == 0 {
				break
			}
			if one[0] == '\n' {
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(one[0])
			count++
			continue
		}
		b.WriteByte(c)
		count++
		if max > 0 && b.Len() > max {
			return r.limit("MaxStringBytes", int64(max))
		}
	}
	line := b.String()
	if err := r.charge(int64(len(line))); err != nil {
		return fatalErr{err}
	}
	defer r.charge(-int64(len(line)))
	st := 0
	if eof {
		st = 1
	}
	if exact {
		if len(args) == 0 {
			args = []string{"REPLY"}
		}
		v := line
		if !raw {
			v = unbackslash(v)
		}
		r.setStr(args[0], v)
		r.status = st
		return nil
	}
	ifs, ok := r.getVar("IFS")
	if !ok {
		ifs = " \t\n"
	}
	if arrName != "" {
		fields := splitRead(line, ifs, -1, raw)
		r.unsetVar(arrName)
		v := r.varFor(arrName, false)
		v.kind, v.idx, v.set = kIndexed, map[int]string{}, true
		for i, f := range fields {
			v.idx[i] = f
		}
		r.charge(v.size())
		r.status = st
		return nil
	}
	if len(args) == 0 {
		v := line
		if !raw {
			v = unbackslash(v)
		}
		if err := r.setStr("REPLY", v); err != nil {
			return r.assignErr(err)
		}
		r.status = st
		return nil
	}
	fields := splitRead(line, ifs, len(args), raw)
	for i, n := range args {
		v := ""
		if i < len(fields) {
			v = fields[i]
		}
		if err := r.setName(n, v); err != nil {
			return r.assignErr(err)
		}
	}
	r.status = st
	return nil
}

// validElem reports whether s is name[subscript].
func validElem(s string) bool {
	i := strings.IndexByte(s, '[')
	return i > 0 && strings.HasSuffix(s, "]") && validName(s[:i])
}

// setName assigns name or name[subscript].
func (r *Runner) setName(n, v string) error {
	if !validElem(n) {
		return r.setStr(n, v)
	}
	i := strings.IndexByte(n, '[')
	base, k := n[:i], n[i+1:len(n)-1]
	if vv := r.lookup(base); vv == nil || vv.kind != kAssoc {
		x, err := r.arithString(k)
		if err != nil {
			return err
		}
		k = strconv.FormatInt(x, 10)
	}
	return r.assign(base, &k, v, false, false)
}

func unbackslash(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// splitRead splits read's line into at most n fields (n < 0: all), as
// bash's read does: the last takes the rest of the line less trailing IFS
// whitespace, or just its first word when that word and one delimiter are
// all that is left.
func splitRead(line, ifs string, n int, raw bool) []string {
	isWS := func(c byte) bool { return (c == ' ' || c == '\t' || c == '\n') && strings.IndexByte(ifs, c) >= 0 }
	isIFS := func(c byte) bool { return strings.IndexByte(ifs, c) >= 0 }
	// word extracts one word from s at i, returning it and the index
	// after its delimiter.
	word := func(s string, i int) (string, int) {
		j := i
		for j < len(s) && !isIFS(s[j]) {
			if !raw && s[j] == '\\' && j+1 < len(s) {
				j++
			}
			j++
		}
		w := s[i:j]
		k := j
		for k < len(s) && isWS(s[k]) {
			k++
		}
		if k < len(s) && isIFS(s[k]) && !isWS(s[k]) {
			k++
			for k < len(s) && isWS(s[k]) {
				k++
			}
		}
		return unbs(w, raw), k
	}
	var out []string
	i := 0
	for i < len(line) && isWS(line[i]) {
		i++
	}
	for i < len(line) {
		if n > 0 && len(out) == n-1 {
			w, k := word(line, i)
			if k >= len(line) {
				return append(out, w)
			}
			rest := line[i:]
			j := len(rest)
			for j > 0 && isWS(rest[j-1]) && !(!raw && j >= 2 && rest[j-2] == '\\') {
				j--
			}
			return append(out, unbs(rest[:j], raw))
		}
		w, k := word(line, i)
		out = append(out, w)
		i = k
	}
	return out
}

func unbs(s string, raw bool) string {
	if raw {
		return s
	}
	return unbackslash(s)
}

func biMapfile(r *Runner, args []string) error {
	name := args[0]
	args = args[1:]
	delim := byte('\n')
	trim := false
	count, skip, origin := -1, 0, -1
	fd := 0
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		a := args[0]
		args = args[1:]
		c := a[1]
		val := ""
		if strings.IndexByte("dnOsuCc", c) >= 0 {
			if len(a) > 2 {
				val = a[2:]
			} else if len(args) > 0 {
				val, args = args[0], args[1:]
			}
		}
		switch c {
		case 't':
			trim = true
		case 'd':
			if val == "" {
				delim = 0
			} else {
				delim = val[0]
			}
		case 'n':
			count, _ = strconv.Atoi(val)
			if count == 0 {
				count = -1
			}
		case 's':
			skip, _ = strconv.Atoi(val)
		case 'O':
			origin, _ = strconv.Atoi(val)
		case 'u':
			fd, _ = strconv.Atoi(val)
		case 'C', 'c':
		default:
			r.errf("%s: -%c: invalid option", name, c)
			r.status = 2
			return nil
		}
	}
	arr := "MAPFILE"
	if len(args) > 0 {
		arr = args[0]
	}
	var in io.Reader = badReader{}
	if f := r.fds[fd]; f != nil && f.r != nil {
		in = f.r
	}
	v := r.varFor(arr, false)
	if v.ro {
		return r.assignErr(errReadonly{arr})
	}
	before := v.size()
	if origin < 0 {
		v.kind, v.idx, v.str, v.set = kIndexed, map[int]string{}, "", true
		origin = 0
	} else {
		v.toIndexed()
	}
	i := origin
	read := 0
	total := 0
	for count < 0 || read < count {
		line, err := readLineKeep(in, delim)
		if line == "" && err != nil {
			break
		}
		total += len(line)
		if m := r.cfg.Limits.MaxStringBytes; m > 0 && total > 4*m {
			return r.limit("MaxStringBytes", int64(m))
		}
		if err := r.charge(int64(len(line) + costElem)); err != nil {
			return fatalErr{err}
		}
		if skip > 0 {
			skip--
			continue
		}
		if trim {
			line = strings.TrimSuffix(line, string(delim))
		}
		v.idx[i] = line
		i++
		read++
		if err != nil {
			break
		}
	}
	r.charge(v.size() - before - int64(total) - int64(costElem*read))
	r.status = 0
	return nil
}

func readLineKeep(rd io.Reader, delim byte) (string, error) {
	var stack [256]byte
	b := stack[:0]
	var one [1]byte
	for {
		n, err := rd.Read(one[:])
		if n == 1 {
			b = append(b, one[0])
			if one[0] == delim {
				return string(b), nil
			}
			continue
		}
		if err != nil {
			return string(b), io.EOF
		}
	}
}

func nowUnix() int64 { return time.Now().Unix() }

func (r *Runner) sinceStart() time.Duration { return time.Since(r.sh.start) }

var _ = path.Clean
