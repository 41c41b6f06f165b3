package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/jsvm"
	"github.com/desk-dev/desk/internal/jsvm/deskgit"
	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/shell"
	"github.com/desk-dev/desk/internal/workspace"
)

// backendSet is the execution backends of a data directory opened by desk
// serve or desk mcp --data, and what the host's workspaces need for them.
type backendSet struct {
	backends map[string]deskrun.Backend
	run      deskrun.Options                                                                // the default backend and the auto Router
	attach   workspace.AttachFunc                                                           // stops a workspace's sandbox when it closes; nil without one
	close    func()                                                                         // stops the sandboxes; call it after the host is closed
	sandbox  *sandbox.Backend                                                               // nil without one
	admit    func(context.Context, *workspace.Workspace, deskrun.Admission) (func(), error) // fair shares; nil: none
	egress   *egressHost                                                                    // the executions' and shells' network; nil: none
}

// workspaceOptions is the host's workspace.Options for the backends.
func (bs *backendSet) workspaceOptions() workspace.Options {
	return workspace.Options{Backends: bs.backends, Run: bs.run, Attach: bs.attach, Admit: bs.admit}
}

// backendLimits bound the backends beyond their defaults (zero: the
// defaults): with fair shares, the shares do the bounding.
type backendLimits struct {
	jsConcurrent int       // jsvm.Options.MaxConcurrent
	maxSandboxes int       // sandbox.Options.MaxSandboxes
	slots        fair.Host // sandbox.Options.Slots: host-wide sandbox slots
	onJSStuck    func()    // jsvm.Options.OnStuck
}

// newBackends starts the backends of the data directory dataDir: shell (the
// default), js, and the sandbox when the host can run it (runtime is the
// --sandbox flag: an OCI runtime, or "off"); the log says why there is no
// sandbox otherwise. With the sandbox, --backend auto sends it what the shell
// lacks.
func newBackends(runtime, dataDir string, log *slog.Logger) (*backendSet, error) {
	return newBackendsAt(runtime, dataDir, nil, backendLimits{}, log)
}

// newBackendsAt is newBackends with the sandbox's state directory moved by
// sub (nil: sandboxDir itself).
func newBackendsAt(runtime, dataDir string, sub func(string) string, lim backendLimits, log *slog.Logger) (*backendSet, error) {
	backends := map[string]deskrun.Backend{
		"shell": shell.New(shell.Options{}),
	}
	js, err := jsvm.New(jsvm.Options{MaxConcurrent: lim.jsConcurrent, OnStuck: lim.onJSStuck, Logger: log, HostModules: deskgit.Modules()})
	if err != nil {
		return nil, fmt.Errorf("start the js backend: %w", err)
	}
	backends[jsvm.ID] = js
	bs := &backendSet{backends: backends, run: runOptions(backends), close: func() {}}
	sb, err := newSandbox(runtime, dataDir, sub, lim, log)
	if err != nil {
		log.Info("no sandbox backend", "why", err)
	} else {
		bs.sandbox = sb
		backends[sandbox.ID] = sb // also where --backend auto sends what the shell lacks
		bs.attach = stopSandboxOnClose(sb)
		bs.close = func() { closeSandbox(sb, log) }
	}
	return bs, nil
}

// runOptions makes the shell backend, when there is one, the default
// backend (desk exec without --backend) and its Route the Router of
// --backend auto.
func runOptions(backends map[string]deskrun.Backend) deskrun.Options {
	var o deskrun.Options
	if sh, ok := backends["shell"].(*shell.Backend); ok {
		o.DefaultBackend = "shell"
		o.Router = sh.Route
	}
	return o
}
