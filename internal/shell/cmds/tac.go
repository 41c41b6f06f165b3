package cmds

import (
	"bufio"
	"bytes"
	"regexp"
	"slices"
)

func init() { Register("tac", Tac) }

// Tac prints the files (or stdin) with their records in reverse order, as
// GNU tac: records end with a newline, or -s SEP; -b attaches the separator
// to the start of each record instead; -r takes SEP as a regular expression
// (Go RE2 syntax, matched forward, leftmost-longest). Each input is held in
// memory, bounded by Limits.MaxReadBytes.
func Tac(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "tac", args[1:], optSpec{shorts: "brs:",
		longs: []string{"before", "regex", "separator="}})
	if !ok {
		return 1
	}
	sep := "\n"
	var before, isRegex bool
	for _, o := range opts {
		switch o.name {
		case "b", "before":
			before = true
		case "r", "regex":
			isRegex = true
		case "s", "separator":
			sep = o.val
		}
	}
	var re, anchored *regexp.Regexp
	if isRegex {
		var err error
		re, err = compileRegexp(sep)
		if err != nil {
			env.Errorf("tac", "%s", err)
			return 1
		}
		re.Longest()
		anchored = regexp.MustCompile(`^(?:` + sep + `)`)
		anchored.Longest()
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	status := 0
	for _, name := range files {
		r, err := openArg(env, name)
		if err != nil {
			w.Flush()
			env.Errorf("tac", "failed to open %s for reading: %s", quoteaf(env, name), Strerror(err))
			status = 1
			continue
		}
		data, err := readAllLimited(env, r)
		r.Close()
		if err != nil {
			w.Flush()
			if !isCanceled(env, err) {
				env.Errorf("tac", "%s: read error: %s", quotef(env, name), Strerror(err))
			}
			status = 1
			continue
		}
		// Separator positions [start, end), and the records: a few
		// slices per line. (The data is returned after this input.)
		recCost := int64(bytes.Count(data, []byte{'\n'})+1) * 3 * lineCost
		if sep != "\n" && sep != "" {
			recCost = int64(len(data)/max(len(sep), 1)+1) * 3 * lineCost
		}
		if re != nil {
			recCost = int64(len(data)+1) * 3 * lineCost
		}
		if err := env.Hold(recCost); err != nil {
			return 1
		}
		// Separator positions [start, end).
		var seps [][]int
		if re != nil {
			// As GNU tac, backward: each separator is the match that
			// starts last before the previous one.
			for pos := len(data); pos > 0; {
				if env.Canceled() {
					return 1
				}
				s, e, ok := tacLastMatch(re, anchored, data, pos)
				if !ok {
					break
				}
				seps = append(seps, []int{s, e})
				pos = s
			}
			slices.Reverse(seps)
		} else if sep != "" {
			for off := 0; ; {
				i := bytes.Index(data[off:], []byte(sep))
				if i < 0 {
					break
				}
				seps = append(seps, []int{off + i, off + i + len(sep)})
				off += i + len(sep)
			}
		}
		// Cut records.
		var recs [][]byte
		prev := 0
		for _, s := range seps {
			if s[1] == s[0] {
				continue
			}
			if before {
				if s[0] > prev || prev == 0 && s[0] > 0 {
					recs = append(recs, data[prev:s[0]])
				}
				prev = s[0]
			} else {
				recs = append(recs, data[prev:s[1]])
				prev = s[1]
			}
		}
		if prev < len(data) {
			recs = append(recs, data[prev:])
		}
		for i := len(recs) - 1; i >= 0; i-- {
			if i&1023 == 0 && env.Canceled() {
				return 1
			}
			w.Write(recs[i])
		}
		env.Release(held(data) + recCost)
	}
	return status
}

// tacLastMatch finds the separator before pos: the largest start s of a
// non-empty match within data[:pos], and its longest match. It searches
// windows ending at pos, doubling them until one holds a match, so the work
// is about the distance to that separator: a match found in a window starts
// no earlier than the last one a forward scan finds there, and no later than
// that match's end (the scan found none after it).
func tacLastMatch(re, anchored *regexp.Regexp, data []byte, pos int) (int, int, bool) {
	for w := 256; ; w *= 2 {
		lo := max(0, pos-w)
		ms := re.FindAllIndex(data[lo:pos], -1)
		for i := len(ms) - 1; i >= 0; i-- {
			m := ms[i]
			// A match at a window's left edge may owe its start to the
			// edge (^, \b): widen the window instead.
			if m[1] == m[0] || lo > 0 && m[0] == 0 {
				continue
			}
			a, b := lo+m[0], lo+m[1]
			for s := b - 1; s > a; s-- {
				if loc := anchored.FindIndex(data[s:pos]); loc != nil && loc[1] > 0 {
					return s, s + loc[1], true
				}
			}
			return a, b, true
		}
		if lo == 0 {
			return 0, 0, false
		}
	}
}
