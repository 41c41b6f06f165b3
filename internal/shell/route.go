package shell

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/desk-dev/desk/internal/gitws"
	"github.com/desk-dev/desk/internal/shell/cmds"
)

// SandboxBackend is the id of the backend Route hands scripts to when the
// shell cannot run them.
const SandboxBackend = "sandbox"

// Route is the router for the "auto" backend (run.Options.Router). It parses
// the script and collects every command it can name statically (the literal
// first word of each simple command, and the command after the wrappers
// command, builtin, exec, env, timeout, xargs, nice, nohup and stdbuf). When every one of them is a
// builtin of the interpreter, a function the script defines, or a command this
// backend has, the script runs here ("shell"); otherwise on the sandbox
// backend when one is configured, else Route fails naming the missing
// commands. A name computed at run time ($cmd) cannot be known and does not
// count; a script that does not parse goes to the shell, which reports the
// syntax error. A curl or wget of a loopback address (localhost:3000) goes
// to the sandbox when there is one: the shell's own go out through the
// egress policy, which refuses the host's addresses, while the services
// an agent starts listen in the sandbox.
func (b *Backend) Route(source string, backends []string) (backend, reason string, err error) {
	file, perr := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(source), "")
	if perr != nil {
		return "shell", "the script does not parse: the shell reports the syntax error", nil
	}
	defined := map[string]bool{}
	var names []string
	local := "" // a curl or wget of the machine's own address
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			defined[n.Name.Value] = true
		case *syntax.CallExpr:
			cn := commandNames(n.Args)
			names = append(names, cn...)
			if local == "" && (slices.Contains(cn, "curl") || slices.Contains(cn, "wget")) && loopbackArg(n.Args) {
				local = cn[len(cn)-1]
			}
			if sub, ok := gitSubcommand(n.Args); ok && !gitws.Supported(sub) {
				names = append(names, "git "+sub)
			}
		}
		return true
	})
	var missing []string
	for _, name := range names {
		if defined[name] || (!strings.HasPrefix(name, "git ") && b.has(name)) || slices.Contains(missing, name) {
			continue
		}
		missing = append(missing, name)
	}
	if len(missing) == 0 && local != "" && slices.Contains(backends, SandboxBackend) {
		// The shell's curl goes out through the egress policy, which refuses
		// the host's own addresses; localhost means the sandbox's services.
		return SandboxBackend, fmt.Sprintf("%s of localhost: the sandbox's own services answer there", local), nil
	}
	if len(missing) == 0 {
		return "shell", "every command in the script is one the shell backend has", nil
	}
	list := strings.Join(missing, ", ")
	if slices.Contains(backends, SandboxBackend) {
		return SandboxBackend, fmt.Sprintf("not commands of the shell backend: %s", list), nil
	}
	return "", "", fmt.Errorf("%s: not a command of the shell backend, and no sandbox backend is configured", list)
}

// loopbackArg reports whether a literal argument names a loopback address
// (localhost, 127.0.0.0/8, [::1], 0.0.0.0), as a URL or a bare host:port.
func loopbackArg(args []*syntax.Word) bool {
	for _, a := range args[1:] {
		v, ok := literal(a)
		if !ok {
			continue
		}
		v = strings.ToLower(v)
		if i := strings.Index(v, "://"); i >= 0 {
			v = v[i+3:]
		}
		if i := strings.LastIndex(v, "@"); i >= 0 && !strings.Contains(v[:i], "/") {
			v = v[i+1:]
		}
		host := v
		if i := strings.IndexAny(host, "/?#"); i >= 0 {
			host = host[:i]
		}
		if strings.HasPrefix(host, "[") {
			if j := strings.Index(host, "]"); j > 0 {
				host = host[1:j]
			}
		} else if i := strings.LastIndex(host, ":"); i >= 0 {
			host = host[:i]
		}
		if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasPrefix(host, "127.") || host == "::1" || host == "0.0.0.0" {
			return true
		}
	}
	return false
}

// has reports whether the shell backend runs name: an interpreter builtin, a
// command of Options.Commands or of package cmds (also as /usr/bin/NAME).
func (b *Backend) has(name string) bool {
	if strings.Contains(name, "/") {
		dir, base := path.Split(name)
		if !pathDirs[path.Clean(dir)] {
			return false
		}
		name = base
	}
	if interp.IsBuiltin(name) {
		return true
	}
	if _, ok := b.opts.Commands[name]; ok {
		return true
	}
	_, ok := cmds.Lookup(name)
	return ok
}

// commandNames returns the statically known command names of a simple
// command: its first word, and the command a wrapper (routeWrappers) runs.
func commandNames(args []*syntax.Word) []string {
	var out []string
	for len(args) > 0 {
		name, ok := literal(args[0])
		if !ok {
			return out // computed at run time: cannot be known
		}
		out = append(out, name)
		withArg, ok := routeWrappers[path.Base(name)]
		if !ok {
			return out
		}
		var extra func(string) bool
		if path.Base(name) == "env" {
			extra = func(w string) bool { return strings.Contains(w, "=") }
		}
		rest := skipOptions(args[1:], withArg, extra)
		if path.Base(name) == "timeout" && len(rest) > 0 {
			rest = rest[1:] // the duration
		}
		args = rest
	}
	return out
}

// routeWrappers are the commands that run the command after their
// options, with the options that take the next word as their argument
// (an attached one, -n5 or --adjustment=5, is one word already). nice's
// -N and stdbuf's modes are options like the others.
var routeWrappers = map[string][]string{
	"command": nil, "builtin": nil, "exec": {"-a"},
	"env":     {"-u", "-C", "--unset", "--chdir"},
	"timeout": {"-s", "-k", "--signal", "--kill-after"},
	"xargs": {"-I", "-n", "-L", "-P", "-d", "-E", "-s", "-a", "--max-args", "--max-lines", "--max-procs",
		"--delimiter", "--arg-file", "--replace", "--eof", "--max-chars", "--process-slot-var"},
	"nice":   {"-n", "--adjustment"},
	"nohup":  nil,
	"stdbuf": {"-i", "-o", "-e", "--input", "--output", "--error"},
}

// skipOptions drops leading words that start with "-" (with the next word
// for those in withArg, and words extra says to skip), stopping after
// "--".
func skipOptions(args []*syntax.Word, withArg []string, extra func(string) bool) []*syntax.Word {
	for len(args) > 0 {
		w, ok := literal(args[0])
		if !ok {
			return args
		}
		if w == "--" {
			return args[1:]
		}
		if !strings.HasPrefix(w, "-") && (extra == nil || !extra(w)) {
			return args
		}
		args = args[1:]
		if slices.Contains(withArg, w) && len(args) > 0 {
			args = args[1:]
		}
	}
	return args
}

// literal returns a word's value when it has no expansions.
func literal(w *syntax.Word) (string, bool) {
	s := w.Lit()
	if s == "" && len(w.Parts) > 0 {
		// Quoted literals ('ls', "ls") are static too.
		var b strings.Builder
		for _, p := range w.Parts {
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				for _, q := range p.Parts {
					l, ok := q.(*syntax.Lit)
					if !ok {
						return "", false
					}
					b.WriteString(l.Value)
				}
			default:
				return "", false
			}
		}
		return b.String(), b.Len() > 0
	}
	return s, s != ""
}

// gitSubcommand returns the subcommand of a literal "git" command (after
// its global options -C, -c and --flags), so that a script using one the
// in-process git does not have (rebase, bisect, ...) goes to the sandbox,
// where the real git runs.
func gitSubcommand(args []*syntax.Word) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	if name, ok := literal(args[0]); !ok || path.Base(name) != "git" {
		return "", false
	}
	rest := args[1:]
	for len(rest) > 0 {
		w, ok := literal(rest[0])
		if !ok {
			return "", false
		}
		switch {
		case w == "-C" || w == "-c":
			if len(rest) < 2 {
				return "", false
			}
			rest = rest[2:]
		case strings.HasPrefix(w, "-"):
			rest = rest[1:]
		default:
			return w, true
		}
	}
	return "", false
}
