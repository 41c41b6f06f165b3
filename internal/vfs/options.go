package vfs

import (
	"fmt"
	"log/slog"
	"time"
)

// Defaults for Options. Every limit is an option; a zero field takes its default.
// PathMax is Linux's PATH_MAX: the longest path a system call takes, its
// terminating NUL included.
const PathMax = 4096

const (
	DefaultChunkSize     = 64 << 10  // bytes per content chunk (see docs/decisions.md for the benchmark)
	DefaultInlineMax     = 2048      // regular files up to this size are held in their inode row (see Options.InlineMax)
	DefaultPageSize      = 8 << 10   // SQLite page size for new stores (see docs/decisions.md)
	DefaultMaxFileSize   = 64 << 30  // 64 GiB
	DefaultQuotaBytes    = 100 << 30 // 100 GiB of unique stored content
	DefaultMaxInodes     = 10_000_000
	DefaultMaxNameLen    = 255
	DefaultMaxPathLen    = 2 * PathMax // a path from the store's root: see Options.MaxPathLen
	DefaultCacheEntries  = 200_000
	DefaultJournalKeep   = 1_000_000
	DefaultDirtyBytes    = 8 << 20   // unflushed bytes per open file before an automatic flush
	DefaultMaxDirtyBytes = 256 << 20 // unflushed bytes of all open files together
	DefaultReaders       = 4
	DefaultCheckpoint    = 16 << 20 // WAL bytes before a background checkpoint (truncated past 4×: 64 MiB)
	DefaultGroupMax      = 64       // mutations committed together at most
	DefaultMaxXattrSize  = 64 << 10
	DefaultMaxXattrBytes = 1 << 20 // all xattrs of one inode together
	maxSymlinkHops       = 40
	maxInline            = 16 << 10 // the largest Options.InlineMax
)

// Options configure a store. The zero value gives the documented defaults.
type Options struct {
	// ReadOnly opens the store for reading only; every mutation fails with EROFS.
	// A read-only open never creates the database.
	ReadOnly bool
	// ChunkSize is the content chunk size, fixed when the store is created (later
	// opens use the stored value). Default DefaultChunkSize; must be a power of two
	// between 4 KiB and 4 MiB.
	ChunkSize int
	// InlineMax is the size up to which a regular file's content is held
	// in its inode row instead of in chunks (see Content in the package
	// documentation), fixed when the store is created (later opens use the
	// stored value). Default DefaultInlineMax (2 KiB, as Btrfs's
	// max_inline); negative: no file is held inline. At most ChunkSize and
	// 16 KiB.
	InlineMax int
	// PageSize is the SQLite page size used when the store is created. Default DefaultPageSize.
	PageSize int
	// MaxFileSize bounds a file's size (EFBIG). Default DefaultMaxFileSize.
	MaxFileSize int64
	// QuotaBytes bounds the unique content bytes stored (ENOSPC). Default DefaultQuotaBytes.
	QuotaBytes int64
	// MaxInodes bounds files+directories+symlinks (ENOSPC). Default DefaultMaxInodes.
	MaxInodes int64
	// MaxNameLen bounds a path component (ENAMETOOLONG). Default 255.
	MaxNameLen int
	// MaxPathLen bounds a whole path from the store's root (ENAMETOOLONG),
	// at most 8192. Default DefaultMaxPathLen, twice Linux's PATH_MAX: the
	// kernel's PATH_MAX bounds the path a process passes (relative to its
	// working directory), not how deep a file is below a mount's root, and a
	// sandbox's /workspace is the store's /workspace. With 8192, a path of
	// PATH_MAX−1 bytes relative to a mount whose root is up to 4096 bytes deep
	// in the store works (issue 21). A symlink target is bounded by
	// min(MaxPathLen, PathMax) as the kernel bounds it (the NUL included).
	MaxPathLen int
	// CacheEntries bounds the in-memory inode and directory-entry caches (each).
	// Default DefaultCacheEntries.
	CacheEntries int
	// JournalKeep is how many recent changes the journal retains. Default DefaultJournalKeep.
	JournalKeep int64
	// DirtyBytes is how many written-but-unflushed bytes an open file may hold
	// before they are flushed automatically. Default DefaultDirtyBytes.
	DirtyBytes int64
	// MaxDirtyBytes bounds the unflushed bytes of all open files together (the
	// memory they hold): past it, a writer flushes its file. Default
	// DefaultMaxDirtyBytes.
	MaxDirtyBytes int64
	// SyncWrites makes every File.Write and WriteAt durable before it returns, at
	// a large cost for small writes. By default handle writes become durable at
	// Sync and Close (and when DirtyBytes fill), as with fsync on a kernel filesystem.
	SyncWrites bool
	// MaxXattrSize bounds one extended attribute's value (E2BIG). Default
	// DefaultMaxXattrSize (64 KiB, as Linux).
	MaxXattrSize int
	// MaxXattrBytes bounds all extended attributes of one inode together, names
	// included (ENOSPC). Default DefaultMaxXattrBytes.
	MaxXattrBytes int64
	// Readers is the number of read connections. Default DefaultReaders.
	Readers int
	// GroupMax bounds how many concurrent callers' mutations one group commit
	// holds. Default DefaultGroupMax.
	GroupMax int
	// CheckpointBytes is the WAL size at which a background checkpoint copies it
	// into the database file. Default DefaultCheckpoint.
	CheckpointBytes int64
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Space is the disk space this store shares with the other stores of its
	// data directory: the reserve that keeps deletes working on a full disk
	// and the bound on them all (see Space). Without one, writes are admitted
	// against the free space of the filesystem holding the store, with no
	// reserve.
	Space *Space
	// Logger receives what has no caller to return to: a store running out of
	// space and having space again (once each), a checkpoint stopped by a
	// full disk. Default slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.ChunkSize == 0 {
		o.ChunkSize = DefaultChunkSize
	}
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.InlineMax == 0 {
		o.InlineMax = DefaultInlineMax
	}
	if o.MaxFileSize == 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.QuotaBytes == 0 {
		o.QuotaBytes = DefaultQuotaBytes
	}
	if o.MaxInodes == 0 {
		o.MaxInodes = DefaultMaxInodes
	}
	if o.MaxNameLen == 0 {
		o.MaxNameLen = DefaultMaxNameLen
	}
	if o.MaxPathLen == 0 {
		o.MaxPathLen = DefaultMaxPathLen
	}
	if o.CacheEntries == 0 {
		o.CacheEntries = DefaultCacheEntries
	}
	if o.JournalKeep == 0 {
		o.JournalKeep = DefaultJournalKeep
	}
	if o.DirtyBytes == 0 {
		o.DirtyBytes = DefaultDirtyBytes
	}
	if o.MaxDirtyBytes == 0 {
		o.MaxDirtyBytes = DefaultMaxDirtyBytes
	}
	if o.Readers == 0 {
		o.Readers = DefaultReaders
	}
	if o.MaxXattrSize == 0 {
		o.MaxXattrSize = DefaultMaxXattrSize
	}
	if o.MaxXattrBytes == 0 {
		o.MaxXattrBytes = DefaultMaxXattrBytes
	}
	if o.GroupMax == 0 {
		o.GroupMax = DefaultGroupMax
	}
	if o.CheckpointBytes == 0 {
		o.CheckpointBytes = DefaultCheckpoint
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// validate rejects options that cannot work.
func (o Options) validate() error {
	switch {
	case o.ChunkSize < 4<<10 || o.ChunkSize > 4<<20 || o.ChunkSize&(o.ChunkSize-1) != 0:
		return fmt.Errorf("chunk size %d: must be a power of two from 4 KiB to 4 MiB", o.ChunkSize)
	case o.InlineMax > o.ChunkSize || o.InlineMax > maxInline:
		return fmt.Errorf("inline size %d: must be at most the chunk size and %d", o.InlineMax, maxInline)
	case o.PageSize < 512 || o.PageSize > 65536 || o.PageSize&(o.PageSize-1) != 0:
		return fmt.Errorf("page size %d: must be a power of two from 512 to 65536", o.PageSize)
	case o.MaxFileSize < 0, o.QuotaBytes < 0, o.MaxInodes < 0, o.JournalKeep < 0, o.DirtyBytes < 0, o.MaxDirtyBytes < 0,
		o.CheckpointBytes < 0, o.MaxXattrBytes < 0:
		return fmt.Errorf("negative limit in options")
	case o.MaxNameLen < 0 || o.MaxNameLen > 255:
		return fmt.Errorf("name length limit %d: must be 1..255", o.MaxNameLen)
	case o.MaxPathLen < 0 || o.MaxPathLen > 2*PathMax:
		return fmt.Errorf("path length limit %d: must be 1..%d", o.MaxPathLen, 2*PathMax)
	case o.CacheEntries < 0, o.Readers < 0, o.GroupMax < 0, o.MaxXattrSize < 0:
		return fmt.Errorf("negative count in options")
	}
	return nil
}
