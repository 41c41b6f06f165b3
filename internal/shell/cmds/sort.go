package cmds

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
)

func init() { Register("sort", Sort) }

// sortKey is one -k specification (or the whole line when no -k is given).
type sortKey struct {
	sf, sc, ef, ec int // start field/char (1-based), end field/char (0: end)
	flags          sortFlags
}

// sortFlags are the ordering options of a key.
type sortFlags struct {
	b, eb, d, f, g, h, i, n, r, V, M bool
}

// sortLongOrders are the long options of the ordering letters.
var sortLongOrders = map[string]byte{
	"ignore-leading-blanks": 'b', "dictionary-order": 'd', "ignore-case": 'f', "general-numeric-sort": 'g',
	"human-numeric-sort": 'h', "ignore-nonprinting": 'i', "month-sort": 'M', "numeric-sort": 'n',
	"reverse": 'r', "version-sort": 'V',
}

// sortWordOrders are the words of --sort=WORD.
var sortWordOrders = map[string]byte{
	"numeric": 'n', "human-numeric": 'h', "general-numeric": 'g', "version": 'V', "month": 'M',
}

// set turns on the ordering option of the letter c, as in sort's short
// options and a key's OPTS; 'b' at a key's end (end) skips the blanks
// before the end position. It reports whether c is such a letter.
func (f *sortFlags) set(c byte, end bool) bool {
	switch c {
	case 'b':
		if end {
			f.eb = true
		} else {
			f.b = true
		}
	case 'd':
		f.d = true
	case 'f':
		f.f = true
	case 'g':
		f.g = true
	case 'h':
		f.h = true
	case 'i':
		f.i = true
	case 'M':
		f.M = true
	case 'n':
		f.n = true
	case 'r':
		f.r = true
	case 'V':
		f.V = true
	default:
		return false
	}
	return true
}

func (f sortFlags) any() bool {
	return f.b || f.d || f.f || f.g || f.h || f.i || f.n || f.r || f.V || f.M || f.eb
}

// Sort sorts the lines of the files (or stdin) as GNU sort in the C.UTF-8
// locale (byte order): -n -g -h -V -M numeric, version and month orders, -f
// -d -i -b, -r, -k F[.C][opts][,F[.C][opts]] keys with -t SEP, -u, -s
// (stable: no last-resort comparison), -z, -o FILE, -c/-C to check, -m to
// merge sorted files. It holds
// all input in memory, bounded by Limits.MaxReadBytes (exit 2 past it).
func Sort(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "sort", args[1:], optSpec{shorts: "bdfghiMnrRVk:t:uso:cCzmS:T:",
		longs: []string{"ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort",
			"human-numeric-sort", "ignore-nonprinting", "month-sort", "numeric-sort", "reverse", "version-sort",
			"key=", "field-separator=", "unique", "stable", "output=", "check=?", "zero-terminated", "merge",
			"buffer-size=", "temporary-directory=", "parallel=", "sort=", "random-sort"}})
	if !ok {
		return 2
	}
	var g sortFlags
	var keys []sortKey
	tab := -1
	var unique, stable, zero, merge bool
	check := 0 // 1 diagnose, 2 quiet
	output := ""
	hasOutput := false
	for _, o := range opts {
		switch o.name {
		case "b", "d", "f", "g", "h", "i", "M", "n", "r", "V":
			// A global option orders by both ends of every key.
			g.set(o.name[0], false)
			g.set(o.name[0], true)
		case "ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort",
			"human-numeric-sort", "ignore-nonprinting", "month-sort", "numeric-sort", "reverse", "version-sort":
			g.set(sortLongOrders[o.name], false)
			g.set(sortLongOrders[o.name], true)
		case "sort":
			if c, ok := sortWordOrders[o.val]; ok {
				g.set(c, false)
			}
		case "k", "key":
			k, msg := parseSortKey(env, o.val)
			if msg != "" {
				env.Errorf("sort", "%s", msg)
				return 2
			}
			keys = append(keys, k)
		case "t", "field-separator":
			if len(o.val) == 0 {
				env.Errorf("sort", "empty tab")
				return 2
			}
			if o.val == `\0` {
				tab = 0
			} else if len(o.val) > 1 {
				env.Errorf("sort", "multi-character tab %s", quote(env, o.val))
				return 2
			} else {
				tab = int(o.val[0])
			}
		case "u", "unique":
			unique = true
		case "s", "stable":
			stable = true
		case "z", "zero-terminated":
			zero = true
		case "m", "merge":
			merge = true
		case "o", "output":
			output, hasOutput = o.val, true
		case "c":
			check = 1
		case "C":
			check = 2
		case "check":
			check = 1
			if o.val == "quiet" || o.val == "silent" {
				check = 2
			}
		case "R", "random-sort":
			env.Errorf("sort", "--random-sort is not supported in the shell backend")
			return 2
		}
	}
	for i := range keys {
		if !keys[i].flags.any() {
			keys[i].flags = g
		}
	}
	if len(keys) == 0 {
		keys = []sortKey{{sf: 1, flags: g}}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	if check != 0 && len(files) > 1 {
		env.Errorf("sort", "extra operand %s not allowed with -c", quote(env, files[1]))
		return 2
	}
	delim := byte('\n')
	if zero {
		delim = 0
	}
	var all []byte
	var ends []int // where each file's lines end in all
	max := env.Limits.MaxReadBytes
	for _, f := range files {
		data, err := readArgLimited(env, f)
		if err == nil && max > 0 && int64(len(all)+len(data)) > max {
			err = ErrTooLarge
		}
		if err == nil && len(all) == 0 && (len(data) == 0 || data[len(data)-1] == delim) {
			// The first input is the whole buffer (no copy).
			all = data
			ends = append(ends, len(all))
			continue
		}
		if err == nil {
			// all grows into a copy: charged, and the pieces returned.
			err = env.Hold(int64(len(all)+len(data)+1) * 2)
			if err == nil {
				defer env.Release(int64(len(all)+len(data)+1) * 2)
				env.Release(held(data) + held(all))
			}
		}
		if err != nil {
			if isCanceled(env, err) {
				return 2
			}
			if _, ok := err.(*fs.PathError); ok && strings.Contains(err.Error(), "open ") {
				env.Errorf("sort", "cannot read: %s: %s", quotef(env, f), Strerror(err))
			} else {
				env.Errorf("sort", "read failed: %s: %s", quotef(env, f), Strerror(err))
			}
			return 2
		}
		all = append(all, data...)
		if len(data) > 0 && data[len(data)-1] != delim {
			all = append(all, delim)
		}
		ends = append(ends, len(all))
	}
	// The lines' slices (a merge splits them again and gathers them).
	nlines := int64(bytes.Count(all, []byte{delim}) + 1)
	if merge {
		nlines *= 4
	}
	if err := env.Hold(nlines * lineCost); err != nil {
		return 2
	}
	lines := splitLines(all, delim)
	s := &sorter{keys: keys, tab: tab, stable: stable || unique, reverse: g.r}
	if check != 0 {
		for i := 1; i < len(lines); i++ {
			c := s.cmp(lines[i-1], lines[i])
			if c > 0 || unique && c == 0 {
				if check == 1 {
					name := files[0]
					fmt.Fprintf(env.Stderr, "sort: %s:%d: disorder: %s\n", name, i+1, lines[i])
				}
				return 1
			}
		}
		return 0
	}
	cancelled := false
	n := 0
	cmp := func(a, b []byte) int {
		if n++; n&0xfff == 0 && env.Canceled() {
			cancelled = true
		}
		if cancelled {
			return 0
		}
		return s.cmp(a, b)
	}
	if merge {
		// -m: the files are taken as sorted and only merged, the smallest
		// first line first (the earlier file on a tie).
		var runs [][][]byte
		start := 0
		for _, end := range ends {
			runs = append(runs, splitLines(all[start:end], delim))
			start = end
		}
		lines = lines[:0]
		for !cancelled {
			best := -1
			for i, r := range runs {
				if len(r) > 0 && (best < 0 || cmp(r[0], runs[best][0]) < 0) {
					best = i
				}
			}
			if best < 0 {
				break
			}
			lines = append(lines, runs[best][0])
			runs[best] = runs[best][1:]
		}
	} else if s.stable {
		slices.SortStableFunc(lines, cmp)
	} else if k := keys[0]; len(keys) == 1 && k.sf == 1 && k.sc == 0 && k.ef == 0 && (k.flags == sortFlags{} || k.flags == sortFlags{r: true}) {
		// Whole lines, bytewise (plain sort, sort -r): without the key
		// machinery, on each line's first 8 bytes as a number first (32
		// bytes a line more while it sorts).
		if err := env.Hold(int64(len(lines)) * 32); err != nil {
			return 2
		}
		defer env.Release(int64(len(lines)) * 32)
		if !sortPlain(lines, k.flags.r, env.Canceled) {
			cancelled = true
		}
	} else {
		// Without -s (or -u) the last-resort comparison orders every two
		// lines that differ, so lines that compare equal are the same
		// bytes and an unstable sort (pdqsort, O(n log n)) gives the output
		// of a stable one (insertion and symmerge, O(n log² n)).
		slices.SortFunc(lines, cmp)
	}
	if cancelled {
		return 2
	}
	buf := heldBuffer{env: env}
	var bw *bufio.Writer
	if hasOutput && output != "-" {
		bw = bufio.NewWriter(&buf)
	} else {
		bw = bufio.NewWriter(env.Stdout)
	}
	for i, l := range lines {
		if unique && i > 0 && s.cmp(lines[i-1], l) == 0 {
			continue
		}
		bw.Write(l)
		bw.WriteByte(delim)
	}
	bw.Flush()
	if buf.err != nil {
		return 2
	}
	if hasOutput && output != "-" {
		if err := env.FS.WriteFile(env.Ctx, env.Abs(output), buf.Bytes(), 0o644); err != nil {
			env.Errorf("sort", "open failed: %s: %s", quotef(env, output), Strerror(err))
			return 2
		}
	}
	return 0
}

// sortPlain sorts lines bytewise (descending with rev). Each line is
// paired with its first 8 bytes as a big-endian number (zeros past the
// end), so that most comparisons compare two numbers; lines whose numbers
// are equal are compared whole, which orders them as bytes.Compare does
// (a short line and one that goes on with zero bytes too). canceled is
// called every 4,096 comparisons and stops the sort (false returned) when
// true.
func sortPlain(lines [][]byte, rev bool, canceled func() bool) bool {
	type ent struct {
		key  uint64
		line []byte
	}
	ents := make([]ent, len(lines))
	for i, l := range lines {
		var b [8]byte
		copy(b[:], l)
		ents[i] = ent{binary.BigEndian.Uint64(b[:]), l}
	}
	stop := false
	calls := 0
	slices.SortFunc(ents, func(a, b ent) int {
		if calls++; calls&0xfff == 0 && canceled() {
			stop = true
		}
		if stop {
			return 0
		}
		if rev {
			a, b = b, a
		}
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		if len(a.line) <= 8 && len(b.line) <= 8 {
			// Both whole in their keys: the shorter is a prefix of the
			// longer (zeros follow it), or they are the same.
			return len(a.line) - len(b.line)
		}
		return bytes.Compare(a.line, b.line)
	})
	if stop {
		return false
	}
	for i := range ents {
		lines[i] = ents[i].line
	}
	return true
}

// parseSortKey parses a -k argument; msg is GNU's diagnostic on error.
func parseSortKey(env *Env, spec string) (sortKey, string) {
	var k sortKey
	s := spec
	num := func(what string, zeroOK bool) (int, string) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, fmt.Sprintf("%s: invalid count at start of %s", what, quote(env, s))
		}
		n, err := strconv.Atoi(s[:i])
		if err != nil {
			n = math.MaxInt32
		}
		s = s[i:]
		return n, ""
	}
	flags := func(end bool) string {
		for len(s) > 0 && s[0] != ',' {
			if !k.flags.set(s[0], end) {
				return fmt.Sprintf("stray character in field spec: invalid field specification %s", quote(env, spec))
			}
			s = s[1:]
		}
		return ""
	}
	var msg string
	if k.sf, msg = num("invalid number at field start", false); msg != "" {
		return k, msg
	}
	if k.sf == 0 {
		return k, fmt.Sprintf("field number is zero: invalid field specification %s", quote(env, spec))
	}
	if strings.HasPrefix(s, ".") {
		s = s[1:]
		if k.sc, msg = num("invalid number after '.'", false); msg != "" {
			return k, msg
		}
		if k.sc == 0 {
			return k, fmt.Sprintf("character offset is zero: invalid field specification %s", quote(env, spec))
		}
	}
	if msg = flags(false); msg != "" {
		return k, msg
	}
	if strings.HasPrefix(s, ",") {
		s = s[1:]
		if k.ef, msg = num("invalid number after ','", false); msg != "" {
			return k, msg
		}
		if k.ef == 0 {
			return k, fmt.Sprintf("field number is zero: invalid field specification %s", quote(env, spec))
		}
		if strings.HasPrefix(s, ".") {
			s = s[1:]
			if k.ec, msg = num("invalid number after '.'", true); msg != "" {
				return k, msg
			}
		}
		if msg = flags(true); msg != "" {
			return k, msg
		}
	}
	return k, ""
}

// sorter compares lines by keys, then (unless stable) bytewise.
type sorter struct {
	keys    []sortKey
	tab     int
	stable  bool
	reverse bool
}

func (s *sorter) cmp(a, b []byte) int {
	for _, k := range s.keys {
		ka, kb := s.extract(a, k), s.extract(b, k)
		c := compareKey(ka, kb, k.flags)
		if k.flags.r {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	if s.stable {
		return 0
	}
	c := bytes.Compare(a, b)
	if s.reverse { // the last-resort comparison follows the global -r
		c = -c
	}
	return c
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// extract returns the key k of line.
func (s *sorter) extract(line []byte, k sortKey) []byte {
	if k.sf == 1 && k.sc == 0 && k.ef == 0 && !k.flags.b {
		return line
	}
	// Field starts.
	fieldStart := func(n int) int { // offset where field n (1-based) begins
		pos := 0
		for f := 1; f < n && pos <= len(line); f++ {
			if s.tab >= 0 {
				i := bytes.IndexByte(line[pos:], byte(s.tab))
				if i < 0 {
					return len(line)
				}
				pos += i + 1
			} else {
				for pos < len(line) && isBlank(line[pos]) {
					pos++
				}
				for pos < len(line) && !isBlank(line[pos]) {
					pos++
				}
			}
		}
		if pos > len(line) {
			pos = len(line)
		}
		return pos
	}
	fieldEnd := func(start int) int {
		pos := start
		if s.tab >= 0 {
			i := bytes.IndexByte(line[pos:], byte(s.tab))
			if i < 0 {
				return len(line)
			}
			return pos + i
		}
		for pos < len(line) && isBlank(line[pos]) {
			pos++
		}
		for pos < len(line) && !isBlank(line[pos]) {
			pos++
		}
		return pos
	}
	beg := fieldStart(k.sf)
	if k.flags.b {
		for beg < len(line) && isBlank(line[beg]) {
			beg++
		}
	}
	if k.sc > 0 {
		fe := fieldEnd(fieldStart(k.sf))
		beg += k.sc - 1
		if beg > fe {
			beg = fe
		}
	}
	end := len(line)
	if k.ef > 0 {
		fs := fieldStart(k.ef)
		if k.ec == 0 {
			end = fieldEnd(fs)
		} else {
			if k.flags.eb {
				for fs < len(line) && isBlank(line[fs]) {
					fs++
				}
			}
			end = fs + k.ec
			if fe := fieldEnd(fieldStart(k.ef)); end > fe {
				end = fe
			}
		}
	}
	if end < beg {
		end = beg
	}
	return line[beg:end]
}

// compareKey compares two keys under flags (without -r).
func compareKey(a, b []byte, f sortFlags) int {
	switch {
	case f.n:
		return compareNumeric(a, b)
	case f.h:
		return compareHuman(a, b)
	case f.g:
		return compareGeneral(a, b)
	case f.M:
		return compareMonth(a, b)
	case f.V:
		return compareVersion(string(a), string(b))
	}
	if f.b {
		a = bytes.TrimLeft(a, " \t")
		b = bytes.TrimLeft(b, " \t")
	}
	if f.d || f.i || f.f {
		a, b = translateKey(a, f), translateKey(b, f)
	}
	return bytes.Compare(a, b)
}

// translateKey applies -d, -i and -f to a key.
func translateKey(k []byte, f sortFlags) []byte {
	out := make([]byte, 0, len(k))
	for _, c := range k {
		if f.d && !(c == ' ' || c == '\t' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80) {
			continue
		}
		if f.i && (c < 0x20 || c == 0x7f) {
			continue
		}
		if f.f && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		out = append(out, c)
	}
	return out
}

// numParts splits a numeric key into sign, integer digits (without leading
// zeros) and fraction digits (without trailing zeros), as sort -n reads it.
func numParts(s []byte) (neg bool, intg, frac []byte, rest []byte) {
	i := 0
	for i < len(s) && (isBlank(s[i])) {
		i++
	}
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	st := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intg = bytes.TrimLeft(s[st:i], "0")
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = bytes.TrimRight(s[fs:i], "0")
	}
	if len(intg) == 0 && len(frac) == 0 {
		neg = false
	}
	return neg, intg, frac, s[i:]
}

func compareNumeric(a, b []byte) int {
	na, ia, fa, _ := numParts(a)
	nb, ib, fb, _ := numParts(b)
	return cmpParts(na, ia, fa, nb, ib, fb)
}

func cmpParts(na bool, ia, fa []byte, nb bool, ib, fb []byte) int {
	if na != nb {
		if na {
			return -1
		}
		return 1
	}
	c := 0
	if len(ia) != len(ib) {
		if len(ia) < len(ib) {
			c = -1
		} else {
			c = 1
		}
	} else if c = bytes.Compare(ia, ib); c == 0 {
		c = bytes.Compare(fa, fb)
	}
	if na {
		c = -c
	}
	return c
}

func compareHuman(a, b []byte) int {
	const units = "KMGTPEZYRQ"
	mag := func(rest []byte, zero bool) int {
		if len(rest) == 0 {
			return 0
		}
		c := rest[0]
		if c == 'k' {
			c = 'K'
		}
		if i := strings.IndexByte(units, c); i >= 0 {
			return i + 1
		}
		return 0
	}
	na, ia, fa, ra := numParts(a)
	nb, ib, fb, rb := numParts(b)
	ma, mb := mag(ra, false), mag(rb, false)
	if ma != mb || na != nb {
		sa, sb := ma, mb
		if na {
			sa = -ma - 1
		}
		if nb {
			sb = -mb - 1
		}
		if len(ia)+len(fa) == 0 {
			sa = 0
		}
		if len(ib)+len(fb) == 0 {
			sb = 0
		}
		if sa != sb {
			if sa < sb {
				return -1
			}
			return 1
		}
	}
	return cmpParts(na, ia, fa, nb, ib, fb)
}

func compareGeneral(a, b []byte) int {
	parse := func(s []byte) (float64, bool) {
		t := strings.TrimLeft(string(s), " \t")
		// Longest prefix that parses as a float.
		for j := len(t); j > 0; j-- {
			c := t[:j]
			if strings.Contains(c, "_") {
				continue // Go's syntax, not strtold's
			}
			if u := strings.TrimLeft(c, "+-"); len(u) > 2 && (u[:2] == "0x" || u[:2] == "0X") && !strings.ContainsAny(u, "pP") {
				c += "p0" // strtold's hex floats need no exponent
			}
			if v, err := strconv.ParseFloat(c, 64); err == nil || strings.Contains(err.Error(), "range") {
				return v, true
			}
		}
		return 0, false
	}
	va, oka := parse(a)
	vb, okb := parse(b)
	switch {
	case !oka && !okb:
		return 0
	case !oka:
		return -1
	case !okb:
		return 1
	case math.IsNaN(va) && math.IsNaN(vb):
		return 0
	case math.IsNaN(va):
		return -1
	case math.IsNaN(vb):
		return 1
	case va < vb:
		return -1
	case va > vb:
		return 1
	}
	return 0
}

func compareMonth(a, b []byte) int {
	month := func(s []byte) int {
		t := strings.ToUpper(strings.TrimLeft(string(s), " \t"))
		for i, m := range []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"} {
			if strings.HasPrefix(t, m) {
				return i + 1
			}
		}
		return 0
	}
	return month(a) - month(b)
}

// compareVersion is gnulib's filevercmp (sort -V, ls -v).
func compareVersion(a, b string) int {
	switch {
	case a == "":
		if b == "" {
			return 0
		}
		return -1
	case b == "":
		return 1
	}
	if a[0] == '.' {
		if b[0] != '.' {
			return -1
		}
		adot, bdot := a == ".", b == "."
		if adot || bdot {
			return b2i(!adot) - b2i(!bdot)
		}
		add, bdd := a == "..", b == ".."
		if add || bdd {
			return b2i(!add) - b2i(!bdd)
		}
	} else if b[0] == '.' {
		return 1
	}
	ap, bp := filePrefixLen(a), filePrefixLen(b)
	r := verrevcmp(a[:ap], b[:bp])
	if r != 0 || ap == len(a) && bp == len(b) {
		return r
	}
	return verrevcmp(a, b)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isAlphaByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// filePrefixLen is gnulib's file_prefixlen: the length of s without its
// file suffix ((\.[A-Za-z~][A-Za-z0-9~]*)*$).
func filePrefixLen(s string) int {
	n := len(s)
	prefix := 0
	for i := 0; ; {
		if i == n {
			return prefix
		}
		i++
		prefix = i
		for i+1 < n && s[i] == '.' && (isAlphaByte(s[i+1]) || s[i+1] == '~') {
			for i += 2; i < n && (isAlphaByte(s[i]) || isDigitByte(s[i]) || s[i] == '~'); i++ {
			}
		}
	}
}

func verOrder(s string, pos int) int {
	if pos == len(s) {
		return -1
	}
	c := s[pos]
	switch {
	case isDigitByte(c):
		return 0
	case isAlphaByte(c):
		return int(c)
	case c == '~':
		return -2
	}
	return int(c) + 256
}

func verrevcmp(a, b string) int {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		first := 0
		for i < len(a) && !isDigitByte(a[i]) || j < len(b) && !isDigitByte(b[j]) {
			if oa, ob := verOrder(a, i), verOrder(b, j); oa != ob {
				return oa - ob
			}
			i++
			j++
		}
		for i < len(a) && a[i] == '0' {
			i++
		}
		for j < len(b) && b[j] == '0' {
			j++
		}
		for i < len(a) && j < len(b) && isDigitByte(a[i]) && isDigitByte(b[j]) {
			if first == 0 {
				first = int(a[i]) - int(b[j])
			}
			i++
			j++
		}
		if i < len(a) && isDigitByte(a[i]) {
			return 1
		}
		if j < len(b) && isDigitByte(b[j]) {
			return -1
		}
		if first != 0 {
			return first
		}
	}
	return 0
}
