package glob

import (
	"fmt"
	"regexp"

	"mvdan.cc/sh/v3/pattern"
)

// Shell is a compiled shell pattern matched as fnmatch(3) with no flags
// matches: "*" and "?" match any character, "/" and a leading "." included,
// "[...]" is a bracket expression ("!" or "^" negates it; ranges and
// "[:alpha:]" classes), "\" quotes the next character and an unclosed "[" is
// a literal. It is what find -name and -path, grep --include, tree -I,
// du --exclude, tar --exclude and rg's globs use.
type Shell struct {
	re *regexp.Regexp
}

// CompileShell compiles a shell pattern; fold makes it match
// case-insensitively (FNM_CASEFOLD). A malformed pattern (a trailing "\", a
// range whose end comes before its start, an unknown class) is an error:
// fnmatch(3) matches nothing with one, which is what a nil *Shell does.
func CompileShell(pat string, fold bool) (*Shell, error) {
	mode := pattern.EntireString
	if fold {
		mode |= pattern.NoGlobCase
	}
	expr, err := pattern.Regexp(pat, mode)
	if err != nil {
		return nil, fmt.Errorf("malformed pattern %q: %v", pat, err)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("malformed pattern %q: %v", pat, err)
	}
	return &Shell{re: re}, nil
}

// Match reports whether s matches the whole pattern. A nil *Shell matches
// nothing.
func (p *Shell) Match(s string) bool {
	return p != nil && p.re.MatchString(s)
}
