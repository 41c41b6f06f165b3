package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/tools"
)

// Defaults for Options. A zero field takes its default.
const (
	DefaultMaxResourceBytes = 8 << 20 // resources/read answers files up to this size
	DefaultResourcePage     = 500     // resources/list page size
	ServerName              = "desk"
)

// Options configure a server. The zero value gives the documented defaults.
type Options struct {
	// Version is reported as the server's version. Default "dev".
	Version string
	// Approvals, if set, are the approvals the tools' executions wait in
	// (the run Gate's): a call held for approval asks a client that
	// declared the elicitation capability (elicitation/create), and its
	// answer decides as policy.Approval.MayDecide allows (elicit.go).
	Approvals *policy.Approvals
	// Instructions are sent to clients at initialisation. Default: a short
	// guide to the tools.
	Instructions string
	// MaxResourceBytes bounds the files resources/read returns (larger: an
	// error pointing at the read tool). Default 8 MiB.
	MaxResourceBytes int64
	// ResourcePage is how many files one resources/list page lists. Default 500.
	ResourcePage int
	// Authorize, if set, is asked before every tool call (with the tool and
	// its input) and resource read (tool "read", input nil); an error denies
	// it. The HTTP handler checks the token of each request this way.
	Authorize func(ctx context.Context, req sdk.Request, t tools.Tool, input json.RawMessage) error
	// CallContext, if set, derives the context a tool runs with from the
	// request's (the HTTP handler adds the token's backend restriction,
	// run.WithBackends, so exec's auto routing stays inside it).
	CallContext func(ctx context.Context, req sdk.Request) context.Context
	// Logger receives errors that are not the model's to see. Default: none.
	Logger *slog.Logger

	// track, if set, registers a running call's cancel function under its
	// session and the user that made it; the returned function unregisters
	// it. The HTTP handler cancels a session's calls when the session ends.
	track func(session, user string, cancel context.CancelFunc) (untrack func())
}

func (o *Options) setDefaults() error {
	if o.MaxResourceBytes < 0 || o.ResourcePage < 0 {
		return errors.New("new mcp server: negative option")
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Instructions == "" {
		o.Instructions = DefaultInstructions
	}
	if o.MaxResourceBytes == 0 {
		o.MaxResourceBytes = DefaultMaxResourceBytes
	}
	if o.ResourcePage == 0 {
		o.ResourcePage = DefaultResourcePage
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// DefaultInstructions tell a model what the server is.
const DefaultInstructions = `desk is a persistent computer: a workspace whose files persist between sessions. Files live under /workspace (relative paths start there). Use read, grep, find and ls to look, edit to change part of a file, write to create one, exec to run commands (shell for text and files, sandbox for npm, compilers and tests). Every execution is recorded.`

// NewServer returns an MCP server for ws: its tools as MCP tools (exec
// reports progress when the client asks for it, and a cancelled call kills
// the execution) and its files as resources (desk://WORKSPACE/PATH).
func NewServer(ctx context.Context, ws Workspace, opts Options) (*sdk.Server, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	defs, err := ws.Tools(ctx)
	if err != nil {
		return nil, fmt.Errorf("list tools: %w", err)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: ServerName, Title: "desk workspace " + ws.Name(), Version: opts.Version},
		&sdk.ServerOptions{Instructions: opts.Instructions, Logger: opts.Logger, Capabilities: &sdk.ServerCapabilities{}})
	for _, t := range defs {
		srv.AddTool(mcpTool(t), toolHandler(ws, t, &opts))
	}
	addResources(srv, ws, defs, &opts)
	return srv, nil
}

// mcpTool converts a tool definition.
func mcpTool(t tools.Tool) *sdk.Tool {
	destructive := t.Destructive
	closed := false
	return &sdk.Tool{
		Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
		Annotations: &sdk.ToolAnnotations{
			Title: t.Title, ReadOnlyHint: t.ReadOnly, DestructiveHint: &destructive,
			IdempotentHint: t.Idempotent, OpenWorldHint: &closed,
		},
	}
}

// toolHandler serves one tool.
func toolHandler(ws Workspace, t tools.Tool, opts *Options) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		input := req.Params.Arguments
		if opts.Authorize != nil {
			if err := opts.Authorize(ctx, req, t, input); err != nil {
				return errorResult(&tools.Error{Code: tools.CodeForbidden, Message: err.Error()}), nil
			}
		}
		if opts.CallContext != nil {
			ctx = opts.CallContext(ctx, req)
		}
		ctx = elicitContext(ctx, req, ws, opts)
		if opts.track != nil {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			user := ""
			if ti := req.Extra; ti != nil && ti.TokenInfo != nil {
				user = ti.TokenInfo.UserID
			}
			defer opts.track(req.Session.ID(), user, cancel)()
		}
		co := &tools.CallOptions{}
		if token := req.Params.GetProgressToken(); token != nil {
			co.Progress = func(p tools.Progress) {
				// Best effort: a client that went away does not fail the call.
				req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
					ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message,
				})
			}
		}
		res, err := ws.Call(ctx, t.Name, input, co)
		if err != nil {
			var te *tools.Error
			if errors.As(err, &te) {
				return errorResult(te), nil
			}
			opts.Logger.Error("tool call failed", "tool", t.Name, "err", err)
			return errorResult(&tools.Error{Code: tools.CodeUnavailable, Message: err.Error()}), nil
		}
		return callResult(res), nil
	}
}

// callResult converts a tool result.
func callResult(res *tools.Result) *sdk.CallToolResult {
	out := &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: res.Structured}
	for _, c := range res.Content {
		switch c.Type {
		case "image":
			out.Content = append(out.Content, &sdk.ImageContent{MIMEType: c.MIMEType, Data: c.Data})
		default:
			out.Content = append(out.Content, &sdk.TextContent{Text: c.Text})
		}
	}
	return out
}

// errorResult is a tool failure as the model sees it: "code: message".
func errorResult(e *tools.Error) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		IsError: true,
		Content: []sdk.Content{&sdk.TextContent{Text: e.Code + ": " + e.Message}},
	}
}
