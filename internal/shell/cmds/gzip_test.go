package cmds

import (
	"context"
	"testing"
	"time"
)

// Fixtures made by the real tools (gzip 1.12, GNU tar 1.34): a.gz holds
// "hello\n" with name "a" and mtime 2026-11-30 01:02:03 UTC.
const gzFixtureA = "\x1f\x8b\x08\x08\x0b\xcb\x0ck\x00\x03a\x00\xcbH\xcd\xc9\xc9\xe7\x02\x00 0:6\x06\x00\x00\x00"

func TestGzipRows(t *testing.T) {
	rows := []textRow{
		{name: "missing", args: []string{"gzip", "x"}, errOut: "gzip: x: No such file or directory\n", code: 1},
		{name: "missing -d", args: []string{"gzip", "-d", "x"}, errOut: "gzip: x.gz: No such file or directory\n", code: 1},
		{name: "zcat missing", args: []string{"zcat", "x"}, errOut: "gzip: x.gz: No such file or directory\n", code: 1},
		{name: "unknown suffix", files: map[string]string{"a": "hi\n"}, args: []string{"gunzip", "a"},
			errOut: "gzip: a: unknown suffix -- ignored\n", code: 2},
		{name: "already gz", files: map[string]string{"a.gz": gzFixtureA}, args: []string{"gzip", "a.gz"},
			errOut: "gzip: a.gz already has .gz suffix -- unchanged\n"},
		{name: "exists", files: map[string]string{"a": "x", "a.gz": gzFixtureA}, args: []string{"gzip", "-k", "a"},
			errOut: "gzip: a.gz already exists;\tnot overwritten\n", code: 2},
		{name: "dir", files: map[string]string{"d/": ""}, args: []string{"gzip", "d"},
			errOut: "gzip: d is a directory -- ignored\n", code: 2},
		{name: "zcat", files: map[string]string{"a.gz": gzFixtureA}, args: []string{"zcat", "a.gz"}, out: "hello\n"},
		{name: "zcat no suffix arg", files: map[string]string{"a.gz": gzFixtureA}, args: []string{"zcat", "a"}, out: "hello\n"},
		{name: "stdin", stdin: gzFixtureA, args: []string{"gzip", "-d"}, out: "hello\n"},
		{name: "stdin dash", stdin: gzFixtureA, args: []string{"zcat", "-"}, out: "hello\n"},
		{name: "concatenated", files: map[string]string{"z.gz": gzFixtureA + gzFixtureA}, args: []string{"zcat", "z.gz"}, out: "hello\nhello\n"},
		{name: "trailing", files: map[string]string{"z.gz": gzFixtureA + "junk\n"}, args: []string{"zcat", "z.gz"},
			out: "hello\n", errOut: "\ngzip: z.gz: decompression OK, trailing garbage ignored\n", code: 2},
		{name: "not gzip", files: map[string]string{"g.gz": "garbage\n"}, args: []string{"gzip", "-t", "g.gz"},
			errOut: "\ngzip: g.gz: not in gzip format\n", code: 1},
		{name: "truncated", files: map[string]string{"g.gz": gzFixtureA[:15]}, args: []string{"zcat", "g.gz"},
			out: "he", errOut: "\ngzip: g.gz: unexpected end of file\n", code: 1},
		{name: "passthrough", files: map[string]string{"n": "abc"}, args: []string{"gzip", "-dcf", "n"}, out: "abc"},
		{name: "test ok", files: map[string]string{"a.gz": gzFixtureA}, args: []string{"gzip", "-tv", "a.gz", "b.gz"},
			errOut: "a.gz:\t OK\ngzip: b.gz: No such file or directory\n", code: 1},
		{name: "list", files: map[string]string{"a.gz": gzFixtureA}, args: []string{"gzip", "-l", "a.gz"},
			out: "         compressed        uncompressed  ratio uncompressed_name\n                 28                   6 -33.3% a\n"},
		{name: "list totals", files: map[string]string{"a.gz": gzFixtureA, "b.gz": gzFixtureA}, args: []string{"gzip", "-l", "a.gz", "b.gz"},
			out: "         compressed        uncompressed  ratio uncompressed_name\n                 28                   6 -33.3% a\n" +
				"                 28                   6 -33.3% b\n                 56                  12 -200.0% (totals)\n"},
		{name: "list not gzip", files: map[string]string{"a": "hi"}, args: []string{"gzip", "-l", "a"},
			errOut: "\ngzip: a: not in gzip format\n", code: 1},
		{name: "decompress verbose", files: map[string]string{"a.gz": gzFixtureA}, args: []string{"gzip", "-dv", "a.gz"},
			errOut: "a.gz:\t-33.3% -- replaced with a\n"},
		{name: "empty verbose", files: map[string]string{"e": ""}, args: []string{"gzip", "-v", "e"},
			errOut: "e:\t  0.0% -- replaced with e.gz\n"},
		{name: "bad option", args: []string{"gzip", "-x"},
			errOut: "gzip: invalid option -- 'x'\nTry `gzip --help' for more information.\n", code: 1},
		{name: "bad long option", args: []string{"gzip", "--foo"},
			errOut: "gzip: unrecognized option '--foo'\nTry `gzip --help' for more information.\n", code: 1},
	}
	runTextRows(t, rows)
}

func TestGzipRoundTrip(t *testing.T) {
	ctx := context.Background()
	f := newStore(t, map[string]string{"a": "hello hello hello hello\n", "d/x": "xx\n", "d/e/y": "yy\n"})
	mt := time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)
	if err := f.Chmod(ctx, "/work/a", 0o640); err != nil {
		t.Fatal(err)
	}
	if err := f.Chtimes(ctx, "/work/a", mt, mt); err != nil {
		t.Fatal(err)
	}
	if _, e, c := runIn(t, f, "/work", "", "gzip", "-9", "a"); c != 0 || e != "" {
		t.Fatalf("gzip: %q %d", e, c)
	}
	if _, err := f.Lstat(ctx, "/work/a"); err == nil {
		t.Fatal("a not removed")
	}
	fi, err := f.Stat(ctx, "/work/a.gz")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 || !fi.ModTime().Equal(mt) {
		t.Errorf("a.gz mode %v mtime %v", fi.Mode(), fi.ModTime())
	}
	if out, _, c := runIn(t, f, "/work", "", "zcat", "a.gz"); c != 0 || out != "hello hello hello hello\n" {
		t.Errorf("zcat: %q %d", out, c)
	}
	if _, e, c := runIn(t, f, "/work", "", "gunzip", "-k", "a.gz"); c != 0 || e != "" {
		t.Fatalf("gunzip -k: %q %d", e, c)
	}
	if got := readFile(t, f, "/work/a"); got != "hello hello hello hello\n" {
		t.Errorf("a = %q", got)
	}
	fi, _ = f.Stat(ctx, "/work/a")
	if fi.Mode().Perm() != 0o640 || !fi.ModTime().Equal(mt) {
		t.Errorf("a mode %v mtime %v", fi.Mode(), fi.ModTime())
	}
	if _, err := f.Stat(ctx, "/work/a.gz"); err != nil {
		t.Error("-k removed a.gz")
	}
	// -c to stdout, then back through stdin.
	gz, _, c := runIn(t, f, "/work", "", "gzip", "-c", "a")
	if c != 0 {
		t.Fatal(c)
	}
	if out, _, _ := runIn(t, f, "/work", gz, "gzip", "-d"); out != "hello hello hello hello\n" {
		t.Errorf("stdin round trip %q", out)
	}
	// -n writes neither the name nor the mtime (FLG and MTIME are zero).
	if gzn, _, _ := runIn(t, f, "/work", "", "gzip", "-cn", "a"); len(gzn) < 10 || gzn[3] != 0 || gzn[4:8] != "\x00\x00\x00\x00" {
		t.Errorf("gzip -n header %q", gzn)
	}
	// -r compresses and decompresses a tree.
	if _, e, c := runIn(t, f, "/work", "", "gzip", "-r", "d"); c != 0 || e != "" {
		t.Fatalf("gzip -r: %q %d", e, c)
	}
	for _, p := range []string{"/work/d/x.gz", "/work/d/e/y.gz"} {
		if _, err := f.Stat(ctx, p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, e, c := runIn(t, f, "/work", "", "gunzip", "-r", "d"); c != 0 || e != "" {
		t.Fatalf("gunzip -r: %q %d", e, c)
	}
	if readFile(t, f, "/work/d/e/y") != "yy\n" {
		t.Error("d/e/y")
	}
	// Symlinks are refused without -f.
	f2 := newStore(t, map[string]string{"a": "x", "l": "->a"})
	if _, e, c := runIn(t, f2, "/work", "", "gzip", "l"); c != 1 || e != "gzip: l: Too many levels of symbolic links\n" {
		t.Errorf("symlink: %q %d", e, c)
	}
}

func TestGzipListVerbose(t *testing.T) {
	ctx := context.Background()
	f := newStore(t, map[string]string{"a.gz": gzFixtureA})
	mt := time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)
	if err := f.Chtimes(ctx, "/work/a.gz", mt, mt); err != nil {
		t.Fatal(err)
	}
	out, e, c := runIn(t, f, "/work", "", "gzip", "-lv", "a.gz")
	want := "method  crc     date  time           compressed        uncompressed  ratio uncompressed_name\n" +
		"defla 363a3020 Nov 30 01:02                  28                   6 -33.3% a\n"
	if out != want || e != "" || c != 0 {
		t.Errorf("got %q %q %d", out, e, c)
	}
}
