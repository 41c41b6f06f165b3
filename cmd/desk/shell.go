package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/coder/websocket"
	"golang.org/x/term"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/workspace"
)

var shellSpec = &cmdSpec{
	name:     "shell",
	synopsis: "WS [--term TERM]",
	summary:  "an interactive bash on a terminal in the workspace's sandbox; exit with its exit code",
	help: `The shell is a login bash on a pseudo-terminal in the workspace's sandbox
(the sandbox backend: the server must have it), in /workspace, over a
WebSocket to the server (GET /v1/workspaces/WS/shell). When standard input is
a terminal it is put in raw mode for the session (every key goes to the
shell: Ctrl-C interrupts the remote command, Ctrl-D at the prompt ends the
shell) and restored afterwards; the window size follows the local terminal's.

Standard input may also be a pipe or a file: its bytes are typed on the
remote terminal (which echoes them) and its end is typed as Ctrl-D, which
ends a shell waiting at its prompt. A shell busy with a command when the
input ends passes the Ctrl-D to that command, so end piped scripts with exit.

Closing the session (the connection, or desk shell killed) hangs the shell
up: what it left running is killed. The exit status is the shell's (129
when it was hung up).`,
	minArgs: 1, maxArgs: 1,
}

func runShell(ctx context.Context, args []string, st streams) int {
	sp := shellSpec
	fl := sp.flags()
	sf := addServerFlags(fl)
	termName := fl.String("term", "", "the TERM variable in the sandbox (default: the local $TERM, else xterm-256color)")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	srv, err := sf.resolve()
	if err != nil {
		return sp.fail(st, err)
	}
	t := *termName
	if t == "" {
		t = os.Getenv("TERM")
	}
	if t == "" || t == "dumb" {
		t = api.DefaultShellTerm
	}
	exit, err := shellSession(ctx, srv, pos[0], t, st)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(st.err, "desk shell: interrupted; the shell was hung up")
			return 130
		}
		return sp.fail(st, reachable(err, srv))
	}
	return exit
}

// shellSession runs one shell session over a WebSocket and returns the
// shell's exit status.
func shellSession(ctx context.Context, srv server, ws, termName string, st streams) (int, error) {
	in, _ := st.in.(*os.File)
	raw := in != nil && term.IsTerminal(int(in.Fd()))
	rows, cols := windowSize(st)
	q := url.Values{"term": {termName}}
	if rows > 0 && cols > 0 {
		q.Set("rows", strconv.Itoa(rows))
		q.Set("cols", strconv.Itoa(cols))
	}
	u := strings.TrimRight(srv.URL, "/") + "/v1/workspaces/" + url.PathEscape(ws) + "/shell?" + q.Encode()
	h := http.Header{"User-Agent": {"desk-cli"}}
	if srv.Token != "" {
		h.Set("Authorization", "Bearer "+srv.Token)
	}
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return 0, handshakeError(resp, err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(4 << 20) // the server sends at most its read size per message

	if raw {
		old, err := term.MakeRaw(int(in.Fd()))
		if err != nil {
			return 0, fmt.Errorf("put the terminal in raw mode: %w", err)
		}
		defer term.Restore(int(in.Fd()), old)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	control := func(m map[string]any) {
		b, _ := json.Marshal(m)
		conn.Write(sctx, websocket.MessageText, b)
	}
	// The window size follows the local terminal's.
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	go func() {
		for {
			select {
			case <-winch:
				if r, c := windowSize(st); r > 0 && c > 0 {
					control(map[string]any{"type": "resize", "rows": r, "cols": c})
				}
			case <-sctx.Done():
				return
			}
		}
	}()
	// Standard input is typed on the remote terminal; its end is Ctrl-D.
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := st.in.Read(buf)
			if n > 0 && conn.Write(sctx, websocket.MessageBinary, buf[:n]) != nil {
				return
			}
			if err != nil {
				control(map[string]any{"type": "eof"})
				return
			}
		}
	}()
	for {
		typ, b, err := conn.Read(sctx)
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				why := ce.Reason
				if why == "" {
					why = ce.Code.String()
				}
				return 0, fmt.Errorf("the server closed the session before the shell ended: %s", why)
			}
			return 0, fmt.Errorf("the connection to the shell ended before the shell did: %w", err)
		}
		if typ == websocket.MessageBinary {
			if _, err := st.out.Write(b); err != nil {
				return 0, fmt.Errorf("write output: %w", err)
			}
			continue
		}
		var m struct {
			Type    string `json:"type"`
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			continue // not for us
		}
		switch m.Type {
		case "exit":
			conn.Close(websocket.StatusNormalClosure, "")
			return m.Code, nil
		case "error":
			nl := ""
			if raw {
				nl = "\r"
			}
			fmt.Fprintf(st.err, "desk shell: %s%s\n", m.Message, nl)
		}
	}
}

// windowSize is the local terminal's size (of standard output, else
// standard input), or zeros when neither is a terminal.
func windowSize(st streams) (rows, cols int) {
	for _, v := range []any{st.out, st.in} {
		if f, ok := v.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			if c, r, err := term.GetSize(int(f.Fd())); err == nil && r > 0 && c > 0 {
				return r, c
			}
		}
	}
	return 0, 0
}

// handshakeError turns a refused WebSocket handshake into the API's error.
func handshakeError(resp *http.Response, err error) error {
	if resp == nil || resp.StatusCode < 400 {
		return fmt.Errorf("open shell: %w", err)
	}
	var body client.ErrorBody
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if json.Unmarshal(b, &body) != nil || body.Error.Code == "" {
		return fmt.Errorf("open shell: %s: %w", resp.Status, err)
	}
	return &client.Error{Status: resp.StatusCode, Code: body.Error.Code, Message: body.Error.Message}
}

// shellConfig is the API's shell route: shells in the sandbox backend, when
// backends has it (none otherwise: the route answers 501).
func shellConfig(backends map[string]deskrun.Backend, eh *egressHost) api.ShellConfig {
	sb, ok := backends[sandbox.ID].(*sandbox.Backend)
	if !ok {
		return api.ShellConfig{}
	}
	return api.ShellConfig{Opener: sandboxShells{sb, eh}}
}

// sandboxShells opens the API's shells in the sandbox backend, with the
// workspace's network (nil eh: none).
type sandboxShells struct {
	b  *sandbox.Backend
	eh *egressHost
}

var _ api.ShellOpener = sandboxShells{}

// OpenShell starts a shell in the workspace's sandbox (the one its sandbox
// executions use).
func (s sandboxShells) OpenShell(ctx context.Context, ws *workspace.Workspace, o api.ShellOptions) (api.Terminal, error) {
	so := sandbox.ShellOptions{Rows: o.Rows, Cols: o.Cols, Term: o.Term}
	if s.eh != nil {
		so.Env = map[string]string{}
		so.Net = s.eh.client(ctx, ws.FS(), so.Env)
	}
	sh, err := s.b.Shell(ctx, sandbox.Workspace{FS: ws.FS()}, so)
	if errors.Is(err, sandbox.ErrTooManySandboxes) {
		return nil, sandboxRefusal(s.b, err) // 503 too_many, as with workers
	}
	if errors.Is(err, sandbox.ErrClosed) {
		return nil, fmt.Errorf("%w: %w", api.ErrShellUnavailable, err)
	}
	if err != nil {
		return nil, err
	}
	return sh, nil
}
