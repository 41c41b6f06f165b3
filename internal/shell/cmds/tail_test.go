package cmds

import "testing"

func TestTail(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"tail", "n"}, files: headFiles, out: "3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"},
		{args: []string{"tail", "-n", "2", "f"}, files: headFiles, out: "b\nc\n"},
		{args: []string{"tail", "-n2", "g"}, files: headFiles, out: "x\ny"},
		{args: []string{"tail", "-3", "n"}, files: headFiles, out: "10\n11\n12\n"},
		{args: []string{"tail", "+11", "n"}, files: headFiles, out: "11\n12\n"},
		{args: []string{"tail", "-n", "+11", "n"}, files: headFiles, out: "11\n12\n"},
		{args: []string{"tail", "-n", "+0", "f"}, files: headFiles, out: "a\nb\nc\n"},
		{args: []string{"tail", "-n", "0", "f"}, files: headFiles, out: ""},
		{args: []string{"tail", "-c", "3", "n"}, files: headFiles, out: "12\n"},
		{args: []string{"tail", "-c", "+20", "n"}, files: headFiles, out: "0\n11\n12\n"},
		{args: []string{"tail", "-n", "1"}, stdin: "s1\ns2\n", out: "s2\n"},
		{args: []string{"tail", "-n1", "f", "g"}, files: headFiles, out: "==> f <==\nc\n\n==> g <==\ny"},
		{args: []string{"tail", "-q", "-n1", "f", "g"}, files: headFiles, out: "c\ny"},
		{args: []string{"tail", "-n1", "x", "f"}, files: headFiles, code: 1, out: "==> f <==\nc\n",
			errOut: "tail: cannot open 'x' for reading: No such file or directory\n"},
		{args: []string{"tail", "-n1", "d"}, files: headFiles, code: 1, errOut: "tail: error reading 'd': Is a directory\n"},
		{args: []string{"tail", "-n", "x", "f"}, files: headFiles, code: 1, errOut: "tail: invalid number of lines: ‘x’\n"},
		{args: []string{"tail", "-f", "f"}, files: headFiles, code: 1, skip: "tail -f is not supported",
			errOut: "tail: following files (-f) is not supported in the shell backend: files do not grow while a command runs\n"},
	})
}
