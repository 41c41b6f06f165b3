package cmds

import "testing"

var basenameCases = []fuFileCase{
	{name: "simple", args: []string{"basename", "a/b/c"}, wantOut: "c\n"},
	{name: "trailing slash", args: []string{"basename", "a/b/"}, wantOut: "b\n"},
	{name: "root", args: []string{"basename", "/"}, wantOut: "/\n"},
	{name: "suffix operand", args: []string{"basename", "x/a.c", ".c"}, wantOut: "a\n"},
	{name: "suffix is name", args: []string{"basename", ".c", ".c"}, wantOut: ".c\n"},
	{name: "suffix flag", args: []string{"basename", "-s", ".c", "a.c", "d/b.c"}, wantOut: "a\nb\n"},
	{name: "multiple", args: []string{"basename", "-a", "x/y", "z/w"}, wantOut: "y\nw\n"},
	{name: "zero", args: []string{"basename", "-z", "x/y"}, wantOut: "y\x00"},
	{name: "missing operand", args: []string{"basename"}, wantErr: "basename: missing operand\nTry 'basename --help' for more information.\n", wantStatus: 1},
	{name: "extra operand", args: []string{"basename", "a", "b", "c"}, wantErr: "basename: extra operand 'c'\nTry 'basename --help' for more information.\n", wantStatus: 1},
}

func TestBasename(t *testing.T)        { fuRunCases(t, basenameCases) }
func TestBasenameConfirm(t *testing.T) { fuConfirmCases(t, basenameCases, false) }

var dirnameCases = []fuFileCase{
	{name: "simple", args: []string{"dirname", "a/b/c"}, wantOut: "a/b\n"},
	{name: "several", args: []string{"dirname", "a/b", "/a", "a", "/", "a//b//", "//x"}, wantOut: "a\n/\n.\n/\na\n/\n"},
	{name: "missing operand", args: []string{"dirname"}, wantErr: "dirname: missing operand\nTry 'dirname --help' for more information.\n", wantStatus: 1},
}

func TestDirname(t *testing.T)        { fuRunCases(t, dirnameCases) }
func TestDirnameConfirm(t *testing.T) { fuConfirmCases(t, dirnameCases, false) }
