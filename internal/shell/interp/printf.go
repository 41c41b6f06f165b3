package interp

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxPrintfField bounds a field width or precision when no MaxStringBytes
// does (bash allocates what is asked; with MaxStringBytes, a field over it
// is that limit).
const maxPrintfField = 1 << 20

// biPrintfNative is bash's printf builtin.
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
	p := &printer{r: r, format: args[0], args: args[1:]}
	p.out.r = r
	p.run()
	out, err := p.out.String()
	if err != nil {
		return err
	}
	if p.over {
		return r.limit("MaxStringBytes", int64(r.cfg.Limits.MaxStringBytes))
	}
	st := 0
	if p.failed {
		st = 1
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

type printer struct {
	r      *Runner
	format string
	args   []string
	out    sbuf // bounded by MaxStringBytes and held (mem.go)
	failed bool
	stop   bool // \c in %b
	over   bool
}

func (p *printer) next() (string, bool) {
	if len(p.args) == 0 {
		return "", false
	}
	a := p.args[0]
	p.args = p.args[1:]
	return a, true
}

func (p *printer) run() {
	for {
		used := p.once()
		if p.stop || p.over || len(p.args) == 0 || !used {
			return
		}
	}
}

// once formats the format once; it reports whether it consumed arguments.
func (p *printer) once() bool {
	f := p.format
	start := len(p.args)
	for i := 0; i < len(f); i++ {
		if p.out.err != nil {
			p.over = true
			return false
		}
		c := f[i]
		if c == '\\' {
			s, n, stop := escape(f[i+1:], false)
			p.out.WriteString(s)
			i += n
			if stop {
				p.stop = true
				return false
			}
			continue
		}
		if c != '%' {
			p.out.WriteByte(c)
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			p.out.WriteByte('%')
			i++
			continue
		}
		// %[flags][width][.prec]conv
		j := i + 1
		for j < len(f) && strings.IndexByte("-+ #0'", f[j]) >= 0 {
			j++
		}
		// ' groups thousands with the locale's separator: the C and
		// C.UTF-8 locales have none, so it changes nothing here.
		flags := strings.ReplaceAll(f[i+1:j], "'", "")
		width, prec := "", ""
		if j < len(f) && f[j] == '*' {
			a, _ := p.next()
			n, _ := p.num(a)
			width = strconv.FormatInt(n, 10)
			j++
		} else {
			k := j
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				j++
			}
			width = f[k:j]
		}
		hasPrec := false
		if j < len(f) && f[j] == '.' {
			hasPrec = true
			j++
			if j < len(f) && f[j] == '*' {
				a, _ := p.next()
				n, _ := p.num(a)
				prec = strconv.FormatInt(n, 10)
				j++
			} else {
				k := j
				for j < len(f) && f[j] >= '0' && f[j] <= '9' {
					j++
				}
				prec = f[k:j]
				if prec == "" {
					prec = "0"
				}
			}
		}
		for j < len(f) && strings.IndexByte("hlLjzt", f[j]) >= 0 {
			j++
		}
		w, _ := strconv.Atoi(strings.TrimPrefix(width, "-"))
		pr, _ := strconv.Atoi(prec)
		if m := p.r.cfg.Limits.MaxStringBytes; m > 0 && (w > m || pr > m) {
			// what bash would build is over the string limit
			p.out.err = p.r.limit("MaxStringBytes", int64(m))
			p.over = true
			return false
		}
		if p.r.cfg.Limits.MaxStringBytes <= 0 && (w > maxPrintfField || pr > maxPrintfField) {
			k := j
			for k < len(f) && strings.IndexByte("hlLjzt", f[k]) >= 0 {
				k++
			}
			p.r.errf("printf: %s: Numerical result out of range: field width or precision over %d", f[i:min(k+1, len(f))], maxPrintfField)
			p.failed = true
			p.stop = true
			return false
		}
		if j >= len(f) {
			p.r.errf("printf: `%s': missing format character", f[i:])
			p.failed = true
			p.stop = true
			return false
		}
		conv := f[j]
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		if conv == '(' {
			end := strings.Index(f[j:], ")T")
			if end < 0 {
				p.r.errf("printf: `(': invalid format character")
				p.failed = true
				p.stop = true
				return false
			}
			tf := f[j+1 : j+end]
			a, ok := p.next()
			t := time.Now()
			if ok && a != "" {
				n, _ := p.num(a)
				switch n {
				case -1:
				case -2:
					t = p.r.sh.start
				default:
					t = time.Unix(n, 0)
				}
			}
			s := strftime(tf, t.UTC())
			p.out.WriteString(fmt.Sprintf("%"+flags+width+"s", s))
			i = j + end + 1
			continue
		}
		switch conv {
		case 's':
			a, _ := p.next()
			p.out.WriteString(fmt.Sprintf(spec+"s", a))
		case 'b':
			a, _ := p.next()
			s, stop := bEscapes(a)
			p.out.WriteString(fmt.Sprintf(spec+"s", s))
			if stop {
				p.stop = true
				return false
			}
		case 'q', 'Q':
			a, _ := p.next()
			q := printfQuote(a)
			if conv == 'Q' && hasPrec {
				pr, _ := strconv.Atoi(prec)
				if pr < len(a) {
					q = printfQuote(a[:pr])
				}
			}
			p.out.WriteString(fmt.Sprintf("%"+flags+width+"s", q))
		case 'c':
			a, _ := p.next()
			s := "\x00"
			if a != "" {
				_, n := utf8.DecodeRuneInString(a)
				s = a[:n]
			}
			p.out.WriteString(fmt.Sprintf("%"+flags+width+"s", s))
		case 'd', 'i':
			a, _ := p.next()
			n, _ := p.num(a)
			p.out.WriteString(fmt.Sprintf(spec+"d", n))
		case 'u', 'o', 'x', 'X':
			a, _ := p.next()
			n, _ := p.num(a)
			v := conv
			if v == 'u' {
				v = 'd'
			}
			p.out.WriteString(fmt.Sprintf(spec+string(v), uint64(n)))
		case 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A':
			a, _ := p.next()
			x := p.float(a)
			if !hasPrec && conv != 'a' && conv != 'A' {
				spec += ".6"
			}
			v := conv
			if v == 'F' {
				v = 'f'
			}
			if v == 'a' || v == 'A' {
				v = map[byte]byte{'a': 'x', 'A': 'X'}[v]
			}
			s := fmt.Sprintf(spec+string(v), x)
			if conv == 'g' || conv == 'G' {
				s = cG(s, flags)
			}
			p.out.WriteString(s)
		default:
			p.r.errf("printf: `%c': invalid format character", conv)
			p.failed = true
			p.stop = true
			return false
		}
		i = j
	}
	return len(p.args) < start
}

// cG fixes Go's %g to C's (Go drops a lone exponent's leading zero: e+20
// is C's e+20 too; Go writes e-05 as C does).
func cG(s, flags string) string { return s }

// num parses a numeric argument as bash does: 'c and "c are character
// codes; 0x.. hex, 0.. octal; an invalid one is reported, its valid prefix
// used.
func (p *printer) num(a string) (int64, bool) {
	if a == "" {
		return 0, true
	}
	if a[0] == '\'' || a[0] == '"' {
		if len(a) == 1 {
			return 0, true
		}
		r, _ := utf8.DecodeRuneInString(a[1:])
		return int64(r), true
	}
	s := strings.TrimLeft(a, " \t\n")
	neg := false
	body := s
	if strings.HasPrefix(body, "-") || strings.HasPrefix(body, "+") {
		neg = body[0] == '-'
		body = body[1:]
	}
	base := 10
	digits := body
	switch {
	case strings.HasPrefix(body, "0x") || strings.HasPrefix(body, "0X"):
		base, digits = 16, body[2:]
	case len(body) > 1 && body[0] == '0':
		base, digits = 8, body[1:]
	}
	end := 0
	for end < len(digits) {
		c := digits[end]
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			d = 99
		}
		if d >= base {
			break
		}
		end++
	}
	u, err := strconv.ParseUint(digits[:end], base, 64)
	if end == 0 {
		u, err = 0, nil
	}
	n := int64(u)
	if err != nil {
		p.r.errf("printf: %s: Numerical result out of range", a)
		p.failed = true
		if neg {
			return math.MinInt64, false
		}
		return math.MaxInt64, false
	}
	if neg {
		n = -n
	}
	if end < len(digits) || len(digits) == 0 {
		p.r.errf("printf: %s: invalid number", a)
		p.failed = true
	}
	return n, true
}

func (p *printer) float(a string) float64 {
	if a == "" {
		return 0
	}
	if a[0] == '\'' || a[0] == '"' {
		if len(a) == 1 {
			return 0
		}
		r, _ := utf8.DecodeRuneInString(a[1:])
		return float64(r)
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
	if err != nil {
		if n, e := strconv.ParseInt(a, 0, 64); e == nil {
			return float64(n)
		}
		p.r.errf("printf: %s: invalid number", a)
		p.failed = true
		return 0
	}
	return x
}

// escape decodes one backslash escape of a printf format (s follows the
// backslash); n is how many bytes of s it used.
func escape(s string, b bool) (string, int, bool) {
	if s == "" {
		return "\\", 0, false
	}
	switch c := s[0]; c {
	case 'n':
		return "\n", 1, false
	case 't':
		return "\t", 1, false
	case 'r':
		return "\r", 1, false
	case 'a':
		return "\a", 1, false
	case 'b':
		return "\b", 1, false
	case 'f':
		return "\f", 1, false
	case 'v':
		return "\v", 1, false
	case 'e', 'E':
		return "\x1b", 1, false
	case '\\':
		return "\\", 1, false
	case '"':
		return "\"", 1, false
	case '\'':
		return "'", 1, false
	case '?':
		return "?", 1, false
	case 'c':
		if b {
			return "", 1, true
		}
		return "\\c", 1, false
	case 'x':
		j := 1
		for j < len(s) && j < 3 && isHex(s[j]) {
			j++
		}
		if j == 1 {
			return "\\x", 1, false
		}
		n, _ := strconv.ParseUint(s[1:j], 16, 8)
		return string([]byte{byte(n)}), j, false
	case 'u', 'U':
		max := 4
		if c == 'U' {
			max = 8
		}
		j := 1
		for j < len(s) && j < 1+max && isHex(s[j]) {
			j++
		}
		if j == 1 {
			return "\\" + string(c), 1, false
		}
		n, _ := strconv.ParseUint(s[1:j], 16, 32)
		return string(rune(n)), j, false
	case '0', '1', '2', '3', '4', '5', '6', '7':
		j := 0
		lim := 3
		if b && c == '0' {
			lim = 4
		}
		for j < len(s) && j < lim && s[j] >= '0' && s[j] <= '7' {
			j++
		}
		n, _ := strconv.ParseUint(s[:j], 8, 16)
		return string([]byte{byte(n)}), j, false
	}
	return "\\" + s[:1], 1, false
}

// bEscapes is %b's expansion; stop is \c.
func bEscapes(a string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(a); i++ {
		if a[i] != '\\' {
			b.WriteByte(a[i])
			continue
		}
		s, n, stop := escape(a[i+1:], true)
		if stop {
			return b.String(), true
		}
		b.WriteString(s)
		i += n
	}
	return b.String(), false
}

// printfQuote is %q: backslashes before special characters, ” for
// empty, $'...' for control characters.
func printfQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return dollarQuote(s)
		}
	}
	var b strings.Builder
	for i, c := range s {
		if strings.ContainsRune(" \t\n'\"\\$`*?[]|&;<>(){}!#^,", c) || c == '~' && i == 0 || c == '=' && false {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
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
