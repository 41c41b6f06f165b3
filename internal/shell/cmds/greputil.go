package cmds

// Pattern translation for grep: POSIX BRE and ERE (GNU flavour) to Go's
// RE2 syntax, and the matcher grep runs over each line.

import (
	"bufio"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/desk-dev/desk/internal/posixre"
	"github.com/desk-dev/desk/internal/search"
	"github.com/desk-dev/desk/internal/vfs"
)

// errGrepBackref is reported for back-references, which RE2 cannot express.
var errGrepBackref = errors.New("back-references (\\1 ... \\9) are not supported by the shell backend's grep")

// grepTranslate turns one GNU BRE (ere false) or ERE pattern into Go
// syntax (posixre.Translate); warn receives GNU's warnings.
func grepTranslate(p string, ere bool, warn func(string)) (string, error) {
	s, err := posixre.Translate(p, ere, warn)
	if errors.Is(err, posixre.ErrBackref) {
		return "", errGrepBackref
	}
	return s, err
}

// grepMatcher matches lines against the compiled patterns.
type grepMatcher struct {
	re   *regexp.Regexp // nil: no patterns at all (matches nothing)
	word bool
	anch *regexp.Regexp    // ^(?:re)$ for -w retries
	pre  *search.Prefilter // the lines re may match, found over a block (nil: every line)
}

// grepIsWord reports whether the rune is a word constituent.
func grepIsWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func (m *grepMatcher) wordOK(line []byte, a, e int) bool {
	if a > 0 {
		r, _ := utf8.DecodeLastRune(line[:a])
		if grepIsWord(r) {
			return false
		}
	}
	if e < len(line) {
		r, _ := utf8.DecodeRune(line[e:])
		if grepIsWord(r) {
			return false
		}
	}
	return true
}

// find returns the matches of line (non-empty ones only when all is set and
// the caller prints them); first returns as soon as one is known.
func (m *grepMatcher) find(line []byte, first bool) [][2]int {
	if m.re == nil {
		return nil
	}
	if !m.word {
		if first {
			if m.re.Match(line) {
				return [][2]int{{0, 0}}
			}
			return nil
		}
		var out [][2]int
		for _, ix := range m.re.FindAllIndex(line, -1) {
			out = append(out, [2]int{ix[0], ix[1]})
		}
		return out
	}
	var out [][2]int
	for _, ix := range m.re.FindAllIndex(line, -1) {
		a, e := ix[0], ix[1]
		ok := m.wordOK(line, a, e)
		for !ok && e > a {
			e--
			if m.anch.Match(line[a:e]) && m.wordOK(line, a, e) {
				ok = true
			}
		}
		if ok {
			out = append(out, [2]int{a, e})
			if first {
				return out
			}
		}
	}
	return out
}

// Directory walks of grep and rg read a directory a page at a time, with the
// content of its small files (vfs.FS.ReadDirFiles): one query per page
// instead of an open, a read and a close per file. walkPage and walkInline
// bound what a page holds in memory (8 MiB).
const (
	walkPage   = 128
	walkInline = 64 << 10
)

// The bounds of grep's and rg's expressions (after translation to RE2,
// all -e and -f patterns together): wider than the tools' (a pattern file
// of a few thousand words is ordinary here), but a program is never built
// past them, where Go's own bound is about 128 MiB of instructions.
const (
	maxRegexpBytes = 1 << 20
	maxRegexpInsts = 500_000
)

// checkRegexp refuses an expression over maxRegexpBytes or maxRegexpInsts
// (search.CheckRegexp); a syntax error is left to regexp.Compile, whose
// message the commands reword.
func checkRegexp(expr string) error {
	if err := search.CheckRegexp(expr, maxRegexpBytes, maxRegexpInsts); errors.Is(err, search.ErrRegexpTooLarge) {
		return fmt.Errorf("regular expression too large (more than %d bytes or %d instructions)", maxRegexpBytes, maxRegexpInsts)
	}
	return nil
}

// buildMatcher compiles grep's and rg's patterns (RE2, one per element
// of parts) as alternatives, anchored to the whole line with line, under
// the flags ("i", "m", ...), checked by checkRegexp first; with word it adds
// the anchored copy -w needs, and longest selects leftmost-longest (POSIX)
// matching. A syntax error is regexp.Compile's, for the caller to reword.
func buildMatcher(parts []string, flags string, word, line, longest bool) (*grepMatcher, error) {
	for i, p := range parts {
		parts[i] = "(?:" + p + ")"
	}
	all := strings.Join(parts, "|")
	if line {
		all = "^(?:" + all + ")$"
	}
	prefix := ""
	if flags != "" {
		prefix = "(?" + flags + ")"
	}
	if err := checkRegexp(prefix + all); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(prefix + all)
	if err != nil {
		return nil, err
	}
	m := &grepMatcher{re: re, word: word, pre: search.NewPrefilter(prefix + all)}
	if word {
		m.anch = regexp.MustCompile(prefix + "^(?:" + all + ")$")
	}
	if longest {
		re.Longest()
		if m.anch != nil {
			m.anch.Longest()
		}
	}
	return m, nil
}

// setContext applies grep's and rg's -A, -B and -C (long names too).
func setContext(opt string, n int, after, before *int) {
	switch opt {
	case "A", "after-context":
		*after = n
	case "B", "before-context":
		*before = n
	default:
		*after, *before = n, n
	}
}

// leftOut reports whether an entry is left out by an exclude and an
// include list (grep's --exclude/--include, rg's -T/-t): when an exclude
// matches, or when there are includes and none matches.
func leftOut[T any](excludes, includes []T, match func(T) bool) bool {
	if slices.ContainsFunc(excludes, match) {
		return true
	}
	return len(includes) > 0 && !slices.ContainsFunc(includes, match)
}

// walkDirFiles calls fn for each entry of directory abs in name order (a
// loaded regular file carries its content) until fn returns false.
func walkDirFiles(env *Env, abs string, fn func(vfs.DirFile) bool) error {
	after := ""
	for {
		if err := env.Ctx.Err(); err != nil {
			return err
		}
		ents, err := env.FS.ReadDirFiles(env.Ctx, abs, after, walkPage, walkInline)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if !fn(e) {
				return nil
			}
		}
		if len(ents) < walkPage {
			return nil
		}
		after = ents[len(ents)-1].Name
	}
}

// writeName writes a file name in grep's and rg's output, ended by sep (':'
// before a selected line or a count, '-' before a context line, '\n' in a
// list of files), or by a NUL under -Z/--null (nul).
func writeName(w *bufio.Writer, name string, nul bool, sep byte) {
	w.WriteString(name)
	if nul {
		sep = 0
	}
	w.WriteByte(sep)
}

// writeField writes one number of a line's prefix (its line number, grep's
// byte offset, rg's column), ended by sep.
func writeField(w *bufio.Writer, n int64, sep byte) {
	w.WriteString(strconv.FormatInt(n, 10))
	w.WriteByte(sep)
}

// heldLine is a line held for before-context (-B): a copy of its text, its
// number and its byte offset in the input.
type heldLine struct {
	text []byte
	num  int64
	off  int64
}

// beforeContext holds the last max lines that were not selected, for the
// before-context of the next selected line.
type beforeContext struct {
	max     int
	lines   []heldLine
	env     *Env
	charged int64 // for the lines held (Env.Mem)
	err     error // a charge failed: the execution is over its budget
}

// hold keeps a copy of a line that was not selected, forgetting the oldest
// past max.
func (b *beforeContext) hold(text []byte, num, off int64) {
	if b.max <= 0 || b.err != nil {
		return
	}
	n := int64(len(text)) + 2*lineCost + 16
	if err := b.env.Hold(n); err != nil {
		b.err = err
		return
	}
	b.charged += n
	b.lines = append(b.lines, heldLine{append([]byte(nil), text...), num, off})
	if len(b.lines) > b.max {
		b.drop(b.lines[0])
		b.lines = b.lines[1:]
	}
}

func (b *beforeContext) drop(l heldLine) {
	n := int64(len(l.text)) + 2*lineCost + 16
	b.env.Release(n)
	b.charged -= n
}

// take returns the held lines, oldest first, and forgets them; the slice is
// valid until the next hold.
func (b *beforeContext) take() []heldLine {
	l := b.lines
	b.env.Release(b.charged)
	b.charged = 0
	b.lines = b.lines[:0]
	return l
}
