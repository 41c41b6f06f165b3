package hostmount

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Forbidden is a directory a mount point may be neither in nor above.
type Forbidden struct {
	Path string // absolute
	What string // what it is, for the error: "the server's data directory"
}

// fuseSuperMagic is statfs's f_type of a FUSE filesystem.
const fuseSuperMagic = 0x65735546

// refuse is the error of a directory that cannot be a mount point: a
// *fs.PathError whose Err says the reason and unwraps to errno.
func refuse(dir string, errno syscall.Errno, format string, args ...any) error {
	return &fs.PathError{Op: "mount on", Path: dir, Err: &reason{fmt.Sprintf(format, args...), errno}}
}

// reason is an errno with a message of its own.
type reason struct {
	msg   string
	errno syscall.Errno
}

func (r *reason) Error() string { return r.msg }
func (r *reason) Unwrap() error { return r.errno }

// Check returns dir, cleaned, if it can be a mount point: an absolute path
// without symbolic links to an existing, empty directory that is not on a
// FUSE filesystem and neither in nor above a forbidden directory. Its
// error is a *fs.PathError carrying the errno (EINVAL, ENOENT, ENOTDIR,
// ELOOP, ENOTEMPTY, EPERM, EACCES) with the reason.
func Check(dir string, forbidden []Forbidden) (string, error) {
	fd, clean, err := openDir(dir)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	for _, f := range forbidden {
		for _, p := range forms(f.Path) {
			switch {
			case within(clean, p):
				return "", refuse(clean, syscall.EPERM, "it is inside %s (%s)", f.What, p)
			case within(p, clean):
				return "", refuse(clean, syscall.EPERM, "it holds %s (%s), which the mount would hide", f.What, p)
			}
		}
	}
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(fd, &sfs); err != nil {
		return "", &fs.PathError{Op: "statfs", Path: clean, Err: err}
	}
	if sfs.Type == fuseSuperMagic {
		return "", refuse(clean, syscall.EPERM, "it is on a FUSE filesystem (a desk mount, sshfs, ...): mount on a local directory")
	}
	if err := checkEmpty(fd, clean); err != nil {
		return "", err
	}
	return clean, nil
}

// openDir opens dir (O_PATH) after the checks of its form, refusing
// symbolic links anywhere in it.
func openDir(dir string) (int, string, error) {
	switch {
	case dir == "":
		return -1, "", refuse(dir, syscall.EINVAL, "no directory given")
	case strings.IndexByte(dir, 0) >= 0:
		return -1, "", refuse(dir, syscall.EINVAL, "the path has a NUL byte")
	case !filepath.IsAbs(dir):
		return -1, "", refuse(dir, syscall.EINVAL, "not an absolute path")
	}
	clean := filepath.Clean(dir)
	fd, err := unix.Openat2(unix.AT_FDCWD, clean, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case err == nil:
		return fd, clean, nil
	case errors.Is(err, syscall.ENOENT):
		return -1, "", refuse(clean, syscall.ENOENT, "no such directory")
	case errors.Is(err, syscall.ENOTDIR):
		return -1, "", refuse(clean, syscall.ENOTDIR, "not a directory")
	case errors.Is(err, syscall.ELOOP):
		return -1, "", refuse(clean, syscall.ELOOP, "the path has a symbolic link: give the directory it leads to (realpath)")
	}
	return -1, "", &fs.PathError{Op: "open", Path: clean, Err: err}
}

// checkEmpty reports whether the directory open as fd (O_PATH) has no
// entries.
func checkEmpty(fd int, dir string) error {
	d, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	f := os.NewFile(uintptr(d), dir)
	defer f.Close()
	names, err := f.Readdirnames(1)
	if err != nil && !errors.Is(err, io.EOF) {
		return &fs.PathError{Op: "readdir", Path: dir, Err: err}
	}
	if len(names) > 0 {
		return refuse(dir, syscall.ENOTEMPTY, "the directory is not empty (it has %q): the mount would hide its contents", names[0])
	}
	return nil
}

// forms returns p cleaned and, when it differs, with its symbolic links
// resolved: a forbidden directory is compared in both.
func forms(p string) []string {
	c := filepath.Clean(p)
	out := []string{c}
	if r, err := filepath.EvalSymlinks(c); err == nil && r != c {
		out = append(out, r)
	}
	return out
}

// within reports whether path p is dir or below it.
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}
