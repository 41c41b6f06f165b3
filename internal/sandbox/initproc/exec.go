package initproc

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// execution is one program the init started. Fields after the first group are
// guarded by server.mu.
type execution struct {
	s        *server
	id       string
	pid      int // also its session and process group id; 0 until started (guarded by server.mu)
	detached bool
	started  time.Time
	stdin    *stdinPipe
	out, err *os.File // read ends of the program's stdout and stderr (a terminal: its master, and nil)
	pty      *os.File // a terminal execution's master (pty.go); nil otherwise

	chunks    []chunk // output not yet sent (attached) or kept (detached)
	base      uint64  // number of chunks[0]
	next      uint64  // number of the next chunk
	held      int     // bytes in chunks
	total     int64   // output bytes produced
	dropped   int64   // output bytes a detached buffer dropped
	pipesOpen int
	exited    bool
	exit      wire.Exit
	killed    syscall.Signal // first signal sent on request
	timedOut  bool
	timer     *time.Timer

	pendingSig      syscall.Signal // a signal that came before the program started
	pendingEscalate bool

	rules policy.Set // Start.Commands, compiled (guard.go); nil: no exec filter
}

// finished reports whether the program has been reaped and its pipes are closed.
func (x *execution) finished() bool { return x.exited && x.pipesOpen == 0 }

// start serves Start on stream n. It registers the execution at once, so
// that the stream's Stdin, Credit and Signal frames find it, and launches the
// program on a goroutine of its own: checking the working directory and
// forking may block on the workspace mount, and the read loop must not.
func (s *server) start(n uint32, m wire.Start) {
	launched := false
	defer func() {
		if !launched && m.Group != 0 {
			s.dropGroup(m.Group)
		}
	}()
	switch {
	case len(m.Argv) == 0 || m.ID == "":
		s.fail(n, "start: no program or no id")
		return
	case m.Terminal != nil && (m.Detached || !m.Terminal.Valid()):
		s.fail(n, "start %s: a terminal needs a window size of 1 to %d cells each way and cannot be detached", m.ID, wire.MaxTerminalSize)
		return
	}
	var rules policy.Set
	if m.Commands != nil {
		var err error
		if rules, err = compileRules(m.Commands); err != nil {
			s.fail(n, "start %s: %v", m.ID, err)
			return
		}
	}
	var x *execution
	var in, out, errw *os.File // the program's ends
	if m.Terminal != nil {
		var err error
		if x, in, err = s.newTerminal(n, m); err != nil {
			s.fail(n, "start %s: %v", m.ID, err)
			return
		}
		out, errw = in, in
	} else {
		var p [6]*os.File // in r/w, out r/w, err r/w
		for i := 0; i < 6; i += 2 {
			r, w, err := os.Pipe()
			if err != nil {
				closeAll(p[:i])
				s.fail(n, "start %s: make pipe: %v", m.ID, err)
				return
			}
			p[i], p[i+1] = r, w
		}
		x = &execution{s: s, id: m.ID, detached: m.Detached, started: time.Now(), out: p[2], err: p[4], pipesOpen: 2}
		x.stdin = newStdinPipe(s, n, p[1], s.cfg.OutputWindow)
		in, out, errw = p[0], p[3], p[5]
	}
	x.rules = rules
	var st *stream
	s.mu.Lock()
	var err error
	switch {
	case s.streams[n] != nil:
		err = fmt.Errorf("stream %d is in use", n)
	case m.Detached:
		if err = s.roomForDetachedLocked(m.ID); err == nil {
			s.detached[m.ID] = x
			s.order = append(s.order, x)
		}
	default:
		st = &stream{id: n, x: x, credit: s.cfg.OutputWindow}
		s.streams[n] = st
		s.attached++
	}
	s.mu.Unlock()
	if err != nil {
		closeAll([]*os.File{in, out, errw, x.out, x.err, x.stdin.w})
		s.fail(n, "start %s: %v", m.ID, err)
		return
	}
	launched = true
	go s.launch(n, m, x, st, in, out, errw)
}

// launch starts the program of a registered execution with the given ends of
// its stdio pipes (a terminal's slave, thrice), in a session of its own (with
// the terminal as its controlling terminal).
func (s *server) launch(n uint32, m wire.Start, x *execution, st *stream, in, out, errw *os.File) {
	if fi, err := os.Stat(m.Cwd); err != nil || !fi.IsDir() {
		why := "Not a directory"
		if err != nil {
			why = errnoText(err)
		}
		closeAll([]*os.File{in, out, errw})
		x.abort(n, st, 1, "bash: working directory "+m.Cwd+": "+why)
		return
	}
	// Fd puts the program's ends in blocking mode, as programs expect.
	attr := &syscall.ProcAttr{
		Dir:   m.Cwd,
		Env:   m.Env,
		Files: []uintptr{in.Fd(), out.Fd(), errw.Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true, Setctty: m.Terminal != nil, Ctty: 0},
	}
	if m.User != nil {
		attr.Sys.Credential = &syscall.Credential{Uid: m.User.UID, Gid: m.User.GID, Groups: []uint32{}}
	}
	group, ungrouped := -1, ""
	if m.Group != 0 {
		var err error
		if group, err = s.takeGroup(m.Group); err != nil {
			ungrouped = err.Error()
		} else {
			defer unix.Close(group)
		}
	}
	s.mu.Lock()
	for s.sweeping {
		s.cond.Wait()
	}
	s.launching++
	s.mu.Unlock()
	forked := time.Now()
	var pid int
	var err error
	switch {
	case m.Commands != nil:
		report := n // an attached execution's reports go on its stream (others': stream 0)
		if m.Detached || m.Terminal != nil {
			report = 0
		}
		var why string
		pid, why, err = s.forkGuarded(x, report, m.Commands, x.rules, m.Argv, attr, group)
		ungrouped = cmp.Or(ungrouped, why)
	case group >= 0:
		pid, ungrouped, err = forkInGroup(group, m.Argv, attr)
	default:
		pid, err = syscall.ForkExec(m.Argv[0], m.Argv, attr)
	}
	closeAll([]*os.File{in, out, errw})
	if err != nil {
		s.mu.Lock()
		s.launching--
		s.mu.Unlock()
		code := 126
		if errors.Is(err, syscall.ENOENT) {
			code = 127
		}
		x.abort(n, st, code, "desk: start "+m.Argv[0]+": "+errnoText(err))
		return
	}
	os.WriteFile("/proc/"+strconv.Itoa(pid)+"/oom_score_adj", []byte(strconv.Itoa(s.cfg.OOMScoreAdj)), 0)
	s.mu.Lock()
	s.launching--
	x.pid = pid
	early, reaped := s.early[pid]
	reaped = reaped && !early.at.Before(forked) // not an orphan's that had this pid before
	if reaped {
		delete(s.early, pid)
	} else {
		s.byPID[pid] = x
	}
	if m.Timeout > 0 {
		x.timer = time.AfterFunc(m.Timeout, x.timeout)
	}
	pending, escalate := x.pendingSig, x.pendingEscalate
	s.cond.Broadcast()
	s.mu.Unlock()
	s.send(wire.JSON(wire.TStarted, n, wire.Started{PID: pid, Ungrouped: ungrouped}))
	if m.Detached {
		x.stdin.close() // detached programs read an empty stdin
		s.send(wire.JSON(wire.TExit, n, wire.Exit{Detached: true}))
	} else {
		go st.pump()
	}
	go x.read(x.out, wire.TStdout)
	if x.err != nil {
		go x.read(x.err, wire.TStderr)
	}
	go x.stdin.run()
	if pending != 0 {
		x.kill(pending, escalate, false)
	}
	if reaped {
		go x.ended(early.ws, early.ru)
	}
}

// abort ends an execution whose program did not start: stderr gets msg (for
// an attached one), the stream an Exit with code.
func (x *execution) abort(n uint32, st *stream, code int, msg string) {
	s := x.s
	x.stdin.close()
	x.out.Close()
	if x.err != nil {
		x.err.Close()
	}
	s.mu.Lock()
	if x.detached {
		delete(s.detached, x.id)
		for i, d := range s.order {
			if d == x {
				s.order = append(s.order[:i:i], s.order[i+1:]...)
				break
			}
		}
	} else {
		delete(s.streams, st.id)
		s.attached--
	}
	s.mu.Unlock()
	if !x.detached {
		s.send(wire.Frame{Type: wire.TStderr, Stream: n, Payload: []byte(msg + "\n")})
	}
	s.send(wire.JSON(wire.TExit, n, wire.Exit{Code: code, Detached: x.detached, Error: msg}))
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// roomForDetachedLocked checks that a detached execution id can start,
// forgetting the oldest finished one if the table is full.
func (s *server) roomForDetachedLocked(id string) error {
	if s.detached[id] != nil {
		return fmt.Errorf("a detached execution with this id exists")
	}
	if len(s.detached) < s.cfg.MaxDetached {
		return nil
	}
	for i, x := range s.order {
		if x.finished() {
			delete(s.detached, x.id)
			s.order = append(s.order[:i:i], s.order[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("%d detached executions are running (the most the sandbox keeps)", len(s.detached))
}

// ended records the main process's end (called by the reaper): for an
// attached execution the rest of its session is killed, its pipes drained,
// and, when no other attached execution runs, processes that left their
// sessions are killed too.
func (x *execution) ended(ws syscall.WaitStatus, ru syscall.Rusage) {
	s := x.s
	e := wire.Exit{
		UserTime: time.Duration(ru.Utime.Nano()),
		SysTime:  time.Duration(ru.Stime.Nano()),
		MaxRSS:   ru.Maxrss * 1024,
	}
	switch {
	case ws.Exited():
		e.Code = ws.ExitStatus()
	case ws.Signaled():
		e.Signal = int(ws.Signal())
		e.Code = 128 + e.Signal
	}
	if !x.detached {
		killSession(x.pid)
		deadline := time.Now().Add(s.cfg.DrainTimeout)
		x.out.SetReadDeadline(deadline)
		if x.err != nil {
			x.err.SetReadDeadline(deadline)
		}
		x.stdin.close()
	}
	s.mu.Lock()
	if x.timer != nil {
		x.timer.Stop()
	}
	e.TimedOut, e.Killed = x.timedOut, int(x.killed)
	sweep := false
	if !x.detached {
		s.attached--
		sweep = s.attached == 0
	}
	s.mu.Unlock()
	if sweep {
		s.sweep()
	}
	s.mu.Lock()
	x.exit, x.exited = e, true
	s.cond.Broadcast()
	s.mu.Unlock()
}

// sweep kills every process outside the sessions of running executions and
// detached ones: processes that left the session of an execution that ended.
// A program being launched has no session known yet: the sweep is skipped
// then (escaped processes wait for the next one), and launches wait while a
// sweep runs.
func (s *server) sweep() {
	keep := map[int]bool{}
	s.mu.Lock()
	if s.launching > 0 || s.sweeping {
		s.mu.Unlock()
		return
	}
	s.sweeping = true
	for pid := range s.byPID {
		keep[pid] = true
	}
	for _, x := range s.detached {
		keep[x.pid] = true
	}
	s.mu.Unlock()
	killOthers(keep)
	s.mu.Lock()
	s.sweeping = false
	s.cond.Broadcast()
	s.mu.Unlock()
}

// timeout ends the execution when Start.Timeout expires.
func (x *execution) timeout() {
	x.s.mu.Lock()
	x.timedOut = true
	x.s.mu.Unlock()
	x.kill(syscall.SIGTERM, true, false)
}

// kill signals the execution's processes; with escalate, whatever is left
// KillGrace later gets SIGKILL.
func (x *execution) kill(sig syscall.Signal, escalate, request bool) {
	s := x.s
	s.mu.Lock()
	if request && x.killed == 0 {
		x.killed = sig
	}
	pid := x.pid
	if pid == 0 { // not started yet: launch delivers it
		if x.pendingSig == 0 || sig == syscall.SIGKILL {
			x.pendingSig, x.pendingEscalate = sig, escalate
		}
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	signalSession(pid, sig)
	if escalate && sig != syscall.SIGKILL {
		time.AfterFunc(s.cfg.KillGrace, func() { killSession(x.pid) })
	}
}

// errnoText words an error as the C library does ("No such file or directory").
func errnoText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		err = pe.Err
	}
	if en, ok := err.(syscall.Errno); ok {
		if s := en.Error(); s != "" && 'a' <= s[0] && s[0] <= 'z' {
			return string(s[0]-'a'+'A') + s[1:]
		}
	}
	return err.Error()
}
