package tools

import "github.com/desk-dev/desk/internal/glob"

// compileGlob compiles a find or grep pattern (see package glob): a pattern
// without a slash matches a name at any depth, as find -name does.
func compileGlob(pattern string) (*glob.Pattern, error) {
	g, err := glob.Compile(pattern, true)
	if err != nil {
		return nil, errorf(CodeInvalid, "the pattern %q is not a valid glob: %s", pattern, err)
	}
	return g, nil
}
