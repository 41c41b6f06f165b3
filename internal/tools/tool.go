package tools

import (
	"encoding/json"
	"slices"
)

// Scopes a tool needs, named as the API's token scopes.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
	ScopeExec  = "exec"
)

// Tool is the definition of one tool: what a model is shown and what an
// adapter needs to serve it.
type Tool struct {
	// Name is the tool's name ("read", "edit", ...).
	Name string `json:"name"`
	// Title is a short human-readable name.
	Title string `json:"title"`
	// Description tells a model what the tool does, when to prefer it and
	// its limits.
	Description string `json:"description"`
	// InputSchema and OutputSchema are JSON Schemas (draft 2020-12) of the
	// input object and of the structured output.
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema"`
	// ReadOnly: the tool never changes the workspace. Destructive: it may
	// delete or overwrite data. Idempotent: repeating a call has no further
	// effect. (MCP tool annotations.)
	ReadOnly    bool `json:"read_only"`
	Destructive bool `json:"destructive"`
	Idempotent  bool `json:"idempotent"`
	// Scopes are the token scopes a caller needs, all of them.
	Scopes []string `json:"scopes"`
}

// Allowed reports whether a caller holding the scopes has (a func
// answering for one scope) may use the tool.
func (t Tool) Allowed(has func(scope string) bool) bool {
	for _, s := range t.Scopes {
		if !has(s) {
			return false
		}
	}
	return true
}

// ReadOnlyTools returns the names of the tools that never change anything:
// the set a read-only token gets. Each call returns a new slice.
func ReadOnlyTools() []string { return []string{"read", "ls", "find", "grep"} }

// IsReadOnly reports whether name is one of ReadOnlyTools.
func IsReadOnly(name string) bool { return slices.Contains(ReadOnlyTools(), name) }

// Content is one part of a result shown to a model: text, or an image.
type Content struct {
	// Type is "text" or "image".
	Type string `json:"type"`
	// Text is the text of a text part.
	Text string `json:"text,omitempty"`
	// MIMEType and Data are an image's type and bytes (base64 in JSON).
	MIMEType string `json:"mime_type,omitempty"`
	Data     []byte `json:"data,omitempty"`
}

// TextContent returns a text part.
func TextContent(s string) Content { return Content{Type: "text", Text: s} }

// Result is what a successful call returns: content for the model and the
// structured output (matching the tool's OutputSchema).
type Result struct {
	Content    []Content `json:"content"`
	Structured any       `json:"structured,omitempty"`
}

// Text returns the text parts of the result, joined.
func (r *Result) Text() string {
	var s string
	for _, c := range r.Content {
		if c.Type == "text" {
			s += c.Text
		}
	}
	return s
}

// Progress is a progress report of a long call (exec): a count that grows
// and a short message (the latest output line).
type Progress struct {
	Progress float64
	Total    float64 // 0: unknown
	Message  string
}

// CallOptions are per-call settings of Set.Call.
type CallOptions struct {
	// Progress, if set, receives progress reports while the call runs (exec
	// output as it arrives). It is called from the calling goroutine.
	Progress func(Progress)
}
