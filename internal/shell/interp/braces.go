package interp

import (
	"math"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Brace expansion. A command's words are counted before any of them is
// expanded (checkBraces): the words their brace expansions make (a product
// over the groups of a word, a sum over the alternatives of a group and
// over the words of the command; a sequence counts its elements) against
// Limits.MaxBraceWords, and the bytes of their literal text (each sequence
// element as wide as its widest endpoint, an expansion counting nothing)
// against Limits.MaxStringBytes. The count is exact: it is what
// expandBraces makes.

// braceSize is what a brace expansion makes: words, and the bytes of their
// literal text.
type braceSize struct{ words, bytes int64 }

// maxBraceSize saturates the arithmetic: far above any limit.
const maxBraceSize = math.MaxInt64 / 4

// costBraceWord is what one word brace expansion makes holds besides its
// text: the word, its parts and the literal of a sequence element.
const costBraceWord = 128

func satAdd(a, b int64) int64 { return min(a+b, maxBraceSize) }

func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > maxBraceSize/b {
		return maxBraceSize
	}
	return a * b
}

// splitBraces is the word with its brace expressions parsed (a copy: the
// tree is shared), ok false when it has none.
func splitBraces(w *syntax.Word) (*syntax.Word, bool) {
	if !hasBraceCandidate(w) {
		return w, false
	}
	w2 := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if !syntax.SplitBraces(w2) {
		return w, false
	}
	return w2, true
}

// checkBraces counts what the brace expansions of one command's words (its
// arguments and the words of its array literals) make, and stops the
// execution when that is over MaxBraceWords words or MaxStringBytes bytes.
// Words without a brace expansion count nothing.
func (r *Runner) checkBraces(args []*syntax.Word, as []*syntax.Assign) error {
	if !r.opts["braceexpand"] {
		return nil
	}
	mw, mb := r.cfg.Limits.MaxBraceWords, int64(r.cfg.Limits.MaxStringBytes)
	if mw <= 0 && mb <= 0 {
		return nil
	}
	var total braceSize
	count := func(w *syntax.Word) {
		if w2, ok := splitBraces(w); ok {
			sz := wordBraceSize(w2)
			total = braceSize{satAdd(total.words, sz.words), satAdd(total.bytes, sz.bytes)}
		}
	}
	for _, w := range args {
		count(w)
	}
	for _, a := range as {
		if a.Array != nil {
			for _, e := range a.Array.Elems {
				if e.Value != nil && e.Index == nil {
					count(e.Value)
				}
			}
		} else if a.Naked && a.Name == nil && a.Value != nil {
			count(a.Value)
		}
	}
	if mw > 0 && total.words > mw {
		return r.limit("MaxBraceWords", mw)
	}
	if mb > 0 && total.bytes > mb {
		return r.limit("MaxStringBytes", mb)
	}
	return nil
}

// BraceSize is what the brace expansion of w makes, as this package
// expands it: words, and the bytes of their literal text (each sequence
// element counted as wide as its widest endpoint; quoted text other than
// single-quoted, a parameter or other expansion counting nothing). ok is false when w holds no brace
// expression (it stays one word). The word count is exact; the bytes are an
// upper bound. It reads sequences as bash 5.2 does, and as mvdan.cc/sh's
// expand.Braces does for every sequence syntax.SplitBraces accepts.
func BraceSize(w *syntax.Word) (words, bytes int64, ok bool) {
	w2, ok := splitBraces(w)
	if !ok {
		return 1, 0, false
	}
	sz := wordBraceSize(w2)
	return sz.words, sz.bytes, true
}

// BraceExpSize is what one brace expression of a word syntax.SplitBraces
// parsed makes (see BraceSize).
func BraceExpSize(be *syntax.BraceExp) (words, bytes int64) {
	sz := braceExpSize(be)
	return sz.words, sz.bytes
}

// wordBraceSize is the size of the expansion of a word whose braces
// syntax.SplitBraces has parsed: the product of its parts' word counts,
// each part's bytes repeated once per combination of the others.
func wordBraceSize(w *syntax.Word) braceSize {
	acc := braceSize{words: 1}
	for _, p := range w.Parts {
		var ps braceSize
		switch p := p.(type) {
		case *syntax.Lit:
			ps = braceSize{1, int64(len(p.Value))}
		case *syntax.SglQuoted:
			ps = braceSize{1, int64(len(p.Value))}
		case *syntax.BraceExp:
			ps = braceExpSize(p)
		default:
			ps = braceSize{words: 1}
		}
		acc = braceSize{satMul(acc.words, ps.words),
			satAdd(satMul(acc.bytes, ps.words), satMul(ps.bytes, acc.words))}
	}
	return acc
}

// braceExpSize is the size of one brace expression: the sum over the
// alternatives of {a,b,...}, or the elements of a sequence {x..y[..n]}.
func braceExpSize(be *syntax.BraceExp) braceSize {
	if !be.Sequence {
		var s braceSize
		for _, e := range be.Elems {
			es := wordBraceSize(e)
			s = braceSize{satAdd(s.words, es.words), satAdd(s.bytes, es.bytes)}
		}
		return s
	}
	sq, ok := parseSeq(be)
	if !ok {
		// not a sequence: left as written
		return braceSize{1, int64(len(be.Elems[0].Lit()) + len(be.Elems[1].Lit()) + 4)}
	}
	n := int64(min(sq.count, uint64(maxBraceSize)))
	return braceSize{n, satMul(n, int64(sq.width))}
}

// seq is a parsed sequence expression {from..to[..step]}.
type seq struct {
	from, to int64
	step     int64  // > 0
	count    uint64 // elements
	chars    bool   // {a..z}: from and to are bytes
	pad      int    // zero-padded width (0: none)
	width    int    // widest element
}

// parseSeq reads a sequence expression as bash does: integers (a leading
// zero pads every element to the wider endpoint) or single characters,
// with an optional integer step (its sign ignored, 0 read as 1). ok false:
// not a sequence, left as written.
func parseSeq(be *syntax.BraceExp) (seq, bool) {
	from, to := be.Elems[0].Lit(), be.Elems[1].Lit()
	s := seq{step: 1}
	if len(be.Elems) > 2 {
		st, err := strconv.ParseInt(be.Elems[2].Lit(), 10, 64)
		if err != nil {
			return s, false
		}
		if st < 0 {
			st = -st
		}
		if st > 0 {
			s.step = st
		}
	}
	a, e1 := strconv.ParseInt(from, 10, 64)
	b, e2 := strconv.ParseInt(to, 10, 64)
	switch {
	case e1 == nil && e2 == nil:
		s.from, s.to = a, b
		s.width = max(len(from), len(to))
		if len(from) > 1 && (from[0] == '0' || strings.HasPrefix(from, "-0")) || len(to) > 1 && (to[0] == '0' || strings.HasPrefix(to, "-0")) {
			s.pad = s.width
		}
	case len(from) == 1 && len(to) == 1 && isAlpha(from[0]) && isAlpha(to[0]):
		s.from, s.to, s.chars, s.width = int64(from[0]), int64(to[0]), true, 1
	default:
		return s, false
	}
	var span uint64
	if s.from <= s.to {
		span = uint64(s.to) - uint64(s.from)
	} else {
		span = uint64(s.from) - uint64(s.to)
	}
	s.count = span/uint64(s.step) + 1
	return s, true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// element is the k-th element of the sequence (k < count).
func (s seq) element(k uint64) string {
	off := k * uint64(s.step) // at most the span: no overflow
	var i int64
	if s.from <= s.to {
		i = int64(uint64(s.from) + off)
	} else {
		i = int64(uint64(s.from) - off)
	}
	if s.chars {
		return string(rune(i))
	}
	str := strconv.FormatInt(i, 10)
	if s.pad > 0 {
		neg := i < 0
		if neg {
			str = str[1:]
		}
		if w := s.pad - b2i(neg); len(str) < w {
			str = strings.Repeat("0", w-len(str)) + str
		}
		if neg {
			str = "-" + str
		}
	}
	return str
}

// braces expands the brace expressions of a word into words, holding what
// they take first (the memory budget).
func (r *Runner) braces(w *syntax.Word) ([]*syntax.Word, error) {
	w2, ok := splitBraces(w)
	if !ok {
		return []*syntax.Word{w}, nil
	}
	sz := wordBraceSize(w2)
	if m := r.cfg.Limits.MaxBraceWords; m > 0 && sz.words > m {
		return nil, r.limit("MaxBraceWords", m)
	}
	if err := r.hold(int(min(satAdd(satMul(sz.words, costBraceWord+costStr), sz.bytes), math.MaxInt32))); err != nil {
		return nil, err
	}
	out := make([]*syntax.Word, 0, min(sz.words, 1<<16))
	return expandBraces(w2, out), nil
}

// expandBraces appends the words w expands to.
func expandBraces(w *syntax.Word, out []*syntax.Word) []*syntax.Word {
	for i, p := range w.Parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		splice := func(alt []syntax.WordPart) {
			parts := make([]syntax.WordPart, 0, len(w.Parts)-1+len(alt))
			parts = append(parts, w.Parts[:i]...)
			parts = append(parts, alt...)
			parts = append(parts, w.Parts[i+1:]...)
			out = expandBraces(&syntax.Word{Parts: parts}, out)
		}
		if be.Sequence {
			sq, ok := parseSeq(be)
			if !ok {
				continue
			}
			for k := uint64(0); k < sq.count; k++ {
				e := sq.element(k)
				if e == "\\" {
					// {Z..a}'s backslash quotes nothing: quote removal
					// leaves an empty (quoted) word, as in bash
					splice([]syntax.WordPart{&syntax.SglQuoted{}})
					continue
				}
				splice([]syntax.WordPart{&syntax.Lit{Value: e}})
			}
			return out
		}
		for _, a := range be.Elems {
			splice(a.Parts)
		}
		return out
	}
	return append(out, w)
}
