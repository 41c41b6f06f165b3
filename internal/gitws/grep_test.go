package gitws

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestGrep_bounds checks git grep's bounds: a work-tree file or blob over
// Env.MaxObjectBytes is skipped with a warning (the others are searched),
// a hostile expression is refused before it is compiled, and a cancelled
// context stops the search.
func TestGrep_bounds(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if err := s.fs.WriteFile(ctx, "/w/big", []byte(strings.Repeat("foo\n", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.fs.WriteFile(ctx, "/w/small", []byte("foo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.ok("/w", "init", "-q")
	s.ok("/w", "add", "-A")
	s.ok("/w", "commit", "-qm", "x")
	run := func(ctx context.Context, max int64, args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		st := Main(&Env{Ctx: ctx, FS: s.fs, Dir: "/w", Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return s.vars[k] }, MaxObjectBytes: max}, append([]string{"git", "grep"}, args...))
		return out.String(), errb.String(), st
	}
	for _, args := range [][]string{{"-c", "foo"}, {"-c", "foo", "HEAD"}, {"--cached", "-c", "foo"}} {
		out, errs, st := run(ctx, 100, args...)
		if st != 0 || !strings.Contains(errs, "warning: skipping '") || strings.Contains(out, "big") || !strings.Contains(out, "small:1") {
			t.Errorf("grep %q with a 100-byte bound: status %d, stdout %q, stderr %q", args, st, out, errs)
		}
		out, _, st = run(ctx, 0, args...)
		if st != 0 || !strings.Contains(out, "big") {
			t.Errorf("grep %q unbounded: status %d, stdout %q", args, st, out)
		}
	}
	if _, errs, st := run(ctx, 0, "-E", strings.Repeat("[a-y]{0,1000}z", 1000)); st != ExitFatal || !strings.Contains(errs, "too large") {
		t.Errorf("hostile expression: status %d, stderr %q", st, errs)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if out, _, st := run(cctx, 0, "foo"); st == 0 || out != "" {
		t.Errorf("cancelled: status %d, stdout %q", st, out)
	}
}
