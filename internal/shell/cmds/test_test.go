package cmds

import "testing"

var testFiles = map[string]string{
	"f":     "data",
	"empty": "",
	"d/":    "",
	"l":     "->f",
	"dang":  "->nowhere",
}

func TestTest(t *testing.T) {
	rows := []textRow{
		{args: []string{"test"}, code: 1},
		{args: []string{"test", ""}, code: 1},
		{args: []string{"test", "a"}},
		{args: []string{"test", "-f"}},
		{args: []string{"test", "!"}},
		{args: []string{"test", "!", ""}},
		{args: []string{"test", "-n", ""}, code: 1},
		{args: []string{"test", "-z", ""}},
		{args: []string{"test", "-z", "x"}, code: 1},
		{args: []string{"test", "a", "=", "a"}},
		{args: []string{"test", "a", "==", "b"}, code: 1},
		{args: []string{"test", "a", "!=", "b"}},
		{args: []string{"test", "a", "<", "b"}, code: 2, errOut: "test: ‘<’: binary operator expected\n"},
		{args: []string{"test", "a", ">", "b"}, code: 2, errOut: "test: ‘>’: binary operator expected\n"},
		{args: []string{"test", "10", "-gt", "9"}},
		{args: []string{"test", " 10 ", "-eq", "+10"}},
		{args: []string{"test", "-5", "-lt", "3"}},
		{args: []string{"test", "99999999999999999999999", "-gt", "1"}},
		{args: []string{"test", "3", "-le", "3"}},
		{args: []string{"test", "3", "-ge", "4"}, code: 1},
		{args: []string{"test", "3", "-ne", "4"}},
		{args: []string{"test", "-l", "abc", "-eq", "3"}},
		{args: []string{"test", "a", "-eq", "b"}, code: 2, errOut: "test: invalid integer ‘a’\n"},
		{args: []string{"test", "x", "-eq"}, code: 2, errOut: "test: missing argument after ‘-eq’\n"},
		{args: []string{"test", "a", "b"}, code: 2, errOut: "test: missing argument after ‘b’\n"},
		{args: []string{"test", "(", "a"}, code: 2, errOut: "test: missing argument after ‘a’\n"},
		{args: []string{"test", "a", "b", "c"}, code: 2, errOut: "test: ‘b’: binary operator expected\n"},
		{args: []string{"test", "1", "-eq", "1", "1"}, code: 2, errOut: "test: extra argument ‘1’\n"},
		{args: []string{"test", "!", "a", "b", "c", "d", "e"}, code: 2, errOut: "test: extra argument ‘b’\n"},
		{args: []string{"test", "-q", "x"}, code: 2, errOut: "test: ‘-q’: unary operator expected\n"},
		{args: []string{"test", "(", "a", "b"}, code: 2, errOut: "test: ‘a’: binary operator expected\n"},
		{args: []string{"test", "(", "(", "a", ")"}, code: 2, errOut: "test: missing argument after ‘)’\n"},
		{args: []string{"test", "a", "-a"}, code: 2, errOut: "test: missing argument after ‘-a’\n"},
		{args: []string{"test", "a", "-a", "", "-o", "b"}},
		{args: []string{"test", "", "-o", "", "-a", "b"}, code: 1},
		{args: []string{"test", "!", "a", "-a", "b"}, code: 1},
		{args: []string{"test", "(", "a", "=", "b", ")", "-o", "x"}},
		{args: []string{"test", "!", "(", "a", "=", "a", ")"}, code: 1},
		{args: []string{"test", "(", "a", ")", "-a", "(", "", ")"}, code: 1},
		{args: []string{"test", "-e", "f"}, files: testFiles},
		{args: []string{"test", "-e", "nope"}, files: testFiles, code: 1},
		{args: []string{"test", "-f", "f"}, files: testFiles},
		{args: []string{"test", "-f", "d"}, files: testFiles, code: 1},
		{args: []string{"test", "-d", "d"}, files: testFiles},
		{args: []string{"test", "-f", "l"}, files: testFiles},
		{args: []string{"test", "-L", "l"}, files: testFiles},
		{args: []string{"test", "-h", "dang"}, files: testFiles},
		{args: []string{"test", "-e", "dang"}, files: testFiles, code: 1},
		{args: []string{"test", "-L", "f"}, files: testFiles, code: 1},
		{args: []string{"test", "-s", "f"}, files: testFiles},
		{args: []string{"test", "-s", "empty"}, files: testFiles, code: 1},
		{args: []string{"test", "-r", "f"}, files: testFiles},
		{args: []string{"test", "-w", "f"}, files: testFiles},
		{args: []string{"test", "-x", "f"}, files: testFiles, code: 1},
		{args: []string{"test", "-x", "d"}, files: testFiles},
		{args: []string{"test", "-r", "nope"}, files: testFiles, code: 1},
		{args: []string{"test", "-e", ""}, files: testFiles, code: 1},
		{args: []string{"test", "f", "-ef", "l"}, files: testFiles},
		{args: []string{"test", "f", "-ef", "empty"}, files: testFiles, code: 1},
		{args: []string{"test", "f", "-nt", "nope"}, files: testFiles},
		{args: []string{"test", "-t", "x"}, code: 2, errOut: "test: invalid integer ‘x’\n"},
		{args: []string{"[", "a", "]"}},
		{args: []string{"[", "]"}, code: 1},
		{args: []string{"[", "-d", "d", "-a", "-f", "f", "]"}, files: testFiles},
		{args: []string{"["}, code: 2, errOut: "[: missing ‘]’\n"},
		{args: []string{"[", "a"}, code: 2, errOut: "[: missing ‘]’\n"},
		{args: []string{"[", "a", "]", "]"}, code: 2, errOut: "[: missing argument after ‘]’\n"},
	}
	runTextRows(t, rows)
}

func TestTestExecBit(t *testing.T) {
	f := newStore(t, map[string]string{"s": "#!/bin/sh\n"})
	if err := f.Chmod(t.Context(), "/work/s", 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runIn(t, f, "/work", "", "test", "-x", "s"); code != 0 {
		t.Fatalf("-x on 0700 file: %d", code)
	}
	if err := f.Chmod(t.Context(), "/work/s", 0o000); err != nil {
		t.Fatal(err)
	}
	// As root: readable and writable whatever the bits, not executable.
	for _, op := range []string{"-r", "-w"} {
		if _, _, code := runIn(t, f, "/work", "", "test", op, "s"); code != 0 {
			t.Fatalf("%s on 0000 file: %d", op, code)
		}
	}
	if _, _, code := runIn(t, f, "/work", "", "test", "-x", "s"); code != 1 {
		t.Fatalf("-x on 0000 file: %d", code)
	}
}
