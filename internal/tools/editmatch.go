package tools

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// findAll returns the start of every occurrence of sub in s, overlapping
// ones included, up to max of them.
func findAll(s, sub string, max int) []int {
	var out []int
	for i := 0; len(out) < max; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			break
		}
		out = append(out, i+j)
		_, size := utf8.DecodeRuneInString(s[i+j:])
		i += j + max1(size)
	}
	return out
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// lineOf returns the 1-based line number of byte offset off in s.
func lineOf(s string, off int) int { return strings.Count(s[:off], "\n") + 1 }

// lineList formats line numbers of occurrences: "4, 17 and 30".
func lineList(s string, offs []int) string {
	var ls []string
	for _, o := range offs {
		if l := strconv.Itoa(lineOf(s, o)); len(ls) == 0 || ls[len(ls)-1] != l {
			ls = append(ls, l)
		}
	}
	if len(ls) <= 1 {
		return strings.Join(ls, "")
	}
	return strings.Join(ls[:len(ls)-1], ", ") + " and " + ls[len(ls)-1]
}

// folded is text in the tolerant form used when an exact match fails:
// every run of spaces, tabs and carriage returns is one space, whitespace
// at the end of a line is dropped, and typographic quotes are plain ones.
// start[i] and end[i] give, for each byte i of text, the span of the
// original it came from (int32: edit's files are far below 2 GiB, and the
// map of an 8 MiB file costs 64 MiB rather than 128).
type folded struct {
	text       string
	start, end []int32
}

// quoteFold maps typographic quotes to ASCII.
var quoteFold = map[rune]byte{
	'\u2018': '\'', '\u2019': '\'', '\u201a': '\'', '\u201b': '\'', '\u2032': '\'',
	'\u201c': '"', '\u201d': '"', '\u201e': '"', '\u201f': '"', '\u2033': '"',
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }

// fold returns the tolerant form of s.
func fold(s string) folded {
	f := folded{start: make([]int32, 0, len(s)), end: make([]int32, 0, len(s))}
	var b strings.Builder
	b.Grow(len(s))
	add := func(c byte, from, to int) {
		b.WriteByte(c)
		f.start = append(f.start, int32(from))
		f.end = append(f.end, int32(to))
	}
	for i := 0; i < len(s); {
		c := s[i]
		if isBlank(c) {
			j := i
			for j < len(s) && isBlank(s[j]) {
				j++
			}
			if j < len(s) && s[j] != '\n' { // not trailing: keep one space
				add(' ', i, j)
			}
			i = j
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if q, ok := quoteFold[r]; ok {
				add(q, i, i+size)
			} else {
				for k := 0; k < size; k++ {
					add(s[i+k], i, i+size)
				}
			}
			i += size
			continue
		}
		add(c, i, i+1)
		i++
	}
	f.text = b.String()
	return f
}

// foldQuery folds an edit's old text; its leading and trailing whitespace
// (blank lines included) are dropped so that the match is about content.
func foldQuery(s string) string {
	return strings.Trim(fold(s).text, " \n")
}

// closestLines returns the lines of s most like want, numbered as read
// numbers them, or "" when nothing is similar.
func closestLines(s, want string) string {
	lines := strings.Split(s, "\n")
	wl := strings.Split(strings.Trim(want, "\n"), "\n")
	if len(wl) > 40 {
		wl = wl[:40]
	}
	first := ""
	for _, l := range wl {
		if strings.TrimSpace(l) != "" {
			first = l
			break
		}
	}
	if first == "" {
		return ""
	}
	fb := bigrams(first)
	type cand struct {
		i     int
		score float64
	}
	var cands []cand
	for i, l := range lines {
		if sc := dice(fb, l); sc > 0 {
			cands = append(cands, cand{i, sc})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	if len(cands) > 8 {
		cands = cands[:8]
	}
	best, bestScore := -1, 0.0
	for _, c := range cands {
		sum := 0.0
		for j, w := range wl {
			if c.i+j < len(lines) {
				sum += dice(bigrams(w), lines[c.i+j])
			}
		}
		if sc := sum / float64(len(wl)); sc > bestScore {
			best, bestScore = c.i, sc
		}
	}
	if best < 0 || bestScore < 0.4 {
		return ""
	}
	end := min(best+max(len(wl), 1)+1, len(lines))
	from := max(best-1, 0)
	var b strings.Builder
	for i := from; i < end && i < from+20; i++ {
		fmt.Fprintf(&b, "%d\t%s\n", i+1, strings.TrimSuffix(lines[i], "\r"))
	}
	return b.String()
}

// bigrams returns the character pairs of s, spaces folded, lower case.
func bigrams(s string) map[string]int {
	t := strings.ToLower(strings.Join(strings.Fields(s), " "))
	m := map[string]int{}
	r := []rune(t)
	for i := 0; i+1 < len(r); i++ {
		m[string(r[i:i+2])]++
	}
	return m
}

// dice is the Sørensen–Dice similarity of want's bigrams and line's.
func dice(want map[string]int, line string) float64 {
	if len(want) == 0 {
		return 0
	}
	got := bigrams(line)
	total, common := 0, 0
	for _, n := range want {
		total += n
	}
	for k, n := range got {
		total += n
		common += min(n, want[k])
	}
	if total == 0 {
		return 0
	}
	return 2 * float64(common) / float64(total)
}

// looksNumbered reports whether s looks copied from read's output, with
// "N\t" line-number prefixes.
func looksNumbered(s string) bool {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	n := 0
	for _, l := range lines {
		num, _, ok := strings.Cut(l, "\t")
		if _, err := strconv.Atoi(strings.TrimSpace(num)); ok && err == nil {
			n++
		}
	}
	return n > 0 && n == len(lines)
}
