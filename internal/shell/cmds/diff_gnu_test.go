package cmds

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// realDiff runs the installed GNU diff on a and b (written to dir) and
// returns its output; a missing diff skips the test, or fails it under
// DESK_REQUIRE_SHELLS=1.
func realDiff(t *testing.T, dir, a, b string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("diff"); err != nil {
		requireTool(t, "diff")
	}
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(pa, []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("diff", append(args, pa, pb)...)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("diff %v: %v", args, err)
	}
	return string(out)
}

// ourDiff runs diff on a and b, written to /work/a and /work/b of f.
func ourDiff(t *testing.T, f *vfs.FS, a, b string, args ...string) string {
	t.Helper()
	for p, v := range map[string]string{"/work/a": a, "/work/b": b} {
		if err := f.WriteFile(t.Context(), p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _, _ := runIn(t, f, "/work", "", append(append([]string{"diff"}, args...), "a", "b")...)
	return out
}

// randomText is n lines drawn from an alphabet of k lines, sometimes
// without a final newline.
func randomText(r *rand.Rand, n, k int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "l%d\n", r.IntN(k))
	}
	s := sb.String()
	if s != "" && r.IntN(8) == 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

// mutate returns s with some lines deleted, inserted and changed.
func mutate(r *rand.Rand, s string, k int) string {
	lines := strings.SplitAfter(s, "\n")
	var out []string
	for _, l := range lines {
		switch r.IntN(11) {
		case 0: // delete
		case 1:
			out = append(out, fmt.Sprintf("l%d\n", r.IntN(k)), l)
		case 2:
			out = append(out, fmt.Sprintf("n%d\n", r.IntN(k)))
		case 3:
			// A run of new lines around a line frequent elsewhere: GNU sets
			// such a frequent line aside with the run.
			for j := 0; j < 7; j++ {
				if j == 3 {
					out = append(out, "l0\n")
				} else {
					out = append(out, fmt.Sprintf("u%d\n", r.IntN(1000)))
				}
			}
		case 4: // the same line but for white space
			out = append(out, strings.Replace(l, "l", " l\t", 1))
		default:
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// TestDiffMatchesGNU compares the output of diff with the installed GNU
// diff's on random inputs, in the normal, unified and context formats:
// small alphabets make many scripts of the same cost, so this checks that
// diff chooses among them as GNU does (lines set aside, changes shifted,
// the identical ends left out).
func TestDiffMatchesGNU(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 3))
	dir := t.TempDir()
	f := newStore(t, nil)
	formats := [][]string{nil, {"-u"}, {"-U1"}, {"-c"}, {"-U0"}, {"-i"}, {"-b"}, {"-w", "-u"}}
	for iter := 0; iter < 400; iter++ {
		k := 2 + r.IntN(8)
		a := randomText(r, r.IntN(60), k)
		var b string
		if r.IntN(2) == 0 {
			b = mutate(r, a, k)
		} else {
			b = randomText(r, r.IntN(60), k)
		}
		args := append([]string{}, formats[iter%len(formats)]...)
		if len(args) > 0 && (args[0] == "-u" || args[0] == "-c" || args[len(args)-1] == "-u" || strings.HasPrefix(args[0], "-U")) {
			args = append(args, "--label", "a", "--label", "b")
		}
		want := realDiff(t, dir, a, b, args...)
		got := ourDiff(t, f, a, b, args...)
		if got != want {
			t.Fatalf("diff %v on\na=%q\nb=%q\ngot:\n%s\nwant (GNU):\n%s", args, a, b, got, want)
		}
	}
}

// TestDiffMatchesGNULarge compares diff with GNU diff on inputs large
// enough for GNU's limits to act: lines occurring often enough to be set
// aside, and a difference costing more than TOO_EXPENSIVE steps, where
// both give up minimality the same way.
func TestDiffMatchesGNULarge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	dir := t.TempDir()
	cases := []struct{ a, b string }{
		{randomText(r, 3000, 40), ""},
		{randomText(r, 12000, 30), randomText(r, 12000, 30)},
	}
	cases[0].b = mutate(r, cases[0].a, 40)
	f := newStore(t, nil)
	for i, c := range cases {
		want := realDiff(t, dir, c.a, c.b)
		got := ourDiff(t, f, c.a, c.b)
		if got != want {
			t.Errorf("case %d: output differs from GNU diff's (%d and %d bytes)", i, len(got), len(want))
		}
	}
}

// TestDiffHostile runs diff on the worst input for its search, 10,000
// distinct lines against the same lines reversed, and checks that its
// allocations stay linear in the input (the search's arrays and the lines),
// and that the output is still a diff GNU patch applies.
func TestDiffHostile(t *testing.T) {
	const n = 10_000
	var a, b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		fmt.Fprintf(&b, "line %d\n", n-1-i)
	}
	f := newStore(t, map[string]string{"a": a.String(), "b": b.String()})
	var out string
	got := testenv.Allocated(func() { out, _, _ = runIn(t, f, "/work", "", "diff", "-u", "a", "b") })
	if bound := uint64(16 << 20); got > bound {
		t.Errorf("allocated %d bytes, over %d", got, bound)
	}
	t.Logf("%d bytes allocated, %d bytes of output", got, len(out))
	_, err := exec.LookPath("patch")
	testenv.Need(t, testenv.Shells, err)
	dir := t.TempDir()
	pa := filepath.Join(dir, "a")
	if err := os.WriteFile(pa, []byte(a.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("patch", "-s", "-o", filepath.Join(dir, "out"), pa)
	cmd.Stdin = strings.NewReader(out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v: %s", err, msg)
	}
	if res, _ := os.ReadFile(filepath.Join(dir, "out")); string(res) != b.String() {
		t.Errorf("patched output is not b")
	}
}
