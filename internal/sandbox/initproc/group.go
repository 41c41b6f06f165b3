package initproc

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// An execution's own cgroup (wire.Start.Group). The host makes a threaded
// cgroup per execution below the sandbox's and passes its cgroup.threads
// file, opened by the host, on the notify socket; the kernel checks a
// migration against the credentials the file was opened with (Linux 5.16
// and later), so the init, unprivileged on the host and without the cgroup
// filesystem, can join a group it could not name. The program must be born
// there, before it runs anything that could fork: a program moved after
// its start would race with its first children. The sandbox's seccomp
// profile answers clone3 with ENOSYS, so CLONE_INTO_CGROUP is out; instead
// a thread of the init of its own, locked to its goroutine, writes "0" to
// the file (the calling thread joins the group: cgroup.threads moves one
// thread, within one threaded subtree) and forks: the child is born in its
// parent thread's cgroup. The thread is never unlocked, so it ends with its
// goroutine and nothing else of the init ever runs in the group (the Go
// runtime makes new threads from a template thread, never from a locked
// one).

// groupFD is an execution's cgroup.threads descriptor, met by token: the
// host's message and the launch's wait may come in either order.
type groupFD struct {
	fd      int           // -1 until the host's message came
	ready   chan struct{} // closed once fd is set
	dropped bool          // its Start failed: close the descriptor when it comes
}

// groupLocked returns token's entry, made if need be (s.mu held).
func (s *server) groupLocked(token uint64) *groupFD {
	g := s.groups[token]
	if g == nil {
		g = &groupFD{fd: -1, ready: make(chan struct{})}
		s.groups[token] = g
	}
	return g
}

// takeGroup waits for the descriptor the host passes with token and takes
// it (the caller closes it). It fails when the notify socket ends first.
func (s *server) takeGroup(token uint64) (int, error) {
	s.mu.Lock()
	g := s.groupLocked(token)
	s.mu.Unlock()
	select {
	case <-g.ready:
	case <-s.notifyDone:
		select {
		case <-g.ready: // it came just before the end
		default:
			s.mu.Lock()
			delete(s.groups, token)
			s.mu.Unlock()
			return -1, errors.New("join the execution's cgroup: the host passed no cgroup (no notify socket)")
		}
	}
	s.mu.Lock()
	delete(s.groups, token)
	s.mu.Unlock()
	return g.fd, nil
}

// dropGroup forgets token's descriptor, now or when it comes (its Start
// failed before the launch).
func (s *server) dropGroup(token uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupLocked(token)
	if g.fd >= 0 {
		unix.Close(g.fd)
		delete(s.groups, token)
	} else {
		g.dropped = true
	}
}

// joinGroup moves the calling thread (locked by the caller, and never
// unlocked) into the cgroup whose cgroup.threads is open as fd. It returns
// why it could not ("": it did).
func joinGroup(fd int) string {
	for {
		_, err := unix.Write(fd, []byte("0"))
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fmt.Sprintf("join the execution's cgroup: %v", err)
		}
		return ""
	}
}

// forkInGroup starts argv like syscall.ForkExec, born in the cgroup of
// group (see above); why says why it runs outside it (it could not join;
// the program starts all the same).
func forkInGroup(group int, argv []string, attr *syscall.ProcAttr) (pid int, why string, err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Never unlocked: the thread is in the execution's group and ends
		// with this goroutine.
		runtime.LockOSThread()
		why = joinGroup(group)
		pid, err = syscall.ForkExec(argv[0], argv, attr)
	}()
	<-done
	return pid, why, err
}
