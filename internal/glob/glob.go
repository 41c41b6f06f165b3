package glob

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/pattern"
)

// MaxAlternatives bounds the patterns a glob's {a,b} groups expand to.
const MaxAlternatives = 256

// MaxExpansionBytes bounds the bytes of all the alternatives a glob's {a,b}
// groups expand to, together: what the compiled matcher grows with.
const MaxExpansionBytes = 16 << 10

// MaxGlobStars bounds the "**" segments of one alternative, after runs of
// them are merged ("**/**" is "**"): each one costs the matcher a step per
// byte of the path.
const MaxGlobStars = 8

// ErrLimit is wrapped by the error of a pattern that expands past
// MaxAlternatives or MaxExpansionBytes.
var ErrLimit = errors.New("glob too large")

// Pattern is a compiled path glob.
type Pattern struct {
	re       *regexp.Regexp
	nameOnly bool
}

// Compile compiles a path glob. With nameOnly, a pattern without a slash is
// matched against the last segment only (a name at any depth, as find
// -name). The error says what is wrong with the pattern, for a message that
// names it.
func Compile(pat string, nameOnly bool) (*Pattern, error) {
	if pat == "" {
		return nil, errors.New("it is empty")
	}
	alts, err := expandBraces(pat)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("^(?s:") // names may hold newlines
	for i, a := range alts {
		if i > 0 {
			b.WriteByte('|')
		}
		a, err = mergeStars(strings.Trim(a, "/"))
		if err != nil {
			return nil, err
		}
		// A trailing "/**" also matches the directory itself, as a
		// "**" segment matches no segment at all.
		all := false
		if a == "**" {
			a, all = "", true
		} else if strings.HasSuffix(a, "/**") {
			a, all = strings.TrimSuffix(a, "/**"), true
		}
		re, err := pattern.Regexp(a, pattern.Filenames|pattern.GlobLeadingDot)
		if err != nil {
			return nil, fmt.Errorf("malformed pattern %q: %v", a, err)
		}
		b.WriteString("(?s:" + re + ")")
		if all && a == "" {
			b.WriteString(".*")
		} else if all {
			b.WriteString("(?s:/.*)?")
		}
	}
	b.WriteString(")$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("malformed pattern: %v", err)
	}
	return &Pattern{re: re, nameOnly: nameOnly && !strings.Contains(pat, "/")}, nil
}

// mergeStars merges runs of "**" segments and checks MaxGlobStars.
func mergeStars(a string) (string, error) {
	if !strings.Contains(a, "**") {
		return a, nil
	}
	segs := strings.Split(a, "/")
	out, stars := segs[:0], 0
	for _, s := range segs {
		if s == "**" {
			if len(out) > 0 && out[len(out)-1] == "**" {
				continue
			}
			if stars++; stars > MaxGlobStars {
				return "", fmt.Errorf("%w: more than %d ** segments", ErrLimit, MaxGlobStars)
			}
		}
		out = append(out, s)
	}
	return strings.Join(out, "/"), nil
}

// expandBraces expands {a,b} groups (outside [..] classes and escapes),
// at most MaxAlternatives of at most MaxExpansionBytes together.
func expandBraces(p string) ([]string, error) {
	e := &expansion{}
	if err := e.expand(p); err != nil {
		return nil, err
	}
	return e.out, nil
}

// expansion collects the alternatives of a pattern and their total size.
type expansion struct {
	out  []string
	size int
}

func (e *expansion) expand(p string) error {
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
			for _, part := range parts {
				if err := e.expand(p[:open] + part + p[i+1:]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if depth > 0 {
		return errors.New("unclosed {")
	}
	if len(e.out) == MaxAlternatives {
		return fmt.Errorf("%w: more than %d {a,b} alternatives", ErrLimit, MaxAlternatives)
	}
	if e.size += len(p); e.size > MaxExpansionBytes {
		return fmt.Errorf("%w: its {a,b} alternatives come to more than %d bytes", ErrLimit, MaxExpansionBytes)
	}
	e.out = append(e.out, p)
	return nil
}

// Match reports whether the relative path rel matches.
func (g *Pattern) Match(rel string) bool {
	if g.nameOnly {
		rel = path.Base(rel)
	}
	return g.re.MatchString(rel)
}
