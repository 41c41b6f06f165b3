package cmds

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

func init() { Register("join", Join) }

// joinSpec is one item of -o: file 0 is the join field.
type joinSpec struct{ file, field int }

// joinLine is one input line split into fields.
type joinLine struct {
	text   []byte
	fields [][]byte
	num    int64
}

// joinState is one join invocation.
type joinState struct {
	env          *Env
	w            *bufio.Writer
	tab          int // -1: blanks
	keys         [2]int
	fold         bool
	unpaired     [2]bool
	pairs        bool
	format       []joinSpec
	auto         bool
	autoCount    [2]int
	empty        *string
	check        int // 0 default, 1 --check-order, 2 --nocheck-order
	names        [2]string
	warned       [2]bool
	seenUnpaired bool
	fatal        bool
	eol          byte
}

// Join is GNU join: it joins lines of two sorted files on a common field
// (-1, -2, -j), separated by blanks or -t CHAR, printing pairs (and with -a
// or -v unpairable lines), in the order given by -o FORMAT (with -e for
// missing fields, -o auto), -i ignoring case, --header pairing the first
// lines. Disorder is diagnosed as GNU does: fatally with --check-order, by
// default once per file when there are unpairable lines (then exit 1).
func Join(env *Env, args []string) int {
	s := &joinState{env: env, tab: -1, keys: [2]int{0, 0}, pairs: true, eol: '\n'}
	opts, files, ok := parseOpts(env, "join", args[1:], optSpec{
		shorts: "a:e:i1:2:j:o:t:v:z",
		longs:  []string{"ignore-case", "check-order", "nocheck-order", "header", "zero-terminated"},
	})
	if !ok {
		return 1
	}
	header := false
	field := func(v string) (int, bool) {
		n, err := strconv.ParseUint(v, 10, 31)
		if err != nil || n < 1 {
			env.Errorf("join", "invalid field number: %s", quote(env, v))
			return 0, false
		}
		return int(n) - 1, true
	}
	for _, o := range opts {
		switch o.name {
		case "a", "v":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 1 || n > 2 {
				env.Errorf("join", "invalid field number: %s", quote(env, o.val))
				return 1
			}
			s.unpaired[n-1] = true
			if o.name == "v" {
				s.pairs = false
			}
		case "e":
			v := o.val
			s.empty = &v
		case "i", "ignore-case":
			s.fold = true
		case "1", "2", "j":
			n, ok := field(o.val)
			if !ok {
				return 1
			}
			switch o.name {
			case "1":
				s.keys[0] = n
			case "2":
				s.keys[1] = n
			default:
				s.keys = [2]int{n, n}
			}
		case "o":
			if o.val == "auto" {
				s.auto = true
				continue
			}
			for _, item := range strings.FieldsFunc(o.val, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
				if item == "0" {
					s.format = append(s.format, joinSpec{0, 0})
					continue
				}
				f, m, okDot := strings.Cut(item, ".")
				if !okDot || (f != "1" && f != "2") {
					env.Errorf("join", "invalid file number in field spec: %s", quote(env, item))
					return 1
				}
				n, ok := field(m)
				if !ok {
					return 1
				}
				s.format = append(s.format, joinSpec{int(f[0] - '0'), n})
			}
		case "t":
			switch {
			case o.val == "":
				s.tab = '\n'
			case len(o.val) > 1 && o.val != `\0`:
				env.Errorf("join", "multi-character tab %s", quote(env, o.val))
				return 1
			case o.val == `\0`:
				s.tab = 0
			default:
				s.tab = int(o.val[0])
			}
		case "check-order":
			s.check = 1
		case "nocheck-order":
			s.check = 2
		case "header":
			header = true
		case "z", "zero-terminated":
			s.eol = 0
		}
	}
	switch {
	case len(files) == 0:
		tryHelp(env, "join", "missing operand")
		return 1
	case len(files) == 1:
		tryHelp(env, "join", "missing operand after %s", quote(env, files[0]))
		return 1
	case len(files) > 2:
		tryHelp(env, "join", "extra operand %s", quoteaf(env, files[2]))
		return 1
	}
	var data [2][]joinLine
	for i, name := range files {
		s.names[i] = name
		b, err := readArgLimited(env, name)
		if err != nil {
			env.Errorf("join", "%s: %s", name, Strerror(err))
			return 1
		}
		for k, l := range splitLines(b, s.eol) {
			data[i] = append(data[i], joinLine{text: l, fields: s.split(l), num: int64(k + 1)})
		}
	}
	s.w = bufio.NewWriterSize(env.Stdout, 32<<10)
	defer s.w.Flush()
	if s.auto {
		for i := range data {
			if len(data[i]) > 0 {
				s.autoCount[i] = len(data[i][0].fields)
			}
		}
	}
	a, b := data[0], data[1]
	if header && (len(a) > 0 || len(b) > 0) {
		var l1, l2 *joinLine
		if len(a) > 0 {
			l1, a = &a[0], a[1:]
		}
		if len(b) > 0 {
			l2, b = &b[0], b[1:]
		}
		s.print(l1, l2)
	}
	i, j := 0, 0
	// next advances in one file, checking order against the previous line.
	advance := func(which int, lines []joinLine, k int) bool {
		if k+1 < len(lines) && (s.check == 1 || s.check == 0 && s.seenUnpaired) {
			if s.cmp(lines[k].key(s.keys[which]), lines[k+1].key(s.keys[which])) > 0 && !s.warned[which] {
				s.w.Flush()
				l := lines[k+1]
				env.Errorf("join", "%s:%d: is not sorted: %s", s.names[which], l.num, l.text)
				s.warned[which] = true
				if s.check == 1 {
					s.fatal = true
					return false
				}
			}
		}
		return true
	}
	for i < len(a) && j < len(b) {
		if env.Canceled() {
			return 1
		}
		d := s.cmp(a[i].key(s.keys[0]), b[j].key(s.keys[1]))
		if d < 0 {
			if s.unpaired[0] {
				s.print(&a[i], nil)
			}
			s.seenUnpaired = true
			if !advance(0, a, i) {
				return 1
			}
			i++
			continue
		}
		if d > 0 {
			if s.unpaired[1] {
				s.print(nil, &b[j])
			}
			s.seenUnpaired = true
			if !advance(1, b, j) {
				return 1
			}
			j++
			continue
		}
		ie := i
		for ie+1 < len(a) && s.cmp(a[ie+1].key(s.keys[0]), a[i].key(s.keys[0])) == 0 {
			ie++
		}
		je := j
		for je+1 < len(b) && s.cmp(b[je+1].key(s.keys[1]), b[j].key(s.keys[1])) == 0 {
			je++
		}
		if s.pairs {
			for x := i; x <= ie; x++ {
				for y := j; y <= je; y++ {
					s.print(&a[x], &b[y])
				}
			}
		}
		if !advance(0, a, ie) || !advance(1, b, je) {
			return 1
		}
		i, j = ie+1, je+1
	}
	if i < len(a) {
		s.seenUnpaired = true
	}
	if j < len(b) {
		s.seenUnpaired = true
	}
	for which, lines := range [2][]joinLine{a, b} {
		k := i
		if which == 1 {
			k = j
		}
		if !s.unpaired[which] && s.check != 1 {
			continue
		}
		for ; k < len(lines); k++ {
			if env.Canceled() {
				return 1
			}
			if s.unpaired[which] {
				if which == 0 {
					s.print(&lines[k], nil)
				} else {
					s.print(nil, &lines[k])
				}
			}
			if !advance(which, lines, k) {
				return 1
			}
		}
	}
	s.w.Flush()
	if s.check != 2 && (s.warned[0] || s.warned[1]) {
		env.Errorf("join", "input is not in sorted order")
		return 1
	}
	return 0
}

// split cuts a line into fields: on -t's character, or on runs of blanks
// with leading blanks ignored.
func (s *joinState) split(l []byte) [][]byte {
	if s.tab == '\n' {
		return [][]byte{l}
	}
	if s.tab >= 0 {
		if len(l) == 0 {
			return nil
		}
		return bytes.Split(l, []byte{byte(s.tab)})
	}
	return bytes.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '\t' })
}

func (l *joinLine) key(n int) []byte {
	if l == nil || n >= len(l.fields) {
		return nil
	}
	return l.fields[n]
}

func (s *joinState) cmp(a, b []byte) int {
	if s.fold {
		return bytes.Compare(bytes.ToLower(a), bytes.ToLower(b))
	}
	return bytes.Compare(a, b)
}

// field prints one field, or -e's value when it is missing or empty.
func (s *joinState) field(l *joinLine, n int) {
	if l != nil && n < len(l.fields) && len(l.fields[n]) > 0 {
		s.w.Write(l.fields[n])
	} else if s.empty != nil {
		s.w.WriteString(*s.empty)
	}
}

func (s *joinState) sep() {
	if s.tab >= 0 && s.tab != '\n' {
		s.w.WriteByte(byte(s.tab))
	} else {
		s.w.WriteByte(' ')
	}
}

// print writes one output line for a pair, or an unpairable line (the other
// nil).
func (s *joinState) print(l1, l2 *joinLine) {
	if len(s.format) > 0 {
		for k, f := range s.format {
			if k > 0 {
				s.sep()
			}
			switch {
			case f.file == 0 && l1 != nil:
				s.field(l1, s.keys[0])
			case f.file == 0:
				s.field(l2, s.keys[1])
			case f.file == 1:
				s.field(l1, f.field)
			default:
				s.field(l2, f.field)
			}
		}
		s.w.WriteByte(s.eol)
		return
	}
	if l1 != nil {
		s.field(l1, s.keys[0])
	} else {
		s.field(l2, s.keys[1])
	}
	for which, l := range [2]*joinLine{l1, l2} {
		n := s.autoCount[which]
		if !s.auto {
			if l == nil {
				continue
			}
			n = len(l.fields)
		}
		for k := 0; k < n; k++ {
			if k == s.keys[which] {
				continue
			}
			s.sep()
			s.field(l, k)
		}
	}
	s.w.WriteByte(s.eol)
}
