package cmds

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var csplitFiles = map[string]string{
	"s10":  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
	"doc":  "intro\n== A\na1\na2\n== B\nb1\n== C\nc1\nc2\n",
	"tail": "x\ny\nlast",
	"d/":   "",
}

func TestCsplit(t *testing.T) {
	s10 := func(from, to int) string { // lines from..to of s10
		out := ""
		for i := from; i <= to; i++ {
			out += strconv.Itoa(i) + "\n"
		}
		return out
	}
	runFileRows(t, []fileRow{
		// regex and line-number patterns; the size of each piece on stdout
		{args: []string{"csplit", "s10", "/5/"}, files: csplitFiles, out: "8\n13\n", want: map[string]string{"xx00": s10(1, 4), "xx01": s10(5, 10)}},
		{args: []string{"csplit", "s10", "/3/", "/7/"}, files: csplitFiles, out: "4\n8\n9\n", want: map[string]string{"xx00": s10(1, 2), "xx01": s10(3, 6), "xx02": s10(7, 10)}},
		{args: []string{"csplit", "s10", "3", "7"}, files: csplitFiles, out: "4\n8\n9\n", want: map[string]string{"xx00": s10(1, 2), "xx01": s10(3, 6), "xx02": s10(7, 10)}},
		{args: []string{"csplit", "s10", "/^1/"}, files: csplitFiles, out: "0\n21\n", want: map[string]string{"xx00": "", "xx01": s10(1, 10)}},
		{args: []string{"csplit", "doc", "/^==/", "{*}"}, files: csplitFiles, out: "6\n11\n8\n11\n",
			want: map[string]string{"xx00": "intro\n", "xx01": "== A\na1\na2\n", "xx02": "== B\nb1\n", "xx03": "== C\nc1\nc2\n"}},
		{args: []string{"csplit", "s10", "/[13579]/", "{3}"}, files: csplitFiles, out: "0\n4\n4\n4\n9\n",
			want: map[string]string{"xx00": "", "xx01": s10(1, 2), "xx02": s10(3, 4), "xx03": s10(5, 6), "xx04": s10(7, 10)}},
		{args: []string{"csplit", "s10", "3", "{2}"}, files: csplitFiles, out: "4\n6\n6\n5\n",
			want: map[string]string{"xx00": s10(1, 2), "xx01": s10(3, 5), "xx02": s10(6, 8), "xx03": s10(9, 10)}},
		// offsets and %skip%
		{args: []string{"csplit", "s10", "/5/+2"}, files: csplitFiles, out: "12\n9\n", want: map[string]string{"xx00": s10(1, 6), "xx01": s10(7, 10)}},
		{args: []string{"csplit", "s10", "/5/-2"}, files: csplitFiles, out: "4\n17\n", want: map[string]string{"xx00": s10(1, 2), "xx01": s10(3, 10)}},
		{args: []string{"csplit", "s10", "%3%", "/7/"}, files: csplitFiles, out: "8\n9\n", want: map[string]string{"xx00": s10(3, 6), "xx01": s10(7, 10)}},
		{args: []string{"csplit", "s10", "%5%"}, files: csplitFiles, out: "13\n", want: map[string]string{"xx00": s10(5, 10)}},
		// options
		{args: []string{"csplit", "-f", "part", "-b", "%03d.txt", "s10", "4"}, files: csplitFiles, out: "6\n15\n", want: map[string]string{"part000.txt": s10(1, 3), "part001.txt": s10(4, 10)}},
		{args: []string{"csplit", "--prefix=d/p", "-n", "1", "s10", "6"}, files: csplitFiles, out: "10\n11\n", want: map[string]string{"d/p0": s10(1, 5), "d/p1": s10(6, 10)}},
		{args: []string{"csplit", "-b", "%x", "-f", "h", "s10", "/./", "{*}"}, files: csplitFiles, out: "0\n2\n2\n2\n2\n2\n2\n2\n2\n2\n3\n",
			want: map[string]string{"h0": "", "h1": "1\n", "h2": "2\n", "h3": "3\n", "h4": "4\n", "h5": "5\n", "h6": "6\n", "h7": "7\n", "h8": "8\n", "h9": "9\n", "ha": "10\n"}},
		{args: []string{"csplit", "s10", "2", "{*}"}, files: csplitFiles, code: 1, out: "2\n4\n4\n4\n4\n3\n", errOut: "csplit: ‘2’: line number out of range on repetition 5\n"},
		{args: []string{"csplit", "-s", "s10", "/5/"}, files: csplitFiles, want: map[string]string{"xx00": s10(1, 4), "xx01": s10(5, 10)}},
		{args: []string{"csplit", "-q", "s10", "/5/"}, files: csplitFiles, want: map[string]string{"xx00": s10(1, 4), "xx01": s10(5, 10)}},
		{args: []string{"csplit", "-z", "s10", "/1/", "/3/"}, files: csplitFiles, out: "4\n17\n", want: map[string]string{"xx00": s10(1, 2), "xx01": s10(3, 10)}},
		{args: []string{"csplit", "--suppress-matched", "doc", "/^==/", "{*}"}, files: csplitFiles, out: "6\n6\n3\n6\n",
			want: map[string]string{"xx00": "intro\n", "xx01": "a1\na2\n", "xx02": "b1\n", "xx03": "c1\nc2\n"}},
		{args: []string{"csplit", "tail", "2"}, files: csplitFiles, out: "2\n6\n", want: map[string]string{"xx00": "x\n", "xx01": "y\nlast"}},
		{args: []string{"csplit", "-", "/b/"}, stdin: "a\nb\nc\n", out: "2\n4\n", want: map[string]string{"xx00": "a\n", "xx01": "b\nc\n"}},
		// errors: the pieces are removed unless -k
		{args: []string{"csplit", "s10", "/x/"}, files: csplitFiles, code: 1, out: "21\n", errOut: "csplit: ‘/x/’: match not found\n"},
		{args: []string{"csplit", "-k", "s10", "/x/"}, files: csplitFiles, code: 1, out: "21\n", errOut: "csplit: ‘/x/’: match not found\n", want: map[string]string{"xx00": s10(1, 10)}},
		{args: []string{"csplit", "s10", "/[13579]/", "{9}"}, files: csplitFiles, code: 1, out: "0\n4\n4\n4\n4\n2\n3\n", errOut: "csplit: ‘/[13579]/’: match not found on repetition 6\n"},
		{args: []string{"csplit", "s10", "12"}, files: csplitFiles, code: 1, out: "21\n", errOut: "csplit: ‘12’: line number out of range\n"},
		{args: []string{"csplit", "-k", "s10", "3", "12"}, files: csplitFiles, code: 1, out: "4\n17\n", errOut: "csplit: ‘12’: line number out of range\n",
			want: map[string]string{"xx00": s10(1, 2), "xx01": s10(3, 10)}},
		{args: []string{"csplit", "s10", "/5/+20"}, files: csplitFiles, code: 1, out: "21\n", errOut: "csplit: ‘/5/+20’: line number out of range\n"},
		{args: []string{"csplit", "s10", "3", "3"}, files: csplitFiles, out: "4\n0\n17\n", errOut: "csplit: warning: line number ‘3’ is the same as preceding line number\n",
			want: map[string]string{"xx00": s10(1, 2), "xx01": "", "xx02": s10(3, 10)}},
		{args: []string{"csplit", "s10", "5", "3"}, files: csplitFiles, code: 1, errOut: "csplit: line number ‘3’ is smaller than preceding line number, 5\n"},
		{args: []string{"csplit", "s10", "0"}, files: csplitFiles, code: 1, errOut: "csplit: 0: line number must be greater than zero\n"},
		{args: []string{"csplit", "s10", "x"}, files: csplitFiles, code: 1, errOut: "csplit: ‘x’: invalid pattern\n"},
		{args: []string{"csplit", "s10", "/abc"}, files: csplitFiles, code: 1, errOut: "csplit: /abc: closing delimiter '/' missing\n"},
		{args: []string{"csplit", "s10", "/a/x"}, files: csplitFiles, code: 1, errOut: "csplit: ‘/a/x’: integer expected after delimiter\n"},
		{args: []string{"csplit", "s10", "/1/", "{x}"}, files: csplitFiles, code: 1, errOut: "csplit: ‘{x’}: integer required between '{' and '}'\n"},
		{args: []string{"csplit", "s10", "/1/", "{5"}, files: csplitFiles, code: 1, errOut: "csplit: ‘{5’: '}' is required in repeat count\n"},
		{args: []string{"csplit", "s10", "/[a/"}, files: csplitFiles, code: 1, errOut: "csplit: ‘/[a/’: invalid regular expression: Unmatched [, [^, [:, [., or [=\n"},
		{args: []string{"csplit", "s10", "/[/"}, files: csplitFiles, code: 1, errOut: "csplit: ‘/[/’: invalid regular expression: Invalid regular expression\n"},
		{args: []string{"csplit", "-b", "%d%d", "s10", "3"}, files: csplitFiles, code: 1, errOut: "csplit: too many % conversion specifications in suffix\n"},
		{args: []string{"csplit", "-b", "abc", "s10", "3"}, files: csplitFiles, code: 1, errOut: "csplit: missing % conversion specification in suffix\n"},
		{args: []string{"csplit", "-b", "%#d", "s10", "3"}, files: csplitFiles, code: 1, errOut: "csplit: invalid flags in conversion specification: %#d\n"},
		{args: []string{"csplit", "-n", "x", "s10", "3"}, files: csplitFiles, code: 1, errOut: "csplit: invalid number: ‘x’\n"},
		{args: []string{"csplit", "nofile", "3"}, code: 1, errOut: "csplit: cannot open 'nofile' for reading: No such file or directory\n"},
		{args: []string{"csplit", "d", "3"}, files: csplitFiles, code: 1, out: "0\n", errOut: "csplit: read error: Is a directory\n"},
		{args: []string{"csplit", "-", "1"}, code: 1, errOut: "csplit: input disappeared\n", want: map[string]string{"xx00": ""}},
		{args: []string{"csplit"}, code: 1, errOut: "csplit: missing operand\nTry 'csplit --help' for more information.\n"},
		{args: []string{"csplit", "s10"}, files: csplitFiles, code: 1, errOut: "csplit: missing operand after ‘s10’\nTry 'csplit --help' for more information.\n"},
	})
}

func TestCsplitRegexp(t *testing.T) {
	// Repeats of repeats, which Go's syntax refuses, mean what POSIX says.
	for _, c := range []struct{ pat, line string }{
		{"a**", "b"},
		{`a*\{2\}`, "aaa"},
		{`^a\{1,2\}\{2\}$`, "aaaa"},
		{`[]a]**x`, "]]ax"},
	} {
		re, err := csCompile(c.pat)
		if err != nil || !re.MatchString(c.line) {
			t.Errorf("csCompile(%q) = %v, %v; want a match of %q", c.pat, re, err, c.line)
		}
	}
	if got := csNestRepeats(`\x41**[*]*`); !regexp.MustCompile(got).MatchString("AA**") || got != `(?:\x41*)*[*]*` {
		t.Errorf("csNestRepeats = %q", got)
	}
	for _, c := range []struct {
		f    string
		n    int
		want string
	}{{"%02d", 3, "03"}, {"%05.3u", 7, "  007"}, {"%#x", 0, "0"}, {"%#x", 26, "0x1a"}, {"%-3X|", 11, "B  |"}, {"%#o.%%", 8, "010.%"}} {
		if got := csFormat(c.f, c.n); got != c.want {
			t.Errorf("csFormat(%q, %d) = %q, want %q", c.f, c.n, got, c.want)
		}
	}
}

func TestCsplitCancelAndLimits(t *testing.T) {
	// A negative offset holds the lines searched: bounded by MaxReadBytes.
	env, out, errb := limitEnv(t, context.Background(), map[string]string{"big": strings.Repeat("line\n", 100)}, strings.NewReader(""), 64)
	if code := Csplit(env, []string{"csplit", "big", "/nomatch/-1"}); code != 1 || !strings.Contains(errb.String(), ErrTooLarge.Error()) {
		t.Errorf("csplit over the limit: code %d, stdout %q, stderr %q", code, out, errb)
	}
	if _, err := env.FS.Stat(context.Background(), "/work/xx00"); err == nil {
		t.Errorf("xx00 left behind after the error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	in := newReading()
	env, _, _ = limitEnv(t, ctx, nil, in, 1<<20)
	done := make(chan int)
	go func() { done <- Csplit(env, []string{"csplit", "-", "/nomatch/"}) }()
	<-in.started
	cancel()
	select {
	case code := <-done:
		if code == 0 {
			t.Errorf("cancelled csplit exited 0")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("csplit did not stop when cancelled")
	}
}
