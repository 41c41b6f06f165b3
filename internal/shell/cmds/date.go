package cmds

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // TZ names resolve without the host's zoneinfo
)

func init() { Register("date", Date) }

// Date prints the date (Env.Clock) as GNU date, in UTC unless TZ (from Env.Getenv) names
// a zone: the default format `Mon Nov 30 01:02:03 UTC 2026`, +FORMAT with
// the common % specifiers (and the -, _, 0, ^ flags), -d DATE in GNU's
// date input grammar (parsedate.go); -u,
// -I[date|hours|minutes|seconds|ns], -R, -r FILE (modification time).
func Date(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "date", args[1:], optSpec{shorts: "d:uI::Rr:f:s:",
		longs: []string{"date=", "utc", "universal", "iso-8601=?", "rfc-email", "rfc-2822", "reference=",
			"file=", "set=", "rfc-3339=", "debug"}})
	if !ok {
		return 1
	}
	loc := loadTZ(env.Getenv("TZ"))
	t := env.Clock()
	format := "%a %b %e %H:%M:%S %Z %Y"
	var dateStr *string
	for _, o := range opts {
		switch o.name {
		case "u", "utc", "universal":
			loc = time.UTC
		case "d", "date":
			v := o.val
			dateStr = &v
		case "I", "iso-8601":
			spec := o.val
			if spec == "" {
				spec = "date"
			}
			f, ok := map[string]string{"date": "%Y-%m-%d", "hours": "%Y-%m-%dT%H%:z", "minutes": "%Y-%m-%dT%H:%M%:z",
				"seconds": "%Y-%m-%dT%H:%M:%S%:z", "ns": "%Y-%m-%dT%H:%M:%S,%N%:z"}[spec]
			if !ok {
				env.Errorf("date", "invalid argument %s for '--iso-8601'", quote(env, spec))
				return 1
			}
			format = f
		case "rfc-3339":
			f, ok := map[string]string{"date": "%Y-%m-%d", "seconds": "%Y-%m-%d %H:%M:%S%:z", "ns": "%Y-%m-%d %H:%M:%S.%N%:z"}[o.val]
			if !ok {
				env.Errorf("date", "invalid argument %s for '--rfc-3339'", quote(env, o.val))
				return 1
			}
			format = f
		case "R", "rfc-email", "rfc-2822":
			format = "%a, %d %b %Y %H:%M:%S %z"
		case "r", "reference":
			fi, err := env.FS.Stat(env.Ctx, env.Abs(o.val))
			if err != nil {
				env.PathError("date", o.val, err)
				return 1
			}
			t = fi.ModTime()
		case "s", "set":
			env.Errorf("date", "cannot set date: Operation not permitted")
			return 1
		case "f", "file":
			env.Errorf("date", "--file is not supported in the shell backend")
			return 1
		}
	}
	if len(ops) > 1 {
		tryHelp(env, "date", "extra operand %s", quote(env, ops[1]))
		return 1
	}
	for _, op := range ops {
		if strings.HasPrefix(op, "+") {
			if format != "%a %b %e %H:%M:%S %Z %Y" && !strings.HasPrefix(format, "+") {
				env.Errorf("date", "multiple output formats specified")
				return 1
			}
			format = "+" + op[1:]
			continue
		}
		tryHelp(env, "date", "invalid date %s", quote(env, op))
		return 1
	}
	format = strings.TrimPrefix(format, "+")
	t = t.In(loc)
	if dateStr != nil {
		var ok bool
		if t, ok = parseDate(*dateStr, t, loc); !ok {
			env.Errorf("date", "invalid date %s", quote(env, *dateStr))
			return 1
		}
	}
	fmt.Fprintln(env.Stdout, strftime(format, t.In(loc)))
	return 0
}

// strftime formats t as C's strftime with GNU date's extensions (%N, %:z,
// %-d and the _ 0 ^ # flags).
func strftime(f string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' || i+1 == len(f) {
			b.WriteByte(c)
			continue
		}
		start := i
		i++
		flag := byte(0)
		for i < len(f) && strings.IndexByte("-_0^#", f[i]) >= 0 {
			flag = f[i]
			i++
		}
		width := -1
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			if width < 0 {
				width = 0
			}
			width = width*10 + int(f[i]-'0')
			i++
		}
		colons := 0
		for i < len(f) && f[i] == ':' {
			colons++
			i++
		}
		if i == len(f) {
			b.WriteString(f[start:])
			break
		}
		num := func(n, w int, pad byte) string {
			if flag == '-' {
				return strconv.Itoa(n)
			}
			if flag == '_' {
				pad = ' '
			} else if flag == '0' {
				pad = '0'
			}
			if width >= 0 {
				w = width
			}
			s := strconv.Itoa(n)
			for len(s) < w {
				s = string(pad) + s
			}
			return s
		}
		str := func(s string) string {
			if flag == '^' {
				s = strings.ToUpper(s)
			} else if flag == '#' {
				s = strings.ToLower(s)
			}
			for width > len(s) {
				s = " " + s
			}
			return s
		}
		_, offset := t.Zone()
		switch f[i] {
		case 'a':
			b.WriteString(str(t.Weekday().String()[:3]))
		case 'A':
			b.WriteString(str(t.Weekday().String()))
		case 'b', 'h':
			b.WriteString(str(t.Month().String()[:3]))
		case 'B':
			b.WriteString(str(t.Month().String()))
		case 'c':
			b.WriteString(str(strftime("%a %b %e %H:%M:%S %Y", t)))
		case 'C':
			b.WriteString(num(t.Year()/100, 2, '0'))
		case 'd':
			b.WriteString(num(t.Day(), 2, '0'))
		case 'D':
			b.WriteString(strftime("%m/%d/%y", t))
		case 'e':
			b.WriteString(num(t.Day(), 2, ' '))
		case 'F':
			b.WriteString(strftime("%Y-%m-%d", t))
		case 'g':
			y, _ := t.ISOWeek()
			b.WriteString(num(y%100, 2, '0'))
		case 'G':
			y, _ := t.ISOWeek()
			b.WriteString(num(y, 4, '0'))
		case 'H':
			b.WriteString(num(t.Hour(), 2, '0'))
		case 'I':
			b.WriteString(num((t.Hour()+11)%12+1, 2, '0'))
		case 'j':
			b.WriteString(num(t.YearDay(), 3, '0'))
		case 'k':
			b.WriteString(num(t.Hour(), 2, ' '))
		case 'l':
			b.WriteString(num((t.Hour()+11)%12+1, 2, ' '))
		case 'm':
			b.WriteString(num(int(t.Month()), 2, '0'))
		case 'M':
			b.WriteString(num(t.Minute(), 2, '0'))
		case 'n':
			b.WriteByte('\n')
		case 'N':
			s := fmt.Sprintf("%09d", t.Nanosecond())
			if width > 0 && width < 9 {
				s = s[:width]
			}
			b.WriteString(s)
		case 'p':
			if t.Hour() < 12 {
				b.WriteString(str("AM"))
			} else {
				b.WriteString(str("PM"))
			}
		case 'P':
			if t.Hour() < 12 {
				b.WriteString("am")
			} else {
				b.WriteString("pm")
			}
		case 'r':
			b.WriteString(strftime("%I:%M:%S %p", t))
		case 'R':
			b.WriteString(strftime("%H:%M", t))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'S':
			b.WriteString(num(t.Second(), 2, '0'))
		case 't':
			b.WriteByte('\t')
		case 'T', 'X':
			b.WriteString(strftime("%H:%M:%S", t))
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			b.WriteString(num(wd, 1, '0'))
		case 'U':
			b.WriteString(num((t.YearDay()+6-int(t.Weekday()))/7, 2, '0'))
		case 'V':
			_, w := t.ISOWeek()
			b.WriteString(num(w, 2, '0'))
		case 'w':
			b.WriteString(num(int(t.Weekday()), 1, '0'))
		case 'W':
			b.WriteString(num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2, '0'))
		case 'x':
			b.WriteString(strftime("%m/%d/%y", t))
		case 'y':
			b.WriteString(num(t.Year()%100, 2, '0'))
		case 'Y':
			b.WriteString(num(t.Year(), 1, '0'))
		case 'z':
			sign := byte('+')
			if offset < 0 {
				sign, offset = '-', -offset
			}
			h, m, s := offset/3600, offset/60%60, offset%60
			switch colons {
			case 0:
				fmt.Fprintf(&b, "%c%02d%02d", sign, h, m)
			case 1:
				fmt.Fprintf(&b, "%c%02d:%02d", sign, h, m)
			default:
				fmt.Fprintf(&b, "%c%02d:%02d:%02d", sign, h, m, s)
			}
		case 'Z':
			name, _ := t.Zone()
			if name == "" {
				name = strftime("%:z", t)
			}
			b.WriteString(str(name))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteString(f[start : i+1])
		}
	}
	return b.String()
}
