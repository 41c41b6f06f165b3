package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Disk space: the stores of one data directory share a Space, which knows the
// filesystem holding them, keeps a reserve file on it so that deletes and
// truncates can run when it is full, and bounds the bytes they take together.
// See doc.go ("Disk space") and docs/decisions.md.

// ReserveFile is the name of the reserve file a Space keeps in its directory.
const ReserveFile = "space.reserve"

// DefaultReserve is the reserve's size when SpaceOptions.Reserve is 0, capped at
// a sixteenth of the filesystem. It is four times DefaultCheckpoint: what the
// WAL of a store that only deletes can grow to before a TRUNCATE checkpoint
// cuts it.
const DefaultReserve = 64 << 20

// SpaceOptions configure a Space.
type SpaceOptions struct {
	// Dir is the directory whose filesystem holds the stores (the data
	// directory). The reserve file is kept in it, and the bound counts the
	// bytes of the files below it. Required.
	Dir string
	// Reserve is the size of the reserve file. 0 means DefaultReserve (at most
	// a sixteenth of the filesystem); a negative value keeps none.
	Reserve int64
	// Limit bounds the bytes the files below Dir take on disk (st_blocks; the
	// reserve file is not counted). Writes that would pass it fail with
	// ENOSPC. 0 means no bound.
	Limit int64
	// Logger receives the reserve's release and restoration. Default
	// slog.Default().
	Logger *slog.Logger
	// Shared keeps the bound's count of used bytes in the file UsedFile in
	// Dir, mapped into memory and changed atomically, so that every
	// process serving Dir (desk serve's front and its workspace workers)
	// counts against one figure and the bound holds for all of them
	// together. Without Shared each Space counts alone.
	Shared bool
	// Attach, with Shared, takes the count the file holds instead of
	// measuring Dir (a worker; the process that opens first, holding the
	// data directory's lock, measures and writes it). A file that holds no
	// count yet is measured anyway.
	Attach bool
}

// UsedFile is the file of a shared Space's count (SpaceOptions.Shared).
const UsedFile = "space.used"

// Space is the disk space shared by the stores of one data directory (pass it
// in Options.Space to each). It is safe for concurrent use.
//
// A store's write is admitted when its new content fits, twice over (the WAL
// and then the database file hold it until the next checkpoint), in the
// smallest of: the store's quota left, the filesystem's free space beyond the
// reserve, and the bound left; the store's own free pages count as free.
// Calls that free content or inodes (remove, rmdir, truncate, overwriting with
// less) are always admitted. When SQLite still finds the disk full (something
// else filled it), the reserve file is emptied, so that those calls have room,
// and they are retried once; it is allocated again once the filesystem has
// twice its size free.
type Space struct {
	dir     string
	reserve string // path of the reserve file; "" when none is kept
	size    int64  // the reserve's size
	limit   int64
	log     *slog.Logger

	mu   sync.Mutex
	held bool // the reserve file holds its blocks

	// used is the bytes of the files below dir (limit > 0), as measured
	// last and changed since: own, or in the shared mapping (atomic).
	used *int64
}

// OpenSpace creates or reuses the reserve file in opts.Dir and, when a bound
// is set, measures the bytes below opts.Dir (one lstat per file). A
// filesystem too full to hold the reserve is not an error: the reserve is
// taken once space comes back.
func OpenSpace(ctx context.Context, opts SpaceOptions) (*Space, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open space: %w", err)
	}
	if opts.Dir == "" {
		return nil, errors.New("open space: no directory")
	}
	if opts.Limit < 0 {
		return nil, fmt.Errorf("open space: negative limit %d", opts.Limit)
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("open space: %w", err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return nil, fmt.Errorf("open space: statfs %s: %w", dir, err)
	}
	s := &Space{dir: dir, limit: opts.Limit, log: opts.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	switch size := opts.Reserve; {
	case size == 0:
		s.size = min(DefaultReserve, int64(st.Blocks)*st.Bsize/16)
	case size > 0:
		s.size = size
	}
	if s.size > 0 {
		s.reserve = filepath.Join(dir, ReserveFile)
		s.mu.Lock()
		err := s.take()
		s.mu.Unlock()
		if err != nil && !errors.Is(err, syscall.ENOSPC) {
			return nil, fmt.Errorf("open space: %w", err)
		}
		if err != nil {
			s.log.Warn("disk full: the reserve for deletes is not held yet", "dir", dir, "reserve", s.size)
		}
	}
	s.used = new(int64)
	if s.limit == 0 {
		return s, nil
	}
	measure := true
	if opts.Shared {
		p, fresh, err := mapCount(filepath.Join(dir, UsedFile))
		if err != nil {
			return nil, fmt.Errorf("open space: %w", err)
		}
		s.used, measure = p, !opts.Attach || fresh
	}
	if measure {
		n, err := dirBytes(ctx, dir, s.reserve)
		if err != nil {
			return nil, fmt.Errorf("open space: %w", err)
		}
		atomic.StoreInt64(s.used, n)
	}
	return s, nil
}

// countMagic marks a count file that holds a count (its second word).
const countMagic = 0x6465736b75736564 // "deskused"

// mapCount maps the count file file (made if need be, mode 0600) and
// returns its count's word; fresh says it held no count yet. The mapping
// lasts as long as the process: a Space is opened once per process.
func mapCount(file string) (*int64, bool, error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("map space count: %w", err)
	}
	defer f.Close()
	if err := f.Truncate(16); err != nil {
		return nil, false, fmt.Errorf("map space count: %w", err)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, 16, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, false, fmt.Errorf("map space count: %w", err)
	}
	magic := (*int64)(unsafe.Pointer(&b[0]))
	fresh := !atomic.CompareAndSwapInt64(magic, countMagic, countMagic)
	if fresh {
		atomic.StoreInt64(magic, countMagic)
	}
	return (*int64)(unsafe.Pointer(&b[8])), fresh, nil
}

// take allocates the reserve file's blocks (s.mu held).
func (s *Space) take() error {
	f, err := os.OpenFile(s.reserve, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("reserve: %w", err)
	}
	defer f.Close()
	var fi unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &fi); err == nil && fi.Blocks*512 >= s.size {
		s.held = true
		return nil
	}
	if err := unix.Fallocate(int(f.Fd()), 0, 0, s.size); err != nil {
		f.Truncate(0)
		return fmt.Errorf("reserve: allocate %d bytes: %w", s.size, err)
	}
	s.held = true
	return nil
}

// release empties the reserve file, reporting whether it held anything.
func (s *Space) release() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.held {
		return false
	}
	if err := os.Truncate(s.reserve, 0); err != nil {
		s.log.Error("disk full: cannot release the reserve", "dir", s.dir, "error", err)
		return false
	}
	s.held = false
	s.log.Warn("disk full: released the reserve so that deletes and truncates can run",
		"dir", s.dir, "reserve", s.size)
	return true
}

// room is what the filesystem and the bound leave for writes: bytes free
// beyond the reserve, which bound is the smallest (LimitDisk or
// LimitDataDir), and the Space's state. The reserve is taken again here once
// the filesystem has twice its size free.
func (s *Space) room() (free int64, by string, st spaceState, err error) {
	var sfs unix.Statfs_t
	if err := unix.Statfs(s.dir, &sfs); err != nil {
		return 0, "", st, fmt.Errorf("statfs %s: %w", s.dir, err)
	}
	avail := int64(sfs.Bavail) * sfs.Bsize
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.size > 0 && !s.held && avail >= 2*s.size {
		if err := s.take(); err == nil {
			avail -= s.size
			s.log.Info("disk space is back: the reserve is held again", "dir", s.dir, "reserve", s.size)
		}
	}
	free, by = avail, LimitDisk
	if !s.held {
		free -= s.size // kept for deletes until the reserve can be taken again
	}
	used := atomic.LoadInt64(s.used)
	if s.limit > 0 && s.limit-used < free {
		free, by = s.limit-used, LimitDataDir
	}
	st = spaceState{Reserve: s.size, Held: s.held, Limit: s.limit, Used: used,
		DiskTotal: int64(sfs.Blocks) * sfs.Bsize, DiskAvail: int64(sfs.Bavail) * sfs.Bsize}
	return max(free, 0), by, st, nil
}

// spaceState is what Statfs reports of a Space.
type spaceState struct {
	Reserve   int64 // the reserve's size (0: none)
	Held      bool  // the reserve file holds its blocks
	Limit     int64 // the bound (0: none)
	Used      int64 // bytes below the directory, as measured (Limit > 0)
	DiskTotal int64 // the filesystem's size
	DiskAvail int64 // its free space (statfs f_bavail)
}

// add accounts a change of n bytes in the files below the directory.
func (s *Space) add(n int64) {
	if s == nil || s.limit == 0 || n == 0 {
		return
	}
	atomic.AddInt64(s.used, n)
}

// Removed accounts for files below the directory that the caller removed, of
// n bytes (StoreBytes measured before the removal).
func (s *Space) Removed(n int64) { s.add(-n) }

// Limit is the bound on the bytes below the directory (0: none).
func (s *Space) Limit() int64 { return s.limit }

// Reserve is the reserve file's size (0: none kept).
func (s *Space) Reserve() int64 { return s.size }

// Used is the bytes the files below the directory take, as measured last
// (0 when no bound is set: they are not counted then).
func (s *Space) Used() int64 {
	if s.limit == 0 {
		return 0
	}
	return atomic.LoadInt64(s.used)
}

// Held reports whether the reserve file holds its blocks now (false after
// a full disk made the Space release it, until space comes back).
func (s *Space) Held() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// StoreBytes is the disk space a store's files take (the database, its WAL,
// shared-memory index, rollback journal and chunk file; st_blocks), 0 for
// those missing.
func StoreBytes(path string) int64 {
	var n int64
	for _, s := range []string{"", "-wal", "-shm", "-journal", ChunkFileSuffix} {
		var st unix.Stat_t
		if unix.Lstat(path+s, &st) == nil {
			n += st.Blocks * 512
		}
	}
	return n
}

// dirBytes sums the disk space of the regular files below dir, but skip.
func dirBytes(ctx context.Context, dir, skip string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == skip || !d.Type().IsRegular() && !d.IsDir() {
			return nil
		}
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil {
			n += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("measure %s: %w", dir, err)
	}
	return n, nil
}

// spaceError is an ENOSPC that says which bound was reached, and keeps the
// cause when SQLite found the disk full. It reads as ENOSPC for errno
// matching.
type spaceError struct {
	why   string
	by    string // LimitQuota, LimitDisk or LimitDataDir (refusals by admit)
	cause error
}

func (e *spaceError) Error() string {
	if e.by == LimitQuota {
		return "disk quota exceeded (" + e.why + ")"
	}
	return "no space left on device (" + e.why + ")"
}

// Unwrap reads as ENOSPC, and as EDQUOT first for the workspace's own quota
// (bytes or inodes): vfs.Errno gives EDQUOT, errors.Is(err, ENOSPC) still
// holds (a quota is a bound on space).
func (e *spaceError) Unwrap() []error {
	switch {
	case e.by == LimitQuota:
		return []error{syscall.EDQUOT, syscall.ENOSPC}
	case e.cause == nil:
		return []error{syscall.ENOSPC}
	}
	return []error{syscall.ENOSPC, e.cause}
}

// errNoSpace is the error of a write refused for lack of room, by which bound.
func errNoSpace(by, why string) error { return &spaceError{why: why, by: by} }
