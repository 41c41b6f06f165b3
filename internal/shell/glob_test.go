package shell

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// TestGlobLimit_hostile: a glob over a directory far larger than
// MaxGlobEntries reads it a page at a time and stops at the limit, within a
// memory bound (the whole directory is never listed); a directory of
// exactly the limit expands.
func TestGlobLimit_hostile(t *testing.T) {
	ctx := context.Background()
	fsys := newStore(t, fixture)
	const n = 20000
	if err := fsys.MkdirAll(ctx, "/work/big", 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := fsys.WriteFile(ctx, fmt.Sprintf("/work/big/f%05d", i), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, in := range interpreters {
		t.Run(in, func(t *testing.T) {
			var got result
			alloc := testenv.Allocated(func() {
				got = runScript(ctx, New(Options{MaxGlobEntries: 500, Interpreter: in}), fsys, "echo big/*; echo after", "")
			})
			t.Logf("allocated %d KiB", alloc>>10)
			if alloc > 1<<20 {
				t.Errorf("allocated %d KiB, want under 1024", alloc>>10)
			}
			if got.err != nil {
				t.Fatal(got.err)
			}
			if got.exit != ExitLimit || got.stdout != "" || !strings.Contains(got.stderr, "desk: shell: limit exceeded: MaxGlobEntries (500)") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d and MaxGlobEntries", got.exit, tail(got.stdout), tail(got.stderr), ExitLimit)
			}
			// At the limit exactly: every name, once. mvdan's interpreter
			// reads big twice (once to check that it is a directory), so
			// it counts 2n; desk's reads it once.
			reads := 1
			if in == InterpMvdan {
				reads = 2
			}
			got = runScript(ctx, New(Options{MaxGlobEntries: reads * n, Interpreter: in}), fsys, "set -- big/*; echo $# $1; shift $(($# - 1)); echo $1", "")
			if want := fmt.Sprintf("%d big/f00000\nbig/f%05d\n", n, n-1); got.exit != 0 || got.stdout != want {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %q", got.exit, got.stdout, tail(got.stderr), want)
			}
			got = runScript(ctx, New(Options{MaxGlobEntries: reads*n - 1, Interpreter: in}), fsys, "set -- big/*", "")
			if got.exit != ExitLimit {
				t.Fatalf("at %dn-1: exit %d, stderr %q; want %d", reads, got.exit, tail(got.stderr), ExitLimit)
			}
			// The count is per command: two globs of n entries each in
			// two commands fit a limit of n reads.
			got = runScript(ctx, New(Options{MaxGlobEntries: reads * n, Interpreter: in}), fsys, "set -- big/*; set -- big/* $#; echo $#", "")
			if want := fmt.Sprintf("%d\n", n+1); got.exit != 0 || got.stdout != want {
				t.Fatalf("two commands: exit %d, stdout %q, stderr %q; want %q", got.exit, got.stdout, tail(got.stderr), want)
			}
		})
	}
}
