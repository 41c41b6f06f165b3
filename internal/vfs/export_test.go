package vfs

// Settle has the background checkpointer run at once, checkpoint whatever the
// WAL holds and reclaim free pages until none is left to reclaim, and returns
// when it is done: the event the space tests wait for.
func (f *FS) Settle() {
	if f.ckptSettle == nil {
		return
	}
	done := make(chan struct{})
	select {
	case f.ckptSettle <- done:
		<-done
	case <-f.closeCh:
	}
}

// SchemaVersion is the schema version this code writes.
const SchemaVersion = schemaVersion

// ChunkFileSyncs is how many times the chunk file was fdatasync'd, and
// whether slots were written since the last time.
func (f *FS) ChunkFileSyncs() (n int64, unsynced bool) {
	return f.slots.syncs.Load(), f.slots.unsynced.Load()
}
