package cmds

import (
	"context"
	"testing"
)

var chmodCases = []fuFileCase{
	{name: "octal verbose", files: map[string]string{"f": ""}, args: []string{"chmod", "-v", "755", "f"},
		wantOut: "mode of 'f' changed from 0644 (rw-r--r--) to 0755 (rwxr-xr-x)\n"},
	{name: "retained", files: map[string]string{"f": ""}, args: []string{"chmod", "-v", "644", "f"},
		wantOut: "mode of 'f' retained as 0644 (rw-r--r--)\n"},
	{name: "changes only", files: map[string]string{"f": "", "g": ""}, args: []string{"chmod", "-c", "u+x", "f"},
		wantOut: "mode of 'f' changed from 0644 (rw-r--r--) to 0744 (rwxr--r--)\n"},
	{name: "symbolic", files: map[string]string{"f": ""}, args: []string{"chmod", "-v", "u+x,go-r", "f"},
		wantOut: "mode of 'f' changed from 0644 (rw-r--r--) to 0700 (rwx------)\n"},
	{name: "a equals", files: map[string]string{"f": ""}, args: []string{"chmod", "-v", "a=r", "f"},
		wantOut: "mode of 'f' changed from 0644 (rw-r--r--) to 0444 (r--r--r--)\n"},
	{name: "plus x no who", files: map[string]string{"f": ""}, args: []string{"chmod", "-v", "+x", "f"},
		wantOut: "mode of 'f' changed from 0644 (rw-r--r--) to 0755 (rwxr-xr-x)\n"},
	{name: "dash mode", files: map[string]string{"f": ""}, args: []string{"chmod", "-v", "-r", "f"},
		wantOut: "mode of 'f' changed from 0644 (rw-r--r--) to 0200 (-w-------)\n"},
	{name: "copy who", files: map[string]string{"f": ""}, args: []string{"chmod", "-v", "g=u", "f"},
		wantOut: "mode of 'f' changed from 0644 (rw-r--r--) to 0664 (rw-rw-r--)\n"},
	{name: "recursive X", files: map[string]string{"d/f": "", "d/s/": ""}, args: []string{"chmod", "-Rv", "go-rX", "d"},
		wantOut: "mode of 'd' changed from 0755 (rwxr-xr-x) to 0700 (rwx------)\nmode of 'd/f' changed from 0644 (rw-r--r--) to 0600 (rw-------)\nmode of 'd/s' changed from 0755 (rwxr-xr-x) to 0700 (rwx------)\n",
		real:    "directory order"},
	{name: "sticky", files: map[string]string{"d/": ""}, args: []string{"chmod", "-v", "+t", "d"},
		wantOut: "mode of 'd' changed from 0755 (rwxr-xr-x) to 1755 (rwxr-xr-t)\n"},
	{name: "invalid", files: map[string]string{"f": ""}, args: []string{"chmod", "999", "f"},
		wantErr: "chmod: invalid mode: '999'\nTry 'chmod --help' for more information.\n", wantStatus: 1},
	{name: "missing operand", args: []string{"chmod"}, wantErr: "chmod: missing operand\nTry 'chmod --help' for more information.\n", wantStatus: 1},
	{name: "missing file operand", args: []string{"chmod", "644"}, wantErr: "chmod: missing operand after '644'\nTry 'chmod --help' for more information.\n", wantStatus: 1},
	{name: "missing file", args: []string{"chmod", "644", "nope"}, wantErr: "chmod: cannot access 'nope': No such file or directory\n", wantStatus: 1},
	{name: "silent", args: []string{"chmod", "-f", "644", "nope"}, wantStatus: 1},
}

func TestChmod(t *testing.T)        { fuRunCases(t, chmodCases) }
func TestChmodConfirm(t *testing.T) { fuConfirmCases(t, chmodCases, false) }

func TestChmodResult(t *testing.T) {
	f := newStore(t, map[string]string{"f": ""})
	if _, e, st := runIn(t, f, "/work", "", "chmod", "u=rwx,g=rx,o=", "f"); st != 0 {
		t.Fatal(e)
	}
	fi, _ := f.Stat(context.Background(), "/work/f")
	if m := fi.Attr().Mode & 0o7777; m != 0o750 {
		t.Errorf("mode %o", m)
	}
}
