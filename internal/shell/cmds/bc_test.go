package cmds

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// bcAdr is the byte code address in GNU bc's runtime messages, which
// desk's bc prints as 0.
var bcAdr = regexp.MustCompile(`adr=[0-9]+\)`)

// bcGNU runs GNU bc with args on stdin in.
func bcGNU(t *testing.T, in string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command("bc", args...)
	cmd.Env = []string{"LANG=C.UTF-8"}
	cmd.Stdin = strings.NewReader(in)
	out, errOut, st := runGNU(t, cmd)
	return out, bcAdr.ReplaceAllString(errOut, "adr=0)"), st
}

// bcScripts are programs TestBc_gnu runs through both.
var bcScripts = []string{
	"1; quit",
	"1+; 2\n3",
	"scale=3; 0.000; 1/3; -1/3; 0.5*1",
	"2^300",
	"obase=16; 255; 3.5; -10",
	"obase=20; 12345; 1.5",
	"obase=2; 10; 0.75; scale=5; 1/3",
	"obase=8; -12.25",
	"obase=100; 123456789.5",
	"1/0; 5\n6",
	"x=3; x++; x; ++x; -x^2",
	"print \"a\\n\", 1, \"\\n\"",
	"\"hi\n\"",
	"define f(x) { auto y; y = x*2; return (y); }\nf(3)",
	"define f(n) {\n if (n <= 1) return (1)\n return (n * f(n-1))\n}\nf(30)",
	"define g(a[], n) { auto i, s; for (i = 0; i < n; i++) s += a[i]; return s; }\nfor (i = 0; i < 5; i++) b[i] = i*i\ng(b[], 5)",
	"define h(*a[]) { a[0] = 7; }\nz = h(c[]); c[0]",
	"ibase=16; FF; ibase=2; 101",
	"ibase=16; 0.8; 0.1; 1A; A; G",
	"ibase=1; ibase=17; ibase",
	"obase=1; obase",
	"scale=-1",
	"a[3]=5; a[3]; a[1]",
	"scale=2; 7%3; 7.5%2; -7%3",
	"sqrt(2); scale=10; sqrt(2); sqrt(0.0001); sqrt(-1)",
	"length(0); length(0.001); length(0.000); length(1.0); length(-12.5); scale(0.000)",
	"(a=5); a",
	"x = 1 < 2; x",
	"a=2; a^=3; a; a%=3; a; a*=4; a; a/=3; a; a-=1; a",
	"2^-1; scale=3; 2^-2; 2^1.5; 0^0; (-2)^3; 1.5^3",
	"halt; 1",
	"last; 5; last; .",
	"if (1) 5 else 6\nwhile (i<3) { i; i+=1 }\nfor (j=0;j<2;j++) j\nfor (;;) { break }",
	"i = 0\nwhile (1) {\n  i = i + 1\n  if (i == 3) continue\n  if (i > 5) break\n  i\n}",
	"/* comment */ 1 + 2 # another\n3 \\\n+ 4",
	"1 == 1; 1 != 1; 2 > 1; 1 >= 2; !0; !5; 1 && 0; 0 || 3",
	"x = 5; y = x--; x; y",
	"print 1, 2, \"\\t\", 3.5, \"\\n\"",
	"scale = 20; 1/7; obase = 16; 1/7",
	"99999999999999999999999999999 * 99999999999999999999999999999",
	"print \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", 2^200, \"\\n\"",
	"f(2)",
	"define f() { return; }\nf()",
	"define f(x) { x; }\nf(1)",
	"a = 3\ndefine p(){ a = 9; }\nq = p(); a",
	"define k(a) { return (a + b); }\nb = 2; k(3)",
	"scale=4; 10/4; 10.0/4; 1.23*4.5; 1.2345*1.1",
	"3 +\n4",
	"foo_bar1 = 6; foo_bar1 * 7",
	"x=-.01 * .01; x\n(-.1)^3\n-.001/10\n-0\n(-.1)^3 + 0\n-((-.1)^3)\nsqrt((-.1)^3)\nx=(-.1)^3; x; x==0; x<0",
	"a = 1 +\n",
	"}\n2",
	"1 @ 2\n3",
	"1 @\n3",
	"1\n\"abc\n",
	"1\n/* abc\n",
	"define f(x) {\n  return (x+1)\n}\nf(f(1))",
}

// bcMathScripts are run with -l.
var bcMathScripts = []string{
	"s(1); c(1); a(1); l(2); e(1); j(0,1)",
	"4*a(1)",
	"l(0); l(-1)",
	"e(-1); e(10); e(0.5); e(-20.5)",
	"l(10); l(0.001); l(1); l(123456.789)",
	"s(0); s(3.14159); s(-2); s(100); c(0); c(2); c(-7.5)",
	"a(-1); a(0.1); a(5); a(1000); a(0)",
	"j(1, 2); j(2, 0.5); j(-1, 1); j(3, -2)",
	"scale=5; s(1); e(2); l(3); a(2)",
	"scale=50; 4*a(1); e(1)",
	"scale=0; e(1); l(5)",
	"x = 2; scale; sqrt(x)",
}

// TestBc_gnu runs bc programs, written and generated, through GNU bc and
// desk's: stdout, stderr (the byte code addresses aside) and the exit
// status must agree.
func TestBc_gnu(t *testing.T) {
	if _, err := exec.LookPath("bc"); err != nil {
		requireTool(t, "bc")
	}
	f := newStore(t, nil)
	check := func(in string, args ...string) {
		t.Helper()
		want, wantErr, wantSt := bcGNU(t, in, args...)
		got, gotErr, st := runIn(t, f, "/work", in, append([]string{"bc"}, args...)...)
		if got != want || gotErr != wantErr || st != wantSt {
			t.Errorf("bc %q <<< %q:\n got %q %q %d\nGNU %q %q %d", args, in, got, gotErr, st, want, wantErr, wantSt)
		}
	}
	for _, s := range bcScripts {
		check(s + "\n")
	}
	for _, s := range bcMathScripts {
		check(s+"\n", "-l")
	}
	r := rand.New(rand.NewPCG(5, 8))
	n := 600
	if testing.Short() {
		n = 100
	}
	for i := 0; i < n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "scale=%d\n", r.IntN(12))
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "obase=%d\n", []int{2, 8, 16, 7, 20, 10}[r.IntN(6)])
		}
		for k := 0; k < 3; k++ {
			b.WriteString(bcGen(r, 3))
			b.WriteString("\n")
		}
		args := []string{}
		if r.IntN(3) == 0 {
			args = append(args, "-l")
		}
		check(b.String(), args...)
	}
}

// bcGen is a random expression.
func bcGen(r *rand.Rand, depth int) string {
	atoms := []string{"0", "1", "2", "3", "7", "10", "0.5", ".25", "1.125", "123456789.987654321", "99999999999", "-4", "x", "y", "a[2]", "scale"}
	if depth <= 0 {
		return atoms[r.IntN(len(atoms))]
	}
	switch r.IntN(10) {
	case 0, 1, 2, 3:
		ops := []string{"+", "-", "*", "/", "%", "^", "<", "==", "&&", "||"}
		op := ops[r.IntN(len(ops))]
		if op == "^" {
			return "(" + bcGen(r, depth-1) + ")^" + []string{"2", "3", "-1", "0", "5", "1.5"}[r.IntN(6)]
		}
		return "(" + bcGen(r, depth-1) + " " + op + " " + bcGen(r, depth-1) + ")"
	case 4:
		return "-(" + bcGen(r, depth-1) + ")"
	case 5:
		return "sqrt(" + bcGen(r, depth-1) + "^2)"
	case 6:
		return []string{"x", "y", "a[2]"}[r.IntN(3)] + []string{"=", "+=", "*=", "-="}[r.IntN(4)] + bcGen(r, depth-1)
	case 7:
		return []string{"length", "scale"}[r.IntN(2)] + "(" + bcGen(r, depth-1) + ")"
	default:
		return atoms[r.IntN(len(atoms))]
	}
}

// TestBc_limits: hostile programs end on a documented limit, at once.
func TestBc_limits(t *testing.T) {
	for _, c := range []struct{ in, args, err string }{
		{"scale=200000; 1", "", "Runtime error (func=(main), adr=0): scale too large for the shell backend's bc (at most 100000)\n"},
		{"scale=100000; 4*a(1)", "-l", "Runtime error (func=a, adr=0): scale too large for the shell backend's bc (at most 100000)\n"},
		{"2^10000000", "", "Runtime error (func=(main), adr=0): " + errBcTooLarge.Error() + "\n"},
		{"9^9^9", "", "Runtime error (func=(main), adr=0): " + errBcTooLarge.Error() + "\n"},
		{"define f(x) { return (f(x+1)); }\nf(1)", "", "Runtime error (func=f, adr=0): function calls nested too deeply for the shell backend's bc (at most 2000)\n"},
		{strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000), "", "(standard_in) 1: syntax error\n"},
	} {
		args := []string{"bc"}
		if c.args != "" {
			args = append(args, c.args)
		}
		_, errOut, _ := run(t, nil, c.in+"\n", args...)
		if errOut != c.err {
			t.Errorf("bc %s <<< %.40q: stderr %q, want %q", c.args, c.in, errOut, c.err)
		}
	}
}

// FuzzBc: any program parses and runs without a panic, within the limits.
func FuzzBc(f *testing.F) {
	for _, s := range bcScripts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 2000 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		var out, errb strings.Builder
		env := &Env{Ctx: ctx, Stdin: strings.NewReader(src), Stdout: &out, Stderr: &errb,
			Getenv: func(string) string { return "" }, Limits: Limits{MaxReadBytes: 1 << 20}}
		Bc(env, []string{"bc", "-l"})
	})
}
