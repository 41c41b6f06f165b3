package initproc

import (
	"os"
	"sync"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// stdinPipe feeds the host's Stdin frames to a program's stdin pipe on a
// goroutine of its own, acknowledging each frame once written (or dropped,
// when the program closed its end), so the host never sends more than limit
// bytes ahead and the read loop never blocks on a program.
type stdinPipe struct {
	s      *server
	stream uint32
	w      *os.File
	limit  int
	// atEOF, if set, returns what to write at the end of input before
	// closing (a terminal's end-of-file character).
	atEOF func() []byte

	mu     sync.Mutex
	cond   *sync.Cond
	q      [][]byte
	bytes  int
	eof    bool // the host sent the end
	closed bool // the execution ended: stop
}

func newStdinPipe(s *server, stream uint32, w *os.File, limit int) *stdinPipe {
	p := &stdinPipe{s: s, stream: stream, w: w, limit: limit}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// push queues b (empty: the end of input). It reports false when the host
// sent more than its window.
func (p *stdinPipe) push(b []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		// The program is gone; acknowledge so that the host's window drains.
		if len(b) > 0 {
			go p.s.send(wire.Count(wire.TStdinAck, p.stream, uint32(len(b))))
		}
		return true
	case len(b) == 0:
		p.eof = true
	case p.bytes+len(b) > p.limit:
		return false
	default:
		p.q = append(p.q, b)
		p.bytes += len(b)
	}
	p.cond.Signal()
	return true
}

// run writes queued input to the pipe until the end of input or close.
func (p *stdinPipe) run() {
	broken := false
	for {
		p.mu.Lock()
		for len(p.q) == 0 && !p.eof && !p.closed {
			p.cond.Wait()
		}
		if p.closed || len(p.q) == 0 {
			closed := p.closed
			p.mu.Unlock()
			if !closed && !broken && p.atEOF != nil {
				if b := p.atEOF(); len(b) > 0 {
					p.w.Write(b)
				}
			}
			p.w.Close()
			return
		}
		b := p.q[0]
		p.q[0] = nil
		p.q = p.q[1:]
		p.bytes -= len(b)
		p.mu.Unlock()
		if !broken {
			if _, err := p.w.Write(b); err != nil {
				broken = true // EPIPE: the program closed its stdin; drop the rest
			}
		}
		p.s.send(wire.Count(wire.TStdinAck, p.stream, uint32(len(b))))
	}
}

// close stops feeding the program (it ended, or it is detached) and closes
// the pipe, which also ends a write blocked on it.
func (p *stdinPipe) close() {
	p.mu.Lock()
	p.closed = true
	p.cond.Signal()
	p.mu.Unlock()
	p.w.Close()
}
