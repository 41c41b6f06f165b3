package cmds

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

func init() { Register("sed", Sed) }

const sedUsage = `Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the ` + "`l'" + ` command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
`

// Sed is the stream editor, written for the shell backend after GNU sed 4.9:
// scripts from -e, -f or the first operand; -n, -E/-r, -i[SUFFIX], -s, -z,
// -l; addresses (N, $, /RE/, \cREc, first~step, ranges with N, /RE/, +N, ~N,
// 0,/RE/), ! and { }; commands s y d D p P n N g G h H x z a i c q Q = l r
// w W : b t T (w files are written when sed ends). Regexes are POSIX BRE (ERE with -E) translated to Go's RE2, so
// back-references inside a regex are rejected with a clear message.
func Sed(env *Env, args []string) int {
	var errb bytes.Buffer
	senv := *env
	senv.Stderr = &errb
	opts, operands, ok := parseOpts(&senv, "sed", args[1:], optSpec{
		shorts: "nrsuzEe:f:i::l:",
		longs: []string{"quiet", "silent", "expression=", "file=", "in-place=?", "line-length=",
			"regexp-extended", "separate", "null-data", "zero-terminated", "unbuffered", "posix",
			"debug", "sandbox", "follow-symlinks", "help", "version"},
	})
	if !ok {
		first, _, _ := strings.Cut(errb.String(), "\n")
		fmt.Fprintf(env.Stderr, "%s\n%s", first, sedUsage)
		return 1
	}
	s := &sedState{env: env, sep: '\n', lineLen: 70}
	type chunk struct {
		src, file string
	}
	var chunks []chunk
	haveScript := false
	inPlace := false
	suffix := ""
	for _, o := range opts {
		switch o.name {
		case "n", "quiet", "silent":
			s.quiet = true
		case "r", "E", "regexp-extended":
			s.ere = true
		case "s", "separate":
			s.separate = true
		case "z", "null-data", "zero-terminated":
			s.sep = 0
		case "i", "in-place":
			inPlace, s.separate = true, true
			suffix = o.val
		case "l", "line-length":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				fmt.Fprintf(env.Stderr, "sed: invalid line length: %s\n", o.val)
				return 1
			}
			s.lineLen = n
		case "e", "expression":
			chunks = append(chunks, chunk{src: o.val})
			haveScript = true
		case "f", "file":
			var data []byte
			var err error
			if o.val == "-" {
				data, err = readAllLimited(env, env.Stdin)
			} else {
				data, err = readArgLimited(env, o.val)
			}
			if err != nil {
				fmt.Fprintf(env.Stderr, "sed: couldn't open file %s: %s\n", o.val, Strerror(err))
				return 4
			}
			src := string(data)
			src = strings.TrimSuffix(src, "\n")
			chunks = append(chunks, chunk{src: src, file: o.val})
			haveScript = true
		case "help":
			io.WriteString(env.Stdout, sedUsage+"E-mail bug reports to: <bug-sed@gnu.org>.\n")
			return 0
		case "version":
			io.WriteString(env.Stdout, "sed (GNU sed) 4.9\n")
			return 0
		}
	}
	if !haveScript {
		if len(operands) == 0 {
			io.WriteString(env.Stderr, sedUsage)
			return 1
		}
		chunks = append(chunks, chunk{src: operands[0]})
		operands = operands[1:]
	}
	prog := &sedProg{ere: s.ere}
	where := ""
	expr := 0
	for i, c := range chunks {
		p := &sedParser{prog: prog, src: c.src, file: c.file, first: i == 0}
		if c.file == "" {
			expr++
			p.expr = expr
			where = fmt.Sprintf("-e expression #%d", expr)
		} else {
			where = "file " + c.file + " line " + strconv.Itoa(1+strings.Count(c.src, "\n"))
		}
		if err := p.parse(); err != nil {
			fmt.Fprintf(env.Stderr, "sed: %s\n", err)
			return 1
		}
	}
	if err := prog.resolve(where); err != nil {
		msg, label := strings.CutPrefix(err.Error(), "\x00")
		fmt.Fprintf(env.Stderr, "sed: %s\n", msg)
		if label {
			return 4 // GNU reports a missing label as a panic
		}
		return 1
	}
	if prog.quiet {
		s.quiet = true
	}
	s.prog = prog
	s.inPlace = inPlace
	if !s.openW() {
		return 4
	}
	defer s.closeW()
	if inPlace {
		if len(operands) == 0 {
			fmt.Fprintf(env.Stderr, "sed: no input files\n")
			return 4
		}
		for _, name := range operands {
			if s.quit || env.Canceled() {
				break
			}
			s.editInPlace(name, suffix)
		}
		return s.finish()
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	s.out = &sedOut{w: env.Stdout, sep: s.sep}
	if s.separate {
		for _, name := range operands {
			if s.quit {
				break
			}
			s.runStream([]string{name}, nil)
		}
	} else {
		s.runStream(operands, nil)
	}
	return s.finish()
}

// sedOut writes lines, remembering when the last one lacked its delimiter
// (GNU adds it back before anything else is written).
type sedOut struct {
	w         io.Writer
	sep       byte
	missingNL bool
	err       error
}

func (o *sedOut) write(s string) {
	if o.err != nil {
		return
	}
	_, o.err = io.WriteString(o.w, s)
}

func (o *sedOut) fix() {
	if o.missingNL {
		o.write(string([]byte{o.sep}))
		o.missingNL = false
	}
}

func (o *sedOut) line(s string, nl bool) {
	o.fix()
	o.write(s)
	if nl {
		o.write(string([]byte{o.sep}))
	} else {
		o.missingNL = true
	}
}

func (o *sedOut) text(s string) {
	o.fix()
	o.write(s)
}

type sedState struct {
	env      *Env
	prog     *sedProg
	quiet    bool
	ere      bool
	separate bool
	sep      byte
	lineLen  int
	out      *sedOut

	status   int
	quit     bool
	exitCode int
	fatal    bool

	// the input stream
	files   []string
	fi      int
	lr      *lineReader
	closer  io.Closer
	data    []byte // whole input for -i (nil: stream the files)
	pending bool
	pLine   string
	pNL     bool
	lineNo  int

	ps        string
	psNL      bool
	hold      string
	spaceHeld int64 // charged for the spaces (see room)
	psAcc     accum // N and G append to the pattern space, H to the hold
	holdAcc   accum
	behind    map[*regexp.Regexp]bool
	tflag     bool
	lastRE    *regexp.Regexp
	appQ      []sedCmd // a text and r files, in order

	// w files: written when sed ends (created, empty, when it starts)
	inPlace bool
	wOut    map[string]*sedOut
	wBuf    map[string]*bytes.Buffer
	wNames  []string
}

// openW creates the files of the script's w commands, as GNU does before
// reading any input.
func (s *sedState) openW() bool {
	for _, c := range s.prog.cmds {
		name := c.wfile
		if name == "" || name == "/dev/stdout" || name == "/dev/stderr" || s.wBuf[name] != nil {
			continue
		}
		if err := s.env.FS.WriteFile(s.env.Ctx, s.env.Abs(name), nil, 0o644); err != nil {
			fmt.Fprintf(s.env.Stderr, "sed: couldn't open file %s: %s\n", name, Strerror(err))
			return false
		}
		if s.wBuf == nil {
			s.wBuf, s.wOut = map[string]*bytes.Buffer{}, map[string]*sedOut{}
		}
		buf := &bytes.Buffer{}
		s.wBuf[name] = buf
		s.wOut[name] = &sedOut{w: &limitedBuf{buf: buf, max: s.env.Limits.MaxReadBytes, env: s.env}, sep: s.sep}
		s.wNames = append(s.wNames, name)
	}
	return true
}

// wout is the output of a w file.
func (s *sedState) wout(name string) *sedOut {
	switch {
	case name == "/dev/stdout" && !s.inPlace:
		return s.out
	case name == "/dev/stdout" || name == "/dev/stderr":
		// One output per stream, as GNU's: a line written without its
		// delimiter gets it back before the next one (under -i the next
		// may come from the next file).
		if o := s.wOut[name]; o != nil {
			return o
		}
		w := s.env.Stdout
		if name == "/dev/stderr" {
			w = s.env.Stderr
		}
		if s.wOut == nil {
			s.wOut = map[string]*sedOut{}
		}
		s.wOut[name] = &sedOut{w: w, sep: s.sep}
		return s.wOut[name]
	}
	return s.wOut[name]
}

// closeW writes the w files.
func (s *sedState) closeW() {
	for _, name := range s.wNames {
		if err := s.wOut[name].err; err != nil {
			fmt.Fprintf(s.env.Stderr, "sed: couldn't write %s: %s\n", name, Strerror(err))
			continue
		}
		if err := s.env.FS.WriteFile(s.env.Ctx, s.env.Abs(name), s.wBuf[name].Bytes(), 0o644); err != nil {
			fmt.Fprintf(s.env.Stderr, "sed: couldn't write %s: %s\n", name, Strerror(err))
		}
	}
}

func (s *sedState) finish() int {
	if s.out != nil && s.out.err != nil && !s.fatal {
		fmt.Fprintf(s.env.Stderr, "sed: couldn't write: %s\n", Strerror(s.out.err))
		return 4
	}
	if s.quit && s.exitCode != 0 {
		return s.exitCode
	}
	if s.fatal {
		return 4
	}
	return s.status
}

// fill makes the next input line pending; false at the end of the input.
func (s *sedState) fill() bool {
	if s.pending {
		return true
	}
	for {
		if s.lr == nil {
			if s.fi >= len(s.files) {
				return false
			}
			name := s.files[s.fi]
			s.fi++
			if s.data != nil {
				s.lr = newLineReaderSize(s.env, ctxReader{s.env, bytes.NewReader(s.data)}, s.sep, min(len(s.data)+1, 64<<10))
				continue
			}
			r, err := openArg(s.env, name)
			if err != nil {
				fmt.Fprintf(s.env.Stderr, "sed: can't read %s: %s\n", name, Strerror(err))
				s.status = 2
				continue
			}
			s.lr, s.closer = newLineReader(s.env, r, s.sep), r
		}
		line, err := s.lr.next()
		if err == nil {
			s.pending = true
			s.pNL = len(line) > 0 && line[len(line)-1] == s.sep
			if s.pNL {
				line = line[:len(line)-1]
			}
			s.pLine = string(line)
			return true
		}
		if err != io.EOF {
			if isCanceled(s.env, err) {
				s.quit, s.fatal = true, true
				return false
			}
			name := s.files[s.fi-1]
			if errors.Is(err, ErrTooLarge) {
				fmt.Fprintf(s.env.Stderr, "sed: %s: %s\n", name, Strerror(err))
			} else {
				fmt.Fprintf(s.env.Stderr, "sed: read error on %s: %s\n", name, Strerror(err))
			}
			// GNU gives up on a read error (exit 4).
			s.quit, s.fatal = true, true
			return false
		}
		if s.closer != nil {
			s.closer.Close()
		}
		s.lr, s.closer = nil, nil
	}
}

// readPS reads the next line into the pattern space.
func (s *sedState) readPS(appendMode bool) bool {
	if !s.fill() {
		return false
	}
	s.pending = false
	s.lineNo++
	if appendMode {
		s.ps = s.psAcc.join(s.ps, s.sep, s.pLine)
	} else {
		s.ps = s.pLine
	}
	s.psNL = s.pNL
	return true
}

func (s *sedState) isLast() bool { return !s.fill() }

func (s *sedState) dumpAppend() {
	for _, a := range s.appQ {
		if a.name == 'a' {
			s.out.text(a.text)
			continue
		}
		data, err := readArgLimited(s.env, a.text)
		if err == nil && len(data) > 0 {
			s.out.text(string(data))
			if data[len(data)-1] != s.sep {
				s.out.missingNL = true
			}
		}
	}
	s.appQ = s.appQ[:0]
}

// runStream runs the script over the lines of files as one stream (data,
// when set, is the content of the single file, for -i).
func (s *sedState) runStream(files []string, data []byte) {
	s.files, s.fi, s.data, s.lr, s.pending = files, 0, data, nil, false
	if s.separate {
		s.lineNo = 0
	}
	defer func() {
		if s.closer != nil {
			s.closer.Close()
			s.closer = nil
		}
		s.lr = nil
	}()
	for !s.quit && s.readPS(false) {
		s.cycle()
	}
}

func (s *sedState) matchAddr(a *sedAddr) bool {
	switch a.kind {
	case sedAddrLine:
		return s.lineNo == a.n
	case sedAddrLast:
		return s.isLast()
	case sedAddrStep:
		if a.step <= 0 {
			return s.lineNo == a.n
		}
		return s.lineNo >= a.n && (s.lineNo-a.n)%a.step == 0
	case sedAddrRE:
		re := a.re
		if re == nil {
			re = s.lastRE
		}
		s.lastRE = re
		return re != nil && re.MatchString(s.ps)
	}
	return false
}

// selected reports whether the command's address matches the current line.
func (s *sedState) selected(c *sedCmd) bool {
	if c.a1 == nil {
		return true
	}
	if c.a2 == nil {
		return s.matchAddr(c.a1)
	}
	l := s.lineNo
	if c.active {
		switch c.a2.kind {
		case sedAddrLine, sedAddrPlus, sedAddrMult:
			if l >= c.rangeEnd {
				c.active = false
			}
			return l <= c.rangeEnd
		default:
			if s.matchAddr(c.a2) {
				c.active = false
			}
			return true
		}
	}
	if c.a1.kind == sedAddrZero {
		if l == 1 || s.separate && l == 1 {
			c.active = true
			if s.matchAddr(c.a2) {
				c.active = false
			}
			return true
		}
		return false
	}
	if !s.matchAddr(c.a1) {
		return false
	}
	switch c.a2.kind {
	case sedAddrLine:
		c.rangeEnd = c.a2.n
		c.active = c.rangeEnd > l
	case sedAddrPlus:
		c.rangeEnd = l + c.a2.n
		c.active = c.rangeEnd > l
	case sedAddrMult:
		if c.a2.n <= 0 {
			c.rangeEnd = l
		} else {
			c.rangeEnd = (l + c.a2.n - 1) / c.a2.n * c.a2.n
		}
		c.active = c.rangeEnd > l
	default:
		c.active = true
	}
	return true
}

// cycle runs the script on the pattern space.
func (s *sedState) cycle() {
	s.tflag = false
restart:
	cmds := s.prog.cmds
	autoprint := !s.quiet
	for pc := 0; pc < len(cmds); pc++ {
		if s.env.Canceled() {
			s.quit, s.fatal = true, true
			return
		}
		c := cmds[pc]
		if c.name == '}' || c.name == ':' {
			continue
		}
		if s.selected(c) == c.neg {
			if c.name == '{' {
				pc = c.jump
			}
			continue
		}
		switch c.name {
		case '{':
		case '=':
			s.out.text(strconv.Itoa(s.lineNo) + "\n")
		case 'a', 'r':
			s.appQ = append(s.appQ, *c)
		case 'i':
			s.out.text(c.text)
		case 'c':
			if c.a2 == nil || !c.active || c.neg {
				s.out.text(c.text)
			}
			s.endCycle(false)
			return
		case 'd':
			s.endCycle(false)
			return
		case 'D':
			i := strings.IndexByte(s.ps, s.sep)
			if i < 0 {
				s.endCycle(false)
				return
			}
			s.ps = s.ps[i+1:]
			s.dumpAppend()
			goto restart
		case 'p':
			s.out.line(s.ps, s.psNL)
		case 'P':
			i := strings.IndexByte(s.ps, s.sep)
			if i < 0 {
				s.out.line(s.ps, s.psNL)
			} else {
				s.out.line(s.ps[:i], true)
			}
		case 'w':
			s.wout(c.wfile).line(s.ps, s.psNL)
		case 'W':
			i := strings.IndexByte(s.ps, s.sep)
			if i < 0 {
				s.wout(c.wfile).line(s.ps, s.psNL)
			} else {
				s.wout(c.wfile).line(s.ps[:i], true)
			}
		case 'n':
			if s.isLast() {
				s.quit = true
				s.endCycle(autoprint)
				return
			}
			if autoprint {
				s.out.line(s.ps, s.psNL)
			}
			s.dumpAppend()
			s.readPS(false)
		case 'N':
			if s.isLast() {
				s.quit = true
				s.endCycle(autoprint)
				return
			}
			s.dumpAppend()
			if !s.fill() || !s.room(len(s.pLine)+1) {
				if s.quit {
					return
				}
			}
			s.readPS(true)
		case 'g':
			s.ps = s.hold
		case 'G':
			if !s.room(len(s.hold) + 1) {
				return
			}
			s.ps = s.psAcc.join(s.ps, s.sep, s.hold)
		case 'h':
			s.hold = s.ps
		case 'H':
			if !s.room(len(s.ps) + 1) {
				return
			}
			s.hold = s.holdAcc.join(s.hold, s.sep, s.ps)
		case 'x':
			s.ps, s.hold = s.hold, s.ps
		case 'z':
			s.ps = ""
		case 'F':
			name := "-"
			if s.fi > 0 && s.fi <= len(s.files) {
				name = s.files[s.fi-1]
			}
			s.out.text(name + "\n")
		case 'l':
			n := s.lineLen
			if c.num >= 0 {
				n = c.num
			}
			s.out.text(sedEscape(s.ps, n))
		case 'q':
			s.quit = true
			if c.num >= 0 {
				s.exitCode = c.num
			}
			s.endCycle(autoprint)
			return
		case 'Q':
			s.quit = true
			if c.num >= 0 {
				s.exitCode = c.num
			}
			return
		case 'b':
			pc = c.jump - 1
		case 't':
			if s.tflag {
				s.tflag = false
				pc = c.jump - 1
			}
		case 'T':
			if !s.tflag {
				pc = c.jump - 1
			} else {
				s.tflag = false
			}
		case 'y':
			var b strings.Builder
			for _, r := range s.ps {
				if m, ok := c.ymap[r]; ok {
					r = m
				}
				b.WriteRune(r)
			}
			s.ps = b.String()
		case 's':
			s.subst(c)
		}
		if s.quit {
			return
		}
		if !s.room(0) {
			return
		}
	}
	s.endCycle(autoprint)
}

// accum appends to a space in amortized time: s + sep + t copies s each
// time, which made N, G and H accumulating a file quadratic. The space is
// a view of buf while nothing else replaces it; bytes of buf under a view
// are never written again (a new space starts a new buffer).
type accum struct{ buf []byte }

// join returns cur + sep + t.
func (a *accum) join(cur string, sep byte, t string) string {
	if len(a.buf) == 0 || len(a.buf) != len(cur) || unsafe.StringData(cur) != &a.buf[0] {
		a.buf = make([]byte, 0, 2*(len(cur)+1+len(t))+16)
		a.buf = append(a.buf, cur...)
	}
	a.buf = append(a.buf, sep)
	a.buf = append(a.buf, t...)
	return unsafe.String(&a.buf[0], len(a.buf))
}

// room reports whether the pattern and hold spaces can grow by n bytes:
// together they stay within Limits.MaxReadBytes, and what they hold (and
// the copy a command makes of them) is charged to Env.Mem. Past either,
// sed stops (status 4, as GNU sed out of memory).
func (s *sedState) room(n int) bool {
	size := int64(len(s.ps) + len(s.hold) + n)
	if max := s.env.Limits.MaxReadBytes; max > 0 && size > max {
		fmt.Fprintf(s.env.Stderr, "sed: couldn't re-allocate memory: %s\n", ErrTooLarge)
		s.quit, s.fatal, s.status = true, true, 4
		return false
	}
	if need := 3 * size; need > s.spaceHeld {
		if err := s.env.Hold(need - s.spaceHeld); err != nil {
			s.quit, s.fatal, s.status = true, true, 4
			return false
		}
		s.spaceHeld = need
	}
	return true
}

func (s *sedState) endCycle(print bool) {
	if print {
		s.out.line(s.ps, s.psNL)
	}
	s.dumpAppend()
}

func (s *sedState) subst(c *sedCmd) {
	re := c.re
	if re == nil {
		re = s.lastRE
	}
	if re == nil {
		fmt.Fprintf(s.env.Stderr, "sed: no previous regular expression\n")
		s.quit, s.fatal = true, true
		return
	}
	s.lastRE = re
	limit := c.nth
	if c.global {
		limit = -1
	}
	ms, ok := s.matches(re, limit)
	if !ok || len(ms) < c.nth {
		return
	}
	var b strings.Builder
	max := s.env.Limits.MaxReadBytes
	last := 0
	for k, m := range ms {
		if k+1 < c.nth {
			continue
		}
		b.WriteString(s.ps[last:m[0]])
		sedExpand(&b, s.ps, m, c.repl)
		last = m[1]
		if k&255 == 0 && !s.grows(&b, max) {
			return
		}
	}
	b.WriteString(s.ps[last:])
	if !s.grows(&b, max) {
		return
	}
	s.ps = b.String()
	s.tflag = true
	if c.print > 0 {
		s.out.line(s.ps, s.psNL)
	}
	if c.wfile != "" {
		s.wout(c.wfile).line(s.ps, s.psNL)
	}
}

// grows checks a substitution's result as it grows (see room).
func (s *sedState) grows(b *strings.Builder, max int64) bool {
	if max > 0 && int64(b.Len()) > max {
		fmt.Fprintf(s.env.Stderr, "sed: couldn't re-allocate memory: %s\n", ErrTooLarge)
		s.quit, s.fatal, s.status = true, true, 4
		return false
	}
	return s.room(2 * b.Len())
}

// matches finds the matches of re in the pattern space (at most limit, -1
// for all), charging them: regexp's FindAll keeps a slice per match, so a
// long line with many matches is charged its upper bound (a match per
// byte) unless re looks at nothing before its match (no ^, \b or \B), when
// the matches are found one at a time on what follows the previous one.
func (s *sedState) matches(re *regexp.Regexp, limit int) ([][]int, bool) {
	per := int64(48 + 16*re.NumSubexp())
	if limit >= 0 && limit < 64 {
		return re.FindAllStringSubmatchIndex(s.ps, limit), true
	}
	if s.behind == nil {
		s.behind = map[*regexp.Regexp]bool{}
	}
	behind, ok := s.behind[re]
	if !ok {
		behind = sedLooksBehind(re)
		s.behind[re] = behind
	}
	if !behind {
		var ms [][]int
		var held int64
		defer func() { s.env.Release(held) }()
		pos, prevEnd := 0, -1
		for pos <= len(s.ps) && (limit < 0 || len(ms) < limit) {
			m := re.FindStringSubmatchIndex(s.ps[pos:])
			if m == nil {
				break
			}
			for i := range m {
				if m[i] >= 0 {
					m[i] += pos
				}
			}
			if m[1] == m[0] && m[0] == prevEnd {
				// An empty match right after the previous one.
				_, w := utf8.DecodeRuneInString(s.ps[m[0]:])
				pos = m[0] + max(w, 1)
				continue
			}
			if len(ms) == cap(ms) {
				if err := s.env.Hold(int64(cap(ms)+1) * per * 2); err != nil {
					s.quit, s.fatal, s.status = true, true, 4
					return nil, false
				}
				held += int64(cap(ms)+1) * per * 2
			}
			ms = append(ms, m)
			prevEnd = m[1]
			if m[1] > m[0] {
				pos = m[1]
			} else {
				_, w := utf8.DecodeRuneInString(s.ps[m[0]:])
				pos = m[0] + max(w, 1)
			}
		}
		return ms, true
	}
	n := int64(len(s.ps)+1) * per
	if err := s.env.Hold(n); err != nil {
		s.quit, s.fatal, s.status = true, true, 4
		return nil, false
	}
	defer s.env.Release(n)
	return re.FindAllStringSubmatchIndex(s.ps, limit), true
}

// sedLooksBehind reports whether re has an assertion on what precedes a
// position (^ \A \b \B).
func sedLooksBehind(re *regexp.Regexp) bool {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return true
	}
	found := false
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			found = true
		}
		for _, sub := range r.Sub {
			walk(sub)
		}
	}
	walk(parsed)
	return found
}

// sedExpand appends the replacement for match m, with GNU's \U \L \u \l \E.
func sedExpand(b *strings.Builder, src string, m []int, parts []sedReplPart) {
	var mode, once byte
	add := func(t string) {
		for _, r := range t {
			switch {
			case once == 'u':
				r = unicode.ToUpper(r)
				once = 0
			case once == 'l':
				r = unicode.ToLower(r)
				once = 0
			case mode == 'U':
				r = unicode.ToUpper(r)
			case mode == 'L':
				r = unicode.ToLower(r)
			}
			b.WriteRune(r)
		}
	}
	plain := true
	for _, p := range parts {
		if p.cas != 0 {
			plain = false
		}
	}
	for _, p := range parts {
		switch {
		case p.cas == 'U' || p.cas == 'L':
			mode, once = p.cas, 0
		case p.cas == 'E':
			mode, once = 0, 0
		case p.cas != 0:
			once = p.cas
		case p.ref < 0:
			if plain {
				b.WriteString(p.lit)
			} else {
				add(p.lit)
			}
		case 2*p.ref+1 < len(m) && m[2*p.ref] >= 0:
			t := src[m[2*p.ref]:m[2*p.ref+1]]
			if plain {
				b.WriteString(t)
			} else {
				add(t)
			}
		}
	}
}

// sedEscape renders the pattern space as the l command does.
func sedEscape(ps string, width int) string {
	var b strings.Builder
	col := 0
	for i := 0; i < len(ps); i++ {
		c := ps[i]
		var o string
		switch c {
		case '\\':
			o = `\\`
		case '\a':
			o = `\a`
		case '\b':
			o = `\b`
		case '\f':
			o = `\f`
		case '\n':
			o = `\n`
		case '\r':
			o = `\r`
		case '\t':
			o = `\t`
		case '\v':
			o = `\v`
		default:
			if c >= 0x20 && c < 0x7f {
				o = string(c)
			} else {
				o = fmt.Sprintf(`\%03o`, c)
			}
		}
		if width > 1 && col+len(o) > width-1 {
			b.WriteString("\\\n")
			col = 0
		}
		b.WriteString(o)
		col += len(o)
	}
	b.WriteString("$\n")
	return b.String()
}

// editInPlace runs the script over one file and writes the result back.
func (s *sedState) editInPlace(name, suffix string) {
	env := s.env
	abs := env.Abs(name)
	fi, err := env.FS.Stat(env.Ctx, abs)
	if err != nil {
		fmt.Fprintf(env.Stderr, "sed: can't read %s: %s\n", name, Strerror(err))
		s.status = 2
		return
	}
	if !fi.Mode().IsRegular() {
		fmt.Fprintf(env.Stderr, "sed: couldn't edit %s: not a regular file\n", name)
		s.fatal = true
		return
	}
	data, err := readArgLimited(env, name)
	if err != nil {
		fmt.Fprintf(env.Stderr, "sed: can't read %s: %s\n", name, Strerror(err))
		s.status = 2
		return
	}
	defer env.Release(held(data))
	var buf bytes.Buffer
	buf.Grow(len(data) + len(data)/8) // most edits keep the size about the same
	lb := &limitedBuf{buf: &buf, max: env.Limits.MaxReadBytes, env: env}
	defer lb.release()
	s.out = &sedOut{w: lb, sep: s.sep}
	if data == nil {
		data = []byte{}
	}
	s.runStream([]string{name}, data)
	if s.fatal && env.Canceled() {
		return
	}
	if s.out.err != nil {
		fmt.Fprintf(env.Stderr, "sed: couldn't edit %s: %s\n", name, Strerror(s.out.err))
		s.fatal = true
		s.out.err = nil
		return
	}
	mode := fi.Mode().Perm()
	if suffix != "" {
		var bak string
		if strings.Contains(suffix, "*") {
			bak = strings.ReplaceAll(suffix, "*", path.Base(name))
			if !strings.Contains(bak, "/") {
				bak = path.Join(path.Dir(name), bak)
			}
		} else {
			bak = name + suffix
		}
		if err := env.FS.WriteFile(env.Ctx, env.Abs(bak), data, fs.FileMode(mode)); err != nil {
			fmt.Fprintf(env.Stderr, "sed: cannot rename %s: %s\n", name, Strerror(err))
			s.fatal = true
			return
		}
	}
	if err := env.FS.WriteFile(env.Ctx, abs, buf.Bytes(), mode); err != nil {
		fmt.Fprintf(env.Stderr, "sed: couldn't edit %s: %s\n", name, Strerror(err))
		s.fatal = true
	}
}

// limitedBuf fails writes past max bytes (0: no bound).
type limitedBuf struct {
	buf  *bytes.Buffer
	max  int64
	env  *Env
	held int64 // charged to env.Mem
}

func (l *limitedBuf) Write(p []byte) (int, error) {
	if l.max > 0 && int64(l.buf.Len()+len(p)) > l.max {
		return 0, ErrTooLarge
	}
	if need := 2 * int64(l.buf.Len()+len(p)); need > l.held {
		if err := l.env.Hold(need - l.held); err != nil {
			return 0, err
		}
		l.held = need
	}
	return l.buf.Write(p)
}

// release returns what the buffer was charged.
func (l *limitedBuf) release() {
	l.env.Release(l.held)
	l.held = 0
}
