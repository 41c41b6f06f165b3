package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/client"
)

var execSpec = &cmdSpec{
	name:     "exec",
	synopsis: "(WS | -w WS) [--backend ID] [--cwd DIR] [--env K=V]... [--timeout D] [--stdin[=false]] [--input JSON] [--detach | --service] (-- COMMAND... | --file PATH)",
	summary:  "run a command in a workspace, streaming its output, and exit with its exit code",
	help: `The backend decides the language of COMMAND (the shell backend: bash). A single
COMMAND argument is sent as it is ('echo hi | wc -c'); several are joined with
spaces, each quoted for a POSIX shell where needed. Flags go before COMMAND;
everything from the first argument after WS (or after --) is the command.

--file PATH sends the content of a local file as the source instead of
COMMAND (for the js backend: an ES module). --input JSON gives the execution
a JSON input (the js backend passes it to the module's default export).

The workspace is the first argument, or -w WS (--workspace WS) before the
command. --cwd is the working directory, a relative one taken from
/workspace (the default), as every desk path.

Standard input is streamed to the command, of any size and at the pace the
command reads it (tar c . | desk exec WS -- tar x), when it is not a
terminal; --stdin sends a terminal's too (what is typed, until Ctrl-D),
--stdin=false never sends it (the command reads an empty input). Like ssh,
desk exec reads its standard input even when the command does not: in a
'while read' loop, give it --stdin=false or </dev/null.

Standard output and error are streamed live to this process's. When the
execution returns a value (the js backend: the default export's result), it
is printed as JSON on a line of its own after the output. The exit status
is the command's; a timed-out execution exits 124, one killed by a signal 128+N,
one the backend could not run 125 (with a message). An execution that cannot
start (unknown workspace or backend, a token without the exec scope) exits 1.
Interrupting desk exec (Ctrl-C) sends SIGINT to the execution and waits briefly
for it to end; 'desk attach WS ID' follows an execution again. The execution
belongs to this desk exec (a foreground one): if desk exec goes away without
ending it (killed, its connection lost for good), the server kills it with
SIGHUP once nobody has followed it for its grace period (10 s by default); a
lost connection is re-attached within that time, and 'desk attach' within it
keeps the execution alive too.

--detach only stops desk exec from following: it prints the execution id and
returns; the execution is an ordinary one, which outlives desk exec. With
--detach, standard input is sent only with --stdin (desk exec returns once
all of it has reached the command). --service starts a detached
execution, a long-running service (python3 -m http.server, a database): its
processes outlive its main process and it runs until none is left, it is
killed ('desk kill WS ID') or it reaches its timeout (the server's detached
timeout, 24h by default, not the usual 5m). It needs a backend that can run one (sandbox; auto picks it) and
takes no --stdin. desk exec --service prints the id once the program has
started and returns; 'desk attach WS ID' follows its output, 'desk ps WS'
lists what runs.`,
	minArgs: 2, maxArgs: -1,
}

// stdinFlag is --stdin: unset (send standard input unless it is a
// terminal), or set true or false.
type stdinFlag struct{ set, on bool }

func (f *stdinFlag) String() string { return "" }

// IsBoolFlag lets --stdin stand alone.
func (f *stdinFlag) IsBoolFlag() bool { return true }

func (f *stdinFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	f.set, f.on = true, v
	return nil
}

// interruptGrace is how long desk exec waits for an execution it killed on
// an interrupt to report its end.
const interruptGrace = 10 * time.Second

// envFlag collects repeated --env K=V flags.
type envFlag map[string]string

func (e envFlag) String() string { return "" }

func (e envFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want K=V, got %q", s)
	}
	e[k] = v
	return nil
}

func runExec(ctx context.Context, args []string, st streams) int {
	sp := execSpec
	fl := sp.flags()
	sf := addServerFlags(fl)
	backend := fl.String("backend", "", "the backend to run COMMAND (default: the server's default backend)")
	egressPol := fl.String("egress", "", "narrow the workspace's egress policy for this execution: none, or \"allow RULE; RULE\" (see desk ws policy -h)")
	cwd := fl.String("cwd", "", "the working directory inside the workspace; a relative one is taken from /workspace (the default)")
	env := envFlag{}
	fl.Var(env, "env", "set an environment variable `K=V` for this execution (repeatable)")
	timeout := fl.String("timeout", "", "bound the execution's run time, a Go duration: 30s, 5m (default: the server's)")
	var useStdin stdinFlag
	fl.Var(&useStdin, "stdin", "send standard input to the command, a terminal's too (default: unless it is a terminal; --stdin=false: never)")
	var wsFlag string
	fl.StringVar(&wsFlag, "w", "", "the workspace `WS` (instead of the first argument)")
	fl.StringVar(&wsFlag, "workspace", "", "the workspace `WS` (instead of the first argument)")
	detach := fl.Bool("detach", false, "start the execution, print its id and return at once")
	service := fl.Bool("service", false, "start a detached execution (a long-running service: its processes outlive its main one), print its id once it has started and return")
	id := fl.String("id", "", "choose the execution id (1-64 of A-Z a-z 0-9 . _ -; default: generated)")
	input := fl.String("input", "", "a JSON `value` given to the execution (the js backend passes it to the default export)")
	file := fl.String("file", "", "send the content of the local file `PATH` as the source, instead of COMMAND")

	// Flags come before the command: parse up to WS, then up to the command.
	err := fl.Parse(args)
	var ws string
	var cmd []string
	if err == nil {
		rest := fl.Args()
		dashed := len(args) > len(rest) && args[len(args)-len(rest)-1] == "--"
		switch {
		case wsFlag != "":
			ws, cmd = wsFlag, rest // desk exec -w WS [flags] [--] COMMAND...
		case len(rest) > 0:
			ws = rest[0]
			if dashed {
				cmd = rest[1:] // desk exec [flags] -- WS COMMAND...
			} else if err = fl.Parse(rest[1:]); err == nil {
				cmd = fl.Args()
				if wsFlag != "" {
					err = usagef("give the workspace as WS or -w WS, not both")
				}
			}
		}
	}
	if errors.Is(err, flag.ErrHelp) {
		sp.usage(st.out, fl)
		return exitOK
	}
	if err == nil && ws == "" {
		err = usagef("missing workspace")
	}
	switch {
	case err != nil:
	case *file != "" && len(cmd) > 0:
		err = usagef("give either --file or COMMAND, not both")
	case *file == "" && len(cmd) == 0:
		err = usagef("missing command (or --file)")
	case *input != "" && !json.Valid([]byte(*input)):
		err = usagef("--input %q: not valid JSON", *input)
	case *service && useStdin.on:
		err = usagef("--service takes no --stdin: a detached execution reads no input")
	case *service && *detach:
		err = usagef("give --detach or --service, not both")
	}
	if err == nil && *timeout != "" {
		if _, perr := time.ParseDuration(*timeout); perr != nil {
			err = usagef("--timeout %q: want a Go duration such as 30s or 5m", *timeout)
		}
	}
	if err != nil {
		return sp.usageError(st, fl, err)
	}
	source := commandSource(cmd)
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			return sp.fail(st, fmt.Errorf("read --file: %w", err))
		}
		source = string(b)
	}
	// Standard input goes as a stream: unless it is a terminal (or --stdin
	// says), and never to a service or, without --stdin, with --detach.
	sendStdin := useStdin.on || !useStdin.set && !isTerminal(st.in) && !*detach && !*service
	req := client.ExecRequest{
		Source:      source,
		Backend:     *backend,
		Cwd:         *cwd,
		Timeout:     *timeout,
		ID:          *id,
		Detached:    *service,
		StdinStream: sendStdin,
		// Followed by this process: the server ends it when it is gone.
		Foreground: !*detach && !*service,
		Egress:     *egressPol,
	}
	if len(env) > 0 {
		req.Env = env
	}
	if *input != "" {
		req.Input = json.RawMessage(*input)
	}

	c, srv, err := sf.client()
	if err != nil {
		return sp.fail(st, err)
	}
	e, err := c.Exec(ctx, ws, req)
	if err != nil {
		err = reachable(fmt.Errorf("start execution: %w", err), srv)
		if client.ErrorCode(err) == "unknown_backend" {
			err = fmt.Errorf("%w; %s", err, backendsHint(ctx, c, ws))
		}
		return sp.fail(st, err)
	}
	if *detach && sendStdin {
		// desk exec --detach --stdin: return once the command has it all.
		if _, err := c.WriteStdin(ctx, ws, e.ID, st.in); err != nil && client.ErrorCode(err) != "not_running" {
			return sp.fail(st, reachable(fmt.Errorf("execution %s: send standard input: %w", e.ID, err), srv))
		}
	}
	if *detach || *service {
		fmt.Fprintln(st.out, e.ID)
		if *service && e.Status != client.StatusRunning {
			// It ended before desk exec returned (it could not start, or
			// it was quick): say how.
			return exitCode(sp, st, e.ID, &client.Exit{Status: e.Status, ExitCode: e.ExitCode, Error: e.Error, Signal: e.Signal})
		}
		return exitOK
	}

	// Stream on a context of its own: an interrupt kills the execution, and
	// its end is still worth reporting.
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	killed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(killed)
		kctx, kcancel := context.WithTimeout(sctx, interruptGrace)
		defer kcancel()
		if err := c.Kill(kctx, ws, e.ID, "SIGINT"); err != nil && client.ErrorCode(err) != "not_running" && sctx.Err() == nil {
			fmt.Fprintf(st.err, "desk exec: interrupt: %s\n", errText(err))
		}
		<-kctx.Done() // the stream ended (sctx), or the grace period did
		cancel()
	})
	defer func() {
		cancel()
		if !stop() {
			<-killed
		}
	}()
	if sendStdin {
		go sendStdinStream(sctx, c, ws, e.ID, st)
	}
	out := &lastByteWriter{w: st.out}
	exit, err := streamEvents(sctx, c, ws, e.ID, 0, streams{in: st.in, out: out, err: st.err})
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(st.err, "desk exec: interrupted; execution %s may still be running: desk attach %s %s\n", e.ID, ws, e.ID)
			return 130
		}
		return sp.fail(st, reachable(fmt.Errorf("execution %s: %w", e.ID, err), srv))
	}
	if exit.Status == client.StatusCompleted {
		if err := printValue(sctx, c, ws, e.ID, out); err != nil {
			return sp.fail(st, reachable(fmt.Errorf("execution %s: %w", e.ID, err), srv))
		}
	}
	return exitCode(sp, st, e.ID, exit)
}

// sendStdinStream streams standard input to execution id. A failure while
// the execution still runs is said on standard error (the command's input
// ended there); once it has ended, nothing is (its end closed the stream).
func sendStdinStream(ctx context.Context, c *client.Client, ws, id string, st streams) {
	_, err := c.WriteStdin(ctx, ws, id, st.in)
	if err == nil || client.ErrorCode(err) == "not_running" || ctx.Err() != nil {
		return
	}
	if res, gerr := c.GetExecution(ctx, ws, id); gerr == nil && res.Status == client.StatusRunning {
		fmt.Fprintf(st.err, "desk exec: standard input: %s (the command's input ended there)\n", errText(err))
	}
}

// backendsHint names the backends the workspace offers, for an execution
// that named none of them.
func backendsHint(ctx context.Context, c *client.Client, ws string) string {
	s, err := c.WorkspaceStats(ctx, ws)
	switch {
	case err != nil:
		return "see 'desk ws stats " + ws + "' for the backends"
	case len(s.Backends) == 0:
		return "this server has no execution backends"
	}
	return "the backends are: " + strings.Join(s.Backends, ", ")
}

// commandSource turns COMMAND arguments into an execution's source.
func commandSource(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// maxReconnects bounds how often a broken event stream is re-attached
// without any event arriving in between.
const maxReconnects = 5

// streamEvents copies an execution's events from event number from on (0:
// the first) to standard output and error until its exit event, which it
// returns. A broken connection is re-attached from the next event, so
// nothing is lost or repeated.
func streamEvents(ctx context.Context, c *client.Client, ws, id string, from uint64, st streams) (*client.Exit, error) {
	failures := 0
	for {
		s, err := c.Events(ctx, ws, id, client.EventsOptions{From: from})
		if err != nil {
			return nil, err
		}
		exit, err := copyEvents(s, st)
		s.Close()
		if exit != nil {
			return exit, nil
		}
		if s.LastID >= from && s.LastID > 0 {
			from, failures = s.LastID+1, 0
		}
		var ce *client.Error
		switch {
		case err == nil || errors.Is(err, io.EOF):
			err = io.ErrUnexpectedEOF // the stream ended before the exit event
		case errors.As(err, &ce), ctx.Err() != nil:
			return nil, err
		}
		if failures++; failures > maxReconnects {
			return nil, fmt.Errorf("event stream: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(failures) * 100 * time.Millisecond):
		}
	}
}

// copyEvents writes a stream's output events out until the exit event.
func copyEvents(s *client.Stream[client.Event], st streams) (*client.Exit, error) {
	for {
		ev, err := s.Next()
		if err != nil {
			return nil, err
		}
		switch ev.Type {
		case client.EventStdout:
			if _, err := st.out.Write(ev.Data); err != nil {
				return nil, err
			}
		case client.EventStderr:
			if _, err := st.err.Write(ev.Data); err != nil {
				return nil, err
			}
		case client.EventElided:
			fmt.Fprintf(st.err, "\n[desk: %s of output not kept (events %d to %d)]\n", humanBytes(ev.Bytes), ev.First, ev.Seq)
		case client.EventExit:
			if ev.Exit == nil {
				return &client.Exit{Status: client.StatusFailed, ExitCode: 1, Error: "exit event without a status"}, nil
			}
			return ev.Exit, nil
		}
	}
}

// exitCode reports how an execution ended and returns the exit status for
// this process: the execution's exit code, 1 if it is out of range or the
// execution did not complete without one.
func exitCode(sp *cmdSpec, st streams, id string, exit *client.Exit) int {
	switch exit.Status {
	case client.StatusCompleted:
	case client.StatusTimedOut:
		fmt.Fprintf(st.err, "desk %s: execution %s timed out\n", sp.name, id)
	case client.StatusCPULimit:
		fmt.Fprintf(st.err, "desk %s: execution %s stopped: %s\n", sp.name, id, exit.Error)
	case client.StatusCancelled:
		what := "killed"
		if exit.Signal != "" {
			what += " by " + exit.Signal
		}
		fmt.Fprintf(st.err, "desk %s: execution %s %s\n", sp.name, id, what)
	default:
		msg := exit.Error
		if msg == "" {
			msg = exit.Status
		}
		fmt.Fprintf(st.err, "desk %s: execution %s failed: %s\n", sp.name, id, msg)
	}
	code := exit.ExitCode
	if code < 0 || code > 255 || code == 0 && exit.Status != client.StatusCompleted {
		code = exitError
	}
	return code
}

// lastByteWriter remembers the last byte written through it.
type lastByteWriter struct {
	w    io.Writer
	last byte
}

func (l *lastByteWriter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		l.last = p[len(p)-1]
	}
	return l.w.Write(p)
}

// printValue prints the value of the ended execution id, if it has one, as
// JSON on a line of its own.
func printValue(ctx context.Context, c *client.Client, ws, id string, out *lastByteWriter) error {
	res, err := c.GetExecution(ctx, ws, id)
	if err != nil {
		return err
	}
	if len(res.Value) == 0 {
		return nil
	}
	if out.last != 0 && out.last != '\n' {
		fmt.Fprintln(out)
	}
	_, err = fmt.Fprintf(out, "%s\n", unescapeHTML(res.Value))
	return err
}
