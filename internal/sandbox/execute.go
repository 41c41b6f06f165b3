package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// syncMount waits (at most Options.SyncTimeout) until the workspace mount's
// kernel caches reflect everything committed to the store so far, so that a
// program started next sees what others wrote from its first lookup, not
// only from its first open. Every start of a program (an execution, a
// detached one, a shell) calls it.
func (x *box) syncMount(ctx context.Context) {
	if x.mount.Sync == nil {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, x.b.opts.SyncTimeout)
	defer cancel()
	if err := x.mount.Sync(sctx); err != nil {
		x.b.log.Warn("sandbox: workspace mount not in step with the store", "workspace", x.ws.Name, "err", err)
	}
}

// execute runs one job in the sandbox. started reports whether the init
// started the program (when not, and the sandbox died, Run retries on a new
// sandbox).
func (x *box) execute(ctx context.Context, job *run.Job) (out run.Outcome, started bool, err error) {
	o := &x.b.opts
	k := x.conn
	s := k.open()
	defer s.close()
	x.syncMount(ctx)
	before := x.cg.read()
	t0 := time.Now()
	launched := x.launch()
	defer launched()
	env, netDone := x.netEnv(job.Net, job.Env)
	defer netDone()
	g := x.newGroup()
	defer g.close()
	err = k.send(wire.JSON(wire.TStart, s.id, wire.Start{
		ID:       job.ID,
		Argv:     []string{x.shell(), "-c", job.Source},
		Cwd:      x.cwd(job.Cwd),
		Env:      x.env(env),
		User:     x.user(),
		Timeout:  o.Timeout,
		Commands: commandRules(ctx, job.Source),
		Group:    g.id(),
	}))
	if err != nil {
		return run.Outcome{}, false, fmt.Errorf("start program: sandbox stopped: %w", x.deathReason(err))
	}
	in := newStdinFeeder(k, s.id, job.Stdin, o.OutputWindow)
	defer in.stop()
	go in.run()

	signalled := false
	var deadline <-chan time.Time // after a signal: how long the init gets to report
	cdone := ctx.Done()
	for {
		var f wire.Frame
		f, err = s.next(cdone, deadline)
		switch {
		case errors.Is(err, errCtx):
			cdone = nil
			if !signalled {
				signalled = true
				k.send(wire.JSON(wire.TSignal, s.id, killSignal(ctx)))
				deadline = time.After(o.KillGrace + o.DrainTimeout + 2*time.Second)
			}
			continue
		case errors.Is(err, errDeadline):
			// The init did not report: give up on it (run records the end).
			return run.Outcome{ExitCode: run.ExitFailed}, started, nil
		case err != nil:
			return run.Outcome{}, started, fmt.Errorf("run in sandbox: sandbox stopped: %w", x.deathReason(err))
		}
		switch f.Type {
		case wire.TStarted:
			started = true
			var st wire.Started
			if wire.Decode(f, &st) == nil && st.PID > 0 {
				x.addSession(st.PID, job.ID)
				defer x.removeSession(st.PID)
				g.meter(job, st)
			}
			launched()
		case wire.TStdout, wire.TStderr:
			k.deliver(s, f, job.Stdout, job.Stderr)
		case wire.TPolicy:
			var m wire.ExecDecision
			if err := wire.Decode(f, &m); err != nil {
				k.fail(err)
				continue
			}
			noteExec(job.Stderr, m)
			x.recordExec(m)
		case wire.TStdinAck:
			n, err := wire.CountOf(f)
			if err != nil {
				k.fail(err)
				continue
			}
			in.ack(int(n))
		case wire.TError:
			var e wire.Error
			wire.Decode(f, &e)
			return run.Outcome{}, started, fmt.Errorf("run in sandbox: %s", e.Message)
		case wire.TExit:
			var e wire.Exit
			if err := wire.Decode(f, &e); err != nil {
				k.fail(err)
				continue
			}
			x.b.log.Debug("sandbox execution ended", "workspace", x.ws.Name, "id", job.ID, "code", e.Code,
				"signal", e.Signal, "user", e.UserTime, "sys", e.SysTime, "max_rss", e.MaxRSS, "wall", time.Since(t0))
			return x.outcome(ctx, job, e, before, in.err()), true, nil
		}
	}
}

// deathReason prefers the sandbox's reason for dying over a connection error.
func (x *box) deathReason(err error) error {
	select {
	case <-x.dead:
		if x.why != nil {
			return x.why
		}
	case <-time.After(100 * time.Millisecond):
	}
	return err
}

// killSignal is what the init is asked to send when ctx ends: the signal of
// a Kill, else SIGTERM (timeout, server stopping); SIGKILL follows KillGrace
// later either way.
func killSignal(ctx context.Context) wire.Signal {
	var ke *run.KillError
	if errors.As(context.Cause(ctx), &ke) {
		return wire.Signal{Signal: int(ke.Signal), Escalate: true}
	}
	return wire.Signal{Signal: int(syscall.SIGTERM), Escalate: true}
}

// outcome turns the init's report into the execution's outcome, telling on
// stderr, in plain words, which limit stopped the program.
func (x *box) outcome(ctx context.Context, job *run.Job, e wire.Exit, before snapshot, stdinErr error) run.Outcome {
	o := &x.b.opts
	after := x.cg.read()
	note := func(format string, args ...any) {
		fmt.Fprintf(job.Stderr, "desk: sandbox: "+format+"\n", args...)
	}
	code := e.Code
	if e.Error != "" && e.Signal == 0 && code >= 126 {
		note("%s", e.Error)
	}
	if stdinErr != nil {
		note("stdin: %v", stdinErr)
	}
	if after.oomKills > before.oomKills {
		if e.Signal == int(syscall.SIGKILL) || code == 128+int(syscall.SIGKILL) {
			note("killed: out of memory (limit %s)", sizeText(o.Memory))
		} else {
			note("a process was killed: out of memory (limit %s)", sizeText(o.Memory))
		}
	}
	if after.pidsMax > before.pidsMax {
		note("limit: a fork failed: the sandbox reached its process limit (%d processes and threads)", o.Pids)
	}
	if e.TimedOut && ctx.Err() == nil {
		note("killed: the wall time limit of %v per execution was reached", o.Timeout)
		code = run.ExitTimedOut
	}
	return run.Outcome{ExitCode: code, Usage: &run.Usage{UserTime: e.UserTime, SysTime: e.SysTime, MaxRSS: e.MaxRSS}}
}

// env is the program's environment: the sandbox's base (the allowlist: PATH,
// HOME, USER, LOGNAME, SHELL, HOSTNAME, LANG, TERM, TMPDIR, and what makes
// user installs land in the home: NPM_CONFIG_PREFIX, PIP_BREAK_SYSTEM_PACKAGES)
// overlaid with the execution's environment, except that run's default HOME
// (/workspace) and PATH give way to the sandbox's (its home, and a PATH
// with $HOME/.local/bin first).
func (x *box) env(jobEnv map[string]string) []string {
	o := &x.b.opts
	m := map[string]string{
		// $HOME/.local/bin first: pip install --user's and npm install -g's
		// programs (NPM_CONFIG_PREFIX), kept in the home.
		"PATH":              o.Home + "/.local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"NPM_CONFIG_PREFIX": o.Home + "/.local",
		// Debian's python marks its site "externally managed" so that pip
		// leaves dpkg's files alone; /usr is read-only here, so pip can
		// only install into the user's site (--user), in the home.
		"PIP_BREAK_SYSTEM_PACKAGES": "1",
		"HOME":                      o.Home,
		"USER":                      "root",
		"LOGNAME":                   "root",
		"SHELL":                     x.shell(),
		"HOSTNAME":                  hostname(x.ws.Name),
		"LANG":                      "C.UTF-8",
		"TERM":                      "dumb",
		"TMPDIR":                    "/tmp",
	}
	x.imageEnv(m)
	def := run.DefaultEnv()
	for k, v := range jobEnv {
		if (k == "HOME" || k == "PATH") && v == def[k] {
			continue // run's defaults give way to the sandbox's
		}
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}

// sizeText words a byte count: "1 GiB", "64 MiB", "1536 KiB".
func sizeText(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// stdinFeeder sends a job's stdin to the init within the window.
type stdinFeeder struct {
	k      *conn
	stream uint32
	r      io.Reader
	window int

	mu       sync.Mutex
	cond     *sync.Cond
	inflight int
	done     bool
	readErr  error
}

func newStdinFeeder(k *conn, stream uint32, r io.Reader, window int) *stdinFeeder {
	f := &stdinFeeder{k: k, stream: stream, r: r, window: window}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func (f *stdinFeeder) run() {
	if f.r == nil {
		f.k.send(wire.Frame{Type: wire.TStdin, Stream: f.stream})
		return
	}
	buf := make([]byte, wire.MaxData)
	for {
		f.mu.Lock()
		for !f.done && f.inflight+wire.MaxData > f.window {
			f.cond.Wait()
		}
		done := f.done
		f.mu.Unlock()
		if done {
			return
		}
		n, err := f.r.Read(buf)
		if n > 0 {
			f.mu.Lock()
			f.inflight += n
			f.mu.Unlock()
			if f.k.send(wire.Frame{Type: wire.TStdin, Stream: f.stream, Payload: append([]byte(nil), buf[:n]...)}) != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				f.mu.Lock()
				f.readErr = err
				f.mu.Unlock()
			}
			f.k.send(wire.Frame{Type: wire.TStdin, Stream: f.stream})
			return
		}
	}
}

func (f *stdinFeeder) ack(n int) {
	f.mu.Lock()
	f.inflight -= n
	f.cond.Signal()
	f.mu.Unlock()
}

// stop ends the feeding (a Read in progress finishes on its own).
func (f *stdinFeeder) stop() {
	f.mu.Lock()
	f.done = true
	f.cond.Signal()
	f.mu.Unlock()
}

func (f *stdinFeeder) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.readErr
}
