package main

import (
	"log/slog"

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
}

func newPolicyHost(dataDir string, log *slog.Logger) *policyHost {
	h := &policyHost{store: policy.OpenStore(dataDir)}
	h.approvals = policy.NewApprovals(policy.ApprovalOptions{OnDecide: func(a policy.Approval) {
		log.Info("approval", "workspace", a.Workspace, "id", a.ID, "status", a.Status, "requester", a.Requester,
			"approver", a.Approver, "rule", a.Decision.Rule)
	}})
	return h
}

// setRun makes h the runtime's Gate.
func (h *policyHost) setRun(bs *backendSet, log *slog.Logger) {
	bs.run.Gate = deskrun.PolicyGate(deskrun.PolicyConfig{Store: h.store, Approvals: h.approvals,
		OnDecision: func(ws string, d policy.Decision) {
			if d.Outcome != policy.Allowed {
				log.Info("policy decision", "workspace", ws, "outcome", d.Outcome, "rule", d.Rule, "source", d.Source, "command", d.Subject)
			}
		}})
}
