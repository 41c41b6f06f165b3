package cmds

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/desk-dev/desk/internal/glob/gitignore"
	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("rg", Rg) }

// rgTypes is the subset of ripgrep's file types agents use with -t/-T.
var rgTypes = map[string][]string{
	"go":       {"*.go"},
	"py":       {"*.py", "*.pyi"},
	"js":       {"*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"},
	"ts":       {"*.ts", "*.tsx", "*.cts", "*.mts"},
	"md":       {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
	"markdown": {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
	"json":     {"*.json", "composer.lock", "*.sarif"},
	"rust":     {"*.rs"},
	"c":        {"*.[chH]", "*.[chH].in", "*.cats"},
	"cpp":      {"*.[ChH]", "*.cc", "*.cpp", "*.cxx", "*.hh", "*.hpp", "*.hxx", "*.inl", "*.[ChH].in", "*.cc.in", "*.cpp.in", "*.cxx.in", "*.hh.in", "*.hpp.in", "*.hxx.in"},
	"java":     {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"sh":       {"*.bash", "*.bashrc", ".bashrc", ".bash_login", ".bash_logout", ".bash_profile", "*.sh", "*.zsh", ".zshrc", ".profile", "*.ksh", "*.csh"},
	"yaml":     {"*.yaml", "*.yml"},
	"toml":     {"*.toml", "Cargo.lock"},
	"html":     {"*.htm", "*.html", "*.ejs"},
	"css":      {"*.css", "*.scss"},
	"txt":      {"*.txt"},
	"rb":       {"*.rb", "Gemfile", "*.gemspec", "Rakefile"},
	"sql":      {"*.sql", "*.psql"},
}

// rgState is one rg invocation.
type rgState struct {
	fn  fnCache
	env *Env
	w   *bufio.Writer
	m   *grepMatcher

	invert, count, countMatches, list, only, quiet, lineNum, column, filesOnly bool
	// listWithout: --files-without-match: the files without a match are
	// printed, and they are what counts as found for the exit status.
	listWithout bool
	// heading: --heading, the path once above a file's lines (and a blank
	// line between files) instead of on each line.
	heading                                       bool
	withName                                      int // -1 auto
	hidden, noIgnore, requireGit, follow, nullSep bool
	maxCount                                      int64
	after, before                                 int
	globs                                         []string
	types, notTypes                               []string

	root                      string // absolute search root of the current walk
	matched, errSeen, printed bool
}

// Rg is a ripgrep-like search over the workspace, as ripgrep prints when its
// output is not a terminal: recursive from "." by default (or stdin when
// input is piped and no path is given), skipping hidden entries, binary files
// and what .gitignore (inside a git repository), .ignore and .rgignore
// exclude; "path:text" lines (no line numbers unless -n), no path for a
// single file. Patterns use Go's RE2 syntax, close to Rust's regex crate.
// Files are visited in name order (ripgrep's order is unspecified). Exit 0
// on a match, 1 on none, 2 on an error.
func Rg(env *Env, args []string) int {
	s := &rgState{env: env, withName: -1, maxCount: -1, requireGit: true, fn: fnCache{}}
	opts, operands, ok := parseOpts(env, "rg", args[1:], optSpec{
		shorts: "A:B:C:e:f:g:t:T:m:nNiSswvclFoqHIxuLj:M:0.z",
		longs: []string{"after-context=", "before-context=", "context=", "regexp=", "file=", "glob=", "iglob=", "type=",
			"type-not=", "max-count=", "line-number", "no-line-number", "ignore-case", "smart-case", "case-sensitive",
			"word-regexp", "invert-match", "count", "count-matches", "files-with-matches", "files-without-match", "fixed-strings",
			"only-matching", "quiet", "with-filename", "no-filename", "line-regexp", "unrestricted", "hidden",
			"no-hidden", "no-ignore", "no-ignore-vcs", "no-require-git", "follow", "files", "column", "no-heading",
			"heading", "color=", "colour=", "threads=", "max-columns=", "null", "sort=", "sortr=", "trim",
			"no-messages", "include-zero", "vimgrep", "pretty", "no-config", "help", "version", "search-zip"},
	})
	if !ok {
		return 2
	}
	var patterns []string
	havePat := false
	caseMode := 's' // s sensitive, i insensitive, S smart
	fixed, word, lineRe := false, false, false
	unrestricted := 0
	num := func(o opt) (int, bool) {
		n, err := strconv.Atoi(o.val)
		if err != nil || n < 0 {
			env.Errorf("rg", "error parsing flag -%s: invalid number: %s", o.name, o.val)
			return 0, false
		}
		return n, true
	}
	for _, o := range opts {
		switch o.name {
		case "A", "after-context", "B", "before-context", "C", "context":
			n, ok := num(o)
			if !ok {
				return 2
			}
			setContext(o.name, n, &s.after, &s.before)
		case "e", "regexp":
			patterns = append(patterns, o.val)
			havePat = true
		case "f", "file":
			data, err := readArgLimited(env, o.val)
			if err != nil {
				env.Errorf("rg", "%s: %s", o.val, Strerror(err))
				return 2
			}
			for _, l := range splitLines(data, '\n') {
				patterns = append(patterns, strings.TrimSuffix(string(l), "\r"))
			}
			havePat = true
		case "g", "glob":
			s.globs = append(s.globs, o.val)
		case "iglob":
			s.globs = append(s.globs, o.val)
		case "t", "type", "T", "type-not":
			if _, ok := rgTypes[o.val]; !ok && o.val != "all" {
				env.Errorf("rg", "unrecognized file type: %s", o.val)
				return 2
			}
			if o.name == "t" || o.name == "type" {
				s.types = append(s.types, o.val)
			} else {
				s.notTypes = append(s.notTypes, o.val)
			}
		case "m", "max-count":
			n, ok := num(o)
			if !ok {
				return 2
			}
			s.maxCount = int64(n)
		case "n", "line-number":
			s.lineNum = true
		case "N", "no-line-number":
			s.lineNum = false
		case "i", "ignore-case":
			caseMode = 'i'
		case "S", "smart-case":
			caseMode = 'S'
		case "s", "case-sensitive":
			caseMode = 's'
		case "w", "word-regexp":
			word = true
		case "x", "line-regexp":
			lineRe = true
		case "v", "invert-match":
			s.invert = true
		case "c", "count":
			s.count, s.countMatches = true, false
		case "count-matches":
			s.count, s.countMatches = true, true
		case "l", "files-with-matches":
			s.list, s.listWithout = true, false
		case "files-without-match":
			s.listWithout, s.list = true, false
		case "F", "fixed-strings":
			fixed = true
		case "o", "only-matching":
			s.only = true
		case "q", "quiet":
			s.quiet = true
		case "H", "with-filename":
			s.withName = 1
		case "I", "no-filename":
			s.withName = 0
		case "u", "unrestricted":
			unrestricted++
			if unrestricted == 1 {
				s.noIgnore = true
			} else {
				s.hidden = true
			}
		case ".", "hidden":
			s.hidden = true
		case "no-hidden":
			s.hidden = false
		case "no-ignore", "no-ignore-vcs":
			s.noIgnore = true
		case "no-require-git":
			s.requireGit = false
		case "L", "follow":
			s.follow = true
		case "files":
			s.filesOnly = true
		case "column":
			s.column, s.lineNum = true, true
		case "heading":
			s.heading = true
		case "no-heading":
			s.heading = false
		case "vimgrep":
			s.column, s.lineNum, s.heading = true, true, false
			if s.withName < 0 {
				s.withName = 1
			}
		case "0", "null":
			s.nullSep = true
		case "help":
			fmt.Fprintln(env.Stdout, "Usage: rg [OPTIONS] PATTERN [PATH ...]")
			return 0
		case "version":
			fmt.Fprintln(env.Stdout, "ripgrep 14.1.0 (desk shell backend)")
			return 0
		}
	}
	if !havePat && !s.filesOnly {
		if len(operands) == 0 {
			env.Errorf("rg", "ripgrep requires at least one pattern to execute a search")
			return 2
		}
		patterns = []string{operands[0]}
		operands = operands[1:]
	}
	if !s.filesOnly {
		m, err := rgCompile(patterns, caseMode, fixed, word, lineRe)
		if err != nil {
			fmt.Fprintf(env.Stderr, "rg: regex parse error:\n    %s\nerror: %s\n", strings.Join(patterns, "|"), err)
			return 2
		}
		s.m = m
	}
	s.w = bufio.NewWriterSize(env.Stdout, 32<<10)
	defer s.w.Flush()
	if len(operands) == 0 {
		if !s.filesOnly && !env.NoStdin {
			operands = []string{"-"}
		} else {
			operands = []string{""} // the working directory, shown without "./"
		}
	}
	if s.withName < 0 {
		s.withName = 2 // auto: decided below
		if len(operands) == 1 && operands[0] != "" {
			if operands[0] == "-" {
				s.withName = 0
			} else if fi, err := env.FS.Stat(env.Ctx, env.Abs(operands[0])); err == nil && !fi.IsDir() {
				s.withName = 0
			}
		}
	}
	for _, op := range operands {
		if s.quiet && s.matched || env.Canceled() {
			break
		}
		s.operand(op)
	}
	s.w.Flush()
	switch {
	case env.Canceled():
		return 2
	case s.quiet && s.matched:
		return 0
	case s.errSeen:
		return 2
	case s.matched:
		return 0
	}
	return 1
}

// rgCompile builds the matcher: Go RE2 syntax (or literal strings with -F).
func rgCompile(patterns []string, caseMode rune, fixed, word, line bool) (*grepMatcher, error) {
	var parts []string
	fold := caseMode == 'i'
	if caseMode == 'S' {
		fold = true
		for _, p := range patterns {
			if rgHasUpper(p, fixed) {
				fold = false
			}
		}
	}
	for _, p := range patterns {
		if fixed {
			p = regexp.QuoteMeta(p)
		}
		parts = append(parts, p)
	}
	flags := "m"
	if fold {
		flags = "mi"
	}
	m, err := buildMatcher(parts, flags, word, line, false)
	if err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "error parsing regexp: ")
		if i := strings.Index(msg, ": `"); i >= 0 {
			msg = msg[:i]
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return m, nil
}

// rgHasUpper reports whether a pattern has an uppercase literal (smart case;
// escapes such as \W and \S do not count).
func rgHasUpper(p string, fixed bool) bool {
	for i := 0; i < len(p); i++ {
		if !fixed && p[i] == '\\' {
			i++
			continue
		}
		r := rune(p[i])
		if r >= 0x80 {
			for _, rr := range p[i:] {
				r = rr
				break
			}
		}
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

func (s *rgState) errorf(format string, a ...any) {
	s.errSeen = true
	s.w.Flush()
	fmt.Fprintf(s.env.Stderr, "rg: %s\n", fmt.Sprintf(format, a...))
}

// ioError prints ripgrep's wording for a failed operation on a path.
func (s *rgState) ioError(p string, err error) {
	msg := Strerror(err)
	code := ""
	if e := fuErrnoOf(err); e != 0 {
		code = fmt.Sprintf(" (os error %d)", int(e))
	}
	s.errorf("%s: IO error for operation on %s: %s%s", p, p, msg, code)
}

// operand searches one path argument ("" is the implicit working directory).
func (s *rgState) operand(op string) {
	env := s.env
	if op == "-" {
		s.search(nopCloser{ctxReader{env, env.Stdin}}, "<stdin>", true)
		return
	}
	name := op
	if name == "" {
		name = "."
	}
	abs := env.Abs(name)
	fi, err := env.FS.Stat(env.Ctx, abs)
	if err != nil {
		s.ioError(name, err)
		return
	}
	if !fi.IsDir() {
		s.file(op, abs, true)
		return
	}
	rules := s.ancestorRules(abs)
	s.root = abs
	s.walk(op, abs, rules, map[string]bool{})
}

// gitRoot returns the nearest directory at or above abs holding .git.
func (s *rgState) gitRoot(abs string) (string, bool) {
	for d := abs; ; d = path.Dir(d) {
		if _, err := s.env.FS.Lstat(s.env.Ctx, vfs.Clean(d+"/.git")); err == nil {
			return d, true
		}
		if d == "/" {
			return "", false
		}
	}
}

// ancestorRules loads the ignore files of the directories above abs.
func (s *rgState) ancestorRules(abs string) gitignore.Rules {
	if s.noIgnore || abs == "/" {
		return nil
	}
	var dirs []string
	for d := path.Dir(abs); ; d = path.Dir(d) {
		dirs = append([]string{d}, dirs...)
		if d == "/" {
			break
		}
	}
	var rules gitignore.Rules
	for _, d := range dirs {
		rules = s.loadRules(d, rules)
	}
	return rules
}

// rgMaxIgnoreBytes bounds what is read of one ignore file.
const rgMaxIgnoreBytes = 1 << 20

// loadRules appends the rules of dir's ignore files (package gitignore:
// git's semantics).
func (s *rgState) loadRules(dir string, rules gitignore.Rules) gitignore.Rules {
	if s.noIgnore {
		return rules
	}
	files := []string{".ignore", ".rgignore"}
	if _, inGit := s.gitRoot(dir); inGit || !s.requireGit {
		files = append([]string{".gitignore"}, files...)
	}
	for _, f := range files {
		p := vfs.Clean(dir + "/" + f)
		fi, err := s.env.FS.Stat(s.env.Ctx, p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.Size() > rgMaxIgnoreBytes {
			s.errorf("%s: ignore file larger than %d bytes left out", p, rgMaxIgnoreBytes)
			continue
		}
		data, err := s.env.FS.ReadFile(s.env.Ctx, p)
		if err != nil {
			continue
		}
		if rules, err = rules.Add(data, dir); err != nil {
			s.errorf("%s: %v", p, err)
		}
	}
	return rules
}

// globMatch matches a -g glob against a path relative to the search root:
// globs without '/' match the base name.
func (s *rgState) globMatch(g, rel string) bool {
	g = strings.TrimPrefix(g, "**/")
	if strings.Contains(strings.TrimSuffix(g, "/"), "/") {
		return s.fn.match(strings.TrimPrefix(g, "/"), rel, false)
	}
	return s.fn.match(strings.TrimSuffix(g, "/"), path.Base(rel), false)
}

// filtered applies -g, -t and -T to an entry found by recursion.
func (s *rgState) filtered(rel string, isDir bool) bool {
	if isDir {
		for _, g := range s.globs {
			if strings.HasPrefix(g, "!") && s.globMatch(g[1:], rel) {
				return true
			}
		}
		return false
	}
	pos := false
	posMatch := false
	for _, g := range s.globs {
		if strings.HasPrefix(g, "!") {
			if s.globMatch(g[1:], rel) {
				return true
			}
			continue
		}
		pos = true
		if s.globMatch(g, rel) {
			posMatch = true
		}
	}
	if pos && !posMatch {
		return true
	}
	base := path.Base(rel)
	typeMatch := func(t string) bool {
		if t == "all" {
			for k := range rgTypes {
				for _, p := range rgTypes[k] {
					if s.fn.match(p, base, false) {
						return true
					}
				}
			}
			return false
		}
		for _, p := range rgTypes[t] {
			if s.fn.match(p, base, false) {
				return true
			}
		}
		return false
	}
	return leftOut(s.notTypes, s.types, typeMatch)
}

// walk searches a directory recursively, in name order.
func (s *rgState) walk(disp, abs string, rules gitignore.Rules, seen map[string]bool) {
	env := s.env
	if seen[abs] {
		return
	}
	seen[abs] = true
	defer delete(seen, abs)
	rules = s.loadRules(abs, rules)
	err := walkDirFiles(env, abs, func(e vfs.DirFile) bool {
		if env.Canceled() || s.quiet && s.matched {
			return false
		}
		s.walkEntry(disp, abs, rules, seen, e)
		return true
	})
	if err != nil && !isCanceled(env, err) {
		s.ioError(disp, err)
	}
}

// walkEntry searches one entry of a directory being walked.
func (s *rgState) walkEntry(disp, abs string, rules gitignore.Rules, seen map[string]bool, e vfs.DirFile) {
	env := s.env
	child := e.Name
	if disp != "" {
		child = strings.TrimSuffix(disp, "/") + "/" + e.Name
		if disp == "/" {
			child = "/" + e.Name
		}
	}
	cabs := vfs.Clean(abs + "/" + e.Name)
	if !s.hidden && strings.HasPrefix(e.Name, ".") {
		return
	}
	if e.Name == ".git" {
		return
	}
	mode := e.Attr.Mode
	if fuIsLinkMode(mode) {
		if !s.follow {
			return
		}
		fi, err := env.FS.Stat(env.Ctx, cabs)
		if err != nil {
			s.ioError(child, err)
			return
		}
		mode = fi.Attr().Mode
	}
	isDir := fuIsDirMode(mode)
	if !s.noIgnore && rules.Ignored(cabs, isDir) {
		return
	}
	rel := strings.TrimPrefix(cabs, strings.TrimSuffix(s.root, "/")+"/")
	if s.filtered(rel, isDir) {
		return
	}
	if isDir {
		s.walk(child, cabs, rules, seen)
		return
	}
	if e.Loaded && !s.filesOnly {
		s.search(bytes.NewReader(e.Data), child, false)
		return
	}
	s.file(child, cabs, false)
}

// file searches (or, with --files, lists) one file.
func (s *rgState) file(disp, abs string, explicit bool) {
	if s.filesOnly {
		s.w.WriteString(disp)
		s.w.WriteByte(s.term())
		s.matched = true
		return
	}
	f, err := s.env.FS.Open(s.env.Ctx, abs)
	if err != nil {
		s.ioError(disp, err)
		return
	}
	defer f.Close()
	s.search(ctxReader{s.env, f}, disp, explicit)
}

func (s *rgState) term() byte {
	if s.nullSep {
		return 0
	}
	return '\n'
}

// search runs the matcher over one input.
func (s *rgState) search(r io.Reader, name string, explicit bool) {
	env := s.env
	br := bufio.NewReaderSize(r, 64<<10)
	peek, _ := br.Peek(64 << 10)
	if i := bytes.IndexByte(peek, 0); i >= 0 {
		if !explicit {
			return // binary files found by recursion are skipped
		}
		s.binary(br, name, i)
		return
	}
	showName := s.withName == 1 || s.withName == 2 && name != "<stdin>"
	lr := &lineReader{env: env, br: br, delim: '\n', max: env.Limits.MaxReadBytes}
	outQuiet := s.count || s.list || s.listWithout || s.quiet
	ctxOn := !outQuiet && (s.after > 0 || s.before > 0)
	// With --heading the path is written once, above the file's first line.
	heading := s.heading && showName && !outQuiet
	if heading {
		showName = false
	}
	var n, nmatches, num, lastOut int64
	afterLeft := 0
	ring := beforeContext{max: s.before, env: s.env}
	prefix := func(ln int64, col int, sep byte) {
		if showName {
			writeName(s.w, name, s.nullSep, sep)
		}
		if s.lineNum {
			writeField(s.w, ln, sep)
		}
		if s.column && col > 0 {
			writeField(s.w, int64(col), sep)
		}
	}
	group := func(ln int64) {
		if heading && lastOut == 0 {
			// The file's first line: its heading, after a blank line
			// when another file's lines came before.
			if s.printed {
				s.w.WriteByte('\n')
			}
			s.w.WriteString(name)
			s.w.WriteByte('\n')
			return
		}
		if ctxOn && s.printed && (lastOut == 0 || ln > lastOut+1) {
			s.w.WriteString("--\n")
		}
	}
	emitCtx := func(text []byte, ln int64) {
		group(ln)
		prefix(ln, 0, '-')
		s.w.Write(text)
		s.w.WriteByte('\n')
		s.printed = true
		lastOut = ln
	}
	for line := range lr.lines() {
		if env.Canceled() {
			return
		}
		num++
		body := bytes.TrimSuffix(line, []byte{'\n'})
		body = bytes.TrimSuffix(body, []byte{'\r'})
		if s.maxCount >= 0 && n >= s.maxCount {
			if afterLeft > 0 && !outQuiet {
				if (s.m.find(body, true) != nil) == s.invert {
					emitCtx(body, num)
					afterLeft--
					continue
				}
			}
			break
		}
		var ms [][2]int
		var sel bool
		if s.invert {
			sel = s.m.find(body, true) == nil
		} else {
			ms = s.m.find(body, false)
			sel = len(ms) > 0
		}
		if !sel {
			if !ctxOn {
				continue
			}
			if afterLeft > 0 {
				emitCtx(body, num)
				afterLeft--
				continue
			}
			ring.hold(body, num, 0)
			if ring.err != nil {
				lr.err = ring.err // over the memory budget
				break
			}
			continue
		}
		n++
		if s.listWithout && !s.count {
			break // this file has a match: not listed
		}
		s.matched = true
		if s.countMatches && !s.invert {
			nmatches += int64(len(ms))
		} else {
			nmatches++
		}
		if s.quiet {
			return
		}
		if s.list {
			break
		}
		if s.count {
			continue
		}
		for _, h := range ring.take() {
			emitCtx(h.text, h.num)
		}
		afterLeft = s.after
		col := 0
		if len(ms) > 0 {
			col = ms[0][0] + 1
		} else if s.column {
			col = 1
		}
		if s.only && !s.invert {
			group(num)
			for _, mt := range ms {
				if mt[0] == mt[1] {
					continue
				}
				prefix(num, mt[0]+1, ':')
				s.w.Write(body[mt[0]:mt[1]])
				s.w.WriteByte('\n')
				s.printed = true
			}
			lastOut = num
			continue
		}
		group(num)
		prefix(num, col, ':')
		s.w.Write(body)
		s.w.WriteByte('\n')
		s.printed = true
		lastOut = num
	}
	if env.Canceled() {
		return
	}
	if lr.err != nil {
		s.ioError(name, lr.err)
	}
	if s.list && n > 0 {
		s.w.WriteString(name)
		s.w.WriteByte(s.term())
	}
	if s.listWithout && !s.count && n == 0 && !env.Canceled() {
		s.matched = true
		if !s.quiet {
			s.w.WriteString(name)
			s.w.WriteByte(s.term())
		}
	}
	if s.count && n > 0 {
		if showName {
			writeName(s.w, name, s.nullSep, ':')
		}
		fmt.Fprintf(s.w, "%d\n", nmatches)
	}
}

// binary handles an explicitly named file holding a NUL: ripgrep searches it
// and, on a match, reports "binary file matches" instead of the lines.
func (s *rgState) binary(br *bufio.Reader, name string, nul int) {
	data, err := readAllLimited(s.env, br)
	if err != nil {
		if !isCanceled(s.env, err) {
			s.ioError(name, err)
		}
		return
	}
	defer s.env.Release(held(data))
	found := false
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		if (s.m.find(l, true) != nil) != s.invert {
			found = true
			break
		}
	}
	if s.listWithout && !s.count {
		if !found {
			s.matched = true
			if !s.quiet {
				s.w.WriteString(name)
				s.w.WriteByte(s.term())
			}
		}
		return
	}
	if !found {
		return
	}
	s.matched = true
	if s.quiet {
		return
	}
	if s.list {
		s.w.WriteString(name)
		s.w.WriteByte(s.term())
		return
	}
	showName := s.withName == 1 || s.withName == 2 && name != "<stdin>"
	if showName {
		s.w.WriteString(name + ": ")
	}
	fmt.Fprintf(s.w, "binary file matches (found \"\\0\" byte around offset %d)\n", nul)
}
