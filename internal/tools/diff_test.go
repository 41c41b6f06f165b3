package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// gnuPatch applies diff to a with the installed GNU patch and returns the
// result. Without patch the test is skipped, or fails under
// DESK_REQUIRE_SHELLS=1 (CI installs the GNU tools).
func gnuPatch(t *testing.T, dir, a, diff string) string {
	t.Helper()
	_, err := exec.LookPath("patch")
	testenv.Need(t, testenv.Shells, err)
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(in, []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("patch", "-s", "-f", "-F0", "-o", out, in)
	cmd.Stdin = strings.NewReader(diff)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\ndiff:\n%s", err, msg, diff)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

// TestUnifiedDiff_patch checks edit's diffs of random texts by applying
// them with GNU patch (no fuzz allowed): the result must be the new text,
// newline at the end or not.
func TestUnifiedDiff_patch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	gen := func() string {
		n := r.IntN(30)
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "l%d\n", r.IntN(6))
		}
		s := b.String()
		if r.IntN(6) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	for i := 0; i < 300; i++ {
		a, b := gen(), gen()
		d, err := unifiedDiff(t.Context(), "f", a, b, r.IntN(4), DefaultMaxDiffBytes)
		if err != nil {
			t.Fatal(err)
		}
		if a == b {
			if d.text != "" {
				t.Fatalf("diff of equal texts: %q", d.text)
			}
			continue
		}
		if got := gnuPatch(t, dir, a, d.text); got != b {
			t.Fatalf("a=%q b=%q\ndiff:\n%s\npatched: %q", a, b, d.text, got)
		}
	}
}

// TestUnifiedDiff_hostile diffs the worst inputs for the cost of a diff,
// 10,000-line blocks, as one edit call can make them: memory stays linear
// (the old diff took 251 MiB for a 2,000-line rewrite, tens of GiB for
// these), the block past the cap comes back replaced whole, and GNU patch
// still applies every diff.
func TestUnifiedDiff_hostile(t *testing.T) {
	const n = 10_000
	var rev, fwd, x, y strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&fwd, "line %d\n", i)
		fmt.Fprintf(&rev, "line %d\n", n-1-i)
	}
	fmt.Fprintf(&x, "%s", strings.Repeat("x\n", n/2)+strings.Repeat("y\n", n/2))
	fmt.Fprintf(&y, "%s", strings.Repeat("y\n", n/2)+strings.Repeat("x\n", n/2))
	disjointA, disjointB := rewriteBlock(n)
	cases := []struct {
		name  string
		a, b  string
		whole bool
	}{
		{"reversed", fwd.String(), rev.String(), true},
		{"swapped runs", x.String(), y.String(), true},
		{"nothing in common", disjointA, disjointB, false},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var d editDiff
			var err error
			got := testenv.Allocated(func() { d, err = unifiedDiff(t.Context(), "f", c.a, c.b, 3, 64<<20) })
			if err != nil {
				t.Fatal(err)
			}
			// The diff text itself is about 2·len(a) bytes; the search adds
			// O(lines).
			if bound := uint64(4*(len(c.a)+len(c.b))) + 8<<20; got > bound {
				t.Errorf("allocated %d bytes, over %d", got, bound)
			}
			if d.whole != c.whole || d.added != n || d.removed != n {
				t.Errorf("whole %v (want %v), +%d -%d", d.whole, c.whole, d.added, d.removed)
			}
			t.Logf("%d bytes allocated, diff %d bytes", got, len(d.text))
			if p := gnuPatch(t, dir, c.a, d.text); p != c.b {
				t.Errorf("GNU patch does not give the new text")
			}
		})
	}
}
