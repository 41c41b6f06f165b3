package cmds

import (
	"context"
	"strings"
	"testing"
)

var treeFiles = map[string]string{
	"d/": "", "d/a.txt": "hi\n", "d/sub/": "", "d/sub/B.TXT": "", "e/": "", ".hid": "",
	"l": "->d/a.txt", "ld": "->d", "bl": "->nowhere",
}

var treeCases = []fuFileCase{
	{name: "default", files: treeFiles, args: []string{"tree"}, wantOut: ".\n|-- bl -> nowhere\n|-- d\n|   |-- a.txt\n|   `-- sub\n|       `-- B.TXT\n|-- e\n|-- l -> d/a.txt\n`-- ld -> d\n\n5 directories, 4 files\n"},
	{name: "all level", files: treeFiles, args: []string{"tree", "-a", "-L", "1"}, wantOut: ".\n|-- .hid\n|-- bl -> nowhere\n|-- d\n|-- e\n|-- l -> d/a.txt\n`-- ld -> d\n\n4 directories, 3 files\n"},
	{name: "dirs only", files: treeFiles, args: []string{"tree", "-d"}, wantOut: ".\n|-- d\n|   `-- sub\n|-- e\n`-- ld -> d\n\n5 directories\n"},
	{name: "full path", files: treeFiles, args: []string{"tree", "-f", "d"}, wantOut: "d\n|-- d/a.txt\n`-- d/sub\n    `-- d/sub/B.TXT\n\n2 directories, 2 files\n"},
	{name: "exclude", files: treeFiles, args: []string{"tree", "-I", "sub|*.txt"}, wantOut: ".\n|-- bl -> nowhere\n|-- d\n|-- e\n|-- l -> d/a.txt\n`-- ld -> d\n\n4 directories, 2 files\n"},
	{name: "include", files: treeFiles, args: []string{"tree", "-P", "*.TXT", "d"}, wantOut: "d\n`-- sub\n    `-- B.TXT\n\n2 directories, 1 file\n"},
	{name: "several roots", files: treeFiles, args: []string{"tree", "d", "e", "nope"}, wantOut: "d\n|-- a.txt\n`-- sub\n    `-- B.TXT\ne\nnope  [error opening dir]\n\n2 directories, 2 files\n", wantStatus: 2},
	{name: "file root", files: treeFiles, args: []string{"tree", "d/a.txt"}, wantOut: "d/a.txt  [error opening dir]\n\n0 directories, 1 file\n"},
	{name: "symlink root", files: treeFiles, args: []string{"tree", "ld"}, wantOut: "ld\n|-- a.txt\n`-- sub\n    `-- B.TXT\n\n2 directories, 2 files\n"},
	{name: "empty root", files: treeFiles, args: []string{"tree", "e"}, wantOut: "e\n\n0 directories, 0 files\n"},
	{name: "noreport dirsfirst", files: treeFiles, args: []string{"tree", "--noreport", "--dirsfirst", "d"}, wantOut: "d\n|-- sub\n|   `-- B.TXT\n`-- a.txt\n"},
	{name: "classify", files: treeFiles, args: []string{"tree", "-F", "d"}, wantOut: "d/\n|-- a.txt\n`-- sub/\n    `-- B.TXT\n\n2 directories, 2 files\n"},
	{name: "sizes", files: treeFiles, args: []string{"tree", "-s", "d"}, wantOut: "[       4096]  d\n|-- [          3]  a.txt\n`-- [       4096]  sub\n    `-- [          0]  B.TXT\n\n2 directories, 2 files\n"},
	{name: "human", files: treeFiles, args: []string{"tree", "-h", "d"}, wantOut: "[4.0K]  d\n|-- [   3]  a.txt\n`-- [4.0K]  sub\n    `-- [   0]  B.TXT\n\n2 directories, 2 files\n"},
	{name: "no indent", files: treeFiles, args: []string{"tree", "-i", "d"}, wantOut: "d\na.txt\nsub\nB.TXT\n\n2 directories, 2 files\n"},
	{name: "follow loop", files: map[string]string{"d/": "", "d/x": "", "ld": "->d", "d/up": "->.."}, args: []string{"tree", "-l", "d"},
		wantOut: "d\n|-- up -> ..\n|   |-- d  [recursive, not followed]\n|   `-- ld -> d  [recursive, not followed]\n`-- x\n\n4 directories, 1 file\n", real: "loop detection differs"},
	{name: "bad level", args: []string{"tree", "-L", "0"}, wantErr: "tree: Invalid level, must be greater than 0.\n", wantStatus: 1},
	{name: "missing level", args: []string{"tree", "-L"}, wantErr: "tree: Missing argument to -L option.\n", wantStatus: 1},
	{name: "bad option", args: []string{"tree", "-y"}, wantErr: "tree: Invalid argument -`y'.\n" + treeUsage, wantStatus: 1},
}

func TestTree(t *testing.T)        { fuRunCases(t, treeCases) }
func TestTreeConfirm(t *testing.T) { fuConfirmCases(t, treeCases, false) }

// TestTreeUTF8 checks the drawing in a UTF-8 locale.
func TestTreeUTF8(t *testing.T) {
	f := newStore(t, map[string]string{"d/sub/x": "", "d/y": ""})
	var out strings.Builder
	env := &Env{Ctx: context.Background(), FS: f, Dir: "/work", Stdout: &out, Stderr: &out,
		Getenv: func(n string) string { return map[string]string{"LANG": "C.UTF-8"}[n] }}
	Tree(env, []string{"tree", "d"})
	want := "d\n├── sub\n│\u00a0\u00a0 └── x\n└── y\n\n2 directories, 2 files\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
