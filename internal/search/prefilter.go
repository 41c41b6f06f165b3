package search

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// Prefilter finds the lines of a text that may match an expression without
// running the expression on every line: it holds a literal that every
// match contains (the longest one the expression requires), found over a
// whole block of lines with bytes.Index (memchr-like speed), so the
// expression runs only on the lines holding it. A literal matched
// case-insensitively is found the same way in an ASCII-lowered copy of the
// block, when folding it cannot reach a non-ASCII character (every ASCII
// letter but k and s, whose folds include the Kelvin sign and the long s).
//
// A Prefilter holds a scratch buffer for the lowered copy: one per
// goroutine.
type Prefilter struct {
	lit     []byte // lowered when fold
	fold    bool
	exact   bool // a line holding lit matches: the expression is lit alone
	scratch []byte
}

// NewPrefilter returns the prefilter of expr (RE2 syntax with Perl flags,
// as regexp.Compile takes it), or nil when expr requires no literal it can
// use (alternatives, classes only, a fold reaching non-ASCII, a literal
// holding a newline, a syntax error).
func NewPrefilter(expr string) *Prefilter {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	lit, fold := required(re)
	if len(lit) == 0 {
		return nil
	}
	p := &Prefilter{fold: fold}
	for _, r := range lit {
		if r == '\n' || fold && !asciiFoldOnly(r) {
			return nil
		}
		if fold {
			r = unicode.ToLower(r)
		}
		p.lit = utf8.AppendRune(p.lit, r)
	}
	top := re
	for top.Op == syntax.OpCapture {
		top = top.Sub[0]
	}
	p.exact = top.Op == syntax.OpLiteral
	return p
}

// Exact reports whether every line holding the literal matches the
// expression (the expression is the literal alone), so that a caller that
// only selects lines need not run it.
func (p *Prefilter) Exact() bool { return p.exact }

// required returns a literal that every match of re contains, and whether
// it is matched case-insensitively; nil if none is known.
func required(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// The longest; one matched exactly before one folded.
		var best []rune
		bestFold := false
		for _, s := range re.Sub {
			lit, fold := required(s)
			if len(lit) == 0 {
				continue
			}
			if best == nil || bestFold && !fold || bestFold == fold && len(lit) > len(best) {
				best, bestFold = lit, fold
			}
		}
		return best, bestFold
	}
	return nil, false
}

// asciiFoldOnly reports whether r and every rune it folds to are ASCII.
func asciiFoldOnly(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Text returns the text to look for the literal in: block, or its
// ASCII-lowered copy for a literal matched case-insensitively (valid until
// the next call).
func (p *Prefilter) Text(block []byte) []byte {
	if !p.fold {
		return block
	}
	p.scratch = lowerASCII(p.scratch[:0], block)
	return p.scratch
}

// Index returns the offset of the first occurrence of the literal in
// text[from:] (text from Text), relative to text, or -1.
func (p *Prefilter) Index(text []byte, from int) int {
	if from >= len(text) {
		return -1
	}
	i := bytes.Index(text[from:], p.lit)
	if i < 0 {
		return -1
	}
	return from + i
}

// Lines calls yield with the start and end (before its delimiter) of each
// line of block that holds the literal, in order, until yield returns
// false. Lines are delimited by delim; block need not end with one.
func (p *Prefilter) Lines(block []byte, delim byte, yield func(start, end int) bool) {
	text := p.Text(block)
	for at := 0; at < len(text); {
		i := bytes.Index(text[at:], p.lit)
		if i < 0 {
			return
		}
		i += at
		start := bytes.LastIndexByte(text[at:i], delim) + 1 + at // at starts a line
		end := bytes.IndexByte(text[i:], delim)
		if end < 0 {
			end = len(text)
		} else {
			end += i
		}
		if !yield(start, end) {
			return
		}
		at = end + 1
	}
}

// lowerASCII appends b to dst with the ASCII capitals lowered, eight bytes
// at a time.
func lowerASCII(dst, b []byte) []byte {
	n := len(dst)
	dst = append(dst, b...)
	out := dst[n:]
	const ones = 0x0101010101010101
	i := 0
	for ; i+8 <= len(out); i += 8 {
		x := binary.LittleEndian.Uint64(out[i:])
		h := x & (0x7f * ones)
		ge := h + (0x80-'A')*ones   // high bit: the byte is >= 'A'
		gt := h + (0x80-'Z'-1)*ones // high bit: the byte is > 'Z'
		upper := ge &^ gt &^ x & (0x80 * ones)
		binary.LittleEndian.PutUint64(out[i:], x|upper>>2)
	}
	for ; i < len(out); i++ {
		if c := out[i]; 'A' <= c && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return dst
}
