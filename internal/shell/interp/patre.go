package interp

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Patterns without extglob groups are matched in linear time: match by
// matchSimple (the wildcard matcher that backtracks only to the last *),
// and the searches of ${x//p/r}, ${x##p} and ${x%%p} by a regular
// expression the pattern translates to (re), so that a pattern applied to
// a string of megabytes costs one pass, not one match per position pair.

// simple reports whether the pattern has no extglob group.
func (m *matcher) simple() bool {
	for _, t := range m.toks {
		if t.kind == pExt {
			return false
		}
	}
	return true
}

// literal returns the pattern as a plain string when it is one (and case
// matters).
func (m *matcher) literal() (string, bool) {
	if m.nocase {
		return "", false
	}
	var b strings.Builder
	for _, t := range m.toks {
		if t.kind != pLit {
			return "", false
		}
		b.WriteRune(t.r)
	}
	return b.String(), true
}

// one reports whether the rune c matches the single-rune token t.
func (m *matcher) one(t ptok, c rune) bool {
	switch t.kind {
	case pLit:
		return c == t.r || m.nocase && equalFoldRune(c, t.r)
	case pAny:
		return true
	case pClass:
		return t.class.has(c, m.nocase)
	}
	return false
}

func equalFoldRune(a, b rune) bool {
	return strings.EqualFold(string(a), string(b))
}

// matchSimple matches a pattern without extglob groups against all of s:
// on a mismatch it resumes after the last * one rune further, so it never
// backtracks further than that (O(len(s)·len(toks)) at worst).
func (m *matcher) matchSimple(s string) bool {
	toks := m.toks
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for si < len(s) {
		if ti < len(toks) {
			t := toks[ti]
			if t.kind == pStar {
				starTi, starSi = ti, si
				ti++
				continue
			}
			if c, n := utf8.DecodeRuneInString(s[si:]); m.one(t, c) {
				ti++
				si += n
				continue
			}
		}
		if starTi < 0 {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starSi:])
		starSi += n
		ti, si = starTi+1, starSi
	}
	for ti < len(toks) && toks[ti].kind == pStar {
		ti++
	}
	return ti == len(toks)
}

// re returns the regular expression of a pattern without extglob groups,
// with the anchors around it (before: "^" or ""; after: "$" or ""), and
// leftmost-longest when longest is set. It is compiled once per matcher
// and shape.
func (m *matcher) re(before, after string, longest bool) *regexp.Regexp {
	key := before + after
	if longest {
		key += "L"
	}
	if re, ok := m.res[key]; ok {
		return re
	}
	var b strings.Builder
	b.WriteString("(?s)")
	if m.nocase {
		b.WriteString("(?i)")
	}
	b.WriteString(before + "(?:")
	for _, t := range m.toks {
		switch t.kind {
		case pLit:
			b.WriteString(regexp.QuoteMeta(string(t.r)))
		case pAny:
			b.WriteString(".")
		case pStar:
			b.WriteString(".*")
		case pClass:
			b.WriteString(t.class.re())
		}
	}
	b.WriteString(")" + after)
	re := regexp.MustCompile(b.String())
	if longest {
		re.Longest()
	}
	if m.res == nil {
		m.res = map[string]*regexp.Regexp{}
	}
	m.res[key] = re
	return re
}

// classRE are the named classes as regular expression classes, matching
// what namedClasses' functions accept.
var classRE = map[string]string{
	"alpha": `\p{L}`, "digit": `0-9`, "alnum": `\p{L}\p{Nd}`, "upper": `\p{Lu}`, "lower": `\p{Ll}`,
	"space": `\t\n\v\f\r \x{85}\x{A0}\p{Z}`, "blank": ` \t`, "punct": `!-/:-@\[-` + "`" + `{-~`,
	"print": `\p{L}\p{M}\p{N}\p{P}\p{S} `, "graph": `\p{L}\p{M}\p{N}\p{P}\p{S}`, "cntrl": `\p{Cc}`,
	"xdigit": `0-9A-Fa-f`, "word": `_\p{L}\p{Nd}`,
}

// re returns the class as a regular expression.
func (c *charClass) re() string {
	var b strings.Builder
	b.WriteByte('[')
	if c.neg {
		b.WriteByte('^')
	}
	for _, rg := range c.ranges {
		if rg[0] > rg[1] {
			continue
		}
		fmt.Fprintf(&b, `\x{%x}`, rg[0])
		if rg[1] != rg[0] {
			fmt.Fprintf(&b, `-\x{%x}`, rg[1])
		}
	}
	for _, name := range c.names {
		b.WriteString(classRE[name])
	}
	if len(c.ranges) == 0 && len(c.names) == 0 {
		// an empty class matches nothing (negated: anything)
		if c.neg {
			return "(?:.)"
		}
		return `[^\x00-\x{10FFFF}]`
	}
	b.WriteByte(']')
	return b.String()
}
