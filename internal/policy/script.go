package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Limits of Parse.
const (
	// MaxCommands bounds the commands Parse returns for one script; past
	// it the rest counts as one dynamic command (the strictest rule).
	MaxCommands = 4096
	// MaxDepth bounds the nesting of literal scripts Parse looks into
	// (eval, bash -c, alias values); deeper counts as dynamic.
	MaxDepth = 8
)

// Word is one word of a command: its literal text, or Dynamic when its
// value is known only when the script runs (an expansion, a substitution,
// an unquoted glob or brace pattern, a tilde).
type Word struct {
	Text    string `json:"text,omitempty"`
	Dynamic bool   `json:"dynamic,omitempty"`
}

// Command is one simple command as the parse sees it.
type Command struct {
	Words []Word `json:"words"`
	// More is set when words the parse cannot see follow (xargs appends
	// its input).
	More bool `json:"more,omitempty"`
}

// Literal returns the command of literal words.
func Literal(words ...string) Command {
	c := Command{}
	for _, w := range words {
		c.Words = append(c.Words, Word{Text: w})
	}
	return c
}

// dynamicScript stands for code the parse cannot see: it may be any
// command, so every rule may match it.
var dynamicScript = Command{Words: []Word{{Text: "…", Dynamic: true}}, More: true}

// String is the command line, a dynamic word shown as "…".
func (c Command) String() string {
	var b strings.Builder
	for i, w := range c.Words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w.Dynamic {
			b.WriteString("…")
		} else {
			b.WriteString(w.Text)
		}
	}
	if c.More {
		b.WriteString(" …")
	}
	return b.String()
}

// Parse finds every simple command of a bash script with mvdan.cc/sh's
// parser: at any depth of functions, pipelines, lists, subshells, command
// and process substitutions, conditionals and loops; the literal scripts
// of eval, bash -c (sh, dash, zsh, ksh) and alias values; and the
// commands run by wrappers (command, builtin, exec, env, nohup, nice,
// timeout, time, sudo, doas, setsid, stdbuf, ionice, chrt, taskset,
// xargs, find -exec/-execdir/-ok/-okdir), besides the wrappers
// themselves. Code it cannot see — a script that does not parse, eval
// or bash -c of a non-literal, a shell reading a file or its standard
// input, source and ".", more than MaxCommands commands or MaxDepth
// nested scripts — is one dynamic command, which every rule may match.
func Parse(src string) []Command {
	p := parser{}
	p.script(src, 0)
	return p.out
}

type parser struct {
	out  []Command
	full bool
}

func (p *parser) add(c Command) bool {
	if p.full {
		return false
	}
	if len(p.out) >= MaxCommands {
		p.out = append(p.out, dynamicScript)
		p.full = true
		return false
	}
	p.out = append(p.out, c)
	return true
}

func (p *parser) script(src string, depth int) {
	if depth > MaxDepth {
		p.add(dynamicScript)
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		p.add(dynamicScript)
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if p.full {
			return false
		}
		switch x := n.(type) {
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			c := Command{}
			for _, w := range x.Args {
				c.Words = append(c.Words, wordOf(w))
			}
			p.command(c, depth)
		case *syntax.DeclClause:
			// declare, local, export, readonly, typeset, nameref: their
			// values' substitutions are walked.
		}
		return true
	})
}

// shells are the programs whose -c argument is a script.
var shells = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "rbash": true}

// wrapperOpts are the wrappers that run the command after their options,
// with the options that take a separate argument.
var wrapperOpts = map[string]string{
	"command": "", "builtin": "", "exec": "-a", "nohup": "", "nice": "-n --adjustment",
	"sudo": "-u -g -C -D -h -p -r -t -U --user --group", "doas": "-u -C", "setsid": "",
	"stdbuf": "-i -o -e --input --output --error", "ionice": "-c -n -p -t", "chrt": "-p", "taskset": "",
	"time": "-f -o", "timeout": "-s -k --signal --kill-after", "unbuffer": "", "sg": "",
}

func (p *parser) command(c Command, depth int) {
	if !p.add(c) {
		return
	}
	if c.Words[0].Dynamic {
		return // matches every rule already
	}
	name := path.Base(c.Words[0].Text)
	args := c.Words[1:]
	switch {
	case name == "eval":
		var parts []string
		for _, a := range args {
			if a.Dynamic {
				p.add(dynamicScript)
				return
			}
			parts = append(parts, a.Text)
		}
		p.script(strings.Join(parts, " "), depth+1)
	case shells[name]:
		p.shell(args, depth)
	case name == "source" || name == ".":
		p.add(dynamicScript)
	case name == "alias":
		for _, a := range args {
			if a.Dynamic {
				p.add(dynamicScript)
				return
			}
			if _, v, ok := strings.Cut(a.Text, "="); ok {
				p.script(v, depth+1)
			}
		}
	case name == "env":
		p.env(args, depth)
	case name == "xargs":
		rest, ok := skipOptions(args, "-I -n -L -P -d -E -s -a --max-args --max-lines --max-procs --delimiter --arg-file --replace")
		if !ok {
			p.add(dynamicScript)
			return
		}
		if len(rest) == 0 {
			rest = []Word{{Text: "echo"}}
		}
		p.inner(Command{Words: rest, More: true}, depth)
	case name == "find":
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a.Dynamic {
				continue
			}
			switch a.Text {
			case "-exec", "-execdir", "-ok", "-okdir":
				var cmd []Word
				j := i + 1
				for ; j < len(args); j++ {
					if !args[j].Dynamic && (args[j].Text == ";" || args[j].Text == "+") {
						break
					}
					w := args[j]
					if !w.Dynamic && strings.Contains(w.Text, "{}") {
						w = Word{Dynamic: true}
					}
					cmd = append(cmd, w)
				}
				if len(cmd) > 0 {
					p.inner(Command{Words: cmd}, depth)
				}
				i = j
			}
		}
	default:
		opts, ok := wrapperOpts[name]
		if !ok {
			return
		}
		rest, ok := skipOptions(args, opts)
		if !ok {
			p.add(dynamicScript)
			return
		}
		if name == "timeout" && len(rest) > 0 {
			rest = rest[1:] // the duration
		}
		if (name == "command" || name == "builtin") && len(rest) == 0 {
			return
		}
		if len(rest) > 0 {
			p.inner(Command{Words: rest}, depth)
		}
	}
}

// inner adds a command a wrapper runs.
func (p *parser) inner(c Command, depth int) {
	if depth+1 > MaxDepth {
		p.add(dynamicScript)
		return
	}
	p.command(c, depth+1)
}

// shell looks into the arguments of bash (and the other shells): the
// script of -c when literal; anything else (a script file, standard
// input) is code the parse cannot see.
func (p *parser) shell(args []Word, depth int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			p.add(dynamicScript)
			return
		}
		switch {
		case a.Text == "-o" || a.Text == "+o" || a.Text == "-O" || a.Text == "+O" || a.Text == "--rcfile" || a.Text == "--init-file":
			i++
		case a.Text == "--":
			p.add(dynamicScript)
			return
		case strings.HasPrefix(a.Text, "--"):
		case strings.HasPrefix(a.Text, "-") && strings.Contains(a.Text, "c"):
			if i+1 >= len(args) || args[i+1].Dynamic {
				p.add(dynamicScript)
				return
			}
			p.script(args[i+1].Text, depth+1)
			return
		case strings.HasPrefix(a.Text, "-") || strings.HasPrefix(a.Text, "+"):
		default:
			p.add(dynamicScript) // a script file
			return
		}
	}
	p.add(dynamicScript) // the script comes from standard input
}

// env looks past env's options and assignments to the command it runs;
// -S's string is split into words as a literal script.
func (p *parser) env(args []Word, depth int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			p.add(dynamicScript)
			return
		}
		t := a.Text
		switch {
		case t == "-u" || t == "-C" || t == "--unset" || t == "--chdir":
			i++
		case t == "-S" || t == "--split-string":
			if i+1 >= len(args) || args[i+1].Dynamic {
				p.add(dynamicScript)
				return
			}
			var rest []string
			rest = append(rest, args[i+1].Text)
			for _, w := range args[i+2:] {
				if w.Dynamic {
					p.add(dynamicScript)
					return
				}
				q, err := syntax.Quote(w.Text, syntax.LangBash)
				if err != nil {
					p.add(dynamicScript)
					return
				}
				rest = append(rest, q)
			}
			p.script(strings.Join(rest, " "), depth+1)
			return
		case strings.HasPrefix(t, "-S"):
			p.script(t[2:], depth+1)
			return
		case t == "--":
			if i+1 < len(args) {
				p.inner(Command{Words: args[i+1:]}, depth)
			}
			return
		case strings.HasPrefix(t, "-"):
		case strings.Contains(t, "="):
		default:
			p.inner(Command{Words: args[i:]}, depth)
			return
		}
	}
}

// skipOptions returns the words after leading options ("-x", "--x",
// "--x=v"; those in withArg take the next word), and "--". ok is false
// when a dynamic word makes where the command starts unknown.
func skipOptions(args []Word, withArg string) ([]Word, bool) {
	takes := map[string]bool{}
	for _, o := range strings.Fields(withArg) {
		takes[o] = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			return nil, false
		}
		t := a.Text
		switch {
		case t == "--":
			return args[i+1:], true
		case strings.HasPrefix(t, "-") && len(t) > 1:
			if takes[t] {
				i++
			}
		default:
			return args[i:], true
		}
	}
	return nil, true
}

// wordOf returns a word's literal value, or a dynamic word.
func wordOf(w *syntax.Word) Word {
	var b strings.Builder
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			v := x.Value
			if strings.ContainsAny(v, "*?[") || (i == 0 && strings.HasPrefix(v, "~")) || braces(v) {
				return Word{Dynamic: true}
			}
			unescape(&b, v, false)
		case *syntax.SglQuoted:
			if x.Dollar {
				return Word{Dynamic: true}
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return Word{Dynamic: true}
			}
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return Word{Dynamic: true}
				}
				unescape(&b, l.Value, true)
			}
		default:
			return Word{Dynamic: true}
		}
	}
	return Word{Text: b.String()}
}

// braces reports whether an unquoted literal may undergo brace expansion.
func braces(v string) bool {
	i := strings.IndexByte(v, '{')
	return i >= 0 && (strings.Contains(v[i:], ",") || strings.Contains(v[i:], ".."))
}

// unescape writes v with its backslash quoting removed (inside double
// quotes only before $ ` " \ and newline).
func unescape(b *strings.Builder, v string, dq bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 == len(v) {
			b.WriteByte(c)
			continue
		}
		n := v[i+1]
		switch {
		case n == '\n':
			i++
		case !dq || strings.IndexByte("$`\"\\", n) >= 0:
			b.WriteByte(n)
			i++
		default:
			b.WriteByte(c)
		}
	}
}
