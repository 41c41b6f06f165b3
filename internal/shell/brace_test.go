package shell

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// TestBraceLimit_hostile: one command of many brace expansions, each under
// the interpreter's own 16,384 words per word, is refused before it is
// expanded (MaxBraceWords, MaxStringBytes), in the script, in eval'd text
// and in a sourced file, within a memory bound. Unbounded, the first script
// makes 3.2 million words.
func TestBraceLimit_hostile(t *testing.T) {
	many := "echo" + strings.Repeat(" {1..16000}", 200)
	// 96,000 words (under MaxArgs) of 2,005 bytes: 192 MB of text.
	wide := "echo" + strings.Repeat(" {1..16000}"+strings.Repeat("x", 2000), 6)
	cases := []struct{ name, script, limit string }{
		{"words", many, "MaxBraceWords (100000)"},
		{"groups", "echo" + strings.Repeat("{a,b}", 30), "MaxBraceWords (100000)"},
		{"nested", "echo {1..400}{a,{b,{c,d}}}{1..100}", "MaxBraceWords (100000)"},
		{"bytes", wide, "MaxStringBytes (16777216)"},
		{"for", "for i in" + strings.Repeat(" {1..16000}", 200) + "; do :; done", "MaxBraceWords (100000)"},
		{"array", "a=(" + strings.Repeat(" {1..16000}", 200) + ")", "MaxBraceWords (100000)"},
		{"eval", "eval '" + many + "'", "MaxBraceWords (100000)"},
		{"source", "echo '" + many + "' > s.sh; . ./s.sh", "MaxBraceWords (100000)"},
	}
	for _, in := range interpreters {
		for _, c := range cases {
			t.Run(in+"/"+c.name, func(t *testing.T) {
				b := New(Options{Interpreter: in})
				fsys := newStore(t, fixture)
				var got result
				alloc := testenv.Allocated(func() {
					got = runScript(context.Background(), b, fsys, "echo before; "+c.script+"; echo after", "")
				})
				t.Logf("allocated %d KiB", alloc>>10)
				if alloc > 16<<20 {
					t.Errorf("allocated %d MiB, want under 16", alloc>>20)
				}
				if got.err != nil {
					t.Fatal(got.err)
				}
				if got.exit != ExitLimit || got.stdout != "before\n" || !strings.Contains(got.stderr, "desk: shell: limit exceeded: "+c.limit) {
					t.Fatalf("exit %d, stdout %q, stderr %q; want %d, before only, and the limit %s", got.exit, tail(got.stdout), tail(got.stderr), ExitLimit, c.limit)
				}
			})
		}
	}
}

// TestBraceLimit_count: the pre-count is exact (a product over the groups
// of a word, a sum over alternatives and over the words of a command), it
// counts only when the command is reached, and a command at the limit runs.
func TestBraceLimit_count(t *testing.T) {
	cases := []struct {
		script string
		limit  int
		ok     bool
	}{
		{`echo {1..3}{a,b}`, 6, true},
		{`echo {1..3}{a,b} {x,y}`, 7, false},
		{`echo {1..3}{a,b} {x,y}`, 8, true},
		{`echo {1..3}{a,{b,c}}`, 9, true},
		{`echo {1..3}{a,{b,c}}`, 8, false},
		{`echo {1..10..3} {z..a}`, 30, true},
		{`echo {1..10..3} {z..a}`, 29, false},
		{`echo x{,y}z plain words $v{1,2}`, 4, true},
		{`false && echo {1..100}; echo ok`, 10, true},
		{`f() { echo {1..100}; }; echo ok`, 10, true},
		{`f() { echo {1..100}; }; f`, 10, false},
	}
	for _, in := range interpreters {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%s/%d", in, c.script, c.limit), func(t *testing.T) {
				got := runScript(context.Background(), New(Options{MaxBraceWords: c.limit, Interpreter: in}), newStore(t, fixture), c.script, "")
				if got.err != nil {
					t.Fatal(got.err)
				}
				limited := got.exit == ExitLimit && strings.Contains(got.stderr, fmt.Sprintf("limit exceeded: MaxBraceWords (%d)", c.limit))
				if limited == c.ok || (c.ok && got.exit != 0) {
					t.Fatalf("exit %d, stderr %q; want ok=%v", got.exit, got.stderr, c.ok)
				}
			})
		}
	}
}
