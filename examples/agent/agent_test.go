package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/examples/agent/chat"
	"github.com/desk-dev/desk/examples/internal/exampletest"
)

// A scripted model session: each request the fake provider gets is
// answered with the next reply, in the provider's own wire format.
type fakeReply struct {
	status int      // an HTTP error answer (retryable) instead of a stream
	text   []string // text deltas
	call   *fakeCall
	// breakAfterText ends the stream with an error event after the text.
	breakAfterText bool
	// hang sends the stream's first event, says so on fakeProvider.hung and
	// waits for the client to go away.
	hang bool
}

type fakeCall struct {
	id, name string
	input    []string // fragments of the JSON input
}

var script = []fakeReply{
	{status: 529},
	{text: []string{"I'll write ", "the notes."}, call: &fakeCall{"call_1", "write", []string{`{"path": "no`, `tes.txt", "content": "alpha\nbe`, `ta\n"}`}}},
	{call: &fakeCall{"call_2", "exec", []string{`{"command": "wc -l < notes.txt`, `; cat notes.txt"}`}}},
	{text: []string{"The file ", "has 2 lines: ", "alpha and beta."}},
	// The second line of the person's.
	{text: []string{"Hm"}, breakAfterText: true},
	{text: []string{"Done", "."}},
}

// fakeProvider is a loopback server speaking a provider's wire format that
// replays script, keeping every request body.
type fakeProvider struct {
	kind   string // "anthropic" or "openai"
	script []fakeReply
	// hung is closed when a hang reply has begun; gone when its client
	// went away.
	hung, gone chan struct{}
	mu         sync.Mutex
	reqs       [][]byte
	bad        []string // wrong headers or bodies, found while serving
}

func (f *fakeProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, body)
	f.mu.Unlock()
	problem := func(format string, args ...any) {
		f.mu.Lock()
		f.bad = append(f.bad, fmt.Sprintf("request %d: ", n)+fmt.Sprintf(format, args...))
		f.mu.Unlock()
	}
	var head struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(body, &head); err != nil || !head.Stream || head.Model != "test-model" {
		problem("body %s: %v", body, err)
	}
	switch f.kind {
	case "anthropic":
		if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "test-key" || r.Header.Get("Anthropic-Version") != "2023-06-01" {
			problem("path %s, headers %v", r.URL.Path, r.Header)
		}
	case "openai":
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
			problem("path %s, headers %v", r.URL.Path, r.Header)
		}
	}
	if n >= len(f.script) {
		problem("more requests than the script has")
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"no more script"}}`, 400)
		return
	}
	rep := f.script[n]
	if rep.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		if f.kind == "anthropic" {
			w.WriteHeader(529)
			io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
		} else {
			w.Header().Set("Retry-After-Ms", "1")
			w.WriteHeader(429)
			io.WriteString(w, `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
		}
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flush := w.(http.Flusher).Flush
	if rep.hang {
		io.WriteString(w, ": a first comment, so that the client has the answer's headers\n\n")
		flush()
		close(f.hung)
		select {
		case <-r.Context().Done():
			close(f.gone)
		case <-time.After(time.Minute): // a hang guard
			problem("the client did not go away")
		}
		return
	}
	if f.kind == "anthropic" {
		anthropicStream(w, flush, n, rep)
	} else {
		openaiStream(w, flush, n, rep)
	}
}

// anthropicStream writes rep as the Messages API streams it.
func anthropicStream(w io.Writer, flush func(), n int, rep fakeReply) {
	ev := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		flush()
	}
	type m = map[string]any
	ev("message_start", m{"type": "message_start", "message": m{"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant",
		"content": []any{}, "model": "test-model", "stop_reason": nil, "stop_sequence": nil, "usage": m{"input_tokens": 100, "output_tokens": 1}}})
	ev("ping", m{"type": "ping"})
	i := 0
	if len(rep.text) > 0 {
		ev("content_block_start", m{"type": "content_block_start", "index": i, "content_block": m{"type": "text", "text": ""}})
		for _, t := range rep.text {
			ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": m{"type": "text_delta", "text": t}})
		}
		if rep.breakAfterText {
			ev("error", m{"type": "error", "error": m{"type": "overloaded_error", "message": "Overloaded"}})
			return
		}
		ev("content_block_stop", m{"type": "content_block_stop", "index": i})
		i++
	}
	stop := "end_turn"
	if c := rep.call; c != nil {
		stop = "tool_use"
		ev("content_block_start", m{"type": "content_block_start", "index": i, "content_block": m{"type": "tool_use", "id": c.id, "name": c.name, "input": m{}}})
		ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": m{"type": "input_json_delta", "partial_json": ""}})
		for _, p := range c.input {
			ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": m{"type": "input_json_delta", "partial_json": p}})
		}
		ev("content_block_stop", m{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", m{"type": "message_delta", "delta": m{"stop_reason": stop, "stop_sequence": nil}, "usage": m{"output_tokens": 20}})
	ev("message_stop", m{"type": "message_stop"})
}

// openaiStream writes rep as Chat Completions streams it.
func openaiStream(w io.Writer, flush func(), n int, rep fakeReply) {
	type m = map[string]any
	chunk := func(delta m, finish any) {
		b, _ := json.Marshal(m{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion.chunk", "created": 1700000000, "model": "test-model",
			"choices": []any{m{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		flush()
	}
	chunk(m{"role": "assistant", "content": ""}, nil)
	for _, t := range rep.text {
		chunk(m{"content": t}, nil)
	}
	if rep.breakAfterText {
		fmt.Fprint(w, "data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n")
		return
	}
	finish := "stop"
	if c := rep.call; c != nil {
		finish = "tool_calls"
		chunk(m{"tool_calls": []any{m{"index": 0, "id": c.id, "type": "function", "function": m{"name": c.name, "arguments": ""}}}}, nil)
		for _, p := range c.input {
			chunk(m{"tool_calls": []any{m{"index": 0, "function": m{"arguments": p}}}}, nil)
		}
	}
	chunk(m{}, finish)
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush()
}

// start serves f on a loopback port until the test ends and returns the
// base URL the provider's clients take.
func (f *fakeProvider) start(t *testing.T) string {
	f.hung, f.gone = make(chan struct{}), make(chan struct{})
	ps := httptest.NewServer(f)
	t.Cleanup(ps.Close)
	if f.kind == "openai" {
		return ps.URL + "/v1"
	}
	return ps.URL
}

// setEnv gives the agent the desk server and the provider through the
// environment, as a person would.
// runAgent runs the agent's command line with args, stdin and interrupt,
// logs what it wrote and fails the test unless it exits 0; it returns its
// stdout and stderr.
func runAgent(ctx context.Context, t *testing.T, args []string, stdin string, interrupt <-chan os.Signal) (stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(ctx, args, strings.NewReader(stdin), &out, &errOut, interrupt)
	t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	return out.String(), errOut.String()
}

// check fails the test with each wrong request the provider saw, and
// unless it got n requests.
func (f *fakeProvider) check(t *testing.T, n int) {
	t.Helper()
	for _, p := range f.bad {
		t.Error(p)
	}
	if len(f.reqs) != n {
		t.Fatalf("the provider got %d requests, want %d", len(f.reqs), n)
	}
}

func setEnv(t *testing.T, deskURL, token, kind, base string) {
	t.Setenv("DESK_URL", deskURL)
	t.Setenv("DESK_TOKEN", token)
	t.Setenv("DESK_CONFIG", filepath.Join(t.TempDir(), "none.json"))
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"} {
		t.Setenv(k, "")
	}
	if kind == "anthropic" {
		t.Setenv("ANTHROPIC_API_KEY", "test-key")
		t.Setenv("ANTHROPIC_BASE_URL", base)
	} else {
		t.Setenv("OPENAI_API_KEY", "test-key")
		t.Setenv("OPENAI_BASE_URL", base)
	}
}

// entry is one part of a request's conversation, in a neutral form.
type entry struct {
	Kind string // "user", "assistant", "call", "result"
	ID   string // a call's or a result's tool call id
	Name string // a call's tool
	Text string // text, a call's input, a result's content
	Err  bool   // a result marked as an error
}

// transcript decodes a request body of either provider into entries, and
// the tools it offers (name → input schema).
func transcript(t *testing.T, kind string, body []byte) ([]entry, map[string]json.RawMessage) {
	t.Helper()
	var out []entry
	tools := map[string]json.RawMessage{}
	if kind == "anthropic" {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Type      string          `json:"type"`
					Text      string          `json:"text"`
					ID        string          `json:"id"`
					Name      string          `json:"name"`
					Input     json.RawMessage `json:"input"`
					ToolUseID string          `json:"tool_use_id"`
					IsError   bool            `json:"is_error"`
					Content   []struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"content"`
				} `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"input_schema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatalf("decode request: %v", err)
		}
		for _, tl := range req.Tools {
			tools[tl.Name] = tl.InputSchema
		}
		for _, msg := range req.Messages {
			for _, b := range msg.Content {
				switch b.Type {
				case "text":
					out = append(out, entry{Kind: msg.Role, Text: b.Text})
				case "tool_use":
					out = append(out, entry{Kind: "call", ID: b.ID, Name: b.Name, Text: compact(t, b.Input)})
				case "tool_result":
					var s strings.Builder
					for _, c := range b.Content {
						s.WriteString(c.Text)
					}
					out = append(out, entry{Kind: "result", ID: b.ToolUseID, Text: s.String(), Err: b.IsError})
				}
			}
		}
		return out, tools
	}
	var req struct {
		Messages []struct {
			Role       string  `json:"role"`
			Content    *string `json:"content"`
			ToolCallID string  `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("decode request: %v", err)
	}
	for _, tl := range req.Tools {
		tools[tl.Function.Name] = tl.Function.Parameters
	}
	for _, msg := range req.Messages {
		text := ""
		if msg.Content != nil {
			text = *msg.Content
		}
		switch msg.Role {
		case "system":
		case "tool":
			out = append(out, entry{Kind: "result", ID: msg.ToolCallID, Text: text})
		default:
			if text != "" {
				out = append(out, entry{Kind: msg.Role, Text: text})
			}
			for _, c := range msg.ToolCalls {
				out = append(out, entry{Kind: "call", ID: c.ID, Name: c.Function.Name, Text: compact(t, json.RawMessage(c.Function.Arguments))})
			}
		}
	}
	return out, tools
}

func compact(t *testing.T, b json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Errorf("invalid JSON %q: %v", b, err)
		return string(b)
	}
	return buf.String()
}

// TestAgent runs the agent's REPL, as `go run ./examples/agent` does, on a
// real desk server against a fake provider of each wire format replaying a
// scripted session: a rate limit, a tool call to write a file, one to exec a
// command reading it, a streamed answer, then a second line whose first
// answer breaks off mid-stream.
func TestAgent(t *testing.T) {
	desk := exampletest.Start(t, "--sandbox", "off")
	for _, kind := range []string{"anthropic", "openai"} {
		t.Run(kind, func(t *testing.T) { testAgent(t, desk, kind) })
	}
	for _, kind := range []string{"anthropic", "openai"} {
		t.Run(kind+"/interrupt", func(t *testing.T) { testInterrupt(t, desk, kind) })
	}
	t.Run("interrupt-exec", func(t *testing.T) { testInterruptExec(t, desk) })
	t.Run("approval", func(t *testing.T) { testApproval(t, desk) })
	t.Run("live", func(t *testing.T) { testLive(t, desk) })
}

// testLive runs the agent as on a terminal (IO.Live): a running exec's
// latest output line shows in place, and is erased when the call ends.
// The test stops the exec with Ctrl-C once the line has shown.
func testLive(t *testing.T, desk *exampletest.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	ws := "live"
	if _, err := desk.Client.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	fake := &fakeProvider{kind: "anthropic", script: []fakeReply{
		{call: &fakeCall{"call_1", "exec", []string{`{"command": "printf 'building\\033]0;title\\007...\\n'; sleep 600"}`}}},
	}}
	base := fake.start(t)
	dc, err := client.New(desk.URL, desk.Token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	interrupt := make(chan os.Signal, 1)
	pr, pw := io.Pipe()
	var out bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		sent := false
		for {
			n, err := pr.Read(buf)
			out.Write(buf[:n])
			if !sent && strings.Contains(out.String(), "   … building\uFFFD]0;title\uFFFD...") {
				sent = true
				interrupt <- os.Interrupt
			}
			if err != nil {
				return
			}
		}
	}()
	a, err := chat.New(ctx, chat.Config{Desk: dc, Workspace: ws, Provider: &chat.Anthropic{BaseURL: base, APIKey: "test-key", Model: "test-model"}},
		chat.IO{In: strings.NewReader("build it\n"), Out: pw, Err: io.Discard, Interrupt: interrupt, Live: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Run(ctx); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	<-read
	t.Logf("stdout: %q", out.String())
	for _, p := range fake.bad {
		t.Error(p)
	}
	want := "-> exec command=\"printf 'building\\\\033]0;title\\\\007...\\\\n'; sleep 600\"\n   … building\uFFFD]0;title\uFFFD...\r\x1b[K   error: stopped by the person (Ctrl-C)\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("stdout lacks %q", want)
	}
}

// testApproval runs two execs the workspace's command rules say to ask
// about: the person approves the first (it runs; its real output goes back
// to the model) and denies the second (it fails; the model is told).
func testApproval(t *testing.T, desk *exampletest.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	ws := "approval"
	if _, err := desk.Client.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if _, err := desk.Client.WriteFile(ctx, ws, "notes.txt", strings.NewReader("alpha\nbeta\n"), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := desk.Client.SetRules(ctx, ws, client.Rules{Commands: []client.CommandRule{{Pattern: "cat *", Action: "ask"}, {Pattern: "rm *", Action: "ask"}}}); err != nil {
		t.Fatal(err)
	}
	tok, err := desk.Client.MintToken(ctx, client.TokenRequest{Workspace: ws, Scopes: []string{"read", "write", "exec"}})
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeProvider{kind: "anthropic", script: []fakeReply{
		{call: &fakeCall{"call_1", "exec", []string{`{"command": "cat notes.txt"}`}}},
		{call: &fakeCall{"call_2", "exec", []string{`{"command": "rm notes.txt"}`}}},
		{text: []string{"ok"}},
	}}
	setEnv(t, desk.URL, tok.Secret, "anthropic", fake.start(t))
	out, _ := runAgent(ctx, t, []string{"-w", ws, "-model", "test-model", "-approve-token", desk.Token},
		"show the notes, then remove them\ny\nn\n", nil)
	fake.check(t, 3)
	tr, _ := transcript(t, "anthropic", fake.reqs[1])
	if r := tr[len(tr)-1]; r.Kind != "result" || r.Err || !strings.HasPrefix(r.Text, "alpha\nbeta\n[exit code 0") {
		t.Errorf("the approved exec's result: %+v", r)
	}
	tr, _ = transcript(t, "anthropic", fake.reqs[2])
	if r := tr[len(tr)-1]; r.Kind != "result" || !r.Err || !strings.HasPrefix(r.Text, "The person denied this command") ||
		!strings.Contains(r.Text, `forbidden: start execution: run execution: admin denied it (rule "ask rm *"): approval denied`) {
		t.Errorf("the denied exec's result: %+v", r)
	}
	if b, err := desk.Client.ReadFile(ctx, ws, "notes.txt"); err != nil || string(b) != "alpha\nbeta\n" {
		t.Errorf("notes.txt after the denied rm: %q, %v", b, err)
	}
	at := 0
	for _, want := range []string{
		"-> exec command=\"cat notes.txt\"\n?  approval needed: \"cat notes.txt\" matches the rule \"ask cat *\" of the workspace\n   run it? [y/N]    approved\n   alpha\n",
		"-> exec command=\"rm notes.txt\"\n?  approval needed: \"rm notes.txt\" matches the rule \"ask rm *\" of the workspace\n   run it? [y/N]    denied\n   error: The person denied this command",
		"\nok\n> ",
	} {
		i := strings.Index(out[at:], want)
		if i < 0 {
			t.Fatalf("stdout lacks %q after byte %d", want, at)
		}
		at += i + len(want)
	}
}

// testInterruptExec stops a turn with Ctrl-C while an exec runs: the
// execution is killed, the model is told the person stopped it, and the
// conversation goes on. The interrupt comes when the exec's first file
// change shows on the workspace's change feed, so the command is running.
func testInterruptExec(t *testing.T, desk *exampletest.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	ws := "interrupt-exec"
	if _, err := desk.Client.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	changes, err := desk.Client.FollowChanges(ctx, ws, 0, client.NDJSON)
	if err != nil {
		t.Fatal(err)
	}
	defer changes.Close()
	interrupt := make(chan os.Signal, 1)
	go func() {
		for {
			c, err := changes.Next()
			if err != nil {
				return
			}
			if c.Path == "/workspace/started" {
				interrupt <- os.Interrupt
				return
			}
		}
	}()
	fake := &fakeProvider{kind: "anthropic", script: []fakeReply{
		{call: &fakeCall{"call_1", "exec", []string{`{"command": "touch started && sleep 600"}`}}},
		{text: []string{"ok"}},
	}}
	setEnv(t, desk.URL, desk.Token, "anthropic", fake.start(t))
	runAgent(ctx, t, []string{"-w", ws, "-model", "test-model"}, "run it\nnext\n", interrupt)
	fake.check(t, 2)
	tr, _ := transcript(t, "anthropic", fake.reqs[1])
	if len(tr) != 4 || tr[2].Kind != "result" || !tr[2].Err || tr[2].Text != "stopped by the person (Ctrl-C)" || tr[3].Text != "next" {
		t.Errorf("the request after the interrupt: %+v", tr)
	}
	l, err := desk.Client.ListExecutions(ctx, ws, client.ListExecutionsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Executions) != 1 {
		t.Fatalf("executions: %+v", l.Executions)
	}
	// The server kills the execution when the agent's call goes away: its
	// event stream ends with its exit (sleep 600 outlasts the hang guard).
	id := l.Executions[0].ID
	evs, err := desk.Client.Events(ctx, ws, id, client.EventsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer evs.Close()
	for {
		ev, err := evs.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("events of %s: %v", id, err)
		}
		_ = ev
	}
	if e, err := desk.Client.GetExecution(ctx, ws, id); err != nil || e.Status != "cancelled" {
		t.Errorf("the interrupted execution: %+v, %v", e, err)
	}
}

// testInterrupt stops a turn with Ctrl-C while the model's answer streams:
// the request is cancelled, the terminal says so, and the next line goes
// on in the same conversation.
func testInterrupt(t *testing.T, desk *exampletest.Server, kind string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	ws := "interrupt-" + kind
	if _, err := desk.Client.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	fake := &fakeProvider{kind: kind, script: []fakeReply{{hang: true}, {text: []string{"ok"}}}}
	setEnv(t, desk.URL, desk.Token, kind, fake.start(t))
	interrupt := make(chan os.Signal, 1)
	go func() {
		select {
		case <-fake.hung:
			interrupt <- os.Interrupt
		case <-ctx.Done():
		}
	}()
	stdout, stderr := runAgent(ctx, t, []string{"-w", ws, "-model", "test-model"}, "first\nsecond\n", interrupt)
	select {
	case <-fake.gone: // the server saw the client go away
	case <-time.After(time.Minute): // a hang guard
		t.Error("the interrupted request was not cancelled")
	}
	fake.check(t, 2)
	tr, _ := transcript(t, kind, fake.reqs[1])
	var users []string
	for _, e := range tr {
		users = append(users, e.Kind+": "+e.Text)
	}
	want := map[string]string{"anthropic": "user: first|user: second", "openai": "user: first\n\nsecond"}[kind]
	if got := strings.Join(users, "|"); got != want {
		t.Errorf("the request after the interrupt: %q, want %q", got, want)
	}
	if !strings.Contains(stderr, "[turn stopped]") || !strings.Contains(stdout, "> ok\n") {
		t.Errorf("the terminal does not show the stop and the next answer")
	}
}

func testAgent(t *testing.T, desk *exampletest.Server, kind string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	adminClient := desk.Client
	ws := "notes-" + kind
	if _, err := adminClient.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	tok, err := adminClient.MintToken(ctx, client.TokenRequest{Workspace: ws, Scopes: []string{"read", "write", "exec"}})
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeProvider{kind: kind, script: script}
	base := fake.start(t)
	setEnv(t, desk.URL, tok.Secret, kind, base)
	session := "test-session-" + kind
	t.Setenv("DESK_SESSION", session)
	out, stderr := runAgent(ctx, t, []string{"-w", ws, "-model", "test-model", "-retry-wait", "1ms"},
		"write notes.txt with alpha and beta, then count its lines\nand now?\n", nil)
	fake.check(t, len(fake.script))

	// The file is in the workspace.
	if b, err := adminClient.ReadFile(ctx, ws, "notes.txt"); err != nil || string(b) != "alpha\nbeta\n" {
		t.Errorf("notes.txt = %q, %v", b, err)
	}

	// The audit journal has the session's tool calls, each with the model
	// turn that made it.
	recs, err := adminClient.Audit(ctx, client.AuditQuery{Workspace: ws, Session: session, Action: "callTool"})
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, r := range recs.Records {
		path := ""
		for _, a := range r.Args {
			if a.Name == "path" {
				path = a.Value
			}
		}
		if r.Labels.Agent != "desk-agent-example" || r.Labels.Model != "test-model" || r.TokenID != tok.Token.ID {
			t.Errorf("audit record %+v", r)
		}
		calls = append(calls, path[strings.LastIndex(path, "/")+1:]+"@"+r.Labels.Turn)
	}
	if got := strings.Join(calls, " "); got != "write@1 exec@2" {
		t.Errorf("audited tool calls of the session: %q, want %q", got, "write@1 exec@2")
	}

	// The tools offered are the server's own definitions.
	serverTools, err := adminClient.Tools(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	_, offered := transcript(t, kind, fake.reqs[1])
	if len(offered) != len(serverTools) {
		t.Errorf("offered %d tools, the server has %d", len(offered), len(serverTools))
	}
	for _, st := range serverTools {
		if got, want := compact(t, offered[st.Name]), compact(t, st.InputSchema); got != want {
			t.Errorf("tool %s: schema sent %s, the server's %s", st.Name, got, want)
		}
	}

	// The retried request is the same request.
	if !bytes.Equal(fake.reqs[0], fake.reqs[1]) {
		t.Errorf("the retry sent another request:\n%s\n%s", fake.reqs[0], fake.reqs[1])
	}

	// The second request carries the write's real result.
	tr, _ := transcript(t, kind, fake.reqs[2])
	if len(tr) != 4 || tr[0].Kind != "user" || tr[1].Text != "I'll write the notes." || tr[2].Kind != "call" || tr[2].ID != "call_1" ||
		tr[2].Text != `{"path":"notes.txt","content":"alpha\nbeta\n"}` || tr[3].Kind != "result" || tr[3].ID != "call_1" ||
		!strings.HasPrefix(tr[3].Text, "created /workspace/notes.txt (11 bytes), revision ") || tr[3].Err {
		t.Errorf("request 2: %+v", tr)
	}
	// The third carries the exec's real output.
	tr, _ = transcript(t, kind, fake.reqs[3])
	if len(tr) != 6 || tr[4].Kind != "call" || tr[4].Name != "exec" || tr[5].ID != "call_2" ||
		!strings.HasPrefix(tr[5].Text, "2\nalpha\nbeta\n[exit code 0 · shell backend · ") {
		t.Errorf("request 3: %+v", tr)
	}
	// The last request has the whole conversation, without the answer that
	// broke off, and the retry is the same request again.
	if !bytes.Equal(fake.reqs[4], fake.reqs[5]) {
		t.Errorf("the retry after a broken stream sent another request")
	}
	tr, _ = transcript(t, kind, fake.reqs[5])
	if len(tr) != 8 || tr[6].Text != "The file has 2 lines: alpha and beta." || tr[7].Kind != "user" || tr[7].Text != "and now?" {
		t.Errorf("request 5: %+v", tr)
	}

	// The streamed text and the tool calls reached stdout in order.
	at := 0
	for _, want := range []string{
		"desk agent · workspace " + ws + " · " + kind + " test-model",
		"> I'll write the notes.\n",
		"-> write path=\"notes.txt\" content=\"alpha\\nbeta\\n\"\n",
		"   created /workspace/notes.txt (11 bytes)",
		"-> exec command=\"wc -l < notes.txt; cat notes.txt\"\n",
		"   2\n   alpha\n   beta\n   [exit code 0 · shell backend",
		"The file has 2 lines: alpha and beta.\n",
		"> Hm\n",
		"Done.\n",
		"> \n",
	} {
		i := strings.Index(out[at:], want)
		if i < 0 {
			t.Fatalf("stdout lacks %q after byte %d", want, at)
		}
		at += i + len(want)
	}
	limit := map[string]string{"anthropic": "529 overloaded_error", "openai": "429 rate_limit_exceeded"}[kind]
	for _, want := range []string{limit, "retry 1 of 5", "the answer above broke off"} {
		if !strings.Contains(strings.ToLower(stderr), strings.ToLower(want)) {
			t.Errorf("stderr lacks %q", want)
		}
	}
}
