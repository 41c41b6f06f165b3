package glob

import "testing"

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern  string
		nameOnly bool
		path     string
		want     bool
	}{
		{"*.go", false, "main.go", true},
		{"*.go", false, "cmd/main.go", false},
		{"*.go", true, "cmd/main.go", true},
		{"cmd/*.go", true, "cmd/main.go", true},
		{"cmd/*.go", true, "x/cmd/main.go", false},
		{"**/*.go", false, "main.go", true},
		{"**/*.go", false, "a/b/c.go", true},
		{"a/**/z", false, "a/z", true},
		{"a/**/**/z", false, "a/b/c/z", true},
		{"a/**", false, "a/b/c", true},
		{"*.{go,md}", false, "README.md", true},
		{"*.{go,md}", false, "x.txt", false},
		{"{src,lib}/{a,b{1,2}}.c", false, "lib/b2.c", true},
		{"[ab]?.txt", false, "bx.txt", true},
		{`\{x}`, false, "{x}", true},
		{"[{]x", false, "{x", true},
	} {
		g, err := Compile(tc.pattern, tc.nameOnly)
		if err != nil {
			t.Errorf("Compile(%q): %v", tc.pattern, err)
			continue
		}
		if got := g.Match(tc.path); got != tc.want {
			t.Errorf("%q (nameOnly %v) on %q = %v, want %v", tc.pattern, tc.nameOnly, tc.path, got, tc.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	many := ""
	for range 9 {
		many += "{a,b}"
	}
	for _, tc := range []struct{ pattern, want string }{
		{"", "it is empty"},
		{"a{b", "unclosed {"},
		{"[a", `malformed segment "[a"`},
		{many, "too many {a,b} alternatives (at most 256)"},
	} {
		if _, err := Compile(tc.pattern, false); err == nil || err.Error() != tc.want {
			t.Errorf("Compile(%q) = %v, want %q", tc.pattern, err, tc.want)
		}
	}
}
