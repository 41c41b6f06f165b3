package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/desk-dev/desk/client"
)

// ApprovalWait is how long one request for the workspace's pending
// approvals waits for a change (the server holds an execution a command
// rule says to ask about until an approver decides, and answers a waiting
// request at once when its list changes).
const ApprovalWait = 30 * time.Second

// pendingList is one answer of the approvals watch.
type pendingList struct {
	l   client.ApprovalList
	err error
}

// watchApprovals sends the workspace's pending approvals at every change
// until ctx ends or a request fails (sent last).
func watchApprovals(ctx context.Context, c *client.Client, ws string) <-chan pendingList {
	out := make(chan pendingList)
	go func() {
		defer close(out)
		var version uint64
		for ctx.Err() == nil {
			l, err := c.WaitApprovals(ctx, ws, ApprovalWait, version)
			if err == nil && version != 0 && l.Version == version {
				continue // the wait ended with no change
			}
			select {
			case out <- pendingList{l, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
			version = l.Version
		}
	}()
	return out
}

// callResult is a finished tool call.
type callResult struct {
	tr  *client.ToolResult
	err error
}

// callTool calls the tool. With IO.Live an exec's latest output line is
// shown while it runs, rewritten in place. For an exec while an Approver
// is set, it asks
// the person about each approval the server holds the command for (a
// pending execution whose script is the command): y approves it, anything
// else (or the end of input) denies it. When the approver may not list
// approvals, a still-running exec says so once and the Approver is dropped
// for the session; the call waits on: another approver may decide (desk
// approve), or the server's approval timeout ends it.
//
// denied reports that the person denied an approval of this call, so that
// the model is told a person said no, whatever the server's error says.
func (a *Agent) callTool(ctx context.Context, call Block) (tr *client.ToolResult, denied bool, err error) {
	done := make(chan callResult, 1)
	var progress func(client.ToolProgress)
	latest := make(chan string, 1) // the exec's latest output line, for Live
	if a.io.Live && call.Name == "exec" {
		progress = func(p client.ToolProgress) {
			if p.Message == "" {
				return
			}
			select { // keep only the newest line
			case <-latest:
			default:
			}
			select {
			case latest <- p.Message:
			default:
			}
		}
	}
	go func() {
		tr, err := a.cfg.Desk.CallTool(ctx, a.cfg.Workspace, call.Name, call.Input, progress)
		done <- callResult{tr, err}
	}()
	var in struct {
		Command string `json:"command"`
	}
	json.Unmarshal(call.Input, &in)
	var pend <-chan pendingList
	if a.cfg.Approver != nil && call.Name == "exec" {
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		pend = watchApprovals(wctx, a.cfg.Approver, a.cfg.Workspace)
	}
	var listErr error
	asked := map[string]bool{}
	var asking *client.Approval // the approval whose answer is awaited
	var lines <-chan string
	for {
		select {
		case m := <-latest:
			if asking == nil {
				a.status(m)
			}
		case r := <-done:
			a.clearStatus()
			if asking != nil {
				a.endLine()
				fmt.Fprintln(a.io.Out, "   (decided elsewhere or timed out)")
			}
			return r.tr, denied, r.err
		case p, ok := <-pend:
			if !ok {
				pend = nil
				continue
			}
			if p.err != nil {
				listErr = p.err
				if ctx.Err() == nil {
					a.clearStatus()
					// The exec may be held, but the approver cannot list
					// approvals: say why nobody is asked, once.
					fmt.Fprintf(a.io.Err, "[this exec may be waiting for an approval, but the agent cannot list them (%v): an approver may decide with desk approve; -approve-token gives the agent a token with the approve scope]\n", listErr)
					a.cfg.Approver = nil
				}
				pend = nil
				continue
			}
			if asking != nil {
				continue
			}
			for _, ap := range p.l.Approvals {
				if asked[ap.ID] || ap.Status != "pending_approval" || ap.Kind != "execution" || ap.Subject == "" || !strings.HasPrefix(in.Command, ap.Subject) {
					continue
				}
				asked[ap.ID] = true
				asking = &ap
				a.clearStatus()
				a.endLine()
				source := ""
				if ap.Decision.Source != "" {
					source = " of the " + ap.Decision.Source
				}
				fmt.Fprintf(a.io.Out, "?  approval needed: %q matches the rule %q%s\n", ap.Decision.Subject, ap.Decision.Rule, source)
				fmt.Fprintf(a.io.Out, "   run it? [y/N] ")
				a.atLineStart = false
				lines = a.lines
				break
			}
		case line, ok := <-lines:
			lines = nil
			ap := asking
			asking = nil
			a.atLineStart = true
			yes := ok && isYes(line)
			if !ok {
				fmt.Fprintln(a.io.Out)
			}
			var err error
			if yes {
				_, err = a.cfg.Approver.Approve(ctx, a.cfg.Workspace, ap.ID)
			} else {
				_, err = a.cfg.Approver.Deny(ctx, a.cfg.Workspace, ap.ID)
			}
			switch {
			case err != nil && ctx.Err() == nil:
				fmt.Fprintf(a.io.Err, "[cannot decide approval %s: %v]\n", ap.ID, err)
			case yes:
				fmt.Fprintln(a.io.Out, "   approved")
			default:
				denied = true
				fmt.Fprintln(a.io.Out, "   denied")
			}
		}
	}
}

// isYes reports whether an answer is y or yes.
func isYes(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s == "y" || s == "yes"
}

// status shows a running exec's latest output line in place of the last.
func (a *Agent) status(line string) {
	if a.statusShown {
		io.WriteString(a.io.Out, "\r\x1b[K")
	} else {
		a.endLine()
	}
	line = printable(strings.TrimRight(line, "\r\n"))
	if len(line) > 100 {
		line = cutUTF8(line, 99) + "…"
	}
	io.WriteString(a.io.Out, "   … "+line)
	a.statusShown = true
}

// clearStatus erases the status line, if one is shown.
func (a *Agent) clearStatus() {
	if a.statusShown {
		io.WriteString(a.io.Out, "\r\x1b[K")
		a.statusShown = false
	}
}
