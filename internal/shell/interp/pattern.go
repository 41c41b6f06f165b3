package interp

import (
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// matcher is a compiled shell pattern (globbing, case, [[ == ]], ${x#p}).
type matcher struct {
	toks    []ptok
	nocase  bool
	pathDot bool                      // a leading '.' must be matched explicitly
	res     map[string]*regexp.Regexp // compiled searches (patre.go)
}

type ptokKind uint8

const (
	pLit   ptokKind = iota
	pAny            // ?
	pStar           // *
	pClass          // [...]
	pExt            // @(...) etc
)

type ptok struct {
	kind  ptokKind
	r     rune
	class *charClass
	op    byte // ? * + @ !
	alts  [][]ptok
}

type charClass struct {
	neg    bool
	ranges [][2]rune
	named  []func(rune) bool
	names  []string // the named classes' names, as in named
}

func (c *charClass) has(r rune, nocase bool) bool {
	in := c.test(r)
	if !in && nocase {
		in = c.test(unicode.ToLower(r)) || c.test(unicode.ToUpper(r))
	}
	return in != c.neg
}

func (c *charClass) test(r rune) bool {
	for _, rg := range c.ranges {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	for _, f := range c.named {
		if f(r) {
			return true
		}
	}
	return false
}

var namedClasses = map[string]func(rune) bool{
	"alpha":  func(r rune) bool { return unicode.IsLetter(r) },
	"digit":  func(r rune) bool { return r >= '0' && r <= '9' },
	"alnum":  func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) },
	"upper":  unicode.IsUpper,
	"lower":  unicode.IsLower,
	"space":  unicode.IsSpace,
	"blank":  func(r rune) bool { return r == ' ' || r == '\t' },
	"punct":  func(r rune) bool { return r < 128 && unicode.IsPunct(r) || r < 128 && unicode.IsSymbol(r) },
	"print":  func(r rune) bool { return unicode.IsPrint(r) },
	"graph":  func(r rune) bool { return unicode.IsPrint(r) && r != ' ' },
	"cntrl":  unicode.IsControl,
	"xdigit": func(r rune) bool { return isHex(byte(r)) && r < 128 },
	"word":   func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) },
}

// hasGlobMeta reports whether an unquoted text holds pattern characters.
func hasGlobMeta(s string, ext bool) bool {
	if strings.ContainsAny(s, "*?[") {
		return true
	}
	if ext {
		for _, op := range []string{"@(", "!(", "+("} {
			if strings.Contains(s, op) {
				return true
			}
		}
	}
	return false
}

// compile parses a pattern (backslash quotes the next character).
func (r *Runner) compile(pat string, pathDot bool) *matcher {
	// extglob's patterns always: mvdan's parser reads them whatever the
	// option (bash would not parse a script using them without it), and a
	// quoted ( | ) is escaped
	toks, _ := parsePattern(pat, 0, true, false)
	return &matcher{toks: toks, nocase: r.shopts["nocasematch"], pathDot: pathDot}
}

// match reports whether s matches the pattern pat.
func (r *Runner) match(pat, s string, glob bool) bool {
	return r.compile(pat, false).match(s)
}

// parsePattern parses up to the end, or within an extglob group up to the
// closing ')' (returning the index after it).
func parsePattern(p string, i int, ext, inGroup bool) ([]ptok, int) {
	var toks []ptok
	for i < len(p) {
		c, n := utf8.DecodeRuneInString(p[i:])
		if inGroup && (c == ')' || c == '|') {
			return toks, i
		}
		switch {
		case c == '\\' && i+1 < len(p):
			rc, n2 := utf8.DecodeRuneInString(p[i+1:])
			toks = append(toks, ptok{kind: pLit, r: rc})
			i += 1 + n2
			continue
		case ext && strings.ContainsRune("?*+@!", c) && i+1 < len(p) && p[i+1] == '(':
			j := i + 2
			var alts [][]ptok
			ok := false
			for j <= len(p) {
				alt, k := parsePattern(p, j, ext, true)
				alts = append(alts, alt)
				if k >= len(p) {
					break
				}
				if p[k] == ')' {
					j = k + 1
					ok = true
					break
				}
				j = k + 1
			}
			if ok {
				toks = append(toks, ptok{kind: pExt, op: byte(c), alts: alts})
				i = j
				continue
			}
		case c == '*':
			if len(toks) == 0 || toks[len(toks)-1].kind != pStar {
				toks = append(toks, ptok{kind: pStar})
			}
			i++
			continue
		case c == '?':
			toks = append(toks, ptok{kind: pAny})
			i++
			continue
		case c == '[':
			if cl, j, ok := parseClass(p, i+1); ok {
				toks = append(toks, ptok{kind: pClass, class: cl})
				i = j
				continue
			}
		}
		toks = append(toks, ptok{kind: pLit, r: c})
		i += n
	}
	return toks, i
}

func parseClass(p string, i int) (*charClass, int, bool) {
	cl := &charClass{}
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		cl.neg = true
		i++
	}
	first := true
	for i < len(p) {
		c, n := utf8.DecodeRuneInString(p[i:])
		if c == ']' && !first {
			return cl, i + 1, true
		}
		first = false
		if c == '[' && i+1 < len(p) && p[i+1] == ':' {
			end := strings.Index(p[i+2:], ":]")
			if end >= 0 {
				name := p[i+2 : i+2+end]
				if f, ok := namedClasses[name]; ok {
					cl.named = append(cl.named, f)
					cl.names = append(cl.names, name)
				}
				i += 2 + end + 2
				continue
			}
		}
		if c == '\\' && i+1 < len(p) {
			c, n = utf8.DecodeRuneInString(p[i+1:])
			n++
		}
		lo := c
		i += n
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi, n2 := utf8.DecodeRuneInString(p[i+1:])
			if hi == '\\' && i+2 < len(p) {
				hi, n2 = utf8.DecodeRuneInString(p[i+2:])
				n2++
			}
			cl.ranges = append(cl.ranges, [2]rune{lo, hi})
			i += 1 + n2
			continue
		}
		cl.ranges = append(cl.ranges, [2]rune{lo, lo})
	}
	return nil, 0, false
}

func (m *matcher) match(s string) bool {
	if m.pathDot && strings.HasPrefix(s, ".") && (len(m.toks) == 0 || m.toks[0].kind != pLit || m.toks[0].r != '.') {
		return false
	}
	if m.simple() {
		return m.matchSimple(s)
	}
	steps := 0
	return m.matchAt(m.toks, 0, s, 0, nil, &steps)
}

// matchAt matches toks[ti:] against s[si:] (with backtracking, memoized;
// extglob groups make it exponential without the memo).
func (m *matcher) matchAt(toks []ptok, ti int, s string, si int, memo map[[2]int]bool, steps *int) bool {
	*steps++
	if *steps > 1_000_000 {
		return false
	}
	for ti < len(toks) {
		t := toks[ti]
		switch t.kind {
		case pStar:
			if ti == len(toks)-1 {
				return true
			}
			for j := si; j <= len(s); j++ {
				if m.matchAt(toks, ti+1, s, j, memo, steps) {
					return true
				}
				if j < len(s) {
					_, n := utf8.DecodeRuneInString(s[j:])
					j += n - 1
				}
			}
			return false
		case pExt:
			return m.matchExt(toks, ti, s, si, steps)
		}
		if si >= len(s) {
			return false
		}
		c, n := utf8.DecodeRuneInString(s[si:])
		switch t.kind {
		case pLit:
			if c != t.r && !(m.nocase && unicode.ToLower(c) == unicode.ToLower(t.r)) {
				return false
			}
		case pAny:
		case pClass:
			if !t.class.has(c, m.nocase) {
				return false
			}
		}
		ti++
		si += n
	}
	return si == len(s)
}

// matchAlts reports whether s matches one alternative of t exactly.
func (m *matcher) matchAlts(t ptok, s string, steps *int) bool {
	for _, a := range t.alts {
		if m.matchAt(a, 0, s, 0, nil, steps) {
			return true
		}
	}
	return false
}

// matchRepeat reports whether s is one or more matches of the alternatives.
func (m *matcher) matchRepeat(t ptok, s string, steps *int) bool {
	if s == "" {
		return false
	}
	for j := len(s); j > 0; j-- {
		if m.matchAlts(t, s[:j], steps) && (j == len(s) || m.matchRepeat(t, s[j:], steps)) {
			return true
		}
	}
	return false
}

func (m *matcher) matchExt(toks []ptok, ti int, s string, si int, steps *int) bool {
	t := toks[ti]
	for j := len(s); j >= si; j-- {
		part := s[si:j]
		var ok bool
		switch t.op {
		case '@':
			ok = m.matchAlts(t, part, steps)
		case '?':
			ok = part == "" || m.matchAlts(t, part, steps)
		case '+':
			ok = m.matchRepeat(t, part, steps)
		case '*':
			ok = part == "" || m.matchRepeat(t, part, steps)
		case '!':
			ok = !m.matchAlts(t, part, steps)
		}
		if ok && m.matchAt(toks, ti+1, s, j, nil, steps) {
			return true
		}
		if *steps > 1_000_000 {
			return false
		}
	}
	return false
}

// glob expands a pattern against the file system.
func (r *Runner) glob(pat string) ([]string, error) {
	abs := strings.HasPrefix(pat, "/")
	parts := strings.Split(pat, "/")
	var bases []string
	if abs {
		bases = []string{"/"}
		parts = parts[1:]
	} else {
		bases = []string{""}
	}
	for pi, part := range parts {
		last := pi == len(parts)-1
		if part == "" {
			if last && pi > 0 {
				// a trailing slash: directories only, written with it
				var next []string
				for _, b := range bases {
					if fi, err := r.cfg.Files.Stat(r.ctx, r.abs(b), true); err == nil && fi.IsDir() {
						next = append(next, b+"/")
					}
				}
				bases = next
			} else if !last {
				for i := range bases {
					bases[i] += "/"
				}
			}
			continue
		}
		if !hasGlobMeta(part, true) {
			lit := unquotePattern(part)
			var next []string
			for _, b := range bases {
				p := join(b, lit)
				if last {
					if _, err := r.cfg.Files.Stat(r.ctx, r.abs(p), false); err != nil {
						continue
					}
				}
				next = append(next, p)
			}
			bases = next
			continue
		}
		if part == "**" && r.shopts["globstar"] {
			var next []string
			for _, b := range bases {
				all, err := r.walkDirs(b, last)
				if err != nil {
					return nil, err
				}
				next = append(next, all...)
			}
			bases = next
			continue
		}
		m := r.compile(part, !r.shopts["dotglob"])
		m.nocase = r.shopts["nocaseglob"]
		var next []string
		for _, b := range bases {
			dir := b
			if dir == "" {
				dir = "."
			}
			ents, err := r.readDir(dir)
			if err != nil {
				if _, ok := err.(fatalErr); ok {
					return nil, err
				}
				continue
			}
			for _, e := range ents {
				n := e.Name()
				if (n == "." || n == "..") && !strings.HasPrefix(part, ".") {
					continue
				}
				if !m.match(n) {
					continue
				}
				if !last && !e.IsDir() {
					if fi, err := r.cfg.Files.Stat(r.ctx, r.abs(join(b, n)), true); err != nil || !fi.IsDir() {
						continue
					}
				}
				next = append(next, join(b, n))
			}
		}
		bases = next
	}
	if len(bases) == 1 && bases[0] == "" {
		return nil, nil
	}
	sort.Strings(bases)
	return bases, nil
}

func (r *Runner) walkDirs(b string, last bool) ([]string, error) {
	out := []string{}
	if last {
		out = append(out, "")
		if b != "" {
			out[0] = strings.TrimSuffix(b, "/") + "/"
		}
	}
	var walk func(d string) error
	walk = func(d string) error {
		dir := d
		if dir == "" {
			dir = "."
		}
		ents, err := r.readDir(dir)
		if err != nil {
			if _, ok := err.(fatalErr); ok {
				return err
			}
			return nil
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") && !r.shopts["dotglob"] {
				continue
			}
			p := join(d, e.Name())
			if e.IsDir() {
				if last {
					out = append(out, p)
				} else {
					out = append(out, p)
				}
				if err := walk(p); err != nil {
					return err
				}
			} else if last {
				out = append(out, p)
			}
		}
		return nil
	}
	if err := walk(b); err != nil {
		return nil, err
	}
	if !last {
		// directories only, plus the base itself
		res := []string{b}
		for _, p := range out {
			if p != b && p != "" {
				res = append(res, p)
			}
		}
		return res, nil
	}
	var res []string
	for _, p := range out {
		if p != "" {
			res = append(res, p)
		}
	}
	return res, nil
}

// readDirPage is the number of entries readDir asks a DirPager for at once.
const readDirPage = 4096

// costDirEnt is what a directory entry globbing read holds besides twice
// its path (the entry, the match made of it).
const costDirEnt = 160

// readDir lists a directory for globbing, counting its entries against
// MaxGlobEntries for the command being expanded (r.globN) and holding what
// they take. A DirPager is read a page at a time, asking for one entry
// past what the limit leaves, so the limit stops the listing.
func (r *Runner) readDir(dir string) ([]fsDirEntry, error) {
	abs := r.abs(dir)
	m := r.cfg.Limits.MaxGlobEntries
	add := func(out []fsDirEntry, page []fs.DirEntry) ([]fsDirEntry, error) {
		r.globN += int64(len(page))
		if m > 0 && r.globN > m {
			return nil, r.limit("MaxGlobEntries", m)
		}
		held := 0
		for _, e := range page {
			held += costDirEnt + 2*(len(abs)+len(e.Name())+1)
		}
		if err := r.hold(held); err != nil {
			return nil, err
		}
		for _, e := range page {
			out = append(out, e)
		}
		return out, nil
	}
	pager, ok := r.cfg.Files.(DirPager)
	if !ok {
		ents, err := r.cfg.Files.ReadDir(r.ctx, abs)
		if err != nil {
			return nil, err
		}
		return add(make([]fsDirEntry, 0, len(ents)), ents)
	}
	var out []fsDirEntry
	after := ""
	for {
		n := readDirPage
		if m > 0 {
			n = int(min(int64(n), max(m-r.globN+1, 1)))
		}
		page, err := pager.ReadDirPage(r.ctx, abs, after, n)
		if err != nil {
			return nil, err
		}
		if out, err = add(out, page); err != nil {
			return nil, err
		}
		if len(page) < n {
			return out, nil
		}
		after = page[len(page)-1].Name()
	}
}

type fsDirEntry interface {
	Name() string
	IsDir() bool
}

func join(b, n string) string {
	if b == "" {
		return n
	}
	if strings.HasSuffix(b, "/") {
		return b + n
	}
	return b + "/" + n
}

func unquotePattern(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// abs resolves p against the working directory.
func (r *Runner) abs(p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return path.Join(r.dir, p)
}
