package client

import (
	"context"
	"net/url"
	"strconv"
	"time"
)

// PathRule is one ordered path rule: paths Pattern (a glob) matches get
// Access: read, write or deny (docs/api.md, "Path and command rules").
type PathRule struct {
	Pattern string `json:"pattern"`
	Access  string `json:"access"`
}

// CommandRule is one ordered command rule: commands Pattern ("git push
// *") matches get Action: allow, ask or deny.
type CommandRule struct {
	Pattern string `json:"pattern"`
	Action  string `json:"action"`
}

// Rules are a workspace's (or a token's) path and command rules.
type Rules struct {
	Paths    []PathRule    `json:"paths,omitempty"`
	Commands []CommandRule `json:"commands,omitempty"`
	// DefaultCommand is the action for a command no rule matches
	// ("": allow).
	DefaultCommand string `json:"default_command,omitempty"`
	// ApproveByElicitation lets the requester's own MCP client approve a
	// held call by answering an elicitation (otherwise another party
	// must approve; the requester's elicitation can only deny).
	ApproveByElicitation bool `json:"approve_by_elicitation,omitempty"`
}

// RulesInfo is a workspace's rules.
type RulesInfo struct {
	Workspace string `json:"workspace"`
	Rules     Rules  `json:"rules"`
}

// Decision is a policy evaluation: what was decided and by which rule.
type Decision struct {
	Kind    string `json:"kind"`    // path or command
	Action  string `json:"action"`  // read, write; allow, ask, deny
	Outcome string `json:"outcome"` // allowed, denied, asked
	Rule    string `json:"rule,omitempty"`
	Source  string `json:"source,omitempty"` // workspace, token, execution
	Subject string `json:"subject,omitempty"`
}

// Approval is a call held until an approver decides.
type Approval struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Kind      string    `json:"kind"` // execution
	Backend   string    `json:"backend,omitempty"`
	Subject   string    `json:"subject"` // the script
	Decision  Decision  `json:"decision"`
	Requester string    `json:"requester"` // token id or admin
	Created   time.Time `json:"created"`
	Expires   time.Time `json:"expires"`
	Status    string    `json:"status"` // pending_approval, approved, denied, expired, canceled
	Approver  string    `json:"approver,omitempty"`
	Decided   time.Time `json:"decided,omitzero"`
}

// ApprovalList lists a workspace's pending approvals, oldest first.
type ApprovalList struct {
	Approvals []Approval `json:"approvals"`
	// TimeoutSeconds is how long a call waits before it fails.
	TimeoutSeconds int64 `json:"timeout_seconds"`
	// Version counts the changes of the list: WaitApprovals with it
	// answers at the next change.
	Version uint64 `json:"version"`
}

// GetRules returns the workspace's path and command rules.
func (c *Client) GetRules(ctx context.Context, ws string) (RulesInfo, error) {
	var r RulesInfo
	err := c.call(ctx, "GET", wsPath(ws, "/rules"), nil, nil, &r)
	return r, err
}

// SetRules replaces the workspace's rules (admin); empty Rules remove them.
func (c *Client) SetRules(ctx context.Context, ws string, rules Rules) (RulesInfo, error) {
	var r RulesInfo
	err := c.call(ctx, "PUT", wsPath(ws, "/rules"), nil, rules, &r)
	return r, err
}

// ListApprovals lists the workspace's calls pending approval (approve
// scope).
func (c *Client) ListApprovals(ctx context.Context, ws string) (ApprovalList, error) {
	var l ApprovalList
	err := c.call(ctx, "GET", wsPath(ws, "/approvals"), nil, nil, &l)
	return l, err
}

// WaitApprovals is ListApprovals that waits up to wait (at most a
// minute): with version 0 until a call is pending, else until the list's
// version (ApprovalList.Version of an earlier answer) changes. After wait
// it answers with what is pending then (maybe nothing).
func (c *Client) WaitApprovals(ctx context.Context, ws string, wait time.Duration, version uint64) (ApprovalList, error) {
	var l ApprovalList
	q := url.Values{"wait": {wait.String()}}
	if version != 0 {
		q.Set("version", strconv.FormatUint(version, 10))
	}
	err := c.call(ctx, "GET", wsPath(ws, "/approvals"), q, nil, &l)
	return l, err
}

// Approve lets a pending call go on (approve scope).
func (c *Client) Approve(ctx context.Context, ws, id string) (Approval, error) {
	var a Approval
	err := c.call(ctx, "POST", wsPath(ws, "/approvals/", url.PathEscape(id), "/approve"), nil, nil, &a)
	return a, err
}

// Deny fails a pending call (approve scope).
func (c *Client) Deny(ctx context.Context, ws, id string) (Approval, error) {
	var a Approval
	err := c.call(ctx, "POST", wsPath(ws, "/approvals/", url.PathEscape(id), "/deny"), nil, nil, &a)
	return a, err
}

// DeleteRules removes the workspace's rules (admin).
func (c *Client) DeleteRules(ctx context.Context, ws string) error {
	return c.call(ctx, "DELETE", wsPath(ws, "/rules"), nil, nil, nil)
}

// AnswerElicitation passes an MCP client's answer about the held call id
// to the server that holds it (desk serve's front to a workspace's worker,
// with the session's principal): the server decides it as
// policy.Approval.MayDecide allows an elicitation. A server answers it
// only from its own front (403 otherwise).
func (c *Client) AnswerElicitation(ctx context.Context, ws, id string, approve bool) (Approval, error) {
	var a Approval
	err := c.call(ctx, "POST", wsPath(ws, "/approvals/", url.PathEscape(id), "/elicited"), nil, ElicitAnswer{Approve: approve}, &a)
	return a, err
}
