package main

import (
	"strings"
	"testing"
)

// TestBench_Usage checks desk bench's command line; the measurement itself
// is tested in internal/fsbench.
func TestBench_Usage(t *testing.T) {
	if _, errs, code := desk(t, nil, "bench"); code != 2 || !strings.Contains(errs, "missing verb") {
		t.Errorf("desk bench: exit %d, %q", code, errs)
	}
	if _, errs, code := desk(t, nil, "bench", "fs", "--runs", "0"); code != 2 || !strings.Contains(errs, "--runs must be positive") {
		t.Errorf("desk bench fs --runs 0: exit %d, %q", code, errs)
	}
	if _, errs, code := desk(t, nil, "bench", "fs", "--only", "("); code != 2 || !strings.Contains(errs, "--only: error parsing regexp") {
		t.Errorf("desk bench fs --only '(': exit %d, %q", code, errs)
	}
	if _, errs, code := desk(t, nil, "bench", "fs", "extra"); code != 2 || !strings.Contains(errs, "too many arguments") {
		t.Errorf("desk bench fs extra: exit %d, %q", code, errs)
	}
	out, _, code := desk(t, nil, "bench", "fs", "-h")
	if code != 0 || !strings.Contains(out, "usage: desk bench fs") || !strings.Contains(out, "--no-drop-caches") || !strings.Contains(out, "--trace") {
		t.Errorf("desk bench fs -h: exit %d\n%s", code, out)
	}
	if out, _, _ := desk(t, nil, "help"); !strings.Contains(out, "bench") {
		t.Errorf("desk help does not list bench:\n%s", out)
	}
}
