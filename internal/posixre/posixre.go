package posixre

import (
	"errors"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is a syntax error in a pattern, worded as GNU's regex library
// words it ("Unmatched [, [^, [:, [., or [=", "Invalid range end", ...), so
// callers print it as GNU grep and sed do.
type Error string

func (e Error) Error() string { return string(e) }

// ErrBackref is returned for a valid back-reference (\1 ... \9), which RE2
// cannot express; callers reword it for their command.
var ErrBackref = errors.New("back-references (\\1 ... \\9) are not supported")

// Translate turns one GNU BRE (ere false) or ERE pattern into Go syntax.
// warn receives GNU's warnings ("* at start of expression").
func Translate(p string, ere bool, warn func(string)) (string, error) {
	var b strings.Builder
	groups := 0 // groups opened so far (for back-reference validity)
	depth := 0
	atStart := true // at the start of an expression: after ^, (, | or the beginning
	lastAtom := false
	caret := false // just after a BRE's leading ^, where another ^ is literal
	for i := 0; i < len(p); {
		c := p[i]
		start := atStart
		afterCaret := caret
		atStart, caret = false, false
		switch {
		case c == '\\':
			if i+1 >= len(p) {
				return "", Error("Trailing backslash")
			}
			d := p[i+1]
			i += 2
			if !ere {
				switch d {
				case '(':
					b.WriteString("(")
					groups++
					depth++
					atStart = true
					lastAtom = false
					continue
				case ')':
					if depth == 0 {
						return "", Error("Unmatched ) or \\)")
					}
					depth--
					b.WriteString(")")
					lastAtom = true
					continue
				case '|':
					b.WriteString("|")
					atStart = true
					lastAtom = false
					continue
				case '{':
					if start || !lastAtom {
						b.WriteString(`\{`)
						lastAtom = true
						continue
					}
					end := strings.Index(p[i:], `\}`)
					if end < 0 {
						return "", Error("Unmatched \\{")
					}
					iv, err := interval(p[i : i+end])
					if err != nil {
						return "", err
					}
					b.WriteString(iv)
					i += end + 2
					continue
				case '}':
					b.WriteString(`\}`)
					lastAtom = true
					continue
				case '+', '?':
					if start || !lastAtom {
						b.WriteString(`\` + string(d))
						lastAtom = true
						continue
					}
					b.WriteByte(d)
					continue
				}
			}
			switch {
			case d >= '1' && d <= '9':
				if int(d-'0') > groups {
					return "", Error("Invalid back reference")
				}
				return "", ErrBackref
			case d == '<' || d == '>' || d == 'b':
				b.WriteString(`\b`)
			case d == 'B':
				b.WriteString(`\B`)
			case d == 'w', d == 'W', d == 's', d == 'S':
				b.WriteString(`\` + string(d))
				lastAtom = true
			case d == '`':
				b.WriteString(`\A`)
			case d == '\'':
				b.WriteString(`\z`)
			default:
				r, n := utf8.DecodeRuneInString(p[i-1:])
				i += n - 1
				b.WriteString(regexp.QuoteMeta(string(r)))
				lastAtom = true
			}
		case c == '[':
			cls, n, err := bracket(p[i:])
			if err != nil {
				return "", err
			}
			b.WriteString(cls)
			i += n
			lastAtom = true
		case c == '.':
			b.WriteString(".")
			i++
			lastAtom = true
		case c == '*':
			i++
			if start || !lastAtom {
				if ere {
					warn("* at start of expression")
					atStart = start
					continue
				}
				b.WriteString(`\*`)
				lastAtom = true
				continue
			}
			b.WriteString("*")
		case c == '^':
			i++
			if ere || start && !afterCaret {
				b.WriteString("^")
				atStart, caret = true, !ere
				lastAtom = false
				continue
			}
			b.WriteString(`\^`)
			lastAtom = true
		case c == '$':
			i++
			rest := p[i:]
			if ere || rest == "" || !ere && (strings.HasPrefix(rest, `\)`) || strings.HasPrefix(rest, `\|`)) {
				b.WriteString("$")
				lastAtom = false
				continue
			}
			b.WriteString(`\$`)
			lastAtom = true
		case ere && c == '(':
			b.WriteString("(")
			groups++
			depth++
			i++
			atStart = true
			lastAtom = false
		case ere && c == ')':
			i++
			if depth == 0 {
				b.WriteString(`\)`)
				lastAtom = true
				continue
			}
			depth--
			b.WriteString(")")
			lastAtom = true
		case ere && c == '|':
			b.WriteString("|")
			i++
			atStart = true
			lastAtom = false
		case ere && (c == '+' || c == '?'):
			i++
			if start || !lastAtom {
				warn(string(c) + " at start of expression")
				atStart = start
				continue
			}
			b.WriteByte(c)
		case ere && c == '{':
			end := strings.IndexByte(p[i:], '}')
			iv, err := "", errors.New("")
			if end > 0 {
				iv, err = interval(p[i+1 : i+end])
			}
			if err != nil {
				b.WriteString(`\{`)
				i++
				lastAtom = true
				continue
			}
			if start || !lastAtom {
				warn("{...} at start of expression")
				i += end + 1
				atStart = start
				continue
			}
			b.WriteString(iv)
			i += end + 1
		default:
			r, n := utf8.DecodeRuneInString(p[i:])
			if r == utf8.RuneError && n == 1 {
				b.WriteString(`\x` + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
			} else {
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
			i += n
			lastAtom = true
		}
	}
	if depth > 0 {
		return "", Error("Unmatched ( or \\(")
	}
	return b.String(), nil
}

// interval converts the inside of {m,n} to Go syntax.
func interval(s string) (string, error) {
	lo, hi, comma := strings.Cut(s, ",")
	num := func(x string) bool {
		if x == "" {
			return true
		}
		for _, c := range x {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	if !num(lo) || !num(hi) || !comma && lo == "" {
		return "", Error("Invalid content of \\{\\}")
	}
	if lo == "" {
		lo = "0"
	}
	if !comma {
		return "{" + lo + "}", nil
	}
	return "{" + lo + "," + hi + "}", nil
}

// bracket converts the bracket expression at the start of p; it returns
// the Go class and the length consumed.
func bracket(p string) (string, int, error) {
	var b strings.Builder
	b.WriteByte('[')
	i := 1
	if i < len(p) && p[i] == '^' {
		b.WriteByte('^')
		i++
	}
	first := true
	for i < len(p) {
		c := p[i]
		if c == ']' && !first {
			b.WriteByte(']')
			return b.String(), i + 1, nil
		}
		first = false
		if c == '[' && i+1 < len(p) && (p[i+1] == ':' || p[i+1] == '=' || p[i+1] == '.') {
			kind := p[i+1]
			end := strings.Index(p[i+2:], string(kind)+"]")
			if end < 0 {
				return "", 0, Error("Unmatched [, [^, [:, [., or [=")
			}
			name := p[i+2 : i+2+end]
			i += 2 + end + 2
			if kind == ':' {
				switch name {
				case "alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print", "graph", "cntrl", "xdigit":
					b.WriteString("[:" + name + ":]")
				default:
					return "", 0, Error("Invalid character class name")
				}
				continue
			}
			b.WriteString(regexp.QuoteMeta(name))
			continue
		}
		r, n := utf8.DecodeRuneInString(p[i:])
		i += n
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi, hn := utf8.DecodeRuneInString(p[i+1:])
			if hi < r {
				return "", 0, Error("Invalid range end")
			}
			b.WriteString(classChar(r) + "-" + classChar(hi))
			i += 1 + hn
			continue
		}
		b.WriteString(classChar(r))
	}
	return "", 0, Error("Unmatched [, [^, [:, [., or [=")
}

func classChar(r rune) string {
	if r < utf8.RuneSelf && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return `\` + string(r)
	}
	return string(r)
}
