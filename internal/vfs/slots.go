package vfs

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/sqlite"
)

// ChunkFileSuffix names the chunk file beside a store's database file (path +
// ChunkFileSuffix): the bytes of its full-size chunks, outside SQLite (see
// slotFile). It belongs to the store as its -wal does.
const ChunkFileSuffix = "-chunks"

// slotFile is the chunk file: full-size chunks (exactly the chunk size, the
// bulk of any large file) are stored in it instead of in chunk_data, each in
// a slot of the chunk size at offset slot × chunk size, named by the chunk's
// row (chunks.slot). Their bytes are written once, with pwrite, by the
// transaction that creates the row, and fdatasync'd before that transaction
// commits (or, for a staging batch whose rows no name reaches, before the
// next commit that is not one: tx.lazy); the WAL carries only the row. So no chunk byte is copied a second
// time by the checkpoint, and a read is a pread straight into the caller's
// buffer. Smaller chunks (a file's tail, small files) stay in SQLite.
//
// The rules that keep it consistent with the rows:
//   - A slot is written only while no committed row names it, so kill -9 or a
//     rollback can leave only unreferenced bytes (the slot returns to the
//     free list at once on rollback, and Open rebuilds the free list from the
//     rows: whatever no row names is free).
//   - A slot freed by a commit (its chunk's last reference gone) is reused
//     only once (a) every read that may still see the row has finished
//     (readers enter an epoch before their statement starts and leave it after
//     their pread; a free waits for the epochs at or before its commit) and
//     (b) the freeing commit is durable (the WAL fsync'd after it, by the
//     checkpointer), so a power loss that rolls the WAL back to a state where
//     the row lives again finds its bytes unchanged. Reused slots are hole-
//     punched when freed, so disk space is given back.
type slotFile struct {
	f  *os.File
	cs int64
	ro bool

	// unsynced says slots were written since the last fdatasync. Writes
	// and syncs run under the store's write lock (inside transactions).
	unsynced atomic.Bool
	syncs    atomic.Int64 // fdatasyncs done (for the tests)

	mu     sync.Mutex
	next   int64    // slots [0, next) are in use or free; the file is at least next × cs
	free   slotHeap // reusable slots (lowest first, so the file stays compact)
	pend   []slotFree
	epoch  uint64
	active map[uint64]int // readers inside, by the epoch they entered
}

// slotFree is a batch of slots freed by one commit at epoch.
type slotFree struct {
	epoch   uint64
	durable bool
	slots   []int64
}

type slotHeap []int64

func (h slotHeap) Len() int           { return len(h) }
func (h slotHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h slotHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slotHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *slotHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// openSlots opens (creating it if writable) the chunk file of the store at
// path and, writable, rebuilds the free list from the rows of c: every slot
// no row names is free (hole-punched), and the file is cut after the last
// named one. A read-only store without the file gets one that has no slots.
func openSlots(c *sqlite.Conn, path string, cs int64, readOnly bool) (*slotFile, error) {
	s := &slotFile{cs: cs, ro: readOnly, active: make(map[uint64]int)}
	flag := os.O_RDWR | os.O_CREATE
	if readOnly {
		flag = os.O_RDONLY
	}
	fd, err := os.OpenFile(path+ChunkFileSuffix, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil && !(readOnly && os.IsNotExist(err)) {
		return nil, fmt.Errorf("open chunk file: %w", err)
	}
	s.f = fd
	if readOnly {
		return s, nil
	}
	if fi, err := fd.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
		fd.Chmod(0o600)
	}
	var used []int64
	if err := c.Query("SELECT slot FROM chunks WHERE slot IS NOT NULL ORDER BY slot", nil, func(st *sqlite.Stmt) {
		used = append(used, st.Int64(0))
	}); err != nil {
		fd.Close()
		return nil, fmt.Errorf("read chunk slots: %w", err)
	}
	if len(used) > 0 {
		s.next = used[len(used)-1] + 1
	}
	var gaps []int64
	j := 0
	for slot := int64(0); slot < s.next; slot++ {
		if j < len(used) && used[j] == slot {
			j++
			continue
		}
		gaps = append(gaps, slot)
	}
	s.free = gaps
	heap.Init(&s.free)
	if err := s.punch(gaps); err != nil {
		fd.Close()
		return nil, err
	}
	if err := fd.Truncate(s.next * cs); err != nil {
		fd.Close()
		return nil, fmt.Errorf("cut chunk file: %w", err)
	}
	return s, nil
}

func (s *slotFile) close() error {
	if s == nil || s.f == nil {
		return nil
	}
	return s.f.Close()
}

// alloc takes a free slot (the lowest) or a new one at the end.
func (s *slotFile) alloc() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.free) > 0 {
		return heap.Pop(&s.free).(int64)
	}
	s.next++
	return s.next - 1
}

// giveBack returns slots that no committed row names (allocated by a
// transaction or savepoint that rolled back): free at once.
func (s *slotFile) giveBack(slots []int64) {
	if len(slots) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range slots {
		heap.Push(&s.free, x)
	}
}

// write stores data (exactly the chunk size) in slot.
func (s *slotFile) write(slot int64, data []byte) error {
	s.unsynced.Store(true)
	if _, err := s.f.WriteAt(data, slot*s.cs); err != nil {
		return chunkFileErr("write chunk file", err)
	}
	return nil
}

// chunkFileErr wraps an error of the chunk file; a full disk reads as the
// store's own full-disk error (the room admit measured went to another
// writer meanwhile: another workspace on the disk, a checkpoint).
func chunkFileErr(op string, err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return &spaceError{why: diskFullWhy, by: LimitDisk, cause: fmt.Errorf("%s: %w", op, err)}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// sync makes the slots written so far durable (before the commit that
// names them); with nothing written since the last sync it does nothing.
func (s *slotFile) sync() error {
	if !s.unsynced.Swap(false) {
		return nil
	}
	s.syncs.Add(1)
	if err := unix.Fdatasync(int(s.f.Fd())); err != nil {
		s.unsynced.Store(true)
		return chunkFileErr("sync chunk file", err)
	}
	return nil
}

// writeback starts writing slots to the disk without waiting
// (sync_file_range WRITE): a staging batch whose fdatasync a later commit
// does, which then finds most of the bytes written already.
func (s *slotFile) writeback(slots []int64) {
	if len(slots) == 0 || s.f == nil {
		return
	}
	slotRuns(slots, func(first, n int64) error {
		// An error only leaves the writeback to the kernel, or to the sync.
		unix.SyncFileRange(int(s.f.Fd()), first*s.cs, n*s.cs, unix.SYNC_FILE_RANGE_WRITE)
		return nil
	})
}

// slotRuns calls fn for each run of consecutive slots, in order (slots is
// sorted in a copy): its first slot and its length. The first error fn
// returns ends it.
func slotRuns(slots []int64, fn func(first, n int64) error) error {
	slots = slices.Clone(slots)
	slices.Sort(slots)
	for i := 0; i < len(slots); {
		j := i + 1
		for j < len(slots) && slots[j] == slots[j-1]+1 {
			j++
		}
		if err := fn(slots[i], int64(j-i)); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// read fills dst from slot at offset off within it. Call it between enter
// and leave.
func (s *slotFile) read(slot, off int64, dst []byte) error {
	if s.f == nil {
		return errMissingChunk
	}
	n, err := s.f.ReadAt(dst, slot*s.cs+off)
	if err == io.EOF && n < len(dst) {
		return errMissingChunk
	}
	if err != nil && n < len(dst) {
		return fmt.Errorf("read chunk file: %w", err)
	}
	return nil
}

// enter marks the start of a read that may reach the chunk file: slots freed
// from now on are not reused until it leaves. Call it before the statement
// that names the slots starts.
func (s *slotFile) enter() uint64 {
	s.mu.Lock()
	e := s.epoch
	s.active[e]++
	s.mu.Unlock()
	return e
}

// leave ends a read begun with enter.
func (s *slotFile) leave(e uint64) {
	s.mu.Lock()
	if s.active[e]--; s.active[e] <= 0 {
		delete(s.active, e)
	}
	var ready []int64
	if len(s.pend) > 0 {
		ready = s.releaseLocked()
	}
	s.mu.Unlock()
	s.reuse(ready)
}

// committed records the slots a commit freed; they wait for the readers
// that may see them and for the commit's durability.
func (s *slotFile) committed(freed []int64) {
	if len(freed) == 0 {
		return
	}
	s.mu.Lock()
	s.pend = append(s.pend, slotFree{epoch: s.epoch, slots: slices.Clone(freed)})
	s.epoch++
	s.mu.Unlock()
}

// pending reports whether freed slots wait for durability.
func (s *slotFile) pending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pend {
		if !p.durable {
			return true
		}
	}
	return false
}

// durableBefore marks the frees of commits before epoch e durable (the WAL
// was synced after them) and releases what no reader holds.
func (s *slotFile) durableBefore(e uint64) {
	s.mu.Lock()
	for i := range s.pend {
		if s.pend[i].epoch < e {
			s.pend[i].durable = true
		}
	}
	ready := s.releaseLocked()
	s.mu.Unlock()
	s.reuse(ready)
}

// reuse punches the released slots and then makes them free: in that order,
// so that no slot is written by a new chunk before its hole is punched.
func (s *slotFile) reuse(slots []int64) {
	if len(slots) == 0 {
		return
	}
	s.punch(slots) // a failure only keeps the old bytes' disk space
	s.mu.Lock()
	for _, x := range slots {
		heap.Push(&s.free, x)
	}
	s.mu.Unlock()
}

// mark is the epoch to pass to durableBefore after a WAL sync begun now.
func (s *slotFile) mark() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.epoch
}

// releaseLocked takes the durable frees no active reader can see off the
// pending list and returns them (for reuse, outside mu). s.mu is held.
func (s *slotFile) releaseLocked() []int64 {
	low := s.epoch + 1
	for e := range s.active {
		low = min(low, e)
	}
	var ready []int64
	keep := s.pend[:0]
	for _, p := range s.pend {
		if p.durable && p.epoch < low {
			ready = append(ready, p.slots...)
			continue
		}
		keep = append(keep, p)
	}
	clear(s.pend[len(keep):])
	s.pend = keep
	return ready
}

// punch gives the disk space of slots back (their bytes read as zeros).
func (s *slotFile) punch(slots []int64) error {
	if len(slots) == 0 || s.f == nil {
		return nil
	}
	return slotRuns(slots, func(first, n int64) error {
		err := unix.Fallocate(int(s.f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, first*s.cs, n*s.cs)
		if err != nil && err != unix.EOPNOTSUPP {
			return fmt.Errorf("punch chunk file: %w", err)
		}
		return nil
	})
}

// walSynced is run by the checkpointer: when freed slots wait for their
// commits' durability, it fsyncs the WAL and releases them.
func (f *FS) walSynced() {
	s := f.slots
	if s == nil || !s.pending() {
		return
	}
	e := s.mark()
	w, err := os.OpenFile(f.path+"-wal", os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err == nil {
		err = w.Sync()
		w.Close()
	}
	if err != nil && !os.IsNotExist(err) {
		return // retried at the next round
	}
	s.durableBefore(e)
}

// slotMark is where a savepoint starts in the transaction's slot lists.
type slotMark struct{ added, freed int }

func (t *tx) slotMark() slotMark { return slotMark{len(t.slotsNew), len(t.slotsFreed)} }

// slotUndo returns what a rolled-back savepoint (or the whole transaction,
// from the zero mark) allocated and forgets what it freed.
func (t *tx) slotUndo(m slotMark) {
	if t.f.slots != nil {
		t.f.slots.giveBack(t.slotsNew[m.added:])
	}
	t.slotsNew, t.slotsFreed = t.slotsNew[:m.added], t.slotsFreed[:m.freed]
}
