package cmds

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

func TestSort(t *testing.T) {
	fx := map[string]string{
		"f":   "b 2\na 10\nc 1\n",
		"n":   "10\n9\n1\n-2\n",
		"u":   "b\na\nb\nA\n",
		"csv": "x,3,z\ny,1,a\nw,2,b\n",
		"v":   "file10\nfile2\nfile1.10\nfile1.2\n",
		"h":   "1K\n2M\n3\n1G\n",
		"d/":  "",
	}
	runTextRows(t, []textRow{
		{args: []string{"sort", "f"}, files: fx, out: "a 10\nb 2\nc 1\n"},
		{args: []string{"sort", "-m", "f", "n"}, files: fx, out: "10\n9\n1\n-2\nb 2\na 10\nc 1\n"},
		{args: []string{"sort", "-g"}, stdin: "1e3\n2\n-1.5\n0x10\n0x1p3\nx\n", out: "x\n-1.5\n2\n0x1p3\n0x10\n1e3\n"},
		{args: []string{"sort"}, stdin: "b\na\nc", out: "a\nb\nc\n"},
		{args: []string{"sort", "-r", "f"}, files: fx, out: "c 1\nb 2\na 10\n"},
		{args: []string{"sort", "-n", "n"}, files: fx, out: "-2\n1\n9\n10\n"},
		{args: []string{"sort", "-rn", "n"}, files: fx, out: "10\n9\n1\n-2\n"},
		{args: []string{"sort", "n"}, files: fx, out: "-2\n1\n10\n9\n"},
		{args: []string{"sort", "-k2n", "f"}, files: fx, out: "c 1\nb 2\na 10\n"},
		{args: []string{"sort", "-k", "2", "f"}, files: fx, out: "c 1\na 10\nb 2\n"},
		{args: []string{"sort", "-k2,2nr", "f"}, files: fx, out: "a 10\nb 2\nc 1\n"},
		{args: []string{"sort", "-t", ",", "-k2", "csv"}, files: fx, out: "y,1,a\nw,2,b\nx,3,z\n"},
		{args: []string{"sort", "-t,", "-k3,3", "csv"}, files: fx, out: "y,1,a\nw,2,b\nx,3,z\n"},
		{args: []string{"sort", "-u", "u"}, files: fx, out: "A\na\nb\n"},
		{args: []string{"sort", "-f", "u"}, files: fx, out: "A\na\nb\nb\n"},
		{args: []string{"sort", "-fu", "u"}, files: fx, out: "a\nb\n"},
		{args: []string{"sort", "-V", "v"}, files: fx, out: "file1.2\nfile1.10\nfile2\nfile10\n"},
		{args: []string{"sort", "-h", "h"}, files: fx, out: "3\n1K\n2M\n1G\n"},
		{args: []string{"sort", "-s", "-k1,1", "-t", " "}, stdin: "b 1\na 2\nb 0\na 1\n", out: "a 2\na 1\nb 1\nb 0\n"},
		{args: []string{"sort", "-k1,1", "-t", " "}, stdin: "b 1\na 2\nb 0\na 1\n", out: "a 1\na 2\nb 0\nb 1\n"},
		{args: []string{"sort", "-n", "-k1,1", "-k1r"}, stdin: "10\n9\n", out: "9\n10\n"},
		{args: []string{"sort", "-b", "-k2"}, stdin: "x   b\ny a\n", out: "y a\nx   b\n"},
		{args: []string{"sort", "-k2"}, stdin: "x   b\ny a\n", out: "x   b\ny a\n"},
		{args: []string{"sort", "-g"}, stdin: "1e3\n5\n-1.5\nabc\n", out: "abc\n-1.5\n5\n1e3\n"},
		{args: []string{"sort", "-M"}, stdin: "Mar\nJan\nfeb\n", out: "Jan\nfeb\nMar\n"},
		{args: []string{"sort", "-z"}, stdin: "b\x00a\x00", out: "a\x00b\x00"},
		{args: []string{"sort", "f", "n"}, files: fx, out: "-2\n1\n10\n9\na 10\nb 2\nc 1\n"},
		{name: "output file", args: []string{"sort", "-o", "f", "f"}, files: fx, out: ""},
		{args: []string{"sort", "-c", "n"}, files: fx, code: 1, errOut: "sort: n:3: disorder: 1\n"},
		{args: []string{"sort", "-C", "n"}, files: fx, code: 1},
		{args: []string{"sort", "-c", "-n", "-r", "n"}, files: fx},
		{args: []string{"sort", "-cu"}, stdin: "a\na\n", code: 1, errOut: "sort: -:2: disorder: a\n"},
		{args: []string{"sort", "x"}, code: 2, errOut: "sort: cannot read: x: No such file or directory\n"},
		{args: []string{"sort", "d"}, files: fx, code: 2, errOut: "sort: read failed: d: Is a directory\n"},
		{args: []string{"sort", "-k", "0"}, code: 2, errOut: "sort: field number is zero: invalid field specification ‘0’\n"},
		{args: []string{"sort", "-k", "1.x"}, code: 2, errOut: "sort: invalid number after '.': invalid count at start of ‘x’\n"},
		{args: []string{"sort", "-t", "ab"}, code: 2, errOut: "sort: multi-character tab ‘ab’\n"},
		{args: []string{"sort", "-Z"}, code: 2, errOut: "sort: invalid option -- 'Z'\nTry 'sort --help' for more information.\n"},
	})
	f := newStore(t, map[string]string{"f": "b\na\n"})
	if _, e, c := runIn(t, f, "/work", "", "sort", "-o", "f", "f"); c != 0 || readFile(t, f, "/work/f") != "a\nb\n" {
		t.Fatalf("sort -o f f: %d %s %q", c, e, readFile(t, f, "/work/f"))
	}
	_, e, c := runLimited(t, 4, "sort", "abcdefgh\n")
	if c != 2 || e != "sort: read failed: -: "+ErrTooLarge.Error()+"\n" {
		t.Fatalf("limit: %d %q", c, e)
	}
}

// runLimited runs a command with Limits.MaxReadBytes set to max.
func runLimited(t *testing.T, max int64, name, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytesBuffer
	f := newStore(t, nil)
	env := &Env{Ctx: t.Context(), FS: f, Dir: "/work", Stdin: stringsReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Environ: func() []string { return nil },
		Limits: Limits{MaxReadBytes: max}}
	fn, _ := Lookup(name)
	code := fn(env, append([]string{name}, args...))
	return out.String(), errb.String(), code
}

// TestSortPlain: the numeric-prefix sort orders as bytes.Compare does,
// lines that share 8 bytes, short lines and zero bytes included.
func TestSortPlain(t *testing.T) {
	words := []string{"", "a", "a\x00", "a\x00\x00", "ab", "abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefgg", "\xff", "\xff\xff\xff\xff\xff\xff\xff\xff\x01", "\xff\xff\xff\xff\xff\xff\xff\xff", "B", "b", "é", "e"}
	for _, rev := range []bool{false, true} {
		var lines [][]byte
		for range 3 {
			for i := len(words) - 1; i >= 0; i-- {
				lines = append(lines, []byte(words[i]))
			}
		}
		want := slices.Clone(lines)
		slices.SortFunc(want, func(a, b []byte) int {
			if rev {
				return bytes.Compare(b, a)
			}
			return bytes.Compare(a, b)
		})
		if !sortPlain(lines, rev, func() bool { return false }) {
			t.Fatal("sortPlain stopped")
		}
		if !slices.EqualFunc(lines, want, bytes.Equal) {
			t.Errorf("rev %v: %q, want %q", rev, lines, want)
		}
	}
	var many [][]byte
	for i := range 10000 {
		many = append(many, []byte(fmt.Sprint(10000-i)))
	}
	if sortPlain(many, false, func() bool { return true }) {
		t.Error("a canceled sort reports done")
	}
}
