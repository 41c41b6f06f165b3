package cmds

import "testing"

func TestUnexpand(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"unexpand"}, stdin: "        a       b\n", out: "\ta       b\n"},
		{args: []string{"unexpand", "-a"}, stdin: "        a       b\n", out: "\ta\tb\n"},
		{args: []string{"unexpand", "-a"}, stdin: "a        b\n", out: "a\t b\n"},
		{args: []string{"unexpand", "-a"}, stdin: "abcdefg h\n", out: "abcdefg h\n"},
		{args: []string{"unexpand", "-t", "4"}, stdin: "    a   b  c\n", out: "\ta\tb  c\n"},
		{args: []string{"unexpand", "-t4", "--first-only"}, stdin: "    a   b\n", out: "\ta   b\n"},
		{args: []string{"unexpand", "-t", "2,6"}, stdin: "  a   b       c\n", out: "\ta\tb       c\n"},
		{args: []string{"unexpand", "-t", "2,/4"}, stdin: "  a     b\n", out: "\ta\t\tb\n"},
		{args: []string{"unexpand"}, stdin: "          x\n\t  y\n", out: "\t  x\n\t  y\n"},
		{args: []string{"unexpand", "-3"}, stdin: "      x\n", out: "\t\tx\n"},
		{args: []string{"unexpand", "f", "-"}, files: map[string]string{"f": "        a"}, stdin: "        b\n", out: "\ta        b\n"},
		{args: []string{"unexpand", "nosuch", "-"}, stdin: "        b\n", out: "\tb\n", code: 1,
			errOut: "unexpand: nosuch: No such file or directory\n"},
		{args: []string{"unexpand", "-t", "0"}, code: 1, errOut: "unexpand: tab size cannot be 0\n"},
	})
}
