package client

import (
	"context"
	"net/url"
)

// EgressRule is one rule of an egress policy (docs/api.md).
type EgressRule struct {
	Host    string   `json:"host"`           // a name, *.domain or an IP address
	Addr    string   `json:"addr,omitempty"` // the address a name is pinned to
	Ports   []int    `json:"ports,omitempty"`
	Methods []string `json:"methods,omitempty"`
	Paths   []string `json:"paths,omitempty"`
}

// EgressPolicy is a workspace's egress policy: mode none, allow (Rules) or
// all.
type EgressPolicy struct {
	Mode  string       `json:"mode"`
	Rules []EgressRule `json:"rules,omitempty"`
}

// PolicyRequest sets a workspace's policy: Text ("none", "all", "allow
// RULE; RULE") or Mode and Rules.
type PolicyRequest struct {
	Text  string       `json:"text,omitempty"`
	Mode  string       `json:"mode,omitempty"`
	Rules []EgressRule `json:"rules,omitempty"`
}

// PolicyInfo is a workspace's egress policy in force.
type PolicyInfo struct {
	Workspace string `json:"workspace"`
	// Source is "workspace" (its own) or "default" (the server's).
	Source string       `json:"source"`
	Policy EgressPolicy `json:"policy"`
	Text   string       `json:"text"` // the policy's text form
}

// SecretRequest stores a secret: its value and the hosts it may be sent to.
type SecretRequest struct {
	Value string   `json:"value"`
	Hosts []string `json:"hosts"`
}

// Secret describes a stored secret, never its value.
type Secret struct {
	Name        string   `json:"name"`
	Hosts       []string `json:"hosts"`
	Placeholder string   `json:"placeholder"` // what executions see in $NAME
}

// SecretList lists a workspace's secrets.
type SecretList struct {
	Secrets []Secret `json:"secrets"`
}

// GetPolicy returns the workspace's egress policy in force.
func (c *Client) GetPolicy(ctx context.Context, ws string) (PolicyInfo, error) {
	var p PolicyInfo
	err := c.call(ctx, "GET", wsPath(ws, "/policy"), nil, nil, &p)
	return p, err
}

// SetPolicy sets the workspace's own egress policy (admin).
func (c *Client) SetPolicy(ctx context.Context, ws string, req PolicyRequest) (PolicyInfo, error) {
	var p PolicyInfo
	err := c.call(ctx, "PUT", wsPath(ws, "/policy"), nil, req, &p)
	return p, err
}

// DeletePolicy removes the workspace's own policy: the server's default
// applies (admin).
func (c *Client) DeletePolicy(ctx context.Context, ws string) error {
	return c.call(ctx, "DELETE", wsPath(ws, "/policy"), nil, nil, nil)
}

// SetSecret stores a secret of the workspace (admin).
func (c *Client) SetSecret(ctx context.Context, ws, name string, req SecretRequest) (Secret, error) {
	var s Secret
	err := c.call(ctx, "PUT", wsPath(ws, "/secrets/", url.PathEscape(name)), nil, req, &s)
	return s, err
}

// ListSecrets lists the workspace's secrets, never their values (admin).
func (c *Client) ListSecrets(ctx context.Context, ws string) (SecretList, error) {
	var l SecretList
	err := c.call(ctx, "GET", wsPath(ws, "/secrets"), nil, nil, &l)
	return l, err
}

// DeleteSecret removes a secret (admin).
func (c *Client) DeleteSecret(ctx context.Context, ws, name string) error {
	return c.call(ctx, "DELETE", wsPath(ws, "/secrets/", url.PathEscape(name)), nil, nil, nil)
}
