package search

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPrefilter: on random lines (ASCII letters of both cases, digits,
// the Kelvin sign, the long s, é), every line an expression matches is a
// candidate of its prefilter, and an exact prefilter's candidates are
// exactly the matching lines; expressions that need no literal, or whose
// fold reaches non-ASCII, get none.
func TestPrefilter(t *testing.T) {
	none := []string{`a|b`, `[a-z]+`, `(?i)k`, `(?i)sun`, `x*`, `(?:ab)?`, `.`, "a\nb", `(`}
	for _, e := range none {
		if p := NewPrefilter(e); p != nil {
			t.Errorf("%q: prefilter %q, want none", e, p.lit)
		}
	}
	exprs := map[string]bool{ // expression: exact
		`ab`: true, `(?i)ab`: true, `(?i)Err0r`: true, `(ab)`: true, `Ab+c`: false, `b[0-9]+r`: false,
		`^ab$`: false, `\bab\b`: false, `(?:ab){2,}`: false, `(?i)a[b-d]e`: false, `é`: true, `(?i)ab|cd`: false,
	}
	alphabet := []rune("abcdeABCDE0r rRK\u212a\u017fé\t")
	rng := rand.New(rand.NewPCG(1, 2))
	var text bytes.Buffer
	for range 20000 {
		for range rng.IntN(12) {
			text.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		text.WriteByte('\n')
	}
	text.WriteString("abab") // a last line without its newline
	lines := bytes.Split(text.Bytes(), []byte("\n"))
	for e, exact := range exprs {
		re := regexp.MustCompile(e)
		p := NewPrefilter(e)
		if p == nil {
			if e != `(?i)ab|cd` {
				t.Errorf("%q: no prefilter", e)
			}
			continue
		}
		if p.Exact() != exact {
			t.Errorf("%q: exact %v, want %v", e, p.Exact(), exact)
		}
		cand := map[int]bool{} // line starts
		prev := -1
		p.Lines(text.Bytes(), '\n', func(start, end int) bool {
			if start <= prev || end < start || end > text.Len() || end < text.Len() && text.Bytes()[end] != '\n' || start > 0 && text.Bytes()[start-1] != '\n' {
				t.Fatalf("%q: bad line [%d,%d) after %d", e, start, end, prev)
			}
			prev = start
			cand[start] = true
			return true
		})
		off, matched := 0, 0
		for _, l := range lines {
			m := re.Match(l)
			if m {
				matched++
			}
			if m && !cand[off] {
				t.Errorf("%q: line %q matches but is no candidate", e, l)
			}
			if exact && !m && cand[off] {
				t.Errorf("%q: exact, but candidate %q does not match", e, l)
			}
			off += len(l) + 1
		}
		if matched == 0 {
			t.Errorf("%q: no line matches: the test shows nothing", e)
		}
	}
}

// TestLowerASCII: the eight-bytes-at-a-time lowering against bytes.ToLower
// on every byte value, at every alignment.
func TestLowerASCII(t *testing.T) {
	var b []byte
	for i := range 256 {
		b = append(b, byte(i))
	}
	b = append(b, b...)
	for start := range 9 {
		got := lowerASCII(nil, b[start:])
		for i, c := range b[start:] {
			want := c
			if 'A' <= c && c <= 'Z' {
				want += 32
			}
			if got[i] != want {
				t.Fatalf("at %d+%d: %#x -> %#x, want %#x", start, i, c, got[i], want)
			}
		}
	}
}

// TestGrep_prefilter: Grep with each expression's prefilter finds what it
// finds without one (the expression on every line), context lines
// included, over files with CRLF lines, a last line without its newline
// and lines on both sides of every match.
func TestGrep_prefilter(t *testing.T) {
	fsys := newFS(t)
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"alpha", "Alpha", "ALPHA", "beta", "gamma\r", "x1", "alphabet", "é"}
	files := map[string]string{}
	for f := range 20 {
		var b strings.Builder
		for range 200 {
			for range rng.IntN(4) {
				b.WriteString(words[rng.IntN(len(words))] + " ")
			}
			b.WriteByte('\n')
		}
		files[fmt.Sprintf("/p/f%02d", f)] = strings.TrimSuffix(b.String(), "\n")
	}
	put(t, fsys, files)
	for _, q := range []struct {
		query         string
		literal, fold bool
	}{
		{"alpha", true, false}, {"alpha", true, true}, {"ALPHA ", true, false}, {"gamma\r", true, false},
		{`alpha\b`, false, false}, {`x[0-9] `, false, false}, {`(?i)beta x1`, false, false}, {`é`, true, false},
	} {
		re, err := Compile(q.query, q.literal, q.fold, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if re.pre == nil {
			t.Errorf("%q: no prefilter", q.query)
			continue
		}
		plain := *re
		plain.pre = nil
		for _, c := range []int{0, 2} {
			var hits [2][]string
			for i, r := range []*Regexp{re, &plain} {
				g := &Grep{FS: fsys, Re: r, Context: c, Hit: func(h *Hit) bool {
					hits[i] = append(hits[i], fmt.Sprintf("%s:%d:%q %v %v", h.Path, h.N, h.Text, h.Before, h.After))
					return true
				}}
				if err := g.Run(context.Background(), "/p"); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(hits[0], hits[1]) {
				t.Errorf("%q context %d: %d hits with the prefilter, %d without", q.query, c, len(hits[0]), len(hits[1]))
			}
			if len(hits[1]) == 0 {
				t.Errorf("%q: no hits: the row shows nothing", q.query)
			}
		}
	}
}
