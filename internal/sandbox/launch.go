package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/sandbox/notify"
)

// maxPendingLaunches bounds the launches with command rules whose first
// exec one sandbox's host side waits to answer at once (more wait their
// turn: the init starts programs one fork at a time anyway).
const maxPendingLaunches = 64

// notifyPair makes the notify socket (wire.NotifyFD): the host's end as a
// connection, the init's as a file for runc to pass on.
func notifyPair() (*net.UnixConn, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("make notify socket: %w", err)
	}
	hostEnd, initEnd := os.NewFile(uintptr(fds[0]), "notify-host"), os.NewFile(uintptr(fds[1]), "notify-init")
	c, err := net.FileConn(hostEnd)
	hostEnd.Close()
	if err != nil {
		initEnd.Close()
		return nil, nil, fmt.Errorf("make notify socket: %w", err)
	}
	return c.(*net.UnixConn), initEnd, nil
}

// answerLaunches answers, for the init, the first exec under each exec
// filter the init hands over on the notify socket — the launch of an
// execution with command rules — and sends the filter's token back
// (package notify says why the init cannot answer it itself). It ends with
// the socket (the init exited) or the sandbox.
func (x *box) answerLaunches(c *net.UnixConn) {
	go func() {
		<-x.dead
		c.Close()
	}()
	defer c.Close()
	turn := make(chan struct{}, maxPendingLaunches)
	for {
		token, fd, err := notify.Take(c)
		if errors.Is(err, notify.ErrMessage) {
			x.b.log.Warn("sandbox: the init sent a malformed exec listener", "id", x.id, "err", err)
			continue
		}
		if err != nil {
			return
		}
		turn <- struct{}{}
		go func() {
			defer func() { <-turn }()
			defer unix.Close(fd)
			// Until it is answered the init's fork waits, and every
			// other fork of the init behind it.
			answered, err := notify.AnswerLaunch(fd)
			if err != nil {
				x.b.log.Warn("sandbox: cannot answer a launch's exec", "id", x.id, "err", err)
			}
			if answered {
				notify.SendToken(c, token)
			}
		}()
	}
}
