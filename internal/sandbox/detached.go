package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// Detached executions are long-running programs (services) not bound to a
// caller: started with StartDetached, listed, attached to and signalled by id
// while their sandbox lives. Their processes are not killed when the main
// process exits; their output is kept in a buffer of Options.DetachedBuffer
// (the newest). A sandbox with a running detached execution is not stopped
// for being idle. internal/run has no notion of them yet: these methods are
// the backend's side, for run (or the API) to build on.

// Detached describes a detached execution.
type Detached = wire.Detached

// ErrNoDetached: no detached execution has that id (or the workspace has no
// live sandbox).
var ErrNoDetached = errors.New("no such detached execution")

// StartDetached starts source (Options.Shell -c source) as a detached
// execution with id in the workspace's sandbox, starting the sandbox if
// needed, and returns its pid inside the sandbox. env is laid over the
// sandbox's base environment.
func (b *Backend) StartDetached(ctx context.Context, ws Workspace, id, source, cwd string, env map[string]string) (int, error) {
	x, err := b.acquire(ctx, ws)
	if err != nil {
		return 0, err
	}
	defer b.release(x)
	s := x.conn.open()
	defer s.close()
	err = x.conn.send(wire.JSON(wire.TStart, s.id, wire.Start{
		ID: id, Argv: []string{b.opts.Shell, "-c", source}, Cwd: cwd, Env: x.env(env), Detached: true,
	}))
	if err != nil {
		return 0, fmt.Errorf("start detached %s: %w", id, err)
	}
	pid := 0
	for {
		f, err := s.next(ctx.Done(), nil)
		if err != nil {
			if errors.Is(err, errCtx) {
				err = ctx.Err()
			}
			return 0, fmt.Errorf("start detached %s: %w", id, err)
		}
		switch f.Type {
		case wire.TStarted:
			var st wire.Started
			if err := wire.Decode(f, &st); err != nil {
				return 0, err
			}
			pid = st.PID
			x.addSession(pid, id)
		case wire.TError:
			var e wire.Error
			wire.Decode(f, &e)
			return 0, fmt.Errorf("start detached %s: %s", id, e.Message)
		case wire.TExit:
			var e wire.Exit
			wire.Decode(f, &e)
			if pid == 0 {
				return 0, fmt.Errorf("start detached %s: %s", id, e.Error)
			}
			return pid, nil
		}
	}
}

// ListDetached lists the detached executions of the workspace's sandbox
// (none when it does not run).
func (b *Backend) ListDetached(ctx context.Context, name string) ([]Detached, error) {
	x := b.live(name)
	if x == nil {
		return nil, nil
	}
	defer b.release(x)
	return x.list(ctx)
}

// list asks the init for its detached executions.
func (x *box) list(ctx context.Context) ([]Detached, error) {
	f, err := x.conn.request(ctx, wire.Frame{Type: wire.TList})
	if err != nil {
		return nil, fmt.Errorf("list detached executions: %w", err)
	}
	var l wire.Listed
	if err := wire.Decode(f, &l); err != nil {
		return nil, err
	}
	return l.Detached, nil
}

// SignalDetached sends sig to the processes of a detached execution (its
// session); with escalate, SIGKILL follows Options.KillGrace later.
func (b *Backend) SignalDetached(ctx context.Context, name, id string, sig syscall.Signal, escalate bool) error {
	x := b.live(name)
	if x == nil {
		return fmt.Errorf("signal %s: %w", id, ErrNoDetached)
	}
	defer b.release(x)
	f, err := x.conn.request(ctx, wire.JSON(wire.TSignal, 0, wire.Signal{Signal: int(sig), Escalate: escalate, ID: id}))
	if err != nil {
		return fmt.Errorf("signal %s: %w", id, err)
	}
	if f.Type == wire.TError {
		return fmt.Errorf("signal %s: %w", id, ErrNoDetached)
	}
	return nil
}

// AttachDetached copies a detached execution's kept output and then its live
// output to stdout and stderr until its output ends, and returns how its main
// process ended. dropped counts output bytes the buffer no longer held.
func (b *Backend) AttachDetached(ctx context.Context, name, id string, stdout, stderr io.Writer) (e wire.Exit, dropped int64, err error) {
	x := b.live(name)
	if x == nil {
		return e, 0, fmt.Errorf("attach %s: %w", id, ErrNoDetached)
	}
	defer b.release(x)
	s := x.conn.open()
	defer s.close()
	if err := x.conn.send(wire.JSON(wire.TAttach, s.id, wire.Attach{ID: id})); err != nil {
		return e, 0, fmt.Errorf("attach %s: %w", id, err)
	}
	for {
		f, err := s.next(ctx.Done(), nil)
		if err != nil {
			if errors.Is(err, errCtx) {
				err = ctx.Err()
			}
			return e, dropped, fmt.Errorf("attach %s: %w", id, err)
		}
		switch f.Type {
		case wire.TStdout, wire.TStderr:
			w := stdout
			if f.Type == wire.TStderr {
				w = stderr
			}
			w.Write(f.Payload)
			x.conn.send(wire.Count(wire.TCredit, s.id, uint32(len(f.Payload))))
		case wire.TElided:
			n, _ := wire.CountOf(f)
			dropped += int64(n)
		case wire.TError:
			return e, dropped, fmt.Errorf("attach %s: %w", id, ErrNoDetached)
		case wire.TExit:
			err := wire.Decode(f, &e)
			return e, dropped, err
		}
	}
}

// live returns the workspace's live, started sandbox, counted as used until
// release, or nil.
func (b *Backend) live(name string) *box {
	b.mu.Lock()
	x := b.boxes[name]
	if x != nil {
		x.users++
		if x.idle != nil {
			x.idle.Stop()
			x.idle = nil
		}
	}
	b.mu.Unlock()
	if x == nil {
		return nil
	}
	<-x.ready
	if x.err != nil || x.isDead() {
		b.release(x)
		return nil
	}
	return x
}
