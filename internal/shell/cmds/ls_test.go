package cmds

import (
	"context"
	"strings"
	"testing"
	"time"
)

var lsTree = map[string]string{"b.txt": "bb\n", "a.txt": "a\n", ".hidden": "h", "dir/": "", "dir/x": "xx", "dir/sub/": "", "link": "->a.txt"}

var lsCases = []fuFileCase{
	{name: "plain", files: lsTree, args: []string{"ls"}, wantOut: "a.txt\nb.txt\ndir\nlink\n"},
	{name: "one per line", files: lsTree, args: []string{"ls", "-1"}, wantOut: "a.txt\nb.txt\ndir\nlink\n"},
	{name: "all", files: lsTree, args: []string{"ls", "-a"}, wantOut: ".\n..\n.hidden\na.txt\nb.txt\ndir\nlink\n"},
	{name: "almost all", files: lsTree, args: []string{"ls", "-A"}, wantOut: ".hidden\na.txt\nb.txt\ndir\nlink\n"},
	{name: "reverse", files: lsTree, args: []string{"ls", "-r"}, wantOut: "link\ndir\nb.txt\na.txt\n"},
	{name: "classify", files: lsTree, args: []string{"ls", "-F"}, wantOut: "a.txt\nb.txt\ndir/\nlink@\n"},
	{name: "slash", files: lsTree, args: []string{"ls", "-p"}, wantOut: "a.txt\nb.txt\ndir/\nlink\n"},
	{name: "size sort", files: map[string]string{"s": "1", "m": "22", "l": "333"}, args: []string{"ls", "-S"}, wantOut: "l\nm\ns\n"},
	{name: "size sort reversed", files: map[string]string{"s": "1", "m": "22", "l": "333"}, args: []string{"ls", "-Sr"}, wantOut: "s\nm\nl\n"},
	{name: "recursive", files: lsTree, args: []string{"ls", "-R"}, wantOut: ".:\na.txt\nb.txt\ndir\nlink\n\n./dir:\nsub\nx\n\n./dir/sub:\n"},
	{name: "recursive operand", files: lsTree, args: []string{"ls", "-R", "dir"}, wantOut: "dir:\nsub\nx\n\ndir/sub:\n"},
	{name: "dir operand", files: lsTree, args: []string{"ls", "dir"}, wantOut: "sub\nx\n"},
	{name: "files then dirs", files: lsTree, args: []string{"ls", "dir", "b.txt", "a.txt"}, wantOut: "a.txt\nb.txt\n\ndir:\nsub\nx\n"},
	{name: "two dirs", files: lsTree, args: []string{"ls", "dir/sub", "dir"}, wantOut: "dir:\nsub\nx\n\ndir/sub:\n"},
	{name: "directory flag", files: lsTree, args: []string{"ls", "-d", "dir", "."}, wantOut: ".\ndir\n"},
	{name: "trailing slash", files: lsTree, args: []string{"ls", "dir/"}, wantOut: "sub\nx\n"},
	{name: "file path as typed", files: lsTree, args: []string{"ls", "dir/x", "./a.txt"}, wantOut: "./a.txt\ndir/x\n"},
	{name: "symlink to dir operand", files: map[string]string{"d/": "", "d/f": "", "ld": "->d"}, args: []string{"ls", "ld"}, wantOut: "f\n"},
	{name: "symlink to dir with -F", files: map[string]string{"d/": "", "d/f": "", "ld": "->d"}, args: []string{"ls", "-F", "ld"}, wantOut: "ld@\n"},
	{name: "missing", files: lsTree, args: []string{"ls", "nope", "a.txt"}, wantOut: "a.txt\n",
		wantErr: "ls: cannot access 'nope': No such file or directory\n", wantStatus: 2},
	{name: "not a directory", files: lsTree, args: []string{"ls", "a.txt/"},
		wantErr: "ls: cannot access 'a.txt/': Not a directory\n", wantStatus: 2},
	{name: "bad option", args: []string{"ls", "-y"}, wantErr: "ls: invalid option -- 'y'\nTry 'ls --help' for more information.\n", wantStatus: 2},
	{name: "empty dir", files: map[string]string{"e/": ""}, args: []string{"ls", "e"}},
	{name: "extension sort", files: map[string]string{"b.txt": "", "a.md": "", "c": "", "d.md": ""}, args: []string{"ls", "-X"}, wantOut: "c\na.md\nd.md\nb.txt\n"},
	{name: "commas", files: lsTree, args: []string{"ls", "-mF"}, wantOut: "a.txt, b.txt, dir/, link@\n"},
	{name: "commas wrap", files: map[string]string{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaa1": "", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa2": "", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa3": ""},
		args: []string{"ls", "-m"}, wantOut: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa1, aaaaaaaaaaaaaaaaaaaaaaaaaaaaa2,\naaaaaaaaaaaaaaaaaaaaaaaaaaaaa3\n"},
	{name: "quote name", files: map[string]string{"a b": "", "q\"": "", "t\tx": ""}, args: []string{"ls", "-Q"}, wantOut: "\"a b\"\n\"q\\\"\"\n\"t\\tx\"\n"},
	{name: "time style unchecked without -l", args: []string{"ls", "--time-style=bogus"}},
	{name: "bad time style", args: []string{"ls", "-l", "--time-style=bogus"}, wantStatus: 2,
		wantErr: "ls: invalid argument 'bogus' for 'time style'\nValid arguments are:\n  - [posix-]full-iso\n  - [posix-]long-iso\n  - [posix-]iso\n  - [posix-]locale\n  - +FORMAT (e.g., +%H:%M) for a 'date'-style format\nTry 'ls --help' for more information.\n"},
	{name: "absolute", files: map[string]string{"/w/a": ""}, args: []string{"ls", "/w"}, wantOut: "a\n", real: "absolute path"},
}

func TestLs(t *testing.T)        { fuRunCases(t, lsCases) }
func TestLsConfirm(t *testing.T) { fuConfirmCases(t, lsCases, false) }

// TestLsLong checks the long format on fixed times.
func TestLsLong(t *testing.T) {
	ctx := context.Background()
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	recent := time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)
	rt := recent.Format("Jan _2 15:04")
	cases := []struct {
		name             string
		files            map[string]string
		stdin            string
		args             []string
		wantOut, wantErr string
		wantStatus       int
	}{
		{name: "long", files: map[string]string{"f": "hello", "d/": "", "l": "->f", "big": strings.Repeat("x", 5000)},
			args: []string{"ls", "-l"}, wantOut: "total 12\n" +
				"-rw-r--r-- 1 root root 5000 Jan  2  2020 big\n" +
				"drwxr-xr-x 2 root root 4096 Jan  2  2020 d\n" +
				"-rw-r--r-- 1 root root    5 " + rt + " f\n" +
				"lrwxrwxrwx 1 root root    1 Jan  2  2020 l -> f\n"},
		{name: "long human", files: map[string]string{"f": "hello", "big": strings.Repeat("x", 5000)},
			args: []string{"ls", "-lh"}, wantOut: "total 12K\n" +
				"-rw-r--r-- 1 root root 4.9K Jan  2  2020 big\n" +
				"-rw-r--r-- 1 root root    5 " + rt + " f\n"},
		{name: "long time sort", files: map[string]string{"f": "hello", "g": "x"},
			args: []string{"ls", "-lt"}, wantOut: "total 8\n" +
				"-rw-r--r-- 1 root root 5 " + rt + " f\n" +
				"-rw-r--r-- 1 root root 1 Jan  2  2020 g\n"},
		{name: "time sort reversed", files: map[string]string{"f": "hello", "g": "x"},
			args: []string{"ls", "-tr"}, wantOut: "g\nf\n"},
		{name: "long dir itself", files: map[string]string{"d/": "", "d/s/": ""},
			args: []string{"ls", "-ld", "d"}, wantOut: "drwxr-xr-x 3 root root 4096 Jan  2  2020 d\n"},
		{name: "long all", files: map[string]string{"d/": ""},
			args: []string{"ls", "-la", "d"}, wantOut: "total 0\n" +
				"drwxr-xr-x 2 root root 4096 Jan  2  2020 .\n" +
				"drwxr-xr-x 3 root root 4096 Jan  2  2020 ..\n"},
		{name: "full time", files: map[string]string{"g": "x"},
			args: []string{"ls", "--full-time", "g"}, wantOut: "-rw-r--r-- 1 root root 1 2020-01-02 03:04:05.000000000 +0000 g\n"},
		{name: "time style format", files: map[string]string{"g": "x"},
			args: []string{"ls", "-l", "--time-style=+%Y/%m/%d", "g"}, wantOut: "-rw-r--r-- 1 root root 1 2020/01/02 g\n"},
		{name: "time style long-iso", files: map[string]string{"g": "x"},
			args: []string{"ls", "-l", "--time-style=long-iso", "g"}, wantOut: "-rw-r--r-- 1 root root 1 2020-01-02 03:04 g\n"},
		{name: "time style iso", files: map[string]string{"g": "x", "f": "y"},
			args: []string{"ls", "-l", "--time-style=iso", "f", "g"}, wantOut: "-rw-r--r-- 1 root root 1 " + recent.Format("01-02 15:04") + " f\n" +
				"-rw-r--r-- 1 root root 1 2020-01-02  g\n"},
		{name: "long classify", files: map[string]string{"d/": "", "l": "->d"},
			args: []string{"ls", "-lF"}, wantOut: "total 0\n" +
				"drwxr-xr-x 2 root root 4096 Jan  2  2020 d/\n" +
				"lrwxrwxrwx 1 root root    1 Jan  2  2020 l -> d/\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newStore(t, c.files)
			for _, p := range []string{"/work", "/work/d", "/work/d/s", "/work/big", "/work/f", "/work/g", "/work/l"} {
				tm := old
				if p == "/work/f" {
					tm = recent
				}
				f.Utimens(ctx, p, tm, tm, true)
			}
			out, errs, st := runIn(t, f, "/work", c.stdin, c.args...)
			if out != c.wantOut || errs != c.wantErr || st != c.wantStatus {
				t.Errorf("%q:\n got out=%q err=%q status=%d\nwant out=%q err=%q status=%d", c.args, out, errs, st, c.wantOut, c.wantErr, c.wantStatus)
			}
		})
	}
}
