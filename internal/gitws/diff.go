package gitws

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/desk-dev/desk/internal/textdiff"
)

// side is one version of a file in a comparison.
type side struct {
	Hash plumbing.Hash
	Mode filemode.FileMode
	data []byte // content when already read (the work tree's)
	has  bool
}

// filePair is one changed path: a missing side is a zero value.
type filePair struct {
	Path     string
	OldPath  string // a rename's source ("" otherwise)
	Old, New side
}

func (p filePair) status() byte {
	switch {
	case p.OldPath != "" && p.OldPath != p.Path:
		return 'R'
	case p.Old.Hash.IsZero() && p.Old.Mode == 0:
		return 'A'
	case p.New.Hash.IsZero() && p.New.Mode == 0:
		return 'D'
	case (p.Old.Mode == filemode.Symlink) != (p.New.Mode == filemode.Symlink):
		return 'T'
	}
	return 'M'
}

// diffFlat compares two flat trees (old, new) restricted to ps.
func diffFlat(old, new map[string]treeEntry, ps pathspec) []filePair {
	var out []filePair
	for p, o := range old {
		if !ps.match(p) {
			continue
		}
		n, ok := new[p]
		if !ok {
			out = append(out, filePair{Path: p, Old: side{Hash: o.Hash, Mode: o.Mode}})
			continue
		}
		if n.Hash != o.Hash || n.Mode != o.Mode {
			out = append(out, filePair{Path: p, Old: side{Hash: o.Hash, Mode: o.Mode}, New: side{Hash: n.Hash, Mode: n.Mode}})
		}
	}
	for p, n := range new {
		if _, ok := old[p]; !ok && ps.match(p) {
			out = append(out, filePair{Path: p, New: side{Hash: n.Hash, Mode: n.Mode}})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// diffOpts are the output options of diff, show and log -p.
type diffOpts struct {
	patch, stat, shortstat, numstat, nameOnly, nameStatus bool
	context                                               int
	quiet, exitCode                                       bool
	noPrefix                                              bool
}

// parseDiffOpts reads the output options shared by diff, show and log.
func diffSpec() []string {
	return []string{"stat", "shortstat", "numstat", "name-only", "name-status", "patch", "unified=", "quiet", "exit-code", "no-patch", "no-prefix", "cached", "staged", "no-color", "color?", "no-renames", "find-renames?", "raw", "binary", "minimal", "patience", "histogram", "ignore-space-at-eol", "no-ext-diff", "full-index", "abbrev?", "summary", "compact-summary", "src-prefix=", "dst-prefix="}
}

func readDiffOpts(o *opts, defPatch bool) diffOpts {
	d := diffOpts{context: 3}
	d.stat, d.shortstat, d.numstat = o.has("stat"), o.has("shortstat"), o.has("numstat")
	d.nameOnly, d.nameStatus = o.has("name-only"), o.has("name-status")
	d.quiet, d.exitCode = o.has("quiet"), o.has("exit-code") || o.has("quiet")
	d.noPrefix = o.has("no-prefix")
	if o.has("unified") {
		d.context, _ = strconv.Atoi(o.val("unified"))
		d.patch = true
	}
	if o.has("patch") {
		d.patch = true
	}
	if !d.stat && !d.shortstat && !d.numstat && !d.nameOnly && !d.nameStatus && defPatch {
		d.patch = true
	}
	if o.has("no-patch") {
		d.patch = false
	}
	return d
}

// content returns a side's bytes.
func (r *Repo) content(s *side) ([]byte, error) {
	if s.has {
		return s.data, nil
	}
	if s.Hash.IsZero() {
		return nil, nil
	}
	if s.Mode == filemode.Submodule {
		return []byte("Subproject commit " + s.Hash.String() + "\n"), nil
	}
	b, err := r.blob(s.Hash)
	if err != nil {
		return nil, err
	}
	s.data, s.has = b, true
	return b, nil
}

// isBinary is git's test: a NUL byte in the first 8000 bytes.
func isBinary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
	}
	return bytes.IndexByte(b, 0) >= 0
}

// lineStats counts the lines a pair adds and deletes (binary: -1, -1).
type lineStats struct {
	add, del int
	binary   bool
	oldSize  int
	newSize  int
}

// pairDiff computes the changes of one pair.
func (r *Repo) pairDiff(ctx context.Context, p *filePair) (a, b []string, ch []textdiff.Change, st lineStats, err error) {
	ob, err := r.content(&p.Old)
	if err != nil {
		return
	}
	nb, err := r.content(&p.New)
	if err != nil {
		return
	}
	st.oldSize, st.newSize = len(ob), len(nb)
	if isBinary(ob) || isBinary(nb) {
		st.binary = true
		return
	}
	a, b = textdiff.SplitLines(string(ob)), textdiff.SplitLines(string(nb))
	res, err := textdiff.Diff(ctx, a, b, textdiff.Options{Minimal: true, MaxCost: 1 << 30, MaxWork: 1 << 40})
	if err != nil {
		return
	}
	ch = res.Changes
	for _, c := range ch {
		st.del += c.A1 - c.A0
		st.add += c.B1 - c.B0
	}
	return
}

// funcLine is git's default hunk header context: the nearest line before
// the hunk that starts with a letter, '_' or '$', cut to 80 bytes, trailing
// white space dropped.
func funcLine(a []string, before int) string {
	for i := before - 1; i >= 0; i-- {
		l := strings.TrimSuffix(a[i], "\n")
		if l == "" {
			continue
		}
		ch := l[0]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '_' || ch == '$' {
			if len(l) > 80 {
				l = l[:80]
			}
			return strings.TrimRight(l, " \t\r\v\f")
		}
	}
	return ""
}

// writeDiff writes the pairs in the formats d asks for; it returns whether
// there was any difference.
func (c *cmd) writeDiff(w io.Writer, r *Repo, pairs []filePair, d diffOpts) bool {
	if len(pairs) == 0 {
		return false
	}
	if d.quiet {
		return true
	}
	stats := make([]lineStats, len(pairs))
	type parts struct {
		a, b []string
		ch   []textdiff.Change
	}
	ps := make([]parts, len(pairs))
	needLines := d.patch || d.stat || d.shortstat || d.numstat
	for i := range pairs {
		if !needLines {
			break
		}
		a, b, ch, st, err := r.pairDiff(c.env.Ctx, &pairs[i])
		if err != nil {
			c.dieErr(err)
		}
		stats[i], ps[i] = st, parts{a, b, ch}
	}
	name := func(p string) string { return c.relPathDiff(p) }
	if d.numstat {
		for i, p := range pairs {
			if stats[i].binary {
				fmt.Fprintf(w, "-\t-\t%s\n", name(p.Path))
				continue
			}
			fmt.Fprintf(w, "%d\t%d\t%s\n", stats[i].add, stats[i].del, name(p.Path))
		}
	}
	if d.stat {
		writeStat(w, pairs, stats, name)
	} else if d.shortstat {
		writeSummary(w, pairs, stats)
	}
	if d.nameOnly {
		for _, p := range pairs {
			fmt.Fprintln(w, quotePath(name(p.Path), false))
		}
	}
	if d.nameStatus {
		for _, p := range pairs {
			if p.status() == 'R' {
				fmt.Fprintf(w, "R100\t%s\t%s\n", quotePath(name(p.OldPath), false), quotePath(name(p.Path), false))
				continue
			}
			fmt.Fprintf(w, "%c\t%s\n", p.status(), quotePath(name(p.Path), false))
		}
	}
	if d.patch {
		if d.stat || d.numstat || d.shortstat {
			fmt.Fprintln(w)
		}
		for i := range pairs {
			c.writePatch(w, &pairs[i], ps[i].a, ps[i].b, ps[i].ch, stats[i], d)
		}
	}
	return true
}

// relPathDiff: diff prints paths from the top of the work tree.
func (c *cmd) relPathDiff(p string) string { return p }

func (c *cmd) writePatch(w io.Writer, p *filePair, a, b []string, ch []textdiff.Change, st lineStats, d diffOpts) {
	src, dst := "a/", "b/"
	if d.noPrefix {
		src, dst = "", ""
	}
	oldPath := p.Path
	if p.OldPath != "" {
		oldPath = p.OldPath
	}
	qa, qb := quotePath(src+oldPath, false), quotePath(dst+p.Path, false)
	var sb strings.Builder
	fmt.Fprintf(&sb, "diff --git %s %s\n", qa, qb)
	oldMissing := p.Old.Mode == 0
	newMissing := p.New.Mode == 0
	short := func(h plumbing.Hash) string { return h.String()[:7] }
	switch {
	case oldMissing:
		fmt.Fprintf(&sb, "new file mode %06o\n", uint32(p.New.Mode))
		fmt.Fprintf(&sb, "index %s..%s\n", strings.Repeat("0", 7), short(p.New.Hash))
	case newMissing:
		fmt.Fprintf(&sb, "deleted file mode %06o\n", uint32(p.Old.Mode))
		fmt.Fprintf(&sb, "index %s..%s\n", short(p.Old.Hash), strings.Repeat("0", 7))
	default:
		if p.Old.Mode != p.New.Mode {
			fmt.Fprintf(&sb, "old mode %06o\nnew mode %06o\n", uint32(p.Old.Mode), uint32(p.New.Mode))
		}
		if p.OldPath != "" && p.OldPath != p.Path {
			fmt.Fprintf(&sb, "similarity index 100%%\nrename from %s\nrename to %s\n", quotePath(p.OldPath, false), quotePath(p.Path, false))
		}
		if p.Old.Hash != p.New.Hash {
			if p.Old.Mode == p.New.Mode {
				fmt.Fprintf(&sb, "index %s..%s %06o\n", short(p.Old.Hash), short(p.New.Hash), uint32(p.New.Mode))
			} else {
				fmt.Fprintf(&sb, "index %s..%s\n", short(p.Old.Hash), short(p.New.Hash))
			}
		}
	}
	if p.Old.Hash == p.New.Hash {
		_, _ = io.WriteString(w, sb.String())
		return
	}
	la, lb := qa, qb
	if oldMissing {
		la = "/dev/null"
	}
	if newMissing {
		lb = "/dev/null"
	}
	if st.binary {
		fmt.Fprintf(&sb, "Binary files %s and %s differ\n", la, lb)
		_, _ = io.WriteString(w, sb.String())
		return
	}
	if len(ch) == 0 {
		_, _ = io.WriteString(w, sb.String())
		return
	}
	tab := func(n string) string {
		if strings.Contains(n, " ") {
			return n + "\t"
		}
		return n
	}
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", tab(la), tab(lb))
	for _, h := range textdiff.Hunks(ch, d.context, len(a), len(b)) {
		fl := funcLine(a, h.A0)
		hdr := "@@ -" + textdiff.UnifiedRange(h.A0, h.A1-h.A0) + " +" + textdiff.UnifiedRange(h.B0, h.B1-h.B0) + " @@"
		if fl != "" {
			hdr += " " + fl
		}
		sb.WriteString(hdr + "\n")
		pos := h.A0
		for _, c := range h.Changes {
			for _, l := range a[pos:c.A0] {
				textdiff.WriteLine(&sb, " ", l)
			}
			for _, l := range a[c.A0:c.A1] {
				textdiff.WriteLine(&sb, "-", l)
			}
			for _, l := range b[c.B0:c.B1] {
				textdiff.WriteLine(&sb, "+", l)
			}
			pos = c.A1
		}
		for _, l := range a[pos:h.A1] {
			textdiff.WriteLine(&sb, " ", l)
		}
	}
	_, _ = io.WriteString(w, sb.String())
}

func decimalWidth(n int) int { return len(strconv.Itoa(n)) }

// writeStat writes git's --stat table (80 columns) and its summary.
func writeStat(w io.Writer, pairs []filePair, stats []lineStats, name func(string) string) {
	writeStatWidth(w, pairs, stats, name, 80)
}

// writeStatWidth is writeStat for a table width columns wide
// (format-patch's is 72).
func writeStatWidth(w io.Writer, pairs []filePair, stats []lineStats, name func(string) string, width int) {
	maxLen, maxChange := 0, 0
	names := make([]string, len(pairs))
	hasBin := false
	for i, p := range pairs {
		n := quotePath(name(p.Path), false)
		if p.status() == 'R' {
			n = renameSummary(name(p.OldPath), name(p.Path))
		}
		names[i] = n
		maxLen = max(maxLen, len(n))
		if stats[i].binary {
			hasBin = true
			continue
		}
		maxChange = max(maxChange, stats[i].add+stats[i].del)
	}
	numberWidth := decimalWidth(maxChange)
	if hasBin && numberWidth < 3 {
		numberWidth = 3
	}
	nameWidth := maxLen
	graphWidth := maxChange
	if nameWidth+numberWidth+6+graphWidth > width {
		if graphWidth > width*3/8-numberWidth-6 {
			graphWidth = width*3/8 - numberWidth - 6
			if graphWidth < 6 {
				graphWidth = 6
			}
		}
		if nameWidth > width-numberWidth-6-graphWidth {
			nameWidth = width - numberWidth - 6 - graphWidth
		} else {
			graphWidth = width - numberWidth - 6 - nameWidth
		}
	}
	for i := range pairs {
		n := names[i]
		if len(n) > nameWidth {
			n = "..." + n[len(n)-(nameWidth-3):]
		}
		n += strings.Repeat(" ", nameWidth-len(n))
		st := stats[i]
		if st.binary {
			fmt.Fprintf(w, " %s | %*s %d -> %d bytes\n", n, numberWidth, "Bin", st.oldSize, st.newSize)
			continue
		}
		total := st.add + st.del
		add, del := st.add, st.del
		if graphWidth < maxChange && maxChange > 0 {
			total2 := scaleLinear(total, graphWidth, maxChange)
			if total2 < 2 && add > 0 && del > 0 {
				total2 = 2
			}
			if add < del {
				add = scaleLinear(add, graphWidth, maxChange)
				del = total2 - add
			} else {
				del = scaleLinear(del, graphWidth, maxChange)
				add = total2 - del
			}
		}
		sep := ""
		if total > 0 {
			sep = " "
		}
		fmt.Fprintf(w, " %s | %*d%s%s%s\n", n, numberWidth, total, sep, strings.Repeat("+", add), strings.Repeat("-", del))
	}
	writeSummary(w, pairs, stats)
}

func scaleLinear(it, width, maxChange int) int {
	if it == 0 {
		return 0
	}
	return 1 + it*(width-1)/maxChange
}

// writeSummary writes " N files changed, X insertions(+), Y deletions(-)".
func writeSummary(w io.Writer, pairs []filePair, stats []lineStats) {
	ins, del := 0, 0
	for _, s := range stats {
		ins += s.add
		del += s.del
	}
	fmt.Fprint(w, summaryLine(len(pairs), ins, del)+"\n")
}

func summaryLine(files, ins, del int) string {
	if files == 0 {
		return " 0 files changed"
	}
	pl := func(n int, s string) string {
		if n == 1 {
			return s
		}
		return s + "s"
	}
	s := fmt.Sprintf(" %d %s changed", files, pl(files, "file"))
	if ins > 0 || del == 0 {
		s += fmt.Sprintf(", %d %s(+)", ins, pl(ins, "insertion"))
	}
	if del > 0 || ins == 0 {
		s += fmt.Sprintf(", %d %s(-)", del, pl(del, "deletion"))
	}
	return s
}

// worktreeSide reads the work tree's version of a tracked path for a
// comparison against the index.
func (r *Repo) worktreePairs(idxEntries map[string]treeEntry, ps pathspec, fromHead map[string]treeEntry) ([]filePair, error) {
	st, err := r.status(false)
	if err != nil {
		return nil, err
	}
	var out []filePair
	for _, ch := range st.changes {
		if ch.Y == ' ' || !ps.match(ch.Path) {
			continue
		}
		base, ok := idxEntries[ch.Path]
		if fromHead != nil {
			base, ok = fromHead[ch.Path]
		}
		p := filePair{Path: ch.Path}
		if ok {
			p.Old = side{Hash: base.Hash, Mode: base.Mode}
		}
		if ch.Y == 'D' {
			out = append(out, p)
			continue
		}
		a, ok := st.scan.files[ch.Path]
		if !ok {
			continue
		}
		data, err := r.readWork(ch.Path, a)
		if err != nil {
			return nil, err
		}
		p.New = side{Hash: hashBlob(data), Mode: modeOf(a), data: data, has: true}
		if ch.Y == 'U' {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}
