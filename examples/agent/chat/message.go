package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Roles of a Message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Block types.
const (
	BlockText       = "text"
	BlockToolUse    = "tool_use"
	BlockToolResult = "tool_result"
)

// Stop reasons of a Reply, in the Messages API's words (an OpenAI-compatible
// provider's finish_reason is mapped onto them).
const (
	StopEndTurn   = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
)

// Message is one turn of the conversation in a provider-neutral form: the
// person's (text and tool results) or the model's (text and tool calls).
type Message struct {
	Role   string
	Blocks []Block
}

// Block is one part of a message.
type Block struct {
	Type string
	// Text is a text block's text.
	Text string
	// ID, Name and Input are a tool call's (tool_use): the provider's call
	// id, the tool and its JSON input.
	ID    string
	Name  string
	Input json.RawMessage
	// ToolUseID, Content and IsError are a tool result's.
	ToolUseID string
	Content   []Content
	IsError   bool
}

// Content is one part of a tool result: text, or an image (MIMEType, Data).
type Content struct {
	Type     string // "text" or "image"
	Text     string
	MIMEType string
	Data     []byte
}

// ToolDef is a tool as a model is told of it: the desk server's own
// definition (GET /v1/workspaces/{ws}/tools).
type ToolDef struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Request is one call of the model: the conversation so far and the tools.
type Request struct {
	System    string
	Messages  []Message
	Tools     []ToolDef
	MaxTokens int
}

// Usage counts a reply's tokens, when the provider reports them.
type Usage struct {
	InputTokens, OutputTokens, CacheReadTokens int
}

// Reply is the model's answer: its blocks (text and tool calls, in order)
// and why it stopped.
type Reply struct {
	Blocks     []Block
	StopReason string
	Usage      Usage
}

// Provider is an LLM API that streams.
type Provider interface {
	// Name is the provider and model, for the banner ("anthropic claude-...").
	Name() string
	// ModelName is the model's name.
	ModelName() string
	// Stream sends req and returns the reply, calling onText with each piece
	// of the model's text as it arrives. Its errors that a retry may cure
	// (rate limits, overload, a broken stream) are *APIError with Retryable.
	Stream(ctx context.Context, req *Request, onText func(string)) (*Reply, error)
}

// APIError is an error answer of a provider: its HTTP status (0 for an error
// event inside a stream), its error type and message.
type APIError struct {
	Provider   string
	Status     int
	Type       string
	Message    string
	RetryAfter time.Duration // from the Retry-After header; 0 if none
	Retryable  bool
}

func (e *APIError) Error() string {
	s := e.Provider + " API"
	if e.Status != 0 {
		s += fmt.Sprintf(" %d", e.Status)
	}
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// retryableStatus reports whether an HTTP status is worth a retry: rate
// limited (429), overloaded (529), or a server or gateway failure.
func retryableStatus(code int) bool {
	switch code {
	case 408, 409, 429, 500, 502, 503, 504, 529:
		return true
	}
	return false
}

// retryableType reports whether an error type (Anthropic's error.type,
// OpenAI's error.type or error.code) says try again later.
func retryableType(t string) bool {
	switch t {
	case "overloaded_error", "rate_limit_error", "api_error", "timeout_error",
		"rate_limit_exceeded", "server_error", "requests", "tokens":
		return true
	}
	return false
}
