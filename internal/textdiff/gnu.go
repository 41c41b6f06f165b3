package textdiff

// discards returns, for each of x and y, which lines to set aside before
// the search (nil: none), as GNU diff's discard_confusing_lines does: a
// line that occurs nowhere in the other sequence is set aside (1); one that
// occurs there more often than about 5·√(N/64)·... times is set aside too
// (2, "provisionally"), but only inside a run of set-aside lines that
// begins and ends with a line of the first kind and is not mostly
// provisional. With minimal only the first kind is set aside: such a line is
// in no common subsequence, so a shortest script stays shortest.
func discards(x, y []int, nids int, minimal bool) [2][]byte {
	count := [2][]int{make([]int, nids), make([]int, nids)}
	for _, id := range x {
		count[0][id]++
	}
	for _, id := range y {
		count[1][id]++
	}
	var out [2][]byte
	for f, seq := range [2][]int{x, y} {
		other := count[1-f]
		end := len(seq)
		many := 5
		for tem := end / 64; ; {
			if tem >>= 2; tem <= 0 {
				break
			}
			many *= 2
		}
		disc := make([]byte, end)
		any := false
		for i, id := range seq {
			switch n := other[id]; {
			case n == 0:
				disc[i], any = 1, true
			case n > many && !minimal:
				disc[i] = 2
			}
		}
		if !any {
			continue // provisional lines stand only beside definite ones
		}
		if !minimal {
			settleProvisional(disc)
		}
		out[f] = disc
	}
	return out
}

// settleProvisional keeps a provisional discard (2) only in the middle of a
// run of discards, clearing the others (GNU's rules, step by step).
func settleProvisional(disc []byte) {
	end := len(disc)
	for i := 0; i < end; i++ {
		switch disc[i] {
		case 0:
			continue
		case 2: // not in the middle of a run
			disc[i] = 0
			continue
		}
		// A definite discard starts a run: find its end, dropping
		// provisional lines at the end.
		j, prov := i, 0
		for ; j < end && disc[j] != 0; j++ {
			if disc[j] == 2 {
				prov++
			}
		}
		for j > i && disc[j-1] == 2 {
			j--
			disc[j] = 0
			prov--
		}
		length := j - i
		if prov*4 > length {
			// A quarter or more provisional: keep none of them.
			for k := i; k < j; k++ {
				if disc[k] == 2 {
					disc[k] = 0
				}
			}
			i = j - 1
			continue
		}
		// Clear each subrun of at least minimum (about √(length/4))
		// provisional lines.
		minimum := 1
		for tem := length >> 2; ; {
			if tem >>= 2; tem <= 0 {
				break
			}
			minimum <<= 1
		}
		minimum++
		consec := 0
		for k := 0; k < length; k++ {
			if disc[i+k] != 2 {
				consec = 0
				continue
			}
			consec++
			switch {
			case consec == minimum:
				k -= consec // back to the subrun's start, to clear it all
			case consec > minimum:
				disc[i+k] = 0
			}
		}
		// From each end of the run, clear provisional lines until three
		// definite ones in a row, or a definite one at least 8 lines in.
		edge := func(at func(k int) int) {
			consec := 0
			for k := 0; k < length; k++ {
				p := at(k)
				if k >= 8 && disc[p] == 1 {
					break
				}
				switch disc[p] {
				case 2:
					consec = 0
					disc[p] = 0
				case 0:
					consec = 0
				default:
					consec++
				}
				if consec == 3 {
					break
				}
			}
		}
		edge(func(k int) int { return i + k })
		last := i + length - 1
		edge(func(k int) int { return last - k })
		i = last
	}
}

// shift moves each run of changed lines of one sequence (chg, with false
// sentinels at both ends, line i at chg[i+1]) as GNU diff's
// shift_boundaries does: a run whose last line equals the line before it
// can move up, one whose first line equals the line after it can move
// down; runs that meet merge. A run ends as far down as it can, unless it
// can stand opposite a run of changes in the other sequence (other).
func shift(chg, other []bool, ids []int) {
	n := len(ids)
	c := func(i int) bool { return chg[i+1] }
	o := func(j int) bool { return j+1 >= 0 && j+1 < len(other) && other[j+1] }
	set := func(i int, v bool) { chg[i+1] = v }
	i, j := 0, 0 // j: the line of the other sequence that i corresponds to
	for {
		for i < n && !c(i) {
			for o(j) {
				j++
			}
			j++
			i++
		}
		if i == n {
			return
		}
		start := i
		for i++; c(i); i++ {
		}
		for o(j) {
			j++
		}
		var corresponding int
		for {
			runlength := i - start
			// Move the run up while the line before equals its last line,
			// merging with runs above.
			for start > 0 && ids[start-1] == ids[i-1] {
				start--
				set(start, true)
				i--
				set(i, false)
				for c(start - 1) {
					start--
				}
				for j--; o(j); j-- {
				}
			}
			// corresponding: the run's end at the last point where it
			// stands opposite changes in the other sequence (n: none).
			corresponding = n
			if o(j - 1) {
				corresponding = i
			}
			// Move it down while its first line equals the line after,
			// merging with runs below.
			for i != n && ids[start] == ids[i] {
				set(start, false)
				start++
				set(i, true)
				i++
				for c(i) {
					i++
				}
				for j++; o(j); j++ {
					corresponding = i
				}
			}
			if runlength == i-start {
				break
			}
		}
		// Move the merged run back up to stand opposite changes, if it can.
		for corresponding < i {
			start--
			set(start, true)
			i--
			set(i, false)
			for j--; o(j); j-- {
			}
		}
	}
}
