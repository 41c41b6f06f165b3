package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/worker"
)

// Import from git at creation (POST /v1/workspaces with "from": {"git"}):
// the clone is an execution of the shell backend in the new workspace
// (`git clone … .` in /workspace: package gitws, in-process), so it goes
// through everything an execution goes through: the workspace's egress
// policy (or the server's default) as its network, the fair shares, the
// worker on a front, the execution records. Its output streams as
// progress; a failure deletes the workspace.

const (
	// MaxImportDepth bounds from.depth.
	MaxImportDepth = 1 << 20
	// importTimeout is the clone's wall-time limit (the server's
	// MaxTimeout, if shorter, bounds it instead).
	importTimeout = 30 * time.Minute
	// maxImportErr is how much of the clone's stderr an error keeps.
	maxImportErr = 8 << 10
)

// importRef is what from.ref may be: a branch name (git's check-ref-format
// rules, roughly) or a full commit id.
var (
	importRef = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/-]{0,254}$`)
	commitID  = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// checkSource validates a creation's from.
func checkSource(src *client.WorkspaceSource) error {
	u, err := url.Parse(src.Git)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errorf(http.StatusBadRequest, CodeInvalid, "from.git %q: want an http:// or https:// URL of a git repository", src.Git)
	}
	if u.User != nil {
		return errorf(http.StatusBadRequest, CodeInvalid, "from.git: credentials in the URL are not accepted: they come from the workspace's secrets")
	}
	if src.Ref != "" && (!importRef.MatchString(src.Ref) || strings.Contains(src.Ref, "..") || strings.HasSuffix(src.Ref, ".lock") || strings.HasSuffix(src.Ref, "/")) {
		return errorf(http.StatusBadRequest, CodeInvalid, "from.ref %q: want a branch or tag name or a full commit id", src.Ref)
	}
	if src.Depth < 0 || src.Depth > MaxImportDepth {
		return errorf(http.StatusBadRequest, CodeInvalid, "from.depth %d: want 0 (all history) to %d", src.Depth, MaxImportDepth)
	}
	if src.Depth > 0 && commitID.MatchString(src.Ref) {
		return errorf(http.StatusBadRequest, CodeInvalid, "from.depth needs a branch as from.ref, not a commit id")
	}
	return nil
}

// cloneScript is the shell source of the import: git clone into
// /workspace, then, for a commit id, a detached checkout of it.
func cloneScript(src *client.WorkspaceSource) (string, error) {
	q, err := syntax.Quote(src.Git, syntax.LangBash)
	if err != nil {
		return "", errorf(http.StatusBadRequest, CodeInvalid, "from.git: %v", err)
	}
	argv := []string{"git", "clone"}
	if src.Depth > 0 {
		argv = append(argv, "--depth", strconv.Itoa(src.Depth))
	}
	byID := commitID.MatchString(src.Ref)
	if src.Ref != "" && !byID {
		argv = append(argv, "--branch", src.Ref)
	}
	s := strings.Join(append(argv, q, "/workspace"), " ")
	if byID {
		s += " && git -C /workspace checkout --quiet --detach " + src.Ref
	}
	return s + "\n", nil
}

// createWorkspaceWith is handleCreateWorkspace with req.Egress or
// req.From, or asked for a stream: it creates the workspace, stores
// req.Egress, clones req.From, and answers 201 with the workspace, or,
// when the request accepts a stream, streams the clone's progress and ends
// with "created". Whatever fails, no workspace is left.
func (s *Server) createWorkspaceWith(w http.ResponseWriter, r *http.Request, p auth.Principal, req client.WorkspaceRequest) error {
	var src string
	if req.From != nil {
		if err := checkSource(req.From); err != nil {
			return err
		}
		var err error
		if src, err = cloneScript(req.From); err != nil {
			return err
		}
	}
	var pol *egress.Policy
	if req.Egress != "" {
		p, err := parsePolicy("egress", req.Egress)
		if err != nil {
			return err
		}
		if _, err := s.egressStore(); err != nil {
			return err
		}
		pol = &p
	}
	ctx, stop := s.longCtx(r)
	defer stop()
	if _, err := s.host.Create(ctx, req.Name, host.CreateOptions{}); err != nil {
		return err
	}
	settled := false // the workspace is kept, or was discarded
	discard := func() {
		if !settled {
			settled = true
			s.discardWorkspace(req.Name)
		}
	}
	defer discard()
	if pol != nil {
		if err := s.opts.Egress.SetPolicy(req.Name, *pol); err != nil {
			return err
		}
	}
	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, "text/event-stream") && !strings.Contains(accept, "application/x-ndjson") {
		if err := s.runImport(ctx, p, req.Name, src, func([]byte) {}); err != nil {
			return err
		}
		info, err := s.host.Info(ctx, req.Name)
		if err != nil {
			return err
		}
		settled = true
		return writeJSON(w, http.StatusCreated, wireWorkspace(info))
	}
	st := s.startStream(w, r)
	lines := make(chan string, 64)
	done := make(chan error, 1)
	go func() {
		var lb lineBuffer
		err := s.runImport(ctx, p, req.Name, src, func(b []byte) {
			for _, l := range lb.add(b) {
				select {
				case lines <- l:
				case <-ctx.Done():
				}
			}
		})
		if rest := lb.flush(); rest != "" && err == nil {
			select {
			case lines <- rest:
			case <-ctx.Done():
			}
		}
		done <- err
	}()
	tick := time.NewTicker(s.opts.Heartbeat)
	defer tick.Stop()
	var seq uint64
	for {
		select {
		case l := <-lines:
			seq++
			if err := st.send(seq, "progress", client.WorkspaceEvent{Seq: seq, Type: "progress", Text: l}); err != nil {
				stop()
				<-done
				return err
			}
		case <-tick.C:
			if err := st.ping(); err != nil {
				stop()
				<-done
				return err
			}
		case err := <-done:
			for len(lines) > 0 {
				seq++
				if err := st.send(seq, "progress", client.WorkspaceEvent{Seq: seq, Type: "progress", Text: <-lines}); err != nil {
					return err
				}
			}
			if err == nil {
				var info client.Workspace
				if i, ierr := s.host.Info(ctx, req.Name); ierr != nil {
					err = ierr
				} else {
					info = wireWorkspace(i)
				}
				if err == nil {
					settled = true
					seq++
					return st.send(seq, "created", client.WorkspaceEvent{Seq: seq, Type: "created", Workspace: &info})
				}
			}
			discard() // before the client hears of the failure
			st.fail(err)
			return nil
		}
	}
}

// discardWorkspace deletes a workspace whose creation failed, with what
// was stored for it, logging what cannot be deleted. The clone's
// execution lets go of the workspace just after its exit event (its
// lease, its event stream's request), so a refusal as in use is tried
// again, for at most a minute.
func (s *Server) discardWorkspace(name string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), time.Minute)
	defer cancel()
	wait := 10 * time.Millisecond
	for {
		err := s.deleteStore(ctx, name)
		if err == nil {
			break
		}
		if !errors.Is(err, host.ErrInUse) && !errors.Is(err, worker.ErrInUse) || ctx.Err() != nil {
			s.opts.Logger.Error("discard a workspace whose import failed", "workspace", name, "err", err)
			return
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
		wait = min(2*wait, time.Second)
	}
	if s.opts.Egress != nil {
		if err := s.opts.Egress.RemoveWorkspace(name); err != nil {
			s.opts.Logger.Error("discard a workspace whose import failed: its egress policy", "workspace", name, "err", err)
		}
	}
}

// deleteStore stops the workspace's worker (on a front) and deletes its
// store.
func (s *Server) deleteStore(ctx context.Context, name string) error {
	if s.opts.Workers != nil {
		if err := s.opts.Workers.Stop(ctx, name); err != nil {
			return err
		}
	}
	return s.host.Delete(ctx, name)
}

// runImport runs the clone src (nothing when "") in workspace name as p,
// passing its output to out as it comes, and returns an error saying why
// it failed (403 for an egress refusal, else 502 clone_failed with git's
// message).
func (s *Server) runImport(ctx context.Context, p auth.Principal, name, src string, out func([]byte)) error {
	if src == "" {
		return nil
	}
	errb := &tailBuffer{max: maxImportErr}
	both := func(stderr bool, b []byte) {
		if stderr {
			errb.Write(b)
		}
		out(b)
	}
	var status string
	var code int
	var err error
	if s.opts.Workers != nil {
		status, code, err = s.importRemote(ctx, p, name, src, both)
	} else {
		status, code, err = s.importLocal(ctx, name, src, both)
	}
	if err != nil {
		return fmt.Errorf("import %s: %w", name, err)
	}
	if status == string(run.StatusCompleted) && code == 0 {
		return nil
	}
	msg := strings.TrimSpace(errb.String())
	if msg == "" {
		msg = fmt.Sprintf("the clone ended %s (exit code %d)", status, code)
	}
	if strings.Contains(msg, "desk egress: refused") {
		return errorf(http.StatusForbidden, CodeForbidden, "import from git: %s", msg)
	}
	return errorf(http.StatusBadGateway, CodeCloneFailed, "import from git: %s", msg)
}

// importLocal runs the clone in this process's workspace.
func (s *Server) importLocal(ctx context.Context, name, src string, out func(stderr bool, b []byte)) (string, int, error) {
	l, err := s.host.Acquire(ctx, name)
	if err != nil {
		return "", 0, err
	}
	defer l.Release()
	rt := l.Workspace().Runtime()
	o := run.ExecOptions{Backend: "shell", Cwd: "/workspace", Timeout: importTimeout}
	e, err := rt.Exec(ctx, src, o)
	if errors.Is(err, run.ErrTimeoutTooLong) {
		o.Timeout = 0
		e, err = rt.Exec(ctx, src, o)
	}
	if err != nil {
		return "", 0, err
	}
	defer func() {
		if ctx.Err() != nil {
			kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			_ = rt.Kill(kctx, e.ID(), run.SIGKILL)
			_, _ = e.Wait(kctx)
		}
	}()
	st, err := rt.Follow(ctx, e.ID(), 0)
	if err != nil {
		return "", 0, err
	}
	defer st.Close()
	for {
		ev, err := st.Next(ctx)
		if errors.Is(err, io.EOF) {
			return "", 0, errors.New("the clone's events ended without its exit")
		}
		if err != nil {
			return "", 0, err
		}
		switch ev.Type {
		case run.EventStdout, run.EventStderr:
			out(ev.Type == run.EventStderr, ev.Data)
		case run.EventExit:
			return string(ev.Exit.Status), ev.Exit.ExitCode, nil
		}
	}
}

// importRemote runs the clone in the workspace's worker, through the
// worker's API as p (the admin who asked).
func (s *Server) importRemote(ctx context.Context, p auth.Principal, name, src string, out func(stderr bool, b []byte)) (string, int, error) {
	hc := &http.Client{Transport: &principalTransport{next: s.opts.Workers.Transport(name), p: p}}
	c, err := client.New("http://worker", "", client.Options{HTTPClient: hc})
	if err != nil {
		return "", 0, err
	}
	req := client.ExecRequest{Backend: "shell", Source: src, Cwd: "/workspace", Timeout: importTimeout.String()}
	x, err := c.Exec(ctx, name, req)
	var ce *client.Error
	if errors.As(err, &ce) && strings.Contains(ce.Message, run.ErrTimeoutTooLong.Error()) {
		req.Timeout = ""
		x, err = c.Exec(ctx, name, req)
	}
	if err != nil {
		return "", 0, err
	}
	defer func() {
		if ctx.Err() != nil {
			kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			_ = c.Kill(kctx, name, x.ID, "SIGKILL")
		}
	}()
	evs, err := c.Events(ctx, name, x.ID, client.EventsOptions{})
	if err != nil {
		return "", 0, err
	}
	defer evs.Close()
	for {
		ev, err := evs.Next()
		if errors.Is(err, io.EOF) {
			return "", 0, errors.New("the clone's events ended without its exit")
		}
		if err != nil {
			if ctx.Err() != nil {
				return "", 0, ctx.Err()
			}
			return "", 0, err
		}
		switch ev.Type {
		case string(run.EventStdout), string(run.EventStderr):
			out(ev.Type == string(run.EventStderr), ev.Data)
		case string(run.EventExit):
			return ev.Exit.Status, ev.Exit.ExitCode, nil
		}
	}
}

// lineBuffer cuts output into lines (ending in "\n" or "\r", as git's
// progress meters do), each at most 4 KiB.
type lineBuffer struct{ b []byte }

func (lb *lineBuffer) add(p []byte) []string {
	lb.b = append(lb.b, p...)
	var out []string
	for {
		i := bytes.IndexAny(lb.b, "\r\n")
		if i < 0 {
			if len(lb.b) >= 4<<10 {
				out = append(out, string(lb.b))
				lb.b = lb.b[:0]
			}
			return out
		}
		out = append(out, string(lb.b[:i+1]))
		lb.b = lb.b[i+1:]
	}
}

func (lb *lineBuffer) flush() string {
	s := string(lb.b)
	lb.b = nil
	return s
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }
