package cmds

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

func init() { Register("xargs", Xargs) }

// Xargs builds command lines from stdin (or -a FILE) and runs them through
// Env.Exec, as GNU xargs: items are blank-separated with '...', "..." and
// backslash quoting, or NUL-separated (-0), or split on a delimiter (-d);
// -n N items per command, -L N lines per command, -I STR one line per
// command with STR replaced, -r no run on empty input, -t echo commands to
// stderr, -E EOF string, -s size, -x. -P is accepted and runs commands one at
// a time. The command defaults to echo; children get an empty stdin. Exit
// status as GNU: 123 if a command exited 1-125, 124 if one exited 255
// (stops), 125 for a child killed or a bad command, 126 cannot run, 127 not
// found (stops), 1 for usage errors.
func Xargs(env *Env, args []string) int {
	opts, cmd, ok := parseOpts(env, "xargs", args[1:], optSpec{shorts: "0d:n:L:l::I:i::rtE:e::s:xP:a:po",
		longs: []string{"null", "delimiter=", "max-args=", "max-lines=?", "replace=?", "no-run-if-empty",
			"verbose", "eof=?", "max-chars=", "exit", "max-procs=", "arg-file=", "interactive",
			"open-tty", "show-limits", "process-slot-var="}, stop: true})
	if !ok {
		return 1
	}
	var nul, noEmpty, trace, exitSize bool
	delim := -1
	maxArgs, maxLines := 0, 0
	replace := ""
	eof := ""
	maxChars := 128 * 1024
	argFile := ""
	num := func(o opt, min int) (int, bool) {
		n, err := strconv.Atoi(o.val)
		flag := o.name
		if len(flag) > 1 {
			flag = "-" + flag
		}
		if err != nil {
			env.Errorf("xargs", "invalid number \"%s\" for -%s option", o.val, flag)
			tryHelp(env, "xargs", "")
			return 0, false
		}
		if n < min {
			env.Errorf("xargs", "value %s for -%s option should be >= %d", o.val, flag, min)
			tryHelp(env, "xargs", "")
			return 0, false
		}
		return n, true
	}
	for _, o := range opts {
		switch o.name {
		case "0", "null":
			nul = true
		case "d", "delimiter":
			d, err := parseDelim(o.val)
			if err != "" {
				env.Errorf("xargs", "%s", err)
				return 1
			}
			delim = int(d)
		case "n", "max-args":
			if maxArgs, ok = num(o, 1); !ok {
				return 1
			}
			if replace != "" {
				replace, maxLines = "", 0
			}
		case "L", "l", "max-lines":
			if o.val == "" {
				maxLines = 1
			} else if maxLines, ok = num(o, 1); !ok {
				return 1
			}
			maxArgs = 0
		case "I", "i", "replace":
			replace = o.val
			if replace == "" {
				replace = "{}"
			}
			maxLines, maxArgs = 1, 0
		case "r", "no-run-if-empty":
			noEmpty = true
		case "t", "verbose":
			trace = true
		case "E", "e", "eof":
			eof = o.val
		case "s", "max-chars":
			if maxChars, ok = num(o, 1); !ok {
				return 1
			}
		case "x", "exit":
			exitSize = true
		case "P", "max-procs":
			if _, ok = num(o, 0); !ok {
				return 1
			}
		case "a", "arg-file":
			argFile = o.val
		case "p", "interactive", "o", "open-tty":
			env.Errorf("xargs", "-%s is not supported in the shell backend (no terminal)", o.name)
			return 1
		case "show-limits", "process-slot-var":
		}
	}
	if len(cmd) == 0 {
		cmd = []string{"echo"}
	}
	var in io.Reader = ctxReader{env, env.Stdin}
	if argFile != "" {
		r, err := openArg(env, argFile)
		if err != nil {
			env.Errorf("xargs", "Cannot open input file %s: %s", quote(env, argFile), Strerror(err))
			return 1
		}
		defer r.Close()
		in = r
	}
	br := bufio.NewReaderSize(in, 32<<10)
	status := 0
	ran := false
	child := *env
	child.Stdin = strings.NewReader("")
	exec := func(items []string) bool {
		ran = true
		argv := append([]string(nil), cmd...)
		if replace != "" {
			line := ""
			if len(items) > 0 {
				line = items[0]
			}
			for i := range argv {
				argv[i] = strings.ReplaceAll(argv[i], replace, line)
			}
		} else {
			argv = append(argv, items...)
		}
		if trace {
			fmt.Fprintln(env.Stderr, strings.Join(argv, " "))
		}
		rc := env.Exec(env.Ctx, &child, argv)
		if rc == NotFound {
			env.Errorf("xargs", "%s: No such file or directory", argv[0])
			rc = 127
		}
		switch {
		case rc == 0:
		case rc == 255:
			env.Errorf("xargs", "%s: exited with status 255; aborting", argv[0])
			status = 124
			return false
		case rc == 126 || rc == 127:
			status = rc
			return false
		case rc > 128:
			if env.Canceled() {
				status = rc
				return false
			}
			env.Errorf("xargs", "%s: terminated by signal %d", argv[0], rc-128)
			status = 125
			return false
		default:
			status = 123
		}
		return !env.Canceled()
	}
	// Read items.
	var batch []string
	size := len(strings.Join(cmd, " ")) + 1
	lines := 0
	flush := func() bool {
		if len(batch) == 0 {
			return true
		}
		ok := exec(batch)
		batch, lines, size = nil, 0, len(strings.Join(cmd, " "))+1
		return ok
	}
	add := func(item string, endOfLine bool) bool {
		if size+len(item)+1 > maxChars && len(batch) > 0 {
			if exitSize {
				env.Errorf("xargs", "argument list too long")
				status = 1
				return false
			}
			if !flush() {
				return false
			}
		}
		batch = append(batch, item)
		size += len(item) + 1
		if endOfLine {
			lines++
		}
		if maxArgs > 0 && len(batch) >= maxArgs || maxLines > 0 && lines >= maxLines {
			return flush()
		}
		return true
	}
	if nul || delim >= 0 {
		d := byte(0)
		if delim >= 0 {
			d = byte(delim)
		}
		for {
			item, err := br.ReadString(d)
			if err != nil && err != io.EOF {
				return xargsReadErr(env, err)
			}
			if err == io.EOF && item == "" {
				break
			}
			item = strings.TrimSuffix(item, string(d))
			if eof != "" && item == eof {
				break
			}
			if !add(item, true) {
				return status
			}
			if err == io.EOF {
				break
			}
		}
	} else {
		for {
			line, err := br.ReadString('\n')
			if err != nil && err != io.EOF {
				return xargsReadErr(env, err)
			}
			if line == "" && err == io.EOF {
				break
			}
			if replace != "" {
				// -I: the whole line (leading blanks dropped) is one item.
				item := strings.TrimLeft(strings.TrimSuffix(line, "\n"), " \t")
				if item == "" {
					continue
				}
				if eof != "" && item == eof {
					break
				}
				if !add(item, true) {
					return status
				}
			} else {
				items, msg := splitXargsLine(line)
				if msg != "" {
					for _, item := range items {
						if !add(item, false) {
							return status
						}
					}
					flush()
					env.Errorf("xargs", "%s", msg)
					return 1
				}
				stop := false
				for k, item := range items {
					if eof != "" && item == eof {
						stop = true
						break
					}
					if !add(item, k == len(items)-1 && !strings.HasSuffix(strings.TrimRight(line, " \t\n"), " ")) {
						return status
					}
				}
				if stop {
					break
				}
			}
			if err == io.EOF {
				break
			}
		}
	}
	if len(batch) > 0 {
		flush()
	} else if !ran && !noEmpty && replace == "" {
		exec(nil)
	}
	return status
}

func xargsReadErr(env *Env, err error) int {
	if !isCanceled(env, err) {
		env.Errorf("xargs", "read error: %s", Strerror(err))
	}
	return 1
}

// parseDelim parses an xargs -d delimiter: one character or an escape.
func parseDelim(s string) (byte, string) {
	if len(s) == 1 {
		return s[0], ""
	}
	if len(s) >= 2 && s[0] == '\\' {
		switch s[1] {
		case 'n':
			return '\n', ""
		case 't':
			return '\t', ""
		case '0':
			return 0, ""
		case '\\':
			return '\\', ""
		case 'x':
			if v, err := strconv.ParseUint(s[2:], 16, 8); err == nil {
				return byte(v), ""
			}
		default:
			if v, err := strconv.ParseUint(s[1:], 8, 8); err == nil {
				return byte(v), ""
			}
		}
	}
	return 0, "invalid input delimiter specification " + s + ": the delimiter must be either a single character or an escape sequence starting with \\."
}

// splitXargsLine splits one input line into items with xargs quoting.
func splitXargsLine(line string) ([]string, string) {
	var items []string
	var cur bytes.Buffer
	inItem := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inItem {
				items = append(items, cur.String())
				cur.Reset()
				inItem = false
			}
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inItem = true
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				kind := "single"
				if c == '"' {
					kind = "double"
				}
				if inItem {
					items = append(items, cur.String())
				}
				return items, "unmatched " + kind + " quote; by default quotes are special to xargs unless you use the -0 option"
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inItem = true
		default:
			cur.WriteByte(c)
			inItem = true
		}
	}
	if inItem {
		items = append(items, cur.String())
	}
	return items, ""
}
