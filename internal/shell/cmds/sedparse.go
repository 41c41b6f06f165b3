package cmds

// Script parsing for sed: addresses, commands, s/// and y/// arguments,
// a/i/c text, labels and blocks, with GNU sed's diagnostics.

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// errSedBackref is reported for back-references in a regex, which RE2 cannot
// express.
var errSedBackref = errors.New("back-references (\\1 ... \\9) in a regex are not supported by the shell backend's sed")

const (
	sedAddrLine = iota + 1 // n
	sedAddrLast            // $
	sedAddrRE              // /re/
	sedAddrStep            // first~step
	sedAddrPlus            // addr1,+N
	sedAddrMult            // addr1,~N
	sedAddrZero            // 0 (only as 0,/re/)
)

type sedAddr struct {
	kind    int
	n, step int
	re      *regexp.Regexp // nil with sedAddrRE: the last regex used
}

type sedReplPart struct {
	lit string
	ref int  // -1: literal; 0: &; 1..9: group
	cas byte // 'U', 'L', 'u', 'l', 'E' or 0
}

type sedCmd struct {
	a1, a2 *sedAddr
	neg    bool
	name   byte

	// range state
	active   bool
	rangeEnd int

	// s
	re     *regexp.Regexp
	repl   []sedReplPart
	global bool
	nth    int
	print  int

	text  string        // a i c (with its final newline), r file name
	wfile string        // w W file name, s's w flag
	label string        // : b t T
	jump  int           // b t T target (index; len(cmds) = end of script); { its }
	num   int           // q Q exit status, l line length (-1: default)
	ymap  map[rune]rune // y
}

type sedProg struct {
	cmds   []*sedCmd
	blocks []int // open { commands
	ere    bool
	quiet  bool // "#n" first line
	hadRE  bool // a regex was compiled (for the empty regex)
	// fileMode: errors are "file F line N:" rather than "-e expression #N, char C:".
}

// sedError is a script error, printed as "sed: -e expression #1, char 3: msg".
type sedError struct{ msg string }

func (e *sedError) Error() string { return e.msg }

type sedParser struct {
	prog  *sedProg
	src   string
	pos   int
	expr  int    // expression number (-e); 0 for a file
	file  string // script file name
	first bool   // the first chunk of the script (for "#n")
}

const sedEOF = -1

func (p *sedParser) errf(format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if p.file != "" {
		line := 1 + strings.Count(p.src[:p.pos], "\n")
		if p.pos > 0 && p.src[p.pos-1] == '\n' {
			line--
		}
		return &sedError{fmt.Sprintf("file %s line %d: %s", p.file, line, msg)}
	}
	return &sedError{fmt.Sprintf("-e expression #%d, char %d: %s", p.expr, p.pos, msg)}
}

func (p *sedParser) next() int {
	if p.pos >= len(p.src) {
		return sedEOF
	}
	c := p.src[p.pos]
	p.pos++
	return int(c)
}

func (p *sedParser) back(c int) {
	if c != sedEOF {
		p.pos--
	}
}

func (p *sedParser) peek() int {
	if p.pos >= len(p.src) {
		return sedEOF
	}
	return int(p.src[p.pos])
}

func (p *sedParser) skipWS() int {
	for {
		c := p.next()
		if c != ' ' && c != '\t' {
			return c
		}
	}
}

// parse parses one chunk of script into p.prog.
func (p *sedParser) parse() error {
	if p.first && (p.src == "#n" || strings.HasPrefix(p.src, "#n\n")) {
		p.prog.quiet = true
	}
	for {
		c := p.skipWS()
		for c == ';' || c == '\n' || c == ' ' || c == '\t' {
			c = p.skipWS()
		}
		if c == sedEOF {
			return nil
		}
		if c == '#' {
			for c != '\n' && c != sedEOF {
				c = p.next()
			}
			continue
		}
		cmd := &sedCmd{num: -1}
		p.back(c)
		a1, err := p.address()
		if err != nil {
			return err
		}
		if a1 != nil {
			cmd.a1 = a1
			c = p.skipWS()
			if c == ',' {
				c = p.skipWS()
				p.back(c)
				a2, err := p.address2()
				if err != nil {
					return err
				}
				if a2 == nil {
					return p.errf("unexpected `,'")
				}
				cmd.a2 = a2
			} else {
				p.back(c)
			}
		}
		c = p.skipWS()
		if c == '!' {
			cmd.neg = true
			c = p.skipWS()
			if c == '!' {
				return p.errf("multiple `!'s")
			}
		}
		if c == sedEOF || c == '\n' || c == ';' {
			return p.errf("missing command")
		}
		cmd.name = byte(c)
		if cmd.a1 != nil && cmd.a1.kind == sedAddrZero && (cmd.a2 == nil || cmd.a2.kind != sedAddrRE) {
			return p.errf("invalid usage of line address 0")
		}
		if err := p.command(cmd); err != nil {
			return err
		}
	}
}

func (p *sedParser) number() int {
	n := 0
	for {
		c := p.peek()
		if c < '0' || c > '9' {
			return n
		}
		p.pos++
		if n < 1<<40 {
			n = n*10 + c - '0'
		}
	}
}

func (p *sedParser) address() (*sedAddr, error) {
	c := p.peek()
	switch {
	case c >= '0' && c <= '9':
		n := p.number()
		if p.peek() == '~' {
			p.pos++
			step := p.number()
			return &sedAddr{kind: sedAddrStep, n: n, step: step}, nil
		}
		if n == 0 {
			return &sedAddr{kind: sedAddrZero}, nil
		}
		return &sedAddr{kind: sedAddrLine, n: n}, nil
	case c == '$':
		p.pos++
		return &sedAddr{kind: sedAddrLast}, nil
	case c == '/' || c == '\\':
		p.pos++
		delim := c
		if c == '\\' {
			delim = p.next()
			if delim == sedEOF || delim == '\n' || delim == '\\' {
				return nil, p.errf("unexpected `,'")
			}
		}
		raw, ok := p.slash(byte(delim), true)
		if !ok {
			return nil, p.errf("unterminated address regex")
		}
		icase, multi := false, false
		for {
			f := p.peek()
			if f == 'I' {
				icase = true
			} else if f == 'M' {
				multi = true
			} else {
				break
			}
			p.pos++
		}
		re, err := p.compile(raw, icase, multi)
		if err != nil {
			return nil, err
		}
		return &sedAddr{kind: sedAddrRE, re: re}, nil
	}
	return nil, nil
}

func (p *sedParser) address2() (*sedAddr, error) {
	c := p.peek()
	if c == '+' || c == '~' {
		p.pos++
		if d := p.peek(); d < '0' || d > '9' {
			return nil, p.errf("expected newer version of sed")
		}
		n := p.number()
		if c == '+' {
			return &sedAddr{kind: sedAddrPlus, n: n}, nil
		}
		return &sedAddr{kind: sedAddrMult, n: n}, nil
	}
	a, err := p.address()
	if a != nil && a.kind == sedAddrZero {
		return nil, p.errf("invalid usage of line address 0")
	}
	if a != nil && a.kind == sedAddrStep {
		// GNU takes addr2 "n~m" as the line n.
		a = &sedAddr{kind: sedAddrLine, n: a.n}
	}
	return a, err
}

// slash reads up to the unescaped delimiter. "\delim" becomes delim; in a
// regex "\n" stays for the regex translation; in text (regex false) "\n"
// becomes a newline and "\\" stays escaped for the caller.
func (p *sedParser) slash(delim byte, regex bool) (string, bool) {
	var b strings.Builder
	for {
		c := p.next()
		switch {
		case c == sedEOF:
			return "", false
		case c == int(delim):
			return b.String(), true
		case c == '\n':
			p.back(c) // GNU does not count the newline in the position
			return "", false
		case c == '\\':
			d := p.next()
			switch {
			case d == sedEOF:
				return "", false
			case d == int(delim):
				b.WriteByte(delim)
			case d == '\n' && regex:
				b.WriteString(`\n`)
			default:
				b.WriteByte('\\')
				b.WriteByte(byte(d))
			}
		default:
			b.WriteByte(byte(c))
		}
	}
}

// compile translates and compiles a regex of the script; "" is the last regex.
func (p *sedParser) compile(raw string, icase, multi bool) (*regexp.Regexp, error) {
	if raw == "" {
		if !p.prog.hadRE {
			save := p.pos
			p.pos = 0
			err := p.errf("no previous regular expression")
			p.pos = save
			return nil, err
		}
		return nil, nil
	}
	p.prog.hadRE = true
	re, err := sedCompileRE(raw, p.prog.ere, icase, multi)
	if err != nil {
		if errors.Is(err, errSedBackref) {
			return nil, p.errf("%v", err)
		}
		return nil, p.errf("%s", err.Error())
	}
	return re, nil
}

// sedCompileRE turns a sed BRE (or ERE) into a Go regexp.
func sedCompileRE(raw string, ere, icase, multi bool) (*regexp.Regexp, error) {
	// \n and \t become the characters before the translation.
	var pre strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			switch raw[i+1] {
			case 'n':
				pre.WriteByte('\n')
			case 't':
				pre.WriteByte('\t')
			default:
				pre.WriteByte('\\')
				pre.WriteByte(raw[i+1])
			}
			i++
			continue
		}
		pre.WriteByte(raw[i])
	}
	g, err := grepTranslate(pre.String(), ere, func(string) {})
	if err != nil {
		if errors.Is(err, errGrepBackref) {
			return nil, errSedBackref
		}
		return nil, err
	}
	// Escaped control characters (from bracket expressions) are not valid Go
	// escapes: rewrite them as \x{..}.
	var b strings.Builder
	flags := "(?s"
	if icase {
		flags += "i"
	}
	if multi {
		flags += "m"
	}
	b.WriteString(flags + ")")
	writeGoEscapes(&b, g)
	return compileRegexp(b.String())
}

// endCmd checks that nothing but blanks follow a command.
func (p *sedParser) endCmd() error {
	c := p.skipWS()
	switch c {
	case sedEOF, '\n', ';':
		return nil
	case '}', '#':
		p.back(c)
		return nil
	}
	return p.errf("extra characters after command")
}

func (p *sedParser) readLabel() string {
	c := p.skipWS()
	var b strings.Builder
	for c != sedEOF && c != '\n' && c != ';' && c != ' ' && c != '\t' {
		b.WriteByte(byte(c))
		c = p.next()
	}
	p.back(c)
	return b.String()
}

// readText reads the text of a, i and c (GNU one-line and classic forms).
func (p *sedParser) readText() (string, error) {
	c := p.skipWS()
	if c == sedEOF {
		return "", p.errf("expected \\ after `a', `c' or `i'")
	}
	if c == '\\' {
		c = p.next()
		if c == '\n' {
			c = p.next()
		} else if c == sedEOF {
			return "\n", nil
		}
	}
	var b strings.Builder
	for c != sedEOF && c != '\n' {
		if c == '\\' {
			d := p.next()
			switch d {
			case sedEOF:
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(byte(d))
			}
			c = p.next()
			continue
		}
		b.WriteByte(byte(c))
		c = p.next()
	}
	b.WriteByte('\n')
	return b.String(), nil
}

func (p *sedParser) command(cmd *sedCmd) error {
	prog := p.prog
	oneAddr := func() error {
		if cmd.a2 != nil {
			return p.errf("command only uses one address")
		}
		return nil
	}
	switch cmd.name {
	case '{':
		prog.blocks = append(prog.blocks, len(prog.cmds))
		prog.cmds = append(prog.cmds, cmd)
		return nil
	case '}':
		if cmd.a1 != nil {
			return p.errf("unexpected `,'")
		}
		if len(prog.blocks) == 0 {
			return p.errf("unexpected `}'")
		}
		open := prog.blocks[len(prog.blocks)-1]
		prog.blocks = prog.blocks[:len(prog.blocks)-1]
		prog.cmds[open].jump = len(prog.cmds)
		prog.cmds = append(prog.cmds, cmd)
		return p.endCmd()
	case ':':
		if cmd.a1 != nil {
			return p.errf(": doesn't want any addresses")
		}
		cmd.label = p.readLabel()
		if cmd.label == "" {
			return p.errf("\":\" lacks a label")
		}
		prog.cmds = append(prog.cmds, cmd)
		return p.endCmd()
	case 'b', 't', 'T':
		cmd.label = p.readLabel()
		prog.cmds = append(prog.cmds, cmd)
		return p.endCmd()
	case 'a', 'i', 'c':
		t, err := p.readText()
		if err != nil {
			return err
		}
		cmd.text = t
		prog.cmds = append(prog.cmds, cmd)
		return nil
	case 'q', 'Q', 'l', 'L':
		if cmd.name == 'q' || cmd.name == 'Q' {
			if err := oneAddr(); err != nil {
				return err
			}
		}
		c := p.skipWS()
		p.back(c)
		if c >= '0' && c <= '9' {
			cmd.num = p.number()
		}
		prog.cmds = append(prog.cmds, cmd)
		return p.endCmd()
	case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		prog.cmds = append(prog.cmds, cmd)
		return p.endCmd()
	case 'r', 'R':
		c := p.skipWS()
		var b strings.Builder
		for c != sedEOF && c != '\n' {
			b.WriteByte(byte(c))
			c = p.next()
		}
		if b.Len() == 0 {
			return p.errf("expected a file name")
		}
		cmd.text = b.String()
		cmd.name = 'r'
		prog.cmds = append(prog.cmds, cmd)
		return nil
	case 's':
		return p.subst(cmd)
	case 'y':
		return p.ycmd(cmd)
	case 'w', 'W':
		name, err := p.fileName()
		if err != nil {
			return err
		}
		cmd.wfile = name
		prog.cmds = append(prog.cmds, cmd)
		return nil
	case 'e':
		return p.errf("the `%c' command is not supported by the shell backend's sed", cmd.name)
	}
	return p.errf("unknown command: `%c'", cmd.name)
}

// fileName reads the file name of w, W and s///w: the rest of the line
// after blanks.
func (p *sedParser) fileName() (string, error) {
	c := p.skipWS()
	var b strings.Builder
	for c != sedEOF && c != '\n' {
		b.WriteByte(byte(c))
		c = p.next()
	}
	if b.Len() == 0 {
		return "", p.errf("missing filename in r/R/w/W commands")
	}
	return b.String(), nil
}

// operands reads the two operands of an s or y command (name): a
// delimiter, then two parts each ended by it (the first read as a regex
// when regex is set, the second always as text).
func (p *sedParser) operands(name byte, regex bool) (string, string, error) {
	unterminated := func() error { return p.errf("unterminated `%c' command", name) }
	delim := p.next()
	if delim == sedEOF || delim == '\n' || delim == '\\' {
		return "", "", unterminated()
	}
	first, ok := p.slash(byte(delim), regex)
	if !ok {
		return "", "", unterminated()
	}
	second, ok := p.slash(byte(delim), false)
	if !ok {
		return "", "", unterminated()
	}
	return first, second, nil
}

func (p *sedParser) subst(cmd *sedCmd) error {
	raw, rhs, err := p.operands('s', true)
	if err != nil {
		return err
	}
	icase, multi := false, false
	for done := false; !done; {
		c := p.next()
		switch {
		case c == 'g':
			if cmd.global {
				return p.errf("multiple `g' options to `s' command")
			}
			cmd.global = true
		case c == 'p':
			if cmd.print > 0 {
				return p.errf("multiple `p' options to `s' command")
			}
			cmd.print = 1
		case c >= '0' && c <= '9':
			if cmd.nth > 0 {
				return p.errf("multiple number options to `s' command")
			}
			p.back(c)
			cmd.nth = p.number()
			if cmd.nth == 0 {
				return p.errf("number option to `s' command may not be zero")
			}
		case c == 'i' || c == 'I':
			icase = true
		case c == 'm' || c == 'M':
			multi = true
		case c == 'w':
			name, err := p.fileName()
			if err != nil {
				return err
			}
			cmd.wfile = name
			done = true
		case c == 'e':
			return p.errf("the `%c' flag of `s' is not supported by the shell backend's sed", c)
		case c == sedEOF || c == '\n' || c == ';':
			done = true
		case c == '}' || c == '#':
			p.back(c)
			done = true
		case c == ' ' || c == '\t':
			if err := p.endCmd(); err != nil {
				return err
			}
			done = true
		default:
			return p.errf("unknown option to `s'")
		}
	}
	if cmd.nth == 0 {
		cmd.nth = 1
	}
	re, err := p.compile(raw, icase, multi)
	if err != nil {
		return err
	}
	cmd.re = re
	parts, maxRef := sedParseRepl(rhs)
	if re != nil && maxRef > re.NumSubexp() {
		return p.errf("invalid reference \\%d on `s' command's RHS", maxRef)
	}
	cmd.repl = parts
	p.prog.cmds = append(p.prog.cmds, cmd)
	return nil
}

// sedParseRepl parses the replacement of s (delimiters already removed).
func sedParseRepl(s string) ([]sedReplPart, int) {
	var parts []sedReplPart
	var lit strings.Builder
	maxRef := 0
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, sedReplPart{lit: lit.String(), ref: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&':
			flush()
			parts = append(parts, sedReplPart{ref: 0})
		case c == '\\' && i+1 < len(s):
			i++
			d := s[i]
			switch {
			case d >= '0' && d <= '9':
				flush()
				parts = append(parts, sedReplPart{ref: int(d - '0')})
				if int(d-'0') > maxRef {
					maxRef = int(d - '0')
				}
			case d == 'n':
				lit.WriteByte('\n')
			case d == 't':
				lit.WriteByte('\t')
			case d == 'r':
				lit.WriteByte('\r')
			case d == 'U' || d == 'L' || d == 'u' || d == 'l' || d == 'E':
				flush()
				parts = append(parts, sedReplPart{ref: -1, cas: d})
			default:
				lit.WriteByte(d)
			}
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts, maxRef
}

func (p *sedParser) ycmd(cmd *sedCmd) error {
	src, dst, err := p.operands('y', false)
	if err != nil {
		return err
	}
	unesc := func(s string) []rune {
		var out []rune
		for i := 0; i < len(s); {
			if s[i] == '\\' && i+1 < len(s) {
				switch s[i+1] {
				case 'n':
					out = append(out, '\n')
				case 't':
					out = append(out, '\t')
				default:
					out = append(out, rune(s[i+1]))
				}
				i += 2
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			out = append(out, r)
			i += n
		}
		return out
	}
	a, b := unesc(src), unesc(dst)
	if len(a) != len(b) {
		return p.errf("strings for `y' command are different lengths")
	}
	cmd.ymap = map[rune]rune{}
	for i, r := range a {
		if _, dup := cmd.ymap[r]; !dup {
			cmd.ymap[r] = b[i]
		}
	}
	p.prog.cmds = append(p.prog.cmds, cmd)
	return p.endCmd()
}

// resolve checks blocks and labels once every chunk is parsed.
func (prog *sedProg) resolve(lastWhere string) error {
	if len(prog.blocks) > 0 {
		return &sedError{lastWhere + ", char 0: unmatched `{'"}
	}
	labels := map[string]int{}
	for i, c := range prog.cmds {
		if c.name == ':' {
			if _, dup := labels[c.label]; dup {
				return &sedError{fmt.Sprintf("-e expression #1, char 0: duplicate label `%s'", c.label)}
			}
			labels[c.label] = i
		}
	}
	for _, c := range prog.cmds {
		if c.name == 'b' || c.name == 't' || c.name == 'T' {
			if c.label == "" {
				c.jump = len(prog.cmds)
				continue
			}
			j, ok := labels[c.label]
			if !ok {
				return &sedError{"\x00can't find label for jump to `" + c.label + "'"}
			}
			c.jump = j
		}
	}
	return nil
}

// writeGoEscapes writes g, an RE2 expression from grepTranslate, to b with
// its escaped control characters (from bracket expressions), which are not
// valid Go escapes, rewritten as \x{..}. sed and expr compile with it.
func writeGoEscapes(b *strings.Builder, g string) {
	for i := 0; i < len(g); i++ {
		if g[i] == '\\' && i+1 < len(g) {
			d := g[i+1]
			if d < 0x80 && !(d >= '!' && d <= '~') {
				fmt.Fprintf(b, `\x{%x}`, d)
			} else {
				b.WriteByte('\\')
				b.WriteByte(d)
			}
			i++
			continue
		}
		b.WriteByte(g[i])
	}
}
