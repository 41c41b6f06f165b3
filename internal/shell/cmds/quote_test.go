package cmds

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// quoteNames are names that exercise every branch of the quoting: shell
// specials, a single quote with and without other specials, backslashes,
// control characters, valid and invalid UTF-8, unprintable and format
// characters, and the UTF-8 quote marks themselves.
var quoteNames = []string{
	"x", "", "a b", "it's", "it's~", "it's$", `a\b`, `\'`, `a"b`, "a`b", "$x", "a!b", "a=b", "a@b",
	"~a", "a~", "#a", "a#", "{", "a{", "}", "?", "a*", "[x]", "-x", "a:b", "a/b/",
	"a\nb", "a\tb\x01c\x7f", "\a\b\f\v\r", "é", "é\nx", "a\u2019b", "a\u2018b", "\u2019",
	"\xff", "a\xc3", "\xc3a", "\xed\xa0\x80", "\xf4\x90\x80\x80", "x\u00a0y", "x\u200by", "x\u0301",
	"\u0085", "\u2028", "\ue000", "\U000F0000", "\u0378", "\u0cf3", "\U0001F600", "日本",
}

// quoteLocales are the locales the confirm runs: each env var list, and
// what the Env sees.
var quoteLocales = []struct {
	name string
	vars map[string]string
}{
	{"C", map[string]string{"LC_ALL": "C"}},
	{"C.UTF-8", map[string]string{"LANG": "C.UTF-8"}},
}

func quoteEnv(vars map[string]string) *Env {
	return &Env{Getenv: func(n string) string { return vars[n] }}
}

func TestQuoteExamples(t *testing.T) {
	c, u := quoteEnv(nil), quoteEnv(map[string]string{"LANG": "C.UTF-8"})
	for _, tc := range []struct{ got, want string }{
		{quote(c, "x"), "'x'"},
		{quote(u, "x"), "‘x’"},
		{quote(c, "it's"), `'it\'s'`},
		{quote(u, "a\nb"), `‘a\nb’`},
		{quote(c, "é"), `'\303\251'`},
		{quoteaf(c, "a b"), "'a b'"},
		{quoteaf(u, "it's"), `"it's"`},
		{quoteaf(u, "a\nb"), `'a'$'\n''b'`},
		{quoteaf(c, "é"), `''$'\303\251'`},
		{quoteaf(u, "é"), `'é'`},
		{quotef(u, "x"), "x"},
		{quotef(u, "a b"), "'a b'"},
		{quotef(c, ""), "''"},
		{quotef(u, "a:b"), "'a:b'"},
		{quoteShell(u, "a:b"), "a:b"},
		{quoteShell(c, "a'é"), `'''a'\'''$'\303\251'`},
		{quoteC(u, "a\"b\\\tc"), `"a\"b\\\tc"`},
		{quoteC(u, "é\xff"), `"é\377"`},
		{quoteC(c, "é?"), `"\303\251?"`},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
	for _, tc := range []struct {
		vars map[string]string
		utf  bool
	}{
		{nil, false},
		{map[string]string{"LANG": "C.UTF-8"}, true},
		{map[string]string{"LANG": "C.utf8"}, true},
		{map[string]string{"LANG": "en_US.UTF-8@euro"}, true},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{"LANG": "UTF-8"}, false},
		{map[string]string{"LANG": "C.UTF-8", "LC_ALL": "C"}, false},
		{map[string]string{"LANG": "C.UTF-8", "LC_CTYPE": "POSIX"}, false},
		{map[string]string{"LANG": "C", "LC_CTYPE": "C.UTF-8"}, true},
		{map[string]string{"LANG": "C.UTF-8", "LC_MESSAGES": "C"}, true},
		{map[string]string{"LC_MESSAGES": "C.UTF-8"}, false},
		{map[string]string{"LC_ALL": "", "LANG": "C.UTF-8"}, true},
	} {
		if got := utf8Locale(quoteEnv(tc.vars)); got != tc.utf {
			t.Errorf("utf8Locale(%v) = %v, want %v", tc.vars, got, tc.utf)
		}
	}
}

// TestQuoteConfirm checks quote, quoteaf and quotef against the real tools
// in both locales: head -n NAME (quote), rm NAME (quoteaf), cat NAME
// (quotef).
func TestQuoteConfirm(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, tool := range []string{"head", "rm", "cat"} {
		if _, err := exec.LookPath(tool); err != nil {
			requireTool(t, tool)
		}
	}
	dir := t.TempDir()
	for _, loc := range quoteLocales {
		env := quoteEnv(loc.vars)
		var vars []string
		for k, v := range loc.vars {
			vars = append(vars, k+"="+v)
		}
		for _, name := range quoteNames {
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"head", "-n", name}, "head: invalid number of lines: " + quote(env, name) + "\n"},
				{[]string{"rm", "--", name}, "rm: cannot remove " + quoteaf(env, name) + ": No such file or directory\n"},
				{[]string{"cat", "--", name}, "cat: " + quotef(env, name) + ": No such file or directory\n"},
			} {
				if c.args[0] == "head" && strings.HasPrefix(name, "-") {
					continue // head -n reads "-x" as "x" lines from the end
				}
				cmd := exec.Command(c.args[0], c.args[1:]...)
				cmd.Dir = dir
				cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, vars...)
				var errb bytes.Buffer
				cmd.Stderr = &errb
				cmd.Run()
				if got := errb.String(); got != c.want {
					t.Errorf("%s %q: real %q, ours %q", loc.name, strings.Join(c.args, " "), got, c.want)
				}
			}
		}
	}
}
