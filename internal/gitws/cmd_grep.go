package gitws

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/desk-dev/desk/internal/posixre"
)

// The bounds of one git grep: the files it searches, the bytes it reads
// over all of them (a file larger than Env.MaxObjectBytes is skipped with
// a warning), and its expressions (all patterns together, in RE2 after
// translation; as the shell's grep bounds its own).
const (
	MaxGrepFiles        = 1_000_000
	MaxGrepBytes        = 4 << 30
	maxGrepPatternBytes = 1 << 20
	maxGrepInsts        = 500_000
)

// grepOpts is a parsed git grep command line.
type grepOpts struct {
	patterns        []string
	mode            byte // 'G' basic (default), 'E', 'F', 'P'
	fold, word      bool
	invert          bool
	lineNum         bool
	count           bool
	names           bool // -l
	unmatch         bool // -L
	quiet           bool
	only            bool
	noBinary        bool // -I
	text            bool // -a
	noName          bool // -h
	fullName        bool
	null            bool
	cached          bool
	untracked       bool
	noIndex         bool
	excludeStd      int // -1 --no-exclude-standard, 1 --exclude-standard, 0 default
	maxCount        int // -1: no limit
	before, after   int
	column, heading bool
	breakFiles      bool
}

// grepPattern is one compiled pattern: re for a match at the start of a
// line, notBOL for a search resumed inside it (git's REG_NOTBOL: "^"
// cannot match there).
type grepPattern struct {
	re, notBOL *regexp.Regexp
}

// grepState is one git grep run.
type grepState struct {
	c        *cmd
	o        *grepOpts
	pats     []grepPattern
	file     *regexp.Regexp // every pattern over a whole file, multi-line (nil: not usable)
	w        *bufio.Writer
	files    int
	bytes    int64
	hit      bool
	printed  bool // some line was output (context separators)
	lastFile bool // a file's lines were output (--break, --heading)
}

// grepValueOpts are the options taking a value (short letters and long
// names).
var grepValueOpts = map[string]bool{"e": true, "f": true, "m": true, "A": true, "B": true, "C": true,
	"max-count": true, "after-context": true, "before-context": true, "context": true,
	"threads": true, "max-depth": true}

// grepLong maps git grep's long options to their short letter or to
// themselves.
var grepLong = []string{"cached", "no-index", "untracked", "exclude-standard", "no-exclude-standard",
	"invert-match", "ignore-case", "word-regexp", "text", "recursive", "no-recursive",
	"extended-regexp", "basic-regexp", "fixed-strings", "perl-regexp", "line-number", "no-line-number", "column",
	"full-name", "files-with-matches", "name-only", "files-without-match", "null", "only-matching",
	"count", "color", "no-color", "break", "heading", "quiet", "max-count", "after-context",
	"before-context", "context", "threads", "max-depth", "textconv", "no-textconv",
	"and", "or", "not", "all-match", "show-function", "function-context", "recurse-submodules",
	"open-files-in-pager", "ext-grep", "no-full-name"}

// cmdGrep is git grep: lines matching patterns in the tracked files of the
// work tree (the index's paths, the work tree's content), the index
// (--cached), trees (revisions after the pattern), untracked files too
// (--untracked) or a plain directory (--no-index).
func cmdGrep(c *cmd, args []string) int {
	o, rest := c.grepParse(args)
	g := &grepState{c: c, o: o, w: bufio.NewWriterSize(c.out, 64<<10)}
	defer g.w.Flush()
	g.compile()
	if o.noIndex {
		return g.noIndex(rest)
	}
	r := c.needRepo()
	// after the pattern: revisions up to the first that is not one (or
	// "--"), then paths
	dashdash := false
	for _, a := range rest {
		if a == "--" {
			dashdash = true
			break
		}
	}
	allowRevs := !o.cached && !o.untracked
	var trees []grepTree
	i := 0
	for ; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			i++
			break
		}
		h, err := c.resolve(r, a)
		if err != nil || !allowRevs {
			if dashdash && allowRevs {
				c.die("unable to resolve revision: %s", a)
			}
			break
		}
		th, err := r.peel(h, plumbing.TreeObject)
		if err != nil {
			c.die("unable to read tree (%s)", h)
		}
		trees = append(trees, grepTree{a, th})
	}
	paths := rest[i:]
	if !dashdash {
		for j, p := range paths {
			c.grepVerifyPath(p, j == 0 && allowRevs)
		}
	} else if len(paths) > 0 && paths[0] == "--" {
		paths = paths[1:]
	}
	if o.cached && len(trees) > 0 {
		c.die("--cached cannot be used with trees")
	}
	if o.untracked && o.cached {
		c.die("options '--untracked' and '--cached' cannot be used together")
	}
	ps := c.grepPathspec(paths)
	if len(trees) > 0 {
		for _, t := range trees {
			if g.tree(r, t, ps) {
				break
			}
		}
	} else {
		g.index(r, ps)
	}
	return g.status()
}

// status is git grep's exit status: 0 when something matched (or, with
// -L, some file was listed), else 1.
func (g *grepState) status() int {
	if g.hit {
		return 0
	}
	return 1
}

type grepTree struct {
	name string
	hash plumbing.Hash
}

// grepParse parses the options before the pattern (git grep stops at the
// first non-option) and the pattern; it returns what follows.
func (c *cmd) grepParse(args []string) (*grepOpts, []string) {
	o := &grepOpts{mode: 'G', maxCount: -1}
	var fromFiles []string
	num := func(name, v string) int {
		n, err := strconv.Atoi(v)
		if err != nil {
			c.errorf("option `%s' expects a numerical value", name)
			c.exit(ExitUsage)
		}
		return n
	}
	set := func(name, v string) {
		switch name {
		case "e":
			o.patterns = append(o.patterns, v)
		case "f":
			fromFiles = append(fromFiles, v)
		case "m", "max-count":
			o.maxCount = num("max-count", v)
		case "A", "after-context":
			o.after = num("after-context", v)
		case "B", "before-context":
			o.before = num("before-context", v)
		case "C", "context":
			o.after, o.before = num("context", v), num("context", v)
		case "threads", "max-depth":
			num(name, v)
		case "cached":
			o.cached = true
		case "no-index":
			o.noIndex = true
		case "untracked":
			o.untracked = true
		case "exclude-standard":
			o.excludeStd = 1
		case "no-exclude-standard":
			o.excludeStd = -1
		case "v", "invert-match":
			o.invert = true
		case "i", "y", "ignore-case":
			o.fold = true
		case "w", "word-regexp":
			o.word = true
		case "a", "text":
			o.text = true
		case "I":
			o.noBinary = true
		case "E", "extended-regexp":
			o.mode = 'E'
		case "G", "basic-regexp":
			o.mode = 'G'
		case "F", "fixed-strings":
			o.mode = 'F'
		case "P", "perl-regexp":
			o.mode = 'P'
		case "n", "line-number":
			o.lineNum = true
		case "no-line-number":
			o.lineNum = false
		case "column":
			o.column = true
		case "h":
			o.noName = true
		case "H":
			o.noName = false
		case "full-name":
			o.fullName = true
		case "no-full-name":
			o.fullName = false
		case "l", "files-with-matches", "name-only":
			o.names, o.unmatch = true, false
		case "L", "files-without-match":
			o.unmatch, o.names = true, false
		case "z", "null":
			o.null = true
		case "o", "only-matching":
			o.only = true
		case "c", "count":
			o.count = true
		case "q", "quiet":
			o.quiet = true
		case "break":
			o.breakFiles = true
		case "heading":
			o.heading = true
		case "r", "recursive", "no-recursive", "color", "no-color", "textconv", "no-textconv", "ext-grep":
		case "and", "or", "not", "all-match", "p", "show-function", "W", "function-context",
			"recurse-submodules", "O", "open-files-in-pager":
			c.die("git grep --%s is not supported by the shell backend's git (the sandbox's git has it)", name)
		default:
			c.errorf("unknown option `%s'", name)
			c.exit(ExitUsage)
		}
	}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		if strings.HasPrefix(a, "--") {
			name, v, hasV := strings.Cut(a[2:], "=")
			if name == "color" {
				if hasV && v != "never" && v != "auto" && v != "false" && v != "no" {
					c.die("git grep --color=%s is not supported by the shell backend's git (output is never colored)", v)
				}
				continue
			}
			if !contains(grepLong, name) {
				var cands []string
				for _, l := range grepLong {
					if strings.HasPrefix(l, name) {
						cands = append(cands, l)
					}
				}
				if len(cands) != 1 {
					c.errorf("unknown option `%s'", name)
					c.exit(ExitUsage)
				}
				name = cands[0]
			}
			if grepValueOpts[name] {
				if !hasV {
					if i+1 >= len(args) {
						c.errorf("option `%s' requires a value", name)
						c.exit(ExitUsage)
					}
					i++
					v = args[i]
				}
			} else if hasV {
				c.errorf("option `%s' takes no value", name)
				c.exit(ExitUsage)
			}
			set(name, v)
			continue
		}
		// -NUM is -C NUM
		if n, err := strconv.Atoi(a[1:]); err == nil && n >= 0 {
			o.after, o.before = n, n
			continue
		}
		for j := 1; j < len(a); j++ {
			l := a[j : j+1]
			if grepValueOpts[l] {
				v := a[j+1:]
				if v == "" {
					if i+1 >= len(args) {
						c.errorf("switch `%s' requires a value", l)
						c.exit(ExitUsage)
					}
					i++
					v = args[i]
				}
				set(l, v)
				break
			}
			if !strings.Contains("vihwaIEGFPnHlLzocqyr", l) {
				c.errorf("unknown switch `%s'", l)
				c.exit(ExitUsage)
			}
			set(l, "")
		}
	}
	for _, f := range fromFiles {
		data, err := c.grepPatternFile(f)
		if err != nil {
			c.die("cannot open '%s': %s", f, errnoText(err))
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if len(data) > 0 {
				o.patterns = append(o.patterns, l)
			}
		}
	}
	rest := args[i:]
	if len(o.patterns) == 0 && len(fromFiles) == 0 {
		if len(rest) == 0 || rest[0] == "--" {
			c.die("no pattern given")
		}
		o.patterns = append(o.patterns, rest[0])
		rest = rest[1:]
	}
	return o, rest
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// grepPatternFile reads -f's file ("-": standard input), at most 1 MiB.
func (c *cmd) grepPatternFile(name string) ([]byte, error) {
	if name == "-" {
		var b bytes.Buffer
		_, err := b.ReadFrom(&limitReader{c.env.Stdin, maxGrepPatternBytes + 1})
		return b.Bytes(), err
	}
	p := c.env.abs(name)
	fi, err := c.env.FS.Stat(c.env.Ctx, p)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxGrepPatternBytes {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("file too large")}
	}
	return c.env.FS.ReadFile(c.env.Ctx, p)
}

// errnoText is the strerror text of a store error.
func errnoText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	}
	return err.Error()
}

type limitReader struct {
	r interface{ Read([]byte) (int, error) }
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("too large")
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// grepVerifyPath is git's verify_filename for a path given without "--":
// an option there, or a path that does not exist (and is not a pathspec
// pattern), is fatal.
func (c *cmd) grepVerifyPath(p string, couldBeRev bool) {
	if strings.HasPrefix(p, "-") {
		c.die("option '%s' must come before non-option arguments", p)
	}
	if strings.ContainsAny(p, "*?[") || strings.HasPrefix(p, ":") {
		return
	}
	if _, err := c.env.FS.Lstat(c.env.Ctx, c.env.abs(p)); err == nil {
		return
	}
	if couldBeRev {
		c.badRevision(p)
	}
	c.die("%s: no such path in the working tree.\nUse 'git <command> -- <path>...' to specify paths that do not exist locally.", p)
}

// grepSpec is git grep's pathspec: paths and globs relative to the working
// directory (the working directory itself when none is given), less the
// excluded ones (":!x", ":^x", ":(exclude)x").
type grepSpec struct {
	inc, exc pathspec
}

func (c *cmd) grepPathspec(args []string) grepSpec {
	var inc, exc []string
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, ":!") || strings.HasPrefix(a, ":^"):
			exc = append(exc, a[2:])
		case strings.HasPrefix(a, ":(exclude)"):
			exc = append(exc, strings.TrimPrefix(a, ":(exclude)"))
		case strings.HasPrefix(a, ":/"):
			inc = append(inc, c.needRepo().Work+"/"+strings.TrimPrefix(a, ":/"))
		default:
			inc = append(inc, a)
		}
	}
	var s grepSpec
	if len(inc) == 0 {
		inc = []string{"."}
	}
	s.inc = c.newPathspec(inc)
	if len(exc) > 0 {
		s.exc = c.newPathspec(exc)
	}
	return s
}

func (s grepSpec) match(p string) bool {
	return s.inc.match(p) && (s.exc.empty() || !s.exc.match(p))
}

// compile builds the patterns: each translated to RE2 (BRE and ERE by
// posixre, -F quoted, -P as RE2 takes it), checked against the bounds.
func (g *grepState) compile() {
	c, o := g.c, g.o
	flags := ""
	if o.fold {
		flags = "(?i)"
	}
	var all []string
	for _, p := range o.patterns {
		var s string
		switch o.mode {
		case 'F':
			s = regexp.QuoteMeta(p)
		case 'P':
			s = p
		default:
			t, err := posixre.Translate(p, o.mode == 'E', func(string) {})
			if errors.Is(err, posixre.ErrBackref) {
				c.die("command line, '%s': back-references are not supported by the shell backend's git grep", p)
			}
			if err != nil {
				c.die("command line, '%s': %s", p, err)
			}
			s = t
		}
		expr := flags + s
		if err := posixre.Check(expr, maxGrepPatternBytes, maxGrepInsts); err != nil {
			if errors.Is(err, posixre.ErrTooLarge) {
				c.die("command line, '%s': regular expression too large (the shell backend's git grep takes at most %d bytes and %d instructions)", p, maxGrepPatternBytes, maxGrepInsts)
			}
			var se *syntax.Error
			if errors.As(err, &se) {
				c.die("command line, '%s': %s", p, se.Code)
			}
			c.die("command line, '%s': %s", p, err)
		}
		re := regexp.MustCompile(expr)
		nb := regexp.MustCompile(notBOL(expr))
		if o.mode != 'P' {
			re.Longest()
			nb.Longest()
		}
		g.pats = append(g.pats, grepPattern{re, nb})
		all = append(all, "(?:"+expr+")")
	}
	// the whole-file test: a file where no pattern matches anywhere has no
	// matching line (not so with \A, \z or -P's own flags)
	joined := strings.Join(all, "|")
	if o.mode != 'P' && !strings.Contains(joined, `\A`) && !strings.Contains(joined, `\z`) && len(all) > 0 {
		if posixre.Check("(?m)"+joined, 2*maxGrepPatternBytes, 2*maxGrepInsts) == nil {
			g.file = regexp.MustCompile("(?m)" + joined)
		}
	}
}

// notBOL rewrites expr so that "^" never matches: a search resumed inside a
// line, where git passes REG_NOTBOL.
func notBOL(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return expr
	}
	var walk func(r *syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		if r.Op == syntax.OpBeginLine || r.Op == syntax.OpBeginText {
			r.Op = syntax.OpNoMatch
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
	return re.String()
}

// wordChar is git's word_char: ASCII letters, digits and '_'.
func wordChar(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// matchOne is git's match_one_pattern: the first match of p in line at or
// after from (-w: the first that is a whole word, searching on as git
// does).
func (g *grepState) matchOne(p grepPattern, line []byte, from int) (int, int, bool) {
	for {
		re := p.re
		if from > 0 {
			re = p.notBOL
		}
		if from > len(line) {
			return 0, 0, false
		}
		m := re.FindIndex(line[from:])
		if m == nil {
			return 0, 0, false
		}
		so, eo := from+m[0], from+m[1]
		if !g.o.word {
			return so, eo, true
		}
		if (so == 0 || !wordChar(line[so-1])) && (eo == len(line) || !wordChar(line[eo])) && so != eo {
			return so, eo, true
		}
		if so+1 >= len(line) {
			return 0, 0, false
		}
		from = so + 1
		for from < len(line) && wordChar(line[from-1]) {
			from++
		}
		if from >= len(line) {
			return 0, 0, false
		}
	}
}

// nextMatch is the leftmost (then longest) match of any pattern at or
// after from.
func (g *grepState) nextMatch(line []byte, from int) (int, int, bool) {
	bs, be, found := 0, 0, false
	for _, p := range g.pats {
		so, eo, ok := g.matchOne(p, line, from)
		if ok && (!found || so < bs || so == bs && eo > be) {
			bs, be, found = so, eo, true
		}
	}
	return bs, be, found
}

// lineHit reports whether line is selected (-v inverts).
func (g *grepState) lineHit(line []byte) bool {
	_, _, ok := g.nextMatch(line, 0)
	return ok != g.o.invert
}

// source is one file's content to search under a display name.
func (g *grepState) source(name string, data []byte) bool {
	c, o := g.c, g.o
	g.files++
	if g.files > MaxGrepFiles {
		g.w.Flush()
		c.die("git grep: stopped after %d files (the shell backend's limit)", MaxGrepFiles)
	}
	g.bytes += int64(len(data))
	if g.bytes > MaxGrepBytes {
		g.w.Flush()
		c.die("git grep: stopped after reading %d bytes (the shell backend's limit)", int64(MaxGrepBytes))
	}
	if err := c.env.Ctx.Err(); err != nil {
		g.w.Flush()
		c.dieErr(err)
	}
	binary := !o.text && isBinary(data)
	if binary && o.noBinary {
		return false
	}
	if !o.invert && g.file != nil && !o.unmatch && !g.file.Match(data) {
		return false
	}
	if !o.invert && g.file != nil && o.unmatch && !g.file.Match(data) {
		g.writeName(name, '\n')
		g.hit = true
		return false
	}
	disp := name
	if !o.null {
		disp = quotePath(name, false)
	}
	count := 0
	lastShown := 0 // the last line output (context)
	pending := 0   // after-context lines still to show
	var before [][]byte
	lno := 0
	for len(data) > 0 {
		lno++
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if lno%4096 == 0 {
			if err := c.env.Ctx.Err(); err != nil {
				g.w.Flush()
				c.dieErr(err)
			}
		}
		if o.maxCount >= 0 && count >= o.maxCount {
			// at the limit git still shows the after-context, as
			// context whether it matches or not
			if pending > 0 && !o.unmatch && !o.count && !binary {
				g.showLine(disp, line, lno, '-', &lastShown)
				pending--
				continue
			}
			break
		}
		if g.lineHit(line) {
			count++
			switch {
			case o.quiet:
				g.hit = true
				g.w.Flush()
				c.exit(0)
			case o.names:
				g.writeName(name, '\n')
				g.hit = true
				return true
			case o.unmatch || o.count:
				continue
			case binary:
				g.w.WriteString("Binary file " + disp + " matches\n")
				g.hit = true
				return true
			}
			g.hit = true
			if o.heading && count == 1 {
				g.fileBreak()
				g.w.WriteString(disp + "\n")
			} else if count == 1 {
				g.fileBreak()
			}
			for k, bl := range before {
				g.showLine(disp, bl, lno-len(before)+k, '-', &lastShown)
			}
			before = before[:0]
			g.showLine(disp, line, lno, ':', &lastShown)
			pending = o.after
			continue
		}
		if o.unmatch || o.count || o.names || binary {
			continue
		}
		if pending > 0 {
			g.showLine(disp, line, lno, '-', &lastShown)
			pending--
			continue
		}
		if o.before > 0 {
			if len(before) == o.before {
				before = append(before[:0], before[1:]...)
			}
			before = append(before, line)
		}
	}
	if o.unmatch {
		if count == 0 {
			g.writeName(name, '\n')
			g.hit = true
			return true
		}
		return false
	}
	if o.count && count > 0 {
		g.hit = true
		if !o.noName {
			g.writeName(name, ':')
		}
		g.w.WriteString(strconv.Itoa(count) + "\n")
	}
	return count > 0
}

// fileBreak writes --break's empty line between files.
func (g *grepState) fileBreak() {
	if g.lastFile && g.o.breakFiles {
		g.w.WriteString("\n")
	}
	g.lastFile = true
}

// writeName writes a file name ended by sep (NUL with -z).
func (g *grepState) writeName(name string, sep byte) {
	if g.o.null {
		g.w.WriteString(name)
		g.w.WriteByte(0)
		return
	}
	g.w.WriteString(quotePath(name, false))
	g.w.WriteByte(sep)
}

// showLine writes one output line (sep ':' a selected line, '-' context),
// with the "--" between non-adjacent groups under context.
func (g *grepState) showLine(name string, line []byte, lno int, sep byte, lastShown *int) {
	o := g.o
	if o.before > 0 || o.after > 0 {
		if *lastShown == 0 {
			if g.printed {
				g.w.WriteString("--\n")
			}
		} else if lno > *lastShown+1 {
			g.w.WriteString("--\n")
		}
	}
	*lastShown = lno
	g.printed = true
	prefix := func(col int) {
		if !o.noName && !o.heading {
			g.w.WriteString(name)
			if o.null {
				g.w.WriteByte(0)
			} else {
				g.w.WriteByte(sep)
			}
		}
		if o.lineNum {
			g.w.WriteString(strconv.Itoa(lno))
			g.w.WriteByte(sep)
		}
		if o.column && col > 0 {
			g.w.WriteString(strconv.Itoa(col))
			g.w.WriteByte(sep)
		}
	}
	if o.only && sep == ':' {
		if o.invert {
			return
		}
		from := 0
		for from <= len(line) {
			so, eo, ok := g.nextMatch(line, from)
			if !ok || so == eo {
				break
			}
			prefix(so + 1)
			g.w.Write(line[so:eo])
			g.w.WriteByte('\n')
			from = eo
		}
		return
	}
	col := 0
	if o.column && sep == ':' {
		col = 1
		if !o.invert {
			if so, _, ok := g.nextMatch(line, 0); ok {
				col = so + 1
			}
		}
	}
	prefix(col)
	g.w.Write(line)
	g.w.WriteByte('\n')
}

// index searches the index's paths: the work tree's content of each
// regular file, or with --cached the index's blobs; with --untracked the
// untracked files too.
func (g *grepState) index(r *Repo, ps grepSpec) {
	c, o := g.c, g.o
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	type item struct {
		path string
		hash plumbing.Hash // --cached
	}
	var items []item
	seen := map[string]bool{}
	for _, e := range idx.Entries {
		if seen[e.Name] {
			continue
		}
		if !o.cached && e.SkipWorktree {
			continue
		}
		if e.Mode != filemode.Regular && e.Mode != filemode.Executable && e.Mode != filemode.Deprecated {
			continue
		}
		if !ps.match(e.Name) {
			continue
		}
		if o.cached && (e.Stage != 0 || e.IntentToAdd) {
			continue
		}
		seen[e.Name] = true
		items = append(items, item{e.Name, e.Hash})
	}
	if o.untracked {
		if r.Work == "" {
			c.die("this operation must be run in a work tree")
		}
		sc, err := r.scan(trackedNames(idx), o.excludeStd < 0)
		if err != nil {
			c.dieErr(err)
		}
		extra := sc.untracked
		if o.excludeStd < 0 {
			extra = append(extra, g.ignoredFiles(r, sc.ignored)...)
		}
		for _, p := range extra {
			if ps.match(p) && !seen[p] {
				seen[p] = true
				items = append(items, item{path: p})
			}
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].path < items[j].path })
	if !o.cached && r.Work == "" {
		c.die("this operation must be run in a work tree")
	}
	for _, it := range items {
		name := it.path
		if !o.fullName {
			name = c.relPath(it.path)
		}
		var data []byte
		if o.cached {
			data = g.blob(r, it.hash, name)
		} else {
			var ok bool
			data, ok = g.workFile(r.Work+"/"+it.path, name)
			if !ok {
				continue
			}
		}
		g.source(name, data)
	}
}

// ignoredFiles expands scan's ignored entries (directories end in "/")
// into files, for --untracked --no-exclude-standard.
func (g *grepState) ignoredFiles(r *Repo, ents []string) []string {
	var out []string
	var walk func(rel string)
	walk = func(rel string) {
		after := ""
		for {
			page, err := r.env.FS.ReadDirFiles(r.env.Ctx, r.Work+"/"+strings.TrimSuffix(rel, "/"), after, 1024, 0)
			if err != nil {
				return
			}
			for _, e := range page {
				p := rel + e.Name
				switch {
				case e.Attr.IsDir() && e.Name != ".git":
					walk(p + "/")
				case e.Attr.IsRegular():
					out = append(out, p)
				}
			}
			if len(page) < 1024 {
				return
			}
			after = page[len(page)-1].Name
		}
	}
	for _, e := range ents {
		if strings.HasSuffix(e, "/") {
			walk(e)
		} else {
			out = append(out, e)
		}
	}
	return out
}

// workFile reads a work-tree file for grep: false when it is gone or not a
// regular file (git passes over it), or over the size bound (a warning).
func (g *grepState) workFile(abs, name string) ([]byte, bool) {
	c := g.c
	fi, err := c.env.FS.Lstat(c.env.Ctx, abs)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			g.w.Flush()
			c.errorf("failed to stat '%s': %s", name, errnoText(err))
		}
		return nil, false
	}
	if !fi.Mode().IsRegular() {
		return nil, false
	}
	if fi.Size() > c.env.maxObject() {
		g.w.Flush()
		fmt.Fprintf(c.err, "warning: skipping '%s': %d bytes, over the shell backend's limit of %d\n", name, fi.Size(), c.env.maxObject())
		return nil, false
	}
	data, err := c.env.FS.ReadFile(c.env.Ctx, abs)
	if err != nil {
		g.w.Flush()
		c.errorf("'%s': unable to read: %s", name, errnoText(err))
		return nil, false
	}
	if data == nil {
		data = []byte{}
	}
	return data, true
}

// blob reads a blob for grep (over the size bound: a warning, skipped).
func (g *grepState) blob(r *Repo, h plumbing.Hash, name string) []byte {
	data, err := r.blob(h)
	if err != nil {
		g.w.Flush()
		fmt.Fprintf(g.c.err, "warning: skipping '%s': %v\n", name, err)
		return []byte{}
	}
	return data
}

// tree searches a tree's regular files under "<name>:"; it reports whether
// grep is over (-q matched).
func (g *grepState) tree(r *Repo, t grepTree, ps grepSpec) bool {
	c := g.c
	files, err := r.flatTree(t.hash)
	if err != nil {
		c.dieErr(err)
	}
	paths := make([]string, 0, len(files))
	for p, e := range files {
		if (e.Mode == filemode.Regular || e.Mode == filemode.Executable || e.Mode == filemode.Deprecated) && ps.match(p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		name := p
		if !g.o.fullName {
			name = c.relPath(p)
		}
		name = t.name + ":" + name
		g.source(name, g.blob(r, files[p].Hash, name))
	}
	return false
}

// noIndex is git grep --no-index: the files under the working directory
// (or the paths given), as a plain directory; .git directories are passed
// over, ignore rules apply only with --exclude-standard.
func (g *grepState) noIndex(rest []string) int {
	c := g.c
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	var files []string
	var walk func(abs, rel string)
	walk = func(abs, rel string) {
		after := ""
		for {
			page, err := c.env.FS.ReadDirFiles(c.env.Ctx, abs, after, 1024, 0)
			if err != nil {
				return
			}
			for _, e := range page {
				p := rel + e.Name
				switch {
				case e.Attr.IsDir() && e.Name != ".git":
					walk(abs+"/"+e.Name, p+"/")
				case e.Attr.IsRegular():
					files = append(files, p)
				}
			}
			if len(page) < 1024 {
				return
			}
			after = page[len(page)-1].Name
		}
	}
	walk(c.env.Dir, "")
	var ps pathspec
	for _, a := range rest {
		ps.pats = append(ps.pats, strings.TrimPrefix(strings.TrimSuffix(a, "/"), "./"))
	}
	sort.Strings(files)
	for _, p := range files {
		if !ps.match(p) {
			continue
		}
		data, ok := g.workFile(c.env.Dir+"/"+p, p)
		if ok {
			g.source(p, data)
		}
	}
	return g.status()
}
