package cmds

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

func init() { Register("cut", Cut) }

// cutRange is one closed range of a cut list (1-based; hi MaxInt: open).
type cutRange struct{ lo, hi int }

// Cut prints selected parts of each line of the files (or stdin), as GNU
// cut: -b/-c LIST bytes (characters are bytes, as GNU does), -f LIST fields
// with -d DELIM (default TAB), -s to drop lines without a delimiter,
// --complement, --output-delimiter, -z. LIST is N, N-M, N-, -M, comma
// separated. It streams.
func Cut(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "cut", args[1:], optSpec{shorts: "b:c:f:d:snz",
		longs: []string{"bytes=", "characters=", "fields=", "delimiter=", "only-delimited", "complement",
			"output-delimiter=", "zero-terminated"}})
	if !ok {
		return 1
	}
	var list string
	mode := byte(0)
	delim := byte('\t')
	hasDelim := false
	var onlyDelim, complement, zero bool
	var outDelim *string
	for _, o := range opts {
		switch o.name {
		case "b", "bytes", "c", "characters", "f", "fields":
			if mode != 0 {
				tryHelp(env, "cut", "only one list may be specified")
				return 1
			}
			mode = o.name[0]
			if mode == 'c' {
				mode = 'b'
			}
			list = o.val
		case "d", "delimiter":
			if len(o.val) > 1 {
				tryHelp(env, "cut", "the delimiter must be a single character")
				return 1
			}
			delim, hasDelim = 0, true
			if o.val != "" {
				delim = o.val[0]
			}
		case "s", "only-delimited":
			onlyDelim = true
		case "complement":
			complement = true
		case "output-delimiter":
			v := o.val
			outDelim = &v
		case "z", "zero-terminated":
			zero = true
		}
	}
	if mode == 0 {
		tryHelp(env, "cut", "you must specify a list of bytes, characters, or fields")
		return 1
	}
	if mode == 'b' && hasDelim {
		tryHelp(env, "cut", "an input delimiter may be specified only when operating on fields")
		return 1
	}
	if mode == 'b' && onlyDelim {
		tryHelp(env, "cut", "suppressing non-delimited lines makes sense\n\tonly when operating on fields")
		return 1
	}
	ranges, msg := parseCutList(env, list, mode == 'f')
	if msg != "" {
		tryHelp(env, "cut", "%s", msg)
		return 1
	}
	if complement {
		ranges = complementRanges(ranges)
	}
	sel := func(i int) bool { // i is 1-based
		for _, r := range ranges {
			if i >= r.lo && i <= r.hi {
				return true
			}
			if r.lo > i {
				break
			}
		}
		return false
	}
	eol := byte('\n')
	if zero {
		eol = 0
	}
	od := string(delim)
	if outDelim != nil {
		od = *outDelim
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	return eachInput(env, "cut", w, files, func(r io.Reader) error {
		lr := newLineReader(env, r, eol)
		lr.view = true // a line is written out before the next is read
		for line := range lr.lines() {
			line = bytes.TrimSuffix(line, []byte{eol})
			if mode == 'b' {
				prevSel := false
				first := true
				for i := range line {
					if sel(i + 1) {
						if outDelim != nil && !prevSel && !first {
							w.WriteString(od)
						}
						w.WriteByte(line[i])
						prevSel, first = true, false
					} else {
						prevSel = false
					}
				}
				w.WriteByte(eol)
				continue
			}
			if bytes.IndexByte(line, delim) < 0 {
				if !onlyDelim {
					w.Write(line)
					w.WriteByte(eol)
				}
				continue
			}
			// Field by field, without splitting the line into a slice.
			first := true
			for i, rest := 1, line; ; i++ {
				j := bytes.IndexByte(rest, delim)
				fl := rest
				if j >= 0 {
					fl = rest[:j]
				}
				if sel(i) {
					if !first {
						w.WriteString(od)
					}
					w.Write(fl)
					first = false
				}
				if j < 0 {
					break
				}
				rest = rest[j+1:]
			}
			w.WriteByte(eol)
		}
		return lr.err
	})
}

// parseCutList parses a cut LIST into sorted, merged ranges; msg is GNU's
// diagnostic on error.
func parseCutList(env *Env, list string, fields bool) ([]cutRange, string) {
	var rs []cutRange
	unit := "bytes or characters"
	if fields {
		unit = "fields"
	}
	for _, part := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		lo, hi := 1, math.MaxInt
		a, b, isRange := strings.Cut(part, "-")
		parse := func(s string) (int, string) {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || strings.HasPrefix(s, "+") {
				if fields {
					return 0, "invalid field value " + quote(env, s)
				}
				return 0, "invalid byte/character position " + quote(env, s)
			}
			if n == 0 {
				return 0, unit + " are numbered from 1"
			}
			return n, ""
		}
		var msg string
		if !isRange {
			if lo, msg = parse(a); msg != "" {
				return nil, msg
			}
			hi = lo
		} else {
			if a == "" && b == "" {
				return nil, "invalid range with no endpoint: -"
			}
			if a != "" {
				if lo, msg = parse(a); msg != "" {
					return nil, msg
				}
			}
			if b != "" {
				if hi, msg = parse(b); msg != "" {
					return nil, msg
				}
			}
			if hi < lo {
				return nil, "invalid decreasing range"
			}
		}
		rs = append(rs, cutRange{lo, hi})
	}
	if len(rs) == 0 {
		return nil, unit + " are numbered from 1"
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
	merged := rs[:1]
	for _, r := range rs[1:] {
		last := &merged[len(merged)-1]
		if r.lo <= last.hi || last.hi != math.MaxInt && r.lo == last.hi+1 {
			if r.hi > last.hi {
				last.hi = r.hi
			}
			continue
		}
		merged = append(merged, r)
	}
	return merged, ""
}

// complementRanges inverts sorted, merged ranges over 1..MaxInt.
func complementRanges(rs []cutRange) []cutRange {
	var out []cutRange
	next := 1
	for _, r := range rs {
		if r.lo > next {
			out = append(out, cutRange{next, r.lo - 1})
		}
		if r.hi == math.MaxInt {
			return out
		}
		next = r.hi + 1
	}
	return append(out, cutRange{next, math.MaxInt})
}
