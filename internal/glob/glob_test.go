package glob

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

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
		{"a/**", false, "a", true},
		{"a/**", false, "ab", false},
		{"**", false, "x/a\nb", true},
		{"a*", true, "d/a\nb", true},
		{"a?b", false, "a\nb", true},
		{"**", false, "x/y", true},
		{"*", false, ".hidden", true},
		{"*", false, "a/b", false},
		{"?", false, "/", false},
		{"[a", false, "[a", true},
		{"[!a].go", true, "x/b.go", true},
		{"[[:digit:]]*", false, "9z", true},
		{"/src/*.go/", false, "src/a.go", true},
		{`a\nb`, false, "anb", true},
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
		{`a\`, `malformed pattern "a\\": \ at end of pattern`},
		{"[z-a]", `malformed pattern "[z-a]": invalid range: z-a`},
		{many, "glob too large: more than 256 {a,b} alternatives"},
		{"{" + strings.Repeat("x", 100) + "," + strings.Repeat("y", 100) + "}" + strings.Repeat("{a,b}", 7),
			"glob too large: its {a,b} alternatives come to more than 16384 bytes"},
	} {
		if _, err := Compile(tc.pattern, false); err == nil || err.Error() != tc.want {
			t.Errorf("Compile(%q) = %v, want %q", tc.pattern, err, tc.want)
		}
	}
}

func TestShell(t *testing.T) {
	for _, c := range []struct {
		p, s string
		fold bool
		want bool
	}{
		{"*.go", "a.go", false, true},
		{"*.go", ".go", false, true},
		{"*", "a/b", false, true},
		{"a?c", "abc", false, true},
		{"a?c", "a/c", false, true},
		{"a?c", "ac", false, false},
		{"[!a]*", "bx", false, true},
		{"[^a]*", "ax", false, false},
		{"[a-c]x", "bx", false, true},
		{"[]]", "]", false, true},
		{"[[:digit:]]*", "9z", false, true},
		{`\*`, "*", false, true},
		{`\*`, "a", false, false},
		{"[", "[", false, true},
		{"*.TXT", "b.txt", true, true},
		{"*.TXT", "b.txt", false, false},
		{"*a*b*c*", "xaybzc", false, true},
		{"*a*b*c*", "xaybz", false, false},
		{"a*", "a\nb", false, true},
		{"?", "\xff", false, true},
	} {
		p, err := CompileShell(c.p, c.fold)
		if err != nil {
			t.Errorf("CompileShell(%q): %v", c.p, err)
			continue
		}
		if got := p.Match(c.s); got != c.want {
			t.Errorf("%q on %q (fold %v) = %v", c.p, c.s, c.fold, got)
		}
	}
	for _, bad := range []string{`a\`, "[z-a]", "[[:nope:]]"} {
		p, err := CompileShell(bad, false)
		if err == nil || p != nil {
			t.Errorf("CompileShell(%q) = %v, %v: want an error", bad, p, err)
		}
		if p.Match(bad) {
			t.Errorf("a nil *Shell matched")
		}
	}
}

// TestHostile drives the limits with hostile globs: a chain of "**"
// segments (exponential in a backtracking matcher) matched against a deep
// path, and brace groups that would expand to 2^100 alternatives. Each ends
// within its limit, with the documented error, and little memory.
func TestHostile(t *testing.T) {
	const maxAlloc = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	stars := strings.Repeat("**/", 300) + "x"
	g, err := Compile(stars, false)
	if err != nil {
		t.Fatalf("Compile(%d x **): %v", 300, err)
	}
	deep := strings.Repeat("d/", 2000) + "y"
	for range 100 {
		if g.Match(deep) {
			t.Fatal("matched a path that does not end in x")
		}
	}
	if !g.Match(strings.Repeat("d/", 500) + "x") {
		t.Fatal("no match for a path ending in x")
	}
	// The most "**" segments a pattern may have, between literals that
	// the path repeats: each stays a few steps per byte.
	most := strings.Repeat("**/d/", MaxGlobStars) + "x"
	if g, err = Compile(most, false); err != nil {
		t.Fatalf("Compile(%q): %v", most, err)
	}
	for range 100 {
		if g.Match(deep) {
			t.Fatal("matched a path that does not end in x")
		}
	}
	if _, err = Compile(most+"/**/x", false); !errors.Is(err, ErrLimit) {
		t.Fatalf("%d ** segments: %v, want ErrLimit", MaxGlobStars+1, err)
	}

	_, err = Compile(strings.Repeat("{a,b}", 100), false)
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("100 brace groups: %v, want ErrLimit", err)
	}
	_, err = Compile(strings.Repeat("{", 500)+strings.Repeat("}", 500), false)
	if err != nil {
		t.Fatalf("500 nested empty groups: %v", err)
	}

	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > maxAlloc {
		t.Errorf("allocated %d bytes, over %d", d, maxAlloc)
	}
}
