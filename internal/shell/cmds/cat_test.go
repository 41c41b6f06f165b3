package cmds

import "testing"

var catCases = []fuFileCase{
	{name: "one file", files: map[string]string{"a": "hello\n"}, args: []string{"cat", "a"}, wantOut: "hello\n"},
	{name: "two files", files: map[string]string{"a": "1\n", "b": "2"}, args: []string{"cat", "a", "b"}, wantOut: "1\n2"},
	{name: "stdin", stdin: "in\n", args: []string{"cat"}, wantOut: "in\n"},
	{name: "dash", files: map[string]string{"a": "A\n"}, stdin: "in\n", args: []string{"cat", "a", "-", "a"}, wantOut: "A\nin\nA\n"},
	{name: "number", files: map[string]string{"a": "x\n\ny\n"}, args: []string{"cat", "-n", "a", "a"},
		wantOut: "     1\tx\n     2\t\n     3\ty\n     4\tx\n     5\t\n     6\ty\n"},
	{name: "number nonblank", files: map[string]string{"a": "x\n\ny\n"}, args: []string{"cat", "-b", "a"},
		wantOut: "     1\tx\n\n     2\ty\n"},
	{name: "show all", files: map[string]string{"a": "a\tb\n\x01\xff\x7f\n"}, args: []string{"cat", "-A", "a"},
		wantOut: "a^Ib$\n^AM-^?^?$\n"},
	{name: "show ends", files: map[string]string{"a": "a\tb\nc"}, args: []string{"cat", "-E", "a"}, wantOut: "a\tb$\nc"},
	{name: "squeeze", files: map[string]string{"a": "a\n\n\n\nb\n\n"}, args: []string{"cat", "-sn", "a"},
		wantOut: "     1\ta\n     2\t\n     3\tb\n     4\t\n"},
	{name: "show tabs", files: map[string]string{"a": "a\tb\n"}, args: []string{"cat", "-T", "a"}, wantOut: "a^Ib\n"},
	{name: "missing", files: map[string]string{"a": "A\n"}, args: []string{"cat", "nope", "a"}, wantOut: "A\n",
		wantErr: "cat: nope: No such file or directory\n", wantStatus: 1},
	{name: "missing quoted", args: []string{"cat", "a b"}, wantErr: "cat: 'a b': No such file or directory\n", wantStatus: 1},
	{name: "directory", files: map[string]string{"d/": ""}, args: []string{"cat", "d"}, wantErr: "cat: d: Is a directory\n", wantStatus: 1},
	{name: "not a directory", files: map[string]string{"a": "A"}, args: []string{"cat", "a/b"}, wantErr: "cat: a/b: Not a directory\n", wantStatus: 1},
	{name: "symlink", files: map[string]string{"a": "A\n", "l": "->a"}, args: []string{"cat", "l"}, wantOut: "A\n"},
	{name: "bad option", args: []string{"cat", "-z"}, wantErr: "cat: invalid option -- 'z'\nTry 'cat --help' for more information.\n", wantStatus: 1},
	{name: "bad long option", args: []string{"cat", "--foo"}, wantErr: "cat: unrecognized option '--foo'\nTry 'cat --help' for more information.\n", wantStatus: 1},
	{name: "long option", files: map[string]string{"a": "x\n"}, args: []string{"cat", "--number", "a"}, wantOut: "     1\tx\n"},
	{name: "double dash", files: map[string]string{"-n": "x\n"}, args: []string{"cat", "--", "-n"}, wantOut: "x\n"},
}

func TestCat(t *testing.T)        { fuRunCases(t, catCases) }
func TestCatConfirm(t *testing.T) { fuConfirmCases(t, catCases, false) }
