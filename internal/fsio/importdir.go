package fsio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

// ImportDir copies the host directory hostDir (following it if it is a symlink,
// but no symlink below it) to the workspace directory dest, creating dest and
// its parents as needed; an existing dest is merged into. Hard links are
// recognised by device and inode number. The import is all or nothing: see the
// package documentation.
func ImportDir(ctx context.Context, fsys *vfs.FS, hostDir, dest string, opts ImportOptions) (Summary, error) {
	fi, err := os.Stat(hostDir)
	if err != nil {
		return Summary{}, err
	}
	if !fi.IsDir() {
		return Summary{}, &fs.PathError{Op: "import", Path: hostDir, Err: syscall.ENOTDIR}
	}
	im, err := beginImport(ctx, fsys, dest, opts)
	if err != nil {
		return Summary{}, err
	}
	w := &hostWalker{ctx: ctx, s: im, exclude: opts.Exclude, links: map[devIno]string{}}
	return im.end(w.walk(hostDir, "", fi))
}

type devIno struct{ dev, ino uint64 }

// hostWalker feeds a host directory tree to a sink, in name order.
type hostWalker struct {
	ctx     context.Context
	s       sink
	exclude func(hostPath string, info fs.FileInfo) bool
	links   map[devIno]string // first relative name of each multiply-linked file
}

func (w *hostWalker) walk(hostPath, rel string, fi fs.FileInfo) error {
	src := rel
	if src == "" {
		src = "."
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no stat information", hostPath)
	}
	e := &entry{
		src:   src,
		rel:   rel,
		perm:  uint32(st.Mode) & 0o7777,
		uid:   int(st.Uid),
		gid:   int(st.Gid),
		atime: time.Unix(st.Atim.Sec, st.Atim.Nsec),
		mtime: time.Unix(st.Mtim.Sec, st.Mtim.Nsec),
		size:  st.Size,
	}
	switch fi.Mode().Type() {
	case fs.ModeDir:
		e.kind = kindDir
	case 0:
		e.kind = kindFile
		if st.Nlink > 1 {
			key := devIno{uint64(st.Dev), st.Ino}
			if first, ok := w.links[key]; ok {
				e.kind, e.target = kindHardlink, first
				e.open = func() (io.ReadCloser, error) { return openNoatime(hostPath, syscall.O_NOFOLLOW) }
				return w.s.add(e)
			}
			w.links[key] = rel
		}
	case fs.ModeSymlink:
		target, err := os.Readlink(hostPath)
		if err != nil {
			return err
		}
		e.kind, e.target = kindSymlink, target
		return w.s.add(e)
	case fs.ModeNamedPipe, fs.ModeSocket, fs.ModeDevice, fs.ModeDevice | fs.ModeCharDevice:
		e.kind, e.typ, e.size = kindSpecial, uint32(st.Mode)&vfs.S_IFMT, 0
		if e.typ == vfs.S_IFCHR || e.typ == vfs.S_IFBLK {
			e.rdev = st.Rdev
		}
		if st.Nlink > 1 {
			key := devIno{uint64(st.Dev), st.Ino}
			if first, ok := w.links[key]; ok {
				e.kind, e.target = kindHardlink, first
				return w.s.add(e)
			}
			w.links[key] = rel
		}
		return w.s.add(e) // no xattrs: user.* is for files and directories
	default:
		w.s.skip(src, "a "+typeName(fi.Mode())+" cannot be stored")
		return nil
	}
	xs, err := hostXattrs(hostPath)
	if err != nil {
		return err
	}
	e.xattrs = xs
	if e.kind == kindFile {
		e.open = func() (io.ReadCloser, error) { return openNoatime(hostPath, syscall.O_NOFOLLOW) }
		return w.s.add(e)
	}
	if err := w.s.add(e); err != nil {
		return err
	}
	ents, err := readHostDir(hostPath)
	if err != nil {
		return err
	}
	for _, de := range ents {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		childPath := filepath.Join(hostPath, de.Name())
		info, err := de.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed while we walk
		}
		if err != nil {
			return err
		}
		if w.exclude != nil && w.exclude(childPath, info) {
			continue
		}
		if err := w.walk(childPath, path.Join(rel, de.Name()), info); err != nil {
			return err
		}
	}
	return nil
}

// openNoatime opens a host file for reading without updating its atime, so
// that importing a tree leaves the source as it was. O_NOATIME is refused
// (EPERM) for files the caller neither owns nor has CAP_FOWNER for; then the
// file is opened normally.
func openNoatime(p string, flag int) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOATIME|flag, 0)
	if errors.Is(err, syscall.EPERM) {
		f, err = os.OpenFile(p, os.O_RDONLY|flag, 0)
	}
	return f, err
}

// readHostDir lists a host directory in name order without updating its atime.
func readHostDir(p string) ([]fs.DirEntry, error) {
	f, err := openNoatime(p, syscall.O_DIRECTORY|syscall.O_NOFOLLOW)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// typeName names a non-regular file type for messages.
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file"
}

// hostXattrs reads the user.* extended attributes of a host file or directory,
// sorted by name. A filesystem without xattr support has none.
func hostXattrs(p string) ([]xattr, error) {
	buf := make([]byte, 1024)
	var n int
	for {
		var err error
		n, err = unix.Llistxattr(p, buf)
		if errors.Is(err, unix.ERANGE) {
			sz, err := unix.Llistxattr(p, nil)
			if err != nil {
				return nil, &fs.PathError{Op: "listxattr", Path: p, Err: err}
			}
			buf = make([]byte, sz+64)
			continue
		}
		if errors.Is(err, unix.ENOTSUP) {
			return nil, nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "listxattr", Path: p, Err: err}
		}
		break
	}
	var names []string
	for _, name := range strings.Split(string(buf[:n]), "\x00") {
		if strings.HasPrefix(name, xattrPrefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var out []xattr
	for _, name := range names {
		v, err := hostGetxattr(p, name)
		if errors.Is(err, unix.ENODATA) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, &fs.PathError{Op: "getxattr " + name, Path: p, Err: err}
		}
		out = append(out, xattr{name: name, value: v})
	}
	return out, nil
}

func hostGetxattr(p, name string) ([]byte, error) {
	buf := make([]byte, 256)
	for {
		n, err := unix.Lgetxattr(p, name, buf)
		if errors.Is(err, unix.ERANGE) {
			sz, err := unix.Lgetxattr(p, name, nil)
			if err != nil {
				return nil, err
			}
			buf = make([]byte, sz+64)
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n:n], nil
	}
}
