package chat

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Anthropic is the Anthropic Messages API (POST {BaseURL}/v1/messages with
// "stream": true), read as its Server-Sent Events.
type Anthropic struct {
	BaseURL string // default DefaultAnthropicURL
	APIKey  string
	Model   string
	HTTP    *http.Client // default http.DefaultClient
}

// DefaultAnthropicURL is the Messages API's base URL.
const DefaultAnthropicURL = "https://api.anthropic.com"

// anthropicVersion is the API version header the requests carry.
const anthropicVersion = "2023-06-01"

// Name implements Provider.
func (a *Anthropic) Name() string { return "anthropic " + a.Model }

// ModelName implements Provider.
func (a *Anthropic) ModelName() string { return a.Model }

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    []anthropicBlock   `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
	Tools     []anthropicTool    `json:"tools,omitempty"`
	Stream    bool               `json:"stream"`
}

type anthropicMessage struct {
	Role    string           `json:"role"`
	Content []anthropicBlock `json:"content"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type anthropicBlock struct {
	Type      string           `json:"type"`
	Text      string           `json:"text,omitempty"`
	ID        string           `json:"id,omitempty"`
	Name      string           `json:"name,omitempty"`
	Input     json.RawMessage  `json:"input,omitempty"`
	ToolUseID string           `json:"tool_use_id,omitempty"`
	Content   []anthropicBlock `json:"content,omitempty"`
	IsError   bool             `json:"is_error,omitempty"`
	Source    *anthropicImage  `json:"source,omitempty"`
	Cache     *cacheControl    `json:"cache_control,omitempty"`
}

type anthropicImage struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// anthropicBody encodes req. Prompt caching: a breakpoint on the system
// prompt (caching the tools and the system prompt, which come first) and one
// on the last block of the last message, so each step of a turn reads the
// conversation so far from the cache.
func (a *Anthropic) anthropicBody(req *Request) ([]byte, error) {
	out := anthropicRequest{Model: a.Model, MaxTokens: req.MaxTokens, Stream: true, Messages: []anthropicMessage{}}
	if req.System != "" {
		out.System = []anthropicBlock{{Type: "text", Text: req.System, Cache: &cacheControl{"ephemeral"}}}
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, anthropicTool(t))
	}
	for _, m := range req.Messages {
		am := anthropicMessage{Role: m.Role}
		for _, b := range m.Blocks {
			switch b.Type {
			case BlockText:
				if b.Text != "" { // the API refuses empty text blocks
					am.Content = append(am.Content, anthropicBlock{Type: "text", Text: b.Text})
				}
			case BlockToolUse:
				in := b.Input
				if !json.Valid(in) {
					in = json.RawMessage("{}")
				}
				am.Content = append(am.Content, anthropicBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: in})
			case BlockToolResult:
				tr := anthropicBlock{Type: "tool_result", ToolUseID: b.ToolUseID, IsError: b.IsError}
				for _, c := range b.Content {
					switch c.Type {
					case "image":
						tr.Content = append(tr.Content, anthropicBlock{Type: "image", Source: &anthropicImage{
							Type: "base64", MediaType: c.MIMEType, Data: base64.StdEncoding.EncodeToString(c.Data)}})
					default:
						if c.Text != "" {
							tr.Content = append(tr.Content, anthropicBlock{Type: "text", Text: c.Text})
						}
					}
				}
				if len(tr.Content) == 0 {
					tr.Content = []anthropicBlock{{Type: "text", Text: "(no output)"}}
				}
				am.Content = append(am.Content, tr)
			}
		}
		if len(am.Content) == 0 {
			continue
		}
		out.Messages = append(out.Messages, am)
	}
	if n := len(out.Messages); n > 0 {
		last := out.Messages[n-1].Content
		last[len(last)-1].Cache = &cacheControl{"ephemeral"}
	}
	return json.Marshal(out)
}

// anthropicEvent is the union of the stream's event payloads.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type string `json:"type"`
		Text string `json:"text"`
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type anthropicUsage struct {
	InputTokens     int `json:"input_tokens"`
	OutputTokens    int `json:"output_tokens"`
	CacheReadTokens int `json:"cache_read_input_tokens"`
}

// Stream implements Provider.
func (a *Anthropic) Stream(ctx context.Context, req *Request, onText func(string)) (*Reply, error) {
	body, err := a.anthropicBody(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	base := a.BaseURL
	if base == "" {
		base = DefaultAnthropicURL
	}
	hr, err := http.NewRequestWithContext(ctx, "POST", strings.TrimRight(base, "/")+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("make request: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("X-Api-Key", a.APIKey)
	hr.Header.Set("Anthropic-Version", anthropicVersion)
	resp, err := httpClient(a.HTTP).Do(hr)
	if err != nil {
		return nil, transportError("anthropic", ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, anthropicHTTPError(resp)
	}
	return readAnthropicStream(resp.Body, onText)
}

// anthropicHTTPError reads an error answer: {"type":"error","error":{"type","message"}}.
func anthropicHTTPError(resp *http.Response) error {
	e := &APIError{Provider: "anthropic", Status: resp.StatusCode, RetryAfter: retryAfter(resp.Header, time.Now())}
	b := readErrorBody(resp.Body)
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &body) == nil && body.Error.Type != "" {
		e.Type, e.Message = body.Error.Type, body.Error.Message
	} else {
		e.Message = strings.TrimSpace(string(b))
	}
	e.Retryable = retryableStatus(resp.StatusCode) || retryableType(e.Type)
	return e
}

// readAnthropicStream assembles a reply from the stream's events:
// message_start, content_block_start/delta/stop per block, message_delta
// (the stop reason), message_stop; ping is ignored, error ends it. Block
// types other than text and tool_use (thinking, ...) are dropped.
func readAnthropicStream(r io.Reader, onText func(string)) (*Reply, error) {
	sr := newSSEReader(r)
	type open struct {
		block Block
		input strings.Builder
		keep  bool
	}
	blocks := map[int]*open{}
	var order []int
	reply := &Reply{}
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return nil, &APIError{Provider: "anthropic", Type: "stream_ended", Message: "the stream ended before message_stop", Retryable: true}
		}
		if err != nil {
			return nil, &APIError{Provider: "anthropic", Type: "stream_broken", Message: err.Error(), Retryable: true}
		}
		var e anthropicEvent
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			return nil, fmt.Errorf("anthropic stream: decode %s event: %w", ev.Name, err)
		}
		switch e.Type {
		case "ping":
		case "message_start":
			if e.Message != nil {
				reply.Usage.InputTokens = e.Message.Usage.InputTokens
				reply.Usage.CacheReadTokens = e.Message.Usage.CacheReadTokens
			}
		case "content_block_start":
			if e.ContentBlock == nil {
				return nil, fmt.Errorf("anthropic stream: content_block_start %d without its block", e.Index)
			}
			o := &open{}
			switch e.ContentBlock.Type {
			case "text":
				o.block, o.keep = Block{Type: BlockText, Text: e.ContentBlock.Text}, true
				if e.ContentBlock.Text != "" {
					onText(e.ContentBlock.Text)
				}
			case "tool_use":
				o.block, o.keep = Block{Type: BlockToolUse, ID: e.ContentBlock.ID, Name: e.ContentBlock.Name}, true
			}
			blocks[e.Index] = o
			order = append(order, e.Index)
		case "content_block_delta":
			o := blocks[e.Index]
			if o == nil || e.Delta == nil {
				return nil, fmt.Errorf("anthropic stream: delta for block %d, which was not started", e.Index)
			}
			switch e.Delta.Type {
			case "text_delta":
				o.block.Text += e.Delta.Text
				onText(e.Delta.Text)
			case "input_json_delta":
				o.input.WriteString(e.Delta.PartialJSON)
			}
		case "content_block_stop":
			if o := blocks[e.Index]; o != nil && o.block.Type == BlockToolUse {
				o.block.Input = json.RawMessage(o.input.String())
				if len(o.block.Input) == 0 {
					o.block.Input = json.RawMessage("{}")
				}
			}
		case "message_delta":
			if e.Delta != nil && e.Delta.StopReason != "" {
				reply.StopReason = e.Delta.StopReason
			}
			if e.Usage != nil {
				reply.Usage.OutputTokens = e.Usage.OutputTokens
			}
		case "message_stop":
			for _, i := range order {
				o := blocks[i]
				if !o.keep {
					continue
				}
				if o.block.Type == BlockToolUse && o.block.Input == nil {
					o.block.Input = json.RawMessage(o.input.String()) // cut off: the caller finds it invalid
				}
				reply.Blocks = append(reply.Blocks, o.block)
			}
			return reply, nil
		case "error":
			ae := &APIError{Provider: "anthropic"}
			if e.Error != nil {
				ae.Type, ae.Message = e.Error.Type, e.Error.Message
			}
			ae.Retryable = retryableType(ae.Type)
			return nil, ae
		}
	}
}

// httpClient is c, or http.DefaultClient.
func httpClient(c *http.Client) *http.Client {
	if c == nil {
		return http.DefaultClient
	}
	return c
}

// transportError wraps a failed request: retryable unless ctx ended.
func transportError(provider string, ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &APIError{Provider: provider, Type: "connection_error", Message: err.Error(), Retryable: true}
}
