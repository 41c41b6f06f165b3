package chat

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/client"
)

// Config configures an agent. Zero fields take the Default constants.
type Config struct {
	// Desk is the desk server's client and Workspace the workspace the
	// agent works in; Provider the model's API.
	Desk      *client.Client
	Workspace string
	Provider  Provider
	// Approver, if set, decides the workspace's pending approvals: while an
	// exec waits for one, the person is asked (a token with the approve
	// scope that is not the agent's own, or the admin token).
	Approver *client.Client
	// Session is the session's audit label (SessionLabels), for the
	// banner; the Desk client sends it. Each tool call adds its turn.
	Session string
	// System is added to the built-in system prompt.
	System string
	// MaxTokens bounds one model answer (Anthropic needs one: default
	// DefaultMaxTokens; for OpenAI 0 leaves it to the server).
	MaxTokens int
	// MaxSteps bounds the model calls of one turn.
	MaxSteps int
	// MaxResultBytes bounds the text of one tool result sent to the model:
	// past it the head and the tail are kept, with a note of what was cut.
	MaxResultBytes int
	// Retries bounds the retries of a model call that failed with a
	// retryable error; the first waits RetryWait (or the server's
	// Retry-After), each next one twice as long, at most MaxRetryWait.
	Retries      int
	RetryWait    time.Duration
	MaxRetryWait time.Duration
	// ShowLines bounds the lines of a tool result shown to the person.
	ShowLines int
}

// IO are the agent's terminal: the person's lines, the output (the model's
// text, the tool calls and their results) and the notes (retries, errors).
// Interrupt, if not nil, delivers Ctrl-C: during a turn it stops the turn,
// at the prompt it ends the session.
type IO struct {
	In        io.Reader
	Out, Err  io.Writer
	Interrupt <-chan os.Signal
	// Live shows a running exec's latest output line, rewritten in place
	// with a carriage return and an ANSI erase: for a terminal.
	Live bool
}

// Agent is one conversation with a model that uses a workspace's tools.
type Agent struct {
	cfg   Config
	io    IO
	tools []ToolDef
	msgs  []Message
	lines chan string
	done  chan struct{}
	// atLineStart is whether the output ends with a newline (or is empty).
	atLineStart bool
	// statusShown is whether a Live status line is on the screen.
	statusShown bool
	// turns counts the model's answers in the session: the X-Desk-Turn
	// label of the tool calls each one makes.
	turns int
}

// New checks cfg, fills in its defaults and reads the workspace's tools
// from the server: the definitions the model gets are the server's own.
func New(ctx context.Context, cfg Config, tio IO) (*Agent, error) {
	if cfg.Desk == nil || cfg.Workspace == "" || cfg.Provider == nil {
		return nil, errors.New("new agent: a desk client, a workspace and a provider are needed")
	}
	if cfg.MaxTokens == 0 {
		if _, ok := cfg.Provider.(*Anthropic); ok {
			cfg.MaxTokens = DefaultMaxTokens
		}
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.MaxSteps, DefaultMaxSteps)
	def(&cfg.MaxResultBytes, DefaultMaxResultBytes)
	def(&cfg.ShowLines, DefaultShowLines)
	if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.RetryWait <= 0 {
		cfg.RetryWait = DefaultRetryWait
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = DefaultMaxRetryWait
	}
	ts, err := cfg.Desk.Tools(ctx, cfg.Workspace)
	if err != nil {
		return nil, fmt.Errorf("list tools of workspace %s: %w", cfg.Workspace, err)
	}
	a := &Agent{cfg: cfg, io: tio, atLineStart: true}
	for _, t := range ts {
		a.tools = append(a.tools, ToolDef{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return a, nil
}

// Run is the agent's REPL: it reads the person's lines until end of input,
// /exit or an interrupt at the prompt, and answers each with a turn of the
// model and its tool calls. A line ending in a backslash continues on the
// next. /reset starts a new conversation.
func (a *Agent) Run(ctx context.Context) error {
	a.lines, a.done = make(chan string), make(chan struct{})
	defer close(a.done)
	go a.readLines()
	names := make([]string, len(a.tools))
	for i, t := range a.tools {
		names[i] = t.Name
	}
	fmt.Fprintf(a.io.Out, "desk agent · workspace %s · %s · tools: %s\n", a.cfg.Workspace, a.cfg.Provider.Name(), strings.Join(names, ", "))
	if a.cfg.Session != "" {
		fmt.Fprintf(a.io.Out, "Audit session %s: desk audit --session %s %s lists what the agent does.\n", a.cfg.Session, a.cfg.Session, a.cfg.Workspace)
	}
	fmt.Fprintf(a.io.Out, "Type a message. /help, /reset starts over, /exit or Ctrl-D quits, Ctrl-C stops a turn.\n")
	for {
		fmt.Fprint(a.io.Out, "> ")
		line, ok := a.readLine(ctx, true)
		if !ok {
			fmt.Fprintln(a.io.Out)
			return ctx.Err()
		}
		line = strings.TrimSpace(line)
		switch line {
		case "":
			continue
		case "/exit", "/quit":
			return nil
		case "/reset":
			a.msgs = nil
			fmt.Fprintln(a.io.Out, "[a new conversation]")
			continue
		case "/help":
			fmt.Fprintln(a.io.Out, "A line is a message to the model (end it with \\ to go on on the next line). /reset starts a new conversation; /exit or Ctrl-D quits; Ctrl-C stops a turn (a running exec is killed), or quits at the prompt.")
			continue
		}
		a.atLineStart = true
		tctx, cancel := context.WithCancel(ctx)
		stop := a.onInterrupt(cancel)
		err := a.Turn(tctx, line)
		stop()
		cancel()
		a.endLine()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.Canceled):
			fmt.Fprintln(a.io.Err, "[turn stopped]")
		case err != nil:
			fmt.Fprintf(a.io.Err, "error: %v\n", err)
			if tooLong(err) {
				fmt.Fprintln(a.io.Err, "[the conversation is longer than the model's context: /reset starts a new one]")
			}
		}
	}
}

// tooLong reports whether a provider refused the request for its length
// (Anthropic: "prompt is too long"; OpenAI: context_length_exceeded).
func tooLong(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	m := strings.ToLower(ae.Message)
	return ae.Type == "context_length_exceeded" || strings.Contains(m, "prompt is too long") || strings.Contains(m, "context length") || strings.Contains(m, "context window")
}

// readLines sends the person's lines (a trailing backslash joins the next)
// to a.lines until end of input or the end of Run.
func (a *Agent) readLines() {
	defer close(a.lines)
	sc := bufio.NewScanner(a.io.In)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var pending strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if strings.HasSuffix(line, "\\") {
			pending.WriteString(strings.TrimSuffix(line, "\\") + "\n")
			continue
		}
		pending.WriteString(line)
		select {
		case a.lines <- pending.String():
		case <-a.done:
			return
		}
		pending.Reset()
	}
	if pending.Len() > 0 {
		select {
		case a.lines <- pending.String():
		case <-a.done:
		}
	}
}

// readLine waits for the person's next line; false at end of input, when
// ctx ends, or (atPrompt) on an interrupt. During a turn an interrupt
// cancels the turn's ctx instead (onInterrupt).
func (a *Agent) readLine(ctx context.Context, atPrompt bool) (string, bool) {
	select {
	case l, ok := <-a.lines:
		return l, ok
	case <-ctx.Done():
	case <-a.interrupts(atPrompt):
	}
	return "", false
}

// interrupts is the interrupt channel when watch is set, else nil (never).
func (a *Agent) interrupts(watch bool) <-chan os.Signal {
	if !watch {
		return nil
	}
	return a.io.Interrupt
}

// onInterrupt calls cancel on an interrupt until the returned stop is called.
func (a *Agent) onInterrupt(cancel func()) (stop func()) {
	if a.io.Interrupt == nil {
		return func() {}
	}
	quit := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		select {
		case <-a.io.Interrupt:
			cancel()
		case <-quit:
		}
	}()
	return func() { close(quit); <-ended }
}

// Messages returns the conversation so far.
func (a *Agent) Messages() []Message { return a.msgs }

// addUser adds blocks as the person's: to the last message when it is
// already theirs (a turn that ended with tool results or an error), so the
// roles keep alternating.
func (a *Agent) addUser(blocks ...Block) {
	if n := len(a.msgs); n > 0 && a.msgs[n-1].Role == RoleUser {
		a.msgs[n-1].Blocks = append(a.msgs[n-1].Blocks, blocks...)
		return
	}
	a.msgs = append(a.msgs, Message{Role: RoleUser, Blocks: blocks})
}

// Turn answers one line of the person's: model calls and tool rounds until
// the model answers without a tool call, at most MaxSteps model calls.
func (a *Agent) Turn(ctx context.Context, line string) error {
	a.addUser(Block{Type: BlockText, Text: line})
	for range a.cfg.MaxSteps {
		reply, err := a.callModel(ctx)
		a.endLine()
		if err != nil {
			return err
		}
		a.turns++
		if len(reply.Blocks) > 0 {
			a.msgs = append(a.msgs, Message{Role: RoleAssistant, Blocks: reply.Blocks})
		}
		var calls []Block
		for _, b := range reply.Blocks {
			if b.Type == BlockToolUse {
				calls = append(calls, b)
			}
		}
		if len(calls) == 0 {
			if reply.StopReason == StopMaxTokens {
				fmt.Fprintf(a.io.Err, "[the answer reached the token limit (%d); say \"go on\" for more]\n", a.cfg.MaxTokens)
			}
			return nil
		}
		results := make([]Block, 0, len(calls))
		tctx := client.WithHeader(ctx, http.Header{HeaderTurn: {strconv.Itoa(a.turns)}})
		for _, c := range calls {
			results = append(results, a.runTool(tctx, c))
		}
		a.addUser(results...)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.io.Err, "[stopped after %d model calls in this turn (-max-steps); send a message to go on]\n", a.cfg.MaxSteps)
	return nil
}

// callModel calls the model with the conversation, streaming its text to
// the output, and retries a retryable failure (rate limit, overload, a
// broken stream) up to Retries times with exponential backoff.
func (a *Agent) callModel(ctx context.Context) (*Reply, error) {
	req := &Request{System: a.systemPrompt(), Messages: a.msgs, Tools: a.tools, MaxTokens: a.cfg.MaxTokens}
	wait := a.cfg.RetryWait
	for attempt := 0; ; attempt++ {
		streamed := false
		reply, err := a.cfg.Provider.Stream(ctx, req, func(s string) {
			streamed = true
			a.write(s)
		})
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ae *APIError
		if !errors.As(err, &ae) || !ae.Retryable || attempt >= a.cfg.Retries {
			return nil, err
		}
		d := wait + rand.N(wait/4+1)
		if ae.RetryAfter > d {
			d = min(ae.RetryAfter, 2*a.cfg.MaxRetryWait)
		}
		a.endLine()
		if streamed {
			fmt.Fprintln(a.io.Err, "[the answer above broke off and is dropped]")
		}
		fmt.Fprintf(a.io.Err, "[%v; retry %d of %d in %s]\n", err, attempt+1, a.cfg.Retries, d.Round(time.Millisecond))
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		wait = min(2*wait, a.cfg.MaxRetryWait)
	}
}

func (a *Agent) systemPrompt() string {
	s := fmt.Sprintf(`You are a capable software agent working in the desk workspace %q: a persistent Linux-like filesystem rooted at /workspace (relative paths are taken from there), with tools to read, write, edit, list, find, grep and delete files and to run commands (exec). Use the file tools for files and exec for commands, builds and tests. Work step by step; check your work by reading files back or running it. The person reads your answers in a terminal: be concise, plain text.`, a.cfg.Workspace)
	if a.cfg.System != "" {
		s += "\n\n" + a.cfg.System
	}
	return s
}

// runTool calls one tool on the desk server and returns its result block.
func (a *Agent) runTool(ctx context.Context, call Block) Block {
	res := Block{Type: BlockToolResult, ToolUseID: call.ID}
	fail := func(msg string) Block {
		res.IsError = true
		res.Content = []Content{{Type: "text", Text: msg}}
		a.showResult(res)
		return res
	}
	if ctx.Err() != nil {
		res.IsError = true
		res.Content = []Content{{Type: "text", Text: "not run: the person stopped the turn"}}
		return res
	}
	a.showCall(call)
	if !json.Valid(call.Input) {
		return fail("the tool input is not valid JSON (was the answer cut at the token limit?); call the tool again with complete input")
	}
	tr, denied, err := a.callTool(ctx, call)
	switch {
	case err != nil && ctx.Err() != nil:
		res.IsError = true
		res.Content = []Content{{Type: "text", Text: "stopped by the person (Ctrl-C)"}}
	case err != nil:
		res.IsError = true
		res.Content = []Content{{Type: "text", Text: err.Error()}}
	default:
		res.IsError = tr.IsError
		for _, c := range tr.Content {
			res.Content = append(res.Content, Content{Type: c.Type, Text: c.Text, MIMEType: c.MIMEType, Data: c.Data})
		}
		res.Content = capContent(res.Content, a.cfg.MaxResultBytes)
	}
	if denied {
		// Whatever the server's error says, the model learns a person said no.
		res.IsError = true
		res.Content = append([]Content{{Type: "text", Text: "The person denied this command when desk asked them to approve it; do not run it again unless they say so.\n"}}, res.Content...)
	}
	a.showResult(res)
	return res
}

// write writes model text to the output, tracking the line's end.
func (a *Agent) write(s string) {
	if s == "" {
		return
	}
	io.WriteString(a.io.Out, s)
	a.atLineStart = strings.HasSuffix(s, "\n")
}

// endLine ends the output's current line, if it has one.
func (a *Agent) endLine() {
	if !a.atLineStart {
		io.WriteString(a.io.Out, "\n")
		a.atLineStart = true
	}
}
