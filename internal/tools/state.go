package tools

import (
	"container/list"
	"sync"
	"sync/atomic"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// State is what the tool sets of one store share: the per-path locks that
// serialise tool calls on a path, and the remembered read offsets. Its owner
// keeps one per open store (the host keeps one per open workspace, see
// host.Lease.Tools) and makes Sets over it per call; two States over one store
// would let a write and an edit of the same file interleave. It is safe for
// concurrent use.
type State struct {
	fs    *vfs.FS
	mu    sync.Mutex
	locks map[string]*pathLock
	index lineIndex
	// bytesRead counts file bytes read by read (tests check continuations).
	bytesRead atomic.Int64
}

// NewState returns the shared tool state of the store fsys.
func NewState(fsys *vfs.FS) *State {
	st := &State{fs: fsys, locks: map[string]*pathLock{}}
	st.index.init()
	return st
}

// pathLock serialises tool calls on one path: readers share it, writers
// (write, edit, delete) hold it alone. Entries exist only while held.
type pathLock struct {
	rw   sync.RWMutex
	refs int
}

// lock locks path p (shared unless excl) and returns the unlock function.
func (st *State) lock(p string, excl bool) func() {
	st.mu.Lock()
	l := st.locks[p]
	if l == nil {
		l = &pathLock{}
		st.locks[p] = l
	}
	l.refs++
	st.mu.Unlock()
	if excl {
		l.rw.Lock()
	} else {
		l.rw.RLock()
	}
	return func() {
		if excl {
			l.rw.Unlock()
		} else {
			l.rw.RUnlock()
		}
		st.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(st.locks, p)
		}
		st.mu.Unlock()
	}
}

// fileID identifies one version of a file's content for the line index:
// any write changes its size, mtime or ctime.
type fileID struct {
	ino, gen     uint64
	size         int64
	mtime, ctime time.Time
}

func idOf(a vfs.Attr) fileID {
	return fileID{ino: a.Ino, gen: a.Gen, size: a.Size, mtime: a.Mtime, ctime: a.Ctime}
}

// lineIndex remembers, per file, the byte offsets of lines where reads
// stopped, so that a continued read seeks there instead of reading the
// prefix again. It is bounded by a count of files (least recently used go).
type lineIndex struct {
	mu    sync.Mutex
	lru   *list.List // of *indexEntry, most recent first
	byIno map[uint64]*list.Element
}

type indexEntry struct {
	id    fileID
	marks map[int]int64 // line number (1-based) → byte offset of its start
}

// maxMarks bounds the offsets remembered per file.
const maxMarks = 64

func (x *lineIndex) init() {
	x.lru, x.byIno = list.New(), map[uint64]*list.Element{}
}

// nearest returns the remembered line ≤ line closest to it and its offset
// (1, 0 when none) for the file version id.
func (x *lineIndex) nearest(id fileID, line int) (int, int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	el, ok := x.byIno[id.ino]
	if !ok {
		return 1, 0
	}
	e := el.Value.(*indexEntry)
	if e.id != id {
		return 1, 0
	}
	x.lru.MoveToFront(el)
	best, off := 1, int64(0)
	for l, o := range e.marks {
		if l <= line && l > best {
			best, off = l, o
		}
	}
	return best, off
}

// remember records that line starts at byte off in the file version id,
// keeping at most max files (the calling set's Options.LineIndexFiles).
func (x *lineIndex) remember(id fileID, line int, off int64, max int) {
	if line <= 1 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	el, ok := x.byIno[id.ino]
	var e *indexEntry
	if ok {
		e = el.Value.(*indexEntry)
		x.lru.MoveToFront(el)
		if e.id != id {
			e.id, e.marks = id, map[int]int64{}
		}
	} else {
		e = &indexEntry{id: id, marks: map[int]int64{}}
		x.byIno[id.ino] = x.lru.PushFront(e)
		for x.lru.Len() > max {
			old := x.lru.Back()
			x.lru.Remove(old)
			delete(x.byIno, old.Value.(*indexEntry).id.ino)
		}
	}
	if len(e.marks) >= maxMarks {
		for l := range e.marks { // drop any one
			delete(e.marks, l)
			break
		}
	}
	e.marks[line] = off
}
