package tools

import (
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff (context lines of context) from a to
// b, both "\n"-separated text, with the given file name in the headers.
// It is empty when a == b.
func unifiedDiff(name, a, b string, context int) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	ops := diffLines(al, bl)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", name, name)
	// Group ops into hunks.
	type hunk struct{ start, end int } // indexes into ops
	var hunks []hunk
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		j := i
		for j < len(ops) {
			if ops[j].kind != ' ' {
				j++
				continue
			}
			// A run of equal lines: does another change follow closely?
			k := j
			for k < len(ops) && ops[k].kind == ' ' {
				k++
			}
			if k < len(ops) && k-j <= 2*context {
				j = k
				continue
			}
			break
		}
		end := min(j+context, len(ops))
		if n := len(hunks); n > 0 && hunks[n-1].end >= start {
			hunks[n-1].end = end
		} else {
			hunks = append(hunks, hunk{start, end})
		}
		i = j
	}
	for _, h := range hunks {
		aStart, bStart, aLen, bLen := -1, -1, 0, 0
		for _, op := range ops[h.start:h.end] {
			if aStart < 0 {
				aStart, bStart = op.a, op.b
			}
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, op := range ops[h.start:h.end] {
			sb.WriteByte(op.kind)
			sb.WriteString(op.text)
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits text into lines; a final newline ends the last line
// rather than starting an empty one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffOp is one line of a diff: ' ' equal, '-' only in a, '+' only in b;
// a and b are the line's index in a (for ' ' and '-') and in b (for ' '
// and '+'), or the index the next such line would have.
type diffOp struct {
	kind byte
	text string
	a, b int
}

// diffLines returns a shortest edit script from a to b (Myers' algorithm,
// after trimming the common prefix and suffix).
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{' ', a[i], i, i})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, diffOp{' ', a[ai], ai, bi})
	}
	return ops
}

// myers diffs a and b, whose first lines have indexes a0 and b0.
func myers(a, b []string, a0, b0 int) []diffOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		var ops []diffOp
		for i, l := range a {
			ops = append(ops, diffOp{'-', l, a0 + i, b0})
		}
		for i, l := range b {
			ops = append(ops, diffOp{'+', l, a0 + n, b0 + i})
		}
		return ops
	}
	maxD := n + m
	off := maxD
	v := make([]int, 2*maxD+2)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		vc := make([]int, len(v))
		copy(vc, v)
		trace = append(trace, vc)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, a0, b0, off, d, v)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, a, b []string, a0, b0, off, dEnd int, vEnd []int) []diffOp {
	x, y := len(a), len(b)
	var rev []diffOp
	for d := dEnd; d > 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, diffOp{' ', a[x], a0 + x, b0 + y})
		}
		if x == px {
			y--
			rev = append(rev, diffOp{'+', b[y], a0 + x, b0 + y})
		} else {
			x--
			rev = append(rev, diffOp{'-', a[x], a0 + x, b0 + y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{' ', a[x], a0 + x, b0 + y})
	}
	ops := make([]diffOp, len(rev))
	for i := range rev {
		ops[i] = rev[len(rev)-1-i]
	}
	return ops
}
