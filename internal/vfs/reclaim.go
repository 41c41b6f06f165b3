package vfs

import (
	"context"
	"fmt"
	"syscall"

	"github.com/desk-dev/desk/internal/sqlite"
)

// Reclaiming space. Freed chunks and pages become free pages of the database
// file. A store made since issue 21 is in SQLite's incremental auto-vacuum
// mode (PRAGMA auto_vacuum=INCREMENTAL, set before its tables exist), and the
// checkpointer gives free pages back to the filesystem: when they hold more
// than reclaimMin bytes, it runs PRAGMA incremental_vacuum for at most
// reclaimPages of them on the writer connection (a write transaction of its
// own, between commits, under wmu), then a PASSIVE checkpoint, which copies
// the vacuum's commit into the file and cuts the file to its new size. It
// does not when less than CheckpointBytes are left outside the store (on the
// disk beyond the reserve, or under the data directory's bound): there the
// free pages are the room of the store's next checkpoint. A
// store made before keeps its free pages for its own writes until Compact
// converts it (a VACUUM, once).

// reclaimPages bounds the pages one incremental vacuum frees: it holds the
// writer for the time it takes to move them (2 MiB of 8 KiB pages): with 1024
// a write right after a 64 MiB delete took 8–10 times as long
// (BenchmarkOverwrite1MiBIn64MiB, docs/benchmarks.md), with 256 as long as
// without auto-vacuum.
const reclaimPages = 256

// reclaimMin is the free space a store keeps for its own writes before the
// checkpointer gives it back: a quarter of CheckpointBytes (16 MiB by default).
func (f *FS) reclaimMin(pageSize int64) int64 {
	return max(f.opts.CheckpointBytes/4, 8*pageSize)
}

// reclaim frees up to reclaimPages free pages when more than reclaimMin bytes
// are free, and reports whether more are left to free. c is the
// checkpointer's connection.
func (f *FS) reclaim(c *sqlite.Conn) (more bool) {
	if !f.incremental.Load() {
		return false
	}
	ps, err := f.pageSize(c)
	if err != nil {
		return false
	}
	free, err := queryInt(c, "PRAGMA freelist_count")
	if err != nil || free*ps <= f.reclaimMin(ps) {
		return false
	}
	// On a disk (or under a bound) with less than CheckpointBytes left
	// outside the store, the free pages stay: they are the room the next
	// checkpoint copies the WAL into (a checkpoint that must grow the file
	// on a full disk cannot finish, and then the WAL cannot restart), and
	// given back they would only let other writers fill the disk.
	room, _, _, err := f.room(c)
	if err != nil || room-free*ps < f.opts.CheckpointBytes {
		return false
	}
	n := min(free, reclaimPages)
	f.wmu.Lock()
	ran := !f.closed.Load() && f.pend == nil
	if ran {
		err = f.w.Exec(fmt.Sprintf("PRAGMA incremental_vacuum(%d)", n))
	}
	f.wmu.Unlock()
	if !ran || err != nil {
		f.checkpointFull(err)
		return false
	}
	f.checkpointFull(c.Exec("PRAGMA wal_checkpoint(PASSIVE)"))
	return free-n > 0 && (free-n)*ps > f.reclaimMin(ps)
}

// Compact gives every free page of the store back to the filesystem and
// truncates the WAL, after committing deferred changes. A store made before
// incremental auto-vacuum is converted first, with a VACUUM: that rewrites the
// whole database through the WAL (the disk needs room for the store's live
// pages) and holds the writer while it runs. `desk fs compact` calls it.
func (f *FS) Compact(ctx context.Context) error {
	const op = "compact"
	if f.opts.ReadOnly {
		return perr(op, "/", syscall.EROFS)
	}
	if err := f.Commit(ctx); err != nil {
		return err
	}
	if err := f.commitDrops(ctx); err != nil {
		return err
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	if f.closed.Load() {
		return perr(op, "/", syscall.EBADF)
	}
	if f.pend != nil {
		if err := f.commitTx(f.pend); err != nil {
			return asPathErr(op, "/", err)
		}
	}
	if !f.incremental.Load() {
		if err := f.w.Exec("PRAGMA auto_vacuum=INCREMENTAL; VACUUM"); err != nil {
			return asPathErr(op, "/", fmt.Errorf("vacuum: %w", err))
		}
		av, err := queryInt(f.w, "PRAGMA auto_vacuum")
		if err != nil {
			return asPathErr(op, "/", err)
		}
		f.incremental.Store(av == 2)
	} else if err := f.w.Exec("PRAGMA incremental_vacuum"); err != nil {
		return asPathErr(op, "/", fmt.Errorf("incremental vacuum: %w", err))
	}
	if err := f.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil && !sqlite.IsBusy(err) {
		return asPathErr(op, "/", fmt.Errorf("checkpoint: %w", err))
	}
	f.measure(nil)
	return nil
}
