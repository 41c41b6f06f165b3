package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/tools"
)

// RemoteWorkspace is a workspace of a running desk serve, reached through
// its HTTP API (GET /v1/workspaces/{ws}/tools, POST .../tools/{name}, file
// reads): what `desk mcp` serves over stdio when a server is running. The
// server enforces the token's scopes; exec progress is streamed (NDJSON) and
// a cancelled call closes the request, which kills the execution.
type RemoteWorkspace struct {
	Client        *client.Client
	WorkspaceName string
}

var _ Workspace = (*RemoteWorkspace)(nil)

// Name returns WorkspaceName.
func (w *RemoteWorkspace) Name() string { return w.WorkspaceName }

// Tools lists the tools the token may use.
func (w *RemoteWorkspace) Tools(ctx context.Context) ([]tools.Tool, error) {
	list, err := w.Client.Tools(ctx, w.WorkspaceName)
	if err != nil {
		return nil, err
	}
	out := make([]tools.Tool, len(list))
	for i, t := range list {
		out[i] = tools.Tool{
			Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			ReadOnly: t.ReadOnly, Destructive: t.Destructive, Idempotent: t.Idempotent, Scopes: t.Scopes,
		}
	}
	return out, nil
}

// Call calls a tool on the server. When ctx has a policy.OnHeldFrom (the
// session's client elicits), the call is streamed with client.HeaderHeld
// and each approval the server reports it held in goes to that function.
func (w *RemoteWorkspace) Call(ctx context.Context, name string, input json.RawMessage, co *tools.CallOptions) (*tools.Result, error) {
	var progress func(client.ToolProgress)
	if co != nil && co.Progress != nil {
		progress = func(p client.ToolProgress) {
			co.Progress(tools.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
		}
	}
	if held := policy.OnHeldFrom(ctx); held != nil {
		ctx = client.WithHeader(ctx, http.Header{client.HeaderHeld: {"1"}})
		report := progress
		progress = func(p client.ToolProgress) {
			if p.Approval != nil {
				held(heldApproval(*p.Approval))
				return
			}
			if report != nil {
				report(p)
			}
		}
	}
	res, err := w.Client.CallTool(ctx, w.WorkspaceName, name, input, progress)
	if err != nil && ctx.Err() != nil {
		return nil, &tools.Error{Code: tools.CodeCancelled, Message: "the call was cancelled"}
	}
	if err != nil {
		if code := client.ErrorCode(err); code == "forbidden" || code == "not_found" {
			return nil, &tools.Error{Code: code, Message: err.Error()}
		}
		return nil, err
	}
	if res.IsError {
		e := &tools.Error{Code: tools.CodeInternal, Message: "the tool failed"}
		if res.Error != nil {
			e.Code, e.Message = res.Error.Code, res.Error.Message
		}
		return nil, e
	}
	out := &tools.Result{}
	if len(res.Structured) > 0 {
		out.Structured = res.Structured
	}
	for _, c := range res.Content {
		out.Content = append(out.Content, tools.Content{Type: c.Type, Text: c.Text, MIMEType: c.MIMEType, Data: c.Data})
	}
	return out, nil
}

// ReadFile reads a file through the API.
func (w *RemoteWorkspace) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	fi, err := w.Client.Stat(ctx, w.WorkspaceName, path)
	if err != nil {
		if client.ErrorCode(err) == "ENOENT" {
			return nil, &tools.Error{Code: tools.CodeNotFound, Message: path + " does not exist"}
		}
		return nil, err
	}
	if fi.Type != "file" {
		return nil, &tools.Error{Code: tools.CodeIsDirectory, Message: path + " is not a regular file"}
	}
	if fi.Size > max {
		return nil, &tools.Error{Code: tools.CodeTooLarge, Message: fmt.Sprintf("%s is %d bytes, over the %d-byte cap for resources: use the read tool, which pages", path, fi.Size, max)}
	}
	return w.Client.ReadFile(ctx, w.WorkspaceName, path)
}

// DecideElicited passes the session's client's answer about a to the
// server holding the call (client.AnswerElicitation with HeaderElicited),
// as the principal the workspace's client carries: the server applies
// policy.Approval.MayDecide.
func (w *RemoteWorkspace) DecideElicited(ctx context.Context, a policy.Approval, approve bool) error {
	ctx = client.WithHeader(ctx, http.Header{HeaderElicited: {"1"}})
	_, err := w.Client.AnswerElicitation(ctx, w.WorkspaceName, a.ID, approve)
	return err
}

// heldApproval is the policy.Approval of a server's report (the fields an
// elicitation shows and decides by).
func heldApproval(a client.Approval) policy.Approval {
	d := a.Decision
	return policy.Approval{ID: a.ID, Workspace: a.Workspace, Kind: a.Kind, Backend: a.Backend, Subject: a.Subject,
		Decision:  policy.Decision{Kind: d.Kind, Action: d.Action, Outcome: d.Outcome, Rule: d.Rule, Source: d.Source, Subject: d.Subject},
		Requester: a.Requester, Created: a.Created, Expires: a.Expires, Status: a.Status}
}
