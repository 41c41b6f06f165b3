package cmds

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PrintfBuiltin is bash's printf builtin, which the shell runs in place of
// its interpreter's (that one lacks precision, %q, %f and more): the formats
// of Printf, with bash's differences. A bad number reads "printf: abc:
// invalid number" (status 1); a number out of range is a warning and is
// clamped (status 0); an unknown conversion is "`z': invalid format
// character"; extra arguments after a format without conversions are
// ignored silently; no arguments prints the usage line (status 2); %q quotes
// as bash does (backslashes, or $'...' for control characters). The shell
// handles -v NAME itself. Not supported: %(fmt)T.
func PrintfBuiltin(env *Env, args []string) int {
	return printf(env, args, true)
}

// quoteBashQ quotes s as bash's printf %q does (sh_backslash_quote, or
// ansic_quote when s holds a character that is not printable).
func quoteBashQ(s string) string {
	if s == "" {
		return "''"
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || !unicode.IsPrint(r) && r != ' ' {
			return quoteANSIC(s)
		}
		i += n
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case (r == '~' || r == '#') && i == 0,
			strings.ContainsRune(" \t\n'\"\\|&;()<>!{}*[?]^$`,", r):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// quoteANSIC is bash's $'...' form.
func quoteANSIC(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString("\\" + octal3(s[i]))
		case r == '\a':
			b.WriteString(`\a`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == 0x1b:
			b.WriteString(`\E`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\v':
			b.WriteString(`\v`)
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case !unicode.IsPrint(r) && r != ' ':
			for _, c := range []byte(s[i : i+n]) {
				b.WriteString("\\" + octal3(c))
			}
		default:
			b.WriteRune(r)
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

func octal3(c byte) string {
	o := strconv.FormatInt(int64(c), 8)
	return strings.Repeat("0", 3-len(o)) + o
}
