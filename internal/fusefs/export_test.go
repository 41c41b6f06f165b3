package fusefs

// Rereads is how many directory seeks of s so far read a directory again
// from its start (see dirHandle.Seekdir).
func (s *Server) Rereads() int64 { return s.rereads.Load() }
