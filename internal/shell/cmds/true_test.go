package cmds

import "testing"

func TestTrueFalse(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"true"}},
		{args: []string{"true", "--x", "y"}},
		{args: []string{"false"}, code: 1},
		{args: []string{"false", "x"}, code: 1},
	})
}
