package cmds

import (
	"context"
	"testing"
)

var rmCases = []fuFileCase{
	{name: "file", files: map[string]string{"a": ""}, args: []string{"rm", "a"}},
	{name: "verbose", files: map[string]string{"a": "", "b": ""}, args: []string{"rm", "-v", "a", "b"}, wantOut: "removed 'a'\nremoved 'b'\n"},
	{name: "recursive verbose", files: map[string]string{"q/r/": "", "q/f": ""}, args: []string{"rm", "-rv", "q"},
		wantOut: "removed 'q/f'\nremoved directory 'q/r'\nremoved directory 'q'\n", real: "directory order"},
	{name: "recursive", files: map[string]string{"q/r/x": "", "q/f": ""}, args: []string{"rm", "-r", "q"}},
	{name: "recursive R force", files: map[string]string{"q/r/x": ""}, args: []string{"rm", "-Rf", "q", "nope"}},
	{name: "missing", args: []string{"rm", "nope"}, wantErr: "rm: cannot remove 'nope': No such file or directory\n", wantStatus: 1},
	{name: "missing force", args: []string{"rm", "-f", "nope"}},
	{name: "directory", files: map[string]string{"q/": ""}, args: []string{"rm", "q"}, wantErr: "rm: cannot remove 'q': Is a directory\n", wantStatus: 1},
	{name: "dir flag", files: map[string]string{"q/": ""}, args: []string{"rm", "-dv", "q"}, wantOut: "removed directory 'q'\n"},
	{name: "dir flag not empty", files: map[string]string{"q/x": ""}, args: []string{"rm", "-d", "q"},
		wantErr: "rm: cannot remove 'q': Directory not empty\n", wantStatus: 1},
	{name: "dot", args: []string{"rm", "-r", "."}, wantErr: "rm: refusing to remove '.' or '..' directory: skipping '.'\n", wantStatus: 1},
	{name: "dotdot", args: []string{"rm", "-rf", ".."}, wantErr: "rm: refusing to remove '.' or '..' directory: skipping '..'\n", wantStatus: 1},
	{name: "root", args: []string{"rm", "-rf", "/"}, wantErr: "rm: it is dangerous to operate recursively on '/'\nrm: use --no-preserve-root to override this failsafe\n", wantStatus: 1},
	{name: "missing operand", args: []string{"rm"}, wantErr: "rm: missing operand\nTry 'rm --help' for more information.\n", wantStatus: 1},
	{name: "force no operand", args: []string{"rm", "-f"}},
	{name: "symlink not followed", files: map[string]string{"d/x": "", "l": "->d"}, args: []string{"rm", "-rv", "l"}, wantOut: "removed 'l'\n"},
	{name: "not a directory", files: map[string]string{"f": ""}, args: []string{"rm", "f/"}, wantErr: "rm: cannot remove 'f/': Not a directory\n", wantStatus: 1},
	{name: "interactive no", files: map[string]string{"a": "x"}, stdin: "n\n", args: []string{"rm", "-i", "a"}, wantErr: "rm: remove regular file 'a'? "},
	{name: "interactive yes", files: map[string]string{"a": "x", "e": ""}, stdin: "y\nYes\n", args: []string{"rm", "-iv", "a", "e"},
		wantOut: "removed 'a'\nremoved 'e'\n", wantErr: "rm: remove regular file 'a'? rm: remove regular empty file 'e'? "},
	{name: "interactive end of input", files: map[string]string{"a": "x"}, args: []string{"rm", "-i", "a", "nope"},
		wantErr: "rm: remove regular file 'a'? rm: cannot remove 'nope': No such file or directory\n", wantStatus: 1},
	{name: "interactive recursive", files: map[string]string{"q/f": "x"}, stdin: "y\ny\ny\n", args: []string{"rm", "-rvi", "q"},
		wantOut: "removed 'q/f'\nremoved directory 'q'\n", wantErr: "rm: descend into directory 'q'? rm: remove regular file 'q/f'? rm: remove directory 'q'? "},
	{name: "interactive empty directory", files: map[string]string{"q/": ""}, stdin: "y\n", args: []string{"rm", "-ri", "q"}, wantErr: "rm: remove directory 'q'? "},
	{name: "interactive dir flag", files: map[string]string{"q/": ""}, stdin: "n\n", args: []string{"rm", "-di", "q"}, wantErr: "rm: remove directory 'q'? "},
	{name: "interactive once", files: map[string]string{"a": "", "b": "", "c": "", "d": ""}, stdin: "n\n", args: []string{"rm", "-I", "a", "b", "c", "d"},
		wantErr: "rm: remove 4 arguments? "},
	{name: "interactive once recursive", files: map[string]string{"q/f": ""}, stdin: "y\n", args: []string{"rm", "-I", "-rv", "q"},
		wantOut: "removed 'q/f'\nremoved directory 'q'\n", wantErr: "rm: remove 1 argument recursively? "},
	{name: "force after interactive", files: map[string]string{"a": ""}, args: []string{"rm", "-i", "-f", "a"}},
}

func TestRm(t *testing.T)        { fuRunCases(t, rmCases) }
func TestRmConfirm(t *testing.T) { fuConfirmCases(t, rmCases, false) }

func TestRmRemoves(t *testing.T) {
	f := newStore(t, map[string]string{"q/r/x": "1", "q/f": "2", "keep": ""})
	if _, e, st := runIn(t, f, "/work", "", "rm", "-r", "q"); st != 0 {
		t.Fatal(e)
	}
	ents, _ := f.ReadDir(context.Background(), "/work")
	if len(ents) != 1 || ents[0].Name != "keep" {
		t.Fatalf("left %v", ents)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f = newStore(t, map[string]string{"q/r/x": "1"})
	env := &Env{Ctx: ctx, FS: f, Dir: "/work", Stdout: new(fuDiscard), Stderr: new(fuDiscard)}
	if st := Rm(env, []string{"rm", "-rv", "q"}); st == 0 {
		t.Fatal("cancelled rm succeeded")
	}
}

type fuDiscard struct{}

func (*fuDiscard) Write(p []byte) (int, error) { return len(p), nil }
