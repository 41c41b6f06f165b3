package notify

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Notification is the kernel's struct seccomp_notif (linux/seccomp.h).
type Notification struct {
	ID    uint64
	PID   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

// Response is the kernel's struct seccomp_notif_resp.
type Response struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// Recv reads the next notification of listener (blocking until one is
// pending). ENOENT: the process that asked went away meanwhile.
func Recv(listener int) (Notification, error) {
	var n Notification
	err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n))
	return n, err
}

// Send answers a notification. ENOENT: the process went away (or was
// interrupted) and nothing ran.
func Send(listener int, r *Response) error {
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(r))
}

// Continue answers notification id: the system call goes on as if no filter
// had asked.
func Continue(listener int, id uint64) error {
	return Send(listener, &Response{ID: id, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE})
}

// Valid reports whether notification id still waits (its process is still
// the one that asked).
func Valid(listener int, id uint64) bool {
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	for {
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
		switch errno {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return errno
	}
}

// Wait blocks until listener has a notification pending (true) or no
// process uses its filter any more (false).
func Wait(listener int) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
	for {
		fds[0].Revents = 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return false, fmt.Errorf("wait for an exec: %w", err)
		}
		switch {
		case fds[0].Revents&unix.POLLIN != 0:
			return true, nil
		case fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0:
			return false, nil
		}
	}
}

// AnswerLaunch lets the first exec of listener's filter go on: the launch
// of an execution's program. It returns true once that exec was answered,
// false if it will never come (every process using the filter is gone: the
// fork failed, or the child was killed before its exec).
func AnswerLaunch(listener int) (bool, error) {
	for {
		pending, err := Wait(listener)
		if err != nil || !pending {
			return false, err
		}
		n, err := Recv(listener)
		if errors.Is(err, unix.ENOENT) {
			continue // the child went away: the filter's users go too
		}
		if err != nil {
			return false, fmt.Errorf("receive the launch's exec: %w", err)
		}
		if err := Continue(listener, n.ID); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return false, fmt.Errorf("answer the launch's exec: %w", err)
		}
		return true, nil
	}
}

// TokenSize is the size of a hand-over message.
const TokenSize = 8

// ErrMessage is wrapped by Take's error for a message of another shape.
var ErrMessage = errors.New("malformed listener hand-over")

// Pass sends the descriptor fd (an exec listener, or an execution's
// cgroup.threads), with token, on c (a SOCK_SEQPACKET socket). The
// receiver gets a duplicate: the caller keeps (and closes) its own.
func Pass(c *net.UnixConn, token uint64, fd int) error {
	var b [TokenSize]byte
	binary.LittleEndian.PutUint64(b[:], token)
	if _, _, err := c.WriteMsgUnix(b[:], unix.UnixRights(fd), nil); err != nil {
		return fmt.Errorf("pass a descriptor: %w", err)
	}
	return nil
}

// Take receives one Pass message from c: its token and the listener
// (close-on-exec). io.EOF: the other end closed the socket.
func Take(c *net.UnixConn) (token uint64, listener int, err error) {
	token, fd, err := Receive(c)
	if err == nil && fd < 0 {
		return 0, -1, fmt.Errorf("take an exec listener: no descriptor: %w", ErrMessage)
	}
	return token, fd, err
}

// Receive reads one message from c: a token with one descriptor (a Pass:
// fd is the descriptor, close-on-exec) or a token alone (a SendToken: fd
// is -1). io.EOF: the other end closed the socket. A message of another
// shape is refused (ErrMessage), its descriptors closed.
func Receive(c *net.UnixConn) (token uint64, fd int, err error) {
	var b [TokenSize + 1]byte
	oob := make([]byte, unix.CmsgSpace(4*2)) // room for two: more than one is refused, not dropped unseen
	n, oobn, flags, _, err := c.ReadMsgUnix(b[:], oob)
	if errors.Is(err, io.EOF) {
		return 0, -1, io.EOF
	}
	if err != nil {
		return 0, -1, fmt.Errorf("receive a notify message: %w", err)
	}
	var fds []int
	if oobn > 0 {
		if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if got, err := unix.ParseUnixRights(&m); err == nil {
					fds = append(fds, got...)
				}
			}
		}
	}
	if n == 0 && oobn == 0 {
		return 0, -1, io.EOF
	}
	if n != TokenSize || len(fds) > 1 || flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return 0, -1, fmt.Errorf("receive a notify message: %d bytes, %d descriptors: %w", n, len(fds), ErrMessage)
	}
	fd = -1
	if len(fds) == 1 {
		fd = fds[0]
	}
	return binary.LittleEndian.Uint64(b[:TokenSize]), fd, nil
}

// SendToken tells the other end that token's launch was answered.
func SendToken(c *net.UnixConn, token uint64) error {
	var b [TokenSize]byte
	binary.LittleEndian.PutUint64(b[:], token)
	if _, err := c.Write(b[:]); err != nil {
		return fmt.Errorf("send a launch's answer: %w", err)
	}
	return nil
}
