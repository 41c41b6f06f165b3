package cmds

import "testing"

var commFiles = map[string]string{"s1": "a\nb\nd\n", "s2": "b\nc\nd\n", "u": "b\na\n", "u2": "c\na\n"}

func TestComm(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"comm", "s1", "s2"}, files: commFiles, out: "a\n\t\tb\n\tc\n\t\td\n"},
		{args: []string{"comm", "-12", "s1", "s2"}, files: commFiles, out: "b\nd\n"},
		{args: []string{"comm", "-3", "s1", "s2"}, files: commFiles, out: "a\n\tc\n"},
		{args: []string{"comm", "-1", "s1", "s2"}, files: commFiles, out: "\tb\nc\n\td\n"},
		{args: []string{"comm", "-23", "s1", "s2"}, files: commFiles, out: "a\n"},
		{args: []string{"comm", "-13", "s1", "-"}, files: commFiles, stdin: "a\nz\n", out: "z\n"},
		{args: []string{"comm", "--output-delimiter=::", "s1", "s2"}, files: commFiles, out: "a\n::::b\n::c\n::::d\n"},
		{args: []string{"comm", "--output-delimiter=", "s1", "s2"}, files: commFiles, out: "a\n\x00\x00b\n\x00c\n\x00\x00d\n"},
		{args: []string{"comm", "--total", "s1", "s2"}, files: commFiles, out: "a\n\t\tb\n\tc\n\t\td\n1\t1\t2\ttotal\n"},
		{args: []string{"comm", "-z", "-3", "-", "s2"}, files: commFiles, stdin: "b\x00", out: "b\x00\tb\nc\nd\n\x00"},
		{args: []string{"comm", "u", "s2"}, files: commFiles, code: 1, out: "\t\tb\na\n\tc\n\td\n",
			errOut: "comm: file 1 is not in sorted order\ncomm: input is not in sorted order\n"},
		{args: []string{"comm", "--check-order", "u", "s2"}, files: commFiles, code: 1, out: "\t\tb\n",
			errOut: "comm: file 1 is not in sorted order\n"},
		{args: []string{"comm", "--nocheck-order", "u", "s2"}, files: commFiles, out: "\t\tb\na\n\tc\n\td\n"},
		{args: []string{"comm", "u2", "u2"}, files: commFiles, out: "\t\tc\n\t\ta\n"},
		{args: []string{"comm", "s1"}, files: commFiles, code: 1, errOut: "comm: missing operand after ‘s1’\nTry 'comm --help' for more information.\n"},
		{args: []string{"comm"}, code: 1, errOut: "comm: missing operand\nTry 'comm --help' for more information.\n"},
		{args: []string{"comm", "a", "b", "c"}, code: 1, errOut: "comm: extra operand ‘c’\nTry 'comm --help' for more information.\n"},
		{args: []string{"comm", "nosuch", "s1"}, files: commFiles, code: 1, errOut: "comm: nosuch: No such file or directory\n"},
		{args: []string{"comm", "--output-delimiter=a", "--output-delimiter=b", "s1", "s2"}, files: commFiles, code: 1,
			errOut: "comm: multiple output delimiters specified\n"},
	})
}
