package artifact

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	billy "github.com/go-git/go-billy/v6"
)

// Pack files are read whole into memory for one request when they fit:
// git never changes a pack, its index or its reverse index once written
// (a repack writes new ones and removes the old), and go-git reads them
// at random offsets, each of which would otherwise be a query of the
// store.
const (
	// MaxPackCacheBytes bounds the pack files one request holds in memory;
	// the rest are read from the store as they are needed.
	MaxPackCacheBytes = 256 << 20
)

// packCache is a billy filesystem that serves read-only opens of
// objects/pack/pack-* from memory, within a byte budget.
type packCache struct {
	billy.Filesystem
	prefix string // the path of this root below the repository's ("" at the git directory)
	b      *budget
}

type budget struct {
	mu    sync.Mutex
	left  int64
	files map[string][]byte // by path below the git directory
}

func newPackCache(fsys billy.Filesystem, max int64) *packCache {
	return &packCache{Filesystem: fsys, b: &budget{left: max, files: map[string][]byte{}}}
}

func isPackFile(p string) bool {
	dir, name := path.Split(p)
	return strings.HasSuffix(dir, "objects/pack/") && strings.HasPrefix(name, "pack-") &&
		(strings.HasSuffix(name, ".pack") || strings.HasSuffix(name, ".idx") || strings.HasSuffix(name, ".rev"))
}

// Open serves a pack file from memory when it fits the budget.
func (c *packCache) Open(name string) (billy.File, error) {
	return c.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile serves a read-only open of a pack file from memory when it fits.
func (c *packCache) OpenFile(name string, flag int, perm fs.FileMode) (billy.File, error) {
	full := path.Join(c.prefix, name)
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 || !isPackFile(full) {
		return c.Filesystem.OpenFile(name, flag, perm)
	}
	c.b.mu.Lock()
	data, ok := c.b.files[full]
	c.b.mu.Unlock()
	if ok {
		return &memFile{name: name, r: bytes.NewReader(data), size: int64(len(data))}, nil
	}
	f, err := c.Filesystem.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	c.b.mu.Lock()
	fits := fi.Size() <= c.b.left
	if fits {
		c.b.left -= fi.Size()
	}
	c.b.mu.Unlock()
	if !fits {
		return f, nil
	}
	data = make([]byte, fi.Size())
	_, err = f.ReadAt(data, 0)
	f.Close()
	if err != nil && err != io.EOF {
		c.b.mu.Lock()
		c.b.left += fi.Size()
		c.b.mu.Unlock()
		return nil, err
	}
	c.b.mu.Lock()
	c.b.files[full] = data
	c.b.mu.Unlock()
	return &memFile{name: name, r: bytes.NewReader(data), size: int64(len(data))}, nil
}

// Chroot keeps the cache below the new root.
func (c *packCache) Chroot(p string) (billy.Filesystem, error) {
	sub, err := c.Filesystem.Chroot(p)
	if err != nil {
		return nil, err
	}
	return &packCache{Filesystem: sub, prefix: path.Join(c.prefix, p), b: c.b}, nil
}

// memFile is a read-only file in memory.
type memFile struct {
	name string
	r    *bytes.Reader
	size int64
}

func (f *memFile) Name() string                            { return f.name }
func (f *memFile) Read(p []byte) (int, error)              { return f.r.Read(p) }
func (f *memFile) ReadAt(p []byte, off int64) (int, error) { return f.r.ReadAt(p, off) }
func (f *memFile) Seek(off int64, whence int) (int64, error) {
	return f.r.Seek(off, whence)
}
func (f *memFile) Write([]byte) (int, error)          { return 0, f.readOnly("write") }
func (f *memFile) WriteAt([]byte, int64) (int, error) { return 0, f.readOnly("write") }
func (f *memFile) Truncate(int64) error               { return f.readOnly("truncate") }
func (f *memFile) Close() error                       { return nil }
func (f *memFile) Stat() (fs.FileInfo, error)         { return memInfo{f}, nil }
func (f *memFile) readOnly(op string) error {
	return &fs.PathError{Op: op, Path: f.name, Err: syscall.EBADF}
}

type memInfo struct{ f *memFile }

func (i memInfo) Name() string       { return path.Base(i.f.name) }
func (i memInfo) Size() int64        { return i.f.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
