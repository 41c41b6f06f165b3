package shell

import (
	"bytes"
	"context"
	"os/exec"
	"testing"

	dinterp "github.com/desk-dev/desk/internal/shell/interp"
)

// BenchmarkInterp_coldStart runs `true` through the backend on each
// interpreter (desk's target: under 100 µs; compare the sub-benchmarks of
// one run), and `bash -c true` (a process: what running it with bash
// costs).
func BenchmarkInterp_coldStart(b *testing.B) {
	b.Run("bash", func(b *testing.B) { benchBash(b, "true", "") })
	for _, name := range []string{InterpMvdan, InterpDesk} {
		b.Run(name, func(b *testing.B) {
			be := New(Options{Interpreter: name})
			f := newStore(b, fixture)
			ctx := context.Background()
			for b.Loop() {
				if r := runScript(ctx, be, f, "true", ""); r.exit != 0 || r.err != nil {
					b.Fatal(r)
				}
			}
		})
	}
}

// BenchmarkInterp_trueBare is desk's interpreter alone: a new runner and
// `true`, without the backend's store and limits.
func BenchmarkInterp_trueBare(b *testing.B) {
	ctx := context.Background()
	var out bytes.Buffer
	for b.Loop() {
		r := dinterp.New(ctx, &dinterp.Config{Stdout: &out, Stderr: &out, Dir: "/"})
		if st, err := r.RunSource("true"); st != 0 || err != nil {
			b.Fatal(st, err)
		}
	}
}

// BenchmarkInterp_loop is a loop of arithmetic and expansions on each
// interpreter and by bash -c.
func BenchmarkInterp_loop(b *testing.B) {
	const script = `s=0; for ((i=0; i<1000; i++)); do s=$((s+i)); x=${s%0}; done; echo $s`
	b.Run("bash", func(b *testing.B) { benchBash(b, script, "499500\n") })
	for _, name := range []string{InterpMvdan, InterpDesk} {
		b.Run(name, func(b *testing.B) {
			be := New(Options{Interpreter: name})
			f := newStore(b, fixture)
			ctx := context.Background()
			for b.Loop() {
				if r := runScript(ctx, be, f, script, ""); r.exit != 0 || r.stdout != "499500\n" {
					b.Fatal(r)
				}
			}
		})
	}
}

// benchBash runs script by bash -c, checking its output (when want is not
// empty).
func benchBash(b *testing.B, script, want string) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	for b.Loop() {
		out, err := exec.Command(bash, "-c", script).Output()
		if err != nil || (want != "" && string(out) != want) {
			b.Fatalf("bash -c: %v %q", err, out)
		}
	}
}
