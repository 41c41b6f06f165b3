package tools

import (
	"fmt"

	"github.com/desk-dev/desk/internal/glob"
	"github.com/desk-dev/desk/internal/search"
)

// compileGlob compiles a find or grep pattern (see package glob): a pattern
// without a slash matches a name at any depth, as find -name does.
func compileGlob(pattern string) (*glob.Pattern, error) {
	g, err := glob.Compile(pattern, true)
	if err != nil {
		return nil, errorf(CodeInvalid, "the pattern %q is not a valid glob: %s", pattern, err)
	}
	return g, nil
}

// searchLimits are the limits of package search that find and grep run
// with.
func (s *Set) searchLimits() search.Limits {
	return search.Limits{
		MaxEntries:      s.opts.MaxWalk,
		MaxBytes:        s.opts.MaxGrepBytes,
		MaxFileBytes:    s.opts.MaxGrepFileBytes,
		MaxPatternBytes: s.opts.MaxPatternBytes,
		MaxRegexpInsts:  s.opts.MaxRegexpInsts,
		MaxTime:         s.opts.MaxSearchTime,
	}
}

// incomplete splits a search's error: a limit is no error of the call but
// the reason its result is incomplete, said as the result says it.
func incomplete(err error) (string, error) {
	le, ok := search.AsLimit(err)
	if !ok {
		return "", err
	}
	switch le.Limit {
	case "MaxEntries":
		return fmt.Sprintf("after visiting %d entries", le.Value), nil
	case "MaxBytes":
		return fmt.Sprintf("after reading %s", sizeText(le.Value)), nil
	case "MaxTime":
		return "at its time limit", nil
	}
	return le.Error(), nil
}
