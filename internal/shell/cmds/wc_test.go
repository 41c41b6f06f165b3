package cmds

import "testing"

func TestWc(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"wc", "f"}, files: headFiles, out: "3 3 6 f\n"},
		{args: []string{"wc", "-l", "f"}, files: headFiles, out: "3 f\n"},
		{args: []string{"wc", "f", "g"}, files: headFiles, out: "3 3 6 f\n1 2 3 g\n4 5 9 total\n"},
		{args: []string{"wc", "-l", "f", "g", "n"}, files: headFiles, out: " 3 f\n 1 g\n12 n\n16 total\n"},
		{args: []string{"wc"}, stdin: "hi\n", out: "      1       1       3\n"},
		{args: []string{"wc", "-l"}, stdin: "hi\n", out: "1\n"},
		{args: []string{"wc", "-lw"}, stdin: "hi\n", out: "      1       1\n"},
		{args: []string{"wc", "-c", "f", "-"}, stdin: "hi\n", files: headFiles, out: "      6 f\n      3 -\n      9 total\n"},
		{args: []string{"wc", "-mcL"}, stdin: "héllo\tx\n", out: "      8       9       9\n"},
		{args: []string{"wc", "-L", "f", "n"}, files: headFiles, out: " 1 f\n 2 n\n 2 total\n"},
		{args: []string{"wc", "-w"}, stdin: "  one two\tthree\nfour  ", out: "4\n"},
		{args: []string{"wc", "--lines", "--words"}, stdin: "a b\n", out: "      1       2\n"},
		{args: []string{"wc", "f", "x", "d", "g"}, files: headFiles, code: 1,
			out:    "      3       3       6 f\n      0       0       0 d\n      1       2       3 g\n      4       5       9 total\n",
			errOut: "wc: x: No such file or directory\nwc: d: Is a directory\n"},
		{args: []string{"wc", "x"}, code: 1, errOut: "wc: x: No such file or directory\n"},
		{args: []string{"wc", "--bar"}, code: 1, errOut: "wc: unrecognized option '--bar'\nTry 'wc --help' for more information.\n"},
	})
}
