package posixre

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// lines is the text every pattern is matched against, by the translation
// and by GNU grep.
var lines = []string{"abc", "a+b", "aab", "ab{2}", "abb", "x(y)", "xy", "a|b", "foo bar", "foobar",
	"*star", "$dollar", "end$", "^caret", "tab\there", "Digit 42", "under_score", "[br]", "a.c", ""}

// TestTranslate_againstGNU matches each pattern's translation (leftmost
// longest) against lines and compares the lines selected with GNU grep's
// (-G or -E) on the same lines.
func TestTranslate_againstGNU(t *testing.T) {
	grep, err := exec.LookPath("grep")
	if err != nil {
		testenv.Need(t, testenv.Shells, fmt.Errorf("find grep: %w", err))
	}
	input := strings.Join(lines, "\n") + "\n"
	for _, c := range []struct {
		pat string
		ere bool
	}{
		{`a+b`, false}, {`a\+b`, false}, {`a+b`, true}, {`ab\{2\}`, false}, {`ab{2}`, false}, {`ab{2}`, true},
		{`x\(y\)`, false}, {`x(y)`, false}, {`x(y)`, true}, {`a|b`, false}, {`a\|b`, false}, {`a|b`, true},
		{`\<bar`, false}, {`foo\b`, false}, {`*star`, false}, {`^\*`, false}, {`\$d`, false}, {`d$`, false},
		{`end\$`, false}, {`^^`, false}, {`a^`, false}, {`[[:digit:]]\{2\}`, false}, {`[[:space:]]`, true},
		{`[]b[]`, false}, {`[^a-z ]`, true}, {`a.c`, false}, {`a\.c`, true}, {`\w_\w`, false}, {`^$`, false},
		{`ab?`, true}, {`ab\?b`, false},
	} {
		mode := "-G"
		if c.ere {
			mode = "-E"
		}
		cmd := exec.Command(grep, mode, "-e", c.pat)
		cmd.Env = []string{"LC_ALL=C"}
		cmd.Stdin = strings.NewReader(input)
		want, err := cmd.Output()
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
			t.Fatalf("grep %s %q: %v", mode, c.pat, err)
		}
		expr, err := Translate(c.pat, c.ere, func(string) {})
		if err != nil {
			t.Errorf("Translate(%q, %v): %v", c.pat, c.ere, err)
			continue
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			t.Errorf("Translate(%q, %v) = %q: %v", c.pat, c.ere, expr, err)
			continue
		}
		var got bytes.Buffer
		for _, l := range lines {
			if re.MatchString(l) {
				got.WriteString(l + "\n")
			}
		}
		if got.String() != string(want) {
			t.Errorf("%s %q (RE2 %q): selected\n%s\nGNU grep selected\n%s", mode, c.pat, expr, got.String(), want)
		}
	}
}

// TestTranslate_errors checks GNU's messages and the back-reference error.
func TestTranslate_errors(t *testing.T) {
	for pat, want := range map[string]string{
		`a\`:      "Trailing backslash",
		`\(a`:     "Unmatched ( or \\(",
		`[a`:      "Unmatched [, [^, [:, [., or [=",
		`[z-a]`:   "Invalid range end",
		`[[:x:]]`: "Invalid character class name",
		`\2`:      "Invalid back reference",
	} {
		_, err := Translate(pat, false, func(string) {})
		var e Error
		if !errors.As(err, &e) || err.Error() != want {
			t.Errorf("Translate(%q): %v, want %q", pat, err, want)
		}
	}
	if _, err := Translate(`\(a\)\1`, false, func(string) {}); !errors.Is(err, ErrBackref) {
		t.Errorf("back-reference: %v, want ErrBackref", err)
	}
	var warned []string
	if _, err := Translate(`*a`, true, func(w string) { warned = append(warned, w) }); err != nil || len(warned) != 1 {
		t.Errorf("ERE leading *: %v, warnings %q", err, warned)
	}
}
