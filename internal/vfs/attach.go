package vfs

// Attached returns the value the layers above keep with this store under
// key, made by init the first time (concurrent first calls may each run
// init; one result is kept and returned to all). The value lives as long as
// the open store: every handle of it (WithCommitDelay's too) sees the same
// one, and a store opened again starts without. It is for state that
// belongs to one store rather than to a package: package gitws keeps its
// file locks and its tree cache here. key should be a value of an
// unexported type of the caller's package, as a context key.
func (f *FS) Attached(key any, init func() any) any {
	if v, ok := f.attached.Load(key); ok {
		return v
	}
	v, _ := f.attached.LoadOrStore(key, init())
	return v
}
