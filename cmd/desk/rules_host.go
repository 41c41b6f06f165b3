package main

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/policy"
	deskrun "github.com/desk-dev/desk/internal/run"
)

// policyHost wires package policy into a data directory's executions: the
// run framework's Gate (the workspace's stored rules, then the token's and
// the execution's from Exec's context) and the approvals the API lists and
// decides (held in the process that runs the executions: the worker).
type policyHost struct {
	store     *policy.Store
	approvals *policy.Approvals
	// journal, once set (before the server starts), records every
	// approval as it is decided and every decision of the Gate.
	journal audit.Journal
}

func newPolicyHost(dataDir string, log *slog.Logger) *policyHost {
	h := &policyHost{store: policy.OpenStore(dataDir)}
	h.approvals = policy.NewApprovals(policy.ApprovalOptions{Dir: filepath.Join(dataDir, "policy"), OnDecide: func(a policy.Approval) {
		log.Info("approval", "workspace", a.Workspace, "id", a.ID, "status", a.Status, "requester", a.Requester,
			"approver", a.Approver, "rule", a.Decision.Rule)
		if h.journal != nil {
			api.ApprovalRecorder(h.journal)(a)
		}
	}})
	return h
}

// storeLimits is host.Options.StoreLimits: a workspace's own quota
// (policy.Limits), 0 for the server's.
func (h *policyHost) storeLimits(ws string) (int64, int64, error) {
	l, err := h.store.Limits(ws)
	return l.MaxBytes, l.MaxInodes, err
}

// setRun makes h the runtime's Gate, and records the execs the sandbox
// refuses under the same rules (its guard at execve).
func (h *policyHost) setRun(bs *backendSet, log *slog.Logger) {
	if bs.sandbox != nil {
		bs.sandbox.SetDecisionHook(func(ws, exec string, d policy.Decision) {
			if h.journal != nil {
				r := api.PolicyRecord(ws, auth.Principal{}, audit.Labels{}, d)
				r.Args = append(r.Args, audit.Arg{Name: "execution", Value: exec}, audit.Arg{Name: "at", Value: "execve"})
				h.journal.Append(context.Background(), &r)
			}
		})
	}
	bs.run.Gate = deskrun.PolicyGate(deskrun.PolicyConfig{Store: h.store, Approvals: h.approvals,
		OnDecision: func(ws string, d policy.Decision) {
			if d.Outcome != policy.Allowed {
				log.Info("policy decision", "workspace", ws, "outcome", d.Outcome, "rule", d.Rule, "source", d.Source, "command", d.Subject)
			}
			if h.journal != nil {
				// The Gate does not say for whom: the execution's own
				// records (its start and end) next to this one do.
				r := api.PolicyRecord(ws, auth.Principal{}, audit.Labels{}, d)
				h.journal.Append(context.Background(), &r)
			}
		}})
}

// abandon fails the approvals a previous process left pending for ws
// (every workspace when ws is ""): their calls ended with it. Each is an
// approval record with outcome abandoned (the journal must be set).
func (h *policyHost) abandon(ws string, log *slog.Logger) {
	as, err := h.approvals.Abandon(ws)
	if err != nil {
		log.Warn("pending approvals of a previous run not read", "err", err)
	}
	for _, a := range as {
		log.Warn("approval abandoned: the process holding its call ended before anyone decided", "workspace", a.Workspace, "id", a.ID, "requester", a.Requester, "rule", a.Decision.Rule)
	}
}
