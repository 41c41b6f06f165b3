package gitws

import (
	"context"
	"io/fs"
	"os"
	"time"

	billy6 "github.com/go-git/go-billy/v6"

	"github.com/desk-dev/desk/internal/vfs"
)

// Billy6 is the same store directory as Billy seen as a go-billy v6
// filesystem, for go-git v6's server side (package artifact serves
// published repositories with it). Every call is Billy's: the same paths,
// errors and in-process file locks, so a push served through it and a git
// command of the shell on the same repository lock each other's files.
type Billy6 struct{ b *Billy }

var (
	_ billy6.Filesystem = Billy6{}
	_ billy6.Change     = Billy6{}
	_ billy6.Capable    = Billy6{}
)

// NewBilly6 returns the billy v6 filesystem rooted at the store directory
// root.
func NewBilly6(ctx context.Context, f *vfs.FS, root string) Billy6 {
	return Billy6{NewBilly(ctx, f, root)}
}

// Capabilities reports every capability, as Billy's.
func (b Billy6) Capabilities() billy6.Capability { return billy6.AllCapabilities }

// Create creates or truncates name, making missing parents.
func (b Billy6) Create(name string) (billy6.File, error) { return b.file(b.b.Create(name)) }

// Open opens name for reading.
func (b Billy6) Open(name string) (billy6.File, error) { return b.file(b.b.Open(name)) }

// OpenFile opens name with os.O_* flags (see Billy.OpenFile).
func (b Billy6) OpenFile(name string, flag int, perm fs.FileMode) (billy6.File, error) {
	return b.file(b.b.OpenFile(name, flag, perm))
}

// TempFile creates a new file in dir whose name starts with prefix.
func (b Billy6) TempFile(dir, prefix string) (billy6.File, error) {
	return b.file(b.b.TempFile(dir, prefix))
}

func (b Billy6) file(f any, err error) (billy6.File, error) {
	if err != nil {
		return nil, err
	}
	return billyFile6{f.(*billyFile)}, nil
}

// Stat describes name, following symlinks.
func (b Billy6) Stat(name string) (fs.FileInfo, error) { return b.b.Stat(name) }

// Lstat describes name without following a final symlink.
func (b Billy6) Lstat(name string) (fs.FileInfo, error) { return b.b.Lstat(name) }

// Rename renames oldpath to newpath (see Billy.Rename).
func (b Billy6) Rename(oldpath, newpath string) error { return b.b.Rename(oldpath, newpath) }

// Remove removes a file, symlink or empty directory.
func (b Billy6) Remove(name string) error { return b.b.Remove(name) }

// Join joins path elements with "/" and cleans the result.
func (b Billy6) Join(elem ...string) string { return b.b.Join(elem...) }

// ReadDir lists a directory sorted by name.
func (b Billy6) ReadDir(name string) ([]fs.DirEntry, error) {
	l, err := b.b.ReadDir(name)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(l))
	for i, fi := range l {
		out[i] = fs.FileInfoToDirEntry(fi)
	}
	return out, nil
}

// MkdirAll makes a directory and its missing parents.
func (b Billy6) MkdirAll(name string, perm fs.FileMode) error { return b.b.MkdirAll(name, perm) }

// Symlink makes link point to target.
func (b Billy6) Symlink(target, link string) error { return b.b.Symlink(target, link) }

// Readlink returns a symlink's target.
func (b Billy6) Readlink(link string) (string, error) { return b.b.Readlink(link) }

// Chroot returns the filesystem rooted at p below this one.
func (b Billy6) Chroot(p string) (billy6.Filesystem, error) {
	return Billy6{&Billy{ctx: b.b.ctx, fs: b.b.fs, root: b.b.abs(p)}}, nil
}

// Root returns the root's path in the store.
func (b Billy6) Root() string { return b.b.Root() }

// Chmod changes the permission bits of name.
func (b Billy6) Chmod(name string, mode os.FileMode) error { return b.b.Chmod(name, mode) }

// Lchown changes the owner of name without following a symlink.
func (b Billy6) Lchown(name string, uid, gid int) error { return b.b.Lchown(name, uid, gid) }

// Chown changes the owner of name.
func (b Billy6) Chown(name string, uid, gid int) error { return b.b.Chown(name, uid, gid) }

// Chtimes sets the access and modification times of name.
func (b Billy6) Chtimes(name string, atime, mtime time.Time) error {
	return b.b.Chtimes(name, atime, mtime)
}

// billyFile6 is a billy v6 file over a Billy file.
type billyFile6 struct{ *billyFile }

var (
	_ billy6.File   = billyFile6{}
	_ billy6.Locker = billyFile6{}
	_ billy6.Syncer = billyFile6{}
)

func (f billyFile6) Stat() (fs.FileInfo, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return nil, err
	}
	return fi, nil
}
func (f billyFile6) WriteAt(p []byte, off int64) (int, error) { return f.f.WriteAt(p, off) }
func (f billyFile6) Sync() error                              { return f.f.Sync() }
