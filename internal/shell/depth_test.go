package shell

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestCallDepth_frames pins the interpreter behaviour MaxCallDepth rests on
// (see frameFile): a frame is entered when a function, eval'd string,
// sourced file, subshell or command substitution starts, and left when it
// ends, however it ends. Each case runs at exactly the limit (it must
// succeed) and one past it (it must stop with the limit): an upgrade of
// mvdan.cc/sh that stops opening or closing a statement's redirections
// around its run fails here.
func TestCallDepth_frames(t *testing.T) {
	const max = 20
	cases := []struct {
		name string
		// script(n) nests n frames (the script's own top level is none).
		script func(n int) string
	}{
		{"function", func(n int) string {
			return fmt.Sprintf(`f() { if (( $1 > 1 )); then f $(( $1 - 1 )); fi; }; f %d; echo ok`, n)
		}},
		{"eval", func(n int) string {
			return fmt.Sprintf(`n=%d; s='n=$((n-1)); if ((n > 0)); then eval "$s"; fi'; eval "$s"; echo ok`, n)
		}},
		{"source", func(n int) string {
			return fmt.Sprintf(`echo 'n=$((n-1)); if ((n > 0)); then . ./r.sh; fi' > r.sh; n=%d; . ./r.sh; echo ok`, n)
		}},
		{"subshell", func(n int) string {
			return strings.Repeat("( ", n) + "true" + strings.Repeat(" )", n) + "; echo ok"
		}},
		{"command substitution", func(n int) string {
			return "x=" + strings.Repeat("$(", n) + "echo" + strings.Repeat(")", n) + "; echo ok"
		}},
		{"function in a pipeline", func(n int) string {
			return fmt.Sprintf(`f() { if (( $1 > 1 )); then echo | f $(( $1 - 1 )); fi; }; f %d; echo ok`, n)
		}},
	}
	for _, in := range interpreters {
		testCallDepthFrames(t, in, max, cases)
	}
}

func testCallDepthFrames(t *testing.T, in string, max int, cases []struct {
	name   string
	script func(n int) string
}) {
	b := New(Options{MaxCallDepth: max, Interpreter: in})
	for _, c := range cases {
		t.Run(in+"/"+c.name, func(t *testing.T) {
			got := runScript(context.Background(), b, newStore(t, fixture), c.script(max), "")
			if got.err != nil || got.exit != 0 || got.stdout != "ok\n" || got.stderr != "" {
				t.Fatalf("%d frames (the limit): exit %d stdout %q stderr %q err %v", max, got.exit, got.stdout, got.stderr, got.err)
			}
			got = runScript(context.Background(), b, newStore(t, fixture), c.script(max+1), "")
			want := fmt.Sprintf("desk: shell: limit exceeded: MaxCallDepth (%d)\n", max)
			if got.err != nil || got.exit != ExitLimit || got.stderr != want || got.stdout != "" {
				t.Fatalf("%d frames: exit %d stdout %q stderr %q err %v; want %d and %q", max+1, got.exit, got.stdout, got.stderr, got.err, ExitLimit, want)
			}
		})
	}
}

// TestCallDepth_left: frames are left however their function, eval, source
// or subshell ends, so many calls in a row never reach a small limit.
func TestCallDepth_left(t *testing.T) {
	for _, in := range interpreters {
		testCallDepthLeft(t, in)
	}
}

func testCallDepthLeft(t *testing.T, in string) {
	b := New(Options{MaxCallDepth: 3, Interpreter: in})
	script := `f() { return 1; }
g() { false; }
h() { echo x 2>/dev/null >/nodir/x; }
k() { (exit 3); }
echo 'return 2' > r.sh
for i in $(seq 300); do
  f; g; h 2>/dev/null; k; eval 'false'; . ./r.sh; (exit 1); x=$(false); f | g
done
echo done`
	got := runScript(context.Background(), b, newStore(t, fixture), script, "")
	if got.err != nil || got.exit != 0 || got.stdout != "done\n" || got.stderr != "" {
		t.Fatalf("%s: exit %d stdout %q stderr %q err %v", in, got.exit, got.stdout, tail(got.stderr), got.err)
	}
}

// TestCallDepth_hostile: unbounded recursion of every kind ends with the
// limit at the default MaxCallDepth, with memory bounded.
func TestCallDepth_hostile(t *testing.T) {
	scripts := []string{
		`f() { f; }; f`,
		`f() { f | f; }; f`,
		`f() { echo | f; }; f`,
		`f() { (f); }; f`,
		`f() { x=$(f); }; f`,
		`f() { f & wait; }; f`,
		`s='eval "$s"'; eval "$s"`,
		`echo '. ./r.sh' > r.sh; . ./r.sh`,
	}
	for _, in := range interpreters {
		b := New(Options{Interpreter: in})
		for _, s := range scripts {
			t.Run(in+"/"+s, func(t *testing.T) { callDepthHostile(t, b, s) })
		}
	}
}

func callDepthHostile(t *testing.T, b *Backend, s string) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := runScript(context.Background(), b, newStore(t, fixture), s, "")
	runtime.ReadMemStats(&after)
	want := fmt.Sprintf("desk: shell: limit exceeded: MaxCallDepth (%d)", DefaultMaxCallDepth)
	if got.err != nil || got.exit != ExitLimit || !strings.Contains(got.stderr, want) {
		t.Fatalf("exit %d stderr %q err %v; want %d and %q", got.exit, tail(got.stderr), got.err, ExitLimit, want)
	}
	const bound = 256 << 20
	d := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %.1f MiB", float64(d)/(1<<20))
	if d > bound {
		t.Errorf("allocated %d MiB, want at most %d MiB", d>>20, bound>>20)
	}
}

// TestPid: $$ and $PPID are the execution's (execPid), not the host's, and
// $$ is the same in subshells and command substitutions, as in bash; a
// name computed at run time does not reach the host's either.
func TestPid(t *testing.T) {
	b := New(Options{})
	script := `echo $$ ${$} "$$" $PPID ${PPID} $((PPID)) $(( $$ )); (echo $$); echo $(echo $$); eval 'echo $$$$x'; echo "$$" | cat`
	got := runScript(context.Background(), b, newStore(t, fixture), script, "")
	pid := strconv.Itoa(execPid("test"))
	want := strings.Join([]string{pid, pid, pid, "1", "1", "1", pid}, " ") + "\n" + pid + "\n" + pid + "\n" + pid + pid + "x\n" + pid + "\n"
	if got.stdout != want || got.exit != 0 || got.stderr != "" {
		t.Fatalf("stdout %q stderr %q exit %d; want %q", got.stdout, got.stderr, got.exit, want)
	}
	for _, host := range []int{os.Getpid(), os.Getppid()} {
		if strings.Contains(got.stdout, strconv.Itoa(host)) {
			t.Errorf("stdout %q shows the host pid %d", got.stdout, host)
		}
	}
	if execPid("a") == execPid("b") {
		t.Errorf("two executions got the same $$ %d", execPid("a"))
	}
}
