package cmds

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

var mktempCases = []fuFileCase{
	{name: "too few X", args: []string{"mktemp", "foo"}, wantErr: "mktemp: too few X's in template 'foo'\n", wantStatus: 1},
	{name: "too many templates", args: []string{"mktemp", "aXXX", "bXXX"}, wantErr: "mktemp: too many templates\nTry 'mktemp --help' for more information.\n", wantStatus: 1},
	{name: "missing dir", args: []string{"mktemp", "nope/x.XXX"}, wantErr: "mktemp: failed to create file via template 'nope/x.XXX': No such file or directory\n", wantStatus: 1},
	{name: "missing dir directory", args: []string{"mktemp", "-d", "nope/x.XXX"}, wantErr: "mktemp: failed to create directory via template 'nope/x.XXX': No such file or directory\n", wantStatus: 1},
	{name: "t with slash", args: []string{"mktemp", "-t", "a/XXX"}, wantErr: "mktemp: invalid template, 'a/XXX', contains directory separator\n", wantStatus: 1},
	{name: "quiet", args: []string{"mktemp", "-q", "nope/XXX"}, wantStatus: 1},
}

func TestMktempErrors(t *testing.T)        { fuRunCases(t, mktempCases) }
func TestMktempErrorsConfirm(t *testing.T) { fuConfirmCases(t, mktempCases, false) }

func TestMktemp(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		args  []string
		tmp   string // TMPDIR
		re    string
		isDir bool
	}{
		{args: []string{"mktemp"}, re: `^/tmp/tmp\.[A-Za-z0-9]{10}$`},
		{args: []string{"mktemp", "-d"}, re: `^/tmp/tmp\.[A-Za-z0-9]{10}$`, isDir: true},
		{args: []string{"mktemp"}, tmp: "/work/t", re: `^/work/t/tmp\.[A-Za-z0-9]{10}$`},
		{args: []string{"mktemp", "fooXXX"}, re: `^foo[A-Za-z0-9]{3}$`},
		{args: []string{"mktemp", "-d", "dXXXX"}, re: `^d[A-Za-z0-9]{4}$`, isDir: true},
		{args: []string{"mktemp", "-t", "x.XXX"}, re: `^/tmp/x\.[A-Za-z0-9]{3}$`},
		{args: []string{"mktemp", "-t", "x.XXX"}, tmp: "/var/tmp", re: `^/var/tmp/x\.[A-Za-z0-9]{3}$`},
		{args: []string{"mktemp", "--suffix=.txt", "yXXX"}, re: `^y[A-Za-z0-9]{3}\.txt$`},
		{args: []string{"mktemp", "zXXX.go"}, re: `^z[A-Za-z0-9]{3}\.go$`},
		{args: []string{"mktemp", "-p", "sub", "zXXX"}, re: `^sub/z[A-Za-z0-9]{3}$`},
		{args: []string{"mktemp", "--tmpdir", "qXXX"}, re: `^/tmp/q[A-Za-z0-9]{3}$`},
	} {
		f := newStore(t, map[string]string{"sub/": ""})
		var out, errb strings.Builder
		env := &Env{Ctx: ctx, FS: f, Dir: "/work", Stdout: &out, Stderr: &errb,
			Getenv: func(n string) string {
				if n == "TMPDIR" {
					return c.tmp
				}
				return ""
			}}
		st := Mktemp(env, c.args)
		name := strings.TrimSuffix(out.String(), "\n")
		if st != 0 || errb.Len() > 0 || !regexp.MustCompile(c.re).MatchString(name) {
			t.Errorf("%q: got %q %q %d, want /%s/", c.args, out.String(), errb.String(), st, c.re)
			continue
		}
		fi, err := f.Lstat(ctx, env.Abs(name))
		if err != nil {
			t.Errorf("%q: %s not created: %v", c.args, name, err)
			continue
		}
		a := fi.Attr()
		wantMode := uint32(0o600)
		if c.isDir {
			wantMode = 0o700
		}
		if a.IsDir() != c.isDir || a.Mode&0o7777 != wantMode {
			t.Errorf("%q: mode %o", c.args, a.Mode)
		}
		if strings.HasPrefix(name, "/tmp/") {
			ti, _ := f.Stat(ctx, "/tmp")
			if ti.Attr().Mode&0o7777 != 0o1777 {
				t.Errorf("/tmp mode %o", ti.Attr().Mode)
			}
		}
	}
}

func TestMktempDryRun(t *testing.T) {
	f := newStore(t, nil)
	out, _, st := runIn(t, f, "/work", "", "mktemp", "-u", "aXXXX")
	name := strings.TrimSpace(out)
	if st != 0 || len(name) != 5 {
		t.Fatalf("got %q %d", out, st)
	}
	if _, err := f.Lstat(context.Background(), "/work/"+name); err == nil {
		t.Errorf("-u created %s", name)
	}
}
