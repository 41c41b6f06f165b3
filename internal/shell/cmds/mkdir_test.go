package cmds

import (
	"context"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

var mkdirCases = []fuFileCase{
	{name: "simple", args: []string{"mkdir", "a"}},
	{name: "verbose", args: []string{"mkdir", "-v", "a", "b"}, wantOut: "mkdir: created directory 'a'\nmkdir: created directory 'b'\n"},
	{name: "parents verbose", files: map[string]string{"a/": ""}, args: []string{"mkdir", "-pv", "a/b/c"},
		wantOut: "mkdir: created directory 'a/b'\nmkdir: created directory 'a/b/c'\n"},
	{name: "parents existing", files: map[string]string{"a/": ""}, args: []string{"mkdir", "-p", "a"}},
	{name: "exists", files: map[string]string{"a/": ""}, args: []string{"mkdir", "a"},
		wantErr: "mkdir: cannot create directory 'a': File exists\n", wantStatus: 1},
	{name: "exists as file", files: map[string]string{"a": ""}, args: []string{"mkdir", "-p", "a"},
		wantErr: "mkdir: cannot create directory 'a': File exists\n", wantStatus: 1},
	{name: "parent is file", files: map[string]string{"a": ""}, args: []string{"mkdir", "-p", "a/b"},
		wantErr: "mkdir: cannot create directory 'a': Not a directory\n", wantStatus: 1},
	{name: "no parent", args: []string{"mkdir", "x/y", "z"},
		wantErr: "mkdir: cannot create directory 'x/y': No such file or directory\n", wantStatus: 1},
	{name: "missing operand", args: []string{"mkdir"}, wantErr: "mkdir: missing operand\nTry 'mkdir --help' for more information.\n", wantStatus: 1},
	{name: "invalid mode", args: []string{"mkdir", "-m", "9", "a"}, wantErr: "mkdir: invalid mode '9'\n", wantStatus: 1},
	{name: "invalid symbolic mode", args: []string{"mkdir", "-m", "ug+q", "a"}, wantErr: "mkdir: invalid mode 'ug+q'\n", wantStatus: 1},
	{name: "mode", args: []string{"mkdir", "-m", "700", "a"}},
}

func TestMkdir(t *testing.T)        { fuRunCases(t, mkdirCases) }
func TestMkdirConfirm(t *testing.T) { fuConfirmCases(t, mkdirCases, false) }

func TestMkdirModes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mkdir", "a"}, "drwxr-xr-x"},
		{[]string{"mkdir", "-m", "700", "a"}, "drwx------"},
		{[]string{"mkdir", "-m", "u+x,g-rx", "a"}, "drwx-w-rwx"},
		{[]string{"mkdir", "-m", "a=r", "a"}, "dr--r--r--"},
		{[]string{"mkdir", "-pm", "700", "a"}, "drwx------"},
	} {
		f := newStore(t, nil)
		if _, e, st := runIn(t, f, "/work", "", c.args...); st != 0 {
			t.Fatalf("%q: %s", c.args, e)
		}
		fi, err := f.Stat(context.Background(), "/work/a")
		if err != nil {
			t.Fatal(err)
		}
		if got := vfs.ModeString(fi.Attr().Mode); got != c.want {
			t.Errorf("%q: mode %s, want %s", c.args, got, c.want)
		}
	}
}
