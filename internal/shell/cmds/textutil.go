package cmds

// Shared helpers for the text tools (head, tail, wc, sort, ...): GNU-style
// option parsing, opening file operands (or stdin for "-"), bounded reads,
// GNU quoting of names in diagnostics, and line iteration.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"unicode/utf8"
)

// opt is one parsed option: name is the short letter ("n") or the long name
// ("lines"); val is its argument when it takes one.
type opt struct {
	name string
	val  string
}

// optSpec describes a command's options for parseOpts, getopt_long style.
type optSpec struct {
	// shorts is a getopt string: "n:c:qv" (":" after a letter: it takes an
	// argument; "::" an optional attached one).
	shorts string
	// longs lists long options: "lines=" takes an argument, "color=?" an
	// optional one ("--color" or "--color=x"), "quiet" none.
	longs []string
	// stop ends option parsing at the first operand (POSIX order: xargs,
	// env, timeout); otherwise options and operands may be mixed, as GNU does.
	stop bool
	// negNumbers treats "-5" and "-.5" as operands, and ends option
	// parsing there: what follows is all operands (seq, as GNU seq leaves
	// getopt at the first negative number: seq -1 -inf -inf).
	negNumbers bool
}

// parseOpts parses args (without args[0]) as GNU getopt_long does. On a bad
// option it prints GNU's diagnostic and the "Try 'cmd --help'" line to
// stderr and returns ok false.
func parseOpts(env *Env, cmd string, args []string, spec optSpec) (opts []opt, operands []string, ok bool) {
	bad := func(format string, a ...any) ([]opt, []string, bool) {
		fmt.Fprintf(env.Stderr, "%s: %s\n", cmd, fmt.Sprintf(format, a...))
		fmt.Fprintf(env.Stderr, "Try '%s --help' for more information.\n", cmd)
		return nil, nil, false
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if spec.negNumbers && len(a) >= 2 && isNegNumber(a) {
			operands = append(operands, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			operands = append(operands, a)
			if spec.stop {
				operands = append(operands, args[i+1:]...)
				break
			}
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			var match string
			var exact bool
			var matches []string
			for _, l := range spec.longs {
				ln := strings.TrimRight(l, "=?")
				if ln == name {
					match, exact = l, true
					break
				}
				if strings.HasPrefix(ln, name) {
					matches = append(matches, l)
				}
			}
			if !exact {
				switch len(matches) {
				case 0:
					return bad("unrecognized option '%s'", a)
				case 1:
					match = matches[0]
				default:
					var names []string
					for _, m := range matches {
						names = append(names, "'--"+strings.TrimRight(m, "=?")+"'")
					}
					return bad("option '%s' is ambiguous; possibilities: %s", a, strings.Join(names, " "))
				}
			}
			ln := strings.TrimRight(match, "=?")
			switch {
			case strings.HasSuffix(match, "=?"):
				opts = append(opts, opt{ln, val})
			case strings.HasSuffix(match, "="):
				if !hasVal {
					if i+1 >= len(args) {
						return bad("option '--%s' requires an argument", ln)
					}
					i++
					val = args[i]
				}
				opts = append(opts, opt{ln, val})
			default:
				if hasVal {
					return bad("option '--%s' doesn't allow an argument", ln)
				}
				opts = append(opts, opt{ln, ""})
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			k := strings.IndexByte(spec.shorts, c)
			if k < 0 || c == ':' {
				return bad("invalid option -- '%c'", c)
			}
			takes := k+1 < len(spec.shorts) && spec.shorts[k+1] == ':'
			optional := takes && k+2 < len(spec.shorts) && spec.shorts[k+2] == ':'
			if !takes {
				opts = append(opts, opt{string(c), ""})
				continue
			}
			if j+1 < len(a) {
				opts = append(opts, opt{string(c), a[j+1:]})
			} else if optional {
				opts = append(opts, opt{string(c), ""})
			} else {
				if i+1 >= len(args) {
					return bad("option requires an argument -- '%c'", c)
				}
				i++
				opts = append(opts, opt{string(c), args[i]})
			}
			break
		}
	}
	return opts, operands, true
}

// isNegNumber reports whether a looks like a negative number ("-5", "-.5").
func isNegNumber(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	c := a[1]
	return c >= '0' && c <= '9' || c == '.' && len(a) > 2 && a[2] >= '0' && a[2] <= '9'
}

// tryHelp prints "cmd: message" and GNU's "Try 'cmd --help'" line.
func tryHelp(env *Env, cmd, format string, a ...any) {
	if format != "" {
		fmt.Fprintf(env.Stderr, "%s: %s\n", cmd, fmt.Sprintf(format, a...))
	}
	fmt.Fprintf(env.Stderr, "Try '%s --help' for more information.\n", cmd)
}

// parseNoOperands is parseOpts for a command that takes no operands: one
// is refused as GNU's "extra operand" with the --help hint.
func parseNoOperands(env *Env, cmd string, args []string, spec optSpec) ([]opt, bool) {
	opts, ops, ok := parseOpts(env, cmd, args, spec)
	if ok && len(ops) > 0 {
		tryHelp(env, cmd, "extra operand %s", quote(env, ops[0]))
		return nil, false
	}
	return opts, ok
}

// missingOperand prints GNU's "cmd: missing operand" with the help line.
func missingOperand(env *Env, cmd string) {
	tryHelp(env, cmd, "missing operand")
}

// nopCloser wraps stdin so that closing it is a no-op.
type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

// ctxReader fails reads once the command's context is done, so loops over
// input stop promptly on Kill or timeout.
type ctxReader struct {
	env *Env
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.env.Ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// openArg opens a file operand for reading; "-" is stdin. Reads through the
// result stop when Env.Ctx is cancelled.
func openArg(env *Env, name string) (io.ReadCloser, error) {
	if name == "-" {
		return nopCloser{ctxReader{env, env.Stdin}}, nil
	}
	f, err := env.FS.Open(env.Ctx, env.Abs(name))
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{ctxReader{env, f}, f}, nil
}

// eachInput calls fn with each input of a filter of coreutils' kind: the
// files named ("-" for stdin), or stdin alone when there are none; each is
// closed after. An input that cannot be opened, or whose read fails (fn
// returns the error), is reported as coreutils does, "cmd: NAME: error"
// after w is flushed (a read cut short by cancellation is not), and makes
// the result 1; otherwise it is 0.
func eachInput(env *Env, cmd string, w *bufio.Writer, files []string, fn func(r io.Reader) error) int {
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	for _, name := range files {
		r, err := openArg(env, name)
		if err != nil {
			w.Flush()
			env.PathError(cmd, quotef(env, name), err)
			status = 1
			continue
		}
		err = fn(r)
		r.Close()
		if err != nil {
			w.Flush()
			if !isCanceled(env, err) {
				env.PathError(cmd, quotef(env, name), err)
			}
			status = 1
		}
	}
	return status
}

// readAllLimited reads r whole, failing with ErrTooLarge past
// Env.Limits.MaxReadBytes (when set). What it returns is charged to
// Env.Mem (cap of the slice, see held) until the command ends or the
// caller releases it; the buffers it grew from are charged while they are
// copied, so the input is never in memory uncharged.
func readAllLimited(env *Env, r io.Reader) ([]byte, error) {
	max := env.Limits.MaxReadBytes
	const first = 4 << 10
	if err := env.Hold(first); err != nil {
		return nil, err
	}
	b := make([]byte, 0, first)
	for {
		if len(b) == cap(b) {
			if max > 0 && int64(len(b)) > max {
				env.Release(held(b))
				return nil, ErrTooLarge
			}
			nc := 2 * cap(b)
			if cap(b) >= 4<<20 {
				nc = cap(b) + cap(b)/2
			}
			if max > 0 && int64(nc) > max+1 {
				nc = int(max + 1)
			}
			if err := env.Hold(int64(nc)); err != nil {
				env.Release(held(b))
				return nil, err
			}
			nb := make([]byte, len(b), nc)
			copy(nb, b)
			env.Release(held(b))
			b = nb
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			env.Release(held(b))
			return nil, err
		}
	}
	if max > 0 && int64(len(b)) > max {
		env.Release(held(b))
		return nil, ErrTooLarge
	}
	return b, nil
}

// held is what a buffer of readAllLimited is charged.
func held(b []byte) int64 { return int64(cap(b)) }

// Costs of what commands keep per line (a slice header and the rounding of
// a small allocation), per JSON byte parsed (gojq's values), per line of
// a diff (its strings, keys and the comparison's tables).
const (
	lineCost = 48
	jsonCost = 64
	diffCost = 160
)

// heldBuffer is a bytes.Buffer charged to Env.Mem as it grows (a command's
// output kept in memory until it is written to a file).
type heldBuffer struct {
	bytes.Buffer
	env *Env
	n   int64
	err error
}

func (h *heldBuffer) grow(n int) error {
	if h.err != nil {
		return h.err
	}
	if need := int64(h.Len()+n) * 2; need > h.n {
		if err := h.env.Hold(need - h.n); err != nil {
			h.err = err
			return err
		}
		h.n = need
	}
	return nil
}

func (h *heldBuffer) Write(p []byte) (int, error) {
	if err := h.grow(len(p)); err != nil {
		return 0, err
	}
	return h.Buffer.Write(p)
}

func (h *heldBuffer) WriteString(p string) (int, error) {
	if err := h.grow(len(p)); err != nil {
		return 0, err
	}
	return h.Buffer.WriteString(p)
}

func (h *heldBuffer) WriteByte(c byte) error {
	if err := h.grow(1); err != nil {
		return err
	}
	return h.Buffer.WriteByte(c)
}

// readArgLimited opens and reads one operand whole.
func readArgLimited(env *Env, name string) ([]byte, error) {
	r, err := openArg(env, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readAllLimited(env, r)
}

// isCanceled reports whether err comes from the context being cancelled.
func isCanceled(env *Env, err error) bool {
	return env.Ctx.Err() != nil && errors.Is(err, env.Ctx.Err())
}

// lineReader reads lines (each with its delimiter, the last one possibly
// without) with a bound on the length of one line.
type lineReader struct {
	env   *Env
	held  int64 // charged for the line being gathered or last returned
	br    *bufio.Reader
	delim byte
	max   int64
	err   error // the read error that ended lines (nil at the end of input)
	// view returns a line that fits the reader's buffer as a slice of it,
	// valid until the next call, instead of a copy: for callers that keep
	// no line (cut).
	view bool
}

// lines yields each line with its delimiter until the input ends or a read
// fails; l.err then holds the failure (ErrTooLarge past max).
func (l *lineReader) lines() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for {
			line, err := l.next()
			if err != nil {
				if err != io.EOF {
					l.err = err
				}
				return
			}
			if !yield(line) {
				return
			}
		}
	}
}

func newLineReader(env *Env, r io.Reader, delim byte) *lineReader {
	return newLineReaderSize(env, r, delim, 64<<10)
}

// newLineReaderSize is newLineReader with a buffer of size bytes (at least
// 16): for input already in memory, its length and one more, so that a
// small file does not cost a 64 KiB buffer. Lines longer than the buffer
// are gathered as with any buffer.
func newLineReaderSize(env *Env, r io.Reader, delim byte, size int) *lineReader {
	return &lineReader{env: env, br: bufio.NewReaderSize(r, size), delim: delim, max: env.Limits.MaxReadBytes}
}

// next returns the next line with its delimiter; io.EOF at the end. A
// line longer than the reader's buffer is charged to Env.Mem while it is
// gathered and until the next call (a caller that keeps lines charges them
// itself).
func (l *lineReader) next() ([]byte, error) {
	if l.held > 0 {
		l.env.Release(l.held)
		l.held = 0
	}
	var acc []byte
	for {
		frag, err := l.br.ReadSlice(l.delim)
		if err == bufio.ErrBufferFull {
			if c := int64(cap(acc)); int64(len(acc)+len(frag)) > c {
				// append grows it: the old and the new buffer.
				need := 3 * int64(len(acc)+len(frag))
				if need > l.held {
					if err := l.env.Hold(need - l.held); err != nil {
						return nil, err
					}
					l.held = need
				}
			}
			acc = append(acc, frag...)
			if l.max > 0 && int64(len(acc)) > l.max {
				return nil, ErrTooLarge
			}
			continue
		}
		switch {
		case acc != nil:
			acc = append(acc, frag...)
		case l.view:
			acc = frag
		default:
			acc = append([]byte(nil), frag...)
		}
		if err == io.EOF && len(acc) > 0 {
			return acc, nil
		}
		return acc, err
	}
}

// splitLines splits data into lines without their delimiters; a final
// delimiter does not start an empty line.
func splitLines(data []byte, delim byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	if data[len(data)-1] == delim {
		data = data[:len(data)-1]
	}
	return bytes.Split(data, []byte{delim})
}

// parseSize parses a GNU size/count with optional multiplier suffix (b, K,
// KB, KiB, M, ... as head -c and split -b take them).
func parseSize(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	suf := s[i:]
	mult := int64(1)
	if suf != "" {
		units := "KMGTPEZY"
		switch {
		case suf == "b":
			mult = 512
		case suf == "c":
			mult = 1
		case suf == "w":
			mult = 2
		default:
			u := strings.IndexByte(units, strings.ToUpper(suf[:1])[0])
			if u < 0 || suf[:1] == "k" && false {
				return 0, false
			}
			base := int64(1024)
			switch suf[1:] {
			case "":
				if suf[0] == 'm' || suf[0] == 'g' || suf[0] == 't' {
					return 0, false
				}
			case "iB":
			case "B":
				base = 1000
			default:
				return 0, false
			}
			for k := 0; k <= u; k++ {
				mult *= base
			}
		}
	}
	return n * mult, true
}

// runeCount counts characters as GNU does in a UTF-8 locale (invalid bytes
// count as none).
func runeCount(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r != utf8.RuneError || size > 1 {
			n++
		}
		b = b[size:]
	}
	return n
}
