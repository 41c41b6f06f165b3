package fusefs

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// epollHack is go-fuse's reserved name in a mount (see primePoll).
const epollHack = ".go-fuse-epoll-hack"

// mountPoint is how a server reaches its mount point: by its path, or, with
// Options.Parent, through descriptors (the parent directory, and the mount
// point's own O_PATH descriptor for mount(2) and umount(2)).
type mountPoint struct {
	dir    string
	parent *os.File // a duplicate of Options.Parent's descriptor, or nil
	name   string   // the mount point's name in parent
	self   *os.File // O_PATH descriptor of the mount point (with a parent)
}

// open sets the mount point up: dir, or the entry named filepath.Base(dir)
// in parent, reached without following a symbolic link.
func (p *mountPoint) open(dir string, parent *os.File) error {
	p.dir = dir
	if parent == nil {
		return nil
	}
	pfd, err := unix.FcntlInt(parent.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open mount point %s: %w", dir, err)
	}
	p.parent, p.name = os.NewFile(uintptr(pfd), dir+"/.."), filepath.Base(dir)
	fd, err := unix.Openat(pfd, p.name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		p.close()
		return fmt.Errorf("open mount point %s: %w", dir, err)
	}
	p.self = os.NewFile(uintptr(fd), dir)
	return nil
}

// target is the path mount(2) and umount(2) are given: the mount point's
// descriptor as /proc/self/fd/N (which names exactly that directory, and
// which umount(2) resolves to the mount on it), or dir.
func (p *mountPoint) target() string {
	if p.self != nil {
		return "/proc/self/fd/" + strconv.Itoa(int(p.self.Fd()))
	}
	return p.dir
}

// stat stats the root of what is mounted on the mount point now (a lookup
// of the name in the parent crosses into the mount; the mount point's own
// descriptor would show the directory beneath).
func (p *mountPoint) stat(st *unix.Stat_t) error {
	if p.parent != nil {
		return unix.Fstatat(int(p.parent.Fd()), p.name, st, unix.AT_SYMLINK_NOFOLLOW)
	}
	return unix.Stat(p.dir, st)
}

// primePoll opens go-fuse's reserved name in the mount and polls it once, so
// the kernel learns at once that the server does not implement poll (go-fuse
// answers ENOSYS) and never sends POLL again: otherwise the first poll of a
// mount file by this process could wait for a server thread that the Go
// runtime's poller holds. go-fuse does this itself for the mounts it makes.
func (p *mountPoint) primePoll() {
	dirfd, name := unix.AT_FDCWD, filepath.Join(p.dir, epollHack)
	if p.parent != nil {
		dirfd, name = int(p.parent.Fd()), p.name+"/"+epollHack
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN | unix.POLLPRI | unix.POLLOUT}}, 0)
	unix.Close(fd)
}

// close releases the descriptors (after the unmount).
func (p *mountPoint) close() {
	if p.self != nil {
		p.self.Close()
		p.self = nil
	}
	if p.parent != nil {
		p.parent.Close()
		p.parent = nil
	}
}
