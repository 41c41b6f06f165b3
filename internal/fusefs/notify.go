package fusefs

import (
	"context"
	"errors"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/desk-dev/desk/internal/vfs"
)

// notifier follows the store's journal and tells the kernel what changes made
// by others (not by this mount) make stale: names (NotifyEntry, NotifyDelete),
// attributes and pages (NotifyContent). Node ids are inode numbers, so it can
// address any inode the kernel may hold without a table of its own; an inode
// the kernel does not hold answers ENOENT, which is ignored.
type notifier struct {
	srv     *Server
	applied atomic.Uint64 // journal position whose invalidations have been sent

	mu       sync.Mutex
	progress chan struct{} // closed (and replaced) whenever applied moves
	done     chan struct{} // closed when run returns
}

func newNotifier(s *Server) *notifier {
	return &notifier{srv: s, progress: make(chan struct{}), done: make(chan struct{})}
}

// run follows the journal from since until ctx is done or the store closes.
func (nt *notifier) run(ctx context.Context, since uint64) {
	defer close(nt.done)
	s := nt.srv
	nt.advance(since)
	for ctx.Err() == nil {
		ch, errf := s.store.Subscribe(ctx, since)
		for c := range ch {
			if !s.own(c.Actor) {
				nt.apply(c)
			}
			since = c.Seq
			nt.advance(since)
		}
		err := errf()
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, vfs.ErrJournalTruncated):
			// Fell behind the journal's retention: what changed is unknown,
			// so everything the kernel may hold is invalidated.
			s.logf("journal follower fell behind: invalidating every cached entry")
			since = s.store.Seq()
			nt.invalidateAll()
			nt.advance(since)
		case err == nil, errors.Is(err, vfs.ErrClosed):
			return // the store closed
		default:
			s.logf("journal follower: %v", err)
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// advance records that the invalidations of changes up to seq were sent.
func (nt *notifier) advance(seq uint64) {
	if seq <= nt.applied.Load() {
		return
	}
	nt.applied.Store(seq)
	nt.mu.Lock()
	close(nt.progress)
	nt.progress = make(chan struct{})
	nt.mu.Unlock()
}

// waitFor waits until the invalidations of changes up to seq were sent. It
// gives up (false) when timeout (if positive) passes, ctx is done or the
// follower stopped.
func (nt *notifier) waitFor(ctx context.Context, seq uint64, timeout time.Duration) bool {
	var expire <-chan time.Time
	for {
		nt.mu.Lock()
		ch := nt.progress
		nt.mu.Unlock()
		if nt.applied.Load() >= seq {
			return true
		}
		if expire == nil && timeout > 0 {
			t := time.NewTimer(timeout)
			defer t.Stop()
			expire = t.C
		}
		select {
		case <-ch:
		case <-expire:
			nt.srv.logf("open: kernel caches still behind the journal after %v", timeout)
			return false
		case <-ctx.Done():
			return false
		case <-nt.done:
			return false
		}
	}
}

// apply sends the invalidations one change calls for.
func (nt *notifier) apply(c vfs.Change) {
	s := nt.srv
	switch c.Op {
	case vfs.OpWrite:
		s.invalContent(c.Ino, c.Off, c.Len) // Len 0 (content replaced by nothing): to the end
	case vfs.OpTruncate:
		s.invalContent(c.Ino, c.Off, 0) // from the new size on
	case vfs.OpSetattr:
		s.invalAttr(c.Ino)
	case vfs.OpCreate, vfs.OpMkdir, vfs.OpSymlink, vfs.OpMknod:
		if !nt.knows(c) {
			s.invalEntry(c.Parent, c.Name) // a cached "missing"
		}
		s.invalDir(c.Parent)
	case vfs.OpLink:
		s.invalEntry(c.Parent, c.Name)
		s.invalDir(c.Parent)
		s.invalAttr(c.Ino) // nlink and ctime, for every name
	case vfs.OpRemove:
		nt.removed(c.Parent, c.Name, c.Ino)
		s.invalDir(c.Parent)
		if p := nt.treeDir(c.Path); p != nil {
			if ch := p.GetChild(c.Name); ch != nil && ch.StableAttr().Ino == c.Ino {
				p.RmChild(c.Name)
			}
		}
	case vfs.OpRename:
		nt.renamed(c)
	case vfs.OpExchange:
		nt.exchanged(c)
	}
}

// knows reports whether the kernel already has the name c created as a
// positive entry for c's new inode: go-fuse's tree holds it, which only a
// lookup (or readdirplus) that found the new inode can have put there
// (inode numbers are never reused). Such an entry must not be invalidated:
// the kernel unhashes an invalidated dentry even when it is in use, so a
// process that had just entered a directory made by someone else (the
// shell backend's mkdir, then `cd` in a sandbox) would find its working
// directory deleted (getcwd fails with ENOENT). The invalidation is only
// there to drop a cached "missing", which cannot coexist with a positive
// entry. A lookup still in flight when the follower looks is not seen: the
// kernel then applies the invalidation after that lookup (it waits for the
// directory's lock), which FUSE_EXPIRE_ONLY would make harmless, but
// go-fuse v2.12.1 cannot send it. Server.Sync before starting a process
// closes that window for changes committed before the start.
func (nt *notifier) knows(c vfs.Change) bool {
	p := nt.treeDir(c.Path)
	if c.Path == "" || p == nil || p.StableAttr().Ino != c.Parent {
		return false
	}
	ch := p.GetChild(c.Name)
	return ch != nil && ch.StableAttr().Ino == c.Ino
}

// removed invalidates (parent, name), which named ino: NotifyDelete when the
// inode is gone (it also drops the kernel's link count and tells inotify),
// otherwise the name and the inode's attributes (it lives on under other names).
func (nt *notifier) removed(parent uint64, name string, ino uint64) {
	s := nt.srv
	a, err := s.store.StatIno(s.ctx, ino)
	if err != nil || a.Nlink == 0 {
		if st := s.fuse.DeleteNotify(parent, ino, name); st == fuse.OK {
			return
		}
		s.invalEntry(parent, name)
		return
	}
	s.invalEntry(parent, name)
	s.invalAttr(ino)
}

// renamed handles OldParent/OldName → Parent/Name, which may have replaced
// another inode at the destination.
func (nt *notifier) renamed(c vfs.Change) {
	s := nt.srv
	op, np := nt.treeDir(c.OldPath), nt.treeDir(c.Path)
	var replaced uint64
	if np != nil {
		if old := np.GetChild(c.Name); old != nil && old.StableAttr().Ino != c.Ino {
			replaced = old.StableAttr().Ino
		}
	}
	s.invalEntry(c.OldParent, c.OldName)
	if replaced != 0 {
		nt.removed(c.Parent, c.Name, replaced)
	} else {
		s.invalEntry(c.Parent, c.Name)
	}
	s.invalAttr(c.Ino)
	s.invalDir(c.OldParent)
	if c.Parent != c.OldParent {
		s.invalDir(c.Parent)
	}
	if op != nil {
		if ch := op.GetChild(c.OldName); ch != nil && ch.StableAttr().Ino == c.Ino {
			if np != nil {
				op.MvChild(c.OldName, np, c.Name, true)
			} else {
				op.RmChild(c.OldName)
			}
		}
	}
}

// exchanged handles two names that swapped inodes.
func (nt *notifier) exchanged(c vfs.Change) {
	s := nt.srv
	s.invalEntry(c.OldParent, c.OldName)
	s.invalEntry(c.Parent, c.Name)
	s.invalAttr(c.Ino)
	if a, err := s.store.LookupAt(s.ctx, c.OldParent, c.OldName); err == nil {
		s.invalAttr(a.Ino) // the other inode (if nothing moved it since)
	}
	s.invalDir(c.OldParent)
	if c.Parent != c.OldParent {
		s.invalDir(c.Parent)
	}
	if op, np := nt.treeDir(c.OldPath), nt.treeDir(c.Path); op != nil && np != nil {
		op.ExchangeChild(c.OldName, np, c.Name)
	}
}

// treeDir returns go-fuse's node for the directory holding the journal path p,
// or nil if go-fuse does not know it. go-fuse's tree gives the store its path
// hints; it is kept in step with renames and removals made by others so the
// hints stay right (a wrong hint only costs the store a search).
func (nt *notifier) treeDir(p string) *gofs.Inode {
	if p == "" || p == "/" {
		return nil
	}
	cur := &nt.srv.root.Inode
	dir := path.Dir(p)
	if dir == "/" {
		return cur
	}
	for _, name := range strings.Split(dir[1:], "/") {
		if cur = cur.GetChild(name); cur == nil {
			return nil
		}
	}
	return cur
}

// invalidateAll invalidates every name and inode in go-fuse's tree.
func (nt *notifier) invalidateAll() {
	s := nt.srv
	var walk func(n *gofs.Inode, depth int)
	walk = func(n *gofs.Inode, depth int) {
		for name, ch := range n.Children() {
			s.invalEntry(n.StableAttr().Ino, name)
			s.invalContent(ch.StableAttr().Ino, 0, 0)
			if ch.IsDir() && depth < 4096 {
				walk(ch, depth+1)
			}
		}
	}
	s.invalContent(vfs.RootIno, 0, 0)
	walk(&s.root.Inode, 0)
}

// invalEntry drops the kernel's cached (parent, name), positive or negative.
func (s *Server) invalEntry(parent uint64, name string) {
	s.report("entry", s.fuse.EntryNotify(parent, name))
}

// invalAttr drops the kernel's cached attributes of ino.
func (s *Server) invalAttr(ino uint64) {
	s.report("attr", s.fuse.InodeNotify(ino, -1, 0))
}

// invalDir drops the kernel's cached attributes and listing of directory ino
// (its entries changed: the listing is cached, FOPEN_CACHE_DIR).
func (s *Server) invalDir(ino uint64) {
	s.report("dir", s.fuse.InodeNotify(ino, 0, 0))
}

// invalContent drops the attributes of ino and its cached pages in
// [off, off+n) (n 0: to the end).
func (s *Server) invalContent(ino uint64, off, n int64) {
	s.report("content", s.fuse.InodeNotify(ino, off, n))
}

// report logs a failed invalidation; ENOENT (the kernel does not hold the
// inode or name) is the common, harmless case.
func (s *Server) report(what string, st fuse.Status) {
	if st != fuse.OK && st != fuse.ENOENT && s.opts.Debug {
		s.logf("invalidate %s: %v", what, st)
	}
}
