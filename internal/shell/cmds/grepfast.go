package cmds

import (
	"bytes"
	"io"
	"sync"
	"unicode/utf8"
)

// grep's block path. Where no line is printed for context and none is
// inverted (no -v, -A, -B, -C, -z), grep reads its input in blocks of
// whole lines and looks for candidates over the whole block: with the
// expression's required literal (search.Prefilter, bytes.Index over the
// block) when it has one, else line by line in the block; the expression
// runs only on candidate lines, and nothing is allocated per line. Line
// numbers are counted (bytes.Count) only when printed. A NUL byte, which
// makes the input binary from its line on, hands the rest over to the line
// path (grepState.lines) with the counts so far, so the output is the line
// path's byte for byte.

// blockSize is the read size of the block path; a line longer than a block
// grows the buffer (charged to Env.Mem) up to Limits.MaxReadBytes.
const blockSize = 256 << 10

// sniffSize is how much of an input the binary check looks at before
// anything is printed: a NUL there makes the whole input binary (the line
// path peeks as much).
const sniffSize = 32 << 10

var blockPool = sync.Pool{New: func() any { b := make([]byte, blockSize); return &b }}

// grepCounts is where a line path takes over from the block path.
type grepCounts struct {
	num, off, nlines int64
	encErr           bool
	noSniff          bool // the input was checked for binary content already
}

// noBlocks turns the block path off (tests compare the two paths).
var noBlocks = false

// blockOK reports whether the block path serves this grep.
func (g *grepState) blockOK() bool {
	return !noBlocks && !g.invert && g.after == 0 && g.before == 0 && !g.nullData && g.m.re != nil
}

// blocks searches one input on the block path: data when the input is in
// memory already (r nil), else r.
func (g *grepState) blocks(r io.Reader, data []byte, name string, showName bool) {
	env := g.env
	var c grepCounts
	var buf []byte
	var bp *[]byte
	held := int64(0)
	defer func() {
		if bp != nil {
			*bp = buf[:cap(buf)]
			if cap(buf) == blockSize {
				blockPool.Put(bp)
			}
		}
		env.Release(held)
	}()
	if r != nil {
		bp = blockPool.Get().(*[]byte)
		buf = (*bp)[:0]
	}
	first := true
	var readErr error
	eof := r == nil
	for {
		var block []byte
		if r == nil {
			block = data
		} else {
			// Fill: at least sniffSize at the start, then at least one
			// whole line (or the end of the input).
			for !eof && (first && len(buf) < sniffSize || bytes.IndexByte(buf, '\n') < 0) {
				if len(buf) == cap(buf) {
					if max := env.Limits.MaxReadBytes; max > 0 && int64(len(buf)) >= max {
						readErr = ErrTooLarge
						break
					}
					grow := int64(cap(buf)) * 2
					if err := env.Hold(grow); err != nil {
						readErr = err
						break
					}
					held += grow
					nb := make([]byte, len(buf), 2*cap(buf))
					copy(nb, buf)
					buf = nb
				}
				n, err := r.Read(buf[len(buf):cap(buf)])
				buf = buf[:len(buf)+n]
				if err == io.EOF {
					eof = true
				} else if err != nil {
					readErr = err
					break
				}
			}
			if readErr != nil {
				break
			}
			block = buf
			if !eof {
				block = buf[:bytes.LastIndexByte(buf, '\n')+1]
			}
		}
		if env.Canceled() {
			return
		}
		if g.binMode != "text" {
			if first && bytes.IndexByte(block[:min(len(block), sniffSize)], 0) >= 0 {
				rest := data
				if r != nil {
					rest = buf
				}
				g.lines(io.MultiReader(bytes.NewReader(rest), r0(r)), name, showName, c)
				return
			}
			if z := bytes.IndexByte(block, 0); z >= 0 {
				start := bytes.LastIndexByte(block[:z], '\n') + 1
				if g.scan(block[:start], name, showName, &c) {
					g.finish(name, showName, c.nlines, false, c.encErr)
					return
				}
				c.noSniff = true
				rest := block[start:]
				if r != nil {
					rest = buf[start:]
				}
				g.lines(io.MultiReader(bytes.NewReader(rest), r0(r)), name, showName, c)
				return
			}
		}
		first = false
		if g.scan(block, name, showName, &c) || g.stop {
			break
		}
		if eof {
			break
		}
		// Keep the partial last line.
		n := copy(buf, buf[len(block):])
		buf = buf[:n]
	}
	if g.stop || env.Canceled() {
		return
	}
	if readErr != nil {
		g.errorf("%s: %s", name, Strerror(readErr))
	}
	g.finish(name, showName, c.nlines, false, c.encErr)
}

// r0 is r, or an empty reader for nil.
func r0(r io.Reader) io.Reader {
	if r == nil {
		return bytes.NewReader(nil)
	}
	return r
}

// scan searches a block of whole lines (the last may lack its newline),
// printing as the line path does; c.num and c.off move past the block.
// It returns true when the input needs no more reading (-l, -L, -q, -m).
func (g *grepState) scan(block []byte, name string, showName bool, c *grepCounts) (done bool) {
	outQuiet := g.count || g.listMatch || g.listNon || g.quiet
	exact := g.m.pre != nil && g.m.pre.Exact() && !g.m.word
	counted := 0 // lines of block before counted are in c.num
	line := func(start, end int) bool {
		if g.lineNum {
			c.num += int64(bytes.Count(block[counted:start], []byte{'\n'}))
			counted = start
		}
		body := block[start:end]
		var ms [][2]int
		if g.only && !outQuiet {
			if ms = g.m.find(body, false); ms == nil {
				return true
			}
		} else if !exact && g.m.find(body, true) == nil {
			return true
		}
		c.nlines++
		g.matched = true
		switch {
		case g.quiet:
			g.stop = true
			return false
		case g.listMatch || g.listNon:
			done = true
			return false
		case g.count:
		case g.only:
			for _, mt := range ms {
				if mt[0] == mt[1] {
					continue
				}
				part := body[mt[0]:mt[1]]
				if g.binMode != "text" && !utf8.Valid(part) {
					c.encErr = true
					continue
				}
				g.prefix(name, showName, c.num+1, c.off+int64(start+mt[0]), ':')
				g.w.Write(part)
				g.w.WriteByte('\n')
				g.printed = true
			}
		default:
			if g.binMode != "text" && !utf8.Valid(body) {
				c.encErr = true
				break
			}
			g.prefix(name, showName, c.num+1, c.off+int64(start), ':')
			g.w.Write(body)
			g.w.WriteByte('\n')
			g.printed = true
		}
		if g.maxCount > 0 && c.nlines >= g.maxCount {
			done = true
			return false
		}
		return true
	}
	if g.m.pre != nil {
		g.m.pre.Lines(block, '\n', line)
	} else {
		for at := 0; at < len(block); {
			end := bytes.IndexByte(block[at:], '\n')
			if end < 0 {
				end = len(block)
			} else {
				end += at
			}
			if !line(at, end) {
				break
			}
			at = end + 1
		}
	}
	if done || g.stop {
		return true
	}
	if g.lineNum {
		c.num += int64(bytes.Count(block[counted:], []byte{'\n'}))
		if len(block) > 0 && block[len(block)-1] != '\n' {
			c.num++
		}
	}
	c.off += int64(len(block))
	return false
}
