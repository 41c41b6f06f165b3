package textdiff

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// apply applies changes to a and returns the result, failing on changes out
// of order or out of range.
func apply(t testing.TB, a, b []string, changes []Change) []string {
	t.Helper()
	var out []string
	pos, bpos := 0, 0
	for _, c := range changes {
		if c.A0 < pos || c.A1 < c.A0 || c.A1 > len(a) || c.B1 < c.B0 || c.B1 > len(b) || c.B0-bpos != c.A0-pos {
			t.Fatalf("bad change %+v after a[%d] b[%d] (of %d, %d)", c, pos, bpos, len(a), len(b))
		}
		out = append(out, a[pos:c.A0]...)
		out = append(out, b[c.B0:c.B1]...)
		pos, bpos = c.A1, c.B1
	}
	return append(out, a[pos:]...)
}

// lcsCost is the cost of a shortest edit script, by dynamic programming.
func lcsCost(a, b []string) int {
	l := make([][]int, len(a)+1)
	for i := range l {
		l[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	return len(a) + len(b) - 2*l[0][0]
}

func randomLines(r *rand.Rand, n, k int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("l%d\n", r.IntN(k))
	}
	return out
}

// check runs Diff and checks that its changes turn a into b, that Cost
// counts them, and (minimal, no fallback) that the cost is the least.
func check(t *testing.T, a, b []string, opt Options) Result {
	t.Helper()
	r, err := Diff(context.Background(), a, b, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := apply(t, a, b, r.Changes); !slices.Equal(got, b) {
		t.Fatalf("%q -> %q: changes %+v give %q", a, b, r.Changes, got)
	}
	cost := 0
	for i, c := range r.Changes {
		cost += c.A1 - c.A0 + c.B1 - c.B0
		if c.A0 == c.A1 && c.B0 == c.B1 {
			t.Fatalf("empty change %+v", c)
		}
		if i > 0 && c.A0 == r.Changes[i-1].A1 {
			t.Fatalf("adjacent changes %+v %+v", r.Changes[i-1], c)
		}
	}
	if cost != r.Cost {
		t.Fatalf("Cost %d, changes cost %d", r.Cost, cost)
	}
	return r
}

// TestDiffRandom checks both modes on random inputs from small alphabets:
// the changes always turn a into b, and a minimal search finds a shortest
// script (against an LCS table).
func TestDiffRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3000; iter++ {
		k := 1 + r.IntN(6)
		a, b := randomLines(r, r.IntN(25), k), randomLines(r, r.IntN(25), k)
		check(t, a, b, Options{})
		res := check(t, a, b, Options{Minimal: true})
		if want := lcsCost(a, b); res.Cost != want || res.Fallback {
			t.Fatalf("%q -> %q: cost %d (fallback %v), shortest %d", a, b, res.Cost, res.Fallback, want)
		}
	}
}

// TestDiffCap checks the fallback: past MaxCost (or MaxWork) a minimal
// search gives one change over the block between the common ends, and at
// the cap it still finds the shortest script.
func TestDiffCap(t *testing.T) {
	a := strings.Split("p\nx\ny\nz\nw\ns", "\n")
	b := strings.Split("p\nw\nz\ny\nx\ns", "\n") // the middle reversed: cost 6
	if r := check(t, a, b, Options{Minimal: true, MaxCost: 6}); r.Fallback || r.Cost != 6 {
		t.Errorf("at the cap: %+v", r)
	}
	want := []Change{{1, 5, 1, 5}}
	for _, opt := range []Options{{Minimal: true, MaxCost: 5}, {Minimal: true, MaxWork: 8 * 4}} {
		r := check(t, a, b, opt)
		if !r.Fallback || !slices.Equal(r.Changes, want) || r.Cost != 8 {
			t.Errorf("%+v: %+v, want the fallback %+v", opt, r, want)
		}
	}
}

func TestDiffEdges(t *testing.T) {
	for _, c := range []struct{ a, b string }{{"", ""}, {"", "a\n"}, {"a\n", ""}, {"a\nb\n", "a\nb\n"}, {"a", "a\n"}} {
		a, b := SplitLines(c.a), SplitLines(c.b)
		for _, opt := range []Options{{}, {Minimal: true}} {
			r := check(t, a, b, opt)
			if (c.a == c.b) != (len(r.Changes) == 0) {
				t.Errorf("%q %q: %+v", c.a, c.b, r)
			}
		}
	}
}

func TestDiffCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a, b := reversed(1000)
	for _, opt := range []Options{{}, {Minimal: true}} {
		if _, err := Diff(ctx, a, b, opt); !errors.Is(err, context.Canceled) {
			t.Errorf("%+v: err %v, want context.Canceled", opt, err)
		}
	}
}

// reversed returns n distinct lines and the same lines in reverse order:
// every line occurs in both, and the shortest script costs 2n-2, the worst
// case for the search.
func reversed(n int) ([]string, []string) {
	a := make([]string, n)
	for i := range a {
		a[i] = fmt.Sprintf("line %d\n", i)
	}
	b := slices.Clone(a)
	slices.Reverse(b)
	return a, b
}

// TestDiffHostile drives Diff with the inputs that cost the most, 10,000
// lines each, and checks that its allocations stay linear in the input
// (under 8 MiB here, where the old quadratic diff took gigabytes) and that
// a minimal search past its cap ends in the documented fallback.
func TestDiffHostile(t *testing.T) {
	const n = 10_000
	const bound = 8 << 20
	rev, revB := reversed(n)
	disjointA, disjointB := make([]string, n), make([]string, n)
	for i := range disjointA {
		disjointA[i], disjointB[i] = fmt.Sprintf("a%d\n", i), fmt.Sprintf("b%d\n", i)
	}
	// Two lines in runs, swapped: all lines match, cost 2n.
	runsA, runsB := make([]string, n), make([]string, n)
	for i := range runsA {
		runsA[i], runsB[i] = "x\n", "y\n"
		if i >= n/2 {
			runsA[i], runsB[i] = "y\n", "x\n"
		}
	}
	cases := []struct {
		name     string
		a, b     []string
		opt      Options
		fallback bool
	}{
		{"reversed minimal", rev, revB, Options{Minimal: true}, true},
		{"reversed GNU", rev, revB, Options{}, false},
		{"swapped runs minimal", runsA, runsB, Options{Minimal: true}, true},
		{"swapped runs GNU", runsA, runsB, Options{}, false},
		// Nothing in common: the lines are set aside before the search, so
		// even a minimal diff is exact (one whole-block change) and cheap.
		{"disjoint minimal", disjointA, disjointB, Options{Minimal: true}, false},
		{"disjoint GNU", disjointA, disjointB, Options{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r Result
			got := testenv.Allocated(func() { r = check(t, c.a, c.b, c.opt) })
			if got > bound {
				t.Errorf("allocated %d bytes, over %d", got, bound)
			}
			if r.Fallback != c.fallback {
				t.Errorf("fallback %v, want %v", r.Fallback, c.fallback)
			}
			if c.fallback && !slices.Equal(r.Changes, []Change{{0, n, 0, n}}) {
				t.Errorf("fallback changes %+v", r.Changes)
			}
			t.Logf("cost %d, %d changes, %d bytes allocated", r.Cost, len(r.Changes), got)
		})
	}
}

// FuzzDiff checks on any input that the changes of both modes turn a into
// b. The input is a and b, separated by the first NUL byte.
func FuzzDiff(f *testing.F) {
	f.Add([]byte("a\nb\nc\n\x00a\nc\nd"))
	f.Add([]byte("x\nx\ny\n\x00y\nx\nx\n"))
	f.Add([]byte("\x00\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sa, sb, _ := strings.Cut(string(data), "\x00")
		a, b := SplitLines(sa), SplitLines(sb)
		if strings.Join(a, "") != sa || strings.Join(b, "") != sb {
			t.Fatalf("SplitLines does not keep the text")
		}
		check(t, a, b, Options{})
		r := check(t, a, b, Options{Minimal: true, MaxCost: 64})
		if len(a)*len(b) <= 10_000 && !r.Fallback {
			if want := lcsCost(a, b); r.Cost != want {
				t.Fatalf("minimal cost %d, shortest %d", r.Cost, want)
			}
		}
	})
}
