package vfs

import (
	"errors"
	"fmt"
	"syscall"
)

// limits are the store's quota values, changeable while it is open
// (SetLimits): Options.QuotaBytes and Options.MaxInodes as Open received
// them, then as SetLimits set them. Read without locks (atomics); a write
// transaction reads them once it holds wmu.

// quotaBytes is the store's quota of unique content bytes in force.
func (f *FS) quotaBytes() int64 { return f.quota.Load() }

// maxInodes is the store's bound on inodes in force.
func (f *FS) maxInodes() int64 { return f.inodeMax.Load() }

// SetLimits changes the store's quota of unique content bytes
// (Options.QuotaBytes) and its bound on inodes (Options.MaxInodes) while
// it is open; 0 keeps a value as it is. A write that would pass a new
// value fails with EDQUOT from the next write on, as at the quota given to
// Open; nothing stored is removed when a value falls below what is used
// (only deletes and truncates succeed then, until the store is under it).
// A negative value is EINVAL.
func (f *FS) SetLimits(quotaBytes, maxInodes int64) error {
	if quotaBytes < 0 || maxInodes < 0 {
		return fmt.Errorf("set limits: %w", errors.Join(syscall.EINVAL, fmt.Errorf("quota %d bytes, %d inodes: want positive values (0 keeps one)", quotaBytes, maxInodes)))
	}
	if quotaBytes > 0 {
		f.quota.Store(quotaBytes)
	}
	if maxInodes > 0 {
		f.inodeMax.Store(maxInodes)
	}
	return nil
}
