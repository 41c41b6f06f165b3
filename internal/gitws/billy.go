package gitws

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-billy/v5"

	"github.com/desk-dev/desk/internal/vfs"
)

// Billy is a go-billy v5 filesystem over a directory of the workspace store:
// every call goes to the store with the context given to NewBilly, so go-git
// reads and writes the store directly (nothing is copied to the host). Paths
// are relative to the root (a leading "/" means the root too); ".." never
// leaves it.
type Billy struct {
	ctx  context.Context
	fs   *vfs.FS
	root string // absolute, cleaned
	// inPlace makes O_TRUNC opens rewrite the file in place instead of
	// staging a replacement (openStaged): for a work tree, where the extra
	// create and rename per file would cost a checkout and no git reader
	// depends on seeing a file whole.
	inPlace bool
}

var (
	_ billy.Filesystem = (*Billy)(nil)
	_ billy.Change     = (*Billy)(nil)
	_ billy.Capable    = (*Billy)(nil)
)

// NewBilly returns the billy filesystem rooted at the store directory root.
func NewBilly(ctx context.Context, f *vfs.FS, root string) *Billy {
	return &Billy{ctx: ctx, fs: f, root: vfs.Clean(root)}
}

// abs maps a billy path to the store path below the root.
func (b *Billy) abs(name string) string {
	return vfs.Clean(b.root + "/" + vfs.Clean("/"+name))
}

// rel makes a store error's path relative again, as billy callers expect.
func (b *Billy) rel(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		p := strings.TrimPrefix(strings.TrimPrefix(pe.Path, b.root), "/")
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	}
	return err
}

// Capabilities reports every capability: the store reads, writes, seeks,
// truncates and locks (in-process).
func (b *Billy) Capabilities() billy.Capability { return billy.AllCapabilities }

// Create creates or truncates name (mode 0666), making missing parents.
func (b *Billy) Create(name string) (billy.File, error) {
	return b.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Open opens name for reading.
func (b *Billy) Open(name string) (billy.File, error) {
	return b.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile opens name with os.O_* flags. A file created is given its missing
// parent directories, as go-billy's osfs does.
func (b *Billy) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	p := b.abs(name)
	if flag&os.O_CREATE != 0 {
		if err := b.fs.MkdirAll(b.ctx, path.Dir(p), 0o755); err != nil {
			return nil, b.rel(err)
		}
	}
	if !b.inPlace && flag&os.O_TRUNC != 0 && flag&(os.O_WRONLY|os.O_RDWR) != 0 && flag&os.O_EXCL == 0 {
		return b.openStaged(name, p, flag, perm)
	}
	f, err := b.fs.OpenFile(b.ctx, p, flag, perm)
	if err != nil {
		return nil, b.rel(err)
	}
	return &billyFile{f: f, name: name, b: b, path: p}, nil
}

// openStaged opens a replacement for p: written to a new file beside it and
// renamed over p when closed, so that a reader sees p's old content or its
// new one, never the empty or partial file an in-place rewrite shows.
// go-git rewrites refs and the index in place (O_TRUNC), where git writes a
// lock file and renames it; a `git status` running beside a commit would
// otherwise read an empty HEAD. The new file keeps an existing p's
// permissions; a failed write or close leaves p as it was.
func (b *Billy) openStaged(name, p string, flag int, perm os.FileMode) (billy.File, error) {
	fi, err := b.fs.Stat(b.ctx, p)
	switch {
	case err == nil && fi.IsDir():
		return nil, b.rel(&fs.PathError{Op: "open", Path: p, Err: syscall.EISDIR})
	case err == nil:
		perm = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist) || flag&os.O_CREATE == 0:
		return nil, b.rel(err)
	}
	for range 100 {
		var r [6]byte
		_, _ = rand.Read(r[:])
		tmp := p + ".desk-" + hex.EncodeToString(r[:]) + ".tmp"
		f, err := b.fs.OpenFile(b.ctx, tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, b.rel(err)
		}
		return &billyFile{f: f, name: name, b: b, path: p, staged: tmp}, nil
	}
	return nil, b.rel(&fs.PathError{Op: "open", Path: p, Err: syscall.EEXIST})
}

// Stat describes name, following symlinks.
func (b *Billy) Stat(name string) (os.FileInfo, error) {
	fi, err := b.fs.Stat(b.ctx, b.abs(name))
	if err != nil {
		return nil, b.rel(err)
	}
	return fi, nil
}

// Lstat describes name without following a final symlink.
func (b *Billy) Lstat(name string) (os.FileInfo, error) {
	fi, err := b.fs.Lstat(b.ctx, b.abs(name))
	if err != nil {
		return nil, b.rel(err)
	}
	return fi, nil
}

// Rename renames oldpath to newpath, replacing a file there and making
// newpath's missing parents.
func (b *Billy) Rename(oldpath, newpath string) error {
	np := b.abs(newpath)
	if err := b.fs.MkdirAll(b.ctx, path.Dir(np), 0o755); err != nil {
		return b.rel(err)
	}
	return b.rel(b.fs.Rename(b.ctx, b.abs(oldpath), np, 0))
}

// Remove removes a file, symlink or empty directory.
func (b *Billy) Remove(name string) error { return b.rel(b.fs.Remove(b.ctx, b.abs(name))) }

// Join joins path elements with "/" and cleans the result.
func (b *Billy) Join(elem ...string) string { return path.Join(elem...) }

// TempFile creates a new file in dir whose name starts with prefix, opened
// for reading and writing.
func (b *Billy) TempFile(dir, prefix string) (billy.File, error) {
	if dir == "" {
		dir = "/tmp"
	}
	for range 100 {
		var r [6]byte
		_, _ = rand.Read(r[:])
		name := path.Join(dir, prefix+hex.EncodeToString(r[:]))
		f, err := b.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &fs.PathError{Op: "open", Path: dir, Err: syscall.EEXIST}
}

// ReadDir lists a directory sorted by name, with each entry's attributes.
func (b *Billy) ReadDir(name string) ([]os.FileInfo, error) {
	p := b.abs(name)
	var out []os.FileInfo
	after := ""
	for {
		page, err := b.fs.ReadDirFiles(b.ctx, p, after, 4096, 0)
		if err != nil {
			return nil, b.rel(err)
		}
		for _, e := range page {
			out = append(out, vfs.NewFileInfo(e.Name, e.Attr))
		}
		if len(page) < 4096 {
			return out, nil
		}
		after = page[len(page)-1].Name
	}
}

// MkdirAll makes a directory and its missing parents.
func (b *Billy) MkdirAll(name string, perm os.FileMode) error {
	return b.rel(b.fs.MkdirAll(b.ctx, b.abs(name), perm))
}

// Symlink makes link point to target, making link's missing parents.
func (b *Billy) Symlink(target, link string) error {
	p := b.abs(link)
	if err := b.fs.MkdirAll(b.ctx, path.Dir(p), 0o755); err != nil {
		return b.rel(err)
	}
	return b.rel(b.fs.Symlink(b.ctx, target, p))
}

// Readlink returns a symlink's target.
func (b *Billy) Readlink(link string) (string, error) {
	t, err := b.fs.Readlink(b.ctx, b.abs(link))
	return t, b.rel(err)
}

// Chroot returns the filesystem rooted at p below this one.
func (b *Billy) Chroot(p string) (billy.Filesystem, error) {
	return &Billy{ctx: b.ctx, fs: b.fs, root: b.abs(p), inPlace: b.inPlace}, nil
}

// Root returns the root's path in the store.
func (b *Billy) Root() string { return b.root }

// Chmod changes the permission bits of name.
func (b *Billy) Chmod(name string, mode os.FileMode) error {
	return b.rel(b.fs.Chmod(b.ctx, b.abs(name), mode))
}

// Lchown changes the owner of name without following a symlink.
func (b *Billy) Lchown(name string, uid, gid int) error {
	return b.rel(b.fs.Lchown(b.ctx, b.abs(name), uid, gid))
}

// Chown changes the owner of name.
func (b *Billy) Chown(name string, uid, gid int) error {
	return b.rel(b.fs.Chown(b.ctx, b.abs(name), uid, gid))
}

// Chtimes sets the access and modification times of name.
func (b *Billy) Chtimes(name string, atime, mtime time.Time) error {
	return b.rel(b.fs.Chtimes(b.ctx, b.abs(name), atime, mtime))
}

// billyFile is a billy.File over a store handle.
type billyFile struct {
	f      *vfs.File
	name   string
	b      *Billy
	path   string      // the file's store path (what Lock locks)
	staged string      // a replacement's own path, renamed over path at Close ("" if none)
	lock   *sync.Mutex // held while Locked
}

func (f *billyFile) Name() string                            { return f.name }
func (f *billyFile) Read(p []byte) (int, error)              { return f.f.Read(p) }
func (f *billyFile) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }
func (f *billyFile) Write(p []byte) (int, error)             { return f.f.Write(p) }
func (f *billyFile) Seek(off int64, whence int) (int64, error) {
	return f.f.Seek(off, whence)
}
func (f *billyFile) Truncate(size int64) error { return f.f.Truncate(size) }

// Close closes the handle (and releases its lock).
func (f *billyFile) Close() error {
	err := f.f.Close()
	if f.staged != "" {
		if err == nil {
			err = f.b.fs.Rename(f.b.ctx, f.staged, f.path, 0)
		}
		if err != nil {
			_ = f.b.fs.Remove(f.b.ctx, f.staged)
		}
		err = f.b.rel(err)
	}
	if f.lock != nil {
		_ = f.Unlock()
	}
	return err
}

// The file locks are in-process mutexes, one per file of the store, kept in
// the store's state (stateOf): the store is opened by one process at a time
// (vfs's flock), so in-process locks are all the locking go-git needs among
// the commands of that process. A staged replacement locks the file it
// replaces.

// Lock takes the file's exclusive lock, waiting for another holder.
func (f *billyFile) Lock() error {
	if f.lock != nil {
		return nil
	}
	m, _ := stateOf(f.b.fs).locks.LoadOrStore(f.path, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	f.lock = mu
	return nil
}

// Unlock releases the file's lock.
func (f *billyFile) Unlock() error {
	if f.lock != nil {
		f.lock.Unlock()
		f.lock = nil
	}
	return nil
}
