package cmds

import "testing"

func TestTr(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"tr", "a-z", "A-Z"}, stdin: "hello, World\n", out: "HELLO, WORLD\n"},
		{args: []string{"tr", "[:lower:]", "[:upper:]"}, stdin: "hi\n", out: "HI\n"},
		{args: []string{"tr", "[:upper:]", "[:lower:]"}, stdin: "HeLLo\n", out: "hello\n"},
		{args: []string{"tr", "-d", "[:digit:]"}, stdin: "a1b22c\n", out: "abc\n"},
		{args: []string{"tr", "-d", "[:punct:]"}, stdin: "a.b,c!\n", out: "abc\n"},
		{args: []string{"tr", "-d", "[:space:]"}, stdin: "a b\tc\n", out: "abc"},
		{args: []string{"tr", "-d", "\\n"}, stdin: "a\nb\n", out: "ab"},
		{args: []string{"tr", "\\n", " "}, stdin: "a\nb\n", out: "a b "},
		{args: []string{"tr", "\\t", ","}, stdin: "a\tb\n", out: "a,b\n"},
		{args: []string{"tr", "-s", "l"}, stdin: "hello\n", out: "helo\n"},
		{args: []string{"tr", "-s", " "}, stdin: "a   b  c\n", out: "a b c\n"},
		{args: []string{"tr", "-s", "a-z", "A-Z"}, stdin: "aa bb\n", out: "A B\n"},
		{args: []string{"tr", "-c", "a", "x"}, stdin: "abc\n", out: "axxx"},
		{args: []string{"tr", "-dc", "a\\n"}, stdin: "abc\n", out: "a\n"},
		{args: []string{"tr", "-cd", "[:alnum:]"}, stdin: "a-b_c 1\n", out: "abc1"},
		{args: []string{"tr", "-ds", "a", "b"}, stdin: "abbbac\n", out: "bc\n"},
		{args: []string{"tr", "abcd", "xy"}, stdin: "abcd\n", out: "xyyy\n"},
		{args: []string{"tr", "-t", "abc", "x"}, stdin: "abc\n", out: "xbc\n"},
		{args: []string{"tr", "ab", "[x*]"}, stdin: "abc\n", out: "xxc\n"},
		{args: []string{"tr", "a-c", "[x*2]y"}, stdin: "abc\n", out: "xxy\n"},
		{args: []string{"tr", "\\101", "b"}, stdin: "A\n", out: "b\n"},
		{args: []string{"tr"}, code: 1, errOut: "tr: missing operand\nTry 'tr --help' for more information.\n"},
		{args: []string{"tr", "a"}, code: 1, errOut: "tr: missing operand after ‘a’\nTwo strings must be given when translating.\nTry 'tr --help' for more information.\n"},
		{args: []string{"tr", "-d", "a", "b"}, code: 1, errOut: "tr: extra operand ‘b’\nOnly one string may be given when deleting without squeezing repeats.\nTry 'tr --help' for more information.\n"},
		{args: []string{"tr", "c-a", "x"}, code: 1, errOut: "tr: range-endpoints of 'c-a' are in reverse collating sequence order\n"},
		{args: []string{"tr", "[:foo:]", "x"}, code: 1, errOut: "tr: invalid character class ‘foo’\n"},
		{args: []string{"tr", "[a*]", "x"}, code: 1, errOut: "tr: the [c*] repeat construct may not appear in string1\n"},
	})
}
