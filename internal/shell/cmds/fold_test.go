package cmds

import "testing"

func TestFold(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"fold", "-w", "8"}, stdin: "hello world foo bar\n", out: "hello wo\nrld foo \nbar\n"},
		{args: []string{"fold", "-sw", "8"}, stdin: "hello world foo bar\n", out: "hello \nworld \nfoo bar\n"},
		{args: []string{"fold", "-w3"}, stdin: "héllo\n", out: "hé\nllo\n"},
		{args: []string{"fold", "-b", "-w", "3"}, stdin: "héllo\n", out: "hé\nllo\n"},
		{args: []string{"fold", "-w", "10"}, stdin: "a\tb\tc\n", out: "a\tb\n\tc\n"},
		{args: []string{"fold", "-b", "-w", "3"}, stdin: "a\tb\tc\n", out: "a\tb\n\tc\n"},
		{args: []string{"fold", "-w2"}, stdin: "a\bb\rcd\n", out: "a\bb\rcd\n"},
		{args: []string{"fold", "-3"}, stdin: "abcdefg", out: "abc\ndef\ng"},
		{args: []string{"fold"}, stdin: string(make([]byte, 0)) + "x\n", out: "x\n"},
		{args: []string{"fold", "--width=5", "--spaces", "f"}, files: map[string]string{"f": "aa bb cc dd\n"}, out: "aa \nbb \ncc dd\n"},
		{args: []string{"fold", "-w", "0"}, code: 1, errOut: "fold: invalid number of columns: ‘0’: Numerical result out of range\n"},
		{args: []string{"fold", "-w", "x"}, code: 1, errOut: "fold: invalid number of columns: ‘x’\n"},
		{args: []string{"fold", "nosuch"}, code: 1, errOut: "fold: nosuch: No such file or directory\n"},
	})
}
