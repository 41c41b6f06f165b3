package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/run"
)

// ExecInput is the input of exec.
type ExecInput struct {
	Command string            `json:"command"`
	Backend string            `json:"backend,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Timeout in seconds (0: the runtime's default).
	Timeout float64 `json:"timeout,omitempty"`
	// Stdin is the command's standard input.
	Stdin string `json:"stdin,omitempty"`
	// Input is a JSON value for the js backend's default export.
	Input json.RawMessage `json:"input,omitempty"`
	// Detached starts a long-running service (run.ExecOptions.Detached):
	// exec returns once it has started, with status running.
	Detached bool `json:"detached,omitempty"`
	// Egress narrows the workspace's egress policy for this command:
	// "none", or "allow RULE; RULE" (package egress).
	Egress string `json:"egress,omitempty"`
}

// ExecOutput is the output of exec.
type ExecOutput struct {
	ID      string `json:"id"`
	Backend string `json:"backend"`
	// Route says why auto chose Backend.
	Route      string `json:"route,omitempty"`
	Status     string `json:"status"`
	ExitCode   int    `json:"exit_code"`
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// Stdout and Stderr are the output shown: the head and the tail with the
	// elided byte count between them when over Options.MaxExecOutput.
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// StdoutBytes and StderrBytes count all output produced; the Elided
	// fields count the bytes not shown.
	StdoutBytes  int64 `json:"stdout_bytes"`
	StderrBytes  int64 `json:"stderr_bytes"`
	StdoutElided int64 `json:"stdout_elided,omitempty"`
	StderrElided int64 `json:"stderr_elided,omitempty"`
	// Value is the js backend's result.
	Value json.RawMessage `json:"value,omitempty"`
	// Changes are the workspace paths the execution created, modified and deleted.
	Changes *run.Changes `json:"changes,omitempty"`
	// Detached is set for a detached execution; Status is then "running"
	// unless it ended before exec returned.
	Detached bool `json:"detached,omitempty"`
}

// maxChangesShown bounds the changed paths listed in exec's text.
const maxChangesShown = 20

func (o *ExecOutput) content() []Content {
	var b strings.Builder
	b.WriteString(o.Stdout)
	if o.Stdout != "" && !strings.HasSuffix(o.Stdout, "\n") {
		b.WriteByte('\n')
	}
	if o.Stderr != "" {
		b.WriteString("[stderr]\n" + o.Stderr)
		if !strings.HasSuffix(o.Stderr, "\n") {
			b.WriteByte('\n')
		}
	}
	if len(o.Value) > 0 {
		fmt.Fprintf(&b, "[value] %s\n", o.Value)
	}
	status := fmt.Sprintf("exit code %d", o.ExitCode)
	switch run.Status(o.Status) {
	case run.StatusTimedOut:
		status = "timed out (exit code 124)"
	case run.StatusCPULimit:
		status = "stopped: " + o.Error + " (exit code 152)"
	case run.StatusCancelled:
		status = "killed (exit code " + fmt.Sprint(o.ExitCode) + ")"
	case run.StatusFailed:
		status = "failed: " + o.Error
	case run.StatusRunning:
		fmt.Fprintf(&b, "[running detached · %s backend · execution %s]\n", o.Backend, o.ID)
		b.WriteString("[it goes on after this call, until its processes end, it is killed or its timeout passes; other commands on the same backend can reach it (127.0.0.1 for a server); to stop it, kill its processes from another exec; its output: desk attach WORKSPACE " + o.ID + "]\n")
		return []Content{TextContent(b.String())}
	}
	fmt.Fprintf(&b, "[%s · %s backend · %s · execution %s]\n", status, o.Backend, (time.Duration(o.DurationMS) * time.Millisecond).String(), o.ID)
	if o.StdoutElided > 0 || o.StderrElided > 0 {
		fmt.Fprintf(&b, "[output cut: %d bytes of stdout and %d of stderr not shown; the execution record keeps more: desk attach WORKSPACE %s]\n", o.StdoutElided, o.StderrElided, o.ID)
	}
	if c := o.Changes; c != nil && len(c.Created)+len(c.Modified)+len(c.Deleted) > 0 {
		list := func(verb string, ps []string) {
			if len(ps) == 0 {
				return
			}
			shown := ps[:min(len(ps), maxChangesShown)]
			fmt.Fprintf(&b, "[%s: %s", verb, strings.Join(shown, " "))
			if len(ps) > len(shown) {
				fmt.Fprintf(&b, " and %d more", len(ps)-len(shown))
			}
			b.WriteString("]\n")
		}
		list("created", c.Created)
		list("modified", c.Modified)
		list("deleted", c.Deleted)
	}
	return []Content{TextContent(b.String())}
}

// backendNotes say when to use each backend desk knows, for exec's description.
var backendNotes = map[string]string{
	"shell":   "bash run in-process by desk, with its own implementation of ~400 common commands (coreutils, grep, sed, awk, find, diff, jq, tar, ...): starts instantly; for text and file work",
	"sandbox": "real bash in a Linux sandbox with the host's programs read-only (node, npm, python3, git, gcc, make when installed) and /workspace mounted; no network; for package managers, compilers, test runners",
	"js":      "command is an ES module run in a fresh QuickJS runtime; its default export is called with input and its result comes back as value; node:fs/promises works on the workspace; for structured code and data",
	"auto":    "desk chooses: shell when every command in the script is one the shell has, else sandbox",
}

// describeExec writes exec's description for the configured backends.
func describeExec(backends []string, o Options) string {
	if backends == nil {
		backends = []string{"shell", "sandbox", "js", "auto"}
	} else if !slices.Contains(backends, "auto") && slices.Contains(backends, "shell") {
		backends = append(slices.Clone(backends), "auto")
	}
	var b strings.Builder
	b.WriteString(`Run a command in the workspace and wait for it to end; returns its output, exit code and the files it created, modified and deleted. Commands see the same files as the other tools; the working directory is /workspace unless cwd says otherwise. Every execution is recorded.

Backends (backend; default: the server's, normally shell):
`)
	for _, id := range backends {
		note := backendNotes[id]
		if note == "" {
			note = "a backend configured on this server"
		}
		fmt.Fprintf(&b, "- %s: %s\n", id, note)
	}
	fmt.Fprintf(&b, `
Output is shown up to %d bytes per stream: the beginning and the end, with the number of bytes left out between them (the execution record keeps more). Prefer read, grep, find and edit for files: they are faster and their output is paged. timeout is in seconds; a command that outlives it is killed (exit code 124). Cancelling the call kills the command.

detached: true starts a long-running service instead (a dev server, a database; on the sandbox backend, chosen when backend is auto or not given): the call returns as soon as it has started, with status running and its id. Its processes outlive its main process; it runs until none is left, it is killed, or its timeout (default 24 hours). Other commands reach it in the same sandbox (127.0.0.1); stop it by killing its processes from another exec. No stdin.`, o.MaxExecOutput)
	return b.String()
}

var execSpec = &spec{
	Tool: Tool{
		Name:  "exec",
		Title: "Run a command",
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The script: bash for the shell and sandbox backends, an ES module for js."},
    "backend": {"type": "string", "description": "Backend to run it on (see the description). Default: the server's default, normally shell."},
    "cwd": {"type": "string", "description": "Absolute working directory. Default /workspace."},
    "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Environment variables added for this command."},
    "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "Seconds before the command is killed. Default: the server's (5 minutes; js 1 minute)."},
    "stdin": {"type": "string", "description": "Standard input of the command."},
    "input": {"description": "A JSON value passed to the js backend's default export."},
    "detached": {"type": "boolean", "description": "Start a long-running service and return once it has started (sandbox backend; see the description). Default false."},
    "egress": {"type": "string", "description": "Narrow the workspace's network policy for this command: none, or \"allow HOST[:PORT]; HOST[:PORT]\" (it can only narrow). Default: the workspace's policy."}
  },
  "required": ["command"],
  "additionalProperties": false
}`),
		OutputSchema: schema(`{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "Execution id (its record: desk attach WS ID)."},
    "backend": {"type": "string"},
    "route": {"type": "string", "description": "Why auto chose this backend."},
    "status": {"type": "string", "enum": ["completed", "failed", "cancelled", "timed-out", "cpu-limit", "running"], "description": "running: a detached execution that goes on."},
    "exit_code": {"type": "integer"},
    "error": {"type": "string", "description": "Why the execution failed, was killed or timed out."},
    "duration_ms": {"type": "integer"},
    "stdout": {"type": "string", "description": "Standard output shown (head and tail when long)."},
    "stderr": {"type": "string", "description": "Standard error shown (head and tail when long)."},
    "stdout_bytes": {"type": "integer"},
    "stderr_bytes": {"type": "integer"},
    "stdout_elided": {"type": "integer", "description": "Bytes of stdout not shown."},
    "stderr_elided": {"type": "integer", "description": "Bytes of stderr not shown."},
    "value": {"description": "The js backend's result."},
    "changes": {
      "type": "object",
      "properties": {
        "created": {"type": "array", "items": {"type": "string"}},
        "modified": {"type": "array", "items": {"type": "string"}},
        "deleted": {"type": "array", "items": {"type": "string"}},
        "truncated": {"type": "boolean"}
      },
      "required": ["created", "modified", "deleted"]
    },
    "detached": {"type": "boolean", "description": "A detached execution (a service)."}
  },
  "required": ["id", "backend", "status", "exit_code", "duration_ms", "stdout", "stderr", "stdout_bytes", "stderr_bytes"]
}`),
		Destructive: true,
		Scopes:      []string{ScopeExec},
	},
	describe: describeExec,
	call:     typed((*Set).exec),
}

// Exec runs a command and waits for it: see the exec tool's description.
// progress, if set, receives a report as output arrives.
func (s *Set) Exec(ctx context.Context, in ExecInput, progress func(Progress)) (*ExecOutput, error) {
	if s.rt == nil {
		return nil, errorf(CodeUnavailable, "exec is not available: this workspace has no execution runtime")
	}
	out, err := s.exec(ctx, in, &CallOptions{Progress: progress})
	if err != nil {
		return nil, AsError(err, "")
	}
	return out, nil
}

// killWait bounds the wait for a killed execution's end.
const killWait = 30 * time.Second

func (s *Set) exec(ctx context.Context, in ExecInput, co *CallOptions) (*ExecOutput, error) {
	if strings.TrimSpace(in.Command) == "" {
		return nil, errorf(CodeInvalid, "exec needs a command")
	}
	if in.Timeout < 0 || math.IsNaN(in.Timeout) || math.IsInf(in.Timeout, 0) {
		return nil, errorf(CodeInvalid, "timeout is in seconds and must be positive")
	}
	o := run.ExecOptions{Backend: in.Backend, Env: in.Env, Input: in.Input, Detached: in.Detached}
	if in.Cwd != "" {
		cwd, err := s.resolve("exec", in.Cwd, false)
		if err != nil {
			return nil, err
		}
		o.Cwd = cwd
	}
	if in.Timeout > 0 {
		o.Timeout = time.Duration(in.Timeout * float64(time.Second))
		if o.Timeout <= 0 {
			o.Timeout = time.Nanosecond
		}
	}
	if in.Stdin != "" {
		o.Stdin = strings.NewReader(in.Stdin)
	}
	if in.Egress != "" {
		p, err := egress.Parse(in.Egress)
		if err != nil {
			return nil, errorf(CodeInvalid, "egress: %v", err)
		}
		ctx = egress.WithLayer(ctx, egress.Layer{Source: egress.SourceExecution, Policy: p})
	}
	if in.Backend != "" && in.Backend != run.AutoBackend && !slices.Contains(s.rt.Backends(), in.Backend) {
		return nil, errorf(CodeUnknownBackend, "there is no backend %q here; the backends are %s", in.Backend, strings.Join(s.rt.Backends(), ", "))
	}
	e, err := s.rt.Exec(ctx, in.Command, o)
	if err != nil {
		if errors.Is(err, run.ErrUnknownBackend) && in.Backend == "" {
			return nil, errorf(CodeInvalid, "this server has no default backend: name one of %s", strings.Join(s.rt.Backends(), ", "))
		}
		return nil, AsError(err, "")
	}
	if in.Detached {
		// Exec returned once it started (or ended): a service is not waited for.
		return s.execOutput(e.Result()), nil
	}
	res, err := s.follow(ctx, e, co)
	if err != nil {
		return nil, err
	}
	return s.execOutput(res), nil
}

// follow waits for e's end, reporting progress from its events; when ctx
// ends first it kills e and returns a cancelled error.
func (s *Set) follow(ctx context.Context, e *run.Execution, co *CallOptions) (*run.Result, error) {
	if co != nil && co.Progress != nil {
		stream := e.Events(0)
		var last time.Time
		n := 0
		for {
			ev, err := stream.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				break // ctx ended: handled below
			}
			if ev.Type != run.EventStdout && ev.Type != run.EventStderr {
				continue
			}
			n++
			if now := time.Now(); n == 1 || now.Sub(last) >= s.opts.ProgressInterval {
				last = now
				co.Progress(Progress{Progress: float64(n), Message: lastLine(ev.Data)})
			}
		}
	}
	res, err := e.Wait(ctx)
	if ctx.Err() != nil {
		e.Kill(run.SIGKILL)
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killWait)
		defer cancel()
		e.Wait(wctx)
		return nil, errorf(CodeCancelled, "the call was cancelled: execution %s was killed", e.ID())
	}
	if res == nil {
		return nil, AsError(err, "")
	}
	return res, nil
}

// lastLine returns the last non-empty line of output, cut short, for
// progress messages.
func lastLine(b []byte) string {
	b = bytes.TrimRight(b, "\r\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	const max = 200
	if len(b) > max {
		b = b[:max]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func (s *Set) execOutput(r *run.Result) *ExecOutput {
	out := &ExecOutput{
		ID: r.ID, Backend: r.Backend, Route: r.Route, Status: string(r.Status), ExitCode: r.ExitCode, Error: r.Error,
		DurationMS: r.Duration().Milliseconds(), StdoutBytes: r.StdoutBytes, StderrBytes: r.StderrBytes,
		Value: r.Value, Detached: r.Detached,
	}
	if c := r.Changes; c != nil {
		out.Changes = &run.Changes{Created: quote.Paths(c.Created), Modified: quote.Paths(c.Modified), Deleted: quote.Paths(c.Deleted), Truncated: c.Truncated}
	}
	var cut int64
	out.Stdout, cut = headTail(r.Stdout, s.opts.MaxExecOutput)
	out.StdoutElided = r.StdoutElided + cut
	out.Stderr, cut = headTail(r.Stderr, s.opts.MaxExecOutput)
	out.StderrElided = r.StderrElided + cut
	return out
}

// headTail keeps about the first and last max/2 bytes of s, with a marker
// naming the bytes left out between them. The cuts move to line ends when
// one is near (within a quarter of the half), else to character boundaries.
func headTail(s string, max int) (string, int64) {
	if len(s) <= max {
		return s, 0
	}
	half := max / 2
	h, t := half, len(s)-half
	if i := strings.LastIndexByte(s[:h], '\n'); i >= 0 && h-i <= half/4+1 {
		h = i + 1
	}
	if i := strings.IndexByte(s[t:], '\n'); i >= 0 && i < half/4 {
		t += i + 1
	}
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	cut := int64(t - h)
	sep := ""
	if h > 0 && s[h-1] != '\n' {
		sep = "\n"
	}
	return s[:h] + sep + fmt.Sprintf("[... %d bytes elided ...]\n", cut) + s[t:], cut
}
