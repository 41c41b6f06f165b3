package cmds

import "testing"

func TestNl(t *testing.T) {
	th := "Try 'nl --help' for more information.\n"
	runTextRows(t, []textRow{
		{args: []string{"nl"}, stdin: "1\n\n2\n", out: "     1\t1\n       \n     2\t2\n"},
		{args: []string{"nl", "-ba", "-nln", "-w3", "-s:"}, stdin: "1\n\n2\n", out: "1  :1\n2  :\n3  :2\n"},
		{args: []string{"nl", "-bn"}, stdin: "1\n\n2\n", out: "       1\n       \n       2\n"},
		{args: []string{"nl", "-nrz", "-v5", "-i2"}, stdin: "1\n\n2\n", out: "000005\t1\n       \n000007\t2\n"},
		{args: []string{"nl", "-ba", "-l2"}, stdin: "a\n\n\n\nb\n", out: "     1\ta\n       \n     2\t\n       \n     3\tb\n"},
		{args: []string{"nl", "-bp^b"}, stdin: "foo\nbar\n", out: "       foo\n     1\tbar\n"},
		{args: []string{"nl", "-w2", "-s", " ", "f", "-"}, files: map[string]string{"f": "x\n"}, stdin: "y", out: " 1 x\n 2 y\n"},
		{args: []string{"nl", "-v", "-3", "-nrz", "-w4"}, stdin: "a\n", out: "-003\ta\n"},
		{args: []string{"nl"}, stdin: "\\:\\:\\:\na\n\\:\\:\nb\n\\:\nc\n", out: "\n       a\n\n     1\tb\n\n       c\n"},
		{args: []string{"nl", "-ha", "-p"}, stdin: "\\:\\:\\:\na\n\\:\\:\nb\n", out: "\n     1\ta\n\n     2\tb\n"},
		{args: []string{"nl", "-d", "@"}, stdin: "a\n@:\nb\n", out: "     1\ta\n\n       b\n"},
		{args: []string{"nl", "-bx"}, code: 1, errOut: "nl: invalid body numbering style: ‘x’\n" + th},
		{args: []string{"nl", "-h", "x"}, code: 1, errOut: "nl: invalid header numbering style: ‘x’\n" + th},
		{args: []string{"nl", "-nx"}, code: 1, errOut: "nl: invalid line numbering format: ‘x’\n" + th},
		{args: []string{"nl", "-w0"}, code: 1, errOut: "nl: invalid line number field width: ‘0’: Numerical result out of range\n"},
		{args: []string{"nl", "-v", "x"}, code: 1, errOut: "nl: invalid starting line number: ‘x’\n"},
		{args: []string{"nl", "-i", "x"}, code: 1, errOut: "nl: invalid line number increment: ‘x’\n"},
		{args: []string{"nl", "-l", "0"}, code: 1, errOut: "nl: invalid line number of blank lines: ‘0’: Numerical result out of range\n"},
		{args: []string{"nl", "nosuch"}, code: 1, errOut: "nl: nosuch: No such file or directory\n"},
	})
}
