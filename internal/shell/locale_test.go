package shell

import (
	"context"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestDefaultLocale: LANG defaults to C.UTF-8 when the job sets neither
// LANG nor LC_ALL, and commands quote by the locale they are given.
func TestDefaultLocale(t *testing.T) {
	b := New(Options{})
	script := `echo "[$LANG]"; head -n x; rm 'a b'`
	for _, c := range []struct {
		env  map[string]string
		out  string
		errs string
	}{
		{nil, "[C.UTF-8]\n", "head: invalid number of lines: ‘x’\nrm: cannot remove 'a b': No such file or directory\n"},
		{map[string]string{"LANG": "C"}, "[C]\n", "head: invalid number of lines: 'x'\nrm: cannot remove 'a b': No such file or directory\n"},
		{map[string]string{"LC_ALL": "C"}, "[]\n", "head: invalid number of lines: 'x'\nrm: cannot remove 'a b': No such file or directory\n"},
		{map[string]string{"LC_ALL": "C.UTF-8"}, "[]\n", "head: invalid number of lines: ‘x’\nrm: cannot remove 'a b': No such file or directory\n"},
		{map[string]string{"LANG": "", "LC_CTYPE": "C.UTF-8"}, "[]\n", "head: invalid number of lines: ‘x’\nrm: cannot remove 'a b': No such file or directory\n"},
	} {
		var out, errb testenv.SyncBuffer
		job := &run.Job{
			ID: "test", Backend: "shell", Source: script, Cwd: "/work", Env: c.env,
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, FS: newStore(t, nil),
		}
		if _, err := b.Run(vfs.WithActor(context.Background(), "test"), job); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.out || errb.String() != c.errs {
			t.Errorf("env %v:\n got out=%q err=%q\nwant out=%q err=%q", c.env, out.String(), errb.String(), c.out, c.errs)
		}
	}
}
