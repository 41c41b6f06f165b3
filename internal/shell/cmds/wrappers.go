package cmds

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The command wrappers nohup, nice and stdbuf run their COMMAND through
// Env.Exec, as timeout and env do. What they would change in a process
// (hangup signals, niceness, stdio buffering) has no meaning in process:
// they check their options as GNU does, with GNU's messages and exit
// statuses (125 for their own errors, 127 for a command not found), and
// run the command unchanged.

func init() {
	Register("nohup", Nohup)
	Register("nice", Nice)
	Register("stdbuf", Stdbuf)
}

// coreutilsHelp prints NAME --help as GNU coreutils 9.1 does: the text of
// coreutilsHelpTexts and gnulib's footer (without the translation line in
// an en_ locale, as emit_ancillary_info).
func coreutilsHelp(env *Env, name string) int {
	io.WriteString(env.Stdout, coreutilsHelpTexts[name])
	io.WriteString(env.Stdout, "GNU coreutils online help: <https://www.gnu.org/software/coreutils/>\n")
	if !strings.HasPrefix(messagesLocale(env), "en_") {
		io.WriteString(env.Stdout, "Report any translation bugs to <https://translationproject.org/team/>\n")
	}
	fmt.Fprintf(env.Stdout, "Full documentation <https://www.gnu.org/software/coreutils/%s>\n", name)
	fmt.Fprintf(env.Stdout, "or available locally via: info '(coreutils) %s invocation'\n", name)
	return 0
}

// messagesLocale is the locale of LC_MESSAGES: LC_ALL, LC_MESSAGES or LANG.
func messagesLocale(env *Env) string {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if s := env.Getenv(v); s != "" {
			return s
		}
	}
	return "C"
}

// runWrapped runs cmd through Env.Exec for the wrapper name and reports a
// command not found as GNU's wrappers do (127); msg words it: "failed to
// run command %s" (nohup, stdbuf) or "%s" (nice).
func runWrapped(env *Env, name, msg string, q func(*Env, string) string, cmd []string) int {
	child := *env
	status := env.Exec(env.Ctx, &child, cmd)
	if status == NotFound {
		env.Errorf(name, msg+": No such file or directory", q(env, cmd[0]))
		return 127
	}
	return status
}

// Nohup is nohup COMMAND [ARG]...: it runs COMMAND. In the shell backend
// standard input, output and error are never a terminal, so, as GNU's does
// then, it neither redirects input, nor writes nohup.out, nor prints
// "ignoring input"; there are no hangup signals to ignore.
func Nohup(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "nohup", args[1:], optSpec{longs: []string{"help", "version"}, stop: true})
	if !ok {
		return 125
	}
	for _, o := range opts {
		switch o.name {
		case "help":
			return coreutilsHelp(env, "nohup")
		case "version":
			fmt.Fprintln(env.Stdout, versionLines["nohup"])
			return 0
		}
	}
	if len(ops) == 0 {
		missingOperand(env, "nohup")
		return 125
	}
	return runWrapped(env, "nohup", "failed to run command %s", quoteaf, ops)
}

// niceMin and niceMax bound niceness, as on Linux.
const (
	niceMin = -20
	niceMax = 19
)

// Nice is nice [-n N | -N] [COMMAND [ARG]...]. Without a command it prints
// the niceness, always 0 in the shell backend; with one it checks the
// adjustment as GNU does (an integer; out of range is clamped) and runs the
// command at the same priority: commands run in process, where there is no
// scheduling priority to change, so "nice -n 5 nice" prints 0 where GNU
// prints 5, and a negative adjustment is accepted silently, as for root
// (the identity the shell backend reports: uid 0).
func Nice(env *Env, args []string) int {
	adj, given := "", false
	i := 1
	bad := func(format string, a ...any) int {
		tryHelp(env, "nice", format, a...)
		return 125
	}
loop:
	for i < len(args) {
		s := args[i]
		k := 1
		if len(s) > 1 && (s[1] == '-' || s[1] == '+') {
			k = 2
		}
		switch {
		case len(s) > k && s[0] == '-' && s[k] >= '0' && s[k] <= '9':
			adj, given = s[1:], true
			i++
		case s == "--":
			i++
			break loop
		case len(s) < 2 || s[0] != '-':
			break loop
		case strings.HasPrefix(s, "--"):
			name, val, hasVal := strings.Cut(s[2:], "=")
			var match string
			for _, l := range []string{"adjustment", "help", "version"} {
				if strings.HasPrefix(l, name) && name != "" {
					match = l
					break
				}
			}
			switch match {
			case "":
				return bad("unrecognized option '%s'", s)
			case "help", "version":
				if hasVal {
					return bad("option '--%s' doesn't allow an argument", match)
				}
				if match == "help" {
					return coreutilsHelp(env, "nice")
				}
				fmt.Fprintln(env.Stdout, versionLines["nice"])
				return 0
			}
			if !hasVal {
				if i+1 >= len(args) {
					return bad("option '--adjustment' requires an argument")
				}
				i++
				val = args[i]
			}
			adj, given = val, true
			i++
		case s[1] == 'n':
			if len(s) > 2 {
				adj = s[2:]
			} else {
				if i+1 >= len(args) {
					return bad("option requires an argument -- 'n'")
				}
				i++
				adj = args[i]
			}
			given = true
			i++
		default:
			return bad("invalid option -- '%c'", s[1])
		}
	}
	if given {
		if _, ok := parseAdjustment(adj); !ok {
			env.Errorf("nice", "invalid adjustment %s", quote(env, adj))
			return 125
		}
	}
	if i >= len(args) {
		if given {
			return bad("a command must be given with an adjustment")
		}
		fmt.Fprintln(env.Stdout, 0)
		return 0
	}
	return runWrapped(env, "nice", "%s", quote, args[i:])
}

// parseAdjustment parses nice's adjustment as xstrtol with no suffixes:
// leading blanks, a sign, decimal digits; out of range clamps to the
// niceness range (GNU accepts an overflow the same way).
func parseAdjustment(s string) (int, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" {
		return 0, false
	}
	for _, c := range []byte(t) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(t)
	if err != nil || n > niceMax-niceMin {
		n = niceMax - niceMin
	}
	if neg {
		n = -n
	}
	return max(niceMin, min(niceMax, n)), true
}

// Stdbuf is stdbuf -i MODE -o MODE -e MODE COMMAND [ARG]...: it checks the
// modes as GNU does (L, 0 or a size with K, M, ..., KB, KiB suffixes; L is
// refused for input) and runs the command. Output of the in-process
// commands goes straight to the execution's stream, which the shell
// backend does not buffer per command, so there is no buffering to adjust.
func Stdbuf(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "stdbuf", args[1:], optSpec{shorts: "i:o:e:",
		longs: []string{"input=", "output=", "error=", "help", "version"}, stop: true})
	if !ok {
		return 125
	}
	modes := 0
	for _, o := range opts {
		switch o.name {
		case "help":
			return coreutilsHelp(env, "stdbuf")
		case "version":
			fmt.Fprintln(env.Stdout, versionLines["stdbuf"])
			return 0
		}
		modes++
		if o.val == "L" {
			if o.name == "i" || o.name == "input" {
				tryHelp(env, "stdbuf", "line buffering stdin is meaningless")
				return 125
			}
			continue
		}
		v, e := spStrtoumax(o.val, 10, "EGkKMPTYZ0")
		switch {
		case e == spOverflow || e == spBadSuffixOverflow:
			env.Errorf("stdbuf", "invalid mode %s: Value too large for defined data type", quote(env, o.val))
			return 125
		case e != spOK:
			env.Errorf("stdbuf", "invalid mode %s", quote(env, o.val))
			return 125
		}
		_ = v
	}
	if len(ops) == 0 {
		missingOperand(env, "stdbuf")
		return 125
	}
	if modes == 0 {
		tryHelp(env, "stdbuf", "you must specify a buffering mode option")
		return 125
	}
	return runWrapped(env, "stdbuf", "failed to run command %s", quote, ops)
}
