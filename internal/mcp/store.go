package mcp

import (
	"context"
	"encoding/json"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/tools"
	"github.com/desk-dev/desk/internal/vfs"
)

// StoreWorkspace serves a store (and runtime) the caller holds open: for a
// Go program embedding desk, and for tests.
type StoreWorkspace struct {
	WorkspaceName string
	FS            *vfs.FS
	Runtime       *run.Runtime // nil: no exec
	Options       tools.Options
}

var _ Workspace = (*StoreWorkspace)(nil)

// Name returns WorkspaceName.
func (w *StoreWorkspace) Name() string { return w.WorkspaceName }

// Tools returns the set's tools.
func (w *StoreWorkspace) Tools(ctx context.Context) ([]tools.Tool, error) {
	s, err := tools.New(w.FS, w.Runtime, w.Options)
	if err != nil {
		return nil, err
	}
	return s.Tools(), nil
}

// Call runs a tool.
func (w *StoreWorkspace) Call(ctx context.Context, name string, input json.RawMessage, co *tools.CallOptions) (*tools.Result, error) {
	s, err := tools.New(w.FS, w.Runtime, w.Options)
	if err != nil {
		return nil, err
	}
	return s.Call(ctx, name, input, co)
}

// ReadFile reads a file of the store.
func (w *StoreWorkspace) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	return readFile(ctx, w.FS, path, max)
}
