package fusefs

// Rereads is how many directory seeks so far read a directory again from
// its start (see dirHandle.Seekdir).
func Rereads() int64 { return rereads.Load() }
