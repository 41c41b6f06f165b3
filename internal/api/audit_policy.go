package api

import (
	"context"

	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/policy"
)

// The bridge from package policy's decisions to the audit journal. Where a
// call is decided (the API's handlers, the tools, run), the decision goes
// into the call's own record (call.auditDecision: its Decision and Rule
// fields) and, for every decision that is not a plain allow, into a
// record of its own (PolicyRecord), so that a denial or a question is
// listed even when the call's record shows only its error. Approvals are
// recorded as they stop pending (ApprovalRecorder, policy.ApprovalOptions
// .OnDecide).

// auditDecision puts d into the call's audit record (the strictest one
// wins when several are made: denied over asked over allowed).
func (c *call) auditDecision(d policy.Decision) {
	rank := map[string]int{"": 0, policy.Allowed: 1, policy.Asked: 2, policy.Denied: 3}
	if rank[d.Outcome] >= rank[c.decision.Outcome] {
		c.decision = d
	}
}

// PolicyRecord is the audit record of one policy decision on workspace ws
// made for principal p.
func PolicyRecord(ws string, p auth.Principal, l audit.Labels, d policy.Decision) audit.Record {
	r := audit.Record{Kind: audit.KindPolicy, Action: d.Kind, Workspace: ws, Labels: l, Decision: d.Outcome, Rule: d.Rule, Outcome: d.Outcome,
		Args: []audit.Arg{{Name: "access", Value: d.Action}, {Name: "subject", Value: d.Subject}}}
	if d.Source != "" {
		r.Args = append(r.Args, audit.Arg{Name: "layer", Value: d.Source})
	}
	if p.Admin {
		r.Actor = "admin"
	} else if p.Token != nil {
		r.Actor, r.TokenID = p.Token.ID, p.Token.ID
	}
	return r
}

// ApprovalRecorder returns a policy.ApprovalOptions.OnDecide that records
// each approval as it stops pending (approved, denied, expired, canceled):
// who asked, who decided, the rule and the script. It does not block the
// caller longer than one append.
func ApprovalRecorder(j audit.Journal) func(policy.Approval) {
	return func(a policy.Approval) {
		r := audit.Record{Kind: audit.KindApproval, Action: a.Kind, Workspace: a.Workspace, Actor: a.Approver, Outcome: a.Status,
			Decision: a.Decision.Outcome, Rule: a.Decision.Rule,
			Args: []audit.Arg{{Name: "approval", Value: a.ID}, {Name: "requester", Value: a.Requester}, {Name: "subject", Value: a.Subject}}}
		if a.Backend != "" {
			r.Args = append(r.Args, audit.Arg{Name: "backend", Value: a.Backend})
		}
		if a.Status == policy.Abandoned {
			r.Error = "the process holding the call ended (a restart) before anyone decided; the call failed with it"
		}
		j.Append(context.Background(), &r)
	}
}
