package cmds

import (
	"context"
	"strings"
	"testing"
)

func TestPwd(t *testing.T) {
	f := newStore(t, map[string]string{"real/": "", "ln": "->real"})
	for _, c := range []struct {
		dir, pwd string
		args     []string
		out, err string
		status   int
	}{
		{dir: "/work", args: []string{"pwd"}, out: "/work\n"},
		{dir: "/work/ln", pwd: "/work/ln", args: []string{"pwd"}, out: "/work/real\n"},
		{dir: "/work/ln", pwd: "/work/ln", args: []string{"pwd", "-P"}, out: "/work/real\n"},
		{dir: "/work/ln", pwd: "/work/ln", args: []string{"pwd", "-L"}, out: "/work/ln\n"},
		{dir: "/work/ln", pwd: "/work/../work/ln", args: []string{"pwd", "-L"}, out: "/work/real\n"},
		{dir: "/work/real", pwd: "/elsewhere", args: []string{"pwd", "-L"}, out: "/work/real\n"},
		{dir: "/work", args: []string{"pwd", "x"}, out: "/work\n", err: "pwd: ignoring non-option arguments\n"},
		{dir: "/work", args: []string{"pwd", "-y"}, err: "pwd: invalid option -- 'y'\nTry 'pwd --help' for more information.\n", status: 1},
	} {
		var out, errb strings.Builder
		env := &Env{Ctx: context.Background(), FS: f, Dir: c.dir, Stdout: &out, Stderr: &errb,
			Getenv: func(n string) string {
				if n == "PWD" {
					return c.pwd
				}
				return ""
			}}
		st := Pwd(env, c.args)
		if out.String() != c.out || errb.String() != c.err || st != c.status {
			t.Errorf("%s %q: got %q %q %d", c.dir, c.args, out.String(), errb.String(), st)
		}
	}
}
