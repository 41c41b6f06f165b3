package sandboxports

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/sandbox/wire"
	"github.com/desk-dev/desk/internal/workspace"
)

// Dialer reaches the ports of the workspaces' sandboxes of one backend.
type Dialer struct{ b *sandbox.Backend }

var _ api.PortDialer = Dialer{}

// New is the Dialer of the sandboxes of b.
func New(b *sandbox.Backend) Dialer { return Dialer{b} }

// DialPort connects to the port through the sandbox's init. With no
// sandbox running, or nothing listening, the error wraps
// api.ErrPortUnavailable.
func (d Dialer) DialPort(ctx context.Context, ws *workspace.Workspace, port int) (net.Conn, error) {
	c, err := d.b.DialPort(ctx, ws.FS(), port)
	if errors.Is(err, sandbox.ErrNotRunning) || errors.Is(err, wire.ErrForwardRefused) {
		// the API says "port N: " before it
		return nil, fmt.Errorf("%w: %w", api.ErrPortUnavailable, err)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Ports lists the sandbox's listening ports (none without a sandbox).
func (d Dialer) Ports(ctx context.Context, ws *workspace.Workspace) ([]client.Port, error) {
	ps, err := d.b.Ports(ctx, ws.FS())
	if errors.Is(err, sandbox.ErrNotRunning) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]client.Port, 0, len(ps))
	for _, x := range ps {
		out = append(out, client.Port{Port: x.Port, Addr: x.Addr, PID: x.PID, Command: x.Command, Execution: x.Execution})
	}
	return out, nil
}
