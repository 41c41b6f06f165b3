package api

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/share"
	"github.com/desk-dev/desk/internal/tools"
)

// wireTool converts a tool definition to the wire type.
func wireTool(t tools.Tool) client.Tool {
	return client.Tool{
		Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
		ReadOnly: t.ReadOnly, Destructive: t.Destructive, Idempotent: t.Idempotent, Scopes: t.Scopes,
	}
}

// wireToolResult converts a tool's result or error to the wire type.
func wireToolResult(res *tools.Result, err error) (client.ToolResult, error) {
	if err != nil {
		te := tools.AsError(err, "")
		return client.ToolResult{
			Content: []client.ToolContent{{Type: "text", Text: te.Code + ": " + te.Message}},
			IsError: true, Error: &client.ToolError{Code: te.Code, Message: te.Message},
		}, nil
	}
	out := client.ToolResult{Content: make([]client.ToolContent, 0, len(res.Content))}
	for _, c := range res.Content {
		out.Content = append(out.Content, client.ToolContent{Type: c.Type, Text: c.Text, MIMEType: c.MIMEType, Data: c.Data})
	}
	if res.Structured != nil {
		b, err := json.Marshal(res.Structured)
		if err != nil {
			return out, err
		}
		out.Structured = b
	}
	return out, nil
}

func (s *Server) toolSet(c *call) (*tools.Set, error) {
	return tools.New(c.lease.Tools(), c.lease.Workspace().Runtime(), s.toolOptions(c.ws))
}

// toolOptions are the tool sets' options for workspace ws: with the share
// store as publish's Publisher, when the server has one.
func (s *Server) toolOptions(ws string) tools.Options {
	o := s.opts.Tools
	if p := s.publisher(ws); p != nil {
		o.Publisher = p
	}
	return o
}

// publisher is workspace ws's Publisher (nil without a share store).
func (s *Server) publisher(ws string) tools.Publisher {
	if s.opts.Shares == nil {
		return nil
	}
	return share.Workspace{Store: s.opts.Shares, Name: ws}
}

func (s *Server) handleListTools(w http.ResponseWriter, r *http.Request, c *call) error {
	set, err := s.toolSet(c)
	if err != nil {
		return err
	}
	out := client.ToolList{Tools: []client.Tool{}}
	for _, t := range set.Tools() {
		if mcp.AllowTool(c.p, c.ws, t, nil) == nil {
			out.Tools = append(out.Tools, wireTool(t))
		}
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleCallTool runs a tool. A tool's failure is a 200 answer with
// is_error (it is the model's to read); errors are for calls that cannot be
// made. With Accept: application/x-ndjson the answer is streamed: progress
// lines, then the result line.
func (s *Server) handleCallTool(w http.ResponseWriter, r *http.Request, c *call) error {
	set, err := s.toolSet(c)
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	tool, ok := set.Lookup(name)
	if !ok {
		return errorf(http.StatusNotFound, CodeNotFound, "no tool %q here; the tools are %s", name, strings.Join(set.Names(), ", "))
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxToolBodyBytes)
	input, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	if err := s.checkDepth(input); err != nil {
		return err
	}
	c.auditArg("tool", name)
	c.auditArg("input", string(input))
	if err := mcp.AllowTool(c.p, c.ws, tool, json.RawMessage(input)); err != nil {
		return err
	}
	ctx, stop := s.longCtx(r)
	defer stop()
	stream := strings.Contains(r.Header.Get("Accept"), "application/x-ndjson")
	co := &tools.CallOptions{}
	var enc *json.Encoder
	var flush func()
	if stream {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		enc = json.NewEncoder(w)
		rc := http.NewResponseController(w)
		flush = func() { rc.Flush() }
		flush()
		var mu sync.Mutex // progress (the call's goroutine) and a hold's report
		line := func(p *client.ToolProgress) {
			mu.Lock()
			defer mu.Unlock()
			enc.Encode(client.ToolStreamLine{Progress: p})
			flush()
		}
		co.Progress = func(p tools.Progress) {
			line(&client.ToolProgress{Progress: p.Progress, Total: p.Total, Message: p.Message})
		}
		if r.Header.Get(client.HeaderHeld) == "1" {
			// A hold is reported as a progress line with its approval
			// (desk serve's front elicits it: mcp.RemoteWorkspace).
			ctx = policy.WithOnHeld(ctx, func(a policy.Approval) {
				wa := wireApproval(a)
				line(&client.ToolProgress{Message: "held for approval " + a.ID + " (rule " + a.Decision.Rule + ")", Approval: &wa})
			})
		}
	}
	if s.opts.Audit != nil {
		ctx = run.WithStarted(ctx, c.started.Add) // recorded at their ends (record)
	}
	res, callErr := set.Call(mcp.WithTokenBackends(ctx, c.p), name, json.RawMessage(input), co)
	if errors.Is(callErr, run.ErrQuota) && !stream {
		return callErr // the exec tool past the workspace's quota: 429 too_many, as the exec route
	}
	var te *tools.Error
	if errors.As(callErr, &te) && te.Code == tools.CodeInternal {
		s.opts.Logger.Error("tool failed", "tool", name, "workspace", c.ws, "err", te.Unwrap())
	}
	out, err := wireToolResult(res, callErr)
	if err != nil {
		return err
	}
	if stream {
		enc.Encode(client.ToolStreamLine{Result: &out})
		flush()
		return nil
	}
	return writeJSON(w, http.StatusOK, out)
}
