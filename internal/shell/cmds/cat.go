package cmds

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"syscall"
)

func init() { Register("cat", Cat) }

// Cat concatenates files (or standard input for "-" or no operand) to
// standard output, as GNU cat: -n numbers lines, -b numbers non-blank lines,
// -s squeezes repeated blank lines, -E marks line ends with $, -T shows tabs
// as ^I, -v shows control characters, -A is -vET, -e is -vE, -t is -vT.
func Cat(env *Env, args []string) int {
	opts, files, ok := fuParseOpts(env, args, "A|show-all", "b|number-nonblank", "e", "E|show-ends",
		"n|number", "s|squeeze-blank", "t", "T|show-tabs", "u", "v|show-nonprinting")
	if !ok {
		return 1
	}
	var c fuCatState
	for _, o := range opts {
		switch o.name {
		case "show-all":
			c.v, c.e, c.t = true, true, true
		case "number-nonblank":
			c.b = true
		case "e":
			c.v, c.e = true, true
		case "show-ends":
			c.e = true
		case "number":
			c.n = true
		case "squeeze-blank":
			c.s = true
		case "t":
			c.v, c.t = true, true
		case "show-tabs":
			c.t = true
		case "show-nonprinting":
			c.v = true
		}
	}
	if c.b {
		c.n = false
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	status := 0
	for _, f := range files {
		if env.Canceled() {
			return 1
		}
		var r io.Reader
		if f == "-" {
			r = env.Stdin
		} else {
			p := fuAbs(env, f)
			fi, err := env.FS.Stat(env.Ctx, p)
			if err != nil {
				env.PathError("cat", quotef(env, f), err)
				status = 1
				continue
			}
			if fi.IsDir() {
				w.Flush()
				env.Errorf("cat", "%s: Is a directory", quotef(env, f))
				status = 1
				continue
			}
			h, err := env.FS.Open(env.Ctx, p)
			if err != nil {
				env.PathError("cat", quotef(env, f), err)
				status = 1
				continue
			}
			r = h
			defer h.Close()
		}
		if err := c.copy(env, w, r); err != nil {
			if errors.Is(err, syscall.EPIPE) {
				// the reader of a pipe is gone: GNU cat dies of SIGPIPE
				return 141
			}
			w.Flush()
			env.PathError("cat", quotef(env, f), err)
			status = 1
		}
	}
	return status
}

// fuCatState carries cat's options and its line state across files (GNU keeps
// numbering and blank squeezing going from one file to the next).
type fuCatState struct {
	n, b, s, e, t, v bool
	line             int
	blanks           int
	midLine          bool
}

func (c *fuCatState) plain() bool { return !c.n && !c.b && !c.s && !c.e && !c.t && !c.v }

func (c *fuCatState) copy(env *Env, w *bufio.Writer, r io.Reader) error {
	buf := make([]byte, 64<<10)
	if c.plain() {
		for {
			if err := env.Ctx.Err(); err != nil {
				return err
			}
			n, err := r.Read(buf)
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		if err := env.Ctx.Err(); err != nil {
			return err
		}
		if _, err := w.Write(nil); err != nil {
			return err // the writer's sticky error
		}
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long line: emit what we have and continue it.
			c.emit(w, line, false)
			continue
		}
		if len(line) > 0 {
			c.emit(w, line, true)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// emit writes one piece of a line; complete tells the piece may end with '\n'.
func (c *fuCatState) emit(w *bufio.Writer, p []byte, complete bool) {
	hasNL := complete && len(p) > 0 && p[len(p)-1] == '\n'
	body := p
	if hasNL {
		body = p[:len(p)-1]
	}
	if !c.midLine {
		blank := hasNL && len(body) == 0
		if blank {
			c.blanks++
			if c.s && c.blanks > 1 {
				return
			}
		} else {
			c.blanks = 0
		}
		if c.n || (c.b && !blank) {
			c.line++
			w.WriteString(fmt.Sprintf("%6s\t", strconv.Itoa(c.line)))
		}
	}
	for _, ch := range body {
		c.writeByte(w, ch)
	}
	if hasNL {
		if c.e {
			w.WriteByte('$')
		}
		w.WriteByte('\n')
		c.midLine = false
	} else {
		c.midLine = true
	}
}

func (c *fuCatState) writeByte(w *bufio.Writer, ch byte) {
	if ch == '\t' {
		if c.t {
			w.WriteString("^I")
		} else {
			w.WriteByte(ch)
		}
		return
	}
	if !c.v {
		w.WriteByte(ch)
		return
	}
	if ch >= 128 {
		w.WriteString("M-")
		ch -= 128
	}
	switch {
	case ch < 32:
		w.WriteByte('^')
		w.WriteByte(ch + 64)
	case ch == 127:
		w.WriteString("^?")
	default:
		w.WriteByte(ch)
	}
}
