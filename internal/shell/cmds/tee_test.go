package cmds

import "testing"

func TestTee(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"tee"}, stdin: "a\nb\n", out: "a\nb\n"},
		{args: []string{"tee", "f"}, stdin: "a\n", out: "a\n"},
		{args: []string{"tee", "-a", "f", "g"}, files: map[string]string{"f": "old\n"}, stdin: "a\n", out: "a\n"},
		{args: []string{"tee", "-"}, stdin: "x\n", out: "x\n"},
		{args: []string{"tee", "d", "b"}, files: map[string]string{"d/": ""}, stdin: "x\n", out: "x\n", code: 1,
			errOut: "tee: d: Is a directory\n"},
		{args: []string{"tee", "nodir/x"}, stdin: "y\n", out: "y\n", code: 1,
			errOut: "tee: nodir/x: No such file or directory\n"},
		{args: []string{"tee", "-p", "--output-error=warn", "f"}, stdin: "z", out: "z"},
		{args: []string{"tee", "-x"}, code: 1, errOut: "tee: invalid option -- 'x'\nTry 'tee --help' for more information.\n"},
	})
}

func TestTeeFiles(t *testing.T) {
	f := newStore(t, map[string]string{"f": "old\n", "g": "keep\n"})
	out, _, code := runIn(t, f, "/work", "new\n", "tee", "f", "-", "h")
	if out != "new\n" || code != 0 {
		t.Fatalf("out %q code %d", out, code)
	}
	for _, p := range []string{"/work/f", "/work/-", "/work/h"} {
		if got := readFile(t, f, p); got != "new\n" {
			t.Errorf("%s = %q", p, got)
		}
	}
	runIn(t, f, "/work", "more\n", "tee", "-a", "g")
	if got := readFile(t, f, "/work/g"); got != "keep\nmore\n" {
		t.Errorf("append: %q", got)
	}
}
