package cmds

import "testing"

var lnTree = map[string]string{"f": "x", "d/": "", "old": "->f", "ld": "->d"}

var lnCases = []fuFileCase{
	{name: "symbolic verbose", files: lnTree, args: []string{"ln", "-sv", "f", "l"}, wantOut: "'l' -> 'f'\n"},
	{name: "hard verbose", files: lnTree, args: []string{"ln", "-v", "f", "h"}, wantOut: "'h' => 'f'\n"},
	{name: "into dir", files: lnTree, args: []string{"ln", "-sv", "../f", "d"}, wantOut: "'d/f' -> '../f'\n"},
	{name: "one operand", files: lnTree, args: []string{"ln", "-sv", "d/x"}, wantOut: "'./x' -> 'd/x'\n"},
	{name: "exists", files: lnTree, args: []string{"ln", "-s", "f", "old"}, wantErr: "ln: failed to create symbolic link 'old': File exists\n", wantStatus: 1},
	{name: "force", files: lnTree, args: []string{"ln", "-sfv", "g", "old"}, wantOut: "'old' -> 'g'\n"},
	{name: "force no deref", files: lnTree, args: []string{"ln", "-sfnv", "f", "ld"}, wantOut: "'ld' -> 'f'\n"},
	{name: "force deref into dir", files: lnTree, args: []string{"ln", "-sfv", "f", "ld"}, wantOut: "'ld/f' -> 'f'\n"},
	{name: "hard dir", files: lnTree, args: []string{"ln", "d", "e"}, wantErr: "ln: d: hard link not allowed for directory\n", wantStatus: 1},
	{name: "hard missing", args: []string{"ln", "nope", "x"}, wantErr: "ln: failed to access 'nope': No such file or directory\n", wantStatus: 1},
	{name: "relative", files: lnTree, args: []string{"ln", "-srv", "f", "d/l"}, wantOut: "'d/l' -> '../f'\n"},
	{name: "relative through link dir", files: lnTree, args: []string{"ln", "-sr", "d", "ld/up"}},
	{name: "relative without symbolic", files: lnTree, args: []string{"ln", "-r", "f", "x"}, wantErr: "ln: cannot do --relative without --symbolic\n", wantStatus: 1},
	{name: "missing operand", args: []string{"ln"}, wantErr: "ln: missing file operand\nTry 'ln --help' for more information.\n", wantStatus: 1},
}

func TestLn(t *testing.T)        { fuRunCases(t, lnCases) }
func TestLnConfirm(t *testing.T) { fuConfirmCases(t, lnCases, false) }
