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
	lr := newLineReader(env, r, p.delim)
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
		if err := env.Hold(int64(cap(line)) + 2*lineCost); err != nil {
			return err
		}
		charged += int64(cap(line)) + 2*lineCost
		ring = append(ring, line)
		held += int64(len(line))
		if int64(len(ring)) > p.count {
			held -= int64(len(ring[0]))
			env.Release(int64(cap(ring[0])) + 2*lineCost)
			charged -= int64(cap(ring[0])) + 2*lineCost
			ring[0] = nil
			ring = ring[1:]
		}
		if max > 0 && held > max {
			return ErrTooLarge
		}
	}
	for _, l := range ring {
		w.Write(l)
	}
	return nil
}
