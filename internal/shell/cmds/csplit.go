package cmds

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

func init() { Register("csplit", Csplit) }

// Csplit splits FILE ("-" for stdin) into xx00, xx01, ... at the lines
// PATTERNs select, as GNU csplit: N (up to line N), /REGEX/[OFFSET] (up to a
// matching line), %REGEX%[OFFSET] (skip to it), each optionally followed by
// {N} or {*} repeats. -f PREFIX, -b FORMAT (a printf format for the number),
// -n DIGITS, -s/-q (no byte counts), -k (keep the files on error), -z (no
// empty files) and --suppress-matched. It prints the size of each piece;
// on an error it removes the pieces unless -k, with GNU's messages and
// status 1. Regexes are POSIX BREs (back-references are not supported). The
// input is read a line at a time; only the lines a negative offset may still
// need are held (bounded by Limits.MaxReadBytes).
func Csplit(env *Env, args []string) (status int) {
	c := &csplitter{env: env, prefix: "xx", digits: 2}
	c.out = bufio.NewWriterSize(env.Stdout, 32<<10)
	defer spFinish(&status, func() {
		c.abandon() // "input disappeared" leaves the piece as it is
		if c.in != nil {
			c.in.Close()
		}
		c.out.Flush()
	})
	opts, operands, ok := parseOpts(env, "csplit", args[1:], optSpec{shorts: "f:b:kn:sqz",
		longs: []string{"digits=", "quiet", "silent", "keep-files", "elide-empty-files",
			"prefix=", "suffix-format=", "suppress-matched"}})
	if !ok {
		return 1
	}
	hasSuffix := false
	for _, o := range opts {
		switch o.name {
		case "f", "prefix":
			c.prefix = o.val
		case "b", "suffix-format":
			c.suffix, hasSuffix = o.val, true
		case "k", "keep-files":
			c.keep = true
		case "n", "digits":
			if v := strings.TrimLeft(o.val, " \t\n\v\f\r"); strings.HasPrefix(v, "-") {
				if _, e := spStrtoumax(v[1:], 10, ""); e == spOK {
					env.Errorf("csplit", "invalid number: %s: Numerical result out of range", quote(env, o.val))
					return 1
				}
			}
			c.digits = int(spXdecto(env, "csplit", o.val, 0, math.MaxInt32, "", "invalid number"))
		case "s", "q", "quiet", "silent":
			c.silent = true
		case "z", "elide-empty-files":
			c.elide = true
		case "suppress-matched":
			c.suppress = true
		}
	}
	if len(operands) < 2 {
		if len(operands) == 0 {
			tryHelp(env, "csplit", "missing operand")
		} else {
			tryHelp(env, "csplit", "missing operand after %s", quote(env, operands[len(operands)-1]))
		}
		return 1
	}
	if hasSuffix {
		if msg := csCheckSuffix(c.suffix); msg != "" {
			env.Errorf("csplit", "%s", msg)
			return 1
		}
	} else {
		c.suffix = "%0" + strconv.Itoa(c.digits) + "d"
	}
	c.args = operands
	if name := operands[0]; name == "-" {
		c.in = nopCloser{ctxReader{env, env.Stdin}}
	} else {
		r, err := openArg(env, name)
		if err != nil {
			env.Errorf("csplit", "cannot open %s for reading: %s", quoteaf(env, name), Strerror(err))
			return 1
		}
		c.in = r
	}
	c.lines = newLineReader(env, c.in, '\n')
	c.first = 1
	c.parsePatterns()
	c.splitFile()
	return 0
}

// csControl is one pattern.
type csControl struct {
	offset        int64 // lines after (or before) the match to split at
	linesRequired int64 // a line-number pattern
	repeat        int64 // {N}
	forever       bool  // {*}
	ignore        bool  // %REGEX%: skip the section
	isRegex       bool
	re            *regexp.Regexp
	arg           int // index of the pattern in args
}

// csplitter is one run of csplit.
type csplitter struct {
	env      *Env
	out      *bufio.Writer
	in       io.ReadCloser
	lines    *lineReader
	args     []string // FILE then the patterns
	controls []csControl
	prefix   string
	suffix   string
	digits   int
	keep     bool
	silent   bool
	elide    bool
	suppress bool
	// input lines read but not yet written: buf[0] is line number first
	buf     [][]byte
	held    int64
	first   int64
	eof     bool
	current int64 // GNU's current_line
	// output pieces
	created int
	written int64
	name    string
	spPiece
}

// die reports an error and exits with status 1, leaving the files alone.
func (c *csplitter) die(format string, a ...any) {
	c.env.Errorf("csplit", format, a...)
	panic(spExit(1))
}

// fatal closes the current piece, removes the pieces (unless -k) and exits
// with status 1.
func (c *csplitter) fatal() {
	if c.h != nil {
		c.closeOut()
	}
	c.deleteAll()
	panic(spExit(1))
}

// fatalf reports an error, then does what fatal does.
func (c *csplitter) fatalf(format string, a ...any) {
	c.env.Errorf("csplit", format, a...)
	c.fatal()
}

// load reads one more input line into the buffer; false at the end.
func (c *csplitter) load() bool {
	if c.eof {
		return false
	}
	line, err := c.lines.next()
	if err == io.EOF {
		c.eof = true
		return false
	}
	if err != nil {
		c.eof = true
		if isCanceled(c.env, err) {
			c.fatal()
		}
		c.fatalf("read error: %s", Strerror(err))
	}
	if err := c.env.Hold(int64(cap(line)) + 2*lineCost); err != nil {
		c.fatalf("read error: %s", Strerror(ErrTooLarge))
	}
	c.buf = append(c.buf, line)
	c.held += int64(len(line))
	if max := c.env.Limits.MaxReadBytes; max > 0 && c.held > max {
		c.fatalf("read error: %s", Strerror(ErrTooLarge))
	}
	return true
}

// find returns line n, reading as far as needed; nil past the end.
func (c *csplitter) find(n int64) []byte {
	if n < c.first {
		return nil
	}
	for n-c.first >= int64(len(c.buf)) {
		if !c.load() {
			return nil
		}
	}
	return c.buf[n-c.first]
}

// remove takes the first unwritten line off the buffer; nil at the end.
func (c *csplitter) remove() []byte {
	if c.env.Canceled() {
		c.fatal()
	}
	if len(c.buf) == 0 && !c.load() {
		return nil
	}
	if c.current < c.first {
		c.current = c.first
	}
	line := c.buf[0]
	c.buf[0] = nil
	c.buf = c.buf[1:]
	c.held -= int64(len(line))
	c.env.Release(int64(cap(line)) + 2*lineCost)
	c.first++
	return line
}

// firstLine is the number of the first unwritten line.
func (c *csplitter) firstLine() int64 {
	if len(c.buf) == 0 && !c.load() {
		c.die("input disappeared")
	}
	return c.first
}

func (c *csplitter) noMoreLines() bool { return c.find(c.current+1) == nil }

// makeName is the name of piece n.
func (c *csplitter) makeName(n int) string {
	return c.prefix + csFormat(c.suffix, n)
}

// create starts the next piece.
func (c *csplitter) create() {
	c.name = c.makeName(c.created)
	h, err := c.env.FS.OpenFile(c.env.Ctx, c.env.Abs(c.name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		c.fatalf("%s: %s", quotef(c.env, c.name), Strerror(err))
	}
	c.created++
	c.h, c.w = h, bufio.NewWriterSize(h, 64<<10)
	c.written = 0
}

// closeOut ends the current piece and prints its size (or removes it when
// empty with -z).
func (c *csplitter) closeOut() {
	if c.h == nil {
		return
	}
	if err := c.close(); err != nil {
		c.fatalf("%s: %s", quotef(c.env, c.name), Strerror(err))
	}
	if c.written == 0 && c.elide {
		c.created--
		if err := c.env.FS.Remove(c.env.Ctx, c.env.Abs(c.name)); err != nil && !fuIsNotExist(err) {
			c.env.Errorf("csplit", "%s: %s", quotef(c.env, c.name), Strerror(err))
		}
		return
	}
	if !c.silent {
		fmt.Fprintf(c.out, "%d\n", c.written)
	}
}

// save writes a line to the current piece.
func (c *csplitter) save(line []byte) {
	if _, err := c.w.Write(line); err != nil {
		c.h.Close()
		c.h = nil
		c.fatalf("write error for %s: %s", quoteaf(c.env, c.name), Strerror(err))
	}
	c.written += int64(len(line))
}

// deleteAll removes the pieces made so far, unless -k.
func (c *csplitter) deleteAll() {
	if c.keep {
		return
	}
	for i := c.created - 1; i >= 0; i-- {
		name := c.makeName(i)
		// Clean up even when the command was cancelled.
		if err := c.env.FS.Remove(context.WithoutCancel(c.env.Ctx), c.env.Abs(name)); err != nil && !fuIsNotExist(err) {
			c.env.Errorf("csplit", "%s: %s", quotef(c.env, name), Strerror(err))
		}
	}
	c.created = 0
}

// parsePatterns compiles the patterns (args[1:]).
func (c *csplitter) parsePatterns() {
	var lastVal uint64
	for i := 1; i < len(c.args); i++ {
		a := c.args[i]
		var p csControl
		p.arg = i
		if a != "" && (a[0] == '/' || a[0] == '%') {
			c.extractRegexp(&p, a)
		} else {
			v, e := spStrtoumax(a, 10, "")
			if e != spOK || v > math.MaxInt64 {
				c.die("%s: invalid pattern", quote(c.env, a))
			}
			if v == 0 {
				c.die("%s: line number must be greater than zero", a)
			}
			if v < lastVal {
				c.die("line number %s is smaller than preceding line number, %d", quote(c.env, a), lastVal)
			}
			if v == lastVal {
				c.env.Errorf("csplit", "warning: line number %s is the same as preceding line number", quote(c.env, a))
			}
			lastVal = v
			p.linesRequired = int64(v)
		}
		if i+1 < len(c.args) && strings.HasPrefix(c.args[i+1], "{") {
			i++
			r := c.args[i]
			if !strings.HasSuffix(r, "}") {
				c.die("%s: '}' is required in repeat count", quote(c.env, r))
			}
			inner := r[1 : len(r)-1]
			if len(r) < 2 {
				inner = ""
			}
			if inner == "*" {
				p.forever = true
			} else {
				v, e := spStrtoumax(inner, 10, "")
				if e != spOK || v > math.MaxInt64 {
					c.die("%s}: integer required between '{' and '}'", quote(c.env, r[:len(r)-1]))
				}
				p.repeat = int64(v)
			}
		}
		c.controls = append(c.controls, p)
	}
}

// extractRegexp parses /REGEX/[OFFSET] or %REGEX%[OFFSET].
func (c *csplitter) extractRegexp(p *csControl, a string) {
	delim := a[0]
	end := strings.LastIndexByte(a[1:], delim)
	if end < 0 {
		c.die("%s: closing delimiter '%c' missing", a, delim)
	}
	end++
	p.isRegex = true
	p.ignore = delim == '%'
	re, err := csCompile(a[1:end])
	if err != nil {
		c.fatalf("%s: invalid regular expression: %s", quote(c.env, a), err)
	}
	p.re = re
	if rest := a[end+1:]; rest != "" {
		off, ok := csOffset(rest)
		if !ok {
			c.die("%s: integer expected after delimiter", quote(c.env, a))
		}
		p.offset = off
	}
}

// csCompile translates a GNU BRE to a Go regexp.
func csCompile(pat string) (*regexp.Regexp, error) {
	g, err := grepTranslate(pat, false, func(string) {})
	if err != nil {
		if errors.Is(err, errGrepBackref) {
			return nil, errors.New("back-references are not supported by the shell backend's csplit")
		}
		if strings.HasPrefix(err.Error(), "Unmatched [") {
			// glibc: a bracket expression cut off right after its '[' (or
			// "[^") is REG_BADPAT, a longer one REG_EBRACK.
			if i := strings.LastIndexByte(pat, '['); i >= 0 && (pat[i+1:] == "" || pat[i+1:] == "^") {
				return nil, gnuMessage("Invalid regular expression")
			}
		}
		return nil, err
	}
	re, err := compileRegexp(g)
	var se *syntax.Error
	if errors.As(err, &se) && se.Code == syntax.ErrInvalidRepeatOp {
		// POSIX reads "a**" or "a*\{2\}" as a repeat of a repeat.
		re, err = compileRegexp(csNestRepeats(g))
	}
	if err != nil {
		if errors.As(err, &se) {
			if se.Code == syntax.ErrInvalidRepeatSize {
				return nil, gnuMessage(`Invalid content of \{\}`)
			}
			return nil, errors.New(string(se.Code))
		}
		return nil, err
	}
	return re, nil
}

// csRepeat matches an interval quantifier of Go syntax.
var csRepeat = regexp.MustCompile(`^\{[0-9]+(,[0-9]*)?\}`)

// csNestRepeats rewrites a Go regexp so that a quantifier applied to a
// quantified atom ("a**", "a*{2}") applies to a group of it ("(?:a*)*"),
// which Go accepts.
func csNestRepeats(g string) string {
	var out []byte
	var groups []int
	atom := -1 // where the last atom starts in out; -1 when there is none
	quantified := false
	for i := 0; i < len(g); {
		c := g[i]
		switch {
		case c == '\\':
			n := 2
			if i+2 < len(g) && strings.IndexByte("xpP", g[i+1]) >= 0 {
				switch {
				case g[i+2] == '{':
					if e := strings.IndexByte(g[i:], '}'); e > 0 {
						n = e + 1
					}
				case g[i+1] == 'x':
					n = 4
				default:
					n = 3
				}
			}
			n = min(n, len(g)-i)
			atom, quantified = len(out), false
			out = append(out, g[i:i+n]...)
			i += n
		case c == '[':
			j := csClassEnd(g, i)
			atom, quantified = len(out), false
			out = append(out, g[i:j]...)
			i = j
		case c == '(':
			groups = append(groups, len(out))
			out = append(out, c)
			i++
			if i < len(g) && g[i] == '?' {
				for i < len(g) && g[i] != ':' && g[i] != ')' {
					out = append(out, g[i])
					i++
				}
				if i < len(g) && g[i] == ':' {
					out = append(out, ':')
					i++
				}
			}
			atom, quantified = -1, false
		case c == ')':
			start := -1
			if len(groups) > 0 {
				start = groups[len(groups)-1]
				groups = groups[:len(groups)-1]
			}
			out = append(out, c)
			i++
			atom, quantified = start, false
		case c == '|':
			out = append(out, c)
			i++
			atom, quantified = -1, false
		case c == '*' || c == '+' || c == '?' || c == '{' && csRepeat.MatchString(g[i:]):
			n := 1
			if c == '{' {
				n = strings.IndexByte(g[i:], '}') + 1
			}
			if quantified && atom >= 0 {
				inner := append([]byte("(?:"), out[atom:]...)
				out = append(append(out[:atom], inner...), ')')
			}
			out = append(out, g[i:i+n]...)
			i += n
			quantified = true
		default:
			_, n := utf8.DecodeRuneInString(g[i:])
			atom, quantified = len(out), false
			out = append(out, g[i:i+n]...)
			i += n
		}
	}
	return string(out)
}

// csClassEnd returns the index just past the bracket expression of Go
// syntax starting at g[i] == '['.
func csClassEnd(g string, i int) int {
	j := i + 1
	if j < len(g) && g[j] == '^' {
		j++
	}
	if j < len(g) && g[j] == ']' {
		j++
	}
	for j < len(g) {
		switch {
		case g[j] == '\\':
			j += 2
		case g[j] == '[' && j+1 < len(g) && g[j+1] == ':':
			if e := strings.Index(g[j:], ":]"); e > 0 {
				j += e + 2
			} else {
				j++
			}
		case g[j] == ']':
			return j + 1
		default:
			j++
		}
	}
	return len(g)
}

// csOffset parses a signed decimal offset as xstrtoimax does.
func csOffset(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" || strings.TrimLeft(t, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// csCheckSuffix validates a -b format as GNU does; it returns the
// diagnostic, or "".
func csCheckSuffix(f string) string {
	percent := false
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		if percent {
			return "too many % conversion specifications in suffix"
		}
		percent = true
		thousands, alt := false, false
	flags:
		for ; i < len(f); i++ {
			switch f[i] {
			case '-', '0':
			case '\'':
				thousands = true
			case '#':
				alt = true
			default:
				break flags
			}
		}
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		if i < len(f) && f[i] == '.' {
			i++
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
			}
		}
		if i >= len(f) {
			return "missing conversion specifier in suffix"
		}
		ch := f[i]
		badAlt, badThousands := alt, false
		switch ch {
		case 'd', 'i', 'u':
		case 'o', 'x', 'X':
			badAlt, badThousands = false, thousands
		default:
			if ch >= 0x20 && ch < 0x7f {
				return fmt.Sprintf("invalid conversion specifier in suffix: %c", ch)
			}
			return fmt.Sprintf("invalid conversion specifier in suffix: \\%03o", ch)
		}
		if badAlt {
			return fmt.Sprintf("invalid flags in conversion specification: %%#%c", ch)
		}
		if badThousands {
			return fmt.Sprintf("invalid flags in conversion specification: %%'%c", ch)
		}
	}
	if !percent {
		return "missing % conversion specification in suffix"
	}
	return ""
}

// csFormat applies a checked -b format (or "%0Nd") to n as C's printf.
func csFormat(f string, n int) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		j := i + 1
		flags := ""
		alt := false
		for ; j < len(f) && strings.IndexByte("-0'#", f[j]) >= 0; j++ {
			switch f[j] {
			case '#':
				alt = true
			case '-', '0':
				flags += string(f[j])
			}
		}
		k := j
		for k < len(f) && (f[k] >= '0' && f[k] <= '9' || f[k] == '.') {
			k++
		}
		conv := f[k]
		switch conv {
		case 'i', 'u':
			conv = 'd'
		case 'o':
			if alt {
				flags += "#"
			}
		case 'x', 'X':
			if alt && n != 0 { // C prints no 0x for zero
				flags += "#"
			}
		}
		fmt.Fprintf(&b, "%"+flags+f[j:k]+string(conv), n)
		i = k
	}
	return b.String()
}

// splitFile runs the patterns, then writes the rest to the last piece.
func (c *csplitter) splitFile() {
	for i := range c.controls {
		p := &c.controls[i]
		for j := int64(0); p.forever || j <= p.repeat; j++ {
			if p.isRegex {
				c.processRegexp(p, j)
			} else {
				c.processLineCount(p, j)
			}
		}
	}
	c.create()
	c.dumpRest()
	c.closeOut()
}

func (c *csplitter) dumpRest() {
	for line := c.remove(); line != nil; line = c.remove() {
		c.save(line)
	}
}

// lineError is GNU's handle_line_error: a line number past the end.
func (c *csplitter) lineError(p *csControl, rep int64) {
	msg := fmt.Sprintf("%s: line number out of range", quote(c.env, strconv.FormatInt(p.linesRequired, 10)))
	if rep != 0 {
		msg += fmt.Sprintf(" on repetition %d", rep)
	}
	c.fatalf("%s", msg)
}

// processLineCount writes the lines before line linesRequired*(rep+1).
func (c *csplitter) processLineCount(p *csControl, rep int64) {
	last := p.linesRequired * (rep + 1)
	if p.linesRequired != 0 && last/p.linesRequired != rep+1 {
		last = math.MaxInt64
	}
	c.create()
	if c.suppress && c.noMoreLines() {
		c.lineError(p, rep)
	}
	for n := c.firstLine(); n < last; n++ {
		line := c.remove()
		if line == nil {
			c.lineError(p, rep)
		}
		c.save(line)
	}
	c.closeOut()
	if c.suppress {
		c.remove()
	}
	if !c.suppress && c.noMoreLines() {
		c.lineError(p, rep)
	}
}

// regexpError is GNU's regexp_error: no line matched.
func (c *csplitter) regexpError(p *csControl, rep int64) {
	msg := fmt.Sprintf("%s: match not found", quote(c.env, c.args[p.arg]))
	if rep != 0 {
		msg += fmt.Sprintf(" on repetition %d", rep)
	}
	c.env.Errorf("csplit", "%s", msg)
	if !p.ignore {
		c.dumpRest()
		c.closeOut()
	}
	c.fatal()
}

// matches runs a regex pattern on a line without its newline.
func (p *csControl) matches(line []byte) bool {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	return p.re.Match(line)
}

// processRegexp writes (or, for %REGEX%, skips) the lines up to the next
// match, moved by the offset.
func (c *csplitter) processRegexp(p *csControl, rep int64) {
	if !p.ignore {
		c.create()
	}
	atEnd := func() {
		if p.forever {
			if !p.ignore {
				c.dumpRest()
				c.closeOut()
			}
			panic(spExit(0))
		}
		c.regexpError(p, rep)
	}
	for {
		c.current++
		line := c.find(c.current)
		if line == nil {
			atEnd()
		}
		if c.env.Canceled() {
			c.fatal()
		}
		if p.matches(line) {
			break
		}
		if p.offset >= 0 {
			line = c.remove()
			if !p.ignore {
				c.save(line)
			}
		}
	}
	breakLine := c.current + p.offset
	c.writeTo(breakLine, p.ignore, p.arg)
	if !p.ignore {
		c.closeOut()
	}
	if p.offset > 0 {
		c.current = breakLine
	}
	if c.suppress {
		c.remove()
	}
}

// writeTo writes (unless ignore) the lines before line last.
func (c *csplitter) writeTo(last int64, ignore bool, arg int) {
	first := c.firstLine()
	if first > last {
		c.fatalf("%s: line number out of range", quote(c.env, c.args[arg]))
	}
	for i := int64(0); i < last-first; i++ {
		line := c.remove()
		if line == nil {
			c.fatalf("%s: line number out of range", quote(c.env, c.args[arg]))
		}
		if !ignore {
			c.save(line)
		}
	}
}
