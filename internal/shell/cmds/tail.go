package cmds

import (
	"bufio"
	"io"
)

func init() { Register("tail", Tail) }

// Tail prints the last lines (-n N, default 10) or bytes (-c N) of each file
// or of stdin, as GNU tail: -n +N and -c +N start at line or byte N, -q and
// -v control the "==> name <==" headers, -z uses NUL as the line delimiter.
// -f and -F are rejected: nothing grows while a command of the shell backend
// runs. It holds at most N lines (bounded by Limits.MaxReadBytes).
func Tail(env *Env, args []string) int {
	return headTail(env, args, "tail")
}

// tail copies the end of r to w.
func (p *headTailParams) tail(env *Env, r io.Reader, w *bufio.Writer) error {
	max := env.Limits.MaxReadBytes
	if p.fromStart {
		skip := p.count - 1
		if skip < 0 {
			skip = 0
		}
		if p.bytes {
			if _, err := io.CopyN(io.Discard, r, skip); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			_, err := io.Copy(w, r)
			return err
		}
		lr := newLineReader(env, r, p.delim)
		for i := int64(0); ; i++ {
			line, err := lr.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if i >= skip {
				w.Write(line)
			}
		}
	}
	if p.bytes {
		if max > 0 && p.count > max {
			p.count = max + 1 // fail below only if the input is that long
		}
		return slideWindow(env, r, p.count, nil, func(window []byte) error {
			if max > 0 && int64(len(window)) > max {
				return ErrTooLarge
			}
			w.Write(window)
			return nil
		})
	}
	if p.count == 0 {
		_, err := io.Copy(io.Discard, r)
		return err
	}
	return slideLines(env, newLineReader(env, r, p.delim), p.count, nil, func(ring [][]byte) {
		for _, l := range ring {
			w.Write(l)
		}
	})
}
