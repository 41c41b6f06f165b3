package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/quota"
	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

var mcpSpec = &cmdSpec{
	name:     "mcp",
	synopsis: "--workspace NAME [--data DIR [--create] [--sandbox RUNTIME|off]] [--url URL] [--token TOKEN]",
	summary:  "serve a workspace over MCP on standard input and output, for Claude Code, Cursor or any MCP client",
	help: `The workspace's tools (read, write, edit, ls, find, grep, delete, exec) become MCP
tools and its files MCP resources (desk://NAME/PATH). Standard input and output
carry the protocol (newline-delimited JSON-RPC); logs go to standard error.

Without --data, desk mcp is a client of a running desk serve, found as the
other commands find it (--url/--token, $DESK_URL/$DESK_TOKEN, or the config
file desk serve writes): the token's scopes decide the tools offered (a
read-only token gets read, ls, find and grep). With --data DIR it opens the
data directory itself, which must not be in use by a desk serve, with the
backends desk serve would offer: shell, js, and the sandbox when the host can
run it (--log-level info says why not otherwise; --sandbox as for desk serve),
with --backend auto; --create creates the workspace first if it is missing.
The workspace's rules and execution quotas hold (the quota flags as for desk
serve, the workspace's own limits over them), and every request and execution
is recorded in the data directory's audit journal (actor local).

A cancelled tool call kills its execution; exec reports its output as
progress notifications when the client asks for them. See docs/mcp.md for
the client configuration (Claude Code, generic MCP clients).`,
	minArgs: 0, maxArgs: 0,
}

// workspaceFlags select the workspace of desk mcp and desk tools replay:
// on a server, or in a data directory opened directly.
type workspaceFlags struct {
	sf      *serverFlags
	ws      *string
	data    *string
	create  *bool
	sandbox *string
	quota   quotaFlags
}

func addWorkspaceFlags(fl *flag.FlagSet, sf *serverFlags) *workspaceFlags {
	wf := &workspaceFlags{sf: sf}
	wf.ws = fl.String("workspace", "", "the workspace `NAME`")
	fl.StringVar(wf.ws, "w", "", "short for --workspace")
	wf.data = fl.String("data", "", "open this data directory `DIR` directly instead of going through a server")
	wf.create = fl.Bool("create", false, "with --data: create the workspace if it does not exist")
	wf.sandbox = fl.String("sandbox", "runc", "with --data: the OCI runtime of the sandbox backend (a name in PATH or a path; off: no sandbox backend)")
	wf.quota = addQuotaFlags(fl) // with --data, as desk serve's
	return wf
}

// openedWorkspace is the workspace workspaceFlags.open selected.
type openedWorkspace struct {
	mcp.Workspace
	// audit, with --data, records an MCP session's requests and the
	// executions its tool calls start in the data directory's audit
	// journal (mcp.AuditMiddleware); nil through a server, which records
	// them itself.
	audit sdk.Middleware
}

// open returns the selected workspace and a function that closes what was
// opened for it.
func (wf *workspaceFlags) open(ctx context.Context, log *slog.Logger) (*openedWorkspace, func(), error) {
	if *wf.ws == "" {
		return nil, nil, usagef("--workspace NAME is required")
	}
	if err := wf.quota.check(); err != nil {
		return nil, nil, err
	}
	if *wf.data == "" {
		if *wf.create {
			return nil, nil, usagef("--create needs --data (on a server: desk ws create)")
		}
		c, srv, err := wf.sf.client()
		if err != nil {
			return nil, nil, err
		}
		if _, err := c.Tools(ctx, *wf.ws); err != nil {
			return nil, nil, reachable(err, srv)
		}
		return &openedWorkspace{Workspace: &mcp.RemoteWorkspace{Client: c, WorkspaceName: *wf.ws}}, func() {}, nil
	}
	bs, err := newBackends(*wf.sandbox, *wf.data, log)
	if err != nil {
		return nil, nil, err
	}
	// The workspace's stored egress policy and secrets hold here too (with
	// no policy of its own: none, desk serve's default).
	newEgressHost(defaultEgress(), *wf.data, log).setRun(bs)
	// So do its path and command rules (no token: the workspace's alone;
	// an execution that must ask is refused, nobody here can approve).
	rules := policy.OpenStore(*wf.data)
	bs.run.Gate = deskrun.PolicyGate(deskrun.PolicyConfig{Store: rules})
	h, err := host.Open(ctx, host.Options{
		DataDir:   *wf.data,
		Workspace: wf.quota.workspace(bs.workspaceOptions()),
		Logger:    log,
		StoreLimits: func(ws string) (int64, int64, error) {
			l, err := rules.Limits(ws)
			return l.MaxBytes, l.MaxInodes, err
		},
	})
	if errors.Is(err, host.ErrLocked) {
		bs.close()
		return nil, nil, fmt.Errorf("%w: a desk serve is using it; drop --data to go through the server", err)
	}
	if err != nil {
		bs.close()
		return nil, nil, err
	}
	// The audit journal of the data directory (kept forever from here:
	// pruning is desk serve's, by its --audit-retention) and the
	// workspace's execution quotas, the day's CPU read back from it.
	journal, err := openAudit(*wf.data, 0)
	if err != nil {
		h.Close()
		bs.close()
		return nil, nil, err
	}
	closeAll := func() { h.Close(); bs.close(); journal.Close() } // the sandboxes stop after the workspaces
	quotas := quota.New(quota.Options{Limits: rules.Limits, Journal: journal, Command: "desk mcp",
		MaxExecsPerMinute: *wf.quota.execs, MaxCPUPerDay: *wf.quota.cpuDay, MaxCPUPerExecution: *wf.quota.cpuExec})
	if *wf.create {
		if _, err := h.Create(ctx, *wf.ws, host.CreateOptions{}); err != nil && !errors.Is(err, host.ErrExists) {
			closeAll()
			return nil, nil, err
		}
	} else if _, err := h.Info(ctx, *wf.ws); err != nil {
		closeAll()
		if errors.Is(err, host.ErrNotFound) {
			return nil, nil, fmt.Errorf("%w: %s in %s (pass --create to create it)", err, *wf.ws, *wf.data)
		}
		return nil, nil, err
	}
	ws := *wf.ws
	hw := &mcp.HostWorkspace{Host: h, Workspace: ws, Context: func(ctx context.Context) (context.Context, error) {
		ctx = deskrun.WithQuota(ctx, quotas.For(ws))
		set, err := deskrun.LayersFor(ctx, rules, ws)
		if err != nil || !set.HasPathRules() {
			return ctx, err
		}
		return vfs.WithAccess(policy.WithSet(ctx, set), set.Checker()), nil
	}}
	return &openedWorkspace{Workspace: hw, audit: mcp.AuditMiddleware(journal, ws, h, log)}, closeAll, nil
}

func runMCP(ctx context.Context, args []string, st streams) int {
	sp := mcpSpec
	fl := sp.flags()
	wf := addWorkspaceFlags(fl, addServerFlags(fl))
	logLevel := fl.String("log-level", "warn", "the least important log lines to print on standard error: debug, info, warn, error")
	if _, code, ok := sp.parse(fl, args, st); !ok {
		return code
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return sp.usageError(st, fl, usagef("--log-level %q: want debug, info, warn or error", *logLevel))
	}
	log := slog.New(slog.NewTextHandler(st.err, &slog.HandlerOptions{Level: level}))
	ws, closeWS, err := wf.open(ctx, log)
	if err != nil {
		return sp.fail(st, err)
	}
	defer closeWS()
	srv, err := mcp.NewServer(ctx, ws.Workspace, mcp.Options{Logger: log})
	if err != nil {
		return sp.fail(st, err)
	}
	if ws.audit != nil {
		srv.AddReceivingMiddleware(ws.audit)
	}
	// When the client closes our standard input, calls still running are
	// cancelled (their executions killed) rather than awaited.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := eofReader{r: st.in, eof: cancel}
	err = srv.Run(runCtx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{st.out}})
	if err != nil && runCtx.Err() == nil && !errors.Is(err, io.EOF) {
		return sp.fail(st, err)
	}
	return exitOK
}

// eofReader calls eof when its reader ends.
type eofReader struct {
	r   io.Reader
	eof func()
}

func (e eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.eof()
	}
	return n, err
}

// nopWriteCloser is a Writer with a Close that does nothing.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
