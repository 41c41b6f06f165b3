package cmds

import "testing"

var stringsFiles = map[string]string{
	"f":  "ab\x00hello\tworld\x01xyzw\nabcd\xc3\xa9efgh",
	"d/": "",
}

func TestStrings(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"strings", "f"}, files: stringsFiles, out: "hello\tworld\nxyzw\nabcd\nefgh\n"},
		{args: []string{"strings", "-a", "f"}, files: stringsFiles, out: "hello\tworld\nxyzw\nabcd\nefgh\n"},
		{args: []string{"strings", "-t", "x", "-n", "3", "f"}, files: stringsFiles, out: "      3 hello\tworld\n      f xyzw\n     14 abcd\n     1a efgh\n"},
		{args: []string{"strings", "-to", "f"}, files: stringsFiles, out: "      3 hello\tworld\n     17 xyzw\n     24 abcd\n     32 efgh\n"},
		{args: []string{"strings", "-td", "-eS", "f"}, files: stringsFiles, out: "      3 hello\tworld\n     15 xyzw\n     20 abcd\xc3\xa9efgh\n"},
		{args: []string{"strings", "-f", "f"}, files: stringsFiles, out: "f: hello\tworld\nf: xyzw\nf: abcd\nf: efgh\n"},
		{args: []string{"strings", "-n", "6"}, stdin: "abc\x00abcdefg\x00", out: "abcdefg\n"},
		{args: []string{"strings", "-3"}, stdin: "abc\x00ab\x00", out: "abc\n"},
		{args: []string{"strings", "--bytes=2", "-t", "d"}, stdin: "ab\x00cd", out: "      0 ab\n      3 cd\n"},
		{args: []string{"strings", "-w"}, stdin: "abc\ndef\x00", out: "abc\ndef\n"},
		{args: []string{"strings", "-s", ","}, stdin: "abcd\x00efgh", out: "abcd,efgh,"},
		{args: []string{"strings", "nope"}, code: 1, errOut: "strings: 'nope': No such file\n"},
		{args: []string{"strings", "d"}, files: stringsFiles, code: 1, errOut: "strings: Warning: 'd' is a directory\n"},
		{args: []string{"strings", "-n", "0", "f"}, files: stringsFiles, code: 1, errOut: "strings: invalid minimum string length 0\n"},
	})
}
