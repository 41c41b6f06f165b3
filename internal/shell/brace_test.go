package shell

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/shell/interp"
	"github.com/desk-dev/desk/internal/testenv"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
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

// TestBraceSize_bash: the one brace-expansion count both interpreters use
// (interp.BraceSize) reads each word's sequences as bash 5.2 expands them
// and as mvdan's expand.Braces does: the same words, and, for a word of
// plain literal text, no fewer bytes than bash makes (quoted text and
// expansions count no bytes: their size is checked when they run).
func TestBraceSize_bash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash: ", err)
	}
	words := []string{
		`{1..10}`, `{10..1}`, `{1..10..3}`, `{1..10..-3}`, `{10..1..0}`, `{-5..5}`,
		`{05..-5}`, `{-05..05}`, `{0001..3}`, `{1..003}`, `{+1..3}`, `{1..2..+1}`,
		`{-1..-10..4}`, `{a..z}`, `{z..a}`, `{a..z..3}`, `{a..Z}`, `{Z..a..2}`,
		`{A..C}{1..2}`, `x{1..3}y{a,b}`, `{a,b{1..3},c}`, `{1..3}{a,{b,{c,d}}}`,
		`{1.."3"}`, `{a..b..x}`, `{1..a}`, `{aa..b}`, `{1..2..3..4}`, `{1..5}$x{a,b}`,
		`x{,y}z`, `{}`, `{a}`, `{1..1}`, `{0..0..5}`, `{-0..3}`, `{00..-0}`,
		`{'a','b'}{1..2}`, `{-9223372036854775807..-9223372036854775805}`,
	}
	// mvdan.cc/sh v3.14.1 steps past the largest int64 and wraps: it stops
	// at its own 16,384 words per word with an error, where bash makes 3.
	const overflow = `{9223372036854775805..9223372036854775807}`
	words = append(words, overflow)
	p := syntax.NewParser()
	for _, w := range words {
		t.Run(w, func(t *testing.T) {
			f, err := p.Parse(strings.NewReader("printf '%s\\0' "+w), "")
			if err != nil {
				t.Fatal(err)
			}
			word := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[2]
			plain := true
			for _, p := range word.Parts {
				_, lit := p.(*syntax.Lit)
				plain = plain && lit
			}
			n, b, ok := interp.BraceSize(word)
			out, err := exec.Command(bash, "-c", "x=; printf '%s\\0' "+w).Output()
			if err != nil {
				t.Fatal(err)
			}
			bashWords := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			var bashBytes int64
			for _, s := range bashWords {
				bashBytes += int64(len(s))
			}
			if !ok {
				if len(bashWords) != 1 || bashWords[0] != word.Lit() {
					t.Fatalf("no brace expansion read; bash makes %q", bashWords)
				}
				return
			}
			if n != int64(len(bashWords)) || plain && b < bashBytes {
				t.Fatalf("counted %d words of %d bytes; bash makes %d of %d: %q", n, b, len(bashWords), bashBytes, bashWords)
			}
			cp := *word
			if !syntax.SplitBraces(&cp) {
				t.Fatal("syntax.SplitBraces finds no brace expression")
			}
			var mvdan int64
			var mvdanErr error
			for _, err := range expand.BracesSeq(nil, &cp) {
				if err != nil {
					mvdanErr = err
					break
				}
				mvdan++
			}
			if w == overflow {
				if mvdanErr == nil {
					t.Fatalf("mvdan's expand.Braces makes %d words without its error: is the overflow fixed? Then this row joins the others", mvdan)
				}
				return
			}
			if mvdanErr != nil || mvdan != n {
				t.Fatalf("counted %d words; mvdan's expand.Braces makes %d (%v)", n, mvdan, mvdanErr)
			}
		})
	}
}
