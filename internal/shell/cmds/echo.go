package cmds

import (
	"bufio"

	pf "github.com/desk-dev/desk/internal/shell/printf"
)

func init() { Register("echo", Echo) }

// Echo is GNU coreutils' standalone echo (/usr/bin/echo), for commands run
// through Env.Exec (xargs, env, find -exec, timeout): the interpreter's own
// echo builtin serves plain scripts. Leading arguments made only of the
// letters n, e and E are options (-n: no trailing newline, -e: interpret
// backslash escapes, -E: do not, the default); the first other argument ends
// them. With -e it understands \\ \a \b \c (stop all output) \e \f \n \r \t
// \v \0NNN \NNN and \xHH; other backslashes are printed as they are.
func Echo(env *Env, args []string) int {
	args, newline, escapes := pf.EchoOptions(args[1:], false)
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	for i, a := range args {
		if env.Canceled() {
			return 1
		}
		if i > 0 {
			w.WriteByte(' ')
		}
		if !escapes {
			w.WriteString(a)
			continue
		}
		out, stop := echoEscapes(a)
		w.Write(out)
		if stop {
			return 0
		}
	}
	if newline {
		w.WriteByte('\n')
	}
	return 0
}

// echoEscapes expands echo -e's escapes in s; stop reports a \c.
func echoEscapes(s string) (out []byte, stop bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			out = append(out, c)
			continue
		}
		i++
		if b, ok := pf.CEscape(s[i]); ok {
			out = append(out, b)
			continue
		}
		switch e := s[i]; e {
		case 'c':
			return out, true
		case 'e':
			out = append(out, 0x1b)
		case 'x':
			if i+1 < len(s) && pf.IsHex(s[i+1]) {
				v := pf.HexVal(s[i+1])
				i++
				if i+1 < len(s) && pf.IsHex(s[i+1]) {
					v = v*16 + pf.HexVal(s[i+1])
					i++
				}
				out = append(out, byte(v))
			} else {
				out = append(out, '\\', 'x')
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := 0
			n := 2
			if e == '0' {
				n = 3
			} else {
				v = int(e - '0')
			}
			for ; n > 0 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; n-- {
				v = v*8 + int(s[i+1]-'0')
				i++
			}
			out = append(out, byte(v))
		default:
			out = append(out, '\\', e)
		}
	}
	return out, false
}
