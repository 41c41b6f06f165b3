package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/policy"
)

// ruleFlags are the path and command rule flags of desk ws policy and
// desk token mint.
type ruleFlags struct {
	paths, commands listFlag
	def             *string
	elicit          *string
}

func addRuleFlags(fl *flag.FlagSet) *ruleFlags {
	f := &ruleFlags{}
	fl.Var(&f.paths, "path", "a path `RULE`, \"ACCESS GLOB\" (read, write or deny: 'deny **/.env'); repeatable, in order; replaces the path rules")
	fl.Var(&f.commands, "command", "a command `RULE`, \"ACTION PATTERN\" (allow, ask or deny: 'ask git push *'); repeatable, in order; replaces the command rules")
	f.def = fl.String("default-command", "", "the `ACTION` for a command no rule matches: allow (the default), ask or deny")
	f.elicit = fl.String("approve-by-elicitation", "", "true: the requester's own MCP client may approve an asked call by answering an elicitation; false (the default): another party must")
	return f
}

func (f *ruleFlags) set() bool {
	return len(f.paths) > 0 || len(f.commands) > 0 || *f.def != "" || *f.elicit != ""
}

// apply returns r with the rules the flags give (checked here, so that a
// typo is a usage error naming the rule).
func (f *ruleFlags) apply(r client.Rules) (client.Rules, error) {
	if len(f.paths) > 0 {
		r.Paths = nil
		for _, s := range f.paths {
			x, err := policy.ParsePathRule(s)
			if err != nil {
				return r, err
			}
			r.Paths = append(r.Paths, client.PathRule{Pattern: x.Pattern, Access: string(x.Access)})
		}
	}
	if len(f.commands) > 0 {
		r.Commands = nil
		for _, s := range f.commands {
			x, err := policy.ParseCommandRule(s)
			if err != nil {
				return r, err
			}
			r.Commands = append(r.Commands, client.CommandRule{Pattern: x.Pattern, Action: string(x.Action)})
		}
	}
	if *f.def != "" {
		r.DefaultCommand = *f.def
		if r.DefaultCommand == "allow" {
			r.DefaultCommand = ""
		}
	}
	switch *f.elicit {
	case "":
	case "true":
		r.ApproveByElicitation = true
	case "false":
		r.ApproveByElicitation = false
	default:
		return r, fmt.Errorf("--approve-by-elicitation %q: want true or false", *f.elicit)
	}
	return r, nil
}

// printRules prints rules one a line, in order.
func printRules(w io.Writer, r client.Rules) {
	if len(r.Paths) == 0 && len(r.Commands) == 0 && r.DefaultCommand == "" {
		fmt.Fprintln(w, "path and command rules: none")
		return
	}
	fmt.Fprintln(w, "path rules (the first match decides):")
	for _, x := range r.Paths {
		fmt.Fprintf(w, "  %s %s\n", x.Access, x.Pattern)
	}
	fmt.Fprintln(w, "command rules (the first match decides):")
	for _, x := range r.Commands {
		fmt.Fprintf(w, "  %s %s\n", x.Action, x.Pattern)
	}
	def := r.DefaultCommand
	if def == "" {
		def = "allow"
	}
	fmt.Fprintf(w, "  default %s\n", def)
	if r.ApproveByElicitation {
		fmt.Fprintln(w, "approvals: the requester's MCP client may approve by elicitation")
	}
}

var approveSpec = &cmdSpec{
	name: "approve", synopsis: "WS [ID]", minArgs: 1, maxArgs: 2,
	summary: "list a workspace's calls pending approval, or approve one (a token with approve)",
	help: `An execution whose script matches an "ask" command rule (desk ws policy --command)
waits as pending_approval until someone with the approve scope, other than
the token that asked, approves it (it then runs) or denies it (desk deny; it
fails with approval_denied), or the server's timeout passes (10 minutes:
approval_timeout). Without ID: the pending calls, with the script, the rule
and who asked; --wait D waits up to D (at most 1m) for a call to be pending
before it lists them.`,
}

func runApprove(ctx context.Context, args []string, st streams) int {
	return runDecide(ctx, approveSpec, args, st, true)
}

var denySpec = &cmdSpec{
	name: "deny", synopsis: "WS ID", minArgs: 2, maxArgs: 2,
	summary: "deny a call pending approval: it fails with approval_denied (a token with approve)",
}

func runDeny(ctx context.Context, args []string, st streams) int {
	return runDecide(ctx, denySpec, args, st, false)
}

func runDecide(ctx context.Context, sp *cmdSpec, args []string, st streams, approve bool) int {
	fl := sp.flags()
	sf := addServerFlags(fl)
	var wait *time.Duration
	if approve {
		wait = fl.Duration("wait", 0, "without ID: wait up to this long (at most 1m) for a call to be pending")
	}
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	ws := pos[0]
	return sp.remote(st, sf, func(c *client.Client) error {
		if len(pos) == 1 {
			var l client.ApprovalList
			var err error
			if wait != nil && *wait > 0 {
				l, err = c.WaitApprovals(ctx, ws, *wait, 0)
			} else {
				l, err = c.ListApprovals(ctx, ws)
			}
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(st.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tREQUESTER\tRULE\tCOMMAND\tEXPIRES\tSCRIPT")
			for _, a := range l.Approvals {
				script := strings.ReplaceAll(a.Subject, "\n", "; ")
				if len(script) > 60 {
					script = script[:60] + "…"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.Requester, a.Decision.Rule, a.Decision.Subject,
					time.Until(a.Expires).Round(time.Second), script)
			}
			return tw.Flush()
		}
		var a client.Approval
		var err error
		if approve {
			a, err = c.Approve(ctx, ws, pos[1])
		} else {
			a, err = c.Deny(ctx, ws, pos[1])
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(st.out, "%s %s: %s (rule %q, asked by %s)\n", a.Status, a.ID, a.Decision.Subject, a.Decision.Rule, a.Requester)
		return nil
	})
}
