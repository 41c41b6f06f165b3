package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/share"
	"github.com/desk-dev/desk/internal/vfs"
)

// Publisher makes the publish tool's links: the workspace's share store
// (share.Workspace). A Set without one does not offer publish.
type Publisher interface {
	Publish(ctx context.Context, fsys *vfs.FS, path string, ttl time.Duration, disposition string) (share.Created, error)
}

// PublishInput is the input of publish.
type PublishInput struct {
	Path string `json:"path"`
	// ExpiresIn is the link's life in seconds (0: 3600; at most 604800).
	ExpiresIn int64 `json:"expires_in,omitempty"`
	// Disposition is "inline" (the default) or "attachment".
	Disposition string `json:"disposition,omitempty"`
}

// PublishOutput is the output of publish.
type PublishOutput struct {
	URL         string    `json:"url"`
	ID          string    `json:"id"`
	Path        string    `json:"path"`
	Size        int64     `json:"size"`
	ContentType string    `json:"content_type"`
	Disposition string    `json:"disposition"`
	ExpiresAt   time.Time `json:"expires_at"`
}

func (o *PublishOutput) content() []Content {
	return []Content{TextContent(fmt.Sprintf("%s\n(%s, %s, %s; the link works until %s for anyone who has it; it serves the file as it is now, later edits do not change it; share id %s)",
		o.URL, o.Path, plural(o.Size, "byte"), o.ContentType, o.ExpiresAt.UTC().Format(time.RFC3339), o.ID))}
}

var publishSpec = &spec{
	Tool: Tool{
		Name:        "publish",
		Title:       "Publish a file as a link",
		Description: `Make a link (a URL) to a file of the workspace that anyone holding it can open in a browser or download, without credentials, until it expires: the way to hand a person a result (an image, a PDF, a report, an archive). The link serves a copy frozen now: later edits, renames or deletion of the file do not change what it serves. It expires after expires_in seconds (default 3600, at most 604800 = 7 days); the workspace's owner can list and revoke links (desk share ls, desk share rm). Files up to 1073741824 bytes. Give the URL to the person exactly as returned. The content type comes from the name's extension, else from the content.`,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "The file to publish. Relative paths are taken from /workspace."},
    "expires_in": {"type": "integer", "minimum": 1, "maximum": 604800, "description": "Seconds until the link stops working. Default 3600 (1 hour); at most 604800 (7 days)."},
    "disposition": {"type": "string", "enum": ["inline", "attachment"], "description": "inline (default): a browser shows the file when it can; attachment: it downloads it under its name."}
  },
  "required": ["path"],
  "additionalProperties": false
}`),
		OutputSchema: schema(`{
  "type": "object",
  "properties": {
    "url": {"type": "string", "description": "The link."},
    "id": {"type": "string", "description": "The share's id, to revoke it."},
    "path": {"type": "string"},
    "size": {"type": "integer"},
    "content_type": {"type": "string"},
    "disposition": {"type": "string", "enum": ["inline", "attachment"]},
    "expires_at": {"type": "string", "format": "date-time"}
  },
  "required": ["url", "id", "path", "size", "content_type", "disposition", "expires_at"]
}`),
		Scopes: []string{ScopeWrite},
	},
	limits: func(o Options) []string {
		return []string{"Files up to 1073741824 bytes", "Files up to " + strconv.FormatInt(o.MaxPublishBytes, 10) + " bytes"}
	},
	call: typed((*Set).publish),
}

// Publish makes a link to a file: see the publish tool's description.
func (s *Set) Publish(ctx context.Context, in PublishInput) (*PublishOutput, error) {
	return goCall(s, ctx, in, in.Path, (*Set).publish)
}

func (s *Set) publish(ctx context.Context, in PublishInput, _ *CallOptions) (*PublishOutput, error) {
	if s.opts.Publisher == nil {
		return nil, errorf(CodeUnavailable, "publish is not available: this server keeps no share links")
	}
	p, err := s.resolve("publish", in.Path, false)
	if err != nil {
		return nil, err
	}
	if in.ExpiresIn < 0 || in.ExpiresIn > int64(share.MaxTTL/time.Second) {
		return nil, errorf(CodeInvalid, "expires_in %d: want seconds from 1 to %d (7 days), or leave it out for 3600", in.ExpiresIn, int64(share.MaxTTL/time.Second))
	}
	unlock := s.lockPath(ctx, p, false) // not during a tool's write of the same file
	defer unlock()
	cr, err := s.opts.Publisher.Publish(ctx, s.fs, p, time.Duration(in.ExpiresIn)*time.Second, in.Disposition)
	switch {
	case errors.Is(err, share.ErrTooLarge):
		return nil, errorf(CodeTooLarge, "%s is too large to publish: %v", quote.Path(p), err)
	case errors.Is(err, share.ErrTooMany):
		return nil, errorf(CodeTooLarge, "%v (the workspace's owner can revoke links: desk share rm)", err)
	case errors.Is(err, share.ErrInvalid):
		return nil, errorf(CodeInvalid, "%v", err)
	case err != nil:
		return nil, AsError(err, p)
	}
	return &PublishOutput{
		URL: cr.URL, ID: cr.ID, Path: quote.Path(cr.Path), Size: cr.Size, ContentType: cr.ContentType,
		Disposition: cr.Disposition, ExpiresAt: cr.Expires.UTC(),
	}, nil
}
