package cmds

import (
	"context"
	"testing"
	"time"
)

var touchCases = []fuFileCase{
	{name: "create", args: []string{"touch", "a", "b"}},
	{name: "existing", files: map[string]string{"a": "x"}, args: []string{"touch", "a"}},
	{name: "no create", args: []string{"touch", "-c", "nope"}},
	{name: "no dir", args: []string{"touch", "a/b"}, wantErr: "touch: cannot touch 'a/b': No such file or directory\n", wantStatus: 1},
	{name: "bad date", args: []string{"touch", "-d", "garbage", "x"}, wantErr: "touch: invalid date format 'garbage'\n", wantStatus: 1},
	{name: "bad stamp", args: []string{"touch", "-t", "2020", "x"}, wantErr: "touch: invalid date format '2020'\n", wantStatus: 1},
	{name: "missing operand", args: []string{"touch"}, wantErr: "touch: missing file operand\nTry 'touch --help' for more information.\n", wantStatus: 1},
	{name: "missing reference", args: []string{"touch", "-r", "nope", "x"}, wantErr: "touch: failed to get attributes of 'nope': No such file or directory\n", wantStatus: 1},
}

func TestTouch(t *testing.T)        { fuRunCases(t, touchCases) }
func TestTouchConfirm(t *testing.T) { fuConfirmCases(t, touchCases, false) }

func TestTouchTimes(t *testing.T) {
	ctx := context.Background()
	want := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, args := range [][]string{
		{"touch", "-d", "2020-01-02 03:04:05", "f"},
		{"touch", "-d", "2020-01-02T03:04:05Z", "f"},
		{"touch", "-d", "@1577934245", "f"},
		{"touch", "-t", "202001020304.05", "f"},
		{"touch", "-m", "-t", "2001020304.05", "f"},
		{"touch", "-r", "ref", "f"},
	} {
		f := newStore(t, map[string]string{"f": "x"})
		f.WriteFile(ctx, "/work/ref", nil, 0o644)
		f.Chtimes(ctx, "/work/ref", want, want)
		if _, e, st := runIn(t, f, "/work", "", args...); st != 0 {
			t.Fatalf("%q: %s", args, e)
		}
		fi, _ := f.Stat(ctx, "/work/f")
		if !fi.ModTime().Equal(want) {
			t.Errorf("%q: mtime %v", args, fi.ModTime())
		}
		a := fi.Attr()
		if args[1] == "-m" && a.Atime.Equal(want) {
			t.Errorf("-m changed atime")
		}
	}
}
