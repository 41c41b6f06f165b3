package tools

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// applyUnified applies a unified diff made by unifiedDiff to a.
func applyUnified(t *testing.T, a, diff string) string {
	t.Helper()
	al := splitLines(a)
	var out []string
	pos := 0
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "@@ -") {
			t.Fatalf("expected a hunk header, got %q", l)
		}
		r := strings.Fields(l)[1][1:]
		startS, _, _ := strings.Cut(r, ",")
		start, _ := strconv.Atoi(startS)
		if strings.HasSuffix(r, ",0") {
			start++ // an empty range names the line before
		}
		for pos < start-1 {
			out = append(out, al[pos])
			pos++
		}
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "@@ ") {
			i++
			body := lines[i][1:]
			switch lines[i][0] {
			case ' ':
				if al[pos] != body {
					t.Fatalf("context mismatch at %d: %q vs %q", pos, al[pos], body)
				}
				out = append(out, body)
				pos++
			case '-':
				if al[pos] != body {
					t.Fatalf("removal mismatch at %d: %q vs %q", pos, al[pos], body)
				}
				pos++
			case '+':
				out = append(out, body)
			}
		}
	}
	out = append(out, al[pos:]...)
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

func TestUnifiedDiff_random(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() string {
		n := r.IntN(30)
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "l%d\n", r.IntN(6))
		}
		return b.String()
	}
	for i := 0; i < 2000; i++ {
		a, b := gen(), gen()
		d := unifiedDiff("f", a, b, r.IntN(4))
		if a == b {
			if d != "" {
				t.Fatalf("diff of equal texts: %q", d)
			}
			continue
		}
		if got := applyUnified(t, a, d); got != b {
			t.Fatalf("a=%q b=%q\ndiff:\n%s\napplied: %q", a, b, d, got)
		}
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a  b\t\tc", "a b c"},
		{"x   \ny", "x\ny"},
		{"\tindent", " indent"},
		{"\u201cq\u201d \u2018s\u2019", "\"q\" 's'"},
		{"é  ü", "é ü"},
	}
	for _, tt := range tests {
		f := fold(tt.in)
		if f.text != tt.want {
			t.Errorf("fold(%q) = %q, want %q", tt.in, f.text, tt.want)
		}
		if len(f.start) != len(f.text) || len(f.end) != len(f.text) {
			t.Errorf("fold(%q): map lengths", tt.in)
		}
	}
}

func TestHeadTail(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
		cut  int64
	}{
		{"short", 10, "short", 0},
		{"aaaa\nbbbb\ncccc\ndddd\n", 10, "aaaa\n[... 10 bytes elided ...]\ndddd\n", 10},
		{"0123456789abcdefghij", 10, "01234\n[... 10 bytes elided ...]\nfghij", 10},
		{"ééééééééééé", 10, "éé\n[... 14 bytes elided ...]\néé", 14},
	}
	for _, tt := range tests {
		got, cut := headTail(tt.in, tt.max)
		if got != tt.want || cut != tt.cut {
			t.Errorf("headTail(%q, %d) = %q, %d; want %q, %d", tt.in, tt.max, got, cut, tt.want, tt.cut)
		}
	}
}
