package cmds

import (
	"fmt"
	"io"
	"strings"

	"github.com/desk-dev/desk/internal/textdiff"
)

// The comparison of diff, as GNU diff 3.8 makes it: the identical prefix
// and suffix are left out (but for horizon lines), and the lines between
// are compared by internal/textdiff with GNU's choices.

// compare returns the changes between the lines la and lb of the data a and
// b, with line numbers from the start of the files.
func (d *differOpts) compare(a, b []byte, la, lb []string) ([]textdiff.Change, error) {
	horizon := 0
	if d.unified || d.context {
		horizon = d.ctxLines
	}
	pre, suf := diffIdenticalEnds(a, b, horizon)
	mid := func(lines []string) []string {
		keys := make([]string, 0, len(lines)-pre-suf)
		for _, l := range lines[pre : len(lines)-suf] {
			keys = append(keys, d.key(l))
		}
		return keys
	}
	r, err := textdiff.Diff(d.env.Ctx, mid(la), mid(lb), textdiff.Options{})
	if err != nil {
		return nil, err
	}
	for i := range r.Changes {
		c := &r.Changes[i]
		c.A0, c.A1, c.B0, c.B1 = c.A0+pre, c.A1+pre, c.B0+pre, c.B1+pre
	}
	return r.Changes, nil
}

// diffIdenticalEnds returns how many lines at the start and at the end of a
// and b diff leaves out of the comparison, as GNU diff's find_identical_ends:
// the bytes both share at the start back to a line start, and at the end
// forward to one, each less horizon lines; a last line without a newline is
// in neither unless both lack it. (The lines it keeps matter: GNU sets lines
// aside by how often they occur among them, and moves changes within them.)
func diffIdenticalEnds(a, b []byte, horizon int) (pre, suf int) {
	ma, mb := len(a) > 0 && a[len(a)-1] != '\n', len(b) > 0 && b[len(b)-1] != '\n'
	// GNU completes a last line with a newline (and remembers it did).
	at := func(buf []byte, i int) byte {
		if i == len(buf) {
			return '\n'
		}
		return buf[i]
	}
	n0, n1 := len(a), len(b)
	if ma {
		n0++
	}
	if mb {
		n1++
	}
	p := 0
	for p < n0 && p < n1 && at(a, p) == at(b, p) {
		p++
	}
	if (ma && p == n0) != (mb && p == n1) {
		p--
	}
	for i := horizon; p > 0; p-- {
		if at(a, p-1) == '\n' {
			if i == 0 {
				break
			}
			i--
		}
	}
	lines := func(buf []byte, from, to int) int {
		n := 0
		for i := from; i < to; i++ {
			if at(buf, i) == '\n' {
				n++
			}
		}
		return n
	}
	pre = lines(a, 0, p)
	if ma != mb {
		return pre, 0
	}
	beg := p + max(n0-n1, 0)
	q0, q1 := n0, n1
	for q0 != beg {
		q0--
		q1--
		if at(a, q0) != at(b, q1) {
			q0++
			q1++
			break
		}
	}
	lineStart := func(buf []byte, q int) bool { return q == 0 || at(buf, q-1) == '\n' }
	i := horizon
	if !lineStart(a, q0) || !lineStart(b, q1) {
		i++
	}
	for ; i > 0 && q0 != n0; i-- {
		for q0 < n0 {
			q0++
			if at(a, q0-1) == '\n' {
				break
			}
		}
	}
	return pre, lines(a, q0, n0)
}

// splitLinesKeep splits data into lines keeping each line's "\n"; the last
// line may lack it.
func splitLinesKeep(data []byte) []string {
	return textdiff.SplitLines(string(data))
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
