package initproc

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// Terminal executions (wire.Start.Terminal: desk shell) run on a new
// pseudo-terminal of the sandbox's own devpts instance (/dev/ptmx, which the
// runtime links to /dev/pts/ptmx). The program gets the slave as stdin,
// stdout, stderr and controlling terminal (setsid, then TIOCSCTTY); the init
// keeps the master: reading it is the execution's only output (sent as
// Stdout, under the stream's credit like any output), writing it is the
// program's input (through a stdinPipe on a duplicate of the master, so that
// closing the input leaves the output open), and TIOCSWINSZ on it resizes the
// window, for which the kernel sends SIGWINCH to the terminal's foreground
// process group. The end of the host's input types the terminal's VEOF
// character. When the program ends, the rest of its session is killed as for
// any execution; the master then reads EIO (no slave is open any more) and
// the output ends.

// newTerminal makes the execution of a terminal Start: a new pseudo-terminal
// of m.Terminal's size. It returns the execution, whose output is the master,
// and the slave, for the program.
func (s *server) newTerminal(n uint32, m wire.Start) (*execution, *os.File, error) {
	master, slave, err := openTerminal(*m.Terminal)
	if err != nil {
		return nil, nil, err
	}
	w, err := dupFile(master)
	if err != nil {
		master.Close()
		slave.Close()
		return nil, nil, fmt.Errorf("duplicate terminal: %w", err)
	}
	x := &execution{s: s, id: m.ID, started: time.Now(), out: master, pty: master, pipesOpen: 1}
	x.stdin = newStdinPipe(s, n, w, s.cfg.OutputWindow)
	x.stdin.atEOF = func() []byte { return eofChar(master) }
	return x, slave, nil
}

// openTerminal opens a new pseudo-terminal pair with the window size t. The
// master is non-blocking (in the runtime's poller, so that read deadlines
// work); the slave is for the program, not a controlling terminal of the
// init.
func openTerminal(t wire.Terminal) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open terminal: %w", err)
	}
	sfd, name := -1, "/dev/pts/?"
	err = control(master, func(fd int) error {
		if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
			return fmt.Errorf("unlock terminal: %w", err)
		}
		if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, winsize(t)); err != nil {
			return fmt.Errorf("set terminal size: %w", err)
		}
		if n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN); err == nil {
			name = "/dev/pts/" + strconv.Itoa(int(n))
		}
		// TIOCGPTPEER opens the slave through the master, without a path
		// lookup (Linux 4.13); before it, by name.
		r, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCGPTPEER, uintptr(unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC))
		if errno == 0 {
			sfd = int(r)
			return nil
		}
		var err error
		if sfd, err = unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0); err != nil {
			return fmt.Errorf("open %s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, os.NewFile(uintptr(sfd), name), nil
}

// dupFile returns a second *os.File on f's open file description.
func dupFile(f *os.File) (*os.File, error) {
	nfd := -1
	err := control(f, func(fd int) error {
		var err error
		nfd, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(nfd), f.Name()), nil
}

// resize sets the window size of a terminal execution; it does nothing for
// other executions, or once the terminal is closed.
func (x *execution) resize(t wire.Terminal) {
	if x.pty == nil {
		return
	}
	control(x.pty, func(fd int) error { return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, winsize(t)) })
}

// eofChar is the terminal's end-of-file character (VEOF, normally ^D), or
// nothing when the terminal has it disabled or is gone.
func eofChar(master *os.File) []byte {
	var out []byte
	control(master, func(fd int) error {
		tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			return err
		}
		if c := tio.Cc[unix.VEOF]; c != 0 { // 0: _POSIX_VDISABLE
			out = []byte{c}
		}
		return nil
	})
	return out
}

func winsize(t wire.Terminal) *unix.Winsize {
	return &unix.Winsize{Row: uint16(t.Rows), Col: uint16(t.Cols)}
}

// control runs fn on f's descriptor without taking it out of non-blocking
// mode (as Fd would) and without racing its close.
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
