package cmds

import (
	"fmt"
	"io"
	"strings"
)

// The shared line-diff algorithm of diff (and the tests of patch): Myers'
// O(ND) difference algorithm in its linear-space form (the "middle snake"
// divide and conquer), over lines reduced to integers.

// diffChange is one run of differences: lines a[A0:A1] were replaced by
// b[B0:B1] (either range may be empty).
type diffChange struct {
	A0, A1, B0, B1 int
}

// diffSeqs compares two sequences of line ids and returns the changes in
// order. It stops with the context's error when the command is cancelled.
func diffSeqs(env *Env, a, b []int) ([]diffChange, error) {
	d := &differ{env: env, a: a, b: b, delA: make([]bool, len(a)), insB: make([]bool, len(b))}
	n, m := len(a), len(b)
	d.vf = make([]int, n+m+5)
	d.vb = make([]int, n+m+5)
	if err := d.compare(0, n, 0, m); err != nil {
		return nil, err
	}
	var out []diffChange
	i, j := 0, 0
	for i < n || j < m {
		if i < n && j < m && !d.delA[i] && !d.insB[j] {
			i++
			j++
			continue
		}
		c := diffChange{A0: i, B0: j}
		for i < n && d.delA[i] {
			i++
		}
		for j < m && d.insB[j] {
			j++
		}
		c.A1, c.B1 = i, j
		if c.A0 == c.A1 && c.B0 == c.B1 {
			// Cannot happen with a consistent marking; avoid looping.
			i++
			j++
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

type differ struct {
	env        *Env
	a, b       []int
	delA, insB []bool
	vf, vb     []int
}

// compare marks the differences between a[aOff:aLim] and b[bOff:bLim].
func (d *differ) compare(aOff, aLim, bOff, bLim int) error {
	for {
		for aOff < aLim && bOff < bLim && d.a[aOff] == d.b[bOff] {
			aOff++
			bOff++
		}
		for aLim > aOff && bLim > bOff && d.a[aLim-1] == d.b[bLim-1] {
			aLim--
			bLim--
		}
		if aOff == aLim {
			for j := bOff; j < bLim; j++ {
				d.insB[j] = true
			}
			return nil
		}
		if bOff == bLim {
			for i := aOff; i < aLim; i++ {
				d.delA[i] = true
			}
			return nil
		}
		if err := d.env.Ctx.Err(); err != nil {
			return err
		}
		x, y := d.midSnake(aOff, aLim, bOff, bLim)
		if err := d.compare(aOff, x, bOff, y); err != nil {
			return err
		}
		aOff, bOff = x, y
	}
}

// midSnake finds a point on an optimal edit path between a[aOff:aLim] and
// b[bOff:bLim] (both non-empty, with no common prefix or suffix) that splits
// the problem into two strictly smaller ones.
func (d *differ) midSnake(aOff, aLim, bOff, bLim int) (int, int) {
	a, b := d.a[aOff:aLim], d.b[bOff:bLim]
	n, m := len(a), len(b)
	delta := n - m
	odd := delta&1 != 0
	max := (n + m + 1) / 2
	off := max + 1
	vf, vb := d.vf[:2*max+3], d.vb[:2*max+3]
	for i := range vf {
		vf[i], vb[i] = -1, -1
	}
	vf[off+1], vb[off+1] = 0, 0
	// step computes the furthest reaching x on diagonal k from v, or -1.
	step := func(v []int, k int) int {
		if k < -m || k > n {
			return -1
		}
		x := -1
		if down := v[off+k+1]; down >= 0 && down-k <= m {
			x = down
		}
		if right := v[off+k-1]; right >= 0 && right+1 <= n && right+1 > x {
			x = right + 1
		}
		if x < 0 || x-k < 0 || x-k > m {
			return -1
		}
		return x
	}
	for D := 0; D <= max; D++ {
		if D&255 == 255 && d.env.Ctx.Err() != nil {
			return aOff + n/2, bOff + m/2 // abandoned: any split terminates
		}
		for k := -D; k <= D; k += 2 {
			x := step(vf, k)
			vf[off+k] = x
			if x < 0 {
				continue
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			vf[off+k] = x
			if odd {
				kb := delta - k
				if kb >= -(D-1) && kb <= D-1 && vb[off+kb] >= 0 && x+vb[off+kb] >= n {
					return aOff + x, bOff + y
				}
			}
		}
		for k := -D; k <= D; k += 2 {
			x := step(vb, k)
			vb[off+k] = x
			if x < 0 {
				continue
			}
			y := x - k
			for x < n && y < m && a[n-x-1] == b[m-y-1] {
				x++
				y++
			}
			vb[off+k] = x
			if !odd {
				kf := delta - k
				if kf >= -D && kf <= D && vf[off+kf] >= 0 && vf[off+kf]+x >= n {
					return aOff + n - x, bOff + m - y
				}
			}
		}
	}
	return aOff + n/2, bOff + m/2
}

// lineIDs maps lines to integers, equal keys to equal ids.
type lineIDs map[string]int

func (ids lineIDs) id(key string) int {
	if v, ok := ids[key]; ok {
		return v
	}
	v := len(ids)
	ids[key] = v
	return v
}

// splitLinesKeep splits data into lines keeping each line's "\n"; the last
// line may lack it.
func splitLinesKeep(data []byte) []string {
	var out []string
	for len(data) > 0 {
		i := 0
		for i < len(data) && data[i] != '\n' {
			i++
		}
		if i < len(data) {
			i++
		}
		out = append(out, string(data[:i]))
		data = data[i:]
	}
	return out
}

// diffParseOpts is parseOpts for diffutils' commands, whose "Try" line
// carries the program name ("cmp: Try 'cmp --help' ...").
func diffParseOpts(env *Env, cmd string, args []string, spec optSpec) ([]opt, []string, bool) {
	var buf strings.Builder
	e := *env
	e.Stderr = &buf
	opts, ops, ok := parseOpts(&e, cmd, args, spec)
	if buf.Len() > 0 {
		s := strings.ReplaceAll(buf.String(), "\nTry '", "\n"+cmd+": Try '")
		io.WriteString(env.Stderr, s)
	}
	return opts, ops, ok
}

// diffUsageErr prints a usage error with diffutils' "Try" line.
func diffUsageErr(env *Env, cmd, msg string) {
	fmt.Fprintf(env.Stderr, "%s: %s\n%s: Try '%s --help' for more information.\n", cmd, msg, cmd, cmd)
}
