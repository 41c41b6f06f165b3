package cmds

import (
	"context"
	"io/fs"
	"testing"
)

func TestSedTable(t *testing.T) {
	rows := []textRow{
		{name: "subst basic", files: nil, stdin: "hello world\n", args: []string{"sed", "s/o/0/"},
			out: "hell0 world\n", errOut: "", code: 0},
		{name: "subst g", files: nil, stdin: "hello world\n", args: []string{"sed", "s/o/0/g"},
			out: "hell0 w0rld\n", errOut: "", code: 0},
		{name: "subst nth", files: nil, stdin: "aaaa\n", args: []string{"sed", "s/a/b/3"},
			out: "aaba\n", errOut: "", code: 0},
		{name: "subst nth g", files: nil, stdin: "aaaa\n", args: []string{"sed", "s/a/b/2g"},
			out: "abbb\n", errOut: "", code: 0},
		{name: "subst amp", files: nil, stdin: "abc\n", args: []string{"sed", "s/b/[&]/"},
			out: "a[b]c\n", errOut: "", code: 0},
		{name: "subst groups", files: nil, stdin: "john smith\n", args: []string{"sed", "s/\\(\\w*\\) \\(\\w*\\)/\\2, \\1/"},
			out: "smith, john\n", errOut: "", code: 0},
		{name: "subst ere groups", files: nil, stdin: "john smith\n", args: []string{"sed", "-E", "s/(\\w+) (\\w+)/\\2 \\1/"},
			out: "smith john\n", errOut: "", code: 0},
		{name: "subst -r", files: nil, stdin: "a1b22c333\n", args: []string{"sed", "-r", "s/[0-9]+/N/g"},
			out: "aNbNcN\n", errOut: "", code: 0},
		{name: "subst delim", files: nil, stdin: "/usr/local/bin\n", args: []string{"sed", "s|/usr/local|/opt|"},
			out: "/opt/bin\n", errOut: "", code: 0},
		{name: "subst delim comma", files: nil, stdin: "a,b\n", args: []string{"sed", "s,a\\,b,X,"},
			out: "X\n", errOut: "", code: 0},
		{name: "subst icase", files: nil, stdin: "Hello HELLO\n", args: []string{"sed", "s/hello/hi/Ig"},
			out: "hi hi\n", errOut: "", code: 0},
		{name: "subst p -n", files: nil, stdin: "a\nb\na\n", args: []string{"sed", "-n", "s/a/A/p"},
			out: "A\nA\n", errOut: "", code: 0},
		{name: "subst newline repl", files: nil, stdin: "a,b\n", args: []string{"sed", "s/,/\\n/"},
			out: "a\nb\n", errOut: "", code: 0},
		{name: "subst tab", files: nil, stdin: "a b\n", args: []string{"sed", "s/ /\\t/"},
			out: "a\tb\n", errOut: "", code: 0},
		{name: "subst escaped amp", files: nil, stdin: "a\n", args: []string{"sed", "s/a/\\&x/"},
			out: "&x\n", errOut: "", code: 0},
		{name: "subst empty match g", files: nil, stdin: "abc\n", args: []string{"sed", "s/x*/-/g"},
			out: "-a-b-c-\n", errOut: "", code: 0},
		{name: "subst empty re reuse", files: nil, stdin: "foo bar\n", args: []string{"sed", "/foo/s//X/"},
			out: "X bar\n", errOut: "", code: 0},
		{name: "subst case conv", files: nil, stdin: "hello world\n", args: []string{"sed", "s/\\w\\+/\\u&/g"},
			out: "Hello World\n", errOut: "", code: 0},
		{name: "subst upper", files: nil, stdin: "hello world\n", args: []string{"sed", "s/.*/\\U&/"},
			out: "HELLO WORLD\n", errOut: "", code: 0},
		{name: "subst anchors", files: nil, stdin: "aaa\n", args: []string{"sed", "s/^a/b/g"},
			out: "baa\n", errOut: "", code: 0},
		{name: "subst dollar", files: nil, stdin: "abc\n", args: []string{"sed", "s/$/!/"},
			out: "abc!\n", errOut: "", code: 0},
		{name: "subst bracket", files: nil, stdin: "a1b2\n", args: []string{"sed", "s/[0-9]/#/g"},
			out: "a#b#\n", errOut: "", code: 0},
		{name: "subst class", files: nil, stdin: "a1 b2\n", args: []string{"sed", "s/[[:digit:]]/D/g;s/[[:space:]]/_/"},
			out: "aD_bD\n", errOut: "", code: 0},
		{name: "subst star bre", files: nil, stdin: "a+b\n", args: []string{"sed", "s/a+b/X/"},
			out: "X\n", errOut: "", code: 0},
		{name: "subst interval", files: nil, stdin: "aaa\n", args: []string{"sed", "s/a\\{2\\}/X/"},
			out: "Xa\n", errOut: "", code: 0},
		{name: "multiple -e", files: nil, stdin: "abc\n", args: []string{"sed", "-e", "s/a/A/", "-e", "s/c/C/"},
			out: "AbC\n", errOut: "", code: 0},
		{name: "semicolons", files: nil, stdin: "abc\n", args: []string{"sed", "s/a/A/;s/b/B/"},
			out: "ABc\n", errOut: "", code: 0},
		{name: "delete line", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "2d", "a"},
			out: "1\n3\n", errOut: "", code: 0},
		{name: "delete last", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "$d", "a"},
			out: "1\n2\n", errOut: "", code: 0},
		{name: "delete regex", files: map[string]string{"t": "hello world\nfoo bar\nbaz\n"}, stdin: "", args: []string{"sed", "/foo/d", "t"},
			out: "hello world\nbaz\n", errOut: "", code: 0},
		{name: "print -n", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "2p", "a"},
			out: "2\n", errOut: "", code: 0},
		{name: "print range", files: map[string]string{"t": "hello world\nfoo bar\nbaz\n"}, stdin: "", args: []string{"sed", "-n", "1,2p", "t"},
			out: "hello world\nfoo bar\n", errOut: "", code: 0},
		{name: "range re", files: nil, stdin: "a\nstart\nb\nend\nc\n", args: []string{"sed", "-n", "/start/,/end/p"},
			out: "start\nb\nend\n", errOut: "", code: 0},
		{name: "range plus", files: nil, stdin: "1\n2\n3\n4\n5\n", args: []string{"sed", "-n", "/2/,+2p"},
			out: "2\n3\n4\n", errOut: "", code: 0},
		{name: "range mult", files: nil, stdin: "1\n2\n3\n4\n5\n6\n", args: []string{"sed", "-n", "2,~4p"},
			out: "2\n3\n4\n", errOut: "", code: 0},
		{name: "range zero", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "0,/[0-9]/d", "a"},
			out: "2\n3\n", errOut: "", code: 0},
		{name: "range backwards", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "3,1p", "a"},
			out: "3\n", errOut: "", code: 0},
		{name: "step", files: nil, stdin: "1\n2\n3\n4\n5\n6\n", args: []string{"sed", "-n", "1~2p"},
			out: "1\n3\n5\n", errOut: "", code: 0},
		{name: "step zero", files: nil, stdin: "1\n2\n3\n4\n5\n6\n", args: []string{"sed", "0~3d"},
			out: "1\n2\n4\n5\n", errOut: "", code: 0},
		{name: "negate", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "2!p", "a"},
			out: "1\n3\n", errOut: "", code: 0},
		{name: "negate range", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "1,2!d", "a"},
			out: "1\n2\n", errOut: "", code: 0},
		{name: "custom delim addr", files: nil, stdin: "/a\nb\n", args: []string{"sed", "-n", "\\,/a,p"},
			out: "/a\n", errOut: "", code: 0},
		{name: "addr icase", files: nil, stdin: "ABC\nx\n", args: []string{"sed", "-n", "/abc/Ip"},
			out: "ABC\n", errOut: "", code: 0},
		{name: "block", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "2{p;p}", "a"},
			out: "2\n2\n", errOut: "", code: 0},
		{name: "nested block", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "1,2{/2/{p}}", "a"},
			out: "2\n", errOut: "", code: 0},
		{name: "line number", files: map[string]string{"t": "hello world\nfoo bar\nbaz\n"}, stdin: "", args: []string{"sed", "-n", "$=", "t"},
			out: "3\n", errOut: "", code: 0},
		{name: "equals", files: map[string]string{"b": "x\ny\n"}, stdin: "", args: []string{"sed", "=", "b"},
			out: "1\nx\n2\ny\n", errOut: "", code: 0},
		{name: "append one-liner", files: map[string]string{"b": "x\ny\n"}, stdin: "", args: []string{"sed", "1a added", "b"},
			out: "x\nadded\ny\n", errOut: "", code: 0},
		{name: "append classic", files: map[string]string{"b": "x\ny\n"}, stdin: "", args: []string{"sed", "1a\\\n  added", "b"},
			out: "x\n  added\ny\n", errOut: "", code: 0},
		{name: "append backslash text", files: map[string]string{"b": "x\ny\n"}, stdin: "", args: []string{"sed", "a\\  lead", "b"},
			out: "x\n  lead\ny\n  lead\n", errOut: "", code: 0},
		{name: "insert", files: map[string]string{"b": "x\ny\n"}, stdin: "", args: []string{"sed", "2i before", "b"},
			out: "x\nbefore\ny\n", errOut: "", code: 0},
		{name: "insert classic multi", files: map[string]string{"b": "x\ny\n"}, stdin: "", args: []string{"sed", "1i\\\nl1\\\nl2", "b"},
			out: "l1\nl2\nx\ny\n", errOut: "", code: 0},
		{name: "change", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "2c changed", "a"},
			out: "1\nchanged\n3\n", errOut: "", code: 0},
		{name: "change range", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "1,2c gone", "a"},
			out: "gone\n3\n", errOut: "", code: 0},
		{name: "change last", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "$c\\\nend", "a"},
			out: "1\n2\nend\n", errOut: "", code: 0},
		{name: "append last", files: map[string]string{"nonl": "a\nb"}, stdin: "", args: []string{"sed", "$a tail", "nonl"},
			out: "a\nb\ntail\n", errOut: "", code: 0},
		{name: "y", files: nil, stdin: "hello\n", args: []string{"sed", "y/abcdefghij/0123456789/"},
			out: "74llo\n", errOut: "", code: 0},
		{name: "y unequal", files: nil, stdin: "x\n", args: []string{"sed", "y/ab/c/"},
			out: "", errOut: "sed: -e expression #1, char 7: strings for `y' command are different lengths\n", code: 1},
		{name: "q", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "2q", "a"},
			out: "1\n2\n", errOut: "", code: 0},
		{name: "q exit", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "2q5", "a"},
			out: "1\n2\n", errOut: "", code: 5},
		{name: "Q", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "2Q", "a"},
			out: "1\n", errOut: "", code: 0},
		{name: "n", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "n;d", "a"},
			out: "1\n3\n", errOut: "", code: 0},
		{name: "N join", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "N;s/\\n/-/", "a"},
			out: "1-2\n3\n", errOut: "", code: 0},
		{name: "N last", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "$!N;s/\\n/-/", "a"},
			out: "1-2\n3\n", errOut: "", code: 0},
		{name: "join all", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", ":a;N;$!ba;s/\\n/,/g", "a"},
			out: "1,2,3\n", errOut: "", code: 0},
		{name: "t loop", files: nil, stdin: "1234567\n", args: []string{"sed", ":a;s/\\B[0-9]\\{3\\}\\>/,&/;ta"},
			out: "1,234,567\n", errOut: "", code: 0},
		{name: "T", files: map[string]string{"b": "x\ny\n"}, stdin: "", args: []string{"sed", "s/x/X/;T;s/$/!/", "b"},
			out: "X!\ny\n", errOut: "", code: 0},
		{name: "b label skip", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "/2/b end;s/$/+/;:end", "a"},
			out: "1+\n2\n3+\n", errOut: "", code: 0},
		{name: "hold tac", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "1!G;h;$p", "a"},
			out: "3\n2\n1\n", errOut: "", code: 0},
		{name: "P D", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "$!N;P;D", "a"},
			out: "1\n2\n3\n", errOut: "", code: 0},
		{name: "l", files: nil, stdin: "a\tb\u0001\\c\n", args: []string{"sed", "-n", "l"},
			out: "a\\tb\\001\\\\c$\n", errOut: "", code: 0},
		{name: "l wrap", files: nil, stdin: "00000000000000000000000000000000000000000000000000000000000000000000000000000000\n", args: []string{"sed", "-n", "l"},
			out: "000000000000000000000000000000000000000000000000000000000000000000000\\\n00000000000$\n", errOut: "", code: 0},
		{name: "missing newline", files: map[string]string{"nonl": "a\nb"}, stdin: "", args: []string{"sed", "p", "nonl"},
			out: "a\na\nb\nb", errOut: "", code: 0},
		{name: "missing newline s", files: map[string]string{"nonl": "a\nb"}, stdin: "", args: []string{"sed", "s/b/B/", "nonl"},
			out: "a\nB", errOut: "", code: 0},
		{name: "two files", files: map[string]string{"a": "1\n2\n3\n", "b": "x\ny\n"}, stdin: "", args: []string{"sed", "-n", "$p", "a", "b"},
			out: "y\n", errOut: "", code: 0},
		{name: "separate", files: map[string]string{"a": "1\n2\n3\n", "b": "x\ny\n"}, stdin: "", args: []string{"sed", "-s", "-n", "1p;$p", "a", "b"},
			out: "1\n3\nx\ny\n", errOut: "", code: 0},
		{name: "stdin dash", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "z\n", args: []string{"sed", "s/^/>/", "-", "a"},
			out: ">z\n>1\n>2\n>3\n", errOut: "", code: 0},
		{name: "-z", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-z", "s/\\n/,/g", "a"},
			out: "1,2,3,", errOut: "", code: 0},
		{name: "-f script", files: map[string]string{"a": "1\n2\n3\n", "s.sed": "s/1/one/\n# comment\n3d\n"}, stdin: "", args: []string{"sed", "-f", "s.sed", "a"},
			out: "one\n2\n", errOut: "", code: 0},
		{name: "#n", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "#n\n2p", "a"},
			out: "2\n", errOut: "", code: 0},
		{name: "comment", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "2d # drop", "a"},
			out: "1\n3\n", errOut: "", code: 0},
		{name: "spaces", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", " 2 , 3 ! p", "a"},
			out: "1\n", errOut: "", code: 0},
		{name: "missing file", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "p", "nofile"},
			out: "", errOut: "sed: can't read nofile: No such file or directory\n", code: 2},
		{name: "missing file and good", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "1p", "nofile", "a"},
			out: "1\n", errOut: "sed: can't read nofile: No such file or directory\n", code: 2},
		{name: "err unterminated s", files: nil, stdin: "x\n", args: []string{"sed", "s/a"},
			out: "", errOut: "sed: -e expression #1, char 3: unterminated `s' command\n", code: 1},
		{name: "err unterminated s #2", files: nil, stdin: "x\n", args: []string{"sed", "-e", "p", "-e", "s/a/b"},
			out: "", errOut: "sed: -e expression #2, char 5: unterminated `s' command\n", code: 1},
		{name: "err unknown opt s", files: nil, stdin: "x\n", args: []string{"sed", "s/a/b/q"},
			out: "", errOut: "sed: -e expression #1, char 7: unknown option to `s'\n", code: 1},
		{name: "err unknown cmd", files: nil, stdin: "x\n", args: []string{"sed", "k"},
			out: "", errOut: "sed: -e expression #1, char 1: unknown command: `k'\n", code: 1},
		{name: "err address regex", files: nil, stdin: "x\n", args: []string{"sed", "/x"},
			out: "", errOut: "sed: -e expression #1, char 2: unterminated address regex\n", code: 1},
		{name: "err label", files: nil, stdin: "x\n", args: []string{"sed", "b foo"},
			out: "", errOut: "sed: can't find label for jump to `foo'\n", code: 4},
		{name: "err unmatched brace", files: nil, stdin: "x\n", args: []string{"sed", "{p"},
			out: "", errOut: "sed: -e expression #1, char 0: unmatched `{'\n", code: 1},
		{name: "err unexpected brace", files: nil, stdin: "x\n", args: []string{"sed", "p}"},
			out: "", errOut: "sed: -e expression #1, char 2: unexpected `}'\n", code: 1},
		{name: "err extra chars", files: nil, stdin: "x\n", args: []string{"sed", "pq"},
			out: "", errOut: "sed: -e expression #1, char 2: extra characters after command\n", code: 1},
		{name: "err rhs ref", files: nil, stdin: "x\n", args: []string{"sed", "s/\\(a\\)/\\2/"},
			out: "", errOut: "sed: -e expression #1, char 11: invalid reference \\2 on `s' command's RHS\n", code: 1},
		{name: "err a no text", files: nil, stdin: "x\n", args: []string{"sed", "a"},
			out: "", errOut: "sed: -e expression #1, char 1: expected \\ after `a', `c' or `i'\n", code: 1},
		{name: "err multiple g", files: nil, stdin: "x\n", args: []string{"sed", "s/a/b/gg"},
			out: "", errOut: "sed: -e expression #1, char 8: multiple `g' options to `s' command\n", code: 1},
		{name: "err q two addr", files: nil, stdin: "x\n", args: []string{"sed", "1,2q"},
			out: "", errOut: "sed: -e expression #1, char 4: command only uses one address\n", code: 1},
		{name: "err no prev re", files: nil, stdin: "x\n", args: []string{"sed", "s//x/"},
			out: "", errOut: "sed: -e expression #1, char 0: no previous regular expression\n", code: 1},
		{name: "err missing command", files: nil, stdin: "x\n", args: []string{"sed", "1"},
			out: "", errOut: "sed: -e expression #1, char 1: missing command\n", code: 1},
		{name: "err zero addr", files: nil, stdin: "x\n", args: []string{"sed", "0p"},
			out: "", errOut: "sed: -e expression #1, char 2: invalid usage of line address 0\n", code: 1},
		{name: "err colon", files: nil, stdin: "x\n", args: []string{"sed", ":"},
			out: "", errOut: "sed: -e expression #1, char 1: \":\" lacks a label\n", code: 1},
		{name: "err invalid option", files: nil, stdin: "", args: []string{"sed", "-k", "p"},
			out: "", errOut: "sed: invalid option -- 'k'\nUsage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n\n  -n, --quiet, --silent\n                 suppress automatic printing of pattern space\n      --debug\n                 annotate program execution\n  -e script, --expression=script\n                 add the script to the commands to be executed\n  -f script-file, --file=script-file\n                 add the contents of script-file to the commands to be executed\n  --follow-symlinks\n                 follow symlinks when processing in place\n  -i[SUFFIX], --in-place[=SUFFIX]\n                 edit files in place (makes backup if SUFFIX supplied)\n  -l N, --line-length=N\n                 specify the desired line-wrap length for the `l' command\n  --posix\n                 disable all GNU extensions.\n  -E, -r, --regexp-extended\n                 use extended regular expressions in the script\n                 (for portability use POSIX -E).\n  -s, --separate\n                 consider files as separate rather than as a single,\n                 continuous long stream.\n      --sandbox\n                 operate in sandbox mode (disable e/r/w commands).\n  -u, --unbuffered\n                 load minimal amounts of data from the input files and flush\n                 the output buffers more often\n  -z, --null-data\n                 separate lines by NUL characters\n      --help     display this help and exit\n      --version  output version information and exit\n\nIf no -e, --expression, -f, or --file option is given, then the first\nnon-option argument is taken as the sed script to interpret.  All\nremaining arguments are names of input files; if no input files are\nspecified, then the standard input is read.\n\nGNU sed home page: <https://www.gnu.org/software/sed/>.\nGeneral help using GNU software: <https://www.gnu.org/gethelp/>.\n", code: 1},
		{name: "no script", files: nil, stdin: "", args: []string{"sed"},
			out: "", errOut: "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n\n  -n, --quiet, --silent\n                 suppress automatic printing of pattern space\n      --debug\n                 annotate program execution\n  -e script, --expression=script\n                 add the script to the commands to be executed\n  -f script-file, --file=script-file\n                 add the contents of script-file to the commands to be executed\n  --follow-symlinks\n                 follow symlinks when processing in place\n  -i[SUFFIX], --in-place[=SUFFIX]\n                 edit files in place (makes backup if SUFFIX supplied)\n  -l N, --line-length=N\n                 specify the desired line-wrap length for the `l' command\n  --posix\n                 disable all GNU extensions.\n  -E, -r, --regexp-extended\n                 use extended regular expressions in the script\n                 (for portability use POSIX -E).\n  -s, --separate\n                 consider files as separate rather than as a single,\n                 continuous long stream.\n      --sandbox\n                 operate in sandbox mode (disable e/r/w commands).\n  -u, --unbuffered\n                 load minimal amounts of data from the input files and flush\n                 the output buffers more often\n  -z, --null-data\n                 separate lines by NUL characters\n      --help     display this help and exit\n      --version  output version information and exit\n\nIf no -e, --expression, -f, or --file option is given, then the first\nnon-option argument is taken as the sed script to interpret.  All\nremaining arguments are names of input files; if no input files are\nspecified, then the standard input is read.\n\nGNU sed home page: <https://www.gnu.org/software/sed/>.\nGeneral help using GNU software: <https://www.gnu.org/gethelp/>.\n", code: 1},
		{name: "in-place no files", files: nil, stdin: "", args: []string{"sed", "-i", "p"},
			out: "", errOut: "sed: no input files\n", code: 4},
		{name: "unknown long", files: nil, stdin: "", args: []string{"sed", "--frob", "p"},
			out: "", errOut: "sed: unrecognized option '--frob'\nUsage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n\n  -n, --quiet, --silent\n                 suppress automatic printing of pattern space\n      --debug\n                 annotate program execution\n  -e script, --expression=script\n                 add the script to the commands to be executed\n  -f script-file, --file=script-file\n                 add the contents of script-file to the commands to be executed\n  --follow-symlinks\n                 follow symlinks when processing in place\n  -i[SUFFIX], --in-place[=SUFFIX]\n                 edit files in place (makes backup if SUFFIX supplied)\n  -l N, --line-length=N\n                 specify the desired line-wrap length for the `l' command\n  --posix\n                 disable all GNU extensions.\n  -E, -r, --regexp-extended\n                 use extended regular expressions in the script\n                 (for portability use POSIX -E).\n  -s, --separate\n                 consider files as separate rather than as a single,\n                 continuous long stream.\n      --sandbox\n                 operate in sandbox mode (disable e/r/w commands).\n  -u, --unbuffered\n                 load minimal amounts of data from the input files and flush\n                 the output buffers more often\n  -z, --null-data\n                 separate lines by NUL characters\n      --help     display this help and exit\n      --version  output version information and exit\n\nIf no -e, --expression, -f, or --file option is given, then the first\nnon-option argument is taken as the sed script to interpret.  All\nremaining arguments are names of input files; if no input files are\nspecified, then the standard input is read.\n\nGNU sed home page: <https://www.gnu.org/software/sed/>.\nGeneral help using GNU software: <https://www.gnu.org/gethelp/>.\n", code: 1},
		{name: "n at end autoprint", files: nil, stdin: "1\n2\n3\n", args: []string{"sed", "-n", "n;p"},
			out: "2\n", errOut: "", code: 0},
		{name: "a then n", files: nil, stdin: "1\n2\n", args: []string{"sed", "1{a app\nn}"},
			out: "1\napp\n2\n", errOut: "", code: 0},
		{name: "i then q", files: nil, stdin: "1\n2\n", args: []string{"sed", "1i x\n1q"},
			out: "x\n1\n", errOut: "", code: 0},
		{name: "bracket newline", files: nil, stdin: "a\nb\n", args: []string{"sed", "N;s/[\\n]/+/"},
			out: "a+b\n", errOut: "", code: 0},
		{name: "dot matches newline", files: nil, stdin: "a\nb\n", args: []string{"sed", "N;s/a.b/X/"},
			out: "X\n", errOut: "", code: 0},
		{name: "ere alternation", files: nil, stdin: "cat dog bird\n", args: []string{"sed", "-E", "s/cat|dog/pet/g"},
			out: "pet pet bird\n", errOut: "", code: 0},
		{name: "bre alternation", files: nil, stdin: "cat dog bird\n", args: []string{"sed", "s/cat\\|dog/pet/g"},
			out: "pet pet bird\n", errOut: "", code: 0},
		{name: "ere optional", files: nil, stdin: "color colour\n", args: []string{"sed", "-E", "s/colou?r/C/g"},
			out: "C C\n", errOut: "", code: 0},
		{name: "G double space", files: map[string]string{"b": "x\ny\n"}, stdin: "", args: []string{"sed", "G", "b"},
			out: "x\n\ny\n\n", errOut: "", code: 0},
		{name: "x swap", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "x;$!d;x", "a"},
			out: "3\n", errOut: "", code: 0},
		{name: "help", files: nil, stdin: "", args: []string{"sed", "--help"},
			out: sedUsage + "E-mail bug reports to: <bug-sed@gnu.org>.\n", errOut: "", code: 0},
		{name: "regex range re end", files: nil, stdin: "a\nb\na\nb\n", args: []string{"sed", "/a/,/a/d"},
			out: "b\n", errOut: "", code: 0},
		{name: "s with w-less flags combo", files: nil, stdin: "aXa\n", args: []string{"sed", "-n", "s/a/b/gp"},
			out: "bXb\n", errOut: "", code: 0},
		{name: "last re reuse s", files: nil, stdin: "abcabc\n", args: []string{"sed", "s/b/B/;s//X/"},
			out: "aBcaXc\n", errOut: "", code: 0},
		{name: "dot escape", files: nil, stdin: "a.b.c\n", args: []string{"sed", "s/\\./,/g"},
			out: "a,b,c\n", errOut: "", code: 0},
		{name: "bracket close", files: nil, stdin: "a]b\n", args: []string{"sed", "s/[]]/x/"},
			out: "axb\n", errOut: "", code: 0},
		{name: "negated class", files: nil, stdin: "Ab1-c\n", args: []string{"sed", "s/[^a-z]//g"},
			out: "bc\n", errOut: "", code: 0},
		{name: "bre plus", files: nil, stdin: "caaat\n", args: []string{"sed", "s/a\\+/A/"},
			out: "cAt\n", errOut: "", code: 0},
		{name: "bre group star", files: nil, stdin: "ababc\n", args: []string{"sed", "s/\\(ab\\)*/X/"},
			out: "Xc\n", errOut: "", code: 0},
		{name: "ere interval group", files: nil, stdin: "abba\n", args: []string{"sed", "-E", "s/(a|b){2}/X/"},
			out: "Xba\n", errOut: "", code: 0},
		{name: "ere leading space", files: nil, stdin: "   x  \n", args: []string{"sed", "-E", "s/^\\s+//;s/\\s+$//"},
			out: "x\n", errOut: "", code: 0},
		{name: "trailing ws", files: nil, stdin: "x \t \n", args: []string{"sed", "s/[[:space:]]*$//"},
			out: "x\n", errOut: "", code: 0},
		{name: "utf8", files: nil, stdin: "café\n", args: []string{"sed", "s/é/e/"},
			out: "cafe\n", errOut: "", code: 0},
		{name: "utf8 y", files: nil, stdin: "äb\n", args: []string{"sed", "y/äb/ab/"},
			out: "ab\n", errOut: "", code: 0},
		{name: "step subst", files: nil, stdin: "1\n2\n3\n4\n5\n", args: []string{"sed", "1~3s/^/#/"},
			out: "#1\n2\n3\n#4\n5\n", errOut: "", code: 0},
		{name: "long expression", files: nil, stdin: "a\n", args: []string{"sed", "--expression=p", "--quiet"},
			out: "a\n", errOut: "", code: 0},
		{name: "long ere", files: nil, stdin: "aa\n", args: []string{"sed", "--regexp-extended", "s/a+/b/"},
			out: "b\n", errOut: "", code: 0},
		{name: "range to end", files: map[string]string{"t": "hello world\nfoo bar\nbaz\n"}, stdin: "", args: []string{"sed", "-n", "/foo/,$p", "t"},
			out: "foo bar\nbaz\n", errOut: "", code: 0},
		{name: "change negated", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "2!c X", "a"},
			out: "X\n2\nX\n", errOut: "", code: 0},
		{name: "y newline", files: nil, stdin: "a\nb\n", args: []string{"sed", "N;y/\\n/ /"},
			out: "a b\n", errOut: "", code: 0},
		{name: "print first match quit", files: map[string]string{"t": "hello world\nfoo bar\nbaz\n"}, stdin: "", args: []string{"sed", "-n", "/o/{p;q}", "t"},
			out: "hello world\n", errOut: "", code: 0},
		{name: "quote wrap", files: nil, stdin: "x y\n", args: []string{"sed", "s/.*/\"&\"/"},
			out: "\"x y\"\n", errOut: "", code: 0},
		{name: "a then i order", files: nil, stdin: "1\n", args: []string{"sed", "-e", "a A", "-e", "i I"},
			out: "I\n1\nA\n", errOut: "", code: 0},
		{name: "r missing file", files: nil, stdin: "1\n", args: []string{"sed", "r nothere"},
			out: "1\n", errOut: "", code: 0},
		{name: "r file", files: map[string]string{"a": "1\n2\n3\n", "ins": "INS\n"}, stdin: "1\n2\n", args: []string{"sed", "1r ins"},
			out: "1\nINS\n2\n", errOut: "", code: 0},
		{name: "w stdout", files: nil, stdin: "1\n2\n", args: []string{"sed", "-n", "1w /dev/stdout"},
			out: "1\n", errOut: "", code: 0},
		{name: "s w stdout", files: nil, stdin: "a\nb\n", args: []string{"sed", "s/b/B/w /dev/stdout"},
			out: "a\nB\nB\n", errOut: "", code: 0},
		{name: "w missing name", files: nil, stdin: "1\n", args: []string{"sed", "s/x/y/w"},
			out: "", errOut: "sed: -e expression #1, char 7: missing filename in r/R/w/W commands\n", code: 1},
		{name: "w bad dir", files: nil, stdin: "1\n", args: []string{"sed", "w nodir/x"},
			out: "", errOut: "sed: couldn't open file nodir/x: No such file or directory\n", code: 4},
		{name: "block with semicolon close", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "/2/{s/2/two/;p;}", "a"},
			out: "two\n", errOut: "", code: 0},
		{name: "empty pattern space lines", files: nil, stdin: "\n\na\n", args: []string{"sed", "/^$/d"},
			out: "a\n", errOut: "", code: 0},
		{name: "D loop uniq", files: nil, stdin: "a\na\nb\n", args: []string{"sed", "$!N;/^\\(.*\\)\\n\\1$/!P;D"},
			out: "", errOut: "sed: -e expression #1, char 18: back-references (\\1 ... \\9) in a regex are not supported by the shell backend's sed\n", code: 1,
			skip: "divergence: RE2 has no back-references in the pattern (GNU prints a\\nb\\n)"},
		{name: "s numbered ere", files: nil, stdin: "2024-01-15\n", args: []string{"sed", "-E", "s/([0-9]{4})-([0-9]{2})-([0-9]{2})/\\3.\\2.\\1/"},
			out: "15.01.2024\n", errOut: "", code: 0},
		{name: "s lower", files: nil, stdin: "HeLLo\n", args: []string{"sed", "s/\\(.\\)\\(.*\\)/\\1\\L\\2/"},
			out: "Hello\n", errOut: "", code: 0},
		{name: "s multiline flag", files: nil, stdin: "a\nb\n", args: []string{"sed", "N;s/^/>/Mg"},
			out: ">a\n>b\n", errOut: "", code: 0},
		{name: "z", files: nil, stdin: "a\n", args: []string{"sed", "z;s/^$/empty/"},
			out: "empty\n", errOut: "", code: 0},
		{name: "no trailing newline -n p", files: nil, stdin: "a\nb", args: []string{"sed", "-n", "p"},
			out: "a\nb", errOut: "", code: 0},
		{name: "a on missing newline", files: nil, stdin: "a", args: []string{"sed", "a x"},
			out: "a\nx\n", errOut: "", code: 0},
		{name: "i on missing newline", files: nil, stdin: "a", args: []string{"sed", "i x"},
			out: "x\na", errOut: "", code: 0},
		{name: "= last no newline", files: nil, stdin: "a", args: []string{"sed", "="},
			out: "1\na", errOut: "", code: 0},
		{name: "-s with $", files: map[string]string{"a": "1\n2\n3\n", "b": "x\ny\n"}, stdin: "", args: []string{"sed", "-s", "$d", "a", "b"},
			out: "1\n2\nx\n", errOut: "", code: 0},
		{name: "addr2 line less", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "/2/,1p", "a"},
			out: "2\n", errOut: "", code: 0},
		{name: "range plus restart", files: nil, stdin: "x\n1\nx\n2\n3\n", args: []string{"sed", "-n", "/x/,+1p"},
			out: "x\n1\nx\n2\n", errOut: "", code: 0},
		{name: "t reset per line", files: nil, stdin: "ab\nb\n", args: []string{"sed", "s/a/A/;s/zz//;t ok;s/$/-/;:ok"},
			out: "Ab\nb-\n", errOut: "", code: 0},
		{name: "H and x", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "H;${x;s/\n/,/g;p}"},
			out: "", errOut: "sed: -e expression #1, char 8: unterminated `s' command\n", code: 1},
		{name: "ere plus literal bre", files: nil, stdin: "a+\n", args: []string{"sed", "s/a+/X/"},
			out: "X\n", errOut: "", code: 0},
		{name: "ere paren literal bre", files: nil, stdin: "(a)\n", args: []string{"sed", "s/(a)/X/"},
			out: "X\n", errOut: "", code: 0},
		{name: "caret literal mid", files: nil, stdin: "a^b\n", args: []string{"sed", "s/a^b/X/"},
			out: "X\n", errOut: "", code: 0},
		{name: "l with newline", files: nil, stdin: "a\nb\n", args: []string{"sed", "-n", "N;l"},
			out: "a\\nb$\n", errOut: "", code: 0},
		{name: "l 5", files: nil, stdin: "abcdefghij\n", args: []string{"sed", "-n", "l 5"},
			out: "abcd\\\nefgh\\\nij$\n", errOut: "", code: 0},
		{name: "-l option", files: nil, stdin: "abcdefghij\n", args: []string{"sed", "-n", "-l", "6", "l"},
			out: "abcde\\\nfghij$\n", errOut: "", code: 0},
		{name: "q with append", files: nil, stdin: "1\n2\n", args: []string{"sed", "1{a A\nq}"},
			out: "1\nA\n", errOut: "", code: 0},
		{name: "script file error", files: map[string]string{"a": "1\n2\n3\n", "s.sed": "p\nk\n"}, stdin: "", args: []string{"sed", "-f", "s.sed", "a"},
			out: "", errOut: "sed: file s.sed line 2: unknown command: `k'\n", code: 1},
		{name: "missing -f file", files: nil, stdin: "", args: []string{"sed", "-f", "nope.sed"},
			out: "", errOut: "sed: couldn't open file nope.sed: No such file or directory\n", code: 4},
		{name: "-n -i absent no", files: nil, stdin: "a\n", args: []string{"sed", "-n", "$p"},
			out: "a\n", errOut: "", code: 0},
		{name: "-E backref repl only", files: nil, stdin: "abab\n", args: []string{"sed", "-E", "s/(ab)+/<\\1>/"},
			out: "<ab>\n", errOut: "", code: 0},
		{name: "unterminated y", files: nil, stdin: "a\n", args: []string{"sed", "y/abc/"},
			out: "", errOut: "sed: -e expression #1, char 6: unterminated `y' command\n", code: 1},
		{name: "unknown s option", files: nil, stdin: "a\n", args: []string{"sed", "s/a/b/x"},
			out: "", errOut: "sed: -e expression #1, char 7: unknown option to `s'\n", code: 1},
		{name: "s then space then }", files: map[string]string{"a": "1\n2\n3\n"}, stdin: "", args: []string{"sed", "-n", "2{s/2/X/ }; p"},
			out: "", errOut: "", code: 0},
		{name: "directory operand", files: map[string]string{"a": "1\n2\n3\n", "d/x": "1\n"}, stdin: "", args: []string{"sed", "p", "d"},
			out: "", errOut: "sed: read error on d: Is a directory\n", code: 4},
	}
	runTextRows(t, rows)
}

func TestSedInPlace(t *testing.T) {
	ctx := context.Background()
	f := newStore(t, map[string]string{"f.txt": "a\nb\na\n", "g.txt": "x\ny"})
	if err := f.Chmod(ctx, "/work/g.txt", 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runIn(t, f, "/work", "", "sed", "-i", "s/a/A/;2d", "f.txt", "g.txt")
	if out != "" || errOut != "" || code != 0 {
		t.Fatalf("got %q %q %d", out, errOut, code)
	}
	if got := readFile(t, f, "/work/f.txt"); got != "A\nA\n" {
		t.Errorf("f.txt = %q", got)
	}
	// -i implies -s: line 2 of g.txt is deleted too.
	if got := readFile(t, f, "/work/g.txt"); got != "x\n" {
		t.Errorf("g.txt = %q", got)
	}
	if fi, err := f.Stat(ctx, "/work/g.txt"); err != nil || fi.Mode().Perm() != fs.FileMode(0o600) {
		t.Errorf("g.txt mode: %v %v", fi, err)
	}

	// Backup suffix, and a missing file (exit 2, others still edited).
	f = newStore(t, map[string]string{"f.txt": "one\ntwo\n"})
	out, errOut, code = runIn(t, f, "/work", "", "sed", "-i.bak", "-e", "1i top", "-e", "$a end", "nofile", "f.txt")
	if out != "" || errOut != "sed: can't read nofile: No such file or directory\n" || code != 2 {
		t.Fatalf("got %q %q %d", out, errOut, code)
	}
	if got := readFile(t, f, "/work/f.txt"); got != "top\none\ntwo\nend\n" {
		t.Errorf("f.txt = %q", got)
	}
	if got := readFile(t, f, "/work/f.txt.bak"); got != "one\ntwo\n" {
		t.Errorf("f.txt.bak = %q", got)
	}

	// --in-place=SUFFIX with *, q stops the edit (the rest is dropped, as GNU).
	f = newStore(t, map[string]string{"d/f.txt": "1\n2\n3\n"})
	_, errOut, code = runIn(t, f, "/work", "", "sed", "--in-place=old_*", "2q", "d/f.txt")
	if errOut != "" || code != 0 {
		t.Fatalf("got %q %d", errOut, code)
	}
	if got := readFile(t, f, "/work/d/f.txt"); got != "1\n2\n" {
		t.Errorf("f.txt = %q", got)
	}
	if got := readFile(t, f, "/work/d/old_f.txt"); got != "1\n2\n3\n" {
		t.Errorf("backup = %q", got)
	}

	// The memory bound applies to the whole file.
	f = newStore(t, map[string]string{"big": "0123456789\n"})
	var ob, eb bytesBuffer
	env := &Env{Ctx: ctx, FS: f, Dir: "/work", Stdin: stringsReader(""), Stdout: &ob, Stderr: &eb,
		Limits: Limits{MaxReadBytes: 5}}
	if code := Sed(env, []string{"sed", "-i", "p", "big"}); code == 0 {
		t.Errorf("limit: code 0, stderr %q", eb.String())
	}
	if got := readFile(t, f, "/work/big"); got != "0123456789\n" {
		t.Errorf("big changed: %q", got)
	}
}

// TestSedWrite checks the files of w, W and s///w.
func TestSedWrite(t *testing.T) {
	f := newStore(t, map[string]string{"l": "one\ntwo\nthree\n", "old": "stale\n"})
	out, errOut, code := runIn(t, f, "/work", "", "sed", "-e", "s/t/T/w o", "-e", "/x/w old", "l")
	if out != "one\nTwo\nThree\n" || errOut != "" || code != 0 {
		t.Fatalf("got %q %q %d", out, errOut, code)
	}
	if got := readFile(t, f, "/work/o"); got != "Two\nThree\n" {
		t.Errorf("o = %q", got)
	}
	if got := readFile(t, f, "/work/old"); got != "" { // created empty at the start
		t.Errorf("old = %q", got)
	}
	out, errOut, code = runIn(t, f, "/work", "a\nb", "sed", "-n", "$!N;W w1\nw w2")
	if out != "" || errOut != "" || code != 0 {
		t.Fatalf("got %q %q %d", out, errOut, code)
	}
	if got := readFile(t, f, "/work/w1"); got != "a\n" {
		t.Errorf("w1 = %q", got)
	}
	if got := readFile(t, f, "/work/w2"); got != "a\nb" {
		t.Errorf("w2 = %q", got)
	}
}

func TestSedBackrefInRegex(t *testing.T) {
	_, errOut, code := run(t, nil, "aa\n", "sed", `s/\(a\)\1/x/`)
	if code != 1 || errOut != "sed: -e expression #1, char 12: back-references (\\1 ... \\9) in a regex are not supported by the shell backend's sed\n" {
		t.Errorf("got %q %d", errOut, code)
	}
}

func TestSedCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ob, eb bytesBuffer
	env := &Env{Ctx: ctx, FS: newStore(t, nil), Dir: "/work", Stdin: stringsReader("a\nb\n"), Stdout: &ob, Stderr: &eb}
	if code := Sed(env, []string{"sed", "p"}); code == 0 || ob.Len() != 0 {
		t.Errorf("cancelled: code %d out %q", code, ob.String())
	}
}
