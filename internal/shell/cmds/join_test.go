package cmds

import "testing"

func TestJoin(t *testing.T) {
	f := map[string]string{
		"f1": "a 1\nb 2\nc 3\n",
		"f2": "a x\nc y z\nd w\n",
		"c1": "a,,1\nb,2,\n",
		"c2": "a,\nb,q\n",
		"h1": "K V\na 1\n",
		"h2": "K W\na 2\n",
		"u":  "b 1\na 2\n",
		"g1": "a 1\na 2\nb 3\n",
		"g2": "a x\na y\n",
		"A":  "A,1\n",
		"lo": "a,2\n",
		"k2": "1 a\n2 c\n",
	}
	rows := []textRow{
		{files: f, args: []string{"join", "f1", "f2"}, out: "a 1 x\nc 3 y z\n"},
		{files: f, args: []string{"join", "-a1", "f1", "f2"}, out: "a 1 x\nb 2\nc 3 y z\n"},
		{files: f, args: []string{"join", "-a1", "-a2", "-e", "E", "f1", "f2"}, out: "a 1 x\nb 2\nc 3 y z\nd w\n"},
		{files: f, args: []string{"join", "-a1", "-a2", "-e", "E", "-o", "auto", "f1", "f2"}, out: "a 1 x\nb 2 E\nc 3 y\nd E w\n"},
		{files: f, args: []string{"join", "-v2", "f1", "f2"}, out: "d w\n"},
		{files: f, args: []string{"join", "-v1", "-v2", "f1", "f2"}, out: "b 2\nd w\n"},
		{files: f, args: []string{"join", "-o", "2.2,1.2,0", "f1", "f2"}, out: "x 1 a\ny 3 c\n"},
		{files: f, args: []string{"join", "-o", "1.1 2.3", "-e", "-", "f1", "f2"}, out: "a -\nc z\n"},
		{files: f, args: []string{"join", "-t,", "-o", "0,1.2,2.2", "-e", "NA", "c1", "c2"}, out: "a,NA,NA\nb,2,q\n"},
		{files: f, args: []string{"join", "-t,", "c1", "c2"}, out: "a,,1,\nb,2,,q\n"},
		{files: f, args: []string{"join", "--header", "h1", "h2"}, out: "K V W\na 1 2\n"},
		{files: f, args: []string{"join", "-i", "-t,", "A", "lo"}, out: "A,1,2\n"},
		{files: f, args: []string{"join", "g1", "g2"}, out: "a 1 x\na 1 y\na 2 x\na 2 y\n"},
		{files: f, args: []string{"join", "-2", "2", "f1", "k2"}, out: "a 1 1\nc 3 2\n"},
		{files: f, args: []string{"join", "-j1", "f1", "f2"}, out: "a 1 x\nc 3 y z\n"},
		{files: f, stdin: "  a   1\n", args: []string{"join", "-", "f2"}, out: "a 1 x\n"},
		{files: f, args: []string{"join", "u", "f2"}, errOut: "join: u:2: is not sorted: a 2\njoin: input is not in sorted order\n", code: 1},
		{files: f, args: []string{"join", "--check-order", "u", "f2"}, errOut: "join: u:2: is not sorted: a 2\n", code: 1},
		{files: f, args: []string{"join", "--nocheck-order", "u", "f2"}},
		{files: f, args: []string{"join", "-1", "x", "f1", "f2"}, errOut: "join: invalid field number: ‘x’\n", code: 1},
		{files: f, args: []string{"join", "-o", "3.1", "f1", "f2"}, errOut: "join: invalid file number in field spec: ‘3.1’\n", code: 1},
		{files: f, args: []string{"join", "-t", "ab", "f1", "f2"}, errOut: "join: multi-character tab ‘ab’\n", code: 1},
		{files: f, args: []string{"join", "f1"}, errOut: "join: missing operand after ‘f1’\nTry 'join --help' for more information.\n", code: 1},
		{files: f, args: []string{"join", "f1", "f2", "f3"}, errOut: "join: extra operand 'f3'\nTry 'join --help' for more information.\n", code: 1},
		{files: f, args: []string{"join", "nope", "f2"}, errOut: "join: nope: No such file or directory\n", code: 1},
	}
	runTextRows(t, rows)
}
