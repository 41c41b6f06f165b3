package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// Interactive shells (desk shell): Shell starts Options.Shell as a login
// shell on a new pseudo-terminal in the workspace's sandbox and returns the
// session: its output (the terminal's), its input (typed on the terminal),
// its window size, its exit. The session counts as a user of the sandbox
// (which is not stopped for being idle while a shell is open); the sandbox's
// writes made from it are attributed to the session's id, like an
// execution's (ExecutionOf). Closing a session that is still running hangs
// it up: SIGHUP to its processes, SIGKILL to what remains Options.KillGrace
// later, and, as for any execution, everything left in its session is killed
// when the shell ends. Shells are not executions of run: they have no record
// and no event log.

// Defaults of ShellOptions.
const (
	DefaultShellRows    = 24
	DefaultShellCols    = 80
	DefaultShellTerm    = "xterm-256color"
	DefaultShellTimeout = 12 * time.Hour
)

// MaxTermLen bounds ShellOptions.Term.
const MaxTermLen = 64

// ErrShellEnded: the shell has exited or the session was closed.
var ErrShellEnded = errors.New("the shell session has ended")

// ShellOptions configure a shell session. Zero fields take their defaults.
type ShellOptions struct {
	// ID names the session: the workspace's journal attributes the changes
	// made from it to this id (vfs.Change.Actor), as it does an execution's.
	// Same rule as run's execution ids. Default: "shell-" and 20 random hex
	// digits.
	ID string
	// Rows and Cols are the initial window size in character cells (default
	// 24 × 80; each at most wire.MaxTerminalSize).
	Rows, Cols int
	// Term is the TERM variable (default DefaultShellTerm,
	// "xterm-256color"); letters, digits and ._+- only, at most MaxTermLen.
	Term string
	// Cwd is the shell's working directory (default run.DefaultCwd,
	// /workspace).
	Cwd string
	// Env is laid over the sandbox's base environment (see Options.Shell's
	// executions); TERM is Term's.
	Env map[string]string
	// Net is the session's network, as run.Job.Net is an execution's (the
	// workspace's egress policy): the shell gets the proxy settings while
	// the session lasts. Nil: no network.
	Net http.RoundTripper
	// Timeout bounds the session's wall time: the init then ends it as it
	// ends an execution past Options.Timeout (SIGTERM, then SIGKILL
	// Options.KillGrace later). Default DefaultShellTimeout (12h); negative:
	// no bound.
	Timeout time.Duration
}

func (o ShellOptions) withDefaults() (ShellOptions, error) {
	if o.ID == "" {
		var r [10]byte
		rand.Read(r[:])
		o.ID = "shell-" + hex.EncodeToString(r[:])
	}
	if o.Rows == 0 {
		o.Rows = DefaultShellRows
	}
	if o.Cols == 0 {
		o.Cols = DefaultShellCols
	}
	if o.Term == "" {
		o.Term = DefaultShellTerm
	}
	if o.Cwd == "" {
		o.Cwd = run.DefaultCwd
	}
	switch {
	case o.Timeout == 0:
		o.Timeout = DefaultShellTimeout
	case o.Timeout < 0:
		o.Timeout = 0
	}
	switch {
	case !run.ValidID(o.ID):
		return o, fmt.Errorf("start shell: id %q: 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit", o.ID)
	case !(wire.Terminal{Rows: o.Rows, Cols: o.Cols}).Valid():
		return o, fmt.Errorf("start shell: window %d×%d: want 1 to %d rows and columns", o.Rows, o.Cols, wire.MaxTerminalSize)
	case !validTerm(o.Term):
		return o, fmt.Errorf("start shell: TERM %q: want 1 to %d letters, digits and ._+-", o.Term, MaxTermLen)
	case !strings.HasPrefix(o.Cwd, "/"):
		return o, fmt.Errorf("start shell: working directory %q: want an absolute path", o.Cwd)
	}
	return o, nil
}

// validTerm reports whether t is a plausible terminal type name.
func validTerm(t string) bool {
	if t == "" || len(t) > MaxTermLen {
		return false
	}
	for _, c := range t {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("._+-", c)) {
			return false
		}
	}
	return true
}

// ShellSession is an interactive shell running in a sandbox (Shell). Read
// and Write may be called concurrently with each other and with Resize;
// Close ends it. It must be closed.
type ShellSession struct {
	b    *Backend
	x    *box
	s    *hstream
	id   string
	pid  int
	quit chan struct{} // closed to give up on the init's report
	// netDone forgets the session's egress credential (egress.go).
	netDone func()
	ended   chan struct{} // closed when the stream is over and the sandbox released

	wmu sync.Mutex // serialises Write and CloseWrite

	mu       sync.Mutex
	cond     *sync.Cond
	out      [][]byte // output received, not read yet
	inflight int      // input bytes sent, not acknowledged
	done     bool     // the stream is over
	exit     wire.Exit
	exited   bool  // exit is the init's report
	err      error // why the stream ended without a report
	closed   bool  // Close was called
	eof      bool  // CloseWrite was called

	closeOnce sync.Once
}

// Shell starts an interactive login shell (Options.Shell -l) on a new
// pseudo-terminal in the workspace's sandbox, starting the sandbox if
// needed. ws.Name empty means Options.Name(ws.FS), the name Run uses, so that
// the shell shares the executions' sandbox. ctx bounds the start only.
func (b *Backend) Shell(ctx context.Context, ws Workspace, opts ShellOptions) (*ShellSession, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if ws.FS == nil {
		return nil, errors.New("start shell: no workspace store")
	}
	if ws.Name == "" {
		ws.Name = b.opts.Name(ws.FS)
	}
	var sh *ShellSession
	err = b.useBox(ctx, ws, func(x *box) (keep, started bool, err error) {
		sh, started, err = x.startShell(ctx, o)
		return err == nil, started, err // a started session owns the use of x
	})
	if err != nil {
		return nil, err
	}
	return sh, nil
}

// startShell starts the shell in x. On success the session owns the use of x
// (released when its stream is over); started says whether the init started
// a program.
func (x *box) startShell(ctx context.Context, o ShellOptions) (_ *ShellSession, started bool, err error) {
	k := x.conn
	s := k.open()
	x.syncMount(ctx)
	env := make(map[string]string, len(o.Env)+1)
	for k, v := range o.Env {
		env[k] = v
	}
	env["TERM"] = o.Term
	env, netDone := x.netEnv(o.Net, env)
	netOwned := false // by the session, once it started
	defer func() {
		if !netOwned {
			netDone()
		}
	}()
	launched := x.launch()
	defer launched()
	err = k.send(wire.JSON(wire.TStart, s.id, wire.Start{
		ID:       o.ID,
		Argv:     []string{x.shell(), "-l"},
		Cwd:      x.cwd(o.Cwd),
		User:     x.user(),
		Env:      x.env(env),
		Timeout:  o.Timeout,
		Terminal: &wire.Terminal{Rows: o.Rows, Cols: o.Cols},
		Commands: commandRules(ctx, ""),
	}))
	if err != nil {
		s.close()
		return nil, false, fmt.Errorf("start shell: sandbox stopped: %w", x.deathReason(err))
	}
	var msg []byte // what the init said on stderr before giving up
	for {
		f, err := s.next(ctx.Done(), nil)
		switch {
		case errors.Is(err, errCtx):
			// The program may be starting: kill it, and let the stream end.
			k.send(wire.JSON(wire.TSignal, s.id, wire.Signal{Signal: int(syscall.SIGKILL)}))
			go x.drain(s)
			return nil, false, fmt.Errorf("start shell: %w", context.Cause(ctx))
		case err != nil:
			s.close()
			return nil, false, fmt.Errorf("start shell: sandbox stopped: %w", x.deathReason(err))
		}
		switch f.Type {
		case wire.TStdout, wire.TStderr:
			msg = append(msg, f.Payload...)
			k.send(wire.Count(wire.TCredit, s.id, uint32(len(f.Payload))))
		case wire.TError:
			var e wire.Error
			wire.Decode(f, &e)
			s.close()
			return nil, false, fmt.Errorf("start shell: %s", e.Message)
		case wire.TExit:
			var e wire.Exit
			wire.Decode(f, &e)
			s.close()
			why := e.Error
			if why == "" {
				why = strings.TrimSpace(string(msg))
			}
			return nil, false, fmt.Errorf("start shell: %s", why)
		case wire.TStarted:
			var st wire.Started
			if err := wire.Decode(f, &st); err != nil || st.PID <= 0 {
				k.fail(fmt.Errorf("start shell: bad started frame: %w", wire.ErrProtocol))
				s.close()
				return nil, true, fmt.Errorf("start shell: sandbox stopped: %w", x.deathReason(k.Err()))
			}
			x.addSession(st.PID, o.ID)
			sh := &ShellSession{b: x.b, x: x, s: s, id: o.ID, pid: st.PID, quit: make(chan struct{}), ended: make(chan struct{}), netDone: netDone}
			netOwned = true
			sh.cond = sync.NewCond(&sh.mu)
			go sh.loop()
			return sh, true, nil
		}
	}
}

// drain consumes a given-up stream until its Exit (crediting its output, so
// that the init can finish it), the sandbox's end, or a bound.
func (x *box) drain(s *hstream) {
	defer s.close()
	o := &x.b.opts
	deadline := time.After(o.KillGrace + o.DrainTimeout + 2*time.Second)
	for {
		f, err := s.next(nil, deadline)
		if err != nil || f.Type == wire.TExit || f.Type == wire.TError {
			return
		}
		if f.Type == wire.TStdout || f.Type == wire.TStderr {
			x.conn.send(wire.Count(wire.TCredit, s.id, uint32(len(f.Payload))))
		}
	}
}

// loop sorts the stream's frames until it is over, then gives the sandbox
// back.
func (sh *ShellSession) loop() {
	k := sh.x.conn
	defer func() {
		sh.netDone()
		sh.x.removeSession(sh.pid)
		sh.s.close()
		sh.b.release(sh.x)
		close(sh.ended)
	}()
	for {
		f, err := sh.s.next(sh.quit, nil)
		if err != nil {
			if errors.Is(err, errCtx) {
				err = errors.New("the sandbox did not report the shell's end")
			} else {
				err = fmt.Errorf("shell: sandbox stopped: %w", sh.x.deathReason(err))
			}
			sh.end(wire.Exit{}, false, err)
			return
		}
		switch f.Type {
		case wire.TStdout, wire.TStderr:
			sh.mu.Lock()
			keep := !sh.closed
			if keep {
				sh.out = append(sh.out, f.Payload)
				sh.cond.Broadcast()
			}
			sh.mu.Unlock()
			if !keep { // nobody reads any more
				k.send(wire.Count(wire.TCredit, sh.s.id, uint32(len(f.Payload))))
			}
		case wire.TStdinAck:
			n, err := wire.CountOf(f)
			if err != nil {
				k.fail(err)
				continue
			}
			sh.mu.Lock()
			sh.inflight -= int(n)
			sh.cond.Broadcast()
			sh.mu.Unlock()
		case wire.TError:
			var e wire.Error
			wire.Decode(f, &e)
			sh.end(wire.Exit{}, false, fmt.Errorf("shell: %s", e.Message))
			return
		case wire.TExit:
			var e wire.Exit
			if err := wire.Decode(f, &e); err != nil {
				k.fail(err)
				continue
			}
			sh.b.log.Debug("sandbox shell ended", "workspace", sh.x.ws.Name, "id", sh.id, "code", e.Code, "signal", e.Signal)
			sh.end(e, true, nil)
			return
		}
	}
}

// end records how the stream ended.
func (sh *ShellSession) end(e wire.Exit, exited bool, err error) {
	sh.mu.Lock()
	sh.done, sh.exit, sh.exited, sh.err = true, e, exited, err
	sh.cond.Broadcast()
	sh.mu.Unlock()
}

// ID is the session's id (the actor of its changes).
func (sh *ShellSession) ID() string { return sh.id }

// PID is the shell's pid inside the sandbox (also its session id).
func (sh *ShellSession) PID() int { return sh.pid }

// Read reads the terminal's output. After the shell has ended and its output
// is read, it returns io.EOF (or why the sandbox stopped); after Close,
// ErrShellEnded.
func (sh *ShellSession) Read(p []byte) (int, error) {
	sh.mu.Lock()
	for len(sh.out) == 0 && !sh.done && !sh.closed {
		sh.cond.Wait()
	}
	switch {
	case sh.closed:
		sh.mu.Unlock()
		return 0, ErrShellEnded
	case len(sh.out) == 0:
		err := sh.err
		sh.mu.Unlock()
		if err == nil {
			err = io.EOF
		}
		return 0, err
	}
	n := copy(p, sh.out[0])
	if n == len(sh.out[0]) {
		sh.out[0] = nil
		sh.out = sh.out[1:]
	} else {
		sh.out[0] = sh.out[0][n:]
	}
	done := sh.done
	sh.mu.Unlock()
	if !done && n > 0 {
		sh.x.conn.send(wire.Count(wire.TCredit, sh.s.id, uint32(n)))
	}
	return n, nil
}

// Write types p on the terminal. It blocks while Options.OutputWindow bytes
// of input wait for the shell (a shell that does not read its input holds
// its typist up, as a terminal does); it fails with ErrShellEnded once the
// shell has ended, the session is closed or CloseWrite was called.
func (sh *ShellSession) Write(p []byte) (int, error) {
	sh.wmu.Lock()
	defer sh.wmu.Unlock()
	window := sh.b.opts.OutputWindow
	written := 0
	for len(p) > 0 {
		n := min(len(p), wire.MaxData)
		sh.mu.Lock()
		for !sh.done && !sh.closed && !sh.eof && sh.inflight+n > window {
			sh.cond.Wait()
		}
		if sh.done || sh.closed || sh.eof {
			sh.mu.Unlock()
			return written, ErrShellEnded
		}
		sh.inflight += n
		sh.mu.Unlock()
		if err := sh.x.conn.send(wire.Frame{Type: wire.TStdin, Stream: sh.s.id, Payload: p[:n]}); err != nil {
			return written, fmt.Errorf("write to shell: %w", err)
		}
		written += n
		p = p[n:]
	}
	return written, nil
}

// CloseWrite ends the input: the terminal's end-of-file character (^D) is
// typed after what was written, and further Writes fail. A shell at its
// prompt exits on it.
func (sh *ShellSession) CloseWrite() error {
	sh.wmu.Lock()
	defer sh.wmu.Unlock()
	sh.mu.Lock()
	if sh.done || sh.closed || sh.eof {
		sh.mu.Unlock()
		return ErrShellEnded
	}
	sh.eof = true
	sh.cond.Broadcast()
	sh.mu.Unlock()
	if err := sh.x.conn.send(wire.Frame{Type: wire.TStdin, Stream: sh.s.id}); err != nil {
		return fmt.Errorf("close shell input: %w", err)
	}
	return nil
}

// Resize sets the terminal's window size (rows and columns each in 1 to
// wire.MaxTerminalSize); the shell's foreground job gets SIGWINCH.
func (sh *ShellSession) Resize(rows, cols int) error {
	t := wire.Terminal{Rows: rows, Cols: cols}
	if !t.Valid() {
		return fmt.Errorf("resize shell: %d×%d: want 1 to %d rows and columns", rows, cols, wire.MaxTerminalSize)
	}
	sh.mu.Lock()
	over := sh.done || sh.closed
	sh.mu.Unlock()
	if over {
		return ErrShellEnded
	}
	if err := sh.x.conn.send(wire.JSON(wire.TResize, sh.s.id, wire.Resize{Terminal: t})); err != nil {
		return fmt.Errorf("resize shell: %w", err)
	}
	return nil
}

// Wait waits until the shell has ended and returns its exit status: its exit
// code, 128+N when signal N ended it (129 when a Close hung it up), or
// run.ExitTimedOut (124) when ShellOptions.Timeout ended it. It fails when
// the sandbox stopped under the shell, or with ctx.
func (sh *ShellSession) Wait(ctx context.Context) (int, error) {
	select {
	case <-sh.ended:
	case <-ctx.Done():
		return 0, fmt.Errorf("wait for shell: %w", context.Cause(ctx))
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !sh.exited {
		return 0, sh.err
	}
	if sh.exit.TimedOut {
		return run.ExitTimedOut, nil
	}
	return sh.exit.Code, nil
}

// Close ends the session. A shell still running is hung up (SIGHUP to its
// session and process group, SIGKILL Options.KillGrace later) and Close
// waits for its end, at most KillGrace + DrainTimeout + 2s; output not read
// is dropped. The sandbox is given back. Later calls do nothing.
func (sh *ShellSession) Close() error {
	sh.closeOnce.Do(func() {
		sh.mu.Lock()
		sh.closed = true
		unread := 0
		for _, b := range sh.out {
			unread += len(b)
		}
		sh.out = nil
		done := sh.done
		sh.cond.Broadcast()
		sh.mu.Unlock()
		if done {
			<-sh.ended
			return
		}
		k := sh.x.conn
		if unread > 0 {
			k.send(wire.Count(wire.TCredit, sh.s.id, uint32(unread)))
		}
		k.send(wire.JSON(wire.TSignal, sh.s.id, wire.Signal{Signal: int(syscall.SIGHUP), Escalate: true}))
		o := &sh.b.opts
		select {
		case <-sh.ended:
		case <-time.After(o.KillGrace + o.DrainTimeout + 2*time.Second):
			close(sh.quit)
			<-sh.ended
		}
	})
	return nil
}
