package run

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/vfs"
)

// GateRequest is what Options.Gate decides on.
type GateRequest struct {
	// Backend is the backend the execution runs on (auto resolved).
	Backend string
	// Source is the program.
	Source string
	// FS is the workspace's store.
	FS *vfs.FS
}

// WorkspaceOf is the workspace name of a store: its file's name without
// the extension (DATA/WS.db).
func WorkspaceOf(fs *vfs.FS) string {
	base := filepath.Base(fs.Path())
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// PolicyConfig configures PolicyGate.
type PolicyConfig struct {
	// Store holds the workspaces' own policies (nil: none).
	Store *policy.Store
	// Approvals holds the executions that must ask (nil: an execution a
	// rule says to ask about is refused).
	Approvals *policy.Approvals
	// OnDecision, if set, sees every command decision made (the audit
	// journal's hook); it must not block.
	OnDecision func(ws string, d policy.Decision)
}

// PolicyGate returns an Options.Gate enforcing package policy: the layers
// are the workspace's policy (cfg.Store) then those Exec's ctx carries
// (policy.WithLayer: a token's, an execution's). A bash execution (every
// backend but js, which runs no programs) is refused when its script's
// decision is denied (policy.ErrDenied), held as pending approval when it
// is asked (cfg.Approvals; refused when nil), and started otherwise. The
// execution's store calls check the path rules (vfs.WithAccess), the
// sandbox's through its mount.
func PolicyGate(cfg PolicyConfig) func(ctx context.Context, g GateRequest) (context.Context, error) {
	return func(ctx context.Context, g GateRequest) (context.Context, error) {
		ws := WorkspaceOf(g.FS)
		set, err := LayersFor(ctx, cfg.Store, ws)
		if err != nil {
			return nil, err
		}
		if g.Backend != "js" && set.HasCommandRules() {
			d := set.Script(g.Source)
			if cfg.OnDecision != nil {
				cfg.OnDecision(ws, d)
			}
			switch {
			case d.Outcome == policy.Denied:
				return nil, d.Err()
			case d.Outcome == policy.Asked && cfg.Approvals == nil:
				return nil, d.Err()
			case d.Outcome == policy.Asked:
				a := policy.Approval{Workspace: ws, Kind: "execution", Backend: g.Backend, Subject: g.Source,
					Decision: d, Requester: policy.RequesterFrom(ctx), SelfElicit: set.ApproveByElicitation()}
				if _, err := cfg.Approvals.Wait(ctx, a, policy.OnHeldFrom(ctx)); err != nil {
					return nil, err
				}
			}
		}
		if set.HasPathRules() {
			// Its refusals are counted where ctx says (policy.WithDenials:
			// the execution's audit record's).
			ctx = vfs.WithAccess(ctx, set.CheckerFor(ctx))
		}
		return policy.WithSet(ctx, set), nil
	}
}

// LayersFor is the Set in force for a call of workspace ws: its own
// policy, then the layers ctx carries.
func LayersFor(ctx context.Context, st *policy.Store, ws string) (policy.Set, error) {
	var set policy.Set
	if st != nil {
		p, err := st.Policy(ws)
		if err != nil {
			return nil, err
		}
		if !p.IsZero() {
			set = append(set, policy.Layer{Source: policy.SourceWorkspace, Policy: p})
		}
	}
	return append(set, policy.LayersFrom(ctx)...), nil
}
