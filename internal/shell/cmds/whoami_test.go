package cmds

import "testing"

func TestWhoami(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"whoami", "-z"}, code: 1, errOut: "whoami: invalid option -- 'z'\nTry 'whoami --help' for more information.\n"},
		{args: []string{"whoami", "--", "x"}, code: 1, errOut: "whoami: extra operand ‘x’\nTry 'whoami --help' for more information.\n"},
	})
}
