package interp

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	pf "github.com/desk-dev/desk/internal/shell/printf"
)

// biPrintfNative is bash's printf builtin: -v NAME and the usage here,
// the formats package printf's (the one printf of the shell, which the
// standalone printf command shares).
func biPrintfNative(r *Runner, args []string) error {
	args = args[1:]
	varName := ""
	dashdash := false
	if len(args) > 0 && args[0] == "--" {
		args, dashdash = args[1:], true
	}
	if len(args) >= 2 && args[0] == "-v" && !dashdash {
		varName, args = args[1], args[2:]
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		base := varName
		if i := strings.IndexByte(varName, '['); i > 0 && strings.HasSuffix(varName, "]") {
			base = varName[:i]
		}
		if !validName(base) {
			r.errf("printf: `%s': not a valid identifier", varName)
			r.status = 2
			return nil
		}
	} else if len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" && args[0] != "--" && !dashdash {
		r.errf("printf: %s: invalid option", args[0][:2])
		fmt.Fprintln(r.stderr(), "printf: usage: printf [-v var] format [arguments]")
		r.status = 2
		return nil
	}
	if len(args) == 0 {
		fmt.Fprintln(r.stderr(), "printf: usage: printf [-v var] format [arguments]")
		r.status = 2
		return nil
	}
	buf := sbufWriter{&sbuf{r: r}}
	st := pf.Format(&pf.Env{
		Out:      buf,
		Errorf:   func(format string, a ...any) { r.errf("printf: "+format, a...) },
		Canceled: func() bool { return r.ctx.Err() != nil },
		Strftime: func(format string, t time.Time) string { return strftime(format, t.UTC()) },
		Start:    r.sh.start,
	}, pf.Bash, args[0], args[1:])
	out, err := buf.s.String()
	if err != nil {
		return err
	}
	if varName != "" {
		base, key := varName, (*string)(nil)
		if i := strings.IndexByte(varName, '['); i > 0 {
			base = varName[:i]
			k := varName[i+1 : len(varName)-1]
			if v := r.lookup(base); v == nil || v.kind != kAssoc {
				n, err := r.arithString(k)
				if err != nil {
					return r.expErr(err)
				}
				k = strconv.FormatInt(n, 10)
			}
			key = &k
		}
		if err := r.assign(base, key, out, false, false); err != nil {
			return r.assignErr(err)
		}
		r.status = st
		return nil
	}
	if _, err := io.WriteString(r.stdout(), out); err != nil {
		if err == errWriteLimit {
			r.status = 1
			return nil
		}
		r.errf("printf: write error: %s", errText(err))
		st = 1
	}
	r.status = st
	return nil
}

// sbufWriter is printf's output: the builder's limit (MaxStringBytes) and
// memory budget hold what it is given.
type sbufWriter struct{ s *sbuf }

// Reserve takes a field over pf.MaxField when MaxStringBytes bounds the
// builder and the field fits under it (bash builds any field); over the
// limit, the limit's error stops the execution. Without MaxStringBytes
// such a field is refused.
func (w sbufWriter) Reserve(n int64) error {
	if w.s.r.cfg.Limits.MaxStringBytes <= 0 {
		return pf.ErrRefused
	}
	if err := w.s.r.checkLen(w.s.Len() + int(min(n, 1<<50))); err != nil {
		w.s.err = err
		return err
	}
	return nil
}

func (w sbufWriter) Write(b []byte) (int, error) {
	w.s.WriteString(string(b))
	if w.s.err != nil {
		return 0, w.s.err
	}
	return len(b), nil
}

// strftime formats t as C's strftime does, for the usual conversions.
func strftime(f string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			fmt.Fprintf(&b, "%d", t.Year())
		case 'C':
			fmt.Fprintf(&b, "%02d", t.Year()/100)
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			fmt.Fprintf(&b, "%02d", h)
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'Z':
			z, _ := t.Zone()
			b.WriteString(z)
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 's':
			fmt.Fprintf(&b, "%d", t.Unix())
		case 'u':
			w := int(t.Weekday())
			if w == 0 {
				w = 7
			}
			fmt.Fprintf(&b, "%d", w)
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'R':
			b.WriteString(t.Format("15:04"))
		case 'c':
			b.WriteString(t.Format("Mon Jan  2 15:04:05 2006"))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}
