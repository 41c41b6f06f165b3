package cmds

import "testing"

func TestTac(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"tac"}, stdin: "a\nb\nc\n", out: "c\nb\na\n"},
		{args: []string{"tac"}, stdin: "a\nb\nc", out: "cb\na\n"},
		{args: []string{"tac"}, stdin: "", out: ""},
		{args: []string{"tac", "f", "g"}, files: map[string]string{"f": "1\n2\n", "g": "3\n4\n"}, out: "2\n1\n4\n3\n"},
		{args: []string{"tac", "-b"}, stdin: "a\nb\nc\n", out: "\n\nc\nba"},
		{args: []string{"tac", "-s,"}, stdin: "a,b,c,", out: "c,b,a,"},
		{args: []string{"tac", "-s", "--"}, stdin: "x--y--z", out: "zy--x--"},
		{args: []string{"tac", "-b", "-s", ","}, stdin: ",a,b", out: ",b,a"},
		{args: []string{"tac", "-r", "-s", "[0-9]"}, stdin: "a1b2c", out: "cb2a1"},
		{args: []string{"tac", "-r", "-s", "[0-9]+"}, stdin: "a1b22c", out: "c2b2a1"},
		{args: []string{"tac", "-b", "-r", "-s", "[0-9]+"}, stdin: "a1b22c", out: "2c21ba"},
		{args: []string{"tac", "-r", "-s", "x[0-9]*y"}, stdin: "ax12ybx3yc", out: "cbx3yax12y"},
		{args: []string{"tac", "nosuch"}, code: 1, errOut: "tac: failed to open 'nosuch' for reading: No such file or directory\n"},
		{args: []string{"tac", "-s", ""}, stdin: "a\nbc", out: "a\nbc"},
	})
}
