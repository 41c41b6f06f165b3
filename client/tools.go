package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// Tool is the definition of an agent tool (docs/mcp.md): its name, a
// description for a model, JSON Schemas of its input and structured output,
// hints, and the token scopes a caller needs.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema"`
	ReadOnly     bool            `json:"read_only"`
	Destructive  bool            `json:"destructive"`
	Idempotent   bool            `json:"idempotent"`
	Scopes       []string        `json:"scopes"`
}

// ToolList is the answer of GET /v1/workspaces/{ws}/tools.
type ToolList struct {
	Tools []Tool `json:"tools"`
}

// ToolContent is one part of a tool result for a model: "text", or an
// "image" with its MIME type and bytes (base64 in JSON).
type ToolContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mime_type,omitempty"`
	Data     []byte `json:"data,omitempty"`
}

// ToolError is a tool's failure: a stable code ("not_found", "no_match",
// "conflict", ...) and a message written for a model.
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ToolResult is the answer of POST /v1/workspaces/{ws}/tools/{name}. A tool
// that failed (IsError) is still a 200 answer: Error says why, and Content
// holds the same message for the model.
type ToolResult struct {
	Content    []ToolContent   `json:"content"`
	Structured json.RawMessage `json:"structured,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
	Error      *ToolError      `json:"error,omitempty"`
}

// ToolProgress is a progress report of a running tool call (exec output).
type ToolProgress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
	// Approval, on a call made with the HeaderHeld header, is the
	// approval the call now waits in (pending_approval): the line a
	// server's MCP front turns into an elicitation.
	Approval *Approval `json:"approval,omitempty"`
}

// HeaderHeld, "1" on a streamed tool call, asks the server for a progress
// line with the Approval when the call is held for approval.
const HeaderHeld = "X-Desk-Report-Held"

// ElicitAnswer is the answer of an MCP client to an elicitation about a
// held call (POST …/approvals/{id}/elicited: desk serve's front to the
// workspace's worker only).
type ElicitAnswer struct {
	Approve bool `json:"approve"`
}

// ToolStreamLine is one line of a streamed tool call (Accept:
// application/x-ndjson): progress reports, then the result.
type ToolStreamLine struct {
	Progress *ToolProgress `json:"progress,omitempty"`
	Result   *ToolResult   `json:"result,omitempty"`
	Error    *ToolError    `json:"error,omitempty"`
}

// Tools lists the tools the token may use in workspace ws.
func (c *Client) Tools(ctx context.Context, ws string) ([]Tool, error) {
	var out ToolList
	if err := c.call(ctx, "GET", wsPath(ws, "/tools"), nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Tools, nil
}

// CallTool calls the tool name in workspace ws with its JSON input. A tool
// failure is a result with IsError, not an error; errors are for calls that
// could not be made (unknown workspace or tool, token, network). With
// progress set, the call is streamed and progress receives each report.
// Cancelling ctx cancels the call (an exec is killed).
func (c *Client) CallTool(ctx context.Context, ws, name string, input json.RawMessage, progress func(ToolProgress)) (*ToolResult, error) {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	path := wsPath(ws, "/tools/", url.PathEscape(name))
	r := request{method: "POST", path: path, body: bytes.NewReader(input), ctype: "application/json"}
	if progress != nil {
		r.header = http.Header{"Accept": {"application/x-ndjson"}}
	}
	resp, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if progress == nil {
		var out ToolResult
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			return nil, fmt.Errorf("decode tool result: %w", err)
		}
		return &out, nil
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var l ToolStreamLine
			if jerr := json.Unmarshal(line, &l); jerr != nil {
				return nil, fmt.Errorf("decode tool stream: %w", jerr)
			}
			switch {
			case l.Result != nil:
				return l.Result, nil
			case l.Error != nil:
				return nil, &Error{Status: http.StatusOK, Code: l.Error.Code, Message: l.Error.Message}
			case l.Progress != nil:
				progress(*l.Progress)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("read tool stream: %w", err)
		}
	}
}
