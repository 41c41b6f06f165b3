package client

import (
	"context"
	"net/url"
	"time"
)

// Share dispositions (ShareRequest.Disposition).
const (
	DispositionInline     = "inline"     // shown in the browser (the default)
	DispositionAttachment = "attachment" // downloaded under the file's name
)

// ShareRequest asks for a share link to a file of the workspace
// (POST /v1/workspaces/{ws}/shares).
type ShareRequest struct {
	// Path is the file to share; a relative path is taken from /workspace.
	Path string `json:"path"`
	// ExpiresIn is the link's life in seconds: 0 for the default (3600), at
	// most 604800 (7 days).
	ExpiresIn int64 `json:"expires_in,omitempty"`
	// Disposition is "inline" (the default) or "attachment".
	Disposition string `json:"disposition,omitempty"`
}

// Share is a share link: a copy of a file frozen when it was made, which
// anyone holding URL may GET until Expires.
type Share struct {
	ID          string `json:"id"`
	Workspace   string `json:"workspace"`
	Path        string `json:"path"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	ContentType string `json:"content_type"`
	Disposition string `json:"disposition"`
	// State is "active", "expired" or "revoked".
	State     string    `json:"state"`
	Created   time.Time `json:"created"`
	Expires   time.Time `json:"expires"`
	RevokedAt time.Time `json:"revoked_at,omitzero"`
	// Store is where the content is: "local" (served at /s/{token}) or
	// "s3" (URL is a presigned S3 URL).
	Store string `json:"store"`
	// URL is the link, in the answer that made the share only: the server
	// keeps only a digest of its token.
	URL string `json:"url,omitempty"`
}

// ShareList is a page of a workspace's shares, oldest first.
type ShareList struct {
	Shares []Share `json:"shares"`
	Next   string  `json:"next,omitempty"`
}

// CreateShare makes a share link to a file; the answer's URL is shown only
// now.
func (c *Client) CreateShare(ctx context.Context, ws string, req ShareRequest) (Share, error) {
	var s Share
	err := c.call(ctx, "POST", wsPath(ws, "/shares"), nil, req, &s)
	return s, err
}

// ListShares returns a page of a workspace's shares (ended ones included
// while the server keeps them).
func (c *Client) ListShares(ctx context.Context, ws, after string, limit int) (ShareList, error) {
	var l ShareList
	err := c.call(ctx, "GET", wsPath(ws, "/shares"), page(after, limit), nil, &l)
	return l, err
}

// RevokeShare ends a share at once.
func (c *Client) RevokeShare(ctx context.Context, ws, id string) error {
	return c.call(ctx, "DELETE", wsPath(ws, "/shares/"+url.PathEscape(id)), nil, nil, nil)
}
