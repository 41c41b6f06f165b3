package cmds

import (
	"strings"
	"testing"
)

func TestBase64(t *testing.T) {
	zeros := strings.Repeat("\x00", 100)
	runTextRows(t, []textRow{
		{args: []string{"base64"}, stdin: "hello world\n", out: "aGVsbG8gd29ybGQK\n"},
		{args: []string{"base64"}, stdin: "", out: ""},
		{args: []string{"base64", "f"}, files: map[string]string{"f": "ab"}, out: "YWI=\n"},
		{args: []string{"base64", "-"}, stdin: "a", out: "YQ==\n"},
		{args: []string{"base64"}, stdin: zeros, out: strings.Repeat("A", 76) + "\n" + strings.Repeat("A", 58) + "==\n"},
		{args: []string{"base64", "-w", "20"}, stdin: zeros[:20], out: "AAAAAAAAAAAAAAAAAAAA\nAAAAAAA=\n"},
		{args: []string{"base64", "-w0"}, stdin: zeros[:10], out: "AAAAAAAAAAAAAA=="},
		{args: []string{"base64", "--wrap=4"}, stdin: "abcdef", out: "YWJj\nZGVm\n"},
		{args: []string{"base64", "-d"}, stdin: "aGVsbG8gd29ybGQK", out: "hello world\n"},
		{args: []string{"base64", "--decode"}, stdin: "aGVs\nbG8K\n", out: "hello\n"},
		{args: []string{"base64", "-d"}, stdin: "YQ==\nYg==\n", out: "ab"},
		{args: []string{"base64", "-d"}, stdin: "YQ\n==", out: "a"},
		{args: []string{"base64", "-d"}, stdin: "aGVsbG8", out: "hello", code: 1, errOut: "base64: invalid input\n"},
		{args: []string{"base64", "-d"}, stdin: "aGVsbG8@gd29ybGQK", out: "hello", code: 1, errOut: "base64: invalid input\n"},
		{args: []string{"base64", "-di"}, stdin: "aGVsbG8@gd29ybGQK", out: "hello world\n"},
		{args: []string{"base64", "-d", "-i"}, stdin: "a G V s\tbG8K!", out: "hello\n"},
		{args: []string{"base64", "-w", "x"}, code: 1, errOut: "base64: invalid wrap size: ‘x’\n"},
		{args: []string{"base64", "nosuch"}, code: 1, errOut: "base64: nosuch: No such file or directory\n"},
		{args: []string{"base64", "a", "b"}, code: 1, errOut: "base64: extra operand ‘b’\nTry 'base64 --help' for more information.\n"},
	})
}
