// Command agent is a terminal chat agent on a desk workspace: it talks to a
// model over the Anthropic Messages API or an OpenAI-compatible Chat
// Completions API and works in the workspace through desk's agent tools
// (package chat does the work; see its documentation and README.md).
//
//	go run ./examples/agent -w WORKSPACE
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/examples/agent/chat"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, sig))
}

// run is the command: its exit status is 0 at the session's end, 1 when it
// could not start, 2 for a usage error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, interrupt <-chan os.Signal) int {
	fl := flag.NewFlagSet("agent", flag.ContinueOnError)
	fl.SetOutput(stderr)
	ws := fl.String("w", "", "the workspace to work in (required)")
	url := fl.String("url", "", "the desk server's URL (default: $DESK_URL, else the config file desk serve writes)")
	token := fl.String("token", "", "the desk token (default: $DESK_TOKEN, else the config file's)")
	approveToken := fl.String("approve-token", "", "a token with the approve scope, to approve or deny the execs the workspace's command rules hold, when the agent's own token may not (default: $DESK_APPROVE_TOKEN, else the agent's token)")
	pf := chat.AddFlags(fl)
	fl.Usage = func() {
		fmt.Fprint(stderr, "usage: go run ./examples/agent -w WORKSPACE [flags]\n\nA terminal chat agent working in a desk workspace through its tools.\n\nflags:\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *ws == "" || fl.NArg() > 0 {
		fl.Usage()
		return 2
	}
	p, err := pf.NewProvider(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "agent: %v\n", err)
		return 1
	}
	srv, err := client.Resolve(*url, *token)
	if err != nil {
		fmt.Fprintf(stderr, "agent: %v\n", err)
		return 1
	}
	// Every desk request carries the session's audit labels.
	labels := chat.SessionLabels(os.Getenv("DESK_SESSION"), p.ModelName())
	co := client.Options{UserAgent: chat.AgentLabel, Header: labels}
	dc, err := client.New(srv.URL, srv.Token, co)
	if err != nil {
		fmt.Fprintf(stderr, "agent: desk server %q (from %s): %v\n", srv.URL, srv.From, err)
		return 1
	}
	approver := dc
	if *approveToken == "" {
		*approveToken = os.Getenv("DESK_APPROVE_TOKEN")
	}
	if *approveToken != "" {
		if approver, err = client.New(srv.URL, *approveToken, co); err != nil {
			fmt.Fprintf(stderr, "agent: %v\n", err)
			return 1
		}
	}
	cfg := pf.Options()
	cfg.Desk, cfg.Approver, cfg.Workspace, cfg.Provider = dc, approver, *ws, p
	cfg.Session = labels.Get(chat.HeaderSession)
	a, err := chat.New(ctx, cfg, chat.IO{In: stdin, Out: stdout, Err: stderr, Interrupt: interrupt, Live: isTerminal(stdout)})
	if err != nil {
		fmt.Fprintf(stderr, "agent: %v\n", err)
		return 1
	}
	if err := a.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "agent: %v\n", err)
		return 1
	}
	return 0
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
