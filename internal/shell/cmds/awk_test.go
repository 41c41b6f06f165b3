package cmds

import (
	"strings"
	"testing"
)

func TestAwk(t *testing.T) {
	files := map[string]string{
		"f1":       "a 1\nb 2\n",
		"f2":       "c 3\n",
		"csv":      "x,y\n1,2\n",
		"empty":    "",
		"prog.awk": "{ s += $2 }\nEND { print s }\n",
	}
	rows := []textRow{
		{name: "print fields", files: files, args: []string{"awk", "{print $2, $1}", "f1"}, out: "1 a\n2 b\n"},
		{name: "stdin", stdin: "one two\n", args: []string{"awk", "{print NF}"}, out: "2\n"},
		{name: "dash stdin", files: files, stdin: "x\n", args: []string{"awk", "{print FILENAME \":\" $0}", "f2", "-"}, out: "f2:c 3\n-:x\n"},
		{name: "filename fnr nr", files: files, args: []string{"awk", "{print FILENAME, FNR, NR, $2}", "f1", "f2"},
			out: "f1 1 1 1\nf1 2 2 2\nf2 1 3 3\n"},
		{name: "end filename", files: files, args: []string{"awk", "END{print NR, FILENAME}", "f1", "f2"}, out: "3 f2\n"},
		{name: "empty file", files: files, args: []string{"awk", "{print FNR}", "empty", "f2"}, out: "1\n"},
		{name: "assign operands", files: files, args: []string{"awk", "{print x, $0}", "x=1", "f1", "x=2", "f2"},
			out: "1 a 1\n1 b 2\n2 c 3\n"},
		{name: "-F", files: files, args: []string{"awk", "-F,", "{print $2}", "csv"}, out: "y\n2\n"},
		{name: "-F sep arg", stdin: "a:b:c\n", args: []string{"awk", "-F", ":", "{print $3}"}, out: "c\n"},
		{name: "-F t", stdin: "a\tb c\n", args: []string{"awk", "-Ft", "{print $2}"}, out: "b c\n",
			skip: "POSIX and gawk: -Ft is a tab; mawk takes a literal t"},
		{name: "-v escapes", args: []string{"awk", "-v", `x=a\tb`, "BEGIN{print x}"}, out: "a\tb\n"},
		{name: "-v attached", args: []string{"awk", "-vn=3", "BEGIN{print n*2}"}, out: "6\n"},
		{name: "-f progfile", files: files, args: []string{"awk", "-f", "prog.awk", "f1", "f2"}, out: "6\n"},
		{name: "BEGIN only ignores stdin", stdin: "x\n", args: []string{"awk", "BEGIN{print \"hi\"}"}, out: "hi\n"},
		{name: "exit status", args: []string{"awk", "BEGIN{exit 3}"}, code: 3},
		{name: "exit runs END", stdin: "a\nb\n", args: []string{"awk", "{print; exit 4} END{print \"end\"}"}, out: "a\nend\n", code: 4},
		{name: "printf arrays", stdin: "b\na\nb\n", args: []string{"awk", "{c[$1]++} END{printf \"%s=%d\\n\", \"b\", c[\"b\"]}"}, out: "b=2\n"},
		{name: "gsub", stdin: "foo bar foo\n", args: []string{"awk", "{n=gsub(/foo/,\"x\"); print n, $0}"}, out: "2 x bar x\n"},
		{name: "OFS rebuild", stdin: "a b c\n", args: []string{"awk", "BEGIN{OFS=\"-\"}{$1=$1; print}"}, out: "a-b-c\n"},
		{name: "print to -", args: []string{"awk", "BEGIN{print \"x\" > \"-\"}"}, out: "x\n", skip: "mawk writes a file named -"},
		{name: "ENVIRON", args: []string{"awk", "BEGIN{print ENVIRON[\"USER\"]}"}, out: "user\n"},
		{name: "length chars", stdin: "héllo\n", args: []string{"awk", "{print length($0)}"}, out: "5\n",
			skip: "mawk counts bytes (6); GoAWK counts characters as gawk does in UTF-8"},
		{name: "chars in UTF-8", stdin: "héllo\n", args: []string{"awk", `{print length($0), substr($0, 2, 2), index($0, "l"); printf "%c|\n", "é"}`},
			out: "5 él 3\né|\n", skip: "mawk counts bytes; gawk in a UTF-8 locale counts characters"},
		{name: "bytes in C", env: cLocale, stdin: "héllo\n", args: []string{"awk", `{print length($0), substr($0, 2, 2), index($0, "l"); printf "%c|\n", "é"}`},
			out: "6 \xc3\xa9 4\n\xc3|\n"},
		{name: "missing file", files: files, args: []string{"awk", "{print}", "f2", "nope"},
			out: "c 3\n", errOut: "awk: cannot open nope (No such file or directory)\n", code: 2},
		{name: "syntax error", args: []string{"awk", "BEGIN{print 1"},
			errOut: "awk: syntax error at 1:14: expected , instead of EOF\nBEGIN{print 1\n             ^\n", code: 2,
			skip: "messages are GoAWK's"},
		{name: "bad option", args: []string{"awk", "-x", "1"}, errOut: "awk: invalid option -- 'x'\n" + awkUsage + "\n", code: 2, skip: "mawk prints its own usage"},
		{name: "no program", args: []string{"awk"}, errOut: awkUsage + "\n", code: 2, skip: "mawk prints usage to stdout, exit 0"},
		{name: "system refused", args: []string{"awk", "BEGIN{system(\"echo hi\")}"},
			errOut: "awk: running commands (system(), \"cmd\" | getline, print | \"cmd\") is not supported in the shell backend\n", code: 2,
			skip: "no command execution in the shell backend"},
		{name: "pipe getline refused", args: []string{"awk", "BEGIN{\"date\" | getline x}"},
			errOut: "awk: running commands (system(), \"cmd\" | getline, print | \"cmd\") is not supported in the shell backend\n", code: 2,
			skip: "no command execution in the shell backend"},
		{name: "file write refused", args: []string{"awk", "BEGIN{print 1 > \"out\"}"},
			errOut: "awk: output redirection to files (> and >>) is not supported in the shell backend (redirect the shell command's output instead)\n", code: 2,
			skip: "no file writes from awk in the shell backend"},
		{name: "file getline refused", files: files, args: []string{"awk", "BEGIN{getline x < \"f1\"; print x}"},
			errOut: "awk: reading files with getline is not supported in the shell backend (pass files as operands)\n", code: 2,
			skip: "no getline from files in the shell backend"},
	}
	runTextRows(t, rows)
}

func TestAwkHostUntouched(t *testing.T) {
	// A file operand that exists only on the host must not be read.
	_, errOut, code := run(t, nil, "", "awk", "{print}", "/etc/hostname")
	if code != 2 || !strings.Contains(errOut, "cannot open /etc/hostname") {
		t.Fatalf("code=%d err=%q", code, errOut)
	}
	_, errOut, code = run(t, nil, "", "awk", "-f", "/etc/passwd")
	if code != 2 || !strings.Contains(errOut, "couldn't open file") {
		t.Fatalf("code=%d err=%q", code, errOut)
	}
}

func TestAwkCancel(t *testing.T) {
	checkStopsOnCancel(t, Awk, "awk", "BEGIN{while(1) x++}")
}
