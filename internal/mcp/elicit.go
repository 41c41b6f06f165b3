package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/policy"
)

// Approvals by MCP elicitation (MCP 2025-06-18, elicitation/create).
//
// When a tool call's execution is held for approval (policy.Approvals) and
// the session's client declared the elicitation capability, the server
// asks the client: a form with no fields whose message names the script,
// the rule and the approval's id. The answer is the session's principal's:
//
//   - decline: the call is denied (a requester may always withdraw its own
//     call);
//   - accept: the call is approved if that principal may approve it
//     (policy.Approval.MayDecide): another principal than the requester,
//     admin, or the requester itself only where every layer with command
//     rules says ApproveByElicitation (the human at the client, not the
//     agent's token through the API, which stays refused). Otherwise the
//     call stays pending for another approver (desk approve);
//   - cancel, an error, or no answer before the call ends: it stays pending
//     (and times out as any).
//
// A client without the capability keeps the pending_approval flow: list
// and decide through the API. An execution held in a workspace's worker
// (desk serve's front forwards the tool call through a RemoteWorkspace)
// is elicited too: the front asks the worker to report the hold
// (client.HeaderHeld), the worker sends the approval as a progress line
// of the streamed call, the front elicits and passes the answer back
// (ApprovalDecider: POST …/approvals/{id}/elicited with HeaderElicited,
// which the front strips from every request it forwards, so no client can
// send it), and the worker decides it under the same rules.

// HeaderElicited marks a front's request that carries an MCP client's
// answer to an elicitation (RemoteWorkspace.DecideElicited): the worker
// decides it as an elicitation (policy.Approval.MayDecide with
// byElicitation). The front removes it from the requests it forwards.
const HeaderElicited = "X-Desk-Elicited"

// ApprovalDecider is a Workspace whose held calls are decided elsewhere
// (a RemoteWorkspace: in the workspace's worker): DecideElicited passes an
// elicitation's answer about a on.
type ApprovalDecider interface {
	DecideElicited(ctx context.Context, a policy.Approval, approve bool) error
}

// elicitContext returns ctx whose held calls ask req's client, when the
// client declared elicitation and the calls are held here (opts has
// Approvals) or by ws (an ApprovalDecider).
func elicitContext(ctx context.Context, req *sdk.CallToolRequest, ws Workspace, opts *Options) context.Context {
	remote, _ := ws.(ApprovalDecider)
	if (opts.Approvals == nil && remote == nil) || req.Session == nil {
		return ctx
	}
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return ctx
	}
	approver := "" // the requester itself, unless the session names its principal
	if ex := req.Extra; ex != nil && ex.TokenInfo != nil {
		if p, ok := ex.TokenInfo.Extra[principalKey].(auth.Principal); ok {
			approver = p.ID()
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	decide := func(a policy.Approval, approve bool, approver string) error {
		if !a.MayDecide(approver, approve, true) {
			return errors.New("the requester's elicitation may not approve its own call; it stays pending")
		}
		_, err := opts.Approvals.Decide(a.Workspace, a.ID, approve, approver+" (elicitation)")
		return err
	}
	if remote != nil {
		decide = func(a policy.Approval, approve bool, _ string) error {
			return remote.DecideElicited(context.WithoutCancel(ctx), a, approve)
		}
	}
	return policy.WithOnHeld(ctx, func(a policy.Approval) {
		go elicitApproval(ctx, req.Session, decide, a, approver, log)
	})
}

// elicitApproval asks ss's client about a and passes the answer to
// decide (which applies the rules).
func elicitApproval(ctx context.Context, ss *sdk.ServerSession, decide func(policy.Approval, bool, string) error, a policy.Approval, approver string, log *slog.Logger) {
	if approver == "" {
		approver = a.Requester
	}
	msg := fmt.Sprintf("desk: approve this %s in workspace %s? It matches rule %q (%s policy).\n\n%s\n\n(approval %s; accept approves, decline denies)",
		a.Kind, a.Workspace, a.Decision.Rule, a.Decision.Source, a.Subject, a.ID)
	res, err := ss.Elicit(ctx, &sdk.ElicitParams{Mode: "form", Message: msg,
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}})
	if err != nil {
		log.Info("approval: elicitation failed; the call stays pending", "workspace", a.Workspace, "id", a.ID, "err", err)
		return
	}
	if res.Action != "accept" && res.Action != "decline" {
		return // cancel: no choice made
	}
	if err := decide(a, res.Action == "accept", approver); err != nil {
		log.Info("approval: elicitation answer not applied", "workspace", a.Workspace, "id", a.ID, "requester", a.Requester, "err", err)
	}
}
