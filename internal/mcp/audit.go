package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// Meta keys of the client's audit labels in a request's _meta (the
// X-Desk-* headers of the HTTP request are read too; _meta wins).
const (
	MetaAgent   = "desk/agent"
	MetaSession = "desk/session"
	MetaModel   = "desk/model"
	MetaTurn    = "desk/turn"
)

// labels reads the client's labels from the request's HTTP headers and its _meta.
func labels(req sdk.Request) audit.Labels {
	var l audit.Labels
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		h := ex.Header
		l = audit.Labels{Agent: h.Get(audit.HeaderAgent), Session: h.Get(audit.HeaderSession), Model: h.Get(audit.HeaderModel), Turn: h.Get(audit.HeaderTurn)}
	}
	if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
		m := p.GetMeta()
		for k, dst := range map[string]*string{MetaAgent: &l.Agent, MetaSession: &l.Session, MetaModel: &l.Model, MetaTurn: &l.Turn} {
			switch v := m[k].(type) {
			case string:
				*dst = v
			case float64, int, int64, bool:
				*dst = fmt.Sprint(v)
			}
		}
	}
	return l
}

// auditMiddleware records every request a session's server receives
// (notifications are not recorded) as one KindMCP record of workspace ws,
// with the tool call's changes when the tool runs in this process; actor
// is the record's actor where the request carries no principal. The tool
// calls' executions are recorded at their ends by ended (nil: their late
// path refusals only).
func auditMiddleware(j audit.Journal, ws, actor string, ended func(audit.Record, *run.Execution, *policy.Denials)) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			start := time.Now()
			rec := audit.Record{Kind: audit.KindMCP, Action: method, Workspace: ws, Actor: actor, Labels: labels(req), Outcome: "ok"}
			if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
				p, _ := ex.TokenInfo.Extra[principalKey].(auth.Principal)
				if p.Admin {
					rec.Actor = "admin"
				} else if p.Token != nil {
					rec.Actor, rec.TokenID = p.Token.ID, p.Token.ID
				}
			}
			if s := req.GetSession(); s != nil {
				rec.Args = append(rec.Args, audit.Arg{Name: "mcp_session", Value: s.ID()})
			}
			switch p := req.GetParams().(type) {
			case *sdk.CallToolParamsRaw:
				rec.Args = append(rec.Args, audit.Arg{Name: "tool", Value: p.Name}, audit.Arg{Name: "input", Value: string(p.Arguments)})
			case *sdk.ReadResourceParams:
				rec.Args = append(rec.Args, audit.Arg{Name: "uri", Value: p.URI})
			case *sdk.GetPromptParams:
				rec.Args = append(rec.Args, audit.Arg{Name: "prompt", Value: p.Name})
			}
			// A tool run in this process adds its changes to span; one run
			// by a worker gets the labels as headers (the worker records
			// its tool call with its changes).
			span := new(vfs.ChangeSpan)
			ctx = vfs.WithChangeSpan(ctx, span)
			den := new(policy.Denials) // the path refusals of the call (policy.Checker)
			ctx = policy.WithDenials(ctx, den)
			h := http.Header{}
			for k, v := range map[string]string{audit.HeaderAgent: rec.Labels.Agent, audit.HeaderSession: rec.Labels.Session, audit.HeaderModel: rec.Labels.Model, audit.HeaderTurn: rec.Labels.Turn} {
				if v != "" {
					h.Set(k, v)
				}
			}
			if len(h) > 0 {
				ctx = client.WithHeader(ctx, h)
			}
			var started ExecList
			ctx = run.WithStarted(ctx, started.Add)
			res, err := next(ctx, method, req)
			if err != nil {
				rec.Outcome, rec.Error = "error", err.Error()
			} else if ctr, ok := res.(*sdk.CallToolResult); ok && ctr.IsError {
				rec.Outcome = "tool_error"
				for _, c := range ctr.Content {
					if tc, ok := c.(*sdk.TextContent); ok {
						rec.Error = tc.Text
						break
					}
				}
			}
			rec.Duration = time.Since(start).Microseconds()
			for _, rg := range span.Ranges() {
				rec.Changes = append(rec.Changes, audit.Span{First: rg[0], Last: rg[1]})
			}
			rec.Paths, rec.Truncated = span.Paths()
			// The call's own context may be cancelled (a closed request):
			// the record is still written.
			j.Append(context.WithoutCancel(ctx), &rec)
			ds, more := den.Take()
			for _, pr := range DenialRecords(rec, ds, more) {
				j.Append(context.WithoutCancel(ctx), &pr)
			}
			for _, e := range started.Take() {
				go func() {
					<-e.Done()
					if ended != nil {
						ended(rec, e, den)
						return
					}
					ds, more := den.Take()
					for _, pr := range DenialRecords(rec, ds, more) {
						pr.Args = append(pr.Args, audit.Arg{Name: "execution", Value: e.ID()})
						j.Append(context.Background(), &pr)
					}
				}()
			}
			return res, err
		}
	}
}

// LocalActor is the actor of the records AuditMiddleware makes: the owner
// of the data directory desk mcp --data serves (no token is involved).
const LocalActor = "local"

// AuditMiddleware is the middleware the HTTP handler adds to each session's
// server when HandlerOptions.Audit is set, for a server made otherwise:
// desk mcp --data over standard input and output. It records every request
// as one record of workspace ws in j, with actor LocalActor, and, with h
// (the host of ws), each execution a tool call starts once it has ended
// (RecordExecution; an execution record that could not be appended is
// logged to log, if set).
func AuditMiddleware(j audit.Journal, ws string, h *host.Host, log *slog.Logger) sdk.Middleware {
	var ended func(audit.Record, *run.Execution, *policy.Denials)
	if h != nil {
		ended = func(base audit.Record, e *run.Execution, den *policy.Denials) {
			if err := RecordExecution(context.Background(), j, h, base, e, den); err != nil && log != nil {
				log.Error("audit record lost", "execution", e.ID(), "err", err)
			}
		}
	}
	return auditMiddleware(j, ws, LocalActor, ended)
}

// DenialRecords are the policy records of a call's path refusals (ds, and
// more refusals of rules past policy.MaxDenialKinds): one per rule and
// access, with the first refused path, the layer and the count, made for
// the call of base (its workspace, actor and labels). A find over a denied
// tree is one record, not one per path.
func DenialRecords(base audit.Record, ds []policy.Denial, more int) []audit.Record {
	out := make([]audit.Record, 0, len(ds))
	for i, d := range ds {
		r := audit.Record{Kind: audit.KindPolicy, Action: d.Kind, Workspace: base.Workspace, Actor: base.Actor, TokenID: base.TokenID,
			Labels: base.Labels, Decision: d.Outcome, Rule: d.Rule, Outcome: d.Outcome,
			Args: []audit.Arg{{Name: "access", Value: d.Action}, {Name: "subject", Value: d.Subject}, {Name: "count", Value: strconv.Itoa(d.Count)}}}
		if d.Source != "" {
			r.Args = append(r.Args, audit.Arg{Name: "layer", Value: d.Source})
		}
		if base.Action != "" {
			r.Args = append(r.Args, audit.Arg{Name: "call", Value: base.Action})
		}
		if i == len(ds)-1 && more > 0 {
			r.Args = append(r.Args, audit.Arg{Name: "more_refusals", Value: strconv.Itoa(more)})
		}
		out = append(out, r)
	}
	return out
}

// ExecList collects the executions a call started (run.WithStarted with
// Add); the zero value is ready. Safe for concurrent use.
type ExecList struct {
	mu sync.Mutex
	es []*run.Execution
}

// Add adds e.
func (l *ExecList) Add(e *run.Execution) {
	l.mu.Lock()
	l.es = append(l.es, e)
	l.mu.Unlock()
}

// Take returns the executions collected and forgets them.
func (l *ExecList) Take() []*run.Execution {
	l.mu.Lock()
	defer l.mu.Unlock()
	es := l.es
	l.es = nil
	return es
}
