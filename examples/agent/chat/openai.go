package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"
)

// OpenAI is an OpenAI-compatible Chat Completions API (POST
// {BaseURL}/chat/completions with "stream": true): OpenAI itself, or any
// server speaking its wire format (vLLM, llama.cpp, Ollama, LiteLLM, ...).
type OpenAI struct {
	BaseURL string // default DefaultOpenAIURL; includes the version path (/v1)
	APIKey  string // may be empty for a local server
	Model   string
	HTTP    *http.Client // default http.DefaultClient
}

// DefaultOpenAIURL is OpenAI's base URL.
const DefaultOpenAIURL = "https://api.openai.com/v1"

// Name implements Provider.
func (o *OpenAI) Name() string { return "openai " + o.Model }

// ModelName implements Provider.
func (o *OpenAI) ModelName() string { return o.Model }

type openaiRequest struct {
	Model     string          `json:"model"`
	Messages  []openaiMessage `json:"messages"`
	Tools     []openaiTool    `json:"tools,omitempty"`
	MaxTokens int             `json:"max_tokens,omitempty"`
	Stream    bool            `json:"stream"`
}

type openaiMessage struct {
	Role       string           `json:"role"`
	Content    *string          `json:"content"`
	ToolCalls  []openaiToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type openaiToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type openaiTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func ptr(s string) *string { return &s }

// openaiBody encodes req. A user message's tool results become "tool"
// messages (text only: Chat Completions takes no images there, so an image
// is described in words), followed by its text, if any, as a user message.
func (o *OpenAI) openaiBody(req *Request) ([]byte, error) {
	out := openaiRequest{Model: o.Model, Stream: true, MaxTokens: req.MaxTokens}
	if req.System != "" {
		out.Messages = append(out.Messages, openaiMessage{Role: "system", Content: ptr(req.System)})
	}
	for _, t := range req.Tools {
		var ot openaiTool
		ot.Type = "function"
		ot.Function.Name, ot.Function.Description, ot.Function.Parameters = t.Name, t.Description, t.InputSchema
		out.Tools = append(out.Tools, ot)
	}
	for _, m := range req.Messages {
		var text strings.Builder
		switch m.Role {
		case RoleAssistant:
			am := openaiMessage{Role: "assistant"}
			for _, b := range m.Blocks {
				switch b.Type {
				case BlockText:
					text.WriteString(b.Text)
				case BlockToolUse:
					var tc openaiToolCall
					tc.ID, tc.Type = b.ID, "function"
					tc.Function.Name, tc.Function.Arguments = b.Name, string(b.Input)
					am.ToolCalls = append(am.ToolCalls, tc)
				}
			}
			if text.Len() > 0 || len(am.ToolCalls) == 0 {
				am.Content = ptr(text.String())
			}
			out.Messages = append(out.Messages, am)
		default:
			for _, b := range m.Blocks {
				switch b.Type {
				case BlockText:
					if text.Len() > 0 {
						text.WriteString("\n\n")
					}
					text.WriteString(b.Text)
				case BlockToolResult:
					var s strings.Builder
					if b.IsError {
						s.WriteString("error: ")
					}
					for i, c := range b.Content {
						if i > 0 {
							s.WriteByte('\n')
						}
						if c.Type == "image" {
							fmt.Fprintf(&s, "[an image, %s, %d bytes: this API takes no images in tool results]", c.MIMEType, len(c.Data))
							continue
						}
						s.WriteString(c.Text)
					}
					out.Messages = append(out.Messages, openaiMessage{Role: "tool", ToolCallID: b.ToolUseID, Content: ptr(s.String())})
				}
			}
			if text.Len() > 0 {
				out.Messages = append(out.Messages, openaiMessage{Role: "user", Content: ptr(text.String())})
			}
		}
	}
	return json.Marshal(out)
}

// openaiChunk is one streamed chunk (object chat.completion.chunk), or an
// error some servers send inside the stream.
type openaiChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   *string          `json:"content"`
			ToolCalls []openaiToolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *openaiError `json:"error"`
}

type openaiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"` // a string at OpenAI, a number at some servers
}

// Stream implements Provider.
func (o *OpenAI) Stream(ctx context.Context, req *Request, onText func(string)) (*Reply, error) {
	body, err := o.openaiBody(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	base := o.BaseURL
	if base == "" {
		base = DefaultOpenAIURL
	}
	hr, err := http.NewRequestWithContext(ctx, "POST", strings.TrimRight(base, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("make request: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	if o.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	resp, err := httpClient(o.HTTP).Do(hr)
	if err != nil {
		return nil, transportError("openai", ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, openaiHTTPError(resp)
	}
	return readOpenAIStream(resp.Body, onText)
}

func (e *openaiError) apiError(status int) *APIError {
	code, _ := e.Code.(string)
	ae := &APIError{Provider: "openai", Status: status, Type: e.Type, Message: e.Message}
	if code != "" {
		ae.Type = code
	}
	// A 429 for an exhausted quota is not cured by waiting.
	ae.Retryable = code != "insufficient_quota" && (retryableStatus(status) || retryableType(e.Type) || retryableType(code))
	return ae
}

// openaiHTTPError reads an error answer: {"error":{"message","type","code"}}.
func openaiHTTPError(resp *http.Response) error {
	b := readErrorBody(resp.Body)
	var body struct {
		Error *openaiError `json:"error"`
	}
	var ae *APIError
	if json.Unmarshal(b, &body) == nil && body.Error != nil {
		ae = body.Error.apiError(resp.StatusCode)
	} else {
		ae = &APIError{Provider: "openai", Status: resp.StatusCode, Message: strings.TrimSpace(string(b)), Retryable: retryableStatus(resp.StatusCode)}
	}
	ae.RetryAfter = retryAfter(resp.Header, time.Now())
	return ae
}

// readOpenAIStream assembles a reply from "data:" chunks up to "[DONE]":
// delta.content is text, delta.tool_calls fragments are joined by their
// index (the first carries id and name, the rest pieces of arguments).
func readOpenAIStream(r io.Reader, onText func(string)) (*Reply, error) {
	sr := newSSEReader(r)
	var text strings.Builder
	calls := map[int]*Block{}
	reply := &Reply{}
	finish := ""
	done := func() *Reply {
		if text.Len() > 0 {
			reply.Blocks = append(reply.Blocks, Block{Type: BlockText, Text: text.String()})
		}
		idx := make([]int, 0, len(calls))
		for i := range calls {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			b := calls[i]
			if len(b.Input) == 0 {
				b.Input = json.RawMessage("{}")
			}
			if b.ID == "" { // some servers send no id; the reply must name one
				b.ID = fmt.Sprintf("call_%d", i)
			}
			reply.Blocks = append(reply.Blocks, *b)
		}
		switch finish {
		case "tool_calls", "function_call":
			reply.StopReason = StopToolUse
		case "length":
			reply.StopReason = StopMaxTokens
		case "stop", "":
			reply.StopReason = StopEndTurn
		default:
			reply.StopReason = finish
		}
		if len(calls) > 0 {
			reply.StopReason = StopToolUse
		}
		return reply
	}
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			if finish != "" {
				return done(), nil // a server that ends without [DONE]
			}
			return nil, &APIError{Provider: "openai", Type: "stream_ended", Message: "the stream ended before [DONE]", Retryable: true}
		}
		if err != nil {
			return nil, &APIError{Provider: "openai", Type: "stream_broken", Message: err.Error(), Retryable: true}
		}
		data := bytes.TrimSpace(ev.Data)
		if string(data) == "[DONE]" {
			return done(), nil
		}
		if len(data) == 0 {
			continue
		}
		var c openaiChunk
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, fmt.Errorf("openai stream: decode chunk: %w", err)
		}
		if c.Error != nil {
			return nil, c.Error.apiError(0)
		}
		if c.Usage != nil {
			reply.Usage.InputTokens, reply.Usage.OutputTokens = c.Usage.PromptTokens, c.Usage.CompletionTokens
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue
			}
			if s := ch.Delta.Content; s != nil && *s != "" {
				text.WriteString(*s)
				onText(*s)
			}
			for _, tc := range ch.Delta.ToolCalls {
				i := len(calls)
				if tc.Index != nil {
					i = *tc.Index
				}
				b := calls[i]
				if b == nil {
					b = &Block{Type: BlockToolUse}
					calls[i] = b
				}
				if tc.ID != "" {
					b.ID = tc.ID
				}
				if b.Name == "" {
					b.Name = tc.Function.Name
				}
				b.Input = append(b.Input, tc.Function.Arguments...)
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				finish = *ch.FinishReason
			}
		}
	}
}
