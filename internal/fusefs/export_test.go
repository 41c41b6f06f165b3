package fusefs

import "time"

// Rereads is how many directory seeks of s so far read a directory again
// from its start (see dirHandle.Seekdir).
func (s *Server) Rereads() int64 { return s.rereads.Load() }

// TraceRecord counts a request of opcode op that took d.
func TraceRecord(t *Tracer, op string, d time.Duration) {
	for i, name := range traceOpNames {
		if name == op {
			t.add(i, d, false, 0)
			return
		}
	}
	panic("unknown opcode " + op)
}
