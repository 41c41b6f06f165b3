package cmds

import (
	"context"
	"strings"
	"testing"
	"time"
)

var grepFiles = map[string]string{
	"t":               "hello world\nHello there\nfoo bar\nfoobar baz\n(x) a+b\na{1}\n",
	"n":               "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
	"u":               "one\ntwo\n",
	"bin":             "a\x00b\nxa\n",
	"inv":             "a\nb\xff a\nc a\n",
	"pats":            "foo\nwor\n",
	"empty":           "",
	"d/":              "",
	"src/a.go":        "package a // TODO\n",
	"src/a.txt":       "no todo here\n",
	"src/sub/b.go":    "func b() {} // TODO later\n",
	"src/vendor/v.go": "// TODO vendored\n",
}

func TestGrep(t *testing.T) {
	f := grepFiles
	runTextRows(t, []textRow{
		{args: []string{"grep", "foo", "t"}, files: f, out: "foo bar\nfoobar baz\n"},
		{args: []string{"grep", "zzz", "t"}, files: f, code: 1},
		{args: []string{"grep", "-i", "HELLO", "t"}, files: f, out: "hello world\nHello there\n"},
		{args: []string{"grep", "-y", "hello", "t"}, files: f, out: "hello world\nHello there\n"},
		{args: []string{"grep", "-v", "o", "t"}, files: f, out: "(x) a+b\na{1}\n"},
		{args: []string{"grep", "-w", "foo", "t"}, files: f, out: "foo bar\n"},
		{args: []string{"grep", "-x", "foo bar", "t"}, files: f, out: "foo bar\n"},
		{args: []string{"grep", "-c", "o", "t"}, files: f, out: "4\n"},
		{args: []string{"grep", "-c", "o", "t", "u"}, files: f, out: "t:4\nu:2\n"},
		{args: []string{"grep", "-l", "o", "t", "u", "n"}, files: f, out: "t\nu\n"},
		{args: []string{"grep", "-L", "o", "t", "u", "n"}, files: f, out: "n\n"},
		{args: []string{"grep", "-n", "foo", "t"}, files: f, out: "3:foo bar\n4:foobar baz\n"},
		{args: []string{"grep", "-b", "foo", "t"}, files: f, out: "24:foo bar\n32:foobar baz\n"},
		{args: []string{"grep", "-H", "two", "u"}, files: f, out: "u:two\n"},
		{args: []string{"grep", "-h", "o", "t", "u"}, files: f, out: "hello world\nHello there\nfoo bar\nfoobar baz\none\ntwo\n"},
		{args: []string{"grep", "-o", "o[a-z]", "t"}, files: f, out: "or\noo\noo\n"},
		{args: []string{"grep", "-on", "o", "u"}, files: f, out: "1:o\n2:o\n"},
		{args: []string{"grep", "-q", "foo", "t"}, files: f},
		{args: []string{"grep", "-q", "zzz", "t"}, files: f, code: 1},
		{args: []string{"grep", "-m", "1", "foo", "t"}, files: f, out: "foo bar\n"},
		{args: []string{"grep", "-m1", "-c", "o", "t"}, files: f, out: "1\n"},
		{args: []string{"grep", "-m0", "o", "t"}, files: f, code: 1},
		{args: []string{"grep", "-e", "one", "-e", "two", "u"}, files: f, out: "one\ntwo\n"},
		{args: []string{"grep", "-f", "pats", "t"}, files: f, out: "hello world\nfoo bar\nfoobar baz\n"},
		{args: []string{"grep", "-f", "empty", "t"}, files: f, code: 1},
		{args: []string{"grep", "hel\nfoo", "t"}, files: f, out: "hello world\nfoo bar\nfoobar baz\n"},
		// BRE vs ERE vs fixed.
		{args: []string{"grep", "a+b", "t"}, files: f, out: "(x) a+b\n"},
		{args: []string{"grep", "o\\+b", "t"}, files: f, out: "foobar baz\n"},
		{args: []string{"grep", "(x)", "t"}, files: f, out: "(x) a+b\n"},
		{args: []string{"grep", "\\(fo\\)\\{2\\}", "t"}, files: f, code: 1},
		{args: []string{"grep", "o\\{2\\}", "t"}, files: f, out: "foo bar\nfoobar baz\n"},
		{args: []string{"grep", "bar\\|there", "t"}, files: f, out: "Hello there\nfoo bar\nfoobar baz\n"},
		{args: []string{"grep", "a{1}", "t"}, files: f, out: "a{1}\n"},
		{args: []string{"grep", "-E", "a{1}", "t"}, files: f, out: "foo bar\nfoobar baz\n(x) a+b\na{1}\n"},
		{args: []string{"grep", "-E", "^(foo|hello) ", "t"}, files: f, out: "hello world\nfoo bar\n"},
		{args: []string{"grep", "-E", "o{2,}b", "t"}, files: f, out: "foobar baz\n"},
		{args: []string{"grep", "-E", "x)", "t"}, files: f, out: "(x) a+b\n"},
		{args: []string{"grep", "-E", "*llo", "t"}, files: f, out: "hello world\nHello there\n", errOut: "grep: warning: * at start of expression\n"},
		{args: []string{"egrep", "r|z", "u", "t"}, files: f, out: "t:hello world\nt:Hello there\nt:foo bar\nt:foobar baz\n"},
		{args: []string{"grep", "-F", "a+b", "t"}, files: f, out: "(x) a+b\n"},
		{args: []string{"fgrep", "a{1", "t"}, files: f, out: "a{1}\n"},
		{args: []string{"grep", "-F", "-x", "-e", "two", "-e", "on", "u"}, files: f, out: "two\n"},
		{args: []string{"grep", "[[:digit:]]", "t", "n"}, files: f, out: "t:a{1}\nn:1\nn:2\nn:3\nn:4\nn:5\nn:6\nn:7\nn:8\nn:9\n"},
		{args: []string{"grep", "^[^a-z]", "t"}, files: f, out: "Hello there\n(x) a+b\n"},
		{args: []string{"grep", "d$", "t"}, files: f, out: "hello world\n"},
		{args: []string{"grep", "\\<bar", "t"}, files: f, out: "foo bar\n"},
		// Context.
		{args: []string{"grep", "-A1", "-e", "2", "-e", "7", "n"}, files: f, out: "2\n3\n--\n7\n8\n"},
		{args: []string{"grep", "-B1", "-n", "5", "n"}, files: f, out: "4-4\n5:5\n"},
		{args: []string{"grep", "-C1", "-n", "-e", "2", "-e", "5", "n"}, files: f, out: "1-1\n2:2\n3-3\n4-4\n5:5\n6-6\n"},
		{args: []string{"grep", "-C", "1", "-e", "2", "-e", "8", "n"}, files: f, out: "1\n2\n3\n--\n7\n8\n9\n"},
		{args: []string{"grep", "-1", "5", "n"}, files: f, out: "4\n5\n6\n"},
		{args: []string{"grep", "-m1", "-A2", "2", "n"}, files: f, out: "2\n3\n4\n"},
		{args: []string{"grep", "-A1", "--group-separator=XX", "-e", "1", "-e", "5", "n"}, files: f, out: "1\n2\nXX\n5\n6\n"},
		{args: []string{"grep", "-A1", "--no-group-separator", "-e", "1", "-e", "5", "n"}, files: f, out: "1\n2\n5\n6\n"},
		{args: []string{"grep", "-A1", "o", "u", "n"}, files: f, out: "u:one\nu:two\n"},
		{args: []string{"grep", "-B1", "-e", "two", "-e", "3", "u", "n"}, files: f, out: "u-one\nu:two\n--\nn-2\nn:3\n"},
		// Binary files.
		{args: []string{"grep", "a", "bin"}, files: f, errOut: "grep: bin: binary file matches\n"},
		{args: []string{"grep", "-c", "a", "bin"}, files: f, out: "2\n"},
		{args: []string{"grep", "-c", "a.b", "bin"}, files: f, out: "0\n", code: 1},
		{args: []string{"grep", "-l", "a", "bin"}, files: f, out: "bin\n"},
		{args: []string{"grep", "-a", "a", "bin"}, files: f, out: "a\x00b\nxa\n"},
		{args: []string{"grep", "--binary-files=text", "-n", "x", "bin"}, files: f, out: "2:xa\n"},
		{args: []string{"grep", "-I", "a", "bin"}, files: f, code: 1},
		{args: []string{"grep", "--binary-files=foo", "a", "bin"}, files: f, code: 2, errOut: "grep: unknown binary-files type\n"},
		{args: []string{"grep", "a", "inv"}, files: f, out: "a\nc a\n", errOut: "grep: inv: binary file matches\n"},
		{args: []string{"grep", "a"}, stdin: "x\x00a\n", errOut: "grep: (standard input): binary file matches\n"},
		// Names, stdin, -Z, --label.
		{args: []string{"grep", "-H", "a"}, stdin: "a\n", out: "(standard input):a\n"},
		{args: []string{"grep", "--label=foo", "-H", "a"}, stdin: "a\n", out: "foo:a\n"},
		{args: []string{"grep", "o", "-", "u"}, files: f, stdin: "so\n", out: "(standard input):so\nu:one\nu:two\n"},
		{args: []string{"grep", "-lZ", "o", "t", "u"}, files: f, out: "t\x00u\x00"},
		{args: []string{"grep", "-Z", "two", "t", "u"}, files: f, out: "u\x00two\n"},
		{args: []string{"grep", "-z", "b"}, stdin: "a\x00b\x00c", out: "b\x00"},
		{args: []string{"grep", "--color=never", "two", "u"}, files: f, out: "two\n"},
		// Recursion.
		{args: []string{"grep", "-r", "TODO", "src/sub"}, files: f, out: "src/sub/b.go:func b() {} // TODO later\n"},
		{args: []string{"grep", "-r", "TODO", "src/sub/"}, files: f, out: "src/sub/b.go:func b() {} // TODO later\n"},
		{args: []string{"grep", "-r", "later"}, files: f, out: "src/sub/b.go:func b() {} // TODO later\n"},
		{args: []string{"grep", "-r", "later", "."}, files: f, out: "./src/sub/b.go:func b() {} // TODO later\n"},
		{args: []string{"grep", "-rh", "later", "src"}, files: f, out: "func b() {} // TODO later\n"},
		{args: []string{"grep", "-r", "--include=*.txt", "o", "src"}, files: f, out: "src/a.txt:no todo here\n"},
		{args: []string{"grep", "-r", "--exclude=*.go", "o", "src"}, files: f, out: "src/a.txt:no todo here\n"},
		{args: []string{"grep", "-rl", "--exclude-dir=sub", "--exclude-dir=src", "TODO", "src/vendor"}, files: f, out: "src/vendor/v.go\n"},
		{args: []string{"grep", "-rl", "--exclude-dir=vendor", "--include=b.*", "TODO", "src"}, files: f, out: "src/sub/b.go\n"},
		{args: []string{"grep", "-r", "later", "src/sub/b.go"}, files: f, out: "func b() {} // TODO later\n"},
		{args: []string{"grep", "-rc", "--include=a.*", "TODO", "src"}, files: f, out: "src/a.go:1\nsrc/a.txt:0\n",
			host: "GNU walks in readdir order; the shell backend sorts names"},
		{args: []string{"grep", "-r", "TODO", "src"}, files: f, host: "GNU walks in readdir order; the shell backend sorts names",
			out: "src/a.go:package a // TODO\nsrc/sub/b.go:func b() {} // TODO later\nsrc/vendor/v.go:// TODO vendored\n"},
		// Errors.
		{args: []string{"grep", "x", "nope"}, files: f, code: 2, errOut: "grep: nope: No such file or directory\n"},
		{args: []string{"grep", "-s", "x", "nope"}, files: f, code: 2},
		{args: []string{"grep", "two", "nope", "u"}, files: f, code: 2, out: "u:two\n", errOut: "grep: nope: No such file or directory\n"},
		{args: []string{"grep", "-q", "two", "nope", "u"}, files: f, errOut: "grep: nope: No such file or directory\n"},
		{args: []string{"grep", "x", "d"}, files: f, code: 2, errOut: "grep: d: Is a directory\n"},
		{args: []string{"grep"}, code: 2, errOut: "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n"},
		{args: []string{"grep", "-Y", "x"}, code: 2, errOut: "grep: invalid option -- 'Y'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n"},
		{args: []string{"grep", "--foo", "x"}, code: 2, errOut: "grep: unrecognized option '--foo'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n"},
		{args: []string{"grep", "-m", "x", "a", "t"}, files: f, code: 2, errOut: "grep: invalid max count\n"},
		{args: []string{"grep", "-A", "x", "a", "t"}, files: f, code: 2, errOut: "grep: x: invalid context length argument\n"},
		{args: []string{"grep", "-f", "nope", "t"}, files: f, code: 2, errOut: "grep: nope: No such file or directory\n"},
		{args: []string{"grep", "\\(", "t"}, files: f, code: 2, errOut: "grep: Unmatched ( or \\(\n"},
		{args: []string{"grep", "\\)", "t"}, files: f, code: 2, errOut: "grep: Unmatched ) or \\)\n"},
		{args: []string{"grep", "-E", "(", "t"}, files: f, code: 2, errOut: "grep: Unmatched ( or \\(\n"},
		{args: []string{"grep", "[", "t"}, files: f, code: 2, errOut: "grep: Unmatched [, [^, [:, [., or [=\n",
			skip: "GNU says 'Invalid regular expression' for a lone '['"},
		{args: []string{"grep", "a\\{1", "t"}, files: f, code: 2, errOut: "grep: Unmatched \\{\n"},
		{args: []string{"grep", "a\\", "t"}, files: f, code: 2, errOut: "grep: Trailing backslash\n"},
		{args: []string{"grep", "[b-a]", "t"}, files: f, code: 2, errOut: "grep: Invalid range end\n"},
		{args: []string{"grep", "\\1", "t"}, files: f, code: 2, errOut: "grep: Invalid back reference\n"},
		{args: []string{"grep", "-E", "(o)\\1", "t"}, files: f, code: 2,
			errOut: "grep: back-references (\\1 ... \\9) are not supported by the shell backend's grep\n",
			skip:   "RE2 has no back-references: GNU prints foo bar and foobar baz"},
	})
}

func TestEgrep(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"egrep", "-c", "o+b|^t"}, stdin: "foob\ntwo\nxx\n", out: "2\n"},
		{args: []string{"egrep", "-v", "(a|b)+"}, stdin: "ab\nc\n", out: "c\n"},
	})
}

func TestFgrep(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"fgrep", "-o", ".*"}, stdin: "a.*b\n", out: ".*\n"},
		{args: []string{"fgrep", "-i", "-w", "A.B"}, stdin: "x a.b y\nxa.b\n", out: "x a.b y\n"},
	})
}

func TestGrepCancel(t *testing.T) {
	f := newStore(t, map[string]string{"big": strings.Repeat("line of text\n", 50000)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytesBuffer
	env := &Env{Ctx: ctx, FS: f, Dir: "/work", Stdin: stringsReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Limits: Limits{MaxReadBytes: 1 << 20}}
	done := make(chan int, 1)
	go func() { done <- Grep(env, []string{"grep", "-r", "text", "."}) }()
	select {
	case code := <-done:
		if code == 0 || out.Len() != 0 {
			t.Fatalf("cancelled grep: code %d, out %d bytes", code, out.Len())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("grep did not stop after cancellation")
	}
	// Cancelling stdin mid-stream stops reading.
	ctx2, cancel2 := context.WithCancel(context.Background())
	env.Ctx = ctx2
	env.Stdin = &cancelAfter{n: 1000, cancel: cancel2}
	out.Reset()
	code := Grep(env, []string{"grep", "x"})
	if code != 2 {
		t.Fatalf("stdin cancel: code %d", code)
	}
}

// cancelAfter is an endless reader of matching lines that cancels its
// context after n reads.
type cancelAfter struct {
	n      int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	c.n--
	if c.n == 0 {
		c.cancel()
	}
	return copy(p, "x\n"), nil
}
