package cmds

import "testing"

var rmdirCases = []fuFileCase{
	{name: "simple", files: map[string]string{"a/": ""}, args: []string{"rmdir", "a"}},
	{name: "parents verbose", files: map[string]string{"a/b/": ""}, args: []string{"rmdir", "-pv", "a/b"},
		wantOut: "rmdir: removing directory, 'a/b'\nrmdir: removing directory, 'a'\n"},
	{name: "missing", args: []string{"rmdir", "nope"}, wantErr: "rmdir: failed to remove 'nope': No such file or directory\n", wantStatus: 1},
	{name: "not a directory", files: map[string]string{"f": ""}, args: []string{"rmdir", "f"},
		wantErr: "rmdir: failed to remove 'f': Not a directory\n", wantStatus: 1},
	{name: "not empty", files: map[string]string{"q/r/": ""}, args: []string{"rmdir", "q"},
		wantErr: "rmdir: failed to remove 'q': Directory not empty\n", wantStatus: 1},
	{name: "ignore non empty", files: map[string]string{"q/r/": ""}, args: []string{"rmdir", "--ignore-fail-on-non-empty", "q"}},
	{name: "parents stop at non empty", files: map[string]string{"a/b/": "", "a/c": ""}, args: []string{"rmdir", "-p", "a/b"},
		wantErr: "rmdir: failed to remove directory 'a': Directory not empty\n", wantStatus: 1},
	{name: "missing operand", args: []string{"rmdir"}, wantErr: "rmdir: missing operand\nTry 'rmdir --help' for more information.\n", wantStatus: 1},
}

func TestRmdir(t *testing.T)        { fuRunCases(t, rmdirCases) }
func TestRmdirConfirm(t *testing.T) { fuConfirmCases(t, rmdirCases, false) }
