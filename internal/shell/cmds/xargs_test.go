package cmds

import "testing"

func TestXargs(t *testing.T) {
	e := map[string]string{} // run with echo available
	runTextRows(t, []textRow{
		{args: []string{"xargs", "echo"}, env: e, stdin: "a b\nc\n", out: "a b c\n"},
		{args: []string{"xargs"}, env: e, stdin: "a b\nc\n", out: "a b c\n"},
		{args: []string{"xargs", "-n", "2", "echo"}, env: e, stdin: "a b c\n", out: "a b\nc\n"},
		{args: []string{"xargs", "-n1", "echo", "x"}, env: e, stdin: "a b\n", out: "x a\nx b\n"},
		{args: []string{"xargs", "-I", "{}", "echo", "x{}y"}, env: e, stdin: "a\nb\n", out: "xay\nxby\n"},
		{args: []string{"xargs", "-I{}", "echo", "[{}]"}, env: e, stdin: "a\n  b c\n", out: "[a]\n[b c]\n"},
		{args: []string{"xargs", "-0", "echo"}, env: e, stdin: "a\x00b c\x00", out: "a b c\n"},
		{args: []string{"xargs", "-0", "-n1", "echo"}, env: e, stdin: "a\x00b c\x00", out: "a\nb c\n"},
		{args: []string{"xargs", "-d", ",", "echo"}, env: e, stdin: "a,b", out: "a b\n"},
		{args: []string{"xargs", "-d", "\\n", "echo", "x"}, env: e, stdin: "a b\nc\n", out: "x a b c\n"},
		{args: []string{"xargs", "-L", "2", "echo"}, env: e, stdin: "a\nb\nc\n", out: "a b\nc\n"},
		{args: []string{"xargs", "echo"}, env: e, stdin: "", out: "\n"},
		{args: []string{"xargs", "-r", "echo", "hi"}, env: e, stdin: "\n"},
		{args: []string{"xargs", "-t", "echo"}, env: e, stdin: "a\n", out: "a\n", errOut: "echo a\n"},
		{args: []string{"xargs", "-n1", "echo"}, env: e, stdin: "a 'b c' \"d e\" f\\ g\n", out: "a\nb c\nd e\nf g\n"},
		{args: []string{"xargs", "-E", "x", "echo", "y"}, env: e, stdin: "a x b\n", out: "y a\n"},
		{args: []string{"xargs", "-P", "1", "echo"}, env: e, stdin: "a\n", out: "a\n"},
		{args: []string{"xargs", "false"}, env: e, stdin: "a\n", code: 123},
		{args: []string{"xargs", "true"}, env: e, stdin: "a\n"},
		{args: []string{"xargs", "-n", "0"}, code: 1, errOut: "xargs: value 0 for -n option should be >= 1\nTry 'xargs --help' for more information.\n"},
		{args: []string{"xargs", "echo"}, env: e, stdin: "a 'b\n", code: 1, out: "a\n",
			errOut: "xargs: unmatched single quote; by default quotes are special to xargs unless you use the -0 option\n"},
		{args: []string{"xargs", "nosuch"}, env: e, stdin: "a\n", code: 127,
			errOut: "xargs: nosuch: No such file or directory\n"},
	})
}
