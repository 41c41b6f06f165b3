package textdiff

import (
	"context"
	"fmt"
)

// DefaultMaxCost is Options.MaxCost when it is 0: the largest edit cost a
// minimal search looks for.
const DefaultMaxCost = 4096

// DefaultMaxWork is Options.MaxWork when it is 0: the bound on (N+M)·D, the
// size of a minimal search, with N+M the lines left to search.
const DefaultMaxWork = 100_000_000

// minTooExpensive is GNU diff 3.8's floor of its TOO_EXPENSIVE limit.
const minTooExpensive = 4096

// Change is one run of differences: lines a[A0:A1] are replaced by b[B0:B1]
// (either range may be empty).
type Change struct {
	A0, A1, B0, B1 int
}

// Options choose how Diff searches.
type Options struct {
	// Minimal asks for a shortest edit script, bounded by MaxCost and MaxWork:
	// past them Diff returns the fallback. Without it, Diff makes the choices
	// of GNU diff 3.8 without --minimal (see the package documentation).
	Minimal bool
	// MaxCost caps the edit cost D (lines deleted plus lines inserted, not
	// counting lines that occur nowhere in the other sequence) of a minimal
	// search. 0 means DefaultMaxCost.
	MaxCost int
	// MaxWork lowers the cap on D of a minimal search to MaxWork/(N+M), where
	// N+M counts the lines left to search, so that its time stays
	// O(MaxWork). 0 means DefaultMaxWork.
	MaxWork int
}

// Result is the outcome of a comparison.
type Result struct {
	// Changes are the runs of differences in order.
	Changes []Change
	// Fallback reports that a minimal search went past its cap: Changes is
	// then one change replacing the whole block between the common prefix
	// and the common suffix (still a correct diff, not a shortest one).
	Fallback bool
	// Cost is the number of lines deleted plus lines inserted by Changes.
	Cost int
}

// Diff compares the sequences of lines a and b (compared as strings: pass
// normalized keys to ignore case or white space) and returns the changes
// that turn a into b. It returns ctx's error when ctx ends first.
func Diff(ctx context.Context, a, b []string, opt Options) (Result, error) {
	ids := make(map[string]int, len(a)+len(b))
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			v, ok := ids[l]
			if !ok {
				v = len(ids)
				ids[l] = v
			}
			out[i] = v
		}
		return out
	}
	x := intern(a)
	y := intern(b)
	return diffIDs(ctx, x, y, len(ids), opt)
}

// errCapped stops a minimal search that went past its cap.
var errCapped = fmt.Errorf("textdiff: edit cost over the cap")

// differ holds the state of one comparison.
type differ struct {
	ctx    context.Context
	xv, yv []int  // the lines searched (those not set aside), as ids
	xr, yr []int  // their indexes in a and b
	ca, cb []bool // changed flags of a and b, with a false sentinel at each end: ca[i+1] is line i
	fd, bd []int  // furthest-reaching x per diagonal k, at fd[k+off]
	off    int
	// tooExpensive is GNU's limit on the steps of one heuristic search.
	tooExpensive int
	// maxCost is the cap on D of a minimal search (0: not minimal).
	maxCost int
	calls   int
}

func diffIDs(ctx context.Context, x, y []int, nids int, opt Options) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	n, m := len(x), len(y)
	d := &differ{ctx: ctx, ca: make([]bool, n+2), cb: make([]bool, m+2)}
	disc := discards(x, y, nids, opt.Minimal)
	d.xv, d.xr = keep(x, disc[0], d.ca)
	d.yv, d.yr = keep(y, disc[1], d.cb)
	nx, ny := len(d.xv), len(d.yv)
	if opt.Minimal {
		maxCost, maxWork := opt.MaxCost, opt.MaxWork
		if maxCost <= 0 {
			maxCost = DefaultMaxCost
		}
		if maxWork <= 0 {
			maxWork = DefaultMaxWork
		}
		if w := maxWork / max(nx+ny, 1); w < maxCost {
			maxCost = max(w, 1)
		}
		d.maxCost = maxCost
	} else {
		diags := nx + ny + 3
		d.tooExpensive = 1
		for ; diags != 0; diags >>= 2 {
			d.tooExpensive <<= 1
		}
		d.tooExpensive = max(d.tooExpensive, minTooExpensive)
	}
	d.off = ny + 1
	d.fd = make([]int, nx+ny+3)
	d.bd = make([]int, nx+ny+3)
	err := d.compare(0, nx, 0, ny, opt.Minimal)
	if err == errCapped {
		return fallback(x, y), nil
	}
	if err != nil {
		return Result{}, err
	}
	d.fd, d.bd = nil, nil
	shift(d.ca, d.cb, x)
	shift(d.cb, d.ca, y)
	return script(d.ca, d.cb, n, m), nil
}

// keep returns the lines of x not set aside by disc (nil: none), with their
// indexes, and marks the others changed.
func keep(x []int, disc []byte, changed []bool) ([]int, []int) {
	v := make([]int, 0, len(x))
	r := make([]int, 0, len(x))
	for i, id := range x {
		if disc != nil && disc[i] != 0 {
			changed[i+1] = true
			continue
		}
		v = append(v, id)
		r = append(r, i)
	}
	return v, r
}

// fallback is the whole-block replacement: the lines between the common
// prefix and suffix of x and y.
func fallback(x, y []int) Result {
	p := 0
	for p < len(x) && p < len(y) && x[p] == y[p] {
		p++
	}
	s := 0
	for s < len(x)-p && s < len(y)-p && x[len(x)-1-s] == y[len(y)-1-s] {
		s++
	}
	c := Change{p, len(x) - s, p, len(y) - s}
	return Result{Changes: []Change{c}, Fallback: true, Cost: c.A1 - c.A0 + c.B1 - c.B0}
}

// script reads the changed flags into changes.
func script(ca, cb []bool, n, m int) Result {
	var r Result
	i, j := 0, 0
	for i < n || j < m {
		if ca[i+1] || cb[j+1] {
			c := Change{A0: i, B0: j}
			for ca[i+1] {
				i++
			}
			for cb[j+1] {
				j++
			}
			c.A1, c.B1 = i, j
			r.Changes = append(r.Changes, c)
			r.Cost += c.A1 - c.A0 + c.B1 - c.B0
		}
		i++
		j++
	}
	return r
}

// compare marks the differences between xv[xoff:xlim] and yv[yoff:ylim]:
// it trims their common ends, splits the rest at a point found by diag and
// compares the two parts (the first by recursion, the second in the loop).
func (d *differ) compare(xoff, xlim, yoff, ylim int, minimal bool) error {
	xv, yv := d.xv, d.yv
	for {
		for xoff < xlim && yoff < ylim && xv[xoff] == yv[yoff] {
			xoff++
			yoff++
		}
		for xoff < xlim && yoff < ylim && xv[xlim-1] == yv[ylim-1] {
			xlim--
			ylim--
		}
		switch {
		case xoff == xlim:
			for ; yoff < ylim; yoff++ {
				d.cb[d.yr[yoff]+1] = true
			}
			return nil
		case yoff == ylim:
			for ; xoff < xlim; xoff++ {
				d.ca[d.xr[xoff]+1] = true
			}
			return nil
		}
		if d.calls++; d.calls&63 == 0 {
			if err := d.ctx.Err(); err != nil {
				return err
			}
		}
		p, err := d.diag(xoff, xlim, yoff, ylim, minimal)
		if err != nil {
			return err
		}
		if err := d.compare(xoff, p.xmid, yoff, p.ymid, p.loMinimal); err != nil {
			return err
		}
		xoff, yoff, minimal = p.xmid, p.ymid, p.hiMinimal
	}
}

// partition is a split point found by diag; loMinimal and hiMinimal say
// whether the parts before and after it are to be searched minimally.
type partition struct {
	xmid, ymid           int
	loMinimal, hiMinimal bool
}

// diag finds the middle snake of xv[xoff:xlim] and yv[yoff:ylim] (which
// have no common first or last line): a forward search from the top left
// and a backward one from the bottom right, one edit step each in turn,
// until they overlap on a diagonal. Diagonals are numbered k = x - y.
//
// Without minimal, a search that has taken tooExpensive steps gives up and
// splits at its furthest-reaching point (GNU's TOO_EXPENSIVE heuristic). A
// minimal search whose cost would exceed maxCost returns errCapped.
func (d *differ) diag(xoff, xlim, yoff, ylim int, minimal bool) (partition, error) {
	xv, yv := d.xv, d.yv
	fd, bd, off := d.fd, d.bd, d.off
	dmin, dmax := xoff-ylim, xlim-yoff
	fmid, bmid := xoff-yoff, xlim-ylim
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	fd[fmid+off] = xoff
	bd[bmid+off] = xlim
	for c := 1; ; c++ {
		if d.maxCost > 0 {
			// The cheapest script the step can find costs 2c-1 (odd) or 2c.
			least := 2 * c
			if odd {
				least--
			}
			if least > d.maxCost {
				return partition{}, errCapped
			}
		}
		if c&255 == 0 {
			if err := d.ctx.Err(); err != nil {
				return partition{}, err
			}
		}
		// Extend the forward search by one edit step on each diagonal.
		if fmin > dmin {
			fmin--
			fd[fmin-1+off] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[fmax+1+off] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			lo, hi := fd[k-1+off], fd[k+1+off]
			x := hi
			if lo >= hi {
				x = lo + 1
			}
			y := x - k
			for x < xlim && y < ylim && xv[x] == yv[y] {
				x++
				y++
			}
			fd[k+off] = x
			if odd && bmin <= k && k <= bmax && bd[k+off] <= x {
				return partition{x, y, true, true}, nil
			}
		}
		// Extend the backward search likewise.
		if bmin > dmin {
			bmin--
			bd[bmin-1+off] = maxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[bmax+1+off] = maxInt
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			lo, hi := bd[k-1+off], bd[k+1+off]
			x := hi - 1
			if lo < hi {
				x = lo
			}
			y := x - k
			for x > xoff && y > yoff && xv[x-1] == yv[y-1] {
				x--
				y--
			}
			bd[k+off] = x
			if !odd && fmin <= k && k <= fmax && x <= fd[k+off] {
				return partition{x, y, true, true}, nil
			}
		}
		if minimal || c < d.tooExpensive {
			continue
		}
		// Too expensive: split at the forward point furthest along (largest
		// x+y) or the backward one (smallest x+y), whichever went further.
		fxy, fx := -1, 0
		for k := fmax; k >= fmin; k -= 2 {
			x := min(fd[k+off], xlim)
			y := x - k
			if y > ylim {
				x, y = ylim+k, ylim
			}
			if x+y > fxy {
				fxy, fx = x+y, x
			}
		}
		bxy, bx := maxInt, 0
		for k := bmax; k >= bmin; k -= 2 {
			x := max(xoff, bd[k+off])
			y := x - k
			if y < yoff {
				x, y = yoff+k, yoff
			}
			if x+y < bxy {
				bxy, bx = x+y, x
			}
		}
		if (xlim+ylim)-bxy < fxy-(xoff+yoff) {
			return partition{fx, fxy - fx, true, false}, nil
		}
		return partition{bx, bxy - bx, false, true}, nil
	}
}

const maxInt = int(^uint(0) >> 1)
