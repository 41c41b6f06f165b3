package cmds

import "testing"

var whichCases = []fuFileCase{
	{name: "found", args: []string{"which", "cat", "ls"}, wantOut: "/usr/bin/cat\n/usr/bin/ls\n"},
	{name: "missing", args: []string{"which", "cat", "no-such-command"}, wantOut: "/usr/bin/cat\n", wantStatus: 1},
	{name: "none", args: []string{"which"}, wantStatus: 1, real: "debianutils which exits 1 with no operand too"},
}

func TestWhich(t *testing.T) { fuRunCases(t, whichCases) }
