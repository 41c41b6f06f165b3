package cmds

import "testing"

func TestRev(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"rev"}, stdin: "abc\nhéllo\nno-nl", out: "cba\nolléh\nln-on"},
		{args: []string{"rev", "f", "-"}, files: map[string]string{"f": "12\n"}, stdin: "xy\n", out: "21\n", code: 1,
			errOut: "rev: cannot open -: No such file or directory\n"},
		{args: []string{"rev", "f", "-"}, files: map[string]string{"f": "12\n", "-": "ab\n"}, out: "21\nba\n"},
		{args: []string{"rev"}, stdin: "\n\n", out: "\n\n"},
		{args: []string{"rev", "nosuch", "f"}, files: map[string]string{"f": "ab\n"}, out: "ba\n", code: 1,
			errOut: "rev: cannot open nosuch: No such file or directory\n"},
	})
}
