package cmds

import (
	"context"
	"strings"
	"testing"
	"time"
)

const (
	diffA15 = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n"
	diffB15 = "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\nfourteen\n15\n16\n"
)

func TestDiff(t *testing.T) {
	xy := map[string]string{"x": "a\nb\nc\n", "y": "a\nB\nc\nd", "z": "a\nb\nc\n"}
	ab := map[string]string{"a": diffA15, "b": diffB15}
	dirs := map[string]string{"d1/f": "1\n", "d2/f": "2\n", "d1/only": "o\n", "d1/sub/": "", "d2/sub/": "", "d1/same": "s\n", "d2/same": "s\n"}
	rows := []textRow{
		{args: []string{"diff", "x", "z"}, files: xy},
		{args: []string{"diff", "x", "y"}, files: xy, code: 1,
			out: "2c2\n< b\n---\n> B\n3a4\n> d\n\\ No newline at end of file\n"},
		{args: []string{"diff", "y", "x"}, files: xy, code: 1,
			out: "2c2\n< B\n---\n> b\n4d3\n< d\n\\ No newline at end of file\n"},
		{args: []string{"diff", "-u", "--label", "x", "--label", "y", "x", "y"}, files: xy, code: 1,
			out: "--- x\n+++ y\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n\\ No newline at end of file\n"},
		{args: []string{"diff", "a", "b"}, files: ab, code: 1,
			out: "3c3\n< 3\n---\n> three\n14c14\n< 14\n---\n> fourteen\n15a16\n> 16\n"},
		{args: []string{"diff", "-u", "--label", "a", "--label", "b", "a", "b"}, files: ab, code: 1,
			out: "--- a\n+++ b\n@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n@@ -11,5 +11,6 @@\n 11\n 12\n 13\n-14\n+fourteen\n 15\n+16\n"},
		{args: []string{"diff", "-U1", "--label", "a", "--label", "b", "a", "b"}, files: ab, code: 1,
			out: "--- a\n+++ b\n@@ -2,3 +2,3 @@\n 2\n-3\n+three\n 4\n@@ -13,3 +13,4 @@\n 13\n-14\n+fourteen\n 15\n+16\n"},
		{args: []string{"diff", "-U", "8", "--label", "a", "--label", "b", "a", "b"}, files: ab, code: 1,
			out: "--- a\n+++ b\n@@ -1,15 +1,16 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n 7\n 8\n 9\n 10\n 11\n 12\n 13\n-14\n+fourteen\n 15\n+16\n"},
		{args: []string{"diff", "-c", "--label", "x", "--label", "y", "x", "y"}, files: xy, code: 1,
			out: "*** x\n--- y\n***************\n*** 1,3 ****\n  a\n! b\n  c\n--- 1,4 ----\n  a\n! B\n  c\n+ d\n\\ No newline at end of file\n"},
		{args: []string{"diff", "-C1", "--label", "a", "--label", "b", "a", "b"}, files: ab, code: 1,
			out: "*** a\n--- b\n***************\n*** 2,4 ****\n  2\n! 3\n  4\n--- 2,4 ----\n  2\n! three\n  4\n***************\n*** 13,15 ****\n  13\n! 14\n  15\n--- 13,16 ----\n  13\n! fourteen\n  15\n+ 16\n"},
		{args: []string{"diff", "-c", "--label", "a", "--label", "b", "b", "a"}, files: ab, code: 1,
			out: "*** a\n--- b\n***************\n*** 1,6 ****\n  1\n  2\n! three\n  4\n  5\n  6\n--- 1,6 ----\n  1\n  2\n! 3\n  4\n  5\n  6\n***************\n*** 11,16 ****\n  11\n  12\n  13\n! fourteen\n  15\n- 16\n--- 11,15 ----\n  11\n  12\n  13\n! 14\n  15\n"},
		{args: []string{"diff", "-u", "--label", "e", "--label", "x", "e", "x"}, files: map[string]string{"e": "", "x": "a\nb\n"}, code: 1,
			out: "--- e\n+++ x\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{args: []string{"diff", "-u", "--label", "x", "--label", "e", "x", "e"}, files: map[string]string{"e": "", "x": "a\nb\n"}, code: 1,
			out: "--- x\n+++ e\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{args: []string{"diff", "-u", "--label", "p", "--label", "q", "p", "q"}, files: map[string]string{"p": "c", "q": "c\n"}, code: 1,
			out: "--- p\n+++ q\n@@ -1 +1 @@\n-c\n\\ No newline at end of file\n+c\n"},
		{args: []string{"diff", "-q", "x", "y"}, files: xy, code: 1, out: "Files x and y differ\n"},
		{args: []string{"diff", "-s", "x", "z"}, files: xy, out: "Files x and z are identical\n"},
		{args: []string{"diff", "-i", "x", "y"}, files: xy, code: 1, out: "3a4\n> d\n\\ No newline at end of file\n"},
		{args: []string{"diff", "-b", "s1", "s2"}, files: map[string]string{"s1": "x  y\n", "s2": "x y \n"}},
		{args: []string{"diff", "-w", "s1", "s2"}, files: map[string]string{"s1": "x  y\n", "s2": "xy\n"}},
		{args: []string{"diff", "s1", "s2"}, files: map[string]string{"s1": "x  y\n", "s2": "x y \n"}, code: 1,
			out: "1c1\n< x  y\n---\n> x y \n"},
		{args: []string{"diff", "-B", "b1", "b2"}, files: map[string]string{"b1": "a\n\nb\n", "b2": "a\nb\n"}},
		{args: []string{"diff", "b1", "b2"}, files: map[string]string{"b1": "a\n\nb\n", "b2": "a\nb\n"}, code: 1, out: "2d1\n< \n"},
		{args: []string{"diff", "-", "x"}, files: xy, stdin: "a\nB\nc\nd", code: 1,
			out: "2c2\n< B\n---\n> b\n4d3\n< d\n\\ No newline at end of file\n"},
		{args: []string{"diff", "x", "nofile"}, files: xy, code: 2, errOut: "diff: nofile: No such file or directory\n"},
		{args: []string{"diff", "-N", "nofile", "x"}, files: xy, code: 1, out: "0a1,3\n> a\n> b\n> c\n"},
		{args: []string{"diff", "x"}, files: xy, code: 2,
			errOut: "diff: missing operand after 'x'\ndiff: Try 'diff --help' for more information.\n"},
		{args: []string{"diff", "x", "y", "z"}, files: xy, code: 2,
			errOut: "diff: extra operand 'z'\ndiff: Try 'diff --help' for more information.\n"},
		{args: []string{"diff", "bin1", "bin2"}, files: map[string]string{"bin1": "a\x00b", "bin2": "a\x00c"}, code: 1,
			out: "Binary files bin1 and bin2 differ\n"},
		{args: []string{"diff", "d1", "d2"}, files: dirs, code: 1,
			out: "diff d1/f d2/f\n1c1\n< 1\n---\n> 2\nOnly in d1: only\nCommon subdirectories: d1/sub and d2/sub\n"},
		{args: []string{"diff", "-r", "d1", "d2"}, files: dirs, code: 1,
			out: "diff -r d1/f d2/f\n1c1\n< 1\n---\n> 2\nOnly in d1: only\n"},
		{args: []string{"diff", "-rq", "d1", "d2"}, files: dirs, code: 1,
			out: "Files d1/f and d2/f differ\nOnly in d1: only\n"},
		{args: []string{"diff", "-r", "d1", "d2"}, files: map[string]string{"d1/s/x": "1\n", "d2/s/x": "1\n", "d2/s/new": "n\n"}, code: 1,
			out: "Only in d2/s: new\n"},
		{args: []string{"diff", "x", "d1"}, files: map[string]string{"x": "a\n", "d1/x": "b\n"}, code: 1,
			out: "1c1\n< a\n---\n> b\n"},
		{args: []string{"diff", "d1", "x"}, files: map[string]string{"x": "a\n", "d1/": ""}, code: 2,
			errOut: "diff: d1/x: No such file or directory\n"},
	}
	runTextRows(t, rows)
}

// TestDiffUnifiedTimes checks the unified headers' timestamps (GNU's format,
// nanoseconds and zone) and the "diff -ru" headers inside directories.
func TestDiffUnifiedTimes(t *testing.T) {
	f := newStore(t, map[string]string{"d1/f": "1\n", "d2/f": "2\n", "d1/only": "o\n"})
	ctx := context.Background()
	mt := time.Date(2026, 11, 30, 1, 2, 3, 123456789, time.UTC)
	for _, p := range []string{"/work/d1/f", "/work/d2/f", "/work/d1/only"} {
		if err := f.Chtimes(ctx, p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runIn(t, f, "/work", "", "diff", "-Nru", "d1", "d2")
	want := "diff -Nru d1/f d2/f\n" +
		"--- d1/f\t2026-11-30 01:02:03.123456789 +0000\n+++ d2/f\t2026-11-30 01:02:03.123456789 +0000\n@@ -1 +1 @@\n-1\n+2\n" +
		"diff -Nru d1/only d2/only\n" +
		"--- d1/only\t2026-11-30 01:02:03.123456789 +0000\n+++ d2/only\t1970-01-01 00:00:00.000000000 +0000\n@@ -1 +0,0 @@\n-o\n"
	if out != want || errOut != "" || code != 1 {
		t.Errorf("got %q %q %d\nwant %q", out, errOut, code, want)
	}
	out, _, code = runIn(t, f, "/work", "", "diff", "-r", "-u", "d1", "d2")
	if !strings.HasPrefix(out, "diff -r -u d1/f d2/f\n--- d1/f\t2026-11-30 01:02:03.123456789 +0000\n") ||
		!strings.HasSuffix(out, "Only in d1: only\n") || code != 1 {
		t.Errorf("diff -r -u: %q %d", out, code)
	}
}
