package tools

import (
	"fmt"
	"strings"
	"testing"
)

// rewriteBlock returns a file of n lines and the same file with every line
// rewritten: the edit tool's diff of replacing a whole n-line block.
func rewriteBlock(n int) (string, string) {
	var a, b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&a, "\tvalue%d := compute(%d)\n", i, i)
		fmt.Fprintf(&b, "\tresult%d := evaluate(%d, opts)\n", i, i)
	}
	return a.String(), b.String()
}

// BenchmarkDiffRewrite2000 measures edit's diff of a 2,000-line block
// rewritten line by line (issue 12: 251 MiB and 1.4 s before the
// linear-space diff).
func BenchmarkDiffRewrite2000(b *testing.B) {
	x, y := rewriteBlock(2000)
	b.ReportAllocs()
	for b.Loop() {
		if d, err := unifiedDiff(b.Context(), "f", x, y, 3, DefaultMaxDiffBytes); err != nil || d.text == "" {
			b.Fatal("no diff", err)
		}
	}
}

// BenchmarkDiffReversed2000 measures the worst case for a shortest diff
// under the cap: 2,000 distinct lines, every one kept but the order
// reversed (cost 3,998).
func BenchmarkDiffReversed2000(b *testing.B) {
	var x, y strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&x, "line %d\n", i)
		fmt.Fprintf(&y, "line %d\n", 1999-i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if d, err := unifiedDiff(b.Context(), "f", x.String(), y.String(), 3, DefaultMaxDiffBytes); err != nil || d.whole {
			b.Fatal("no shortest diff", err)
		}
	}
}
