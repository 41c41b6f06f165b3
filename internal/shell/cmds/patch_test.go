package cmds

import (
	"strings"
	"testing"
)

const (
	patchA  = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	patchB  = "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n"
	patchP1 = "--- a\t2026-11-30 03:15:51.467486455 +0000\n+++ b\t2026-11-30 03:15:51.467486455 +0000\n" +
		"@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n"
	patchNew = "--- /dev/null\t2026-11-22 17:33:16.212784891 +0000\n+++ c/nf\t2026-11-30 03:16:07.167156423 +0000\n@@ -0,0 +1 @@\n+new\n"
	patchDel = "--- c/nf\t2026-11-30 03:16:07.192244685 +0000\n+++ /dev/null\t2026-11-22 17:33:16.212784891 +0000\n@@ -1 +0,0 @@\n-new\n"
	patchP2  = "--- a/r/f\t2026-11-30 03:16:02.889992449 +0000\n+++ b/r/f\t2026-11-30 03:16:02.895188871 +0000\n@@ -1 +1,2 @@\n hello\n+bye\n"
)

func TestPatch(t *testing.T) {
	rows := []textRow{
		{args: []string{"patch"}, files: map[string]string{"a": patchA}, stdin: patchP1, out: "patching file a\n"},
		{args: []string{"patch", "-i", "p1"}, files: map[string]string{"a": patchA, "p1": patchP1}, out: "patching file a\n"},
		{args: []string{"patch", "--dry-run"}, files: map[string]string{"a": patchA}, stdin: patchP1, out: "checking file a\n"},
		{args: []string{"patch", "-s"}, files: map[string]string{"a": patchA}, stdin: patchP1},
		{args: []string{"patch", "-R", "b"}, files: map[string]string{"b": patchB}, stdin: patchP1, out: "patching file b\n"},
		{args: []string{"patch"}, files: map[string]string{"a": "x\ny\n" + patchA}, stdin: patchP1,
			out: "patching file a\nHunk #1 succeeded at 3 with fuzz 1 (offset 2 lines).\n"},
		{args: []string{"patch"}, files: map[string]string{"a": "X\nY\nZ\n"}, stdin: patchP1, code: 1,
			out: "patching file a\nHunk #1 FAILED at 1.\n1 out of 1 hunk FAILED -- saving rejects to file a.rej\n"},
		{args: []string{"patch", "-p0"}, stdin: patchNew, out: "patching file c/nf\n"},
		{args: []string{"patch", "-p0"}, files: map[string]string{"c/nf": "new\n"}, stdin: patchDel, out: "patching file c/nf\n"},
		{args: []string{"patch", "-p1", "-d", "q"}, files: map[string]string{"q/r/f": "hello\n"}, stdin: patchP2, out: "patching file r/f\n"},
		// a reversed (already applied) patch
		{args: []string{"patch"}, files: map[string]string{"a": patchB}, stdin: patchP1, code: 1,
			out:  "patching file a\nReversed (or previously applied) patch detected!  Assume -R? [n] \nApply anyway? [n] \nSkipping patch.\n1 out of 1 hunk ignored -- saving rejects to file a.rej\n",
			host: "GNU patch asks on /dev/tty when there is one (this is its answer without one, checked with setsid)"},
		{args: []string{"patch", "-N"}, files: map[string]string{"a": patchB}, stdin: patchP1, code: 1,
			out: "patching file a\nReversed (or previously applied) patch detected!  Skipping patch.\n1 out of 1 hunk ignored -- saving rejects to file a.rej\n"},
		{args: []string{"patch", "--dry-run", "-N"}, files: map[string]string{"a": patchB}, stdin: patchP1, code: 1,
			out: "checking file a\nReversed (or previously applied) patch detected!  Skipping patch.\n1 out of 1 hunk ignored\n"},
		{args: []string{"patch", "-t"}, files: map[string]string{"a": patchB}, stdin: patchP1,
			out: "patching file a\nReversed (or previously applied) patch detected!  Assuming -R.\n"},
		{args: []string{"patch", "-R", "-t"}, files: map[string]string{"a": patchA}, stdin: patchP1,
			out: "patching file a\nUnreversed patch detected!  Ignoring -R.\n"},
		{args: []string{"patch", "-f"}, files: map[string]string{"a": patchB}, stdin: patchP1, code: 1,
			out: "patching file a\nHunk #1 FAILED at 1.\n1 out of 1 hunk FAILED -- saving rejects to file a.rej\n"},
		// both names exist: GNU's best name (the shorter base name) wins
		{args: []string{"patch"}, files: map[string]string{"longname": patchA, "b": patchA}, stdin: strings.Replace(patchP1, "--- a\t", "--- longname\t", 1),
			out: "patching file b\n"},
		// no file to patch: the text leading up to the hunks, and the questions' defaults
		{args: []string{"patch", "-f"}, stdin: "--- gone.txt\n+++ gone.txt\n@@ -1 +1 @@\n-a\n+b\n", code: 1,
			out: "can't find file to patch at input line 3\nPerhaps you should have used the -p or --strip option?\nThe text leading up to this was:\n--------------------------\n|--- gone.txt\n|+++ gone.txt\n--------------------------\nNo file to patch.  Skipping patch.\n1 out of 1 hunk ignored\n"},
		{args: []string{"patch", "-p0"}, stdin: "--- gone.txt\n+++ gone.txt\n@@ -1 +1 @@\n-a\n+b\n", code: 1,
			out:  "can't find file to patch at input line 3\nPerhaps you used the wrong -p or --strip option?\nThe text leading up to this was:\n--------------------------\n|--- gone.txt\n|+++ gone.txt\n--------------------------\nFile to patch: \nSkip this patch? [y] \nSkipping patch.\n1 out of 1 hunk ignored\n",
			host: "GNU patch asks on /dev/tty when there is one (this is its answer without one, checked with setsid)"},
		{args: []string{"patch", "-s", "-t", "-p1"}, files: map[string]string{"x.txt": "a\n"}, code: 1,
			stdin: "diff -u x.txt x.txt\n--- x.txt\n+++ x.txt\n@@ -1 +1 @@\n-a\n+b\ndiff -u a/gone.txt b/gone.txt\nindex 123..456\n--- a/gone.txt\n+++ b/gone.txt\n@@ -1 +1,2 @@\n-a\n+b\n+c\n@@ -5 +6 @@\n-q\n+r\n",
			out: "The text leading up to this was:\n--------------------------\n|diff -u x.txt x.txt\n|--- x.txt\n|+++ x.txt\n--------------------------\nNo file to patch.  Skipping patch.\n1 out of 1 hunk ignored\n" +
				"The text leading up to this was:\n--------------------------\n|diff -u a/gone.txt b/gone.txt\n|index 123..456\n|--- a/gone.txt\n|+++ b/gone.txt\n--------------------------\nNo file to patch.  Skipping patch.\n2 out of 2 hunks ignored\n"},
		{args: []string{"patch", "-i", "nope"}, code: 2, errOut: "patch: **** Can't open patch file nope : No such file or directory\n"},
	}
	runTextRows(t, rows)
}

// TestPatchEffects checks what patch leaves in the workspace.
func TestPatchEffects(t *testing.T) {
	f := newStore(t, map[string]string{"a": patchA, "q/r/f": "hello\n", "z": "X\nY\nZ\n", "x": "x\ny\n" + patchA})
	check := func(p, want string) {
		t.Helper()
		if got := readFile(t, f, p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if _, e, c := runIn(t, f, "/work", patchP1, "patch"); c != 0 {
		t.Fatalf("patch: %s %d", e, c)
	}
	check("/work/a", patchB)
	runIn(t, f, "/work", patchP1, "patch", "-R", "a")
	check("/work/a", patchA)
	runIn(t, f, "/work", patchP1, "patch", "a")
	runIn(t, f, "/work", patchP1, "patch", "-N", "a")
	check("/work/a", patchB)
	runIn(t, f, "/work", patchP1, "patch", "-t", "-b", "a")
	check("/work/a", patchA)
	check("/work/a.orig", patchB)
	runIn(t, f, "/work", patchP1, "patch", "--dry-run", "a")
	check("/work/a", patchA)
	runIn(t, f, "/work", patchP1, "patch", "x")
	check("/work/x", "x\ny\n"+patchB)
	runIn(t, f, "/work", patchP2, "patch", "-p1", "-d", "q")
	check("/work/q/r/f", "hello\nbye\n")
	runIn(t, f, "/work", patchNew, "patch", "-p0")
	check("/work/c/nf", "new\n")
	runIn(t, f, "/work", patchNew, "patch", "-p0", "-R")
	if _, err := f.Stat(t.Context(), "/work/c"); err == nil {
		t.Errorf("c/nf removed, c should be too")
	}
	if _, _, c := runIn(t, f, "/work", patchP1, "patch", "z"); c != 1 {
		t.Errorf("failed hunk: status %d", c)
	}
	check("/work/z", "X\nY\nZ\n")
	check("/work/z.rej", patchP1)
}

// TestPatchRoundTrip: diff -u a b | patch a turns a into b, for edits at the
// start, the middle and the end, with and without final newlines.
func TestPatchRoundTrip(t *testing.T) {
	base := strings.Repeat("line\n", 3) + patchA + "tail1\ntail2\n"
	cases := [][2]string{
		{patchA, patchB},
		{base, strings.Replace(base, "5\n", "five\nfive'\n", 1)},
		{base, "head\n" + base + "end"},
		{base + "x", base},
		{base, base[:len(base)-1]},
		{"", "a\nb\n"},
		{"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n", "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nK\nl\n"},
	}
	for i, c := range cases {
		f := newStore(t, map[string]string{"a": c[0], "b": c[1]})
		d, e, code := runIn(t, f, "/work", "", "diff", "-u", "a", "b")
		if code != 1 && c[0] != c[1] {
			t.Fatalf("case %d: diff %d %s", i, code, e)
		}
		out, e, code := runIn(t, f, "/work", d, "patch", "a")
		if code != 0 {
			t.Fatalf("case %d: patch %d %s %s\n%s", i, code, out, e, d)
		}
		if got := readFile(t, f, "/work/a"); got != c[1] {
			t.Errorf("case %d: a = %q, want %q\n%s", i, got, c[1], d)
		}
	}
}
