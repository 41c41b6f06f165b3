package cmds

import (
	"context"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

var cpTree = map[string]string{"f": "x\n", "l": "->f", "d/s/": "", "d/g": "g\n", "d/ln": "->g", "e/": ""}

var cpCases = []fuFileCase{
	{name: "file", files: cpTree, args: []string{"cp", "f", "g"}},
	{name: "verbose into dir", files: cpTree, args: []string{"cp", "-v", "f", "l", "e"}, wantOut: "'f' -> 'e/f'\n'l' -> 'e/l'\n"},
	{name: "recursive verbose", files: cpTree, args: []string{"cp", "-rv", "d", "x"},
		wantOut: "'d' -> 'x'\n'd/g' -> 'x/g'\n'd/ln' -> 'x/ln'\n'd/s' -> 'x/s'\n", real: "directory order"},
	{name: "recursive into dir", files: map[string]string{"d/g": "", "e/": ""}, args: []string{"cp", "-Rv", "d", "e"},
		wantOut: "'d' -> 'e/d'\n'd/g' -> 'e/d/g'\n"},
	{name: "archive", files: map[string]string{"d/g": "", "e/": ""}, args: []string{"cp", "-av", "d", "e/"},
		wantOut: "'d' -> 'e/d'\n'd/g' -> 'e/d/g'\n"},
	{name: "no target dir", files: map[string]string{"d/g": "", "e/": ""}, args: []string{"cp", "-rTv", "d", "e"},
		wantOut: "'d/g' -> 'e/g'\n"},
	{name: "no clobber", files: cpTree, args: []string{"cp", "-nv", "f", "d/g"}},
	{name: "missing operand", args: []string{"cp"}, wantErr: "cp: missing file operand\nTry 'cp --help' for more information.\n", wantStatus: 1},
	{name: "missing dest", files: cpTree, args: []string{"cp", "f"},
		wantErr: "cp: missing destination file operand after 'f'\nTry 'cp --help' for more information.\n", wantStatus: 1},
	{name: "missing source", args: []string{"cp", "nope", "x"}, wantErr: "cp: cannot stat 'nope': No such file or directory\n", wantStatus: 1},
	{name: "omitting directory", files: cpTree, args: []string{"cp", "d", "x"}, wantErr: "cp: -r not specified; omitting directory 'd'\n", wantStatus: 1},
	{name: "target missing", files: cpTree, args: []string{"cp", "f", "l", "h"}, wantErr: "cp: target 'h': No such file or directory\n", wantStatus: 1},
	{name: "target not dir", files: cpTree, args: []string{"cp", "f", "l", "d/g"}, wantErr: "cp: target 'd/g': Not a directory\n", wantStatus: 1},
	{name: "same file", files: cpTree, args: []string{"cp", "f", "f"}, wantErr: "cp: 'f' and 'f' are the same file\n", wantStatus: 1},
	{name: "into itself", files: cpTree, args: []string{"cp", "-r", "d", "d/s"}, wantErr: "cp: cannot copy a directory, 'd', into itself, 'd/s/d'\n", wantStatus: 1},
	{name: "dir onto file", files: cpTree, args: []string{"cp", "-r", "d", "f"}, wantErr: "cp: cannot overwrite non-directory 'f' with directory 'd'\n", wantStatus: 1},
	{name: "file onto dir T", files: cpTree, args: []string{"cp", "-T", "f", "e"}, wantErr: "cp: cannot overwrite directory 'e' with non-directory\n", wantStatus: 1},
	{name: "no parent", files: cpTree, args: []string{"cp", "f", "zz/f"}, wantErr: "cp: cannot create regular file 'zz/f': No such file or directory\n", wantStatus: 1},
}

func TestCp(t *testing.T)        { fuRunCases(t, cpCases) }
func TestCpConfirm(t *testing.T) { fuConfirmCases(t, cpCases, false) }

// TestCpResult checks what the copies hold.
func TestCpResult(t *testing.T) {
	ctx := context.Background()
	f := newStore(t, cpTree)
	for _, a := range [][]string{{"cp", "f", "g"}, {"cp", "-r", "d", "x"}, {"cp", "l", "m"}, {"cp", "-a", "d", "y"}} {
		if _, e, st := runIn(t, f, "/work", "", a...); st != 0 {
			t.Fatalf("%q: %s", a, e)
		}
	}
	if got := readFile(t, f, "/work/g"); got != "x\n" {
		t.Errorf("g = %q", got)
	}
	if got := readFile(t, f, "/work/x/g"); got != "g\n" {
		t.Errorf("x/g = %q", got)
	}
	if tgt, err := f.Readlink(ctx, "/work/x/ln"); err != nil || tgt != "g" {
		t.Errorf("x/ln: %q %v (symlinks are copied as symlinks with -r)", tgt, err)
	}
	if fi, err := f.Lstat(ctx, "/work/m"); err != nil || fi.Attr().Mode&vfs.S_IFMT != vfs.S_IFREG {
		t.Errorf("cp of a symlink without -r copies the target: %v", err)
	}
	a, _ := f.Stat(ctx, "/work/d/g")
	b, _ := f.Stat(ctx, "/work/y/g")
	if !a.ModTime().Equal(b.ModTime()) {
		t.Errorf("cp -a did not keep mtime")
	}
}
