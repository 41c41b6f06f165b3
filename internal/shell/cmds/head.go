package cmds

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

func init() { Register("head", Head) }

var obsoleteCount = regexp.MustCompile(`^-[0-9]+[bcklmnqv]*$`)

// Head prints the first lines (-n N, default 10) or bytes (-c N) of each file
// or of stdin, as GNU head: -n -N and -c -N print all but the last N, -q and
// -v control the "==> name <==" headers shown for several files, -z uses NUL
// as the line delimiter. Input is streamed; only "all but the last N" holds
// up to N lines or bytes in memory.
func Head(env *Env, args []string) int {
	return headTail(env, args, "head")
}

// headTail parses the options shared by head and tail and runs one of them.
func headTail(env *Env, args []string, cmd string) int {
	rest := args[1:]
	// Obsolete "-5" / "-5c" / "+5" (tail) forms as the first argument.
	var pre []opt
	if len(rest) > 0 && (obsoleteCount.MatchString(rest[0]) || cmd == "tail" && len(rest) > 0 && strings.HasPrefix(rest[0], "+") && len(rest[0]) > 1) {
		a := rest[0]
		sign := a[:1]
		digits := strings.TrimRight(a[1:], "bcklmnqvf")
		suf := a[1+len(digits):]
		if digits == "" {
			digits = "10"
		}
		val := digits
		if cmd == "tail" && sign == "+" {
			val = "+" + digits
		}
		name := "n"
		if strings.ContainsRune(suf, 'c') {
			name = "c"
		}
		if strings.ContainsRune(suf, 'f') {
			pre = append(pre, opt{"f", ""})
		}
		if digits != "" {
			pre = append(pre, opt{name, val})
			rest = rest[1:]
		}
	}
	shorts := "n:c:qvz"
	longs := []string{"lines=", "bytes=", "quiet", "silent", "verbose", "zero-terminated"}
	if cmd == "tail" {
		shorts = "n:c:qvzfF"
		longs = append(longs, "follow=?", "retry", "pid=", "sleep-interval=", "max-unchanged-stats=")
	}
	opts, files, ok := parseOpts(env, cmd, rest, optSpec{shorts: shorts, longs: longs})
	if !ok {
		return 1
	}
	opts = append(pre, opts...)
	p := headTailParams{cmd: cmd, count: 10, delim: '\n'}
	headers := 0 // 0 auto, 1 never, 2 always
	for _, o := range opts {
		switch o.name {
		case "n", "lines", "c", "bytes":
			p.bytes = o.name == "c" || o.name == "bytes"
			v := o.val
			p.fromStart, p.allBut = false, false
			if cmd == "tail" && strings.HasPrefix(v, "+") {
				p.fromStart = true
				v = v[1:]
			} else if strings.HasPrefix(v, "-") {
				if cmd == "head" {
					p.allBut = true
				}
				v = v[1:]
			} else if strings.HasPrefix(v, "+") {
				v = v[1:]
			}
			n, ok := parseSize(v)
			if !ok {
				what := "lines"
				if p.bytes {
					what = "bytes"
				}
				env.Errorf(cmd, "invalid number of %s: %s", what, quote(env, o.val))
				return 1
			}
			p.count = n
		case "q", "quiet", "silent":
			headers = 1
		case "v", "verbose":
			headers = 2
		case "z", "zero-terminated":
			p.delim = 0
		case "f", "F", "follow", "retry":
			env.Errorf(cmd, "following files (-f) is not supported in the shell backend: files do not grow while a command runs")
			return 1
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	show := headers == 2 || headers == 0 && len(files) > 1
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	status := 0
	first := true
	for _, name := range files {
		if env.Canceled() {
			return 1
		}
		r, err := openArg(env, name)
		if err != nil {
			env.Errorf(cmd, "cannot open %s for reading: %s", quoteaf(env, name), Strerror(err))
			status = 1
			continue
		}
		if show {
			disp := name
			if name == "-" {
				disp = "standard input"
			}
			if !first {
				w.WriteByte('\n')
			}
			fmt.Fprintf(w, "==> %s <==\n", disp)
		}
		first = false
		var err2 error
		if cmd == "head" {
			err2 = p.head(env, r, w)
		} else {
			err2 = p.tail(env, r, w)
		}
		r.Close()
		if err2 != nil {
			w.Flush()
			if err2 == ErrTooLarge {
				env.Errorf(cmd, "%s: %s", quotef(env, name), Strerror(err2))
			} else if !isCanceled(env, err2) {
				env.Errorf(cmd, "error reading %s: %s", quoteaf(env, name), Strerror(err2))
			}
			status = 1
		}
	}
	return status
}

// headTailParams is what -n/-c asked for.
type headTailParams struct {
	cmd       string
	bytes     bool
	count     int64
	allBut    bool // head -n -N
	fromStart bool // tail -n +N
	delim     byte
}

// head copies the first count lines or bytes of r to w.
func (p *headTailParams) head(env *Env, r io.Reader, w *bufio.Writer) error {
	if p.bytes && !p.allBut {
		_, err := io.Copy(w, io.LimitReader(r, p.count))
		return err
	}
	if p.bytes {
		// All but the last count bytes: keep a window of count bytes.
		if env.Limits.MaxReadBytes > 0 && p.count > env.Limits.MaxReadBytes {
			return ErrTooLarge
		}
		return slideWindow(env, r, p.count, w, nil)
	}
	lr := newLineReader(env, r, p.delim)
	if !p.allBut {
		for i := int64(0); i < p.count; i++ {
			line, err := lr.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			w.Write(line)
		}
		return nil
	}
	// All but the last count lines: a ring of count lines.
	return slideLines(env, lr, p.count, w, nil)
}

// slideLines reads lr to its end keeping its last count lines, as
// slideWindow does bytes: a line that falls out is written to spill (when
// not nil) as it goes, and last (when not nil) gets the lines kept (head
// -n -N, tail -n N). The lines kept are held against env's budget, their
// text at most Limits.MaxReadBytes (ErrTooLarge beyond).
func slideLines(env *Env, lr *lineReader, count int64, spill io.Writer, last func([][]byte)) error {
	max := env.Limits.MaxReadBytes
	var ring [][]byte
	var held, charged int64
	defer func() { env.Release(charged) }()
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		cost := int64(cap(line)) + 2*lineCost
		if err := env.Hold(cost); err != nil {
			return err
		}
		charged += cost
		ring = append(ring, line)
		held += int64(len(line))
		if int64(len(ring)) > count {
			if spill != nil {
				spill.Write(ring[0])
			}
			held -= int64(len(ring[0]))
			out := int64(cap(ring[0])) + 2*lineCost
			env.Release(out)
			charged -= out
			ring[0] = nil
			ring = ring[1:]
		}
		if max > 0 && held > max {
			return ErrTooLarge
		}
	}
	if last != nil {
		last(ring)
	}
	return nil
}

// slideWindow reads r to its end keeping a window of its last count bytes:
// what falls out of the window is written to spill (when not nil) as it
// goes, in order, and last (when not nil) gets the final window. The window
// is compacted only once it holds count plus at least max(count, 32 KiB)
// more, so each byte is copied a bounded number of times: the work is
// linear in the input whatever count is (head -c -N, tail -c N). Memory is
// at most 2·count plus two reads, held against env's budget.
func slideWindow(env *Env, r io.Reader, count int64, spill io.Writer, last func([]byte) error) error {
	const chunk = 32 << 10
	limit := 2*count + 2*chunk
	if err := env.Hold(limit); err != nil {
		return err
	}
	defer env.Release(limit)
	var window []byte
	for {
		if int64(cap(window)-len(window)) < chunk {
			grown := make([]byte, len(window), min(max(2*int64(cap(window)), 2*chunk), limit))
			copy(grown, window)
			window = grown
		}
		n, err := r.Read(window[len(window) : len(window)+chunk])
		window = window[:len(window)+n]
		if over := int64(len(window)) - count; over >= max(count, chunk) {
			if spill != nil {
				spill.Write(window[:over])
			}
			window = append(window[:0], window[over:]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if over := int64(len(window)) - count; over > 0 {
		if spill != nil {
			spill.Write(window[:over])
		}
		window = window[over:]
	}
	if last != nil {
		return last(window)
	}
	return nil
}
