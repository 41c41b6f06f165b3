package cmds

import (
	"context"
	"github.com/desk-dev/desk/internal/glob"
	"strings"
	"testing"
	"time"
)

var findTree = map[string]string{
	"d/":          "",
	"d/a.txt":     "hi\n",
	"d/sub/":      "",
	"d/sub/B.TXT": "",
	"e/":          "",
	"l":           "->d/a.txt",
	"bl":          "->nowhere",
	"big":         strings.Repeat("x", 3000),
	".hid":        "h",
}

var findCases = []fuFileCase{
	{name: "default", files: findTree, args: []string{"find"},
		wantOut: ".\n./.hid\n./big\n./bl\n./d\n./d/a.txt\n./d/sub\n./d/sub/B.TXT\n./e\n./l\n"},
	{name: "dir", files: findTree, args: []string{"find", "d"}, wantOut: "d\nd/a.txt\nd/sub\nd/sub/B.TXT\n"},
	{name: "trailing slash", files: findTree, args: []string{"find", "d/"}, wantOut: "d/\nd/a.txt\nd/sub\nd/sub/B.TXT\n"},
	{name: "dot slash", files: findTree, args: []string{"find", "./", "-maxdepth", "1", "-type", "d"}, wantOut: "./\n./d\n./e\n"},
	{name: "name", files: findTree, args: []string{"find", ".", "-name", "*.txt"}, wantOut: "./d/a.txt\n"},
	{name: "name star matches dot", files: findTree, args: []string{"find", ".", "-maxdepth", "1", "-name", "*h*"}, wantOut: "./.hid\n"},
	{name: "iname", files: findTree, args: []string{"find", ".", "-iname", "b.*"}, wantOut: "./d/sub/B.TXT\n"},
	{name: "name start point trailing slash", files: findTree, args: []string{"find", "e/", "-name", "e"}, wantOut: "e/\n"},
	{name: "name class", files: findTree, args: []string{"find", "d", "-name", "[ab]*"}, wantOut: "d/a.txt\n"},
	{name: "path", files: findTree, args: []string{"find", ".", "-path", "./d/*"}, wantOut: "./d/a.txt\n./d/sub\n./d/sub/B.TXT\n"},
	{name: "ipath", files: findTree, args: []string{"find", ".", "-ipath", "*sub/b*"}, wantOut: "./d/sub/B.TXT\n"},
	{name: "type f", files: findTree, args: []string{"find", ".", "-type", "f"}, wantOut: "./.hid\n./big\n./d/a.txt\n./d/sub/B.TXT\n"},
	{name: "type d", files: findTree, args: []string{"find", ".", "-type", "d"}, wantOut: ".\n./d\n./d/sub\n./e\n"},
	{name: "type l", files: findTree, args: []string{"find", ".", "-type", "l"}, wantOut: "./bl\n./l\n"},
	{name: "type list", files: findTree, args: []string{"find", ".", "-type", "f,d", "-name", "e*"}, wantOut: "./e\n"},
	{name: "follow type l is broken only", files: findTree, args: []string{"find", "-L", ".", "-type", "l"}, wantOut: "./bl\n"},
	{name: "follow type f", files: findTree, args: []string{"find", "-L", ".", "-name", "l", "-type", "f"}, wantOut: "./l\n"},
	{name: "xtype", files: findTree, args: []string{"find", ".", "-xtype", "f", "-name", "l"}, wantOut: "./l\n"},
	{name: "maxdepth 0", files: findTree, args: []string{"find", ".", "-maxdepth", "0"}, wantOut: ".\n"},
	{name: "maxdepth 1", files: findTree, args: []string{"find", "d", "-maxdepth", "1"}, wantOut: "d\nd/a.txt\nd/sub\n"},
	{name: "mindepth", files: findTree, args: []string{"find", "d", "-mindepth", "2"}, wantOut: "d/sub/B.TXT\n"},
	{name: "maxdepth after test", files: findTree, args: []string{"find", ".", "-name", "*.txt", "-maxdepth", "1"}},
	{name: "size bytes", files: findTree, args: []string{"find", ".", "-size", "-2c"}, wantOut: "./.hid\n./d/sub/B.TXT\n"},
	{name: "size blocks", files: findTree, args: []string{"find", ".", "-type", "f", "-size", "1"}, wantOut: "./.hid\n./d/a.txt\n"},
	{name: "size plus k", files: findTree, args: []string{"find", ".", "-type", "f", "-size", "+2k"}, wantOut: "./big\n"},
	{name: "size minus rounds up", files: findTree, args: []string{"find", ".", "-size", "-1k"}, wantOut: "./d/sub/B.TXT\n"},
	{name: "size M", files: findTree, args: []string{"find", ".", "-type", "f", "-size", "1M"}, wantOut: "./.hid\n./big\n./d/a.txt\n"},
	{name: "empty", files: findTree, args: []string{"find", ".", "-empty"}, wantOut: "./d/sub/B.TXT\n./e\n"},
	{name: "not", files: findTree, args: []string{"find", "d", "!", "-type", "d"}, wantOut: "d/a.txt\nd/sub/B.TXT\n"},
	{name: "not word and", files: findTree, args: []string{"find", ".", "-not", "-name", "*.*", "-a", "-type", "f"}, wantOut: "./big\n"},
	{name: "or precedence", files: findTree, args: []string{"find", ".", "-name", "*.TXT", "-o", "-name", "a*", "-print"}, wantOut: "./d/a.txt\n"},
	{name: "parens", files: findTree, args: []string{"find", ".", "(", "-name", "*.TXT", "-o", "-name", "a*", ")", "-print"}, wantOut: "./d/a.txt\n./d/sub/B.TXT\n"},
	{name: "prune", files: findTree, args: []string{"find", ".", "-name", "d", "-prune", "-o", "-print"}, wantOut: ".\n./.hid\n./big\n./bl\n./e\n./l\n"},
	{name: "prune type", files: findTree, args: []string{"find", ".", "-path", "./d", "-prune", "-o", "-type", "f", "-print"}, wantOut: "./.hid\n./big\n"},
	{name: "depth", files: findTree, args: []string{"find", "d", "-depth"}, wantOut: "d/a.txt\nd/sub/B.TXT\nd/sub\nd\n"},
	{name: "print0", files: findTree, args: []string{"find", "d/sub", "-print0"}, wantOut: "d/sub\x00d/sub/B.TXT\x00"},
	{name: "comma", files: findTree, args: []string{"find", "d", "-maxdepth", "0", "-print", ",", "-print"}, wantOut: "d\nd\n"},
	{name: "regex", files: findTree, args: []string{"find", ".", "-regex", `.*\.\(txt\|TXT\)`}, wantOut: "./d/a.txt\n./d/sub/B.TXT\n"},
	{name: "regex extended", files: findTree, args: []string{"find", ".", "-regextype", "posix-extended", "-regex", `.*/(a|B)\..*`}, wantOut: "./d/a.txt\n./d/sub/B.TXT\n"},
	{name: "iregex", files: findTree, args: []string{"find", ".", "-iregex", `.*b\.txt`}, wantOut: "./d/sub/B.TXT\n"},
	{name: "printf", files: findTree, args: []string{"find", "d", "-printf", `%p|%f|%h|%P|%d|%s|%y\n`}, wantOut: "d|d|.||0|4096|d\nd/a.txt|a.txt|d|a.txt|1|3|f\nd/sub|sub|d|sub|1|4096|d\nd/sub/B.TXT|B.TXT|d/sub|sub/B.TXT|2|0|f\n"},
	{name: "printf width", files: findTree, args: []string{"find", "d/a.txt", "-printf", `[%5s][%-6f]%%\n`}, wantOut: "[    3][a.txt ]%\n"},
	{name: "printf link", files: findTree, args: []string{"find", ".", "-name", "l", "-printf", `%l %y %Y\n`}, wantOut: "d/a.txt l f\n"},
	{name: "exec", files: findTree, args: []string{"find", "d", "-name", "*.txt", "-exec", "cat", "{}", ";"}, wantOut: "hi\n"},
	{name: "exec in arg", files: findTree, args: []string{"find", "d", "-maxdepth", "0", "-exec", "basename", "a{}b", ";"}, wantOut: "adb\n"},
	{name: "exec plus", files: findTree, args: []string{"find", "d", "-type", "f", "-exec", "wc", "-c", "{}", "+"}, wantOut: "3 d/a.txt\n0 d/sub/B.TXT\n3 total\n"},
	{name: "exec as test", files: findTree, args: []string{"find", ".", "-maxdepth", "1", "-exec", "readlink", "{}", ";", "-print"}, wantOut: "nowhere\n./bl\nd/a.txt\n./l\n"},
	{name: "exec false status", files: findTree, args: []string{"find", "e", "-exec", "false", ";"}},
	{name: "exec plus false status", files: findTree, args: []string{"find", "e", "-exec", "false", "{}", "+"}, wantStatus: 1},
	{name: "execdir", files: findTree, args: []string{"find", "d", "-name", "a.txt", "-execdir", "cat", "{}", ";"}, wantOut: "hi\n"},
	{name: "perm", files: findTree, args: []string{"find", "d", "-perm", "644"}, wantOut: "d/a.txt\nd/sub/B.TXT\n"},
	{name: "perm any", files: findTree, args: []string{"find", "d", "-perm", "/111"}, wantOut: "d\nd/sub\n"},
	{name: "perm all", files: findTree, args: []string{"find", "d", "-perm", "-u=rw", "-type", "f"}, wantOut: "d/a.txt\nd/sub/B.TXT\n"},
	{name: "quit", files: findTree, args: []string{"find", "d", "-name", "a.txt", "-print", "-quit"}, wantOut: "d/a.txt\n"},
	{name: "missing path", files: findTree, args: []string{"find", "nope", "e"}, wantOut: "e\n",
		wantErr: "find: 'nope': No such file or directory\n", wantStatus: 1},
	{name: "unknown predicate", args: []string{"find", ".", "-foo"}, wantErr: "find: unknown predicate `-foo'\n", wantStatus: 1},
	{name: "missing argument", args: []string{"find", ".", "-name"}, wantErr: "find: missing argument to `-name'\n", wantStatus: 1},
	{name: "paths must precede", files: map[string]string{"b.go": "", "c.go": ""}, args: []string{"find", ".", "-name", "b.go", "c.go"},
		wantErr: "find: paths must precede expression: `c.go'\nfind: possible unquoted pattern after predicate `-name'?\n", wantStatus: 1},
	{name: "bad type", args: []string{"find", ".", "-type", "q"}, wantErr: "find: Unknown argument to -type: q\n", wantStatus: 1},
	{name: "bad maxdepth", args: []string{"find", ".", "-maxdepth", "x"}, wantErr: "find: Expected a positive decimal integer argument to -maxdepth, but got 'x'\n", wantStatus: 1},
	{name: "bad size", args: []string{"find", ".", "-size", "3x"}, wantErr: "find: invalid -size type `x'\n", wantStatus: 1},
	{name: "bad mtime", args: []string{"find", ".", "-mtime", "x"}, wantErr: "find: invalid argument `x' to `-mtime'\n", wantStatus: 1},
	{name: "unclosed paren", args: []string{"find", ".", "(", "-name", "x"}, wantErr: "find: invalid expression; I was expecting to find a ')' somewhere but did not see one.\n", wantStatus: 1},
	{name: "too many parens", args: []string{"find", ".", "-name", "x", ")"}, wantErr: "find: you have too many ')'\n", wantStatus: 1},
	{name: "empty parens", args: []string{"find", ".", "(", ")"}, wantErr: "find: invalid expression; empty parentheses are not allowed.\n", wantStatus: 1},
	{name: "or with nothing", args: []string{"find", ".", "-o", "-name", "x"}, wantErr: "find: invalid expression; you have used a binary operator '-o' with nothing before it.\n", wantStatus: 1},
	{name: "not at end", args: []string{"find", ".", "!"}, wantErr: "find: expected an expression after '!'\n", wantStatus: 1},
	{name: "or at end", args: []string{"find", ".", "-name", "a", "-o"}, wantErr: "find: expected an expression after '-o'\n", wantStatus: 1},
	{name: "exec missing terminator", args: []string{"find", ".", "-exec", "echo", "{}"}, wantErr: "find: missing argument to `-exec'\n", wantStatus: 1},
	{name: "exec plus twice", args: []string{"find", ".", "-exec", "echo", "{}", "x", "{}", "+"}, wantErr: "find: Only one instance of {} is supported with -exec ... +\n", wantStatus: 1},
	{name: "exec plus not last", args: []string{"find", ".", "-exec", "echo", "{}", "x", "+"}, wantErr: "find: missing argument to `-exec'\n", wantStatus: 1},
	{name: "newer missing", args: []string{"find", ".", "-newer", "nope"}, wantErr: "find: 'nope': No such file or directory\n", wantStatus: 1},
	{name: "loop", files: map[string]string{"x/y/": "", "x/y/up": "->.."}, args: []string{"find", "-L", "x"}, wantOut: "x\nx/y\n",
		wantErr: "find: File system loop detected; 'x/y/up' is part of the same file system loop as 'x'.\n", wantStatus: 1},
	{name: "delete", files: findTree, args: []string{"find", "d", "-name", "*.txt", "-delete", "-print"}, wantOut: "d/a.txt\n"},
	{name: "delete nonempty", files: findTree, args: []string{"find", ".", "-name", "d", "-delete"},
		wantErr: "find: cannot delete './d': Directory not empty\n", wantStatus: 1},
	{name: "absolute", files: map[string]string{"/w/a": ""}, args: []string{"find", "/w"}, wantOut: "/w\n/w/a\n", real: "absolute path"},
}

func TestFind(t *testing.T)        { fuRunCases(t, findCases) }
func TestFindConfirm(t *testing.T) { fuConfirmCases(t, findCases, true) }

// TestFindTimes checks -mtime, -mmin and -newer on fixed times.
func TestFindTimes(t *testing.T) {
	ctx := context.Background()
	f := newStore(t, map[string]string{"old": "", "new": "", "mid": ""})
	now := time.Now()
	f.Utimens(ctx, "/work/old", now.Add(-72*time.Hour), now.Add(-72*time.Hour), true)
	f.Utimens(ctx, "/work/mid", now.Add(-30*time.Hour), now.Add(-30*time.Hour), true)
	f.Utimens(ctx, "/work/new", now.Add(-10*time.Minute), now.Add(-10*time.Minute), true)
	f.Utimens(ctx, "/work", now.Add(-100*time.Hour), now.Add(-100*time.Hour), true)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"find", ".", "-mtime", "+2"}, ".\n./old\n"},
		{[]string{"find", ".", "-mtime", "1"}, "./mid\n"},
		{[]string{"find", ".", "-mtime", "-1"}, "./new\n"},
		{[]string{"find", ".", "-mmin", "-30"}, "./new\n"},
		{[]string{"find", ".", "-mmin", "+60", "-type", "f"}, "./mid\n./old\n"},
		{[]string{"find", ".", "-newer", "mid"}, "./new\n"},
		{[]string{"find", ".", "-type", "f", "-not", "-newer", "mid"}, "./mid\n./old\n"},
	} {
		out, errs, st := runIn(t, f, "/work", "", c.args...)
		if out != c.want || errs != "" || st != 0 {
			t.Errorf("%q: got %q %q %d, want %q", c.args, out, errs, st, c.want)
		}
	}
}

// TestFindCancel checks a cancelled find stops.
func TestFindCancel(t *testing.T) {
	f := newStore(t, findTree)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out strings.Builder
	env := &Env{Ctx: ctx, FS: f, Dir: "/work", Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
	if st := Find(env, []string{"find", "."}); st == 0 || out.Len() != 0 {
		t.Errorf("cancelled find: status %d, output %q", st, out.String())
	}
}

// TestFindUTF8Quotes checks the quotes follow the locale.
func TestFindUTF8Quotes(t *testing.T) {
	f := newStore(t, nil)
	var out, errb strings.Builder
	env := &Env{Ctx: context.Background(), FS: f, Dir: "/work", Stdout: &out, Stderr: &errb,
		Getenv: func(n string) string { return map[string]string{"LANG": "C.UTF-8"}[n] }}
	Find(env, []string{"find", "nope"})
	if want := "find: \u2018nope\u2019: No such file or directory\n"; errb.String() != want {
		t.Errorf("got %q, want %q", errb.String(), want)
	}
}

// TestFnCache: the commands' patterns are glob.CompileShell's (tested in
// package glob), compiled once; a malformed one matches nothing.
func TestFnCache(t *testing.T) {
	c := fnCache{}
	if !c.match("*.TXT", "a/b.txt", true) || c.match("*.TXT", "a/b.txt", false) || len(c) != 2 {
		t.Errorf("match: %v", c)
	}
	if c.match(`a\`, `a\`, false) || c.match("[z-a]", "z", false) {
		t.Error("a malformed pattern matched")
	}
}

// TestFdLiteralMatch: the byte comparisons answer what the compiled pattern
// answers, for every name, the odd ones included.
func TestFdLiteralMatch(t *testing.T) {
	pats := []string{"*", "**", "*.go", "f.go", "f*", "*f*", ".go", "*.", "", "a*b", "\\*", "[a]*", "?.go", "*.GO", "*\n*"}
	names := []string{"", "f.go", ".go", "a.go.go", "go", "f", "F.GO", "a\n.go", "\xff.go", "f\xff", "a*b", "*", "ab", "x.\n"}
	literal := 0
	for _, p := range pats {
		m := fdLiteralMatch(p, false)
		if m == nil {
			continue
		}
		literal++
		g, err := glob.CompileShell(p, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if m(n) != g.Match(n) {
				t.Errorf("pattern %q on %q: literal %v, glob %v", p, n, m(n), g.Match(n))
			}
		}
	}
	if literal < 8 || fdLiteralMatch("*.go", true) != nil || fdLiteralMatch("a*b", false) != nil {
		t.Errorf("literal fast path taken for %d patterns", literal)
	}
}
