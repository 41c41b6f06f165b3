package cmds

import "testing"

func TestCmp(t *testing.T) {
	fx := map[string]string{
		"x": "a\nb\nc\n", "y": "a\nB\nc\nd", "z": "a\nb\nc\n", "w": "a\nb\n", "e": "",
		"c1": "abc\x01\nxyz\x80", "c2": "abd\x02\nxyq\xff", "p1": "ab", "p2": "abc",
	}
	rows := []textRow{
		{args: []string{"cmp", "x", "z"}, files: fx},
		{args: []string{"cmp", "x", "y"}, files: fx, code: 1, out: "x y differ: byte 3, line 2\n"},
		{args: []string{"cmp", "-b", "x", "y"}, files: fx, code: 1, out: "x y differ: byte 3, line 2 is 142 b 102 B\n"},
		{args: []string{"cmp", "-l", "x", "y"}, files: fx, code: 1, out: "3 142 102\n", errOut: "cmp: EOF on x after byte 6\n"},
		{args: []string{"cmp", "-lb", "c1", "c2"}, files: fx, code: 1,
			out: "3 143 c    144 d\n4   1 ^A     2 ^B\n8 172 z    161 q\n9 200 M-^@ 377 M-^?\n"},
		{args: []string{"cmp", "-s", "x", "y"}, files: fx, code: 1},
		{args: []string{"cmp", "-s", "x", "w"}, files: fx, code: 1},
		{args: []string{"cmp", "-s", "x", "nofile"}, files: fx, code: 2},
		{args: []string{"cmp", "x", "nofile"}, files: fx, code: 2, errOut: "cmp: nofile: No such file or directory\n"},
		{args: []string{"cmp", "x", "w"}, files: fx, code: 1, errOut: "cmp: EOF on w after byte 4, line 2\n"},
		{args: []string{"cmp", "w", "x"}, files: fx, code: 1, errOut: "cmp: EOF on w after byte 4, line 2\n"},
		{args: []string{"cmp", "p1", "p2"}, files: fx, code: 1, errOut: "cmp: EOF on p1 after byte 2, in line 1\n"},
		{args: []string{"cmp", "e", "x"}, files: fx, code: 1, errOut: "cmp: EOF on e which is empty\n"},
		{args: []string{"cmp", "x"}, files: fx, code: 1, errOut: "cmp: EOF on - which is empty\n"},
		{args: []string{"cmp", "-", "x"}, files: fx, stdin: "a\nb\n", code: 1, errOut: "cmp: EOF on - after byte 4, line 2\n"},
		{args: []string{"cmp", "-n", "2", "c1", "c2"}, files: fx},
		{args: []string{"cmp", "-i", "1", "c1", "c2"}, files: fx, code: 1, out: "c1 c2 differ: byte 2, line 1\n"},
		{args: []string{"cmp", "-i", "1:2", "c1", "c2"}, files: fx, code: 1, out: "c1 c2 differ: byte 1, line 1\n"},
		{args: []string{"cmp", "c1", "c2", "1", "1"}, files: fx, code: 1, out: "c1 c2 differ: byte 2, line 1\n"},
		{args: []string{"cmp", "-i", "2", "w", "x"}, files: fx, code: 1, errOut: "cmp: EOF on w after byte 2, line 1\n"},
		{args: []string{"cmp", "-n", "abc", "x", "w"}, files: fx, code: 2,
			errOut: "cmp: invalid --bytes value 'abc'\ncmp: Try 'cmp --help' for more information.\n"},
		{args: []string{"cmp"}, files: fx, code: 2,
			errOut: "cmp: missing operand after 'cmp'\ncmp: Try 'cmp --help' for more information.\n"},
		{args: []string{"cmp", "-z", "x", "y"}, files: fx, code: 2,
			errOut: "cmp: invalid option -- 'z'\ncmp: Try 'cmp --help' for more information.\n"},
	}
	runTextRows(t, rows)
}
