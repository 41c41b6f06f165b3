package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

func TestSSEReader(t *testing.T) {
	in := ": comment\r\nevent: a\r\ndata: 1\r\ndata:2\r\n\r\n\n\nretry: 5\ndata: {\"x\": 1}\n\nevent: last\ndata: end"
	r := newSSEReader(strings.NewReader(in))
	want := []sseEvent{{"a", []byte("1\n2")}, {"", []byte(`{"x": 1}`)}, {"last", []byte("end")}}
	for i, w := range want {
		ev, err := r.Next()
		if err != nil || ev.Name != w.Name || !bytes.Equal(ev.Data, w.Data) {
			t.Fatalf("event %d = %q %q, %v; want %q %q", i, ev.Name, ev.Data, err, w.Name, w.Data)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last event: %v", err)
	}
	big := "data: " + strings.Repeat("x", MaxEventBytes+1) + "\n\n"
	if _, err := newSSEReader(strings.NewReader(big)).Next(); err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("an event over MaxEventBytes: %v", err)
	}
}

func TestCapContent(t *testing.T) {
	small := []Content{{Type: "text", Text: "short"}}
	if got := capContent(small, 100); got[0].Text != "short" {
		t.Errorf("under the cap: %q", got[0].Text)
	}
	text := strings.Repeat("héllo wörld\n", 1000) // 13,000 bytes, two-byte characters
	cs := []Content{{Type: "text", Text: text}, {Type: "image", MIMEType: "image/png", Data: []byte{1, 2}}}
	got := capContent(cs, 1000)
	s := got[0].Text
	if !utf8.ValidString(s) || !strings.HasPrefix(s, "héllo") || !strings.HasSuffix(s, "wörld\n") || !strings.Contains(s, "bytes cut here by the agent") {
		t.Errorf("capped text: %q", s)
	}
	if note := strings.Index(s, "\n[…"); note < 700 || note > 760 || len(s) > 1300 {
		t.Errorf("head of %d bytes, %d in all", note, len(s))
	}
	if got[1].Type != "image" || len(got[1].Data) != 2 || cs[0].Text != text {
		t.Errorf("image %+v, input changed: %v", got[1], cs[0].Text != text)
	}
}

// TestRetries checks which failures are retried, that retries are bounded
// and that Retry-After is honoured, against a loopback server answering in
// each provider's error format.
func TestRetries(t *testing.T) {
	type answer struct {
		status int
		header map[string]string
		body   string
	}
	for _, tc := range []struct {
		name     string
		kind     string
		answers  []answer // the last repeats
		requests int      // requests the agent makes
		ok       bool
	}{
		{"anthropic invalid request", "anthropic", []answer{{400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`}}, 1, false},
		{"anthropic overloaded for ever", "anthropic", []answer{{529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}}, 4, false},
		{"anthropic rate limited, then served", "anthropic", []answer{{429, map[string]string{"Retry-After": "0.002"}, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`}, {200, nil, anthropicOK}}, 2, true},
		{"anthropic stream cut", "anthropic", []answer{{200, nil, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"}, {200, nil, anthropicOK}}, 2, true},
		{"openai quota", "openai", []answer{{429, nil, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`}}, 1, false},
		{"openai 503 then served", "openai", []answer{{503, nil, "upstream unavailable"}, {200, nil, openaiOK}}, 2, true},
		{"openai stream without DONE", "openai", []answer{{200, nil, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n"}, {200, nil, openaiOK}}, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				a := tc.answers[min(i, len(tc.answers)-1)]
				for k, v := range a.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(a.status)
				io.WriteString(w, a.body)
			}))
			defer srv.Close()
			var p Provider = &Anthropic{BaseURL: srv.URL, APIKey: "k", Model: "m"}
			if tc.kind == "openai" {
				p = &OpenAI{BaseURL: srv.URL, APIKey: "k", Model: "m"}
			}
			var out, errs bytes.Buffer
			a := &Agent{cfg: Config{Provider: p, Retries: 3, RetryWait: time.Millisecond, MaxRetryWait: 4 * time.Millisecond},
				io: IO{Out: &out, Err: &errs}, msgs: []Message{{Role: RoleUser, Blocks: []Block{{Type: BlockText, Text: "hi"}}}}}
			reply, err := a.callModel(context.Background())
			if got := int(n.Load()); got != tc.requests {
				t.Errorf("%d requests, want %d", got, tc.requests)
			}
			if tc.ok != (err == nil) {
				t.Fatalf("reply %+v, error %v; stderr:\n%s", reply, err, errs.String())
			}
			if tc.ok && (len(reply.Blocks) != 1 || reply.Blocks[0].Text != "ok" || reply.StopReason != StopEndTurn) {
				t.Errorf("reply %+v", reply)
			}
			var ae *APIError
			if !tc.ok && !errors.As(err, &ae) {
				t.Errorf("error %T %v is not an *APIError", err, err)
			}
		})
	}
}

const anthropicOK = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

const openaiOK = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":null}]}\n\n" +
	"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

// conversation is a turn with a tool call whose result holds an image.
var conversation = &Request{
	System: "sys",
	Tools:  []ToolDef{{Name: "read", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}},
	Messages: []Message{
		{Role: RoleUser, Blocks: []Block{{Type: BlockText, Text: "look"}}},
		{Role: RoleAssistant, Blocks: []Block{{Type: BlockText, Text: ""}, {Type: BlockToolUse, ID: "c1", Name: "read", Input: json.RawMessage(`{"path":"a.png"}`)}}},
		{Role: RoleUser, Blocks: []Block{
			{Type: BlockToolResult, ToolUseID: "c1", Content: []Content{{Type: "text", Text: "an image"}, {Type: "image", MIMEType: "image/png", Data: []byte("PNG")}}},
			{Type: BlockText, Text: "and?"},
		}},
	},
}

func TestAnthropicBody(t *testing.T) {
	b, err := (&Anthropic{Model: "m"}).anthropicBody(conversation)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","max_tokens":0,"system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"look"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"read","input":{"path":"a.png"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"an image"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"UE5H"}}]},` +
		`{"type":"text","text":"and?","cache_control":{"type":"ephemeral"}}]}],` +
		`"tools":[{"name":"read","description":"d","input_schema":{"type":"object"}}],"stream":true}`
	if string(b) != want {
		t.Errorf("body\n%s\nwant\n%s", b, want)
	}
}

func TestOpenAIBody(t *testing.T) {
	b, err := (&OpenAI{Model: "m"}).openaiBody(conversation)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"look"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.png\"}"}}]},` +
		`{"role":"tool","content":"an image\n[an image, image/png, 3 bytes: this API takes no images in tool results]","tool_call_id":"c1"},` +
		`{"role":"user","content":"and?"}],` +
		`"tools":[{"type":"function","function":{"name":"read","description":"d","parameters":{"type":"object"}}}],"stream":true}`
	if string(b) != want {
		t.Errorf("body\n%s\nwant\n%s", b, want)
	}
}

// TestOpenAIParallelCalls reads two tool calls streamed interleaved by index.
func TestOpenAIParallelCalls(t *testing.T) {
	in := `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"ls","arguments":""}},{"index":1,"id":"b","type":"function","function":{"name":"read","arguments":"{\"pa"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}},{"index":1,"function":{"arguments":"th\":\"x\"}"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":7}}` + "\n\ndata: [DONE]\n\n"
	r, err := readOpenAIStream(strings.NewReader(in), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Blocks) != 2 || r.Blocks[0].ID != "a" || string(r.Blocks[0].Input) != "{}" || r.Blocks[1].Name != "read" ||
		string(r.Blocks[1].Input) != `{"path":"x"}` || r.StopReason != StopToolUse || r.Usage.OutputTokens != 7 {
		t.Errorf("reply %+v", r)
	}
}

func TestTooLong(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&APIError{Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}, true},
		{&APIError{Status: 400, Type: "context_length_exceeded", Message: "This model's maximum context length is 128000 tokens."}, true},
		{&APIError{Status: 400, Type: "invalid_request_error", Message: "tools.0.name: bad"}, false},
		{errors.New("prompt is too long"), false},
	} {
		if got := tooLong(tc.err); got != tc.want {
			t.Errorf("tooLong(%v) = %v", tc.err, got)
		}
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttabs, ünïcode": "plain\ttabs, ünïcode",
		"\x1b[2J\x1b]0;t\a":    "\uFFFD[2J\uFFFD]0;t\uFFFD",
		"a\rb\x7f\u009bc\xff":  "a\uFFFDb\uFFFD\uFFFDc\uFFFD",
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}
