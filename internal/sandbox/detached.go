package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/run"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// Detached executions are long-running programs (services) not bound to a
// caller. run starts them through RunDetached (run.Detacher: ExecOptions.
// Detached, the API's "detached": true, desk exec --service, the exec tool's
// detached); StartDetached, ListDetached, AttachDetached and SignalDetached
// are the same machinery addressed by id, for tests and tools.
//
// Their processes are not killed when the main process exits, and a
// non-detached execution's end does not sweep them. Their output is kept in
// the init in a buffer of Options.DetachedBuffer (the newest); RunDetached
// follows it live into the run execution's events, so only output produced
// faster than desk reads it can be dropped (a note on stderr counts it). A
// sandbox with a running detached execution is not stopped for being idle,
// and Options.Timeout (the init's wall-time bound of an execution) does not
// apply to them: run's ExecOptions.Timeout does (run.Options.
// DetachedTimeout by default).
//
// A detached execution run by RunDetached ends when its main process has
// exited, its output has ended (no process holds its stdout or stderr) and
// no process of its session is left; or when it is killed, times out or its
// sandbox stops. A process that leaves the session (setsid, a daemon's
// double fork) is not the execution's: it is killed by the next sweep (when
// a non-detached execution ends with none other running).

var _ run.Detacher = (*Backend)(nil)

// How often RunDetached asks the init whether processes of a detached
// execution whose output has ended are left: detachedPollMin at first,
// doubling up to detachedPollMax. (The init reports session ends on no
// stream: a program whose output ended is asked about.)
const (
	detachedPollMin = 20 * time.Millisecond
	detachedPollMax = time.Second
)

// Detached describes a detached execution.
type Detached = wire.Detached

// ErrNoDetached: no detached execution has that id (or the workspace has no
// live sandbox).
var ErrNoDetached = errors.New("no such detached execution")

// RunDetached runs job as a detached execution in the workspace's sandbox
// (see run.Detacher), starting the sandbox if needed: Options.Shell -c
// job.Source with an empty stdin, its output copied to job's as it comes.
// It calls started once the program runs and returns when the execution has
// ended (see above). When ctx is done the session gets the signal of a
// run.KillError (else SIGTERM), then SIGKILL Options.KillGrace later. A
// program that could not start (a missing working directory) ends at once
// with its reason on stderr and exit code 1, 126 or 127, as for Run.
func (b *Backend) RunDetached(ctx context.Context, job *run.Job, started func()) (run.Outcome, error) {
	ws, err := b.jobWorkspace(job)
	if err != nil {
		return run.Outcome{}, err
	}
	defer b.trackAccess(ctx, ws.Name, job.ID)()
	var out run.Outcome
	err = b.useBox(ctx, ws, func(x *box) (keep, _ bool, err error) {
		// The init keeps ended detached executions by id for a while: a run
		// id used again (after Dispose) gets an id of its own there.
		id := job.ID + "@" + strconv.FormatUint(b.detachedSeq.Add(1), 10)
		env, netDone := x.netEnv(job.Net, job.Env)
		defer netDone()
		g := x.newGroup()
		defer g.close()
		pid, ex, err := x.startDetached(ctx, id, job.ID, job.Source, job.Cwd, env, g, job)
		if err != nil {
			return false, false, err
		}
		if pid == 0 { // the program did not start: as Run reports it
			if ex.Error != "" {
				fmt.Fprintf(job.Stderr, "%s\n", ex.Error)
			}
			out = run.Outcome{ExitCode: ex.Code}
			return false, true, nil
		}
		started()
		out, err = x.followDetached(ctx, job, id, pid)
		x.removeSession(pid)
		return false, true, err
	})
	return out, err
}

// startDetached starts source as a detached program the init knows as id,
// its session attributed to execution exec (ExecutionOf). It returns the
// program's pid, or 0 and the init's report when the program did not start.
// When ctx ends before the start is reported, the program is killed if it
// started. With a group (nil: none), the program is born in it and the
// group becomes job's CPU meter.
func (x *box) startDetached(ctx context.Context, id, exec, source, cwd string, env map[string]string, g *execGroup, job *run.Job) (pid int, ex wire.Exit, err error) {
	x.syncMount(ctx)
	k := x.conn
	s := k.open()
	defer s.close()
	launched := x.launch()
	defer launched()
	err = k.send(wire.JSON(wire.TStart, s.id, wire.Start{
		ID: id, Argv: []string{x.shell(), "-c", source}, Cwd: x.cwd(cwd), Env: x.env(env), User: x.user(), Detached: true,
		Commands: commandRules(ctx, source), Group: g.id(),
	}))
	if err != nil {
		return 0, ex, fmt.Errorf("start detached %s: sandbox stopped: %w", id, x.deathReason(err))
	}
	for {
		f, err := s.next(ctx.Done(), nil)
		if errors.Is(err, errCtx) {
			// Started or not, it must not run unknown to anyone: a signal
			// that comes before the start is delivered at the start.
			kctx, cancel := context.WithTimeout(context.Background(), x.b.opts.StopTimeout)
			k.request(kctx, wire.JSON(wire.TSignal, 0, wire.Signal{Signal: int(syscall.SIGKILL), ID: id}))
			cancel()
			if pid != 0 {
				x.removeSession(pid)
			}
			return 0, ex, fmt.Errorf("start detached %s: %w", id, context.Cause(ctx))
		}
		if err != nil {
			return 0, ex, fmt.Errorf("start detached %s: sandbox stopped: %w", id, x.deathReason(err))
		}
		switch f.Type {
		case wire.TStarted:
			var st wire.Started
			if err := wire.Decode(f, &st); err != nil {
				return 0, ex, err
			}
			pid = st.PID
			x.addSession(pid, exec)
			g.meter(job, st)
			launched()
		case wire.TError:
			var e wire.Error
			wire.Decode(f, &e)
			return 0, ex, fmt.Errorf("start detached %s: %s", id, e.Message)
		case wire.TExit:
			if err := wire.Decode(f, &ex); err != nil {
				return 0, ex, err
			}
			return pid, ex, nil
		}
	}
}

// followDetached copies the output of the started detached program id
// (session pid) to job's until the execution has ended, and returns its
// outcome. When ctx ends first, it signals the session and waits (at most
// KillGrace + DrainTimeout + 2s) for the end.
func (x *box) followDetached(ctx context.Context, job *run.Job, id string, pid int) (run.Outcome, error) {
	o := &x.b.opts
	k := x.conn
	before := x.cg.read()
	s := k.open()
	defer s.close()
	if err := k.send(wire.JSON(wire.TAttach, s.id, wire.Attach{ID: id})); err != nil {
		return run.Outcome{}, fmt.Errorf("follow detached %s: sandbox stopped: %w", id, x.deathReason(err))
	}
	cdone := ctx.Done()
	var deadline <-chan time.Time // after a signal: how long the init gets
	cancelled := func() {
		cdone = nil
		sctx, cancel := context.WithTimeout(context.Background(), o.StopTimeout)
		sig := killSignal(ctx)
		sig.ID = id
		k.request(sctx, wire.JSON(wire.TSignal, 0, sig))
		cancel()
		deadline = time.After(o.KillGrace + o.DrainTimeout + 2*time.Second)
	}
	// Its output, until it ends.
	var ex wire.Exit
	for ended := false; !ended; {
		f, err := s.next(cdone, deadline)
		switch {
		case errors.Is(err, errCtx):
			cancelled()
			continue
		case errors.Is(err, errDeadline):
			return run.Outcome{ExitCode: run.ExitFailed}, nil // run records the end
		case err != nil:
			return run.Outcome{}, fmt.Errorf("follow detached %s: sandbox stopped: %w", id, x.deathReason(err))
		}
		switch f.Type {
		case wire.TStdout, wire.TStderr:
			k.deliver(s, f, job.Stdout, job.Stderr)
		case wire.TElided:
			if n, err := wire.CountOf(f); err == nil && n > 0 {
				fmt.Fprintf(job.Stderr, "\ndesk: sandbox: %d bytes of output were dropped: it came faster than desk stored it (the buffer holds %s)\n", n, sizeText(int64(o.DetachedBuffer)))
			}
		case wire.TError:
			var e wire.Error
			wire.Decode(f, &e)
			return run.Outcome{}, fmt.Errorf("follow detached %s: %s", id, e.Message)
		case wire.TExit:
			if err := wire.Decode(f, &ex); err != nil {
				return run.Outcome{}, err
			}
			ended = true
		}
	}
	// The main process has exited and no process holds its output: wait
	// until no process of its session is left.
	wait := detachedPollMin
	for {
		lctx, cancel := context.WithTimeout(context.Background(), o.StopTimeout)
		l, err := x.list(lctx)
		cancel()
		if err != nil {
			if x.isDead() {
				return run.Outcome{}, fmt.Errorf("follow detached %s: sandbox stopped: %w", id, x.reason())
			}
			return run.Outcome{}, fmt.Errorf("follow detached %s: %w", id, err)
		}
		i := slices.IndexFunc(l, func(d Detached) bool { return d.ID == id })
		if i < 0 || l[i].Procs == 0 {
			break // (an entry the init forgot has no session it keeps)
		}
		select {
		case <-time.After(wait):
		case <-cdone:
			cancelled()
		case <-deadline:
			return run.Outcome{ExitCode: run.ExitFailed}, nil
		case <-x.dead:
		}
		wait = min(2*wait, detachedPollMax)
	}
	return x.outcome(ctx, job, ex, before, nil), nil
}

// StartDetached starts source (Options.Shell -c source) as a detached
// execution with id in the workspace's sandbox, starting the sandbox if
// needed, and returns its pid inside the sandbox. env is laid over the
// sandbox's base environment. It is not a run execution: use RunDetached
// (through run) for that.
func (b *Backend) StartDetached(ctx context.Context, ws Workspace, id, source, cwd string, env map[string]string) (int, error) {
	x, err := b.acquire(ctx, ws)
	if err != nil {
		return 0, err
	}
	defer b.release(x)
	pid, ex, err := x.startDetached(ctx, id, id, source, cwd, env, nil, nil)
	if err != nil {
		return 0, err
	}
	if pid == 0 {
		return 0, fmt.Errorf("start detached %s: %s", id, ex.Error)
	}
	return pid, nil
}

// ListDetached lists the detached executions of the workspace's sandbox
// (none when it does not run). The init knows those run started by their
// run id, "@", and a number.
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
			x.conn.deliver(s, f, stdout, stderr)
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
