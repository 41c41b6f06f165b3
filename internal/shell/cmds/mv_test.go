package cmds

import "testing"

var mvTree = map[string]string{"f": "x\n", "d/s/": "", "d/g": "g\n", "e/": "", "x2/d/s/": ""}

var mvCases = []fuFileCase{
	{name: "rename", files: mvTree, args: []string{"mv", "-v", "f", "g"}, wantOut: "renamed 'f' -> 'g'\n"},
	{name: "into dir", files: mvTree, args: []string{"mv", "-v", "f", "d/g", "e"}, wantOut: "renamed 'f' -> 'e/f'\nrenamed 'd/g' -> 'e/g'\n"},
	{name: "dir into dir", files: mvTree, args: []string{"mv", "-v", "d", "e"}, wantOut: "renamed 'd' -> 'e/d'\n"},
	{name: "overwrite", files: mvTree, args: []string{"mv", "f", "d/g"}},
	{name: "no clobber", files: mvTree, args: []string{"mv", "-nv", "f", "d/g"}},
	{name: "T onto empty dir", files: mvTree, args: []string{"mv", "-Tv", "e", "d/s"}, wantOut: "renamed 'e' -> 'd/s'\n"},
	{name: "missing operand", args: []string{"mv"}, wantErr: "mv: missing file operand\nTry 'mv --help' for more information.\n", wantStatus: 1},
	{name: "missing dest", files: mvTree, args: []string{"mv", "f"},
		wantErr: "mv: missing destination file operand after 'f'\nTry 'mv --help' for more information.\n", wantStatus: 1},
	{name: "missing source", args: []string{"mv", "nope", "x"}, wantErr: "mv: cannot stat 'nope': No such file or directory\n", wantStatus: 1},
	{name: "into itself", files: mvTree, args: []string{"mv", "d", "d/s"}, wantErr: "mv: cannot move 'd' to a subdirectory of itself, 'd/s/d'\n", wantStatus: 1},
	{name: "onto non empty", files: mvTree, args: []string{"mv", "d", "x2"}, wantErr: "mv: cannot move 'd' to 'x2/d': Directory not empty\n", wantStatus: 1},
	{name: "dir onto file", files: mvTree, args: []string{"mv", "-T", "d", "f"}, wantErr: "mv: cannot overwrite non-directory 'f' with directory 'd'\n", wantStatus: 1},
	{name: "file onto dir", files: mvTree, args: []string{"mv", "-T", "f", "e"}, wantErr: "mv: cannot overwrite directory 'e' with non-directory\n", wantStatus: 1},
	{name: "target not dir", files: mvTree, args: []string{"mv", "f", "e", "d/g"}, wantErr: "mv: target 'd/g': Not a directory\n", wantStatus: 1},
}

func TestMv(t *testing.T)        { fuRunCases(t, mvCases) }
func TestMvConfirm(t *testing.T) { fuConfirmCases(t, mvCases, false) }

// TestMvUpdate checks that -u replaces only an older file.
func TestMvUpdate(t *testing.T) {
	f := newStore(t, map[string]string{"old": "o\n", "new": "n\n"})
	runIn(t, f, "/work", "", "touch", "-d", "2020-01-01", "old")
	if _, e, c := runIn(t, f, "/work", "", "mv", "-u", "old", "new"); c != 0 || e != "" {
		t.Fatalf("mv -u: %q %d", e, c)
	}
	if got := readFile(t, f, "/work/new"); got != "n\n" {
		t.Errorf("new replaced by an older file: %q", got)
	}
	if _, e, c := runIn(t, f, "/work", "", "mv", "-u", "new", "old"); c != 0 || e != "" {
		t.Fatalf("mv -u: %q %d", e, c)
	}
	if got := readFile(t, f, "/work/old"); got != "n\n" {
		t.Errorf("old not replaced by a newer file: %q", got)
	}
}
