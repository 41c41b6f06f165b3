package cmds

import "testing"

func TestUniq(t *testing.T) {
	fx := map[string]string{"u": "a\na\nb\nA\nc\nc\nc\n", "d/": ""}
	runTextRows(t, []textRow{
		{args: []string{"uniq", "u"}, files: fx, out: "a\nb\nA\nc\n"},
		{args: []string{"uniq"}, stdin: "x\nx\ny", out: "x\ny\n"},
		{args: []string{"uniq", "-c", "u"}, files: fx, out: "      2 a\n      1 b\n      1 A\n      3 c\n"},
		{args: []string{"uniq", "-d", "u"}, files: fx, out: "a\nc\n"},
		{args: []string{"uniq", "-u", "u"}, files: fx, out: "b\nA\n"},
		{args: []string{"uniq", "-D", "u"}, files: fx, out: "a\na\nc\nc\nc\n"},
		{args: []string{"uniq", "-i", "-c"}, stdin: "a\nA\nb\n", out: "      2 a\n      1 b\n"},
		{args: []string{"uniq", "-f1", "-c"}, stdin: "x a\ny a\nz b\n", out: "      2 x a\n      1 z b\n"},
		{args: []string{"uniq", "-s1"}, stdin: "xa\nya\n", out: "xa\n"},
		{args: []string{"uniq", "-w1"}, stdin: "ab\nac\nb\n", out: "ab\nb\n"},
		{args: []string{"uniq", "-z"}, stdin: "a\x00a\x00b\x00", out: "a\x00b\x00"},
		{args: []string{"uniq", "x"}, code: 1, errOut: "uniq: x: No such file or directory\n"},
		{args: []string{"uniq", "d"}, files: fx, code: 1, errOut: "uniq: error reading 'd'\n"},
		{args: []string{"uniq", "a", "b", "c"}, code: 1, errOut: "uniq: extra operand ‘c’\nTry 'uniq --help' for more information.\n"},
		{args: []string{"uniq", "-f", "x"}, code: 1, errOut: "uniq: x: invalid number of fields to skip\n"},
		{args: []string{"uniq", "-Dc"}, code: 1, errOut: "uniq: printing all duplicated lines and repeat counts is meaningless\nTry 'uniq --help' for more information.\n"},
	})
	f := newStore(t, map[string]string{"u": "a\na\n"})
	if _, _, c := runIn(t, f, "/work", "", "uniq", "u", "out"); c != 0 || readFile(t, f, "/work/out") != "a\n" {
		t.Fatalf("uniq u out: %d", c)
	}
}
