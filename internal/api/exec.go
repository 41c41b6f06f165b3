package api

import (
	"errors"
	"github.com/desk-dev/desk/internal/egress"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

func wireInfo(i run.Info) client.Execution {
	e := client.Execution{
		ID: i.ID, Backend: i.Backend, Requested: i.Requested, Route: i.Route, Status: string(i.Status), ExitCode: i.ExitCode, Error: i.Error, Signal: i.Signal,
		Source: i.Source, Cwd: quote.Path(i.Cwd), TimeoutNS: int64(i.Timeout), MaxCPUNS: int64(i.MaxCPU), OutputLimit: i.OutputLimit,
		Started: i.Started.UTC(), Events: i.Events, StdoutBytes: i.StdoutBytes, StderrBytes: i.StderrBytes, Value: i.Value,
		Detached: i.Detached, Foreground: i.Foreground, StdinStream: i.StdinStream,
	}
	if !i.Ended.IsZero() {
		e.Ended = i.Ended.UTC()
	}
	if c := i.Changes; c != nil {
		e.Changes = &client.ExecChanges{Created: quote.Paths(c.Created), Modified: quote.Paths(c.Modified), Deleted: quote.Paths(c.Deleted), Truncated: c.Truncated}
	}
	if u := i.Usage; u != nil {
		e.Usage = &client.ExecUsage{CPUNS: int64(u.CPU), UserNS: int64(u.UserTime), SysNS: int64(u.SysTime), MaxRSSBytes: u.MaxRSS}
	}
	return e
}

func wireResult(r *run.Result) client.Result {
	return client.Result{Execution: wireInfo(r.Info), Stdout: r.Stdout, Stderr: r.Stderr, StdoutElided: r.StdoutElided, StderrElided: r.StderrElided}
}

func wireEvent(e run.Event) client.Event {
	out := client.Event{
		Seq: e.Seq, Time: e.Time.UTC(), Type: string(e.Type), Data: e.Data,
		StdoutOffset: e.StdoutOffset, StderrOffset: e.StderrOffset, First: e.First, Bytes: e.Bytes,
	}
	if x := e.Exit; x != nil {
		out.Exit = &client.Exit{Status: string(x.Status), ExitCode: x.ExitCode, Error: x.Error, Signal: x.Signal}
	}
	return out
}

func (s *Server) handleExec(w http.ResponseWriter, r *http.Request, c *call) error {
	var req client.ExecRequest
	if err := s.readJSON(w, r, &req, false); err != nil {
		return err
	}
	c.auditArg("source", req.Source)
	if req.Backend != "" {
		c.auditArg("backend", req.Backend)
	}
	for k := range req.Env {
		c.auditArg("env", k) // names only: values may be credentials
	}
	wait, err := qbool(r, "wait")
	if err != nil {
		return err
	}
	if wait && req.Detached {
		// A detached execution runs until it is killed: waiting for its end
		// is not what a service's caller wants, and would hold the request.
		return errorf(http.StatusBadRequest, CodeInvalid, "wait=1 and detached exclude each other: a detached execution's request returns once it has started; follow it with …/executions/{id}/events")
	}
	rt := c.lease.Workspace().Runtime()
	if req.Backend != "" {
		if err := c.p.AllowBackend(req.Backend); err != nil {
			return err
		}
	} else if !c.p.Admin && c.p.Token != nil && len(c.p.Token.Backends) > 0 {
		return errorf(http.StatusForbidden, CodeForbidden, "this token may run only backends %s: name one", strings.Join(c.p.Token.Backends, ", "))
	}
	cwd := req.Cwd
	if cwd != "" {
		var err error
		if cwd, err = quote.ParsePath(cwd); err != nil {
			return errorf(http.StatusBadRequest, CodeBadPath, "cwd: %v", err)
		}
	}
	o := run.ExecOptions{ID: req.ID, Backend: req.Backend, Cwd: cwd, Env: req.Env, Input: req.Input, OutputLimit: req.OutputLimit,
		Detached: req.Detached, StdinStream: req.StdinStream, Foreground: req.Foreground}
	if req.Stdin != "" {
		if req.StdinStream {
			return errorf(http.StatusBadRequest, CodeInvalid, "stdin and stdin_stream exclude each other: a stream's bytes come from PUT …/executions/{id}/stdin")
		}
		o.Stdin = strings.NewReader(req.Stdin)
	}
	if req.Timeout != "" {
		d, err := time.ParseDuration(req.Timeout)
		if err != nil || d <= 0 {
			return errorf(http.StatusBadRequest, CodeInvalid, "timeout %q: want a positive Go duration such as \"30s\" or \"5m\"", req.Timeout)
		}
		o.Timeout = d
	}
	// The quotas are asked by run.Exec (the context's quota.Counter.For).
	// The execution holds its own lease so that its workspace is not
	// hibernated while it runs (a detached one too: until it ends).
	l, err := s.host.Acquire(r.Context(), c.ws)
	if err != nil {
		return err
	}
	ectx := mcp.WithTokenBackends(r.Context(), c.p)
	if req.Egress != "" {
		p, err := parsePolicy("egress", req.Egress)
		if err != nil {
			l.Release()
			return err
		}
		ectx = egress.WithLayer(ectx, egress.Layer{Source: egress.SourceExecution, Policy: p})
	}
	var ea *execAudit
	if s.opts.Audit != nil {
		ea = s.newExecAudit(r, c, l.Workspace().FS())
		ectx = vfs.WithChangeSpan(ectx, ea.span)
		ectx = policy.WithDenials(ectx, ea.den)
	}
	e, err := rt.Exec(ectx, req.Source, o)
	if err != nil {
		l.Release()
		return err
	}
	backend := e.Info().Backend
	s.m.started.WithLabelValues(backend).Inc()
	s.m.running.WithLabelValues(backend).Inc()
	if s.opts.Executions != nil {
		s.opts.Executions.ExecStarted(backend)
	}
	accounted := make(chan struct{}) // closed once the end is counted and recorded
	go func() {
		<-e.Done()
		status := string(e.Info().Status)
		s.m.running.WithLabelValues(backend).Dec()
		s.m.execs.WithLabelValues(backend, status).Inc()
		if s.opts.Executions != nil {
			s.opts.Executions.ExecEnded(backend, status)
		}
		if ea != nil {
			ea.ended(e)
		}
		// The lease goes before the answer: a client's next request (a
		// delete of the workspace) must not find it still in use.
		l.Release()
		close(accounted)
	}()
	c.auditArg("execution", e.ID())
	w.Header().Set("Location", r.URL.Path+"/"+e.ID())
	if !wait {
		return writeJSON(w, http.StatusCreated, client.Result{Execution: wireInfo(e.Info())})
	}
	ctx, stop := s.longCtx(r)
	defer stop()
	defer e.Hold()() // this request follows it (a foreground one)
	res, err := e.Wait(ctx)
	if res == nil {
		return err
	}
	// The end's record and its CPU's count come before this request's
	// answer (they are made as the execution ends, waiting on nothing).
	select {
	case <-accounted:
	case <-ctx.Done():
	}
	return writeJSON(w, http.StatusCreated, wireResult(res))
}

// handleStdin streams the request body into the stdin of an execution
// started with stdin_stream, as the program reads it: the body's pace is the
// program's, so the body progress rule does not apply (the route is paced,
// on a front that forwards it too). It answers once the
// body's end reached the program (200 {bytes}), or when the execution ended
// first (409 not_running).
func (s *Server) handleStdin(w http.ResponseWriter, r *http.Request, c *call) error {
	rt := c.lease.Workspace().Runtime()
	id := r.PathValue("id")
	e, ok := rt.Lookup(id)
	if !ok {
		if _, err := rt.Get(r.Context(), id); err != nil {
			return err
		}
		return errorf(http.StatusConflict, CodeNotRunning, "execution %s has ended: it reads no more stdin", id)
	}
	n, err := e.CopyStdin(r.Context(), r.Body)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, client.StdinResult{Bytes: n})
}

func (s *Server) handleListExecutions(w http.ResponseWriter, r *http.Request, c *call) error {
	limit, err := s.limit(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	infos, err := c.lease.Workspace().Runtime().List(r.Context(), run.ListOptions{After: q.Get("after"), Limit: limit, Status: run.Status(q.Get("status"))})
	if err != nil {
		return err
	}
	out := client.ExecutionList{Executions: make([]client.Execution, 0, len(infos))}
	for _, i := range infos {
		out.Executions = append(out.Executions, wireInfo(i))
	}
	if len(infos) == limit {
		out.Next = infos[len(infos)-1].ID
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleGetExecution(w http.ResponseWriter, r *http.Request, c *call) error {
	res, err := c.lease.Workspace().Runtime().Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, wireResult(res))
}

func (s *Server) handleKill(w http.ResponseWriter, r *http.Request, c *call) error {
	var req client.KillRequest
	if err := s.readJSON(w, r, &req, true); err != nil {
		return err
	}
	sig := run.SIGTERM
	if req.Signal != "" {
		var err error
		if sig, err = run.ParseSignal(req.Signal); err != nil {
			return err
		}
	}
	rt := c.lease.Workspace().Runtime()
	id := r.PathValue("id")
	if err := rt.Kill(r.Context(), id, sig); err != nil {
		return err
	}
	res, err := rt.Get(r.Context(), id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, wireInfo(res.Info))
}

func (s *Server) handleDispose(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := c.lease.Workspace().Runtime().Dispose(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleEvents streams an execution's events until its exit event (then the
// stream ends), the client goes away or the server shuts down.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request, c *call) error {
	from, err := resumePoint(r, "from", 1)
	if err != nil {
		return err
	}
	ctx, stop := s.longCtx(r)
	defer stop()
	rt := c.lease.Workspace().Runtime()
	// Follow: a live execution's output waits for this client rather than
	// be elided from its stream (backpressure; the stored record keeps its cap).
	stream, err := rt.Follow(ctx, r.PathValue("id"), from)
	if err != nil {
		return err
	}
	defer stream.Close()
	if e, ok := rt.Lookup(r.PathValue("id")); ok {
		defer e.Hold()() // a foreground execution is followed while this stream is open
	}
	type next struct {
		ev  run.Event
		err error
	}
	ch := make(chan next)
	go func() {
		for {
			ev, err := stream.Next(ctx)
			select {
			case ch <- next{ev, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	st, heartbeat, end := s.liveStream(w, r)
	defer end()
	for {
		select {
		case n := <-ch:
			if errors.Is(n.err, io.EOF) {
				return nil
			}
			if n.err != nil {
				if ctx.Err() != nil {
					return nil
				}
				st.fail(n.err)
				return n.err
			}
			if err := st.send(n.ev.Seq, string(n.ev.Type), wireEvent(n.ev)); err != nil {
				return nil // the client went away
			}
		case <-heartbeat:
			if st.ping() != nil {
				return nil
			}
		case <-ctx.Done():
			if s.ctx.Err() != nil {
				st.fail(errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down"))
			}
			return nil
		}
	}
}
