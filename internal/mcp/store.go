package mcp

import (
	"context"
	"encoding/json"
	"sync"

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

	once  sync.Once
	state *tools.State // the tools' shared state of FS, made on first use
}

var _ Workspace = (*StoreWorkspace)(nil)

// Name returns WorkspaceName.
func (w *StoreWorkspace) Name() string { return w.WorkspaceName }

// set returns a tool set over FS and Runtime; every set of w shares one
// tools.State (per-path locks, remembered read offsets).
func (w *StoreWorkspace) set() (*tools.Set, error) {
	w.once.Do(func() { w.state = tools.NewState(w.FS) })
	return tools.New(w.state, w.Runtime, w.Options)
}

// Tools returns the set's tools.
func (w *StoreWorkspace) Tools(ctx context.Context) ([]tools.Tool, error) {
	s, err := w.set()
	if err != nil {
		return nil, err
	}
	return s.Tools(), nil
}

// Call runs a tool.
func (w *StoreWorkspace) Call(ctx context.Context, name string, input json.RawMessage, co *tools.CallOptions) (*tools.Result, error) {
	s, err := w.set()
	if err != nil {
		return nil, err
	}
	return s.Call(ctx, name, input, co)
}

// ReadFile reads a file of the store.
func (w *StoreWorkspace) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	return readFile(ctx, w.FS, path, max)
}
