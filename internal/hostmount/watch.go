package hostmount

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// mountinfo is where the kernel lists this process's mounts; it is
// pollable: POLLPRI (and POLLERR) after every mount or unmount in the mount
// namespace (proc(5)).
const mountinfo = "/proc/self/mountinfo"

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
	fd, err := unix.Open(mountinfo, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("watch mount: open %s: %w", mountinfo, err)
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

// mountEntry is a line of mountinfo.
type mountEntry struct {
	point  string // unescaped
	major  int
	minor  int
	fstype string
}

// readMounts reads this process's mount table.
func readMounts() ([]mountEntry, error) {
	b, err := os.ReadFile(mountinfo)
	if err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	var out []mountEntry
	for line := range strings.Lines(string(b)) {
		// id parent major:minor root point options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 1 {
			continue
		}
		maj, mnr, _ := strings.Cut(f[2], ":")
		a, err1 := strconv.Atoi(maj)
		b, err2 := strconv.Atoi(mnr)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, mountEntry{point: unescape(f[4]), major: a, minor: b, fstype: g[0]})
	}
	return out, nil
}

// mountedAt reports whether FUSE connection conn is mounted on dir (on any
// directory when dir is "").
func mountedAt(ms []mountEntry, dir string, conn int) bool {
	for _, m := range ms {
		if (dir == "" || m.point == dir) && m.major == 0 && m.minor == conn && strings.HasPrefix(m.fstype, "fuse") {
			return true
		}
	}
	return false
}

// unescape undoes mountinfo's octal escapes (\040 for a space, \012 for a
// newline, \134 for a backslash).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
