package vfs

import (
	"context"
	"sync"
	"time"
)

// Op names a kind of change in the journal.
type Op string

// Journal operations.
const (
	OpCreate   Op = "create"   // a regular file was created
	OpMkdir    Op = "mkdir"    // a directory was created
	OpSymlink  Op = "symlink"  // a symlink was created
	OpMknod    Op = "mknod"    // a FIFO, socket or device was created
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

// tailMax is how many of the newest changes the store keeps in memory.
const tailMax = 4096

// journalTail holds the newest committed changes in memory, as the commit
// that journaled them left them, so that a follower that keeps up (Subscribe,
// the FUSE server's journal follower, Changes with a recent cursor) is served
// without a query. The journal table stays the record: a cursor older than
// the tail is answered from it.
type journalTail struct {
	mu     sync.Mutex
	chs    []Change // consecutive sequence numbers, oldest first
	minSeq uint64   // oldest change the journal table retains (0: none yet)
	seq    uint64   // newest change committed (that the tail knows of)
}

// add appends the changes of a commit (Seq and Time set) and the journal's
// retention after it. wmu is held, so commits add in order.
func (j *journalTail) add(chs []Change, minSeq uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.chs)+len(chs) > 2*tailMax {
		keep := max(tailMax-len(chs), 0)
		j.chs = append(make([]Change, 0, 2*tailMax), j.chs[len(j.chs)-keep:]...)
	}
	for _, c := range chs {
		c.Time = time.Unix(0, c.Time.UnixNano()) // as the journal table gives it back
		j.chs = append(j.chs, c)
	}
	if len(j.chs) > 2*tailMax { // one commit larger than the tail
		j.chs = append([]Change(nil), j.chs[len(j.chs)-tailMax:]...)
	}
	j.minSeq = minSeq
	if n := len(chs); n > 0 {
		j.seq = chs[n-1].Seq
	}
}

// get answers Changes(since, limit) from memory; ok is false when the tail
// does not reach back to since.
func (j *journalTail) get(since uint64, limit int) (out []Change, ok bool, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if since > 0 && j.minSeq > since+1 {
		return nil, true, ErrJournalTruncated
	}
	if since >= j.seq {
		return nil, true, nil // nothing newer
	}
	if len(j.chs) == 0 || since+1 < j.chs[0].Seq {
		return nil, false, nil
	}
	i := int(since + 1 - j.chs[0].Seq)
	n := min(len(j.chs)-i, limit)
	return append([]Change(nil), j.chs[i:i+n]...), true, nil
}

// Changes returns up to limit changes with Seq > since, oldest first. When since
// is older than the journal's retained history it returns ErrJournalTruncated.
// Deferred changes (WithCommitDelay) are committed first, so the journal holds
// everything applied before the call.
func (f *FS) Changes(ctx context.Context, since uint64, limit int) ([]Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.pendOn.Load() {
		if err := f.commitNow(ctx, "changes"); err != nil {
			return nil, err
		}
	}
	return f.changes(since, limit)
}

// changes is Changes without the commit: what is committed (the follower
// behind Subscribe reads on, and must not force a commit per commit).
func (f *FS) changes(since uint64, limit int) ([]Change, error) {
	if limit <= 0 {
		limit = 1000
	}
	if out, ok, err := f.tail.get(since, limit); ok {
		return out, err
	}
	return f.changesSQL(since, limit)
}

// changesSQL is Changes answered from the journal table.
func (f *FS) changesSQL(since uint64, limit int) ([]Change, error) {
	c, err := f.readerRaw() // the journal holds only committed changes

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
			if err := ctx.Err(); err != nil {
				return
			}
			chs, err := f.changes(since, 1000)
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
