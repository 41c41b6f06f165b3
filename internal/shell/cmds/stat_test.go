package cmds

import (
	"context"
	"strconv"
	"testing"
	"time"
)

var statTree = map[string]string{"f": "hi\n", "d/": "", "l": "->f", "e": "", "a b": "x", "it's": "->a b"}

var statCases = []fuFileCase{
	{name: "format basics", files: statTree, args: []string{"stat", "-c", "%n|%s|%a|%A|%F|%U|%G|%u|%g|%h|%b|%B|%o", "f", "d", "l", "e"},
		wantOut: "f|3|644|-rw-r--r--|regular file|root|root|0|0|1|8|512|4096\n" +
			"d|4096|755|drwxr-xr-x|directory|root|root|0|0|2|8|512|4096\n" +
			"l|1|777|lrwxrwxrwx|symbolic link|root|root|0|0|1|0|512|4096\n" +
			"e|0|644|-rw-r--r--|regular empty file|root|root|0|0|1|0|512|4096\n"},
	{name: "raw mode", files: statTree, args: []string{"stat", "-c", "%f", "f", "d", "l"}, wantOut: "81a4\n41ed\na1ff\n"},
	{name: "quoted name", files: statTree, args: []string{"stat", "-c", "%N", "f", "l", "a b", "it's"},
		wantOut: "'f'\n'l' -> 'f'\n'a b'\n\"it's\" -> 'a b'\n"},
	{name: "dereference", files: statTree, args: []string{"stat", "-L", "-c", "%n %s %F", "l"}, wantOut: "l 3 regular file\n"},
	{name: "long format option", files: statTree, args: []string{"stat", "--format=%s", "f"}, wantOut: "3\n"},
	{name: "printf escapes", files: statTree, args: []string{"stat", "--printf", `%n\t%s\n`, "f"}, wantOut: "f\t3\n"},
	{name: "printf no newline", files: statTree, args: []string{"stat", "--printf", "%s", "f", "e"}, wantOut: "30"},
	{name: "widths", files: statTree, args: []string{"stat", "-c", "%10s|%-5h|%05a|", "f"}, wantOut: "         3|1    |00644|\n"},
	{name: "unknown directive", files: statTree, args: []string{"stat", "-c", "%q %%", "f"}, wantOut: "? %\n"},
	{name: "missing", files: statTree, args: []string{"stat", "-c", "%n", "f", "nope"}, wantOut: "f\n",
		wantErr: "stat: cannot statx 'nope': No such file or directory\n", wantStatus: 1},
	{name: "no operand", args: []string{"stat"}, wantErr: "stat: missing operand\nTry 'stat --help' for more information.\n", wantStatus: 1},
	{name: "format needs argument", args: []string{"stat", "-c"}, wantErr: "stat: option requires an argument -- 'c'\nTry 'stat --help' for more information.\n", wantStatus: 1},
}

func TestStat(t *testing.T)        { fuRunCases(t, statCases) }
func TestStatConfirm(t *testing.T) { fuConfirmCases(t, statCases, false) }

// TestStatDefault checks the default report and the time directives on
// fixed times.
func TestStatDefault(t *testing.T) {
	ctx := context.Background()
	f := newStore(t, statTree)
	tm := time.Date(2024, 3, 2, 10, 20, 30, 123456789, time.UTC)
	for _, p := range []string{"/work/f", "/work/l", "/work/d"} {
		if err := f.Utimens(ctx, p, tm, tm, true); err != nil {
			t.Fatal(err)
		}
	}
	fi, _ := f.Lstat(ctx, "/work/f")
	a := fi.Attr()
	ino := func(p string) string {
		fi, _ := f.Lstat(ctx, p)
		return stItoa(fi.Attr().Ino)
	}
	ct := stTime(a.Ctime)
	bt := stTime(a.Btime)
	out, errs, st := runIn(t, f, "/work", "", "stat", "f")
	want := "  File: f\n  Size: 3         \tBlocks: 8          IO Block: 4096   regular file\n" +
		"Device: 0,0\tInode: " + stPad10(ino("/work/f")) + "  Links: 1\n" +
		"Access: (0644/-rw-r--r--)  Uid: (    0/    root)   Gid: (    0/    root)\n" +
		"Access: 2024-03-02 10:20:30.123456789 +0000\nModify: 2024-03-02 10:20:30.123456789 +0000\n" +
		"Change: " + ct + "\n Birth: " + bt + "\n"
	if out != want || errs != "" || st != 0 {
		t.Errorf("stat f:\n got %q %q %d\nwant %q", out, errs, st, want)
	}
	out, _, _ = runIn(t, f, "/work", "", "stat", "l")
	if want := "  File: l -> f\n  Size: 1         \tBlocks: 0          IO Block: 4096   symbolic link\n"; len(out) < len(want) || out[:len(want)] != want {
		t.Errorf("stat l: got %q", out)
	}
	out, _, _ = runIn(t, f, "/work", "", "stat", "-c", "%y|%Y|%.3Y|%x|%X", "f")
	if want := "2024-03-02 10:20:30.123456789 +0000|1709374830|1709374830.123|2024-03-02 10:20:30.123456789 +0000|1709374830\n"; out != want {
		t.Errorf("times: got %q want %q", out, want)
	}
	out, _, _ = runIn(t, f, "/work", "", "stat", "-t", "f")
	if want := "f 3 8 81a4 0 0 0 " + ino("/work/f") + " 1 0 0 1709374830 1709374830 " + stItoa(uint64(a.Ctime.Unix())) + " " + stItoa(uint64(a.Btime.Unix())) + " 4096\n"; out != want {
		t.Errorf("terse: got %q want %q", out, want)
	}
}

func stItoa(n uint64) string { return strconv.FormatUint(n, 10) }

func stPad10(s string) string {
	for len(s) < 10 {
		s += " "
	}
	return s
}
