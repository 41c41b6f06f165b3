package cmds

import "testing"

func TestEnv(t *testing.T) {
	e := map[string]string{"A": "1"}
	runTextRows(t, []textRow{
		{args: []string{"env"}, env: e, out: "A=1\nHOME=/work\nLANG=C.UTF-8\nUSER=user\n", skip: "the host has more variables"},
		{args: []string{"env", "-i"}, env: e},
		{args: []string{"env", "-i", "B=2", "C=3"}, env: e, out: "B=2\nC=3\n"},
		{args: []string{"env", "-", "B=2"}, env: e, out: "B=2\n"},
		{args: []string{"env", "-u", "HOME", "-u", "USER", "-u", "PATH", "-u", "LANG", "-u", "LC_ALL", "-u", "TZ"}, env: e, out: "A=1\n"},
		{args: []string{"env", "-i", "B=2", "printenv", "B"}, env: e, out: "2\n"},
		{args: []string{"env", "-i", "B=2", "env"}, env: e, out: "B=2\n"},
		{args: []string{"env", "X=y", "printenv", "X"}, env: e, out: "y\n"},
		{args: []string{"env", "-u", "A", "printenv", "A"}, env: e, code: 1},
		{args: []string{"env", "true"}, env: e},
		{args: []string{"env", "false"}, env: e, code: 1},
		{args: []string{"env", "-i", "-0", "B=2"}, env: e, out: "B=2\x00"},
		{args: []string{"env", "--foo"}, code: 125, errOut: "env: unrecognized option '--foo'\nTry 'env --help' for more information.\n"},
		{args: []string{"env", "nosuch"}, env: e, code: 127, errOut: "env: ‘nosuch’: No such file or directory\n"},
	})
}

func TestPrintenv(t *testing.T) {
	e := map[string]string{"A": "1"}
	runTextRows(t, []textRow{
		{args: []string{"printenv", "A"}, env: e, out: "1\n"},
		{args: []string{"printenv", "A", "HOME"}, env: e, out: "1\n/work\n"},
		{args: []string{"printenv", "NOPE"}, env: e, code: 1},
		{args: []string{"printenv", "A", "NOPE"}, env: e, out: "1\n", code: 1},
		{args: []string{"printenv"}, env: e, out: "A=1\nHOME=/work\nLANG=C.UTF-8\nUSER=user\n", skip: "the host has more variables"},
		{args: []string{"printenv", "-0", "A"}, env: e, out: "1\x00"},
	})
}
