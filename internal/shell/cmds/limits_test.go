package cmds

import (
	"runtime"
	"strings"
	"testing"
)

// hostile runs one command with a hostile input and checks it ends with the
// documented error while allocating at most bound bytes (runtime.MemStats).
func hostile(t *testing.T, bound uint64, stdin, wantErr string, wantCode int, args ...string) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, errs, code := run(t, nil, stdin, args...)
	runtime.ReadMemStats(&after)
	if code != wantCode || !strings.Contains(errs, wantErr) {
		t.Errorf("%.60q: code %d stderr %.200q (stdout %d bytes); want %d and %q", args, code, errs, len(out), wantCode, wantErr)
	}
	d := after.TotalAlloc - before.TotalAlloc
	t.Logf("%.60q: allocated %.1f MiB", args, float64(d)/(1<<20))
	if d > bound {
		t.Errorf("%.60q: allocated %d MiB, want at most %d MiB", args, d>>20, bound>>20)
	}
}

func TestLimits_printf(t *testing.T) {
	const bound = 16 << 20
	hostile(t, bound, "", "%999999999d: Numerical result out of range: field width or precision over 1048576", 1, "printf", "%999999999d", "1")
	hostile(t, bound, "", "field width or precision over 1048576", 1, "printf", "%.999999999f", "1")
	hostile(t, bound, "", "field width or precision over 1048576", 1, "printf", "%*s", "99999999999999999999", "x")
}

func TestLimits_jq(t *testing.T) {
	const bound = 64 << 20
	deep := strings.Repeat("[", MaxJqDepth+1) + strings.Repeat("]", MaxJqDepth+1)
	hostile(t, bound, "", "jq: error: filter nested deeper than 10000", 3, "jq", "-n", deep)
	hostile(t, bound, "", "jq: error (at <unknown>): value nested deeper than 10000", 5, "jq", "-n", "reduce range(10001) as $i (0; [.])")
	// A JSON input as deep fails when printed.
	hostile(t, bound, deep, "jq: error (at <stdin>:0): value nested deeper than 10000", 5, "jq", ".")
	// At the limit: printed.
	out, errs, code := run(t, nil, "", "jq", "-c", "-n", "reduce range(10000) as $i (0; [.])")
	if code != 0 || errs != "" || len(out) != 2*10000+2 {
		t.Errorf("10000 levels: code %d stderr %q, %d bytes of output", code, errs, len(out))
	}
}

func TestLimits_regex(t *testing.T) {
	// The expression itself is 1 MiB; translating it copies it a few times.
	const bound = 64 << 20
	big := strings.Repeat("a", maxRegexpBytes+1)
	hostile(t, bound, "a\n", "regular expression too large", 2, "grep", big)
	hostile(t, bound, "a\n", "regular expression too large", 1, "csplit", "-", "/"+big+"/")
	hostile(t, bound, "a\n", "regular expression too large", 1, "sed", "s/"+big+"/x/")
	hostile(t, bound, "a\n", "regular expression too large", 1, "tac", "-r", "-s", big)
	// At the limit it compiles.
	near := strings.Repeat("b", 64<<10) + "|a"
	out, errs, code := run(t, nil, "a\n", "grep", "-E", "-c", near)
	if code != 0 || out != "1\n" {
		t.Errorf("grep near the limit: code %d out %q stderr %.100q", code, out, errs)
	}
}
