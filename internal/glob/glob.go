// Package glob matches slash-separated relative paths against patterns
// agents write: within a segment * ? [..] as path.Match, {a,b} alternatives
// (nested allowed, at most MaxAlternatives after expansion), and a segment
// "**" matching any number of segments, none included. The API's search
// endpoint and the find and grep tools share it.
package glob

import (
	"errors"
	"path"
	"strconv"
	"strings"
)

// MaxAlternatives bounds the patterns a glob's {a,b} groups expand to.
const MaxAlternatives = 256

// Pattern is a compiled glob.
type Pattern struct {
	alts     [][]string
	nameOnly bool
}

// Compile compiles pattern. With nameOnly, a pattern without a slash is
// matched against the last segment only (a name at any depth, as find
// -name). The error says what is wrong with the pattern, for a message that
// names it.
func Compile(pattern string, nameOnly bool) (*Pattern, error) {
	if pattern == "" {
		return nil, errors.New("it is empty")
	}
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	g := &Pattern{nameOnly: nameOnly && !strings.Contains(pattern, "/")}
	for _, a := range alts {
		segs := strings.Split(strings.Trim(a, "/"), "/")
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				return nil, errors.New("malformed segment " + strconv.Quote(s))
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// expandBraces expands {a,b} groups (outside [..] classes and escapes).
func expandBraces(p string) ([]string, error) {
	depth, open, inClass := 0, -1, false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '{':
			if depth == 0 {
				open = i
			}
			depth++
		case c == '}' && depth > 0:
			depth--
			if depth > 0 {
				continue
			}
			var parts []string
			d, last := 0, open+1
			for j := open + 1; j < i; j++ {
				switch p[j] {
				case '\\':
					j++
				case '{':
					d++
				case '}':
					d--
				case ',':
					if d == 0 {
						parts = append(parts, p[last:j])
						last = j + 1
					}
				}
			}
			parts = append(parts, p[last:i])
			var out []string
			for _, part := range parts {
				sub, err := expandBraces(p[:open] + part + p[i+1:])
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
				if len(out) > MaxAlternatives {
					return nil, errors.New("too many {a,b} alternatives (at most " + strconv.Itoa(MaxAlternatives) + ")")
				}
			}
			return out, nil
		}
	}
	if depth > 0 {
		return nil, errors.New("unclosed {")
	}
	return []string{p}, nil
}

// Match reports whether the relative path rel matches.
func (g *Pattern) Match(rel string) bool {
	if g.nameOnly {
		rel = path.Base(rel)
	}
	segs := strings.Split(rel, "/")
	for _, a := range g.alts {
		if matchSegs(a, segs) {
			return true
		}
	}
	return false
}

func matchSegs(p, s []string) bool {
	for len(p) > 0 {
		if p[0] == "**" {
			for len(p) > 1 && p[1] == "**" {
				p = p[1:]
			}
			for i := 0; i <= len(s); i++ {
				if matchSegs(p[1:], s[i:]) {
					return true
				}
			}
			return false
		}
		if len(s) == 0 {
			return false
		}
		if ok, _ := path.Match(p[0], s[0]); !ok {
			return false
		}
		p, s = p[1:], s[1:]
	}
	return len(s) == 0
}
