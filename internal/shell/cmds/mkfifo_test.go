package cmds

import (
	"context"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

var mkfifoCases = []fuFileCase{
	{name: "simple", args: []string{"mkfifo", "a", "b"}},
	{name: "exists", files: map[string]string{"a": ""}, args: []string{"mkfifo", "a"},
		wantErr: "mkfifo: cannot create fifo 'a': File exists\n", wantStatus: 1},
	{name: "exists as dir", files: map[string]string{"a/": ""}, args: []string{"mkfifo", "a", "b"},
		wantErr: "mkfifo: cannot create fifo 'a': File exists\n", wantStatus: 1},
	{name: "no parent", args: []string{"mkfifo", "x/y"},
		wantErr: "mkfifo: cannot create fifo 'x/y': No such file or directory\n", wantStatus: 1},
	{name: "parent is file", files: map[string]string{"a": ""}, args: []string{"mkfifo", "a/b"},
		wantErr: "mkfifo: cannot create fifo 'a/b': Not a directory\n", wantStatus: 1},
	{name: "missing operand", args: []string{"mkfifo"}, wantErr: "mkfifo: missing operand\nTry 'mkfifo --help' for more information.\n", wantStatus: 1},
	{name: "invalid mode", args: []string{"mkfifo", "-m", "9", "a"}, wantErr: "mkfifo: invalid mode\n", wantStatus: 1},
	{name: "mode", args: []string{"mkfifo", "-m", "600", "a"}},
}

func TestMkfifo(t *testing.T)        { fuRunCases(t, mkfifoCases) }
func TestMkfifoConfirm(t *testing.T) { fuConfirmCases(t, mkfifoCases, false) }

func TestMkfifoModes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mkfifo", "a"}, "prw-r--r--"},
		{[]string{"mkfifo", "-m", "600", "a"}, "prw-------"},
		{[]string{"mkfifo", "-m", "u+x,g-r", "a"}, "prwx-w-rw-"},
		{[]string{"mkfifo", "-m", "a=r", "a"}, "pr--r--r--"},
	} {
		f := newStore(t, nil)
		if _, e, st := runIn(t, f, "/work", "", c.args...); st != 0 {
			t.Fatalf("%q: %s", c.args, e)
		}
		fi, err := f.Lstat(context.Background(), "/work/a")
		if err != nil {
			t.Fatal(err)
		}
		if got := vfs.ModeString(fi.Attr().Mode); got != c.want {
			t.Errorf("%q: mode %s, want %s", c.args, got, c.want)
		}
	}
	// The shell backend cannot open one: cat says so as GNU cat would of a
	// device without a driver.
	f := newStore(t, nil)
	if _, e, st := runIn(t, f, "/work", "", "mkfifo", "p"); st != 0 {
		t.Fatal(e)
	}
	if _, e, st := runIn(t, f, "/work", "", "cat", "p"); st != 1 || e != "cat: p: No such device or address\n" {
		t.Errorf("cat of a FIFO: status %d, stderr %q", st, e)
	}
}
