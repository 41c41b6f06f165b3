package initproc

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// ControlFD is the file descriptor the init reads the host's frames from.
const ControlFD = 3

// Main runs the init and returns its exit status. args are the arguments
// after the subcommand (none are accepted: the configuration comes as the
// first frame on ControlFD).
func Main(args []string, stderr io.Writer) int {
	if len(args) != 0 {
		fmt.Fprintf(stderr, "desk sandbox-init: unexpected arguments %q (this command runs only inside a sandbox)\n", args)
		return 2
	}
	if err := serve(); err != nil {
		fmt.Fprintf(stderr, "desk sandbox-init: %v\n", err)
		return 1
	}
	return 0
}

// serve runs the init until the connection ends.
func serve() error {
	const hint = "this command runs only inside a sandbox, started by the sandbox backend"
	f := os.NewFile(ControlFD, "control")
	if f == nil {
		return fmt.Errorf("open control socket: no file descriptor %d (%s)", ControlFD, hint)
	}
	c, err := net.FileConn(f) // a close-on-exec duplicate
	f.Close()
	if err != nil {
		return fmt.Errorf("open control socket: file descriptor %d is not a socket (%s)", ControlFD, hint)
	}
	defer c.Close()
	// The main thread never runs another goroutine: a goroutine that ends
	// locked to its thread ends the thread (guard.go relies on it), but the
	// main thread cannot end and would be kept, with its filter, instead.
	runtime.LockOSThread()
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	dropSignals()

	s := &server{
		conn:     c,
		streams:  map[uint32]*stream{},
		byPID:    map[int]*execution{},
		detached: map[string]*execution{},
		early:    map[int]reaped{},
		answers:  map[uint64]chan struct{}{},
		groups:   map[uint64]*groupFD{},
	}
	s.notify, s.notifyDone = openNotify()
	s.cond = sync.NewCond(&s.mu)
	r := wire.NewReader(c)
	first, err := r.Next()
	if err != nil {
		return fmt.Errorf("read config: %w", err)
	}
	if first.Type != wire.TConfig {
		return fmt.Errorf("read config: got a %s frame: %w", first.Type, wire.ErrProtocol)
	}
	if err := wire.Decode(first, &s.cfg); err != nil {
		return err
	}
	if err := checkConfig(s.cfg); err != nil {
		return err
	}
	go s.reap()
	if s.notify != nil {
		go s.readNotify()
	}
	if s.cfg.ProxyPort > 0 {
		if err := forwardEgress(s.cfg.ProxyPort); err != nil {
			fmt.Fprintf(os.Stderr, "desk sandbox-init: %v (the sandbox has no network)\n", err)
		}
	}
	if s.cfg.Forward {
		go serveForward()
	}
	if err := s.send(wire.JSON(wire.TReady, 0, wire.Ready{Version: wire.Version, PID: os.Getpid()})); err != nil {
		return fmt.Errorf("send ready: %w", err)
	}
	for {
		fr, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil // the host is gone: exiting kills the sandbox
		}
		if err != nil {
			return fmt.Errorf("read request: %w", err)
		}
		if err := s.handle(fr); err != nil {
			return err
		}
	}
}

// openNotify opens the notify socket the host passes as wire.NotifyFD (nil
// if it passes none: an execution with command rules then fails to start).
func openNotify() (*net.UnixConn, chan struct{}) {
	done := make(chan struct{})
	var st unix.Stat_t
	if unix.Fstat(wire.NotifyFD, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		close(done)
		return nil, done
	}
	f := os.NewFile(wire.NotifyFD, "notify")
	c, err := net.FileConn(f) // a close-on-exec duplicate
	f.Close()
	uc, ok := c.(*net.UnixConn)
	if err != nil || !ok {
		if c != nil {
			c.Close()
		}
		close(done)
		return nil, done
	}
	return uc, done
}

// checkConfig refuses another protocol version or a missing limit.
func checkConfig(c wire.Config) error {
	switch {
	case c.Version != wire.Version:
		return fmt.Errorf("check config: protocol version %d, the init speaks %d: %w", c.Version, wire.Version, wire.ErrProtocol)
	case c.OutputWindow < wire.MaxData || c.DetachedBuffer <= 0 || c.MaxDetached <= 0 || c.KillGrace <= 0 || c.DrainTimeout <= 0:
		return fmt.Errorf("check config: %+v: a limit is missing: %w", c, wire.ErrProtocol)
	}
	return nil
}

// dropSignals makes the init receive (and drop) the signals whose default
// action would end it. Handling them, rather than ignoring them, matters:
// ignored signals stay ignored in the programs the init starts.
func dropSignals() {
	ch := make(chan os.Signal, 16)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGUSR1,
		syscall.SIGUSR2, syscall.SIGPIPE, syscall.SIGALRM, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU,
		syscall.SIGVTALRM, syscall.SIGPROF, syscall.SIGXCPU, syscall.SIGXFSZ, syscall.SIGIO, syscall.SIGPWR)
	go func() {
		for range ch {
		}
	}()
}

// server is the init's state: one connection, its streams and executions.
type server struct {
	cfg  wire.Config
	conn net.Conn
	wmu  sync.Mutex // serialises frame writes

	// mu guards everything below and every execution's and stream's fields
	// not marked otherwise; cond is broadcast whenever output, credit or an
	// execution's state changes.
	mu        sync.Mutex
	cond      *sync.Cond
	streams   map[uint32]*stream
	byPID     map[int]*execution    // main processes not yet reaped
	detached  map[string]*execution // by id
	order     []*execution          // detached, oldest first
	attached  int                   // attached executions whose main process runs (or is starting)
	early     map[int]reaped        // statuses reaped before their launch registered the pid
	launching int                   // programs being forked
	sweeping  bool                  // a sweep is killing escaped processes

	// The notify socket (wire.NotifyFD; nil without one): forkGuarded
	// passes each exec listener on it and waits in answers (by token) for
	// the host's answer to the launch; the host passes each execution's
	// cgroup on it (groups, by the host's token: group.go); notifyDone
	// closes when it ends.
	notify     *net.UnixConn
	notifyDone chan struct{}
	answers    map[uint64]chan struct{}
	tokens     uint64 // the last token given
	groups     map[uint64]*groupFD
}

// reaped is a status the reaper got for a pid nobody had registered: a
// program whose launch has not registered it yet, or an orphan.
type reaped struct {
	ws syscall.WaitStatus
	ru syscall.Rusage
	at time.Time
}

// send writes one frame. A failure means the host is gone: the init exits.
func (s *server) send(f wire.Frame) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := wire.Write(s.conn, f); err != nil {
		os.Exit(0) // the connection is lost: the sandbox ends with the init
	}
	return nil
}

// handle serves one frame from the host.
func (s *server) handle(f wire.Frame) error {
	switch f.Type {
	case wire.TStart:
		var m wire.Start
		if err := wire.Decode(f, &m); err != nil {
			return err
		}
		s.start(f.Stream, m)
	case wire.TStdin:
		s.mu.Lock()
		st := s.streams[f.Stream]
		s.mu.Unlock()
		if st != nil && st.x.stdin != nil {
			if !st.x.stdin.push(f.Payload) {
				return fmt.Errorf("stdin of stream %d: more than the window: %w", f.Stream, wire.ErrProtocol)
			}
		}
	case wire.TCredit:
		n, err := wire.CountOf(f)
		if err != nil {
			return err
		}
		s.mu.Lock()
		if st := s.streams[f.Stream]; st != nil {
			st.credit += int(n)
			s.cond.Broadcast()
		}
		s.mu.Unlock()
	case wire.TSignal:
		var m wire.Signal
		if err := wire.Decode(f, &m); err != nil {
			return err
		}
		s.signal(f.Stream, m)
	case wire.TList:
		s.send(wire.JSON(wire.TListed, f.Stream, s.list()))
	case wire.TAttach:
		var m wire.Attach
		if err := wire.Decode(f, &m); err != nil {
			return err
		}
		s.attach(f.Stream, m.ID)
	case wire.TResize:
		var m wire.Resize
		if err := wire.Decode(f, &m); err != nil {
			return err
		}
		s.mu.Lock()
		st := s.streams[f.Stream]
		s.mu.Unlock()
		if st != nil && m.Valid() {
			st.x.resize(m.Terminal) // not a terminal, or ended: nothing to do
		}
	default:
		return fmt.Errorf("read request: unexpected %s frame: %w", f.Type, wire.ErrProtocol)
	}
	return nil
}

// fail ends stream n with an error.
func (s *server) fail(n uint32, format string, args ...any) {
	s.send(wire.JSON(wire.TError, n, wire.Error{Message: fmt.Sprintf(format, args...)}))
}

// signal serves a Signal frame.
func (s *server) signal(n uint32, m wire.Signal) {
	if m.Signal <= 0 || m.Signal >= 65 {
		s.fail(n, "signal %d: invalid", m.Signal)
		return
	}
	s.mu.Lock()
	var x *execution
	if m.ID != "" {
		x = s.detached[m.ID]
	} else if st := s.streams[n]; st != nil {
		x = st.x
	}
	s.mu.Unlock()
	if x == nil {
		if m.ID != "" {
			s.fail(n, "signal %s: no such detached execution", m.ID)
		}
		return // the stream's execution has ended: nothing to signal
	}
	x.kill(syscall.Signal(m.Signal), m.Escalate, true)
	if m.ID != "" {
		s.send(wire.Frame{Type: wire.TOK, Stream: n})
	}
}

// list serves List.
func (s *server) list() wire.Listed {
	s.mu.Lock()
	order := append([]*execution(nil), s.order...)
	s.mu.Unlock()
	out := wire.Listed{Detached: []wire.Detached{}}
	procs := sessionCounts()
	for _, x := range order {
		s.mu.Lock()
		d := wire.Detached{ID: x.id, PID: x.pid, Started: x.started, Running: !x.exited,
			Procs: procs[x.pid], Output: x.total, Dropped: x.dropped}
		if x.exited {
			e := x.exit
			d.Exit = &e
		}
		s.mu.Unlock()
		out.Detached = append(out.Detached, d)
	}
	return out
}

// attach serves Attach: a new stream on a detached execution.
func (s *server) attach(n uint32, id string) {
	s.mu.Lock()
	x := s.detached[id]
	if x == nil || s.streams[n] != nil {
		s.mu.Unlock()
		s.fail(n, "attach %s: no such detached execution", id)
		return
	}
	st := &stream{id: n, x: x, credit: s.cfg.OutputWindow}
	s.streams[n] = st
	s.mu.Unlock()
	go st.pump()
}
