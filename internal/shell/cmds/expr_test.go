package cmds

import (
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestExpr(t *testing.T) {
	th := "Try 'expr --help' for more information.\n"
	runTextRows(t, []textRow{
		{args: []string{"expr", "2", "+", "3", "*", "4"}, out: "14\n"},
		{args: []string{"expr", "(", "1", "+", "2", ")", "*", "3"}, out: "9\n"},
		{args: []string{"expr", "-5", "/", "2"}, out: "-2\n"},
		{args: []string{"expr", "5", "%", "-3"}, out: "2\n"},
		{args: []string{"expr", "1", "-", "-1"}, out: "2\n"},
		{args: []string{"expr", "99999999999999999999", "*", "99999999999999999999"}, out: "9999999999999999999800000000000000000001\n"},
		{args: []string{"expr", "007", "=", "7"}, out: "1\n"},
		{args: []string{"expr", "007"}, out: "007\n"},
		{args: []string{"expr", "-0"}, out: "-0\n", code: 1},
		{args: []string{"expr", "-"}, out: "-\n"},
		{args: []string{"expr", ""}, out: "\n", code: 1},
		{args: []string{"expr", "a", "<", "b"}, out: "1\n"},
		{args: []string{"expr", "10", "<", "9"}, out: "0\n", code: 1},
		{args: []string{"expr", "a", ">", "B"}, out: "1\n"},
		{args: []string{"expr", "5", "!=", "5"}, out: "0\n", code: 1},
		{args: []string{"expr", "x", "|", ""}, out: "x\n"},
		{args: []string{"expr", "", "|", ""}, out: "0\n", code: 1},
		{args: []string{"expr", "3", "&", "4"}, out: "3\n"},
		{args: []string{"expr", "", "&", "x"}, out: "0\n", code: 1},
		{name: "or does not evaluate its right side", args: []string{"expr", "1", "|", "1", "/", "0"}, out: "1\n"},
		{name: "and does not evaluate its right side", args: []string{"expr", "0", "&", "1", "/", "0"}, out: "0\n", code: 1},
		{args: []string{"expr", "abc", ":", "a*"}, out: "1\n"},
		{args: []string{"expr", "abc", ":", "^a"}, out: "1\n"},
		{args: []string{"expr", "abc", ":", `a\(.\)c`}, out: "b\n"},
		{args: []string{"expr", "abc", ":", "x"}, out: "0\n", code: 1},
		{args: []string{"expr", "abc", ":", `x\(.\)`}, out: "\n", code: 1},
		{args: []string{"expr", "file.tar.gz", ":", `.*\.\(.*\)`}, out: "gz\n"},
		{args: []string{"expr", "match", "abc", "ab"}, out: "2\n"},
		{args: []string{"expr", "héllo", ":", ".*"}, out: "5\n"},
		{args: []string{"expr", "héllo", ":", `h\(.\)`}, out: "é\n"},
		{args: []string{"expr", "substr", "hello", "2", "3"}, out: "ell\n"},
		{args: []string{"expr", "substr", "héllo", "2", "2"}, out: "él\n"},
		{args: []string{"expr", "substr", "abc", "x", "1"}, out: "\n", code: 1},
		{args: []string{"expr", "substr", "abc", "0", "1"}, out: "\n", code: 1},
		{args: []string{"expr", "substr", "abc", "2", "99"}, out: "bc\n"},
		{args: []string{"expr", "index", "hello", "lo"}, out: "3\n"},
		{args: []string{"expr", "index", "héllo", "l"}, out: "3\n"},
		{args: []string{"expr", "length", "héllo"}, out: "5\n"},
		{args: []string{"expr", "length", ""}, out: "0\n", code: 1},
		{args: []string{"expr", "+", "match"}, out: "match\n"},
		{args: []string{"expr", "length", "+", "length"}, out: "6\n"},
		{args: []string{"expr", "--", "3"}, out: "3\n"},
		{args: []string{"expr", "1", "/", "0"}, errOut: "expr: division by zero\n", code: 2},
		{args: []string{"expr", "a", "+", "1"}, errOut: "expr: non-integer argument\n", code: 2},
		{args: []string{"expr", "1", "+"}, errOut: "expr: syntax error: missing argument after ‘+’\n", code: 2},
		{args: []string{"expr", "(", "1"}, errOut: "expr: syntax error: expecting ')' after ‘1’\n", code: 2},
		{args: []string{"expr", "(", "1", "2"}, errOut: "expr: syntax error: expecting ')' instead of ‘2’\n", code: 2},
		{args: []string{"expr", "1", "2"}, errOut: "expr: syntax error: unexpected argument ‘2’\n", code: 2},
		{args: []string{"expr", ")"}, errOut: "expr: syntax error: unexpected ')'\n", code: 2},
		{args: []string{"expr", "length"}, errOut: "expr: syntax error: missing argument after ‘length’\n", code: 2},
		{args: []string{"expr", "a", ":", `\(`}, errOut: "expr: Unmatched ( or \\(\n", code: 2},
		{args: []string{"expr"}, errOut: "expr: missing operand\n" + th, code: 2},
	})
}

// exprWords are the tokens TestExpr_gnu builds expressions from.
var exprWords = []string{
	"0", "1", "2", "7", "-3", "007", "-0", "00", "10", "123456789012345678901234567890", "-98765432109876543210",
	"a", "abc", "", "-", "héllo", "x1", "b", "B", "0x", " ", "1.5",
	"match", "substr", "index", "length", "+", "-", "*", "/", "%", ":", "|", "&",
	"<", "<=", "=", "==", "!=", ">=", ">", "(", ")",
}

// exprPatterns are regular expressions for the right side of ':'.
var exprPatterns = []string{"a*", ".*", `\(.\)`, `a\(b*\)`, "[0-9]*", `\(x\)*`, "^a", "b", `.*\(.\)`, `[[:digit:]]*`, `\(`, "a\\{2\\}", "x*$", `\)`}

// exprGen builds a random, mostly well-formed expression.
func exprGen(r *rand.Rand, depth int) []string {
	atom := func() []string {
		if r.IntN(3) == 0 {
			return []string{strconv.Itoa(r.IntN(41) - 20)}
		}
		return []string{exprWords[r.IntN(22)]}
	}
	if depth <= 0 {
		return atom()
	}
	switch r.IntN(9) {
	case 0, 1, 2:
		ops := []string{"+", "-", "*", "/", "%", "|", "&", "<", "<=", "=", "!=", ">=", ">"}
		return append(append(exprGen(r, depth-1), ops[r.IntN(len(ops))]), exprGen(r, depth-1)...)
	case 3:
		return append(append(atom(), ":"), exprPatterns[r.IntN(len(exprPatterns))])
	case 4:
		return append([]string{"("}, append(exprGen(r, depth-1), ")")...)
	case 5:
		kw := []string{"length", "index", "substr", "match"}[r.IntN(4)]
		out := []string{kw}
		n := map[string]int{"length": 1, "index": 2, "substr": 3, "match": 2}[kw]
		for i := 0; i < n; i++ {
			out = append(out, atom()...)
		}
		return out
	case 6:
		// A random token somewhere: a syntax error, most often.
		e := exprGen(r, depth-1)
		i := r.IntN(len(e) + 1)
		return append(e[:i:i], append([]string{exprWords[r.IntN(len(exprWords))]}, e[i:]...)...)
	default:
		return atom()
	}
}

// TestExpr_gnu runs generated expressions through GNU expr and desk's:
// stdout, stderr and the exit status must be the same.
func TestExpr_gnu(t *testing.T) {
	if _, err := exec.LookPath("expr"); err != nil {
		requireTool(t, "expr")
	}
	r := rand.New(rand.NewPCG(17, 3))
	n := 1500
	if testing.Short() {
		n = 300
	}
	f := newStore(t, nil)
	for i := 0; i < n; i++ {
		e := exprGen(r, 1+r.IntN(4))
		cmd := exec.Command("expr", e...)
		cmd.Env = []string{"LANG=C.UTF-8"}
		want, wantErr, wantStatus := runGNU(t, cmd)
		got, gotErr, status := runIn(t, f, "/work", "", append([]string{"expr"}, e...)...)
		if got != want || gotErr != wantErr || status != wantStatus {
			t.Errorf("expr %q:\n got %q %q %d\nGNU %q %q %d", e, got, gotErr, status, want, wantErr, wantStatus)
		}
	}
}

// TestExpr_tooLarge: a product past MaxReadBytes is refused, not built.
func TestExpr_tooLarge(t *testing.T) {
	big := "1" + strings.Repeat("0", 4000)
	_, errOut, code := runLimited(t, 1000, "expr", "", big, "*", big)
	if code != 3 || !strings.Contains(errOut, ErrTooLarge.Error()) {
		t.Fatalf("status %d, stderr %q", code, errOut)
	}
}
