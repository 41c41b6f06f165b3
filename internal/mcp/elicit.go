package mcp

import (
	"context"
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
// A client without the capability, and an execution held in a worker
// process (the front forwards the tool call, the worker's Gate holds it),
// keep the pending_approval flow: list and decide through the API.

// elicitContext returns ctx whose held calls ask req's client, when opts
// has Approvals and the client declared elicitation.
func elicitContext(ctx context.Context, req *sdk.CallToolRequest, opts *Options) context.Context {
	if opts.Approvals == nil || req.Session == nil {
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
	return policy.WithOnHeld(ctx, func(a policy.Approval) {
		go elicitApproval(ctx, req.Session, opts.Approvals, a, approver, log)
	})
}

// elicitApproval asks ss's client about a and decides it as the answer
// and the rules allow.
func elicitApproval(ctx context.Context, ss *sdk.ServerSession, ap *policy.Approvals, a policy.Approval, approver string, log *slog.Logger) {
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
	approve := res.Action == "accept"
	if res.Action != "accept" && res.Action != "decline" {
		return // cancel: no choice made
	}
	if !a.MayDecide(approver, approve, true) {
		log.Info("approval: the requester's elicitation may not approve its own call; it stays pending", "workspace", a.Workspace, "id", a.ID, "requester", a.Requester)
		return
	}
	if _, err := ap.Decide(a.Workspace, a.ID, approve, approver+" (elicitation)"); err != nil {
		log.Info("approval: elicitation answer not applied", "workspace", a.Workspace, "id", a.ID, "err", err)
	}
}
