package cmds

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/textdiff"
	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("diff", Diff) }

// Diff compares files line by line as GNU diff 3.8: the normal format, the
// unified format (-u, -U N), the context format (-c, -C N), -r over directories ("Only in" lines and "diff
// <switches> a b" headers), -N, -q, -s, -w -b -B -i, -a, --label, "-" for
// stdin. Exit status 0 when the inputs are the same, 1 when they differ, 2
// on trouble. Each input is read whole, bounded by Limits.MaxReadBytes.
//
// The comparison is internal/textdiff's in its GNU mode, so the changes are
// GNU diff's own (the tests check that against the installed diff): memory
// O(N+M), and each split's search bounded by GNU's TOO_EXPENSIVE limit
// (max(4096, about √(N+M)) steps), past which, as GNU, it settles for a
// longer script. -d (--minimal) is accepted and ignored: the script is the
// one GNU prints without it.
func Diff(env *Env, args []string) int {
	opts, ops, ok := diffParseOpts(env, "diff", args[1:], optSpec{
		shorts: "uU:cC:rNqswbBiatd",
		longs: []string{"unified=?", "context=?", "recursive", "new-file", "brief", "report-identical-files",
			"ignore-all-space", "ignore-space-change", "ignore-blank-lines", "ignore-case", "label=",
			"text", "minimal", "expand-tabs", "normal", "no-dereference", "strip-trailing-cr"},
	})
	if !ok {
		return 2
	}
	d := &differOpts{env: env, ctxLines: 3}
	for _, o := range opts {
		switch o.name {
		case "u":
			d.unified, d.context = true, false
		case "c":
			d.context, d.unified = true, false
		case "U", "unified", "C", "context":
			d.unified = o.name == "U" || o.name == "unified"
			d.context = !d.unified
			if o.val != "" || o.name == "U" || o.name == "C" {
				n, err := strconv.Atoi(o.val)
				if err != nil || n < 0 {
					diffUsage(env, fmt.Sprintf("invalid context length '%s'", o.val))
					return 2
				}
				d.ctxLines = n
			}
		case "normal":
			d.unified, d.context = false, false
		case "r", "recursive":
			d.recursive = true
		case "N", "new-file":
			d.newFile = true
		case "q", "brief":
			d.brief = true
		case "s", "report-identical-files":
			d.reportSame = true
		case "w", "ignore-all-space":
			d.allSpace = true
		case "b", "ignore-space-change":
			d.spaceChange = true
		case "B", "ignore-blank-lines":
			d.blank = true
		case "i", "ignore-case":
			d.icase = true
		case "a", "text":
			d.text = true
		case "strip-trailing-cr":
			d.stripCR = true
		case "label":
			d.labels = append(d.labels, o.val)
		}
	}
	d.switches = diffSwitches(args[1:], ops)
	if len(ops) < 2 {
		after := "diff"
		if len(ops) == 1 {
			after = ops[0]
		}
		diffUsage(env, "missing operand after '"+after+"'")
		return 2
	}
	if len(ops) > 2 {
		diffUsage(env, "extra operand '"+ops[2]+"'")
		return 2
	}
	d.w = bufio.NewWriterSize(env.Stdout, 32<<10)
	defer d.w.Flush()
	return d.top(ops[0], ops[1])
}

// diffUsage prints a usage error as diff does (its "Try" line carries the
// program name too).
func diffUsage(env *Env, msg string) {
	fmt.Fprintf(env.Stderr, "diff: %s\ndiff: Try 'diff --help' for more information.\n", msg)
}

// diffSwitches rebuilds the option words of the command line, as GNU diff
// shows them in "diff -r a/f b/f" headers.
func diffSwitches(args, ops []string) string {
	opIdx := map[string]int{}
	for _, o := range ops {
		opIdx[o]++
	}
	var sw []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' {
			sw = append(sw, a)
			if (a == "-U" || a == "-C" || a == "--label") && i+1 < len(args) {
				i++
				sw = append(sw, args[i])
			}
		}
	}
	return strings.Join(sw, " ")
}

type differOpts struct {
	env                                       *Env
	w                                         *bufio.Writer
	unified, context                          bool
	ctxLines                                  int
	recursive, newFile, brief, reportSame     bool
	allSpace, spaceChange, blank, icase, text bool
	stripCR                                   bool
	labels                                    []string
	switches                                  string
}

// diffInput is one side of a comparison.
type diffInput struct {
	name   string // as displayed
	absent bool   // missing, compared as empty (-N)
	data   []byte
	mtime  time.Time
}

func (d *differOpts) stat(name string) (*vfs.FileInfo, error) {
	if name == "-" {
		return nil, nil
	}
	return d.env.FS.Stat(d.env.Ctx, d.env.Abs(name))
}

func (d *differOpts) errorf(format string, a ...any) {
	d.w.Flush()
	fmt.Fprintf(d.env.Stderr, "diff: "+format+"\n", a...)
}

// top compares the two operands.
func (d *differOpts) top(a, b string) int {
	ia, ea := d.stat(a)
	ib, eb := d.stat(b)
	if ea != nil || eb != nil {
		notFound := func(err error) bool { return errors.Is(err, fs.ErrNotExist) }
		if d.newFile && (ea == nil || notFound(ea)) && (eb == nil || notFound(eb)) && !(ea != nil && eb != nil) {
			// One side absent: compare as empty (directories: every file).
			if ea != nil && ib != nil && ib.IsDir() || eb != nil && ia != nil && ia.IsDir() {
				return d.dirs(a, b, ea != nil, eb != nil)
			}
			return d.files(a, b, false)
		}
		st := 0
		if ea != nil {
			d.errorf("%s: %s", a, Strerror(ea))
			st = 2
		}
		if eb != nil {
			d.errorf("%s: %s", b, Strerror(eb))
			st = 2
		}
		return st
	}
	aDir := ia != nil && ia.IsDir()
	bDir := ib != nil && ib.IsDir()
	switch {
	case aDir && bDir:
		return d.dirs(a, b, false, false)
	case aDir:
		if b == "-" {
			d.errorf("cannot compare '-' to a directory")
			return 2
		}
		return d.files(diffJoin(a, path.Base(b)), b, false)
	case bDir:
		if a == "-" {
			d.errorf("cannot compare '-' to a directory")
			return 2
		}
		return d.files(a, diffJoin(b, path.Base(a)), false)
	}
	return d.files(a, b, false)
}

func diffJoin(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

func (d *differOpts) list(dir string) (map[string]vfs.DirEntry, error) {
	ents, err := fuReadDir(d.env, d.env.Abs(dir))
	if err != nil {
		return nil, err
	}
	m := make(map[string]vfs.DirEntry, len(ents))
	for _, e := range ents {
		m[e.Name] = e
	}
	return m, nil
}

// dirs compares two directories (one may be absent with -N).
func (d *differOpts) dirs(a, b string, aAbsent, bAbsent bool) int {
	var la, lb map[string]vfs.DirEntry
	var err error
	if !aAbsent {
		if la, err = d.list(a); err != nil {
			d.errorf("%s: %s", a, Strerror(err))
			return 2
		}
	}
	if !bAbsent {
		if lb, err = d.list(b); err != nil {
			d.errorf("%s: %s", b, Strerror(err))
			return 2
		}
	}
	names := map[string]bool{}
	for n := range la {
		names[n] = true
	}
	for n := range lb {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	status := 0
	up := func(s int) {
		if s > status {
			status = s
		}
	}
	for _, n := range sorted {
		if d.env.Canceled() {
			return 2
		}
		pa, pb := diffJoin(a, n), diffJoin(b, n)
		ea, inA := la[n]
		eb, inB := lb[n]
		aIsDir := inA && d.isDir(pa, ea)
		bIsDir := inB && d.isDir(pb, eb)
		switch {
		case !inA || !inB:
			if d.newFile && (inA && !aIsDir || inB && !bIsDir) {
				up(d.files(pa, pb, true))
			} else if d.newFile && d.recursive {
				up(d.dirs(pa, pb, !inA, !inB))
			} else {
				where := a
				if !inA {
					where = b
				}
				fmt.Fprintf(d.w, "Only in %s: %s\n", where, n)
				up(1)
			}
		case aIsDir && bIsDir:
			if d.recursive {
				up(d.dirs(pa, pb, false, false))
			} else {
				fmt.Fprintf(d.w, "Common subdirectories: %s and %s\n", pa, pb)
			}
		case aIsDir || bIsDir:
			ka, kb := "regular file", "regular file"
			if aIsDir {
				ka = "directory"
			}
			if bIsDir {
				kb = "directory"
			}
			fmt.Fprintf(d.w, "File %s is a %s while file %s is a %s\n", pa, ka, pb, kb)
			up(1)
		default:
			up(d.files(pa, pb, true))
		}
	}
	return status
}

func (d *differOpts) isDir(p string, e vfs.DirEntry) bool {
	if e.Mode&vfs.S_IFMT == vfs.S_IFLNK {
		fi, err := d.env.FS.Stat(d.env.Ctx, d.env.Abs(p))
		return err == nil && fi.IsDir()
	}
	return e.Mode&vfs.S_IFMT == vfs.S_IFDIR
}

// load reads one side; absent files (allowed with -N) are empty.
func (d *differOpts) load(name string) (*diffInput, error) {
	in := &diffInput{name: name}
	if name == "-" {
		in.mtime = time.Now()
		data, err := readAllLimited(d.env, nopCloser{ctxReader{d.env, d.env.Stdin}})
		in.data = data
		return in, err
	}
	fi, err := d.env.FS.Stat(d.env.Ctx, d.env.Abs(name))
	if err != nil {
		if d.newFile && errors.Is(err, fs.ErrNotExist) {
			in.absent = true
			in.mtime = time.Unix(0, 0)
			return in, nil
		}
		return nil, err
	}
	in.mtime = fi.ModTime()
	in.data, err = readArgLimited(d.env, name)
	return in, err
}

// files compares two files; header says to print "diff <switches> a b"
// first (inside directory comparisons).
func (d *differOpts) files(a, b string, header bool) int {
	ia, err := d.load(a)
	if err != nil {
		d.errorf("%s: %s", a, Strerror(err))
		return 2
	}
	defer d.env.Release(held(ia.data))
	ib, err := d.load(b)
	if err != nil {
		d.errorf("%s: %s", b, Strerror(err))
		return 2
	}
	defer d.env.Release(held(ib.data))
	// The lines, their keys and the comparison's tables.
	lines := int64(bytes.Count(ia.data, []byte{'\n'})+bytes.Count(ib.data, []byte{'\n'})+2) * diffCost
	if err := d.env.Hold(lines); err != nil {
		return 2
	}
	defer d.env.Release(lines)
	if bytes.Equal(ia.data, ib.data) && ia.absent == ib.absent {
		if d.reportSame {
			fmt.Fprintf(d.w, "Files %s and %s are identical\n", a, b)
		}
		return 0
	}
	if !d.text && (bytes.IndexByte(ia.data, 0) >= 0 || bytes.IndexByte(ib.data, 0) >= 0) {
		if d.brief {
			fmt.Fprintf(d.w, "Files %s and %s differ\n", a, b)
		} else {
			if header {
				d.header(a, b)
			}
			fmt.Fprintf(d.w, "Binary files %s and %s differ\n", a, b)
		}
		return 1
	}
	la, lb := splitLinesKeep(ia.data), splitLinesKeep(ib.data)
	changes, err := d.compare(ia.data, ib.data, la, lb)
	if err != nil {
		return 2
	}
	if d.blank {
		kept := changes[:0]
		for _, c := range changes {
			if !diffAllBlank(la[c.A0:c.A1]) || !diffAllBlank(lb[c.B0:c.B1]) {
				kept = append(kept, c)
			}
		}
		changes = kept
	}
	if len(changes) == 0 {
		if d.reportSame {
			fmt.Fprintf(d.w, "Files %s and %s are identical\n", a, b)
		}
		return 0
	}
	if d.brief {
		fmt.Fprintf(d.w, "Files %s and %s differ\n", a, b)
		return 1
	}
	if header {
		d.header(a, b)
	}
	switch {
	case d.unified:
		d.unifiedOut(ia, ib, la, lb, changes)
	case d.context:
		d.contextOut(ia, ib, la, lb, changes)
	default:
		d.normalOut(la, lb, changes)
	}
	return 1
}

func (d *differOpts) header(a, b string) {
	if d.switches != "" {
		fmt.Fprintf(d.w, "diff %s %s %s\n", d.switches, a, b)
	} else {
		fmt.Fprintf(d.w, "diff %s %s\n", a, b)
	}
}

func diffAllBlank(lines []string) bool {
	for _, l := range lines {
		if strings.TrimRight(l, "\n") != "" {
			return false
		}
	}
	return true
}

// key is the line as compared under -i -w -b --strip-trailing-cr.
func (d *differOpts) key(l string) string {
	nl := strings.HasSuffix(l, "\n")
	s := strings.TrimSuffix(l, "\n")
	if d.stripCR {
		s = strings.TrimSuffix(s, "\r")
	}
	if d.icase {
		s = strings.ToLower(s)
	}
	isSpace := func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\v' || r == '\f' }
	switch {
	case d.allSpace:
		s = strings.Map(func(r rune) rune {
			if isSpace(r) {
				return -1
			}
			return r
		}, s)
	case d.spaceChange:
		var sb strings.Builder
		space := false
		for _, r := range s {
			if isSpace(r) {
				space = true
				continue
			}
			if space {
				sb.WriteByte(' ')
				space = false
			}
			sb.WriteRune(r)
		}
		s = sb.String()
	}
	if nl || d.allSpace || d.spaceChange {
		return s + "\n"
	}
	return s
}

// diffTime formats a timestamp as GNU diff's unified headers do.
func diffTime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.000000000 -0700")
}

// line writes one output line with its prefix and, for a last line without
// a newline, GNU's marker.
func (d *differOpts) line(prefix, l string) { textdiff.WriteLine(d.w, prefix, l) }

func diffRange(a0, a1 int) string {
	if a1-a0 <= 1 {
		if a1 == a0 {
			return strconv.Itoa(a0)
		}
		return strconv.Itoa(a1)
	}
	return strconv.Itoa(a0+1) + "," + strconv.Itoa(a1)
}

func (d *differOpts) normalOut(la, lb []string, changes []textdiff.Change) {
	for _, c := range changes {
		switch {
		case c.A0 == c.A1:
			fmt.Fprintf(d.w, "%da%s\n", c.A0, diffRange(c.B0, c.B1))
		case c.B0 == c.B1:
			fmt.Fprintf(d.w, "%sd%d\n", diffRange(c.A0, c.A1), c.B0)
		default:
			fmt.Fprintf(d.w, "%sc%s\n", diffRange(c.A0, c.A1), diffRange(c.B0, c.B1))
		}
		for _, l := range la[c.A0:c.A1] {
			d.line("< ", l)
		}
		if c.A0 != c.A1 && c.B0 != c.B1 {
			d.w.WriteString("---\n")
		}
		for _, l := range lb[c.B0:c.B1] {
			d.line("> ", l)
		}
	}
}

// headerLabels returns the two header labels of the unified and context formats.
func (d *differOpts) headerLabels(ia, ib *diffInput) (string, string) {
	la0, lb0 := ia.name+"\t"+diffTime(ia.mtime), ib.name+"\t"+diffTime(ib.mtime)
	if len(d.labels) > 0 {
		la0 = d.labels[0]
	}
	if len(d.labels) > 1 {
		lb0 = d.labels[1]
	}
	return la0, lb0
}

func (d *differOpts) unifiedOut(ia, ib *diffInput, la, lb []string, changes []textdiff.Change) {
	l0, l1 := d.headerLabels(ia, ib)
	fmt.Fprintf(d.w, "--- %s\n+++ %s\n", l0, l1)
	textdiff.WriteUnified(d.w, la, lb, textdiff.Hunks(changes, d.ctxLines, len(la), len(lb)))
}

// ctxRange formats a context-format range as GNU's
// print_context_number_range: "first,last", or one number for a single line
// (or, for none, the line before).
func ctxRange(start, end int) string {
	if end <= start+1 {
		return strconv.Itoa(end)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(end)
}

// contextOut writes the context format (-c): hunks grouped as unifiedOut's,
// each with its old lines ("- " deleted, "! " changed) and then its new
// lines ("+ " inserted, "! " changed); a side with no changes in the hunk
// shows only its range line.
func (d *differOpts) contextOut(ia, ib *diffInput, la, lb []string, changes []textdiff.Change) {
	l0, l1 := d.headerLabels(ia, ib)
	fmt.Fprintf(d.w, "*** %s\n--- %s\n", l0, l1)
	for _, h := range textdiff.Hunks(changes, d.ctxLines, len(la), len(lb)) {
		d.w.WriteString("***************\n")
		fmt.Fprintf(d.w, "*** %s ****\n", ctxRange(h.A0, h.A1))
		d.contextSide(la, h.A0, h.A1, h.Changes, false)
		fmt.Fprintf(d.w, "--- %s ----\n", ctxRange(h.B0, h.B1))
		d.contextSide(lb, h.B0, h.B1, h.Changes, true)
	}
}

// contextSide writes one side of a context hunk, lines[from:to]: the old
// side (new false: "- " deleted, "! " changed) or the new side ("+ "
// inserted, "! " changed). A side without changes of its own is left out.
func (d *differOpts) contextSide(lines []string, from, to int, changes []textdiff.Change, new bool) {
	span := func(c textdiff.Change) (int, int, bool) {
		if new {
			return c.B0, c.B1, c.A1 > c.A0
		}
		return c.A0, c.A1, c.B1 > c.B0
	}
	own := false
	for _, c := range changes {
		s, e, _ := span(c)
		own = own || e > s
	}
	if !own {
		return
	}
	mark := "- "
	if new {
		mark = "+ "
	}
	pos := from
	for _, c := range changes {
		s, e, both := span(c)
		for _, l := range lines[pos:s] {
			d.line("  ", l)
		}
		m := mark
		if both {
			m = "! "
		}
		for _, l := range lines[s:e] {
			d.line(m, l)
		}
		pos = e
	}
	for _, l := range lines[pos:to] {
		d.line("  ", l)
	}
}
