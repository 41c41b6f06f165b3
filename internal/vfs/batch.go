package vfs

import (
	"context"
	"io/fs"
	"syscall"
	"time"
)

// Batch groups many changes into one transaction: they become visible and
// durable together when Batch returns nil, or not at all. It is the fast path
// for bulk work (an import, a checkout): one commit instead of one per change.
//
// Operations inside fn see the batch's own earlier changes. The first failing
// operation poisons the batch: later ones return the same error and Batch rolls
// everything back. fn must not call the FS's own methods (they would wait for
// the batch's lock); use the Batch's.
func (f *FS) Batch(ctx context.Context, fn func(b *Batch) error) error {
	return f.update(ctx, "batch", "", func(t *tx) error {
		b := &Batch{t: t}
		if err := fn(b); err != nil {
			return err
		}
		return b.err
	})
}

// Batch is a transaction in progress; see FS.Batch.
type Batch struct {
	t   *tx
	err error
}

func (b *Batch) do(op, name string, fn func() error) error {
	if b.err != nil {
		return b.err
	}
	if err := fn(); err != nil {
		b.err = asPathErr(op, name, err)
		return b.err
	}
	return nil
}

// Mkdir is FS.Mkdir within the batch.
func (b *Batch) Mkdir(name string, perm fs.FileMode) error {
	return b.do("mkdir", name, func() error { return b.t.opMkdir(name, perm) })
}

// MkdirAll is FS.MkdirAll within the batch.
func (b *Batch) MkdirAll(name string, perm fs.FileMode) error {
	return b.do("mkdir", name, func() error { return b.t.opMkdirAll(name, perm) })
}

// WriteFile is FS.WriteFile within the batch; data is held in memory until the
// commit, so keep large files out of batches (use FS.WriteFileFrom).
func (b *Batch) WriteFile(name string, data []byte, perm fs.FileMode) error {
	return b.do("write", name, func() error {
		if int64(len(data)) > b.t.f.opts.MaxFileSize {
			return syscall.EFBIG
		}
		return b.t.opWriteContent(name, perm, nil, b.t.f.splitPieces(data), int64(len(data)))
	})
}

// Symlink is FS.Symlink within the batch.
func (b *Batch) Symlink(target, linkname string) error {
	return b.do("symlink", linkname, func() error { return b.t.opSymlink(target, linkname) })
}

// Mknod is FS.Mknod within the batch.
func (b *Batch) Mknod(name string, mode uint32, dev uint64) error {
	return b.do("mknod", name, func() error {
		if err := mknodType(mode); err != nil {
			return err
		}
		return b.t.opMknod(name, mode, dev)
	})
}

// Link is FS.Link within the batch.
func (b *Batch) Link(oldname, newname string) error {
	return b.do("link", oldname, func() error { return b.t.opLink(oldname, newname) })
}

// Remove is FS.Remove within the batch.
func (b *Batch) Remove(name string) error {
	return b.do("remove", name, func() error { return b.t.opRemove(name) })
}

// Rename is FS.Rename within the batch.
func (b *Batch) Rename(oldname, newname string, flags RenameFlags) error {
	return b.do("rename", oldname, func() error { return b.t.opRename(oldname, newname, flags) })
}

// Chmod is FS.Chmod within the batch.
func (b *Batch) Chmod(name string, mode fs.FileMode) error {
	return b.do("chmod", name, func() error { return b.t.opSetattr("chmod", name, true, chmodFn(mode)) })
}

// Lchown is FS.Lchown within the batch.
func (b *Batch) Lchown(name string, uid, gid int) error {
	return b.do("lchown", name, func() error { return b.t.opSetattr("lchown", name, false, chownFn(uid, gid)) })
}

// Utimens is FS.Utimens within the batch. Unlike FS.Utimens it does not first
// flush unflushed handle writes to the file (their mtime may win later).
func (b *Batch) Utimens(name string, atime, mtime time.Time, nofollow bool) error {
	return b.do("utimens", name, func() error { return b.t.opSetattr("utimens", name, !nofollow, utimensFn(atime, mtime)) })
}

// Setxattr is FS.Setxattr within the batch.
func (b *Batch) Setxattr(name, attr string, value []byte, flags int) error {
	return b.do("setxattr", name, func() error {
		if err := b.t.f.checkSetxattr(attr, value, flags); err != nil {
			return err
		}
		return b.t.opSetattr("setxattr", name, false, setxattrFn(attr, value, flags))
	})
}

// Lstat is FS.Lstat as the batch sees it.
func (b *Batch) Lstat(name string) (*FileInfo, error) {
	var fi *FileInfo
	err := b.do("lstat", name, func() error {
		r, _, err := b.t.f.walkTx(b.t, "lstat", name, false)
		if err != nil {
			return err
		}
		if r.ino == 0 {
			return syscall.ENOENT
		}
		fi = NewFileInfo(baseName(Clean(name)), r.in.Attr)
		return nil
	})
	if err != nil && b.err == err && Errno(err) == syscall.ENOENT {
		b.err = nil // a failed lookup does not poison the batch
	}
	return fi, err
}
