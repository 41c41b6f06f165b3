package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/desk-dev/desk/internal/posixre"
)

// ErrRegexpTooLarge is wrapped by the error of an expression whose compiled
// program is over Limits.MaxRegexpInsts, or which is longer than
// Limits.MaxPatternBytes.
var ErrRegexpTooLarge = fmt.Errorf("%w: expression too large", ErrLimit)

// CheckRegexp checks that expr (RE2 syntax, as regexp.Compile takes it) is
// at most maxBytes long and compiles to at most maxInsts instructions
// (posixre.Check): a hostile expression such as "(?:x{1000}){1000}" is
// refused before a program is built for it. The shell's grep and rg, which
// translate their own syntaxes to RE2, check their translations with it.
// An expression over the bounds is an error wrapping ErrRegexpTooLarge.
func CheckRegexp(expr string, maxBytes, maxInsts int) error {
	err := posixre.Check(expr, maxBytes, maxInsts)
	if errors.Is(err, posixre.ErrTooLarge) {
		return fmt.Errorf("%w: %s", ErrRegexpTooLarge, strings.TrimPrefix(err.Error(), posixre.ErrTooLarge.Error()+": "))
	}
	return err
}

// EstimateInsts returns an upper bound of the instructions re compiles to,
// saturating at limit, without compiling anything (posixre.EstimateInsts).
// The shell's resource checks use it too.
func EstimateInsts(re *syntax.Regexp, limit int64) int64 {
	return posixre.EstimateInsts(re, limit)
}

// Regexp is a compiled grep expression: lines are matched one at a time.
type Regexp struct {
	line *regexp.Regexp
	// file is the expression in multi-line mode, which accepts every text
	// with a matching line (nil where that does not hold: expressions with
	// "$", `\A` or `\z`).
	file *regexp.Regexp
	// pre finds the lines that may match over a whole file (nil: none
	// known); it is not safe for concurrent use, and so neither is Grep.
	pre *Prefilter
}

// Compile compiles a grep query: an RE2 expression (as regexp.Compile
// takes it), or with literal a text to find as it is; fold makes it match
// case-insensitively. The query may be at most the limits' MaxPatternBytes
// long and compile to at most MaxRegexpInsts instructions: the error of one
// over them wraps ErrRegexpTooLarge. A syntax error is regexp's own.
func Compile(query string, literal, fold bool, l Limits) (*Regexp, error) {
	l = l.WithDefaults()
	if len(query) > l.MaxPatternBytes {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrRegexpTooLarge, l.MaxPatternBytes)
	}
	expr := query
	if literal {
		expr = regexp.QuoteMeta(expr)
	}
	if fold {
		expr = "(?i)" + expr
	}
	if err := CheckRegexp(expr, len(expr), l.MaxRegexpInsts); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	out := &Regexp{line: re, pre: NewPrefilter(expr)}
	if !strings.Contains(expr, "$") && !strings.Contains(expr, `\A`) && !strings.Contains(expr, `\z`) {
		out.file = regexp.MustCompile("(?m)" + expr)
	}
	return out, nil
}

// String returns the expression.
func (r *Regexp) String() string { return r.line.String() }

// chunk is the most text matched in one uninterruptible call; longer texts
// are matched through a reader that stops when the context is done.
const chunk = 64 << 10

// MatchLine reports whether line (without its newline) matches. A line
// longer than 64 KiB is matched through a reader that stops when ctx is
// done, so one huge line cannot hold the call past its context; the error
// is then ctx's.
func (r *Regexp) MatchLine(ctx context.Context, line []byte) (bool, error) {
	return match(ctx, r.line, line)
}

// mayMatch reports whether data may hold a matching line: false means it
// holds none. Long texts are matched a chunk of whole lines at a time,
// checking ctx between chunks.
func (r *Regexp) mayMatch(ctx context.Context, data []byte) (bool, error) {
	if r.file == nil {
		return true, nil
	}
	for len(data) > 0 {
		n := len(data)
		if n > chunk {
			if i := bytes.LastIndexByte(data[:chunk], '\n'); i >= 0 {
				n = i + 1
			} else if i := bytes.IndexByte(data, '\n'); i >= 0 {
				n = i + 1
			}
		}
		ok, err := match(ctx, r.file, data[:n])
		if ok || err != nil {
			return ok, err
		}
		data = data[n:]
	}
	return false, nil
}

func match(ctx context.Context, re *regexp.Regexp, b []byte) (bool, error) {
	if len(b) <= chunk {
		return re.Match(b), nil
	}
	ok := re.MatchReader(&ctxRunes{ctx: ctx, b: b})
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return ok, nil
}

// ctxRunes reads runes from b, ending early when ctx is done.
type ctxRunes struct {
	ctx context.Context
	b   []byte
	n   int
}

func (c *ctxRunes) ReadRune() (rune, int, error) {
	if c.n++; c.n%4096 == 0 && c.ctx.Err() != nil {
		return 0, 0, io.EOF
	}
	if len(c.b) == 0 {
		return 0, 0, io.EOF
	}
	r, size := utf8.DecodeRune(c.b)
	c.b = c.b[size:]
	return r, size, nil
}
