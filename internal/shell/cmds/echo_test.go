package cmds

import "testing"

func TestEcho(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"echo"}, out: "\n"},
		{args: []string{"echo", "a", "b  c"}, out: "a b  c\n"},
		{args: []string{"echo", "-n", "x"}, out: "x"},
		{args: []string{"echo", "-n", "-e", "-nE", "x", `\t`}, out: `x \t`},
		{args: []string{"echo", "-ex", `\t`}, out: "-ex \\t\n"},
		{args: []string{"echo", "-", "x"}, out: "- x\n"},
		{args: []string{"echo", "--", "x"}, out: "-- x\n"},
		{args: []string{"echo", "x", "-n"}, out: "x -n\n"},
		{args: []string{"echo", `a\tb`}, out: "a\\tb\n"},
		{args: []string{"echo", "-e", `a\tb\nc\\d`}, out: "a\tb\nc\\d\n"},
		{args: []string{"echo", "-e", `\a\b\e\f\r\v`}, out: "\a\b\x1b\f\r\v\n"},
		{args: []string{"echo", "-e", `x\cy`, "z"}, out: "x"},
		{args: []string{"echo", "-e", `a\101b\0101c\x41\xg\z\\`}, out: "aAbAcA\\xg\\z\\\n"},
		{args: []string{"echo", "-e", `\0`}, out: "\x00\n"},
		{args: []string{"echo", "-e", `\01234`}, out: "S4\n"},
		{args: []string{"echo", "-e", `\x4a\x4`}, out: "J\x04\n"},
		{args: []string{"echo", "-e", `a\`}, out: "a\\\n"},
		{args: []string{"echo", "-eE", `a\n`}, out: "a\\n\n"},
	})
}
