package cmds

// Quoting of names and values in diagnostics, as gnulib's quotearg module
// does it for the GNU tools (coreutils, findutils, diffutils, grep, tar).
// Which form a message uses is the tool's choice, message by message; check
// the real tool in both locales (a name with a space, a quote, a newline, é):
//
//   - quote(env, s): gnulib quote() (locale style), for values and some
//     names: "invalid number of lines: ‘x’", "find: ‘x’: No such file or
//     directory", "mkdir: cannot create directory ‘x’", "extra operand ‘x’"
//     (basename, date). In a UTF-8 locale ‘x’, else 'x'; control
//     characters, backslashes, the closing quote and what the locale cannot
//     print are backslash-escaped: ‘a\nb’, 'it\'s', '\303\251'.
//   - quoteaf(env, s): quoteaf() (shell-escape-always style), for most file
//     names in coreutils messages ("rm: cannot remove 'x'"). The quote marks
//     are ASCII in every locale; only what is printable changes: 'x',
//     "it's" (a single quote and nothing needing escapes), 'it'\''s$',
//     'a'$'\n''b', 'é' in UTF-8 but ''$'\303\251' in C.
//   - quotef(env, s): quotef() (shell-escape style, ':' also quoted): as
//     quoteaf, but a name the shell reads as itself is left bare ("cat: x:
//     No such file or directory", "cat: 'a b': ...").
//   - quoteShell(env, s): the same without the ':' (printf's %q).
//   - quoteC(env, s): C style, "a\"b" (ls -Q).
//
// The locale is LC_CTYPE's: the first non-empty of LC_ALL, LC_CTYPE and
// LANG (utf8Locale). LC_MESSAGES plays no part: there are no translations,
// and the quote marks come from the character set. Quotes written into a
// message's text are ASCII in every locale and quote nothing: glibc getopt's
// "invalid option -- 'x'" and "unrecognized option '--x'", "Try 'cmd
// --help' for more information.", du's "invalid --block-size argument
// 'x'", diff's and cmp's "extra operand 'x'", xargs' "invalid number \"x\"
// for -n option"; print those with a plain %s.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// utf8Locale reports whether env selects a UTF-8 character set, as
// setlocale(LC_CTYPE, "") does: the first non-empty of LC_ALL, LC_CTYPE
// and LANG names a locale whose codeset, spelt in any case with or without
// the hyphen, is UTF-8 ("C.UTF-8", "C.utf8", "en_US.UTF-8@euro"). Anything
// else, an unset locale included, is the C locale. (A real system also
// falls back to C for a locale it has not installed; every UTF-8 locale
// counts as installed here.)
func utf8Locale(env *Env) bool {
	if env == nil || env.Getenv == nil {
		return false
	}
	for _, v := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		s := env.Getenv(v)
		if s == "" {
			continue
		}
		_, cs, ok := strings.Cut(s, ".")
		if !ok {
			return false
		}
		cs, _, _ = strings.Cut(cs, "@")
		var norm strings.Builder
		for _, r := range cs {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
				norm.WriteRune(r)
			case r >= 'A' && r <= 'Z':
				norm.WriteRune(r + 'a' - 'A')
			}
		}
		return norm.String() == "utf8"
	}
	return false
}

// quote renders s as gnulib's quote() does in env's locale.
func quote(env *Env, s string) string {
	return quoteArg(s, qLocale, false, utf8Locale(env))
}

// quoteaf renders a file name as gnulib's quoteaf() does in env's locale.
func quoteaf(env *Env, s string) string {
	return quoteArg(s, qShellEscapeAlways, false, utf8Locale(env))
}

// quotef renders a file name as gnulib's quotef() does in env's locale
// (quotearg_n_style_colon: a ':' also makes the name quoted).
func quotef(env *Env, s string) string {
	return quoteArgColon(s, qShellEscape, utf8Locale(env))
}

// quoteShell renders s as quotearg_style (shell_escape_quoting_style) does
// in env's locale: quotef without the quoting of ':' (printf's %q).
func quoteShell(env *Env, s string) string {
	return quoteArg(s, qShellEscape, false, utf8Locale(env))
}

// quoteC renders s in c_quoting_style in env's locale: in double quotes,
// with C escapes for '"', '\' and what is not printable (ls -Q).
func quoteC(env *Env, s string) string {
	return quoteArg(s, qC, false, utf8Locale(env))
}

// qStyle is a gnulib quoting_style.
type qStyle int

const (
	qLocale            qStyle = iota // locale_quoting_style
	qC                               // c_quoting_style
	qShellAlways                     // shell_always_quoting_style
	qShellEscape                     // shell_escape_quoting_style
	qShellEscapeAlways               // shell_escape_always_quoting_style
)

// quoteArg is gnulib's quotearg_buffer_restyled for the styles above, with
// no extra quoted characters and no flags. elide is QA_ELIDE_OUTER_QUOTES;
// utf selects a UTF-8 locale (else the C locale, where only ASCII 0x20-0x7e
// is printable).
func quoteArg(arg string, style qStyle, elide, utf bool) string {
	return quoteArgs(arg, style, elide, utf, false, false, false)
}

// quoteArgColon is quoteArg with ':' among the characters to quote
// (set_char_quoting (o, ':', 1)).
func quoteArgColon(arg string, style qStyle, utf bool) string {
	return quoteArgs(arg, style, false, utf, true, false, false)
}

// quoteArgs is quoteArg with the quoting of ':' (colon), and the second
// pass gnulib makes over a name holding a single quote that cannot go in
// double quotes (again). That pass starts in the $'...' state the first one
// ended in (pending), as in the gnulib Debian 12's tools carry; for a'é in
// the C locale, rm prints
//
//	rm: cannot remove '''a'\'''$'\303\251': No such file or directory
func quoteArgs(arg string, style qStyle, elide, utf, colon, again, pending bool) string {
	style0 := style
	var b strings.Builder
	var quoteStr string
	backslashEscapes := false
	switch style {
	case qC:
		if !elide {
			b.WriteByte('"')
		}
		backslashEscapes = true
		quoteStr = `"`
	case qLocale:
		left, right := "'", "'"
		if utf {
			left, right = "\u2018", "\u2019"
		}
		if !elide {
			b.WriteString(left)
		}
		backslashEscapes = true
		quoteStr = right
	case qShellEscape, qShellEscapeAlways, qShellAlways:
		if style == qShellEscape {
			backslashEscapes = true
			elide = true
		} else if style == qShellEscapeAlways && !elide {
			backslashEscapes = true
		}
		style = qShellAlways
		if !elide {
			b.WriteByte('\'')
		}
		quoteStr = "'"
	}
	shell := style == qShellAlways
	pendingEnd := again && pending
	escaping := false
	encounteredSingle := false
	allCompat := true

	// startEsc is START_ESC; false means the outer quotes must be forced.
	startEsc := func() bool {
		if elide {
			return false
		}
		escaping = true
		if shell && !pendingEnd {
			b.WriteString(`'$'`)
			pendingEnd = true
		}
		b.WriteByte('\\')
		return true
	}
	endEsc := func() {
		if pendingEnd && !escaping {
			b.WriteString("''")
			pendingEnd = false
		}
	}

	for i := 0; i < len(arg); i++ {
		c := arg[i]
		isRightQuote := false
		escaping = false
		compat := false
		if backslashEscapes && !shell && quoteStr != "" && strings.HasPrefix(arg[i:], quoteStr) {
			if elide {
				return quoteForce(arg, style, backslashEscapes, utf)
			}
			isRightQuote = true
		}
		escape := false // goto store_escape
		var esc byte
		cEscape := false
		switch c {
		case 0:
			if backslashEscapes {
				if !startEsc() {
					return quoteForce(arg, style, backslashEscapes, utf)
				}
				if !shell && i+1 < len(arg) && arg[i+1] >= '0' && arg[i+1] <= '9' {
					b.WriteString("00")
				}
				c = '0'
			}
		case '?':
			if shell && elide {
				return quoteForce(arg, style, backslashEscapes, utf)
			}
		case '\a', '\b', '\f', '\v':
			esc = "abfv"[strings.IndexByte("\a\b\f\v", c)]
			cEscape = true
		case '\n', '\r', '\t':
			esc = "nrt"[strings.IndexByte("\n\r\t", c)]
			if shell && elide {
				return quoteForce(arg, style, backslashEscapes, utf)
			}
			cEscape = true
		case '\\':
			esc = c
			switch {
			case shell:
				if elide {
					return quoteForce(arg, style, backslashEscapes, utf)
				}
				// store_c
			case backslashEscapes && elide && quoteStr != "":
				// store_c
			default:
				cEscape = true
			}
		case '{', '}', '#', '~', ' ',
			'!', '"', '$', '&', '(', ')', '*', ';', '<', '=', '>', '[', '^', '`', '|':
			special := true
			switch c {
			case '{', '}':
				special = len(arg) == 1
			case '#', '~':
				special = i == 0
			}
			if special && strings.IndexByte("{}#~ ", c) >= 0 {
				compat = true
			}
			if special && shell && elide {
				return quoteForce(arg, style, backslashEscapes, utf)
			}
		case '\'':
			encounteredSingle = true
			compat = true
			if shell {
				if elide {
					return quoteForce(arg, style, backslashEscapes, utf)
				}
				b.WriteString(`'\'`)
				pendingEnd = false
			}
		default:
			if c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
				strings.IndexByte("%+,-./:]_", c) >= 0) {
				compat = true
				break
			}
			// A (possibly multibyte) character: printable ones are
			// copied, others escaped byte by byte in octal.
			m := 1
			printable := c >= 0x20 && c < 0x7f
			if utf && c >= 0x80 {
				r, size := utf8.DecodeRuneInString(arg[i:])
				if r == utf8.RuneError && size <= 1 {
					printable = false
				} else {
					m = size
					printable = glibcPrint(r)
				}
			}
			compat = printable
			if m > 1 || (backslashEscapes && !printable) {
				for j := i; j < i+m; j++ {
					cc := arg[j]
					if backslashEscapes && !printable {
						if !startEsc() {
							return quoteForce(arg, style, backslashEscapes, utf)
						}
						b.WriteByte('0' + cc>>6)
						b.WriteByte('0' + (cc>>3)&7)
						b.WriteByte('0' + cc&7)
						continue
					}
					if isRightQuote {
						b.WriteByte('\\')
						isRightQuote = false
					}
					endEsc()
					b.WriteByte(cc)
				}
				i += m - 1
				if !compat {
					allCompat = false
				}
				continue
			}
		}
		if cEscape {
			if backslashEscapes {
				c = esc
				escape = true
			}
		}
		if !escape {
			// quote_these_too (only ':', and only where it applies)
			if colon && c == ':' && ((backslashEscapes && !shell) || elide) || isRightQuote {
				escape = true
			}
		}
		if escape {
			if !startEsc() {
				return quoteForce(arg, style, backslashEscapes, utf)
			}
		}
		endEsc()
		b.WriteByte(c)
		if !compat {
			allCompat = false
		}
	}
	if b.Len() == 0 && shell && elide {
		return quoteForce(arg, style, backslashEscapes, utf)
	}
	// A single quote used as an apostrophe: "it's" rather than 'it'\''s'
	// when every character reads the same inside double quotes.
	if shell && !elide && encounteredSingle {
		if allCompat {
			return quoteArg(arg, qC, false, utf)
		}
		if !again {
			return quoteArgs(arg, style0, elide, utf, colon, true, pendingEnd)
		}
	}
	if !elide {
		b.WriteString(quoteStr)
	}
	return b.String()
}

// quoteForce is gnulib's force_outer_quoting_style: the name needs quoting
// after all, so quote it whole.
func quoteForce(arg string, style qStyle, backslashEscapes, utf bool) string {
	if style == qShellAlways && backslashEscapes {
		style = qShellEscapeAlways
	}
	return quoteArg(arg, style, false, utf)
}

// glibcPrint is iswprint in glibc 2.36's C.UTF-8 (Debian 12): every
// assigned character but the controls (Cc), line and paragraph separators
// and surrogates; format characters (Cf), all spaces and private-use
// characters count as printable. glibc 2.36 knows Unicode 14: characters
// Go's tables add after it are not printable there.
func glibcPrint(r rune) bool {
	if unicode.Is(glibcUnassigned, r) {
		return false
	}
	return unicode.IsPrint(r) || unicode.In(r, unicode.Zs, unicode.Cf, unicode.Co)
}

// glibcUnassigned are characters assigned after Unicode 14.0 that Go's
// unicode tables (15.0) hold: unassigned, so not printable, for glibc 2.36.
var glibcUnassigned = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x0CF3, 0x0CF3, 1}, {0x0ECE, 0x0ECE, 1},
	},
	R32: []unicode.Range32{
		{0x10EFD, 0x10EFF, 1}, {0x1123F, 0x11241, 1}, {0x11B00, 0x11B09, 1},
		{0x11F00, 0x11F10, 1}, {0x11F12, 0x11F3A, 1}, {0x11F3E, 0x11F59, 1},
		{0x1342F, 0x1342F, 1}, {0x13439, 0x13455, 1}, {0x1B132, 0x1B132, 1},
		{0x1B155, 0x1B155, 1}, {0x1D2C0, 0x1D2D3, 1}, {0x1DF25, 0x1DF2A, 1},
		{0x1E030, 0x1E06D, 1}, {0x1E08F, 0x1E08F, 1}, {0x1E4D0, 0x1E4F9, 1},
		{0x1F6DC, 0x1F6DC, 1}, {0x1F774, 0x1F776, 1}, {0x1F77B, 0x1F77F, 1},
		{0x1F7D9, 0x1F7D9, 1}, {0x1FA75, 0x1FA77, 1}, {0x1FA87, 0x1FA88, 1},
		{0x1FAAD, 0x1FAAF, 1}, {0x1FABB, 0x1FABD, 1}, {0x1FABF, 0x1FABF, 1},
		{0x1FACE, 0x1FACF, 1}, {0x1FADA, 0x1FADB, 1}, {0x1FAE8, 0x1FAE8, 1},
		{0x1FAF7, 0x1FAF8, 1}, {0x2B739, 0x2B739, 1}, {0x31350, 0x323AF, 1},
	},
}
