package hostmount

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"
)

// mountTable is where the kernel lists this process's mounts; it is
// pollable: POLLPRI (and POLLERR) after every mount or unmount in the mount
// namespace (proc(5)).
const mountTable = "/proc/self/mountinfo"

// watcher calls gone once FUSE connection conn is mounted nowhere in the
// mount table (a mount point renamed with its parent stays mounted).
type watcher struct {
	fd   int // mountinfo, opened raw: in an *os.File the runtime's epoll would take its events
	wake int // an eventfd: stop's signal to the poll
	once sync.Once
	done chan struct{}
}

// watch starts a watcher. If the mount is not in the table even now, gone
// is called at once.
func watch(conn int, gone func()) (*watcher, error) {
	// Not os.Open: the runtime would add the descriptor to its own epoll
	// set (the file is pollable), and every epoll_wait there consumes the
	// table's change events, so this poll would miss them.
	fd, err := unix.Open(mountTable, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("watch mount: open %s: %w", mountTable, err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("watch mount: %w", err)
	}
	w := &watcher{fd: fd, wake: wake, done: make(chan struct{})}
	go w.run(conn, gone)
	return w, nil
}

func (w *watcher) run(conn int, gone func()) {
	defer close(w.done)
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLPRI}, {Fd: int32(w.wake), Events: unix.POLLIN}}
	for {
		// Read after the poll's arming (opening the file, or the last
		// poll, which consumed the event): an unmount in between is seen
		// by the next poll at the latest.
		if ms, err := readMounts(); err == nil && !mountedAt(ms, "", conn) {
			gone()
			return
		}
		for {
			_, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil || fds[1].Revents != 0 {
				return
			}
			break
		}
		if fds[1].Revents != 0 {
			return
		}
	}
}

// stop ends the watcher and waits for it.
func (w *watcher) stop() {
	w.once.Do(func() {
		var one [8]byte
		binary.NativeEndian.PutUint64(one[:], 1)
		unix.Write(w.wake, one[:])
		<-w.done
		unix.Close(w.wake)
		unix.Close(w.fd)
	})
}

// readMounts reads this process's FUSE mounts.
func readMounts() ([]*mountinfo.Info, error) {
	ms, err := mountinfo.GetMounts(func(m *mountinfo.Info) (skip, stop bool) {
		return m.Major != 0 || !strings.HasPrefix(m.FSType, "fuse"), false
	})
	if err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	return ms, nil
}

// mountedAt reports whether FUSE connection conn is mounted on dir (on any
// directory when dir is "").
func mountedAt(ms []*mountinfo.Info, dir string, conn int) bool {
	for _, m := range ms {
		if (dir == "" || m.Mountpoint == dir) && m.Major == 0 && m.Minor == conn && strings.HasPrefix(m.FSType, "fuse") {
			return true
		}
	}
	return false
}
