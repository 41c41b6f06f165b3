package vfs

import (
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
)

// inode is the cached form of an inodes row.
type inode struct {
	Attr
	target string // symlink target
}

type dkey struct {
	parent uint64
	name   string
}

// cache holds inodes and directory entries by value. It always reflects the last
// committed state: a writer applies its changes right after COMMIT (under wmu),
// and a reader that filled a miss from the database only stores the result if no
// writer applied changes meanwhile (the ver check), so a stale read never lands.
//
// A directory is complete when every entry it has is in dents: a name missing
// from dents is then known absent without a query (the lookup before every
// creation). Directories created since the store opened are complete from
// birth; a directory listed in one page becomes complete. Evicting an entry of
// a complete directory makes it incomplete.
type cache struct {
	mu       sync.Mutex
	ver      uint64
	max      int
	inodes   map[uint64]inode
	dents    map[dkey]uint64 // 0 = known absent
	complete map[uint64]bool // directories whose entries are all in dents
}

func newCache(max int) *cache {
	return &cache{max: max, inodes: make(map[uint64]inode), dents: make(map[dkey]uint64), complete: make(map[uint64]bool)}
}

func (c *cache) version() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ver
}

func (c *cache) getInode(ino uint64) (inode, bool) {
	c.mu.Lock()
	in, ok := c.inodes[ino]
	c.mu.Unlock()
	return in, ok
}

func (c *cache) getDent(k dkey) (uint64, bool) {
	c.mu.Lock()
	ino, ok := c.dents[k]
	if !ok && c.complete[k.parent] {
		ok = true // known absent
	}
	c.mu.Unlock()
	return ino, ok
}

// fillDir stores the whole listing of directory dir, read at cache version
// ver, and marks it complete.
func (c *cache) fillDir(ver uint64, dir uint64, ents []DirEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ver != ver || len(ents) >= c.max/4 || c.complete[dir] {
		return // stale, too big, or already there
	}
	for len(c.dents)+len(ents) >= c.max {
		c.evictLocked()
	}
	for _, e := range ents {
		c.dents[dkey{dir, e.Name}] = e.Ino
	}
	c.complete[dir] = true
}

// fillInode stores a value read from the database at cache version ver.
func (c *cache) fillInode(ver uint64, in inode) {
	c.mu.Lock()
	if c.ver == ver {
		c.evictLocked()
		c.inodes[in.Ino] = in
	}
	c.mu.Unlock()
}

func (c *cache) fillDent(ver uint64, k dkey, ino uint64) {
	c.mu.Lock()
	if c.ver == ver {
		c.evictLocked()
		c.dents[k] = ino
	}
	c.mu.Unlock()
}

// evictLocked drops arbitrary entries when a map is full. Every entry can be
// reloaded from the database, so eviction never affects correctness.
func (c *cache) evictLocked() {
	if len(c.inodes) >= c.max {
		n := c.max / 8
		for k := range c.inodes {
			if k == RootIno {
				continue
			}
			delete(c.inodes, k)
			if n--; n <= 0 {
				break
			}
		}
	}
	if len(c.dents) >= c.max {
		n := c.max / 8
		for k := range c.dents {
			delete(c.dents, k)
			delete(c.complete, k.parent)
			if n--; n <= 0 {
				break
			}
		}
	}
}

// apply installs a committed transaction's changes; created lists the inodes
// it created (its new directories are complete: empty but for dents).
func (c *cache) apply(inodes map[uint64]*inode, dents map[dkey]uint64, created map[uint64]bool) {
	c.mu.Lock()
	c.ver++
	for ino, in := range inodes {
		if in == nil {
			delete(c.inodes, ino)
			delete(c.complete, ino)
		} else {
			c.inodes[ino] = *in
			if created[ino] && in.IsDir() {
				c.complete[ino] = true
			}
		}
	}
	for k, ino := range dents {
		c.dents[k] = ino
	}
	c.evictLocked()
	c.mu.Unlock()
}

// reset empties the cache (after a failed commit, whose outcome is unknown).
func (c *cache) reset() {
	c.mu.Lock()
	c.ver++
	c.inodes = make(map[uint64]inode)
	c.dents = make(map[dkey]uint64)
	c.complete = make(map[uint64]bool)
	c.mu.Unlock()
}

const inodeCols = "ino, gen, mode, nlink, uid, gid, size, blocks, atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns, btime, btime_ns, target, rdev"

func scanInode(st *sqlite.Stmt) inode {
	var in inode
	in.Ino = uint64(st.Int64(0))
	in.Gen = uint64(st.Int64(1))
	in.Mode = uint32(st.Int64(2))
	in.Nlink = uint32(st.Int64(3))
	in.Uid = uint32(st.Int64(4))
	in.Gid = uint32(st.Int64(5))
	in.Size = st.Int64(6)
	in.Blocks = st.Int64(7)
	in.Atime = time.Unix(st.Int64(8), st.Int64(9))
	in.Mtime = time.Unix(st.Int64(10), st.Int64(11))
	in.Ctime = time.Unix(st.Int64(12), st.Int64(13))
	in.Btime = time.Unix(st.Int64(14), st.Int64(15))
	if !st.IsNull(16) {
		in.target = string(st.RawBlob(16))
	}
	in.Rdev = uint64(st.Int64(17))
	return in
}

// loadInode reads an inode row; ok is false when it does not exist.
func loadInode(c *sqlite.Conn, ino uint64) (in inode, ok bool, err error) {
	st, err := c.Prep("SELECT " + inodeCols + " FROM inodes WHERE ino = ?")
	if err != nil {
		return in, false, err
	}
	defer st.Reset()
	if err := st.Bind(ino); err != nil {
		return in, false, err
	}
	if !st.Step() {
		return in, false, st.Err()
	}
	return scanInode(st), true, nil
}

func loadDent(c *sqlite.Conn, k dkey) (uint64, error) {
	st, err := c.Prep("SELECT ino FROM dentries WHERE parent = ? AND name = ?")
	if err != nil {
		return 0, err
	}
	defer st.Reset()
	if err := st.Bind(k.parent, k.name); err != nil {
		return 0, err
	}
	if !st.Step() {
		return 0, st.Err()
	}
	return uint64(st.Int64(0)), nil
}

// getInode returns inode ino as applied (ok false if it does not exist):
// committed, or changed by the pending transaction of deferred requests.
func (f *FS) getInode(ino uint64) (inode, bool, error) {
	return f.getInodeVia(nil, ino)
}

// getInodeVia is getInode reading misses through conn (nil: a reader). A write
// transaction passes the writer connection, whose page cache is warm; that is
// safe because inode rows are written only at the end of the transaction.
func (f *FS) getInodeVia(conn *sqlite.Conn, ino uint64) (inode, bool, error) {
	if conn == nil && f.pendOn.Load() {
		if in, ok, found := f.viewInode(ino); found {
			return in, ok, nil // changed by the pending transaction
		}
	}
	if in, ok := f.cache.getInode(ino); ok {
		return in, true, nil
	}
	ver := f.cache.version()
	c := conn
	if c == nil {
		var err error
		if c, err = f.readerRaw(); err != nil {
			return inode{}, false, err
		}
	}
	in, ok, err := loadInode(c, ino)
	if conn == nil {
		f.putReader(c)
	}
	if err != nil || !ok {
		return in, false, err
	}
	f.cache.fillInode(ver, in)
	return in, true, nil
}

// getDent returns the inode that (parent, name) names, or 0, as applied.
func (f *FS) getDent(k dkey) (uint64, error) {
	return f.getDentVia(nil, k)
}

// getDentVia is getDent reading misses through conn (nil: a reader). A write
// transaction passes the writer connection: entries it changed are in its
// overlay, so whatever else it reads is the committed state.
func (f *FS) getDentVia(conn *sqlite.Conn, k dkey) (uint64, error) {
	if conn == nil && f.pendOn.Load() {
		if ino, found := f.viewDent(k); found {
			return ino, nil // changed by the pending transaction
		}
	}
	if ino, ok := f.cache.getDent(k); ok {
		return ino, nil
	}
	ver := f.cache.version()
	c := conn
	if c == nil {
		var err error
		if c, err = f.readerRaw(); err != nil {
			return 0, err
		}
	}
	ino, err := loadDent(c, k)
	if conn == nil {
		f.putReader(c)
	}
	if err != nil {
		return 0, err
	}
	f.cache.fillDent(ver, k, ino)
	return ino, nil
}
