package cmds

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

func init() { Register("wc", Wc) }

// wcCounts is what wc counts for one input.
type wcCounts struct{ lines, words, chars, bytes, maxLen int64 }

// Wc prints newline, word and byte counts (-l -w -c, the default), character
// counts (-m) and the maximum display width of a line (-L) of each file or of
// stdin, with a "total" line for several files and GNU's column widths
// (from the sum of the regular files' sizes; at least 7 when reading stdin).
// Input is streamed.
func Wc(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "wc", args[1:], optSpec{shorts: "lwcmL",
		longs: []string{"lines", "words", "chars", "bytes", "max-line-length"}})
	if !ok {
		return 1
	}
	var pl, pw, pc, pb, pL bool
	for _, o := range opts {
		switch o.name {
		case "l", "lines":
			pl = true
		case "w", "words":
			pw = true
		case "m", "chars":
			pc = true
		case "c", "bytes":
			pb = true
		case "L", "max-line-length":
			pL = true
		}
	}
	if !pl && !pw && !pc && !pb && !pL {
		pl, pw, pb = true, true, true
	}
	named := len(files) > 0
	if !named {
		files = []string{"-"}
	}
	// Column width, as GNU's compute_number_width.
	width := 1
	nsel := 0
	for _, b := range []bool{pl, pw, pc, pb, pL} {
		if b {
			nsel++
		}
	}
	if !(len(files) == 1 && nsel == 1) {
		minw := 1
		var total int64
		for _, f := range files {
			if f == "-" {
				minw = 7
				continue
			}
			fi, err := env.FS.Stat(env.Ctx, env.Abs(f))
			if err != nil {
				continue
			}
			if fi.Mode().IsRegular() {
				total += fi.Size()
			} else {
				minw = 7
			}
		}
		for ; total >= 10; total /= 10 {
			width++
		}
		if width < minw {
			width = minw
		}
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	print := func(c wcCounts, name string) {
		var parts []string
		add := func(on bool, n int64) {
			if on {
				s := strconv.FormatInt(n, 10)
				if len(s) < width {
					s = strings.Repeat(" ", width-len(s)) + s
				}
				parts = append(parts, s)
			}
		}
		add(pl, c.lines)
		add(pw, c.words)
		add(pc, c.chars)
		add(pb, c.bytes)
		add(pL, c.maxLen)
		line := strings.Join(parts, " ")
		if name != "" {
			line += " " + name
		}
		fmt.Fprintln(w, line)
	}
	var tot wcCounts
	status := 0
	for _, f := range files {
		if env.Canceled() {
			return 1
		}
		r, err := openArg(env, f)
		if err != nil {
			w.Flush()
			env.PathError("wc", quotef(env, f), err)
			status = 1
			continue
		}
		c, err := wcCount(r, pw || pc || pL)
		r.Close()
		if err != nil {
			w.Flush()
			if isCanceled(env, err) {
				return 1
			}
			env.PathError("wc", quotef(env, f), err)
			status = 1
		}
		name := ""
		if named {
			name = f
		}
		print(c, name)
		tot.lines += c.lines
		tot.words += c.words
		tot.chars += c.chars
		tot.bytes += c.bytes
		tot.maxLen = max(tot.maxLen, c.maxLen)
	}
	if len(files) > 1 {
		print(tot, "total")
	}
	return status
}

// wcCount counts one input; full enables the word, character and width
// counts (slower than counting newlines).
func wcCount(r io.Reader, full bool) (wcCounts, error) {
	var c wcCounts
	if !full {
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			c.bytes += int64(n)
			c.lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
			if err == io.EOF {
				return c, nil
			}
			if err != nil {
				return c, err
			}
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	inWord := false
	var col int64
	for {
		ru, size, err := br.ReadRune()
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, err
		}
		c.bytes += int64(size)
		if ru == utf8.RuneError && size == 1 {
			continue
		}
		c.chars++
		switch ru {
		case '\n':
			c.lines++
			c.maxLen = max(c.maxLen, col)
			col = 0
		case '\t':
			col += 8 - col%8
		case '\r', '\f':
			c.maxLen = max(c.maxLen, col)
			col = 0
		case '\v':
		default:
			if unicode.IsPrint(ru) {
				col += int64(runeWidth(ru))
			}
		}
		if wcSpace(ru) {
			inWord = false
		} else if !inWord {
			inWord = true
			c.words++
		}
	}
	c.maxLen = max(c.maxLen, col)
	return c, nil
}

// wcSpace is iswspace in glibc's UTF-8 locales (no-break spaces excluded).
func wcSpace(r rune) bool {
	switch r {
	case 0xA0, 0x2007, 0x202F:
		return false
	}
	return unicode.IsSpace(r)
}

// runeWidth approximates wcwidth: 2 for East Asian wide characters, 0 for
// combining marks, 1 otherwise.
func runeWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
		return 0
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF && r != 0x303F,
		r >= 0xAC00 && r <= 0xD7A3, r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F,
		r >= 0xFF00 && r <= 0xFF60, r >= 0xFFE0 && r <= 0xFFE6, r >= 0x1F300 && r <= 0x1F64F,
		r >= 0x1F900 && r <= 0x1F9FF, r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}
