package sandbox

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// Command rules at exec: an execution whose context carries package
// policy's Set (policy.WithSet: run's Gate puts it there) with command
// rules has them enforced by the init on every execve of its processes
// (wire.Start.Commands; initproc's guard). Without command rules nothing
// is installed.

// DecisionHook sees every exec the sandbox refused under command rules:
// the workspace, the execution's id and the decision (Kind "command",
// Outcome Denied, or Asked for a command that needed an approval the
// execution did not have). It must not block.
type DecisionHook func(workspace, execution string, d policy.Decision)

// SetDecisionHook makes fn the backend's DecisionHook (nil: none); call it
// before executions start (desk serve: where it wires run's Gate).
func (b *Backend) SetDecisionHook(fn DecisionHook) {
	if fn == nil {
		b.onDecision.Store(nil)
		return
	}
	b.onDecision.Store(&fn)
}

// commandRules returns the command rules of an execution of source run
// with ctx, for wire.Start.Commands; nil when none apply (no filter, no
// cost). An execution whose script the rules ask about got here approved
// (run's Gate holds it until then): commands asked about may run. A
// terminal (source "") has no approval: they are refused.
func commandRules(ctx context.Context, source string) *wire.CommandRules {
	set, ok := policy.SetFrom(ctx)
	if !ok || !set.HasCommandRules() {
		return nil
	}
	c := &wire.CommandRules{}
	for _, l := range set {
		if len(l.Policy.Commands) == 0 && (l.Policy.DefaultCommand == "" || l.Policy.DefaultCommand == policy.Allow) {
			continue
		}
		rl := wire.RuleLayer{Source: l.Source, Default: string(l.Policy.DefaultCommand)}
		for _, r := range l.Policy.Commands {
			rl.Rules = append(rl.Rules, r.String())
		}
		c.Layers = append(c.Layers, rl)
	}
	if source != "" {
		c.AskApproved = set.Script(source).Outcome == policy.Asked
	}
	return c
}

// execDecision turns the init's report into a policy.Decision.
func execDecision(m wire.ExecDecision) policy.Decision {
	return policy.Decision{Kind: "command", Action: m.Action, Outcome: m.Outcome, Rule: m.Rule, Source: m.Source, Subject: m.Subject}
}

// recordExec passes a refused exec of execution id to the hook and the log.
func (x *box) recordExec(m wire.ExecDecision) {
	d := execDecision(m)
	x.b.log.Info("sandbox: exec refused by policy", "workspace", x.ws.Name, "id", m.ID, "pid", m.PID,
		"outcome", d.Outcome, "rule", d.Rule, "source", d.Source, "command", d.Subject, "unreported_before", m.Unreported)
	if fn := x.b.onDecision.Load(); fn != nil {
		(*fn)(x.ws.Name, execOf(m.ID), d)
	}
}

// execOf is the run id of an init id (RunDetached's carry "@N").
func execOf(id string) string {
	if i := strings.LastIndexByte(id, '@'); i > 0 {
		return id[:i]
	}
	return id
}

// policyFrame handles a TPolicy frame of stream 0 or of a closed stream
// (an execution not attached to a stream: detached, a terminal, or ended).
func (x *box) policyFrame(f wire.Frame) {
	var m wire.ExecDecision
	if wire.Decode(f, &m) != nil {
		return
	}
	x.recordExec(m)
}

// noteExec tells an attached execution's stderr about a refused exec.
func noteExec(w io.Writer, m wire.ExecDecision) {
	verb := "denied"
	if m.Outcome == policy.Asked {
		verb = "needs approval (refused: not approved with the script)"
	}
	rule := m.Rule
	if rule == "" {
		rule = "(none)"
	}
	more := ""
	if m.Unreported > 0 {
		more = fmt.Sprintf(" (and %d refusals before not reported)", m.Unreported)
	}
	fmt.Fprintf(w, "desk: sandbox: exec of %q %s by rule %q of the %s policy: Permission denied%s\n", m.Subject, verb, rule, m.Source, more)
}
