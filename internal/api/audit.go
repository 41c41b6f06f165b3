package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// unaudited are the routes that make no audit record: the liveness probe,
// and MCP's, whose JSON-RPC requests the MCP handler records one by one.
var unaudited = map[string]bool{"healthz": true, "mcpPost": true, "mcpGet": true, "mcpDelete": true}

// auditArg adds a named argument to the call's audit record (handlers call
// it for what the path and query do not say: an execution's script, a
// tool's input).
func (c *call) auditArg(name, value string) {
	c.args = append(c.args, audit.Arg{Name: name, Value: value})
}

// LabelsFrom reads the client's labels from the X-Desk-* headers.
func LabelsFrom(h http.Header) audit.Labels {
	return audit.Labels{Agent: h.Get(audit.HeaderAgent), Session: h.Get(audit.HeaderSession), Model: h.Get(audit.HeaderModel), Turn: h.Get(audit.HeaderTurn)}
}

// record writes the request's audit record (Options.Audit), unless a worker
// served it (the worker records it, with the changes it made).
func (s *Server) record(rt route, r *http.Request, w *respWriter, c *call, span *vfs.ChangeSpan, err error, d time.Duration) {
	if s.opts.Audit == nil || c.forwarded || unaudited[rt.op] {
		return
	}
	rec := audit.Record{Kind: audit.KindAPI, Action: rt.op, Workspace: c.ws, Labels: LabelsFrom(r.Header),
		Status: w.status, Outcome: "ok", Duration: d.Microseconds()}
	// Which chain: the workspace's; a deletion is the host's (the
	// workspace's chain goes with it); a token's call on another
	// workspace is its own workspace's; an unauthenticated call the host's
	// (so that no chain is made for a workspace that no one may use).
	target := ""
	switch {
	case rt.op == "deleteWorkspace":
		rec.Workspace, target = "", c.ws
	case c.p.Admin:
	case c.p.Token != nil && c.p.Token.Workspace != c.ws:
		rec.Workspace, target = c.p.Token.Workspace, c.ws
	case c.p.Token == nil:
		rec.Workspace, target = "", c.ws
	}
	if c.p.Admin {
		rec.Actor = "admin"
	} else if c.p.Token != nil {
		rec.Actor, rec.TokenID = c.p.Token.ID, c.p.Token.ID
	}
	rec.Args = append(rec.Args, audit.Arg{Name: "method", Value: r.Method}, audit.Arg{Name: "path", Value: logPath(rt, r)})
	for k, vs := range r.URL.Query() {
		for _, v := range vs {
			rec.Args = append(rec.Args, audit.Arg{Name: "query." + k, Value: v})
		}
	}
	rec.Args = append(rec.Args, c.args...)
	if target != "" {
		rec.Args = append(rec.Args, audit.Arg{Name: "workspace", Value: target})
	}
	if c.decision.Outcome != "" {
		rec.Decision, rec.Rule = c.decision.Outcome, c.decision.Rule
	} else if errors.Is(err, policy.ErrDenied) {
		rec.Decision = audit.Denied // the rule is in the error (and in the policy record)
	}
	if err != nil {
		e := classify(err)
		rec.Outcome, rec.Error = e.Code, e.Message
	} else if w.status >= 400 {
		rec.Outcome = strconv.Itoa(w.status)
	}
	for _, rg := range span.Ranges() {
		rec.Changes = append(rec.Changes, audit.Span{First: rg[0], Last: rg[1]})
	}
	rec.Paths, rec.Truncated = span.Paths()
	if aerr := s.opts.Audit.Append(r.Context(), &rec); aerr != nil {
		s.opts.Logger.Error("audit record lost", "route", rt.op, "err", aerr)
	}
	if c.denials != nil {
		ds, more := c.denials.Take()
		s.recordDenials(rec, ds, more)
	}
	for _, e := range c.started.Take() {
		go s.toolExecEnded(rec, e, c.denials)
	}
}

// toolExecEnded records, once it has ended, an execution that the tool
// call of record base started (the exec tool: through the API's tool
// route, or an in-process MCP session, mcp.HandlerOptions.ExecEnded): one
// execution record as the exec route's (mcp.RecordExecution), and the path
// refusals den counted after the call's record — all of a detached
// execution's but those made before the call returned. (Its CPU was
// charged to the workspace's day as it ended: the quota's Ended.)
func (s *Server) toolExecEnded(base audit.Record, e *run.Execution, den *policy.Denials) {
	if err := mcp.RecordExecution(context.Background(), s.opts.Audit, s.host, base, e, den); err != nil {
		s.opts.Logger.Error("audit record lost", "execution", e.ID(), "err", err)
	}
}

// recordDenials appends the policy records of a call's path refusals
// (mcp.DenialRecords: one per rule and access, with a count).
func (s *Server) recordDenials(base audit.Record, ds []policy.Denial, more int, extra ...audit.Arg) {
	for _, pr := range mcp.DenialRecords(base, ds, more) {
		pr.Args = append(pr.Args, extra...)
		if err := s.opts.Audit.Append(context.Background(), &pr); err != nil {
			s.opts.Logger.Error("audit record lost", "policy", pr.Rule, "err", err)
		}
	}
}

// secretRedactor returns an audit.Redactor that replaces the values of a
// workspace's secrets (kept by st) with [secret NAME]. It reads a
// workspace's secrets again when their directory changed (SecretsStamp),
// or changed less than 50 ms ago (file times move by clock ticks).
func secretRedactor(st *egress.Store) audit.Redactor {
	type entry struct {
		stamp int64
		sec   []egress.Secret
	}
	var mu sync.Mutex
	cache := map[string]entry{}
	return func(ws, v string) string {
		if ws == "" || v == "" {
			return v
		}
		stamp, err := st.SecretsStamp(ws)
		if err != nil || stamp == 0 {
			return v
		}
		mu.Lock()
		e, ok := cache[ws]
		mu.Unlock()
		// A change within a clock tick of the last keeps the directory's
		// time: a recent stamp is read again.
		if !ok || e.stamp != stamp || time.Now().UnixNano()-stamp < int64(50*time.Millisecond) {
			sec, _, err := st.Bound(ws)
			if err != nil {
				sec = nil
			}
			e = entry{stamp: stamp, sec: sec}
			mu.Lock()
			if len(cache) > 1024 {
				clear(cache)
			}
			cache[ws] = e
			mu.Unlock()
		}
		for _, x := range e.sec {
			if x.Value != "" {
				v = strings.ReplaceAll(v, x.Value, "[secret "+x.Name+"]")
			}
		}
		return v
	}
}

// SecretRedactor is the redactor an audit.Store of a server with egress
// store st should use (desk serve and its workers set it).
func SecretRedactor(st *egress.Store) audit.Redactor { return secretRedactor(st) }

var (
	pAuWS      = param{"workspace", "string", "only this workspace's records (- for the host's)"}
	pAuActor   = param{"actor", "string", "only this actor (admin, or a token id)"}
	pAuSession = param{"session", "string", "only this client session (X-Desk-Session)"}
	pAuAction  = param{"action", "string", "only this action (an operation id, an MCP method)"}
	pAuPath    = param{"path", "string", "only the calls that changed this path (with workspace)"}
	pAuSince   = param{"since", "string", "records at or after this time (RFC 3339)"}
	pAuUntil   = param{"until", "string", "records before this time (RFC 3339)"}
	pAuAfter   = param{"after", "integer", "the cursor: records after this id (next of the previous page)"}
)

func auditFilter(r *http.Request, maxLimit int) (audit.Filter, error) {
	q := r.URL.Query()
	f := audit.Filter{Workspace: q.Get("workspace"), Actor: q.Get("actor"), Session: q.Get("session"), Action: q.Get("action"), Path: q.Get("path")}
	if f.Workspace == "-" {
		f.Workspace, f.HostOnly = "", true
	}
	for _, tv := range []struct {
		name string
		t    *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if v := q.Get(tv.name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return f, errorf(http.StatusBadRequest, CodeInvalid, "%s: not an RFC 3339 time: %q", tv.name, v)
			}
			*tv.t = t
		}
	}
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return f, errorf(http.StatusBadRequest, CodeInvalid, "after: not a record id: %q", v)
		}
		f.After = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			return f, errorf(http.StatusBadRequest, CodeInvalid, "limit: want 1 to %d, got %q", maxLimit, v)
		}
		f.Limit = n
	}
	return f, nil
}

// auditChainOf makes a read of workspace ws's records one of ws's own
// records (so that they go with it when it is deleted), if ws exists.
func (s *Server) auditChainOf(r *http.Request, c *call, ws string) {
	if ws == "" || ws == "-" {
		return
	}
	if _, err := s.host.Info(r.Context(), ws); err == nil {
		c.ws = ws
	}
}

// AuditList is a page of audit records.
type AuditList struct {
	Records []audit.Record `json:"records"`
	Next    string         `json:"next,omitempty"`
}

func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request, c *call) error {
	if s.opts.Audit == nil {
		return errorf(http.StatusNotImplemented, CodeUnavailable, "this server keeps no audit journal")
	}
	f, err := auditFilter(r, s.opts.MaxLimit)
	if err != nil {
		return err
	}
	s.auditChainOf(r, c, f.Workspace)
	ndjson := strings.Contains(r.Header.Get("Accept"), "application/x-ndjson")
	follow := r.URL.Query().Get("follow")
	if follow == "1" || follow == "true" || ndjson {
		// NDJSON: every record selected (the export), then, with follow,
		// each new one as it is appended.
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		enc := json.NewEncoder(w)
		flush := func() {
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
		}
		if follow != "1" && follow != "true" {
			for {
				rs, next, err := s.opts.Audit.Query(r.Context(), f)
				if err != nil {
					return err
				}
				for i := range rs {
					if err := enc.Encode(&rs[i]); err != nil {
						return nil
					}
				}
				if next == 0 {
					return nil
				}
				f.After = next
			}
		}
		ctx, cancel := s.longCtx(r)
		defer cancel()
		flush()
		err := s.opts.Audit.Follow(ctx, f, time.Second, func(rec audit.Record) error {
			if err := enc.Encode(&rec); err != nil {
				return err
			}
			flush()
			return nil
		})
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	rs, next, err := s.opts.Audit.Query(r.Context(), f)
	if err != nil {
		return err
	}
	out := AuditList{Records: rs}
	if out.Records == nil {
		out.Records = []audit.Record{}
	}
	if next != 0 {
		out.Next = strconv.FormatInt(next, 10)
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleAuditVerify(w http.ResponseWriter, r *http.Request, c *call) error {
	if s.opts.Audit == nil {
		return errorf(http.StatusNotImplemented, CodeUnavailable, "this server keeps no audit journal")
	}
	s.auditChainOf(r, c, r.URL.Query().Get("workspace"))
	rep, err := s.opts.Audit.Verify(r.Context(), r.URL.Query().Get("workspace"))
	if err != nil {
		return fmt.Errorf("verify audit journal: %w", err)
	}
	if rep.Chains == nil {
		rep.Chains = []audit.ChainReport{}
	}
	return writeJSON(w, http.StatusOK, rep)
}

// execAudit makes the record of an execution the exec route started
// (mcp.ExecutionRecord) when it ends.
type execAudit struct {
	s     *Server
	rec   audit.Record    // the call's: workspace, actor, labels
	den   *policy.Denials // the execution's path refusals (run.PolicyGate's Checker)
	span  *vfs.ChangeSpan
	fs    *vfs.FS
	start uint64 // the journal's newest number when the execution started
}

func (s *Server) newExecAudit(r *http.Request, c *call, fs *vfs.FS) *execAudit {
	ea := &execAudit{s: s, den: new(policy.Denials), span: new(vfs.ChangeSpan), fs: fs, start: fs.Seq()}
	ea.rec = audit.Record{Workspace: c.ws, Labels: LabelsFrom(r.Header)}
	if c.p.Admin {
		ea.rec.Actor = "admin"
	} else if c.p.Token != nil {
		ea.rec.Actor, ea.rec.TokenID = c.p.Token.ID, c.p.Token.ID
	}
	return ea
}

func (ea *execAudit) ended(e *run.Execution) {
	info := e.Info()
	rec := mcp.ExecutionRecord(context.Background(), ea.rec, info, ea.span, ea.fs, ea.start)
	if err := ea.s.opts.Audit.Append(context.Background(), &rec); err != nil {
		ea.s.opts.Logger.Error("audit record lost", "execution", info.ID, "err", err)
	}
	ds, more := ea.den.Take()
	ea.s.recordDenials(rec, ds, more, audit.Arg{Name: "execution", Value: info.ID})
}
