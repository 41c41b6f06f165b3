package shell

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	dinterp "github.com/desk-dev/desk/internal/shell/interp"
)

// grammar is what FuzzDeskInterp builds scripts from: each byte of the
// input picks a fragment (words, expansions, operators, compound commands),
// so that most inputs are scripts that parse and reach the interpreter.
var grammar = []string{
	"echo ", "x=", "a=(", ")", "${x", "}", "${#a[@]}", "${a[", "]", "$((", "))", "((", "c[$k]++", "$(", "`",
	"'", "\"", "\\", " ", "; ", "\n", "| ", "|| ", "&& ", "& ", "! ", "if ", "then ", "else ", "fi", "for i in ",
	"do ", "done", "while ", "until ", "case ", " in ", ") ", ";; ", "esac", "{ ", "} ", "( ", "f() ", "f ",
	"local ", "declare -A ", "declare -n ", "read -r ", "<<<", "<<EOF\n", "EOF\n", "> o ", "< a.txt ", "2>&1 ",
	">&3 ", "exec 3>f ", "{fd}>g ", "<(", ">(", "*", "?", "[a-z]", "@(", "!(", "{1..3}", "{a,b}", "IFS=_ ",
	"set -e ", "set -u ", "set -o pipefail ", "shopt -s nullglob ", "trap 'echo t' EXIT ", "eval ", "source ",
	"mapfile -t ", "printf -v ", "%s ", "[[ ", " ]]", "[ ", " =~ ", " == ", " -eq ", " -O ", "shift ", "return ",
	"break ", "continue ", "exit ", "$@", "$*", "$#", "$?", "$1", "${!x}", "${x:-d}", "${x//a/b}", "${x^^}",
	"${x@Q}", "${x:1:2}", "k", "a", "0", "1", "-1", "9223372036854775807", "2**63", "/", "%", "<<", ">>",
	"cat ", "wc -l ", "bash -c ", "sh -c ", "getopts ab o ", "let ", "unset ", "typeset -i ", "readonly ",
}

// fuzzSeeds are FuzzDeskInterp's seed corpus (TestBackend_canary runs them
// too, as text and through grammarScript).
var fuzzSeeds = []string{"echo hi", "declare -A c; ((c[$k]++)); echo ${#c[@]}", "IFS=_; x=_a_b_; printf '<%s>' $x",
	"f() { f; }; f", "while :; do :; done", "x=$(yes | head -c 100000); echo ${#x}", "a=({1..1000}); echo ${a[@]: -1}",
	"cat <(echo hi) > >(cat)", "exec 3>f; echo x >&3; exec {fd}<f; read -u $fd l; echo $l", "\x00\x01\x02\xff"}

func grammarScript(data []byte) string {
	var b strings.Builder
	for _, c := range data {
		b.WriteString(grammar[int(c)%len(grammar)])
	}
	return b.String()
}

// FuzzDeskInterp runs generated scripts on desk's interpreter with small
// limits: none may panic (a recovered panic is ErrInternal), outlive its
// limits, or touch the host (TestBackend_canary runs this corpus too).
func FuzzDeskInterp(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	st := newStore(f, fixture)
	be := New(Options{Interpreter: InterpDesk, MaxCommands: 20000, MaxLoopIters: 20000, MaxCallDepth: 100,
		MaxStringBytes: 1 << 20, MaxVarBytes: 4 << 20, MaxMemoryBytes: 32 << 20, MaxOutputBytes: 1 << 20})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, script := range []string{string(data), grammarScript(data)} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			done := make(chan result, 1)
			go func() { done <- runScript(ctx, be, st, script, "in\n") }()
			var got result
			select {
			case got = <-done:
			case <-time.After(time.Minute):
				t.Fatalf("script ran past its deadline: %q", script)
			}
			cancel()
			if errors.Is(got.err, dinterp.ErrInternal) || strings.Contains(got.stderr, dinterp.ErrInternal.Error()) {
				t.Fatalf("panic on %q: %v %s", script, got.err, got.stderr)
			}
			if got.err != nil && !errors.Is(got.err, run.ErrNoNetwork) {
				t.Fatalf("Run error on %q: %v", script, got.err)
			}
		}
	})
}
