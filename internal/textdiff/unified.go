package textdiff

import (
	"io"
	"strconv"
	"strings"
)

// SplitLines splits s into lines, each keeping its "\n"; the last line lacks
// it when s does not end in a newline. An empty s has no lines.
func SplitLines(s string) []string {
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// Hunk is a group of changes shown together: lines a[A0:A1] and b[B0:B1],
// the changes with up to context unchanged lines around them.
type Hunk struct {
	A0, A1, B0, B1 int
	Changes        []Change
}

// Hunks groups changes (of sequences of n and m lines) as GNU diff's unified
// and context formats do: changes at most 2·context unchanged lines apart
// share a hunk, and each hunk has up to context lines before and after.
func Hunks(changes []Change, context, n, m int) []Hunk {
	var out []Hunk
	for i := 0; i < len(changes); {
		j := i
		for j+1 < len(changes) && changes[j+1].A0-changes[j].A1 <= 2*context {
			j++
		}
		first, last := changes[i], changes[j]
		pre := min(context, first.A0, first.B0)
		post := min(context, n-last.A1, m-last.B1)
		out = append(out, Hunk{first.A0 - pre, last.A1 + post, first.B0 - pre, last.B1 + post, changes[i : j+1]})
		i = j + 1
	}
	return out
}

// WriteLine writes one line of a diff: prefix, then l; a line without a
// final newline gets one and GNU's "\ No newline at end of file" marker.
func WriteLine(w io.StringWriter, prefix, l string) {
	w.WriteString(prefix)
	w.WriteString(l)
	if !strings.HasSuffix(l, "\n") {
		w.WriteString("\n\\ No newline at end of file\n")
	}
}

// UnifiedRange formats one side of a unified hunk header: "start,count",
// "start" for one line, "before,0" for none (lines numbered from 1).
func UnifiedRange(start, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(count)
}

// WriteUnified writes the hunks of a unified diff of a and b (lines as
// SplitLines makes them), without the "---" and "+++" header, as GNU diff
// -u writes them.
func WriteUnified(w io.StringWriter, a, b []string, hunks []Hunk) {
	for _, h := range hunks {
		w.WriteString("@@ -" + UnifiedRange(h.A0, h.A1-h.A0) + " +" + UnifiedRange(h.B0, h.B1-h.B0) + " @@\n")
		pos := h.A0
		for _, c := range h.Changes {
			for _, l := range a[pos:c.A0] {
				WriteLine(w, " ", l)
			}
			for _, l := range a[c.A0:c.A1] {
				WriteLine(w, "-", l)
			}
			for _, l := range b[c.B0:c.B1] {
				WriteLine(w, "+", l)
			}
			pos = c.A1
		}
		for _, l := range a[pos:h.A1] {
			WriteLine(w, " ", l)
		}
	}
}
