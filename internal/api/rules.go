package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// policyContext is the context of a workspace call: the token's layer of
// path and command rules (policy.WithLayer, for the executions it
// starts), who asks (policy.WithRequester), and the path rules in force
// (the workspace's, then the token's) checked by every store call the
// handler makes (vfs.WithAccess): the file routes, the tools, MCP.
func (s *Server) policyContext(ctx context.Context, c *call) (context.Context, error) {
	ctx = policy.WithRequester(ctx, c.p.ID())
	// The executions the call starts count against the workspace's
	// quotas (run.Exec asks it: every surface, MCP in process included).
	ctx = run.WithQuota(ctx, s.quota.For(c.ws))
	if !c.p.Admin && c.p.Token != nil && c.p.Token.Policy != nil {
		ctx = policy.WithLayer(ctx, policy.Layer{Source: policy.SourceToken, Policy: *c.p.Token.Policy})
	}
	if s.opts.Policy == nil && len(policy.LayersFrom(ctx)) == 0 {
		return ctx, nil
	}
	set, err := run.LayersFor(ctx, s.opts.Policy, c.ws)
	if err != nil {
		return nil, err
	}
	if set.HasPathRules() {
		// The call's refusals are counted for its audit records (record;
		// an MCP request's are its middleware's).
		den := policy.DenialsFrom(ctx)
		if den == nil {
			den = new(policy.Denials)
			ctx = policy.WithDenials(ctx, den)
		}
		c.denials = den
		ctx = vfs.WithAccess(ctx, set.CheckerFor(ctx))
	}
	return policy.WithSet(ctx, set), nil
}

func wireRules(p policy.Policy) client.Rules {
	var out client.Rules
	for _, r := range p.Paths {
		out.Paths = append(out.Paths, client.PathRule{Pattern: r.Pattern, Access: string(r.Access)})
	}
	for _, r := range p.Commands {
		out.Commands = append(out.Commands, client.CommandRule{Pattern: r.Pattern, Action: string(r.Action)})
	}
	out.DefaultCommand = string(p.DefaultCommand)
	out.ApproveByElicitation = p.ApproveByElicitation
	return out
}

// parseRules validates wire rules.
func parseRules(what string, r client.Rules) (policy.Policy, error) {
	var p policy.Policy
	for _, x := range r.Paths {
		p.Paths = append(p.Paths, policy.PathRule{Pattern: x.Pattern, Access: policy.Access(x.Access)})
	}
	for _, x := range r.Commands {
		p.Commands = append(p.Commands, policy.CommandRule{Pattern: x.Pattern, Action: policy.Action(x.Action)})
	}
	p.DefaultCommand = policy.Action(r.DefaultCommand)
	p.ApproveByElicitation = r.ApproveByElicitation
	p, err := p.Validate()
	if err != nil {
		return p, errorf(http.StatusBadRequest, CodeInvalid, "%s: %v", what, err)
	}
	return p, nil
}

func (s *Server) policyStore() (*policy.Store, error) {
	if s.opts.Policy == nil {
		return nil, errorf(http.StatusNotImplemented, CodeInvalid, "this server keeps no path and command rules")
	}
	return s.opts.Policy, nil
}

func (s *Server) handleGetRules(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := workspaceStore(s, w, r, c, s.policyStore, nil)
	if err != nil {
		return err
	}
	p, err := st.Policy(c.ws)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, client.RulesInfo{Workspace: c.ws, Rules: wireRules(p)})
}

func (s *Server) handleSetRules(w http.ResponseWriter, r *http.Request, c *call) error {
	var req client.Rules
	st, err := workspaceStore(s, w, r, c, s.policyStore, &req)
	if err != nil {
		return err
	}
	p, err := parseRules("rules", req)
	if err != nil {
		return err
	}
	if err := st.SetPolicy(c.ws, p); err != nil {
		return err
	}
	s.opts.Logger.Info("path and command rules set", "workspace", c.ws, "paths", len(p.Paths), "commands", len(p.Commands))
	return writeJSON(w, http.StatusOK, client.RulesInfo{Workspace: c.ws, Rules: wireRules(p)})
}

func (s *Server) handleDeleteRules(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := workspaceStore(s, w, r, c, s.policyStore, nil)
	if err != nil {
		return err
	}
	if err := st.DeletePolicy(c.ws); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func wireApproval(a policy.Approval) client.Approval {
	d := a.Decision
	return client.Approval{ID: a.ID, Workspace: a.Workspace, Kind: a.Kind, Backend: a.Backend, Subject: a.Subject,
		Decision:  client.Decision{Kind: d.Kind, Action: d.Action, Outcome: d.Outcome, Rule: d.Rule, Source: d.Source, Subject: d.Subject},
		Requester: a.Requester, Created: a.Created, Expires: a.Expires, Status: a.Status, Approver: a.Approver, Decided: a.Decided}
}

// MaxApprovalWait bounds GET …/approvals?wait=: how long one request may
// wait for a call to become pending.
const MaxApprovalWait = time.Minute

func (s *Server) approvals() (*policy.Approvals, error) {
	if s.opts.Approvals == nil {
		return nil, errorf(http.StatusNotImplemented, CodeInvalid, "this server holds no approvals")
	}
	return s.opts.Approvals, nil
}

func (s *Server) handleListApprovals(w http.ResponseWriter, r *http.Request, c *call) error {
	ap, err := s.approvals()
	if err != nil {
		return err
	}
	list, version := ap.List(c.ws), ap.Version(c.ws)
	if q := r.URL.Query().Get("wait"); q != "" {
		d, err := time.ParseDuration(q)
		if err != nil || d < 0 || d > MaxApprovalWait {
			return errorf(http.StatusBadRequest, CodeInvalid, "wait=%q: want a duration from 0 to %s", q, MaxApprovalWait)
		}
		var since uint64
		if v := r.URL.Query().Get("version"); v != "" {
			if since, err = strconv.ParseUint(v, 10, 64); err != nil {
				return errorf(http.StatusBadRequest, CodeInvalid, "version=%q: want the version of an earlier answer", v)
			}
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		list, version = ap.WaitList(ctx, c.ws, since)
		cancel()
	}
	out := client.ApprovalList{Approvals: []client.Approval{}, TimeoutSeconds: int64(ap.Timeout().Seconds()), Version: version}
	for _, a := range list {
		out.Approvals = append(out.Approvals, wireApproval(a))
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleApprove(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.decide(w, r, c, true)
}

func (s *Server) handleDeny(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.decide(w, r, c, false)
}

// handleElicited decides a held call by an MCP client's answer to an
// elicitation, relayed by desk serve's front (mcp.RemoteWorkspace): only
// in a worker, only with mcp.HeaderElicited (which the front strips from
// every request it forwards), as the front's session's principal, under
// policy.Approval.MayDecide's rules for an elicitation.
func (s *Server) handleElicited(w http.ResponseWriter, r *http.Request, c *call) error {
	var req client.ElicitAnswer
	if err := s.readJSON(w, r, &req, false); err != nil {
		return err
	}
	if s.opts.WorkerKey == "" || r.Header.Get(mcp.HeaderElicited) != "1" {
		return fmt.Errorf("%w: an elicitation's answer comes only from this server's own MCP sessions (approve or deny instead)", auth.ErrForbidden)
	}
	ap, err := s.approvals()
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	for _, a := range ap.List(c.ws) {
		if a.ID != id {
			continue
		}
		if !a.MayDecide(c.p.ID(), req.Approve, true) {
			return fmt.Errorf("%w: the requester's elicitation may not approve its own call here (approve_by_elicitation is off); it stays pending", auth.ErrForbidden)
		}
		d, err := ap.Decide(c.ws, id, req.Approve, c.p.ID()+" (elicitation)")
		if err != nil {
			break
		}
		s.opts.Logger.Info("approval decided by elicitation", "workspace", c.ws, "id", d.ID, "status", d.Status, "approver", d.Approver, "rule", d.Decision.Rule)
		return writeJSON(w, http.StatusOK, wireApproval(d))
	}
	return errorf(http.StatusNotFound, CodeNotFound, "no call pending approval %s in workspace %s", id, c.ws)
}

func (s *Server) decide(w http.ResponseWriter, r *http.Request, c *call, approve bool) error {
	ap, err := s.approvals()
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	if !c.p.Admin {
		for _, a := range ap.List(c.ws) {
			if a.ID == id && a.Requester == c.p.ID() {
				return fmt.Errorf("%w: token %s asked for this call and may not decide it", auth.ErrForbidden, c.p.ID())
			}
		}
	}
	a, err := ap.Decide(c.ws, id, approve, c.p.ID())
	if errors.Is(err, policy.ErrNoApproval) {
		return errorf(http.StatusNotFound, CodeNotFound, "%v", err)
	}
	if err != nil {
		return err
	}
	s.opts.Logger.Info("approval decided", "workspace", c.ws, "id", a.ID, "status", a.Status, "approver", a.Approver, "rule", a.Decision.Rule)
	return writeJSON(w, http.StatusOK, wireApproval(a))
}
