package cmds

import (
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

func TestWhoami(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"whoami", "-z"}, code: 1, errOut: "whoami: invalid option -- 'z'\nTry 'whoami --help' for more information.\n"},
		{args: []string{"whoami", "--", "x"}, code: 1, errOut: "whoami: extra operand ‘x’\nTry 'whoami --help' for more information.\n"},
	})
}

// TestWhoami_root: whoami says root, as id does, whatever $USER says:
// confirmed against GNU whoami run as root (the workspace's identity).
func TestWhoami_root(t *testing.T) {
	testenv.NeedRoot(t)
	runTextRows(t, []textRow{
		{args: []string{"whoami"}, out: "root\n"},
		{args: []string{"whoami"}, env: map[string]string{"USER": "bob"}, out: "root\n"},
	})
}
