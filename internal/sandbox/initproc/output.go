package initproc

import (
	"math"
	"os"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// chunk is one read from a pipe; off is the output byte count before it.
type chunk struct {
	t    wire.Type
	data []byte
	off  int64
}

// stream sends one execution's output to the host. Fields are guarded by server.mu.
type stream struct {
	id     uint32
	x      *execution
	cursor uint64 // number of the next chunk to send
	off    int64  // output bytes sent or skipped so far
	credit int    // bytes it may still send
}

// read copies one of the program's pipes into its output, waiting (for an
// attached execution) while a window of output is waiting to be sent.
func (x *execution) read(f *os.File, t wire.Type) {
	s := x.s
	buf := make([]byte, wire.MaxData)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			data := append([]byte(nil), buf[:n]...)
			s.mu.Lock()
			for !x.detached && x.held >= s.cfg.OutputWindow {
				s.cond.Wait()
			}
			x.chunks = append(x.chunks, chunk{t: t, data: data, off: x.total})
			x.next++
			x.held += n
			x.total += int64(n)
			for x.detached && x.held > s.cfg.DetachedBuffer && len(x.chunks) > 1 {
				c := x.chunks[0]
				x.chunks[0] = chunk{}
				x.chunks = x.chunks[1:]
				x.base++
				x.held -= len(c.data)
				x.dropped += int64(len(c.data))
			}
			s.cond.Broadcast()
			s.mu.Unlock()
		}
		if err != nil {
			break
		}
	}
	f.Close()
	s.mu.Lock()
	x.pipesOpen--
	s.cond.Broadcast()
	s.mu.Unlock()
}

// pump sends the stream's execution's output, then its Exit.
func (st *stream) pump() {
	x := st.x
	s := x.s
	for {
		s.mu.Lock()
		for st.cursor >= x.base && !(st.cursor < x.next && st.credit > 0) && !(x.finished() && st.cursor >= x.next) {
			s.cond.Wait()
		}
		if st.cursor < x.base { // a detached buffer dropped output this reader had not seen
			off := x.total
			if len(x.chunks) > 0 {
				off = x.chunks[0].off
			}
			skipped := off - st.off
			st.cursor, st.off = x.base, off
			s.mu.Unlock()
			s.send(wire.Count(wire.TElided, st.id, uint32(min(skipped, math.MaxUint32))))
			continue
		}
		if st.cursor < x.next && st.credit > 0 {
			c := x.chunks[st.cursor-x.base]
			st.cursor++
			st.off = c.off + int64(len(c.data))
			st.credit -= len(c.data)
			if !x.detached { // the only reader: what it sent is no longer needed
				x.chunks[0] = chunk{}
				x.chunks = x.chunks[1:]
				x.base++
				x.held -= len(c.data)
				s.cond.Broadcast()
			}
			s.mu.Unlock()
			s.send(wire.Frame{Type: c.t, Stream: st.id, Payload: c.data})
			continue
		}
		e := x.exit
		delete(s.streams, st.id)
		s.mu.Unlock()
		s.send(wire.JSON(wire.TExit, st.id, e))
		return
	}
}
