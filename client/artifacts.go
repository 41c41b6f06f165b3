package client

import (
	"context"
	"net/url"
	"time"
)

// Artifact token scopes (ArtifactTokenRequest.Scope).
const (
	ArtifactScopeRead  = "read"  // clone and fetch
	ArtifactScopeWrite = "write" // clone, fetch and push
)

// ArtifactRequest publishes a workspace's git repository
// (POST /v1/workspaces/{ws}/artifacts).
type ArtifactRequest struct {
	// Name names the artifact in its URL, /git/{ws}/{name}.git: 1 to 63 of
	// a-z, 0-9, '.', '_', '-'.
	Name string `json:"name"`
	// Path is the repository: a work tree holding .git, or a bare
	// repository; a relative path is taken from /workspace. Default
	// /workspace.
	Path string `json:"path,omitempty"`
}

// Artifact is a published repository.
type Artifact struct {
	Workspace string    `json:"workspace"`
	Name      string    `json:"name"`
	Path      string    `json:"path"`
	Created   time.Time `json:"created"`
	// URL is the clone URL (without a token: give one as the password).
	URL string `json:"url"`
}

// ArtifactList is a workspace's artifacts by name.
type ArtifactList struct {
	Artifacts []Artifact `json:"artifacts"`
}

// ArtifactTokenRequest asks for a token of an artifact
// (POST /v1/workspaces/{ws}/artifacts/{name}/tokens).
type ArtifactTokenRequest struct {
	// Scope is "read" (the default) or "write".
	Scope string `json:"scope,omitempty"`
	// TTL is the token's life in seconds: 0 for the default (86400), at
	// most 2592000 (30 days).
	TTL int64 `json:"ttl,omitempty"`
}

// ArtifactToken is an artifact token's record.
type ArtifactToken struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Artifact  string    `json:"artifact"`
	Scope     string    `json:"scope"`
	State     string    `json:"state"` // "active", "expired" or "revoked"
	Created   time.Time `json:"created"`
	Expires   time.Time `json:"expires"`
	RevokedAt time.Time `json:"revoked_at,omitzero"`
	// Secret and URL (the clone URL with the token in it) are in the
	// answer that made the token only: the server keeps a digest.
	Secret string `json:"secret,omitempty"`
	URL    string `json:"url,omitempty"`
}

// ArtifactTokenList is an artifact's tokens, oldest first.
type ArtifactTokenList struct {
	Tokens []ArtifactToken `json:"tokens"`
}

func artifactPath(ws, name, rest string) string {
	return wsPath(ws, "/artifacts/"+url.PathEscape(name)+rest)
}

// CreateArtifact publishes a workspace's git repository.
func (c *Client) CreateArtifact(ctx context.Context, ws string, req ArtifactRequest) (Artifact, error) {
	var a Artifact
	err := c.call(ctx, "POST", wsPath(ws, "/artifacts"), nil, req, &a)
	return a, err
}

// ListArtifacts returns a workspace's artifacts.
func (c *Client) ListArtifacts(ctx context.Context, ws string) (ArtifactList, error) {
	var l ArtifactList
	err := c.call(ctx, "GET", wsPath(ws, "/artifacts"), nil, nil, &l)
	return l, err
}

// DeleteArtifact unpublishes an artifact and forgets its tokens (the
// repository is not touched).
func (c *Client) DeleteArtifact(ctx context.Context, ws, name string) error {
	return c.call(ctx, "DELETE", artifactPath(ws, name, ""), nil, nil, nil)
}

// CreateArtifactToken mints a token of an artifact; its secret is shown
// only now.
func (c *Client) CreateArtifactToken(ctx context.Context, ws, name string, req ArtifactTokenRequest) (ArtifactToken, error) {
	var t ArtifactToken
	err := c.call(ctx, "POST", artifactPath(ws, name, "/tokens"), nil, req, &t)
	return t, err
}

// ListArtifactTokens returns an artifact's tokens (never their secrets).
func (c *Client) ListArtifactTokens(ctx context.Context, ws, name string) (ArtifactTokenList, error) {
	var l ArtifactTokenList
	err := c.call(ctx, "GET", artifactPath(ws, name, "/tokens"), nil, nil, &l)
	return l, err
}

// RevokeArtifactToken ends an artifact token at once.
func (c *Client) RevokeArtifactToken(ctx context.Context, ws, name, id string) error {
	return c.call(ctx, "DELETE", artifactPath(ws, name, "/tokens/"+url.PathEscape(id)), nil, nil, nil)
}
