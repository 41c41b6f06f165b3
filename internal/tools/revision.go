package tools

import (
	"context"
	"errors"
	"path"
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

// Revisions come from the change journal. A file's revision is a journal
// sequence number: read reports the store's sequence number taken before
// it read the file (the content shown is at least that new); write and edit
// report the number of their own change. A file has changed since revision
// R exactly when a journal entry after R touches it (its inode, its path, or
// a directory above its path), which is what expected_revision checks.

// lockPath takes the per-path lock of p, keyed by its canonical name (so
// two names of one file through symlinks share a lock), and returns the
// unlock function.
func (s *Set) lockPath(ctx context.Context, p string, excl bool) func() {
	key := p
	if rp, err := s.fs.Realpath(ctx, p); err == nil {
		key = rp
	} else if rd, err := s.fs.Realpath(ctx, path.Dir(p)); err == nil {
		key = path.Join(rd, path.Base(p))
	}
	return s.st.lock(key, excl)
}

// touches reports whether journal entry c changes the content or the name of
// the file p (inode ino): an entry on its inode or its path, or a rename or
// removal of a directory above it. Attribute changes (chmod, times) do not
// count: they leave the content as it was.
func touches(c vfs.Change, p string, ino uint64) bool {
	if c.Op == vfs.OpSetattr {
		return false
	}
	if ino != 0 && c.Ino == ino {
		return true
	}
	above := c.Op == vfs.OpRename || c.Op == vfs.OpExchange || c.Op == vfs.OpRemove
	for _, q := range []string{c.Path, c.OldPath} {
		if q == "" {
			continue
		}
		if q == p || above && strings.HasPrefix(p, strings.TrimSuffix(q, "/")+"/") {
			return true
		}
	}
	return false
}

// changedSince returns the first journal entry after rev that touches p
// (inode ino), or nil. Past Options.MaxRevisionScan entries, or when the
// journal no longer reaches back to rev, it answers with a conflict.
func (s *Set) changedSince(ctx context.Context, p string, ino, rev uint64) (*vfs.Change, error) {
	cur := s.fs.Seq()
	if rev > cur {
		return nil, errorf(CodeInvalid, "expected_revision %d is newer than the workspace's newest change (%d): pass the revision a read, write or edit of this file returned", rev, cur)
	}
	if cur-rev > uint64(s.opts.MaxRevisionScan) {
		return nil, errorf(CodeConflict, "expected_revision %d is too old to check (%d changes since): read the file again and edit with its new revision", rev, cur-rev)
	}
	since := rev
	for since < cur {
		page, err := s.fs.Changes(ctx, since, 1000)
		if errors.Is(err, vfs.ErrJournalTruncated) {
			return nil, errorf(CodeConflict, "expected_revision %d is older than the change journal keeps: read the file again and edit with its new revision", rev)
		}
		if err != nil {
			return nil, err
		}
		if len(page) == 0 {
			break
		}
		for i := range page {
			if page[i].Seq > cur {
				return nil, nil
			}
			if touches(page[i], p, ino) {
				return &page[i], nil
			}
		}
		since = page[len(page)-1].Seq
	}
	return nil, nil
}

// ownRevision returns the sequence number of the newest change this set
// made to p (inode ino) after before: the file's revision after a write.
// The path lock is held, so no other tool call changed p meanwhile.
func (s *Set) ownRevision(ctx context.Context, p string, ino, before uint64) uint64 {
	rev := uint64(0)
	since, cur := before, s.fs.Seq()
	for since < cur {
		page, err := s.fs.Changes(ctx, since, 1000)
		if err != nil || len(page) == 0 {
			break
		}
		for _, c := range page {
			if c.Actor == s.opts.Actor && touches(c, p, ino) {
				rev = c.Seq
			}
		}
		since = page[len(page)-1].Seq
	}
	if rev == 0 {
		rev = cur
	}
	return rev
}
