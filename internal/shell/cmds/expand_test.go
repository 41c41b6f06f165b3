package cmds

import "testing"

func TestExpand(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"expand"}, stdin: "a\tb\n\tc\n", out: "a       b\n        c\n"},
		{args: []string{"expand", "-t", "4"}, stdin: "a\tb\tc\n", out: "a   b   c\n"},
		{args: []string{"expand", "-t4"}, stdin: "ab\tc\n", out: "ab  c\n"},
		{args: []string{"expand", "-4"}, stdin: "ab\tc\n", out: "ab  c\n"},
		{args: []string{"expand", "-t", "2,5"}, stdin: "a\tb\tc\td\n", out: "a b  c d\n"},
		{args: []string{"expand", "-t", "2 5"}, stdin: "a\tb\tc\td\n", out: "a b  c d\n"},
		{args: []string{"expand", "-t", "2,/4"}, stdin: "a\tb\tc\td\n", out: "a b c   d\n"},
		{args: []string{"expand", "-t", "2 +4"}, stdin: "a\tb\tc\td\n", out: "a b   c   d\n"},
		{args: []string{"expand", "-i", "-t4"}, stdin: "\ta\tb\n  \tc\n", out: "    a\tb\n    c\n"},
		{args: []string{"expand"}, stdin: "a\bb\tc\n", out: "a\bb       c\n"},
		{args: []string{"expand", "--tabs=3", "f", "-"}, files: map[string]string{"f": "\tx\n"}, stdin: "y\tz", out: "   x\ny  z"},
		{args: []string{"expand", "-t", "0"}, code: 1, errOut: "expand: tab size cannot be 0\n"},
		{args: []string{"expand", "-t", "3,2"}, code: 1, errOut: "expand: tab sizes must be ascending\n"},
		{args: []string{"expand", "-t", "x"}, code: 1, errOut: "expand: tab size contains invalid character(s): ‘x’\n"},
		{args: []string{"expand", "-t", "/2,4"}, code: 1, errOut: "expand: '/' specifier only allowed with the last value\n"},
		{args: []string{"expand", "nosuch"}, code: 1, errOut: "expand: nosuch: No such file or directory\n"},
	})
}
