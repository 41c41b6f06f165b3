package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/tools"
)

// Workspace is what a server serves: the tools and the files of one
// workspace. HostWorkspace serves one from a host in this process;
// RemoteWorkspace one of a running desk serve, through its HTTP API.
type Workspace interface {
	// Name is the workspace's name (the host part of resource URIs).
	Name() string
	// Tools returns the tools offered, in order.
	Tools(ctx context.Context) ([]tools.Tool, error)
	// Call runs a tool. Its error is a *tools.Error for a tool failure (the
	// model sees it); any other error fails the request.
	Call(ctx context.Context, name string, input json.RawMessage, co *tools.CallOptions) (*tools.Result, error)
	// ReadFile returns a file's content, the path in the shown form
	// (quote.Path: what the tools list); a file over max bytes is a
	// *tools.Error with code too_large.
	ReadFile(ctx context.Context, path string, max int64) ([]byte, error)
}

// HostWorkspace is a workspace of a host in this process. Every call leases
// the workspace for its duration (an exec holds it until the execution
// ends), so an idle workspace still hibernates between calls.
type HostWorkspace struct {
	Host      *host.Host
	Workspace string
	// Options configure the tool sets (Options.ReadOnly: read-only tools).
	Options tools.Options
	// Allow, if set, decides which tools are offered and may be called
	// (by the caller's token scopes, say).
	Allow func(tools.Tool) bool
	// Context, if set, derives the context of every call and read from
	// the caller's: the path and command rules in force (package policy).
	Context func(ctx context.Context) (context.Context, error)
}

var _ Workspace = (*HostWorkspace)(nil)

// Name returns the workspace's name.
func (w *HostWorkspace) Name() string { return w.Workspace }

func (w *HostWorkspace) ctx(ctx context.Context) (context.Context, error) {
	if w.Context == nil {
		return ctx, nil
	}
	return w.Context(ctx)
}

func (w *HostWorkspace) set(ctx context.Context) (*tools.Set, func(), error) {
	l, err := w.Host.Acquire(ctx, w.Workspace)
	if err != nil {
		return nil, nil, fmt.Errorf("open workspace %s: %w", w.Workspace, err)
	}
	s, err := tools.New(l.Tools(), l.Workspace().Runtime(), w.Options)
	if err != nil {
		l.Release()
		return nil, nil, err
	}
	return s, l.Release, nil
}

// Tools returns the tools of the workspace's set that Allow lets through.
func (w *HostWorkspace) Tools(ctx context.Context) ([]tools.Tool, error) {
	s, release, err := w.set(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	all := s.Tools()
	if w.Allow == nil {
		return all, nil
	}
	return slices.DeleteFunc(all, func(t tools.Tool) bool { return !w.Allow(t) }), nil
}

// Call runs a tool on the workspace.
func (w *HostWorkspace) Call(ctx context.Context, name string, input json.RawMessage, co *tools.CallOptions) (*tools.Result, error) {
	ctx, err := w.ctx(ctx)
	if err != nil {
		return nil, err
	}
	s, release, err := w.set(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if w.Allow != nil {
		if t, ok := s.Lookup(name); ok && !w.Allow(t) {
			return nil, &tools.Error{Code: tools.CodeForbidden, Message: fmt.Sprintf("%s is not allowed for this token (it needs the scopes %v)", name, t.Scopes)}
		}
	}
	return s.Call(ctx, name, input, co)
}

// ReadFile reads a file of the workspace.
func (w *HostWorkspace) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	ctx, err := w.ctx(ctx)
	if err != nil {
		return nil, err
	}
	l, err := w.Host.Acquire(ctx, w.Workspace)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", w.Workspace, err)
	}
	defer l.Release()
	return readFile(ctx, l.Workspace().FS(), path, max)
}
