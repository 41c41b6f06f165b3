package cmds

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"time"

	pf "github.com/desk-dev/desk/internal/shell/printf"
	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("stat", Stat) }

// stDefaultFormat is GNU stat's default output (coreutils 9.1).
const stDefaultFormat = "  File: %N\n" +
	"  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n" +
	"Device: %Hd,%Ld\tInode: %-10i  Links: %h\n" +
	"Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n" +
	"Access: %x\nModify: %y\nChange: %z\n Birth: %w\n"

// stTerseFormat is stat -t's format.
const stTerseFormat = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n"

// Stat displays file status as GNU stat does: the default multi-line
// report, or -c/--format FORMAT (a newline added) and --printf FORMAT
// (backslash escapes, no newline), or -t/--terse. Directives: %n %N %s %b
// %B %o %a %A %f %F %u %U %g %G %i %h %d %D %t %T %m %x %X %y %Y %z %Z %w %W
// %%, with printf-style flags and widths; unknown ones print '?'. -L
// follows symlinks. Times are in UTC. The workspace is not a device: the
// device numbers are 0 and the I/O block is 4096.
func Stat(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "L|dereference", "c|format=", "|printf=", "t|terse", "f|file-system", "|cached=")
	if !ok {
		return 1
	}
	deref, terse := false, false
	format, printf := "", false
	haveFormat := false
	fsys := false
	for _, o := range opts {
		switch o.name {
		case "dereference":
			deref = true
		case "format":
			format, printf, haveFormat = o.val+"\n", false, true
		case "printf":
			format, printf, haveFormat = o.val, true, true
		case "terse":
			terse = true
		case "file-system":
			fsys = true
		}
	}
	if len(operands) == 0 {
		fuMissingOperand(env, "stat")
		return 1
	}
	if !haveFormat {
		if terse {
			format = stTerseFormat
		} else {
			format = stDefaultFormat
		}
	}
	if fsys {
		env.Errorf("stat", "--file-system is not supported by the shell backend")
		return 1
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	status := 0
	for _, op := range operands {
		if env.Canceled() {
			return 1
		}
		p := fuAbs(env, op)
		var fi *vfs.FileInfo
		var err error
		if deref {
			fi, err = env.FS.Stat(env.Ctx, p)
		} else {
			fi, err = env.FS.Lstat(env.Ctx, p)
		}
		if err != nil {
			w.Flush()
			env.Errorf("stat", "cannot statx %s: %s", quoteaf(env, op), Strerror(err))
			status = 1
			continue
		}
		s := &stFile{env: env, name: op, abs: p, a: fi.Attr(), deref: deref, def: !haveFormat && !terse}
		w.WriteString(s.render(format, printf))
	}
	return status
}

type stFile struct {
	env   *Env
	name  string
	abs   string
	a     vfs.Attr
	deref bool
	def   bool // the default format: %N unquoted
}

// render expands a format for one file. printf turns on backslash escapes.
func (s *stFile) render(format string, printf bool) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' && printf && i+1 < len(format) {
			i++
			i += stEscape(&b, format[i:]) - 1
			continue
		}
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(format) {
			b.WriteByte('%')
			break
		}
		j := fmtSpecEnd(format, i+1, "-+ #0'")
		if j >= len(format) {
			b.WriteString(format[i:])
			break
		}
		spec := strings.ReplaceAll(format[i+1:j], "'", "")
		d := format[j]
		i = j
		if d == '%' {
			b.WriteByte('%')
			continue
		}
		if (d == 'H' || d == 'L') && i+1 < len(format) && (format[i+1] == 'd' || format[i+1] == 'r') {
			i++
			b.WriteString(stPad(spec, "0", true))
			continue
		}
		v, num := s.directive(d, spec)
		if strings.IndexByte("XYZW", d) >= 0 {
			spec, _, _ = strings.Cut(spec, ".")
		}
		b.WriteString(stPad(spec, v, num))
	}
	return b.String()
}

// stPad applies printf flags, width and precision to a directive's value.
func stPad(spec, v string, num bool) string {
	if spec == "" {
		return v
	}
	if num {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return fmt.Sprintf("%"+spec+"d", n)
		}
	}
	return fmt.Sprintf("%"+stKeepWidth(spec)+"s", v)
}

// stKeepWidth keeps of a directive's flags only those that apply to a
// string ('-'), with the width and precision.
func stKeepWidth(spec string) string {
	i := 0
	for i < len(spec) && strings.IndexByte("-+ #0", spec[i]) >= 0 {
		i++
	}
	if strings.Contains(spec[:i], "-") {
		return "-" + spec[i:]
	}
	return spec[i:]
}

// stEscape writes the backslash escape at the start of s (after the '\')
// and returns how many bytes it used.
func stEscape(b *strings.Builder, s string) int {
	if e, ok := pf.CEscape(s[0]); ok {
		b.WriteByte(e)
		return 1
	}
	switch s[0] {
	case '"':
		b.WriteByte('"')
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, k := 0, 0
		for k < 3 && k < len(s) && s[k] >= '0' && s[k] <= '7' {
			n = n*8 + int(s[k]-'0')
			k++
		}
		b.WriteByte(byte(n))
		return k
	case 'x':
		n, k := 0, 1
		for k < 3 && k < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[k]) >= 0 {
			v, _ := strconv.ParseUint(s[k:k+1], 16, 8)
			n = n*16 + int(v)
			k++
		}
		if k == 1 {
			b.WriteString("\\x")
			return 1
		}
		b.WriteByte(byte(n))
		return k
	default:
		b.WriteByte('\\')
		b.WriteByte(s[0])
	}
	return 1
}

// stTime renders a time as stat does: "2006-01-02 15:04:05.000000000 +0000".
func stTime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.000000000 -0700")
}

// stSeconds renders %X-style seconds, with a precision giving decimals.
func stSeconds(t time.Time, spec string) string {
	s := strconv.FormatInt(t.Unix(), 10)
	if _, prec, ok := strings.Cut(spec, "."); ok {
		n, _ := strconv.Atoi(prec)
		if n == 0 && prec == "" {
			n = 9
		}
		if n > 0 {
			frac := fmt.Sprintf("%09d", t.Nanosecond())
			for len(frac) < n {
				frac += "0"
			}
			s += "." + frac[:n]
		}
	}
	return s
}

// directive expands one directive; num says whether it is a number (for
// the '0' flag and widths).
func (s *stFile) directive(d byte, spec string) (string, bool) {
	a := s.a
	u64 := func(v uint64) (string, bool) { return strconv.FormatUint(v, 10), true }
	switch d {
	case 'n':
		return s.name, false
	case 'N':
		if s.def {
			if a.IsSymlink() {
				t, _ := s.env.FS.Readlink(s.env.Ctx, s.abs)
				return s.name + " -> " + t, false
			}
			return s.name, false
		}
		if a.IsSymlink() {
			t, _ := s.env.FS.Readlink(s.env.Ctx, s.abs)
			return quoteaf(s.env, s.name) + " -> " + quoteaf(s.env, t), false
		}
		return quoteaf(s.env, s.name), false
	case 's':
		return strconv.FormatInt(a.Size, 10), true
	case 'b':
		return strconv.FormatInt(fuBlocks(a), 10), true
	case 'B':
		return "512", true
	case 'o':
		return "4096", true
	case 'a':
		v := strconv.FormatUint(uint64(a.Mode&0o7777), 8)
		if strings.Contains(spec, "#") {
			v = "0" + v
		}
		return v, !strings.Contains(spec, "#")
	case 'A':
		return vfs.ModeString(a.Mode), false
	case 'f':
		return strconv.FormatUint(uint64(a.Mode), 16), false
	case 'F':
		return fuFileTypeName(a), false
	case 'u':
		return u64(uint64(a.Uid))
	case 'U':
		return fuUserName(a.Uid), false
	case 'g':
		return u64(uint64(a.Gid))
	case 'G':
		return fuGroupName(a.Gid), false
	case 'i':
		return u64(a.Ino)
	case 'h':
		return u64(uint64(a.Nlink))
	case 'd':
		return "0", true
	case 'D', 't', 'T':
		return "0", false
	case 'm':
		return "/", false
	case 'x':
		return stTime(a.Atime), false
	case 'y':
		return stTime(a.Mtime), false
	case 'z':
		return stTime(a.Ctime), false
	case 'w':
		if a.Btime.IsZero() {
			return "-", false
		}
		return stTime(a.Btime), false
	case 'X':
		return stSeconds(a.Atime, spec), false
	case 'Y':
		return stSeconds(a.Mtime, spec), false
	case 'Z':
		return stSeconds(a.Ctime, spec), false
	case 'W':
		if a.Btime.IsZero() {
			return "0", false
		}
		return stSeconds(a.Btime, spec), false
	}
	return "?", false
}

// fmtSpecEnd returns where the conversion character of a printf-style
// directive of find -printf or stat --format stands (len(format) when
// there is none): past the flag characters (those of flags), the width and
// the precision that begin at format[j].
func fmtSpecEnd(format string, j int, flags string) int {
	for j < len(format) && strings.IndexByte(flags, format[j]) >= 0 {
		j++
	}
	for j < len(format) && (format[j] >= '0' && format[j] <= '9' || format[j] == '.') {
		j++
	}
	return j
}
