package vfs

import (
	"context"
	"time"
)

// Op names a kind of change in the journal.
type Op string

// Journal operations.
const (
	OpCreate   Op = "create"   // a regular file was created
	OpMkdir    Op = "mkdir"    // a directory was created
	OpSymlink  Op = "symlink"  // a symlink was created
	OpLink     Op = "link"     // a hard link was added (OldPath: an existing name)
	OpRemove   Op = "remove"   // a name was removed (the inode may live on under other names)
	OpRename   Op = "rename"   // OldParent/OldName/OldPath moved to Parent/Name/Path
	OpExchange Op = "exchange" // two names swapped inodes (RenameExchange)
	OpWrite    Op = "write"    // content changed in [Off, Off+Len)
	OpTruncate Op = "truncate" // size set to Off
	OpSetattr  Op = "setattr"  // mode, owner, times or xattrs changed
)

// Change is one journal entry. Every mutation is numbered (Seq) in the same
// transaction as the mutation itself, so the journal never disagrees with the data.
type Change struct {
	Seq       uint64
	Time      time.Time
	Op        Op
	Ino       uint64
	Parent    uint64 // directory of Name (0 when not a directory-entry change)
	Name      string
	Path      string // the path affected (for writes: one name of the inode)
	OldParent uint64 // for rename and exchange
	OldName   string
	OldPath   string // for rename/exchange; for link, the existing name
	Off       int64  // for write: first byte changed; for truncate: the new size
	Len       int64  // for write: bytes changed
	Actor     string // who made the change (WithActor), "" when unknown
}

type actorKey struct{}

// WithActor returns a context whose mutations are recorded in the journal as
// made by actor (an execution id, an API token id...), so a caller can tell its
// own changes from concurrent ones. Flushes of handle writes are attributed to
// the context that caused them (Sync, Close, or the write that filled the buffer).
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

func actorOf(ctx context.Context) string {
	a, _ := ctx.Value(actorKey{}).(string)
	return a
}

// Seq returns the sequence number of the newest committed change.
func (f *FS) Seq() uint64 { return f.seqPub.Load() }

func (f *FS) publish(seq uint64) {
	f.seqPub.Store(seq)
	f.nmu.Lock()
	close(f.notify)
	f.notify = make(chan struct{})
	f.nmu.Unlock()
}

// Changes returns up to limit changes with Seq > since, oldest first. When since
// is older than the journal's retained history it returns ErrJournalTruncated.
func (f *FS) Changes(ctx context.Context, since uint64, limit int) ([]Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 1000
	}
	c, err := f.reader()
	if err != nil {
		return nil, err
	}
	defer f.putReader(c)
	if since > 0 {
		min, err := queryUint(c, "SELECT coalesce(min(seq), 0) FROM journal")
		if err != nil {
			return nil, err
		}
		if min > since+1 {
			return nil, ErrJournalTruncated
		}
	}
	var out []Change
	st, err := c.Prep(`SELECT seq, time, op, ino, parent, name, path, old_parent, old_name, old_path, off, len, actor
		FROM journal WHERE seq > ? ORDER BY seq LIMIT ?`)
	if err != nil {
		return nil, err
	}
	defer st.Reset()
	if err := st.Bind(since, limit); err != nil {
		return nil, err
	}
	for st.Step() {
		out = append(out, Change{
			Seq: uint64(st.Int64(0)), Time: time.Unix(0, st.Int64(1)), Op: Op(st.Text(2)),
			Ino: uint64(st.Int64(3)), Parent: uint64(st.Int64(4)), Name: st.Text(5), Path: st.Text(6),
			OldParent: uint64(st.Int64(7)), OldName: st.Text(8), OldPath: st.Text(9),
			Off: st.Int64(10), Len: st.Int64(11), Actor: st.Text(12),
		})
	}
	return out, st.Err()
}

// Wait blocks until a change newer than since is committed, ctx is done or the
// store closes. It returns nil when there is something new.
func (f *FS) Wait(ctx context.Context, since uint64) error {
	for {
		f.nmu.Lock()
		ch := f.notify
		f.nmu.Unlock()
		if f.Seq() > since {
			return nil
		}
		if f.closed.Load() {
			return ErrClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Subscribe streams changes with Seq > since on the returned channel until ctx is
// done or the store closes; then the channel is closed and the error function
// reports why (nil for ctx cancellation). A consumer that falls behind the
// journal's retention gets ErrJournalTruncated.
func (f *FS) Subscribe(ctx context.Context, since uint64) (<-chan Change, func() error) {
	out := make(chan Change, 256)
	var ferr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		for {
			if err := f.Wait(ctx, since); err != nil {
				if ctx.Err() == nil {
					ferr = err
				}
				return
			}
			chs, err := f.Changes(ctx, since, 1000)
			if err != nil {
				if ctx.Err() == nil {
					ferr = err
				}
				return
			}
			for _, c := range chs {
				select {
				case out <- c:
					since = c.Seq
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, func() error { <-done; return ferr }
}
