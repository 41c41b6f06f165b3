package cmds

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() {
	Register("grep", Grep)
	Register("egrep", Grep)
	Register("fgrep", Grep)
}

// grepState is one grep invocation: its options and running results.
type grepState struct {
	fn   fnCache
	br   *bufio.Reader // reused for every file
	env  *Env
	cmd  string
	w    *bufio.Writer
	m    *grepMatcher
	mode byte // 'G', 'E', 'F', 'P'

	invert, count, listMatch, listNon, lineNum, byteOff, only, quiet, noMsgs bool
	withName                                                                 int // -1 auto, 0 -h, 1 -H
	maxCount                                                                 int64
	after, before                                                            int
	recursive, deref                                                         bool
	includes, excludes, excludeDirs                                          []string
	binMode                                                                  string // binary, text, without-match
	nullName, nullData                                                       bool
	label                                                                    string
	groupSep                                                                 *string
	dirSkip                                                                  bool

	matched, errSeen, printed bool
	stop                      bool // -q matched: stop everything
}

// Grep is GNU grep (and egrep = grep -E, fgrep = grep -F) over the
// workspace: BRE/ERE patterns translated to RE2 (no back-references), fixed
// strings, the usual output and context options, recursion with
// --include/--exclude, binary-file detection. Input is streamed line by line.
func Grep(env *Env, args []string) int {
	cmd := "grep"
	g := &grepState{env: env, cmd: cmd, withName: -1, maxCount: -1, binMode: "binary", label: "(standard input)", fn: fnCache{}}
	sep := "--"
	g.groupSep = &sep
	switch args[0] {
	case "egrep":
		g.mode = 'E'
	case "fgrep":
		g.mode = 'F'
	default:
		g.mode = 'G'
	}
	usage := func(msg string) int {
		if msg != "" {
			fmt.Fprintf(env.Stderr, "%s: %s\n", cmd, msg)
		}
		fmt.Fprintf(env.Stderr, "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n")
		return 2
	}
	var errb bytes.Buffer
	penv := *env
	penv.Stderr = &errb
	opts, operands, ok := parseOpts(&penv, cmd, args[1:], optSpec{
		shorts: "0123456789A:B:C:D:EFGHIJLNPRTUVX:abcd:e:f:hiLlm:noqRrsuvwxyZz",
		longs: []string{"after-context=", "before-context=", "context=", "devices=", "extended-regexp", "fixed-strings",
			"basic-regexp", "perl-regexp", "with-filename", "no-filename", "files-without-match", "files-with-matches",
			"binary", "text", "byte-offset", "directories=", "regexp=", "file=", "ignore-case", "no-ignore-case",
			"max-count=", "line-number", "only-matching", "quiet", "silent", "recursive", "dereference-recursive",
			"no-messages", "invert-match", "word-regexp", "line-regexp", "null", "null-data", "count", "color=?",
			"colour=?", "include=", "exclude=", "exclude-dir=", "exclude-from=", "binary-files=", "label=",
			"line-buffered", "group-separator=", "no-group-separator", "initial-tab", "help", "version"},
	})
	if !ok {
		msg := strings.SplitN(errb.String(), "\n", 2)[0]
		fmt.Fprintln(env.Stderr, msg)
		return usage("")
	}
	var patterns []string
	havePat := false
	ctxNum := ""
	ctxDigits := -1
	ignoreCase, word, lineRe := false, false, false
	parseCtx := func(v string) (int, bool) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			fmt.Fprintf(env.Stderr, "%s: %s: invalid context length argument\n", cmd, v)
			return 0, false
		}
		if n > 1<<30 {
			n = 1 << 30
		}
		return int(n), true
	}
	for k, o := range opts {
		if len(o.name) == 1 && o.name[0] >= '0' && o.name[0] <= '9' {
			if ctxDigits == k-1 {
				ctxNum += o.name
			} else {
				ctxNum = o.name
			}
			ctxDigits = k
			n, _ := parseCtx(ctxNum)
			g.after, g.before = n, n
			continue
		}
		switch o.name {
		case "A", "after-context", "B", "before-context", "C", "context":
			n, ok := parseCtx(o.val)
			if !ok {
				return 2
			}
			setContext(o.name, n, &g.after, &g.before)
		case "E", "extended-regexp":
			g.mode = 'E'
		case "F", "fixed-strings":
			g.mode = 'F'
		case "G", "basic-regexp":
			g.mode = 'G'
		case "P", "perl-regexp":
			g.mode = 'P'
		case "H", "with-filename":
			g.withName = 1
		case "h", "no-filename":
			g.withName = 0
		case "I":
			g.binMode = "without-match"
		case "a", "text":
			g.binMode = "text"
		case "binary-files":
			switch o.val {
			case "binary", "text", "without-match":
				g.binMode = o.val
			default:
				env.Errorf(cmd, "unknown binary-files type")
				return 2
			}
		case "L", "files-without-match":
			g.listNon, g.listMatch = true, false
		case "l", "files-with-matches":
			g.listMatch, g.listNon = true, false
		case "b", "byte-offset":
			g.byteOff = true
		case "c", "count":
			g.count = true
		case "d", "directories":
			switch o.val {
			case "read":
			case "skip":
				g.dirSkip = true
			case "recurse":
				g.recursive = true
			default:
				env.Errorf(cmd, "invalid argument %s for %s", quote(env, o.val), quote(env, "--directories"))
				return usage("")
			}
		case "D", "devices", "U", "binary", "u", "line-buffered", "color", "colour", "T", "initial-tab", "V", "version", "X":
		case "e", "regexp":
			patterns = append(patterns, strings.Split(o.val, "\n")...)
			havePat = true
		case "f", "file":
			data, err := readArgLimited(env, o.val)
			if err != nil {
				env.PathError(cmd, o.val, err)
				return 2
			}
			if len(data) > 0 {
				for _, l := range splitLines(data, '\n') {
					patterns = append(patterns, string(l))
				}
			}
			havePat = true
		case "i", "y", "ignore-case":
			ignoreCase = true
		case "no-ignore-case":
			ignoreCase = false
		case "m", "max-count":
			n, err := strconv.ParseInt(o.val, 10, 64)
			if err != nil {
				env.Errorf(cmd, "invalid max count")
				return 2
			}
			g.maxCount = n
		case "n", "line-number":
			g.lineNum = true
		case "N":
		case "o", "only-matching":
			g.only = true
		case "q", "quiet", "silent":
			g.quiet = true
		case "R", "dereference-recursive":
			g.recursive, g.deref = true, true
		case "r", "recursive":
			g.recursive = true
		case "s", "no-messages":
			g.noMsgs = true
		case "v", "invert-match":
			g.invert = true
		case "w", "word-regexp":
			word = true
		case "x", "line-regexp":
			lineRe = true
		case "Z", "null":
			g.nullName = true
		case "z", "null-data":
			g.nullData = true
		case "include":
			g.includes = append(g.includes, o.val)
		case "exclude":
			g.excludes = append(g.excludes, o.val)
		case "exclude-dir":
			g.excludeDirs = append(g.excludeDirs, o.val)
		case "exclude-from":
			data, err := readArgLimited(env, o.val)
			if err != nil {
				env.PathError(cmd, o.val, err)
				return 2
			}
			for _, l := range splitLines(data, '\n') {
				g.excludes = append(g.excludes, string(l))
			}
		case "label":
			g.label = o.val
		case "group-separator":
			v := o.val
			g.groupSep = &v
		case "no-group-separator":
			g.groupSep = nil
		case "help":
			fmt.Fprintf(env.Stdout, "Usage: grep [OPTION]... PATTERNS [FILE]...\nSearch for PATTERNS in each FILE.\n")
			return 0
		}
	}
	if !havePat {
		if len(operands) == 0 {
			return usage("")
		}
		patterns = strings.Split(operands[0], "\n")
		operands = operands[1:]
	}
	m, err := grepCompile(env, patterns, g.mode, ignoreCase, word, lineRe)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %s\n", cmd, err.Error())
		return 2
	}
	g.m = m
	if g.maxCount == 0 {
		return 1
	}
	g.w = bufio.NewWriterSize(env.Stdout, 32<<10)
	defer g.w.Flush()
	implicit := false
	if len(operands) == 0 {
		if g.recursive {
			operands = []string{"."}
			implicit = true
		} else {
			operands = []string{"-"}
		}
	}
	if g.withName < 0 {
		if len(operands) > 1 {
			g.withName = 2
		} else {
			g.withName = 3 // decided per file: only for files found by recursion
		}
	}
	for _, name := range operands {
		if g.stop || env.Canceled() {
			break
		}
		g.operand(name, implicit)
	}
	g.w.Flush()
	if env.Canceled() {
		return 2
	}
	if g.stop {
		return 0
	}
	if g.errSeen {
		return 2
	}
	if g.matched {
		return 0
	}
	return 1
}

// grepCompile builds the matcher for the patterns.
func grepCompile(env *Env, patterns []string, mode byte, fold, word, line bool) (*grepMatcher, error) {
	if len(patterns) == 0 {
		return &grepMatcher{}, nil
	}
	var parts []string
	for _, p := range patterns {
		var s string
		var err error
		switch mode {
		case 'F':
			s = regexp.QuoteMeta(p)
		case 'P':
			s = p
		default:
			s, err = grepTranslate(p, mode == 'E', func(w string) {
				fmt.Fprintf(env.Stderr, "grep: warning: %s\n", w)
			})
			if err != nil {
				return nil, err
			}
		}
		parts = append(parts, s)
	}
	flags := ""
	if fold {
		flags = "i"
	}
	m, err := buildMatcher(parts, flags, word, line, true)
	if err != nil {
		var re2 *syntax.Error
		if errors.As(err, &re2) {
			return nil, fmt.Errorf("%s", re2.Code)
		}
		return nil, err
	}
	return m, nil
}

func (g *grepState) errorf(format string, a ...any) {
	g.errSeen = true
	if g.noMsgs {
		return
	}
	g.w.Flush()
	fmt.Fprintf(g.env.Stderr, "%s: %s\n", g.cmd, fmt.Sprintf(format, a...))
}

// excluded reports whether a file (or directory) is skipped by
// --include/--exclude/--exclude-dir; cmdline names match on any suffix after
// a '/', names found by recursion on their base name.
func (g *grepState) excluded(name string, isDir, cmdline bool) bool {
	match := func(pat string) bool {
		if g.fn.match(pat, name, false) {
			return true
		}
		if cmdline {
			for i := 0; i < len(name); i++ {
				if name[i] == '/' && i+1 < len(name) && name[i+1] != '/' && g.fn.match(pat, name[i+1:], false) {
					return true
				}
			}
		}
		return false
	}
	if isDir {
		return slices.ContainsFunc(g.excludeDirs, match)
	}
	return leftOut(g.excludes, g.includes, match)
}

// operand searches one command-line operand.
func (g *grepState) operand(name string, implicit bool) {
	env := g.env
	if name == "-" {
		g.file(nopCloser{ctxReader{env, env.Stdin}}, nil, g.label, g.withName == 1 || g.withName == 2)
		return
	}
	fi, err := env.FS.Stat(env.Ctx, env.Abs(name))
	if err != nil {
		g.errorf("%s: %s", name, Strerror(err))
		return
	}
	if fi.IsDir() {
		if g.dirSkip {
			return
		}
		if !g.recursive {
			g.errorf("%s: Is a directory", name)
			return
		}
		if !implicit && g.excluded(name, true, true) {
			return
		}
		g.walk(name, env.Abs(name), implicit)
		return
	}
	if g.excluded(name, false, true) {
		return
	}
	g.openFile(name, env.Abs(name), g.withName == 1 || g.withName == 2)
}

// walk searches a directory recursively, in name order.
func (g *grepState) walk(disp, abs string, implicit bool) {
	err := walkDirFiles(g.env, abs, func(e vfs.DirFile) bool {
		if g.stop || g.env.Canceled() {
			return false
		}
		g.walkEntry(disp, abs, implicit, e)
		return true
	})
	if err != nil && !isCanceled(g.env, err) {
		g.errorf("%s: %s", disp, Strerror(err))
	}
}

// walkEntry searches one entry of a directory being walked.
func (g *grepState) walkEntry(disp, abs string, implicit bool, e vfs.DirFile) {
	env := g.env
	var child string
	switch {
	case implicit && disp == ".":
		child = e.Name
	case strings.HasSuffix(disp, "/"):
		child = disp + e.Name
	default:
		child = disp + "/" + e.Name
	}
	cabs := vfs.Clean(abs + "/" + e.Name)
	mode := e.Attr.Mode
	if fuIsLinkMode(mode) {
		if !g.deref {
			return
		}
		fi, err := env.FS.Stat(env.Ctx, cabs)
		if err != nil {
			g.errorf("%s: %s", child, Strerror(err))
			return
		}
		mode = fi.Attr().Mode
	}
	if fuIsDirMode(mode) {
		if g.excluded(e.Name, true, false) {
			return
		}
		g.walk(child, cabs, false)
		return
	}
	if g.excluded(e.Name, false, false) {
		return
	}
	if e.Loaded {
		g.file(nil, e.Data, child, g.withName != 0)
		return
	}
	g.openFile(child, cabs, g.withName != 0)
}

func (g *grepState) openFile(disp, abs string, showName bool) {
	f, err := g.env.FS.Open(g.env.Ctx, abs)
	if err != nil {
		g.errorf("%s: %s", disp, Strerror(err))
		return
	}
	defer f.Close()
	g.file(ctxReader{g.env, f}, nil, disp, showName)
}

// file searches one input: r, or data when the input is in memory already
// (r nil).
func (g *grepState) file(r io.Reader, data []byte, name string, showName bool) {
	if g.blockOK() {
		g.blocks(r, data, name, showName)
		return
	}
	if r == nil {
		r = bytes.NewReader(data)
	}
	g.lines(r, name, showName, grepCounts{})
}

// prefix writes a selected (sep ':') or context ('-') line's prefix.
func (g *grepState) prefix(name string, showName bool, n, o int64, sep byte) {
	if showName {
		writeName(g.w, name, g.nullName, sep)
	}
	if g.lineNum {
		writeField(g.w, n, sep)
	}
	if g.byteOff {
		writeField(g.w, o, sep)
	}
}

// finish ends one input: its count (-c), its name (-l, -L), the binary
// notice.
func (g *grepState) finish(name string, showName bool, nlines int64, binary, encErr bool) {
	outQuiet := g.count || g.listMatch || g.listNon || g.quiet
	if g.count {
		if showName {
			writeName(g.w, name, g.nullName, ':')
		}
		fmt.Fprintf(g.w, "%d\n", nlines)
	}
	if g.listMatch && nlines > 0 || g.listNon && nlines == 0 {
		writeName(g.w, name, g.nullName, '\n')
	}
	if !outQuiet && nlines > 0 && (binary || encErr) && g.binMode == "binary" {
		g.w.Flush()
		fmt.Fprintf(g.env.Stderr, "%s: %s: binary file matches\n", g.cmd, name)
	}
}

// lines searches one input a line at a time (the line path), from the
// counts c of what the block path searched before it.
func (g *grepState) lines(r io.Reader, name string, showName bool, c grepCounts) {
	env := g.env
	eol := byte('\n')
	if g.nullData {
		eol = 0
	}
	// One 64 KiB reader for all the files of a search (reset per file).
	if g.br == nil {
		g.br = bufio.NewReaderSize(r, 64<<10)
	} else {
		g.br.Reset(r)
	}
	br := g.br
	defer br.Reset(nil)
	binary := false
	if g.binMode != "text" && !g.nullData && !c.noSniff {
		peek, _ := br.Peek(32 << 10)
		if bytes.IndexByte(peek, 0) >= 0 {
			binary = true
		}
	}
	if binary && g.binMode == "without-match" {
		g.finish(name, showName, c.nlines, false, false) // -c counts 0, -L lists it
		return
	}
	lr := &lineReader{env: env, br: br, delim: eol, max: env.Limits.MaxReadBytes}
	// outQuiet: no line output at all (-c, -l, -L, -q).
	outQuiet := g.count || g.listMatch || g.listNon || g.quiet
	nlines, num, off := c.nlines, c.num, c.off
	var lastOut int64 // line number of the last line printed (0 none)
	afterLeft := 0
	ring := beforeContext{max: g.before, env: env}
	encErr := c.encErr
	ctxOn := !g.only && (g.after > 0 || g.before > 0)

	prefix := func(n, o int64, sep byte) { g.prefix(name, showName, n, o, sep) }
	sepBefore := func(n int64) {
		if ctxOn && g.groupSep != nil && g.printed && (lastOut == 0 || n > lastOut+1) {
			g.w.WriteString(*g.groupSep)
			g.w.WriteByte('\n')
		}
	}
	valid := func(b []byte) bool { return g.binMode == "text" || utf8.Valid(b) }
	printCtx := func(l heldLine) {
		body := bytes.TrimSuffix(l.text, []byte{eol})
		if !valid(body) {
			encErr = true
			lastOut = l.num
			return
		}
		sepBefore(l.num)
		prefix(l.num, l.off, '-')
		g.w.Write(body)
		g.w.WriteByte(eol)
		g.printed = true
		lastOut = l.num
	}
	for line := range lr.lines() {
		if env.Canceled() {
			return
		}
		num++
		lineOff := off
		off += int64(len(line))
		body := bytes.TrimSuffix(line, []byte{eol})
		if !binary && g.binMode != "text" && !g.nullData && bytes.IndexByte(body, 0) >= 0 {
			binary = true
			if g.binMode == "without-match" {
				g.finish(name, showName, nlines, false, false)
				return
			}
		}
		if binary {
			// NULs end lines in a binary file.
			for _, sub := range bytes.Split(body, []byte{0}) {
				sel := (g.m.find(sub, true) != nil) != g.invert
				if sel {
					nlines++
					g.matched = true
					if g.quiet {
						g.stop = true
						return
					}
					if !g.count || g.maxCount > 0 && nlines >= g.maxCount {
						goto done
					}
				}
			}
			continue
		}
		sel := false
		var ms [][2]int
		if g.only && !g.invert && !outQuiet {
			ms = g.m.find(body, false)
			sel = ms != nil
		} else {
			sel = (g.m.find(body, true) != nil) != g.invert
		}
		if g.maxCount > 0 && nlines >= g.maxCount {
			// Trailing context after the last allowed match.
			if afterLeft > 0 {
				printCtx(heldLine{line, num, lineOff})
				afterLeft--
				continue
			}
			break
		}
		if !sel {
			if outQuiet || !ctxOn {
				continue
			}
			if afterLeft > 0 {
				printCtx(heldLine{line, num, lineOff})
				afterLeft--
				continue
			}
			ring.hold(line, num, lineOff)
			if ring.err != nil {
				lr.err = ring.err // over the memory budget
				break
			}
			continue
		}
		nlines++
		g.matched = true
		if g.quiet {
			g.stop = true
			return
		}
		if g.listMatch || g.listNon {
			break
		}
		if g.count {
			if g.maxCount > 0 && nlines >= g.maxCount {
				break
			}
			continue
		}
		for _, l := range ring.take() {
			printCtx(l)
		}
		afterLeft = g.after
		if g.only {
			if g.invert {
				lastOut = num
				continue
			}
			for _, mt := range ms {
				if mt[0] == mt[1] {
					continue
				}
				part := body[mt[0]:mt[1]]
				if !valid(part) {
					encErr = true
					continue
				}
				prefix(num, lineOff+int64(mt[0]), ':')
				g.w.Write(part)
				g.w.WriteByte(eol)
				g.printed = true
			}
			lastOut = num
			continue
		}
		if !valid(body) {
			encErr = true
			lastOut = num
			continue
		}
		sepBefore(num)
		prefix(num, lineOff, ':')
		g.w.Write(body)
		g.w.WriteByte(eol)
		g.printed = true
		lastOut = num
	}
	if env.Canceled() {
		return
	}
	if lr.err != nil {
		g.errorf("%s: %s", name, Strerror(lr.err))
	}
done:
	g.finish(name, showName, nlines, binary, encErr)
}
