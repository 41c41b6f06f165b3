package cmds

import "testing"

var headFiles = map[string]string{
	"f":  "a\nb\nc\n",
	"g":  "x\ny",
	"n":  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
	"d/": "",
}

func TestHead(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"head", "n"}, files: headFiles, out: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"},
		{args: []string{"head", "-n", "2", "f"}, files: headFiles, out: "a\nb\n"},
		{args: []string{"head", "-n2", "f"}, files: headFiles, out: "a\nb\n"},
		{args: []string{"head", "--lines=1", "f"}, files: headFiles, out: "a\n"},
		{args: []string{"head", "-3", "n"}, files: headFiles, out: "1\n2\n3\n"},
		{args: []string{"head", "-n", "-10", "n"}, files: headFiles, out: "1\n2\n"},
		{args: []string{"head", "-n", "-1", "g"}, files: headFiles, out: "x\n"},
		{args: []string{"head", "-c", "3", "f"}, files: headFiles, out: "a\nb"},
		{args: []string{"head", "-c", "-2", "f"}, files: headFiles, out: "a\nb\n"},
		{args: []string{"head", "-c", "1k", "f"}, files: headFiles, out: "a\nb\nc\n"},
		{args: []string{"head", "-n", "1"}, stdin: "s1\ns2\n", out: "s1\n"},
		{args: []string{"head", "-n", "1", "-"}, stdin: "s1\ns2\n", out: "s1\n"},
		{args: []string{"head", "-v", "-n1", "-"}, stdin: "s1\n", out: "==> standard input <==\ns1\n"},
		{args: []string{"head", "-n1", "f", "g"}, files: headFiles, out: "==> f <==\na\n\n==> g <==\nx\n"},
		{args: []string{"head", "-q", "-n1", "f", "g"}, files: headFiles, out: "a\nx\n"},
		{args: []string{"head", "-v", "-n1", "f"}, files: headFiles, out: "==> f <==\na\n"},
		{args: []string{"head", "-z", "-n1"}, stdin: "a\x00b\x00", out: "a\x00"},
		{args: []string{"head", "f", "d", "x", "g"}, files: headFiles, code: 1,
			out:    "==> f <==\na\nb\nc\n\n==> d <==\n\n==> g <==\nx\ny",
			errOut: "head: error reading 'd': Is a directory\nhead: cannot open 'x' for reading: No such file or directory\n"},
		{args: []string{"head", "x"}, code: 1, errOut: "head: cannot open 'x' for reading: No such file or directory\n"},
		{args: []string{"head", "-n", "x", "f"}, files: headFiles, code: 1, errOut: "head: invalid number of lines: ‘x’\n"},
		{args: []string{"head", "-c", "x", "f"}, files: headFiles, code: 1, errOut: "head: invalid number of bytes: ‘x’\n"},
		{args: []string{"head", "--foo"}, code: 1, errOut: "head: unrecognized option '--foo'\nTry 'head --help' for more information.\n"},
		{args: []string{"head", "-n"}, code: 1, errOut: "head: option requires an argument -- 'n'\nTry 'head --help' for more information.\n"},
		{args: []string{"head", "-Y"}, code: 1, errOut: "head: invalid option -- 'Y'\nTry 'head --help' for more information.\n"},
	})
}
