package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/egress"
)

// auditGroup is `desk audit`: the audit journal (admin).
var auditGroup = &group{
	name: "audit",
	summary: "The audit journal (with the admin token): every API request, MCP call and tool call,\n" +
		"with its actor, the client's labels, its outcome and the files it changed.",
}

func init() {
	auditGroup.verbs = []groupVerb{
		{auditLsSpec, runAuditLs},
		{auditExportSpec, runAuditExport},
		{auditVerifySpec, runAuditVerify},
	}
}

// runAudit is `desk audit`: desk audit [WS] lists (desk audit ls [WS]).
func runAudit(ctx context.Context, args []string, st streams) int {
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "-h" || a == "-help" || a == "--help" || a == "help":
		case auditGroup.lookup(a) == nil:
			return runAuditLs(ctx, args, st)
		}
	}
	return auditGroup.run(ctx, args, st)
}

var auditLsSpec = &cmdSpec{
	name: "audit ls", synopsis: "[WS] [--path P] [--session S] [--actor A] [--action OP] [--since T] [--until T] [--json] [--follow]", minArgs: 0, maxArgs: 1,
	summary: "list audit records, oldest first (also: desk audit [WS]); WS - is the host's",
	help: `--path lists every call that changed that file of WS (a relative path is taken
from /workspace). --since and --until take RFC 3339 times or a duration before
now (1h, 30m). --follow prints new records as they are made, until Ctrl-C.`,
}

// auditFlags are the filters of ls and export.
type auditFlags struct {
	path, session, actor, action, since, until *string
}

func addAuditFlags(fl interface {
	String(name, value, usage string) *string
}) auditFlags {
	return auditFlags{
		path:    fl.String("path", "", "only the calls that changed this path of WS"),
		session: fl.String("session", "", "only this client session (X-Desk-Session, MCP _meta desk/session)"),
		actor:   fl.String("actor", "", "only this actor: admin or a token id"),
		action:  fl.String("action", "", "only this action (an operation id such as writeFile, an MCP method such as tools/call)"),
		since:   fl.String("since", "", "records at or after this time (RFC 3339, or a duration before now: 1h)"),
		until:   fl.String("until", "", "records before this time (RFC 3339, or a duration before now)"),
	}
}

// set returns the check of ls and export: it sets *q to the query of the
// positional arguments and the filters.
func (af auditFlags) set(q *client.AuditQuery) func(pos []string) error {
	return func(pos []string) (err error) {
		*q, err = af.query(pos)
		return err
	}
}

func parseWhen(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return time.Now().Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, usagef("--%s %q: want an RFC 3339 time (2026-01-02T15:04:05Z) or a duration (1h)", name, s)
	}
	return t, nil
}

// query is the query of the filters, for the positional arguments of ls
// and export ([WS]); its error is a usage error.
func (af auditFlags) query(pos []string) (client.AuditQuery, error) {
	ws := workspaceArg(pos)
	q := client.AuditQuery{Workspace: ws, Session: *af.session, Actor: *af.actor, Action: *af.action}
	if *af.path != "" {
		if ws == "" || ws == "-" {
			return q, usagef("--path needs a workspace")
		}
		q.Path = *af.path
		if !strings.HasPrefix(q.Path, "/") {
			q.Path = "/workspace/" + q.Path
		}
	}
	var err error
	if q.Since, err = parseWhen("since", *af.since); err != nil {
		return q, err
	}
	if q.Until, err = parseWhen("until", *af.until); err != nil {
		return q, err
	}
	return q, nil
}

// workspaceArg is the workspace of a command whose only positional
// argument is an optional workspace ("": none).
func workspaceArg(pos []string) string {
	if len(pos) == 1 {
		return pos[0]
	}
	return ""
}

func auditRow(r client.AuditRecord) string {
	actor := r.Actor
	if actor == "" {
		actor = "-"
	}
	ws := r.Workspace
	if ws == "" {
		ws = "-"
	}
	var label []string
	for _, l := range []string{r.Labels.Agent, r.Labels.Session, r.Labels.Model, r.Labels.Turn} {
		if l != "" {
			label = append(label, l)
		}
	}
	what := ""
	for _, a := range r.Args {
		switch a.Name {
		case "tool", "uri", "execution":
			what += " " + a.Name + "=" + a.Value
		case "path":
			what += " " + a.Value
		}
	}
	if len(r.Paths) > 0 {
		what += " changed " + strings.Join(r.Paths[:min(len(r.Paths), 3)], ",")
		if len(r.Paths) > 3 {
			what += fmt.Sprintf(" (+%d)", len(r.Paths)-3)
		}
	}
	return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", r.ID, stamp(r.Time), ws, actor, strings.Join(label, "/"), r.Kind, r.Action, r.Outcome, strings.TrimSpace(what))
}

const auditHeader = "ID\tTIME\tWORKSPACE\tACTOR\tLABELS\tKIND\tACTION\tOUTCOME\tDETAIL"

func runAuditLs(ctx context.Context, args []string, st streams) int {
	cmd, fl := auditLsSpec.remoteCmd()
	af := addAuditFlags(fl)
	asJSON := fl.Bool("json", false, "print one JSON object per record")
	follow := fl.Bool("follow", false, "then print new records as they are made, until interrupted")
	var q client.AuditQuery
	return cmd.run(args, st, af.set(&q), func(c *client.Client, _ []string) error {
		if !*follow {
			return table(st, *asJSON, auditHeader, func(after string) ([]client.AuditRecord, string, error) {
				q.After = after
				l, err := c.Audit(ctx, q)
				return l.Records, l.Next, err
			}, auditRow)
		}
		tw := tabwriter.NewWriter(st.out, 0, 4, 2, ' ', 0)
		enc := json.NewEncoder(st.out)
		if !*asJSON {
			fmt.Fprintln(tw, auditHeader)
			tw.Flush()
		}
		err := c.AuditStream(ctx, q, true, func(r client.AuditRecord) error {
			if *asJSON {
				return enc.Encode(r)
			}
			fmt.Fprintln(tw, auditRow(r))
			return tw.Flush()
		})
		if ctx.Err() != nil {
			return nil
		}
		return err
	})
}

var auditExportSpec = &cmdSpec{
	name: "audit export", synopsis: "[WS] [--path P] [--session S] [--actor A] [--action OP] [--since T] [--until T]", minArgs: 0, maxArgs: 1,
	summary: "write the audit records selected as NDJSON, one record per line, to standard output",
}

func runAuditExport(ctx context.Context, args []string, st streams) int {
	cmd, fl := auditExportSpec.remoteCmd()
	af := addAuditFlags(fl)
	var q client.AuditQuery
	return cmd.run(args, st, af.set(&q), func(c *client.Client, _ []string) error {
		enc := json.NewEncoder(st.out)
		return c.AuditStream(ctx, q, false, func(r client.AuditRecord) error { return enc.Encode(r) })
	})
}

var auditVerifySpec = &cmdSpec{
	name: "audit verify", synopsis: "[WS] [--json]", minArgs: 0, maxArgs: 1,
	summary: "check the audit journal's hash chains: exit 0 if every record checks, 1 with the problems found",
	help: `Each record's hash covers the previous record's hash and its own fields: a
modified, removed, inserted or reordered record is found. The heads printed are
the chains' newest hashes: kept elsewhere, they let a later verify detect a
rewrite of a whole chain too. WS - checks only the host's chain.`,
}

func runAuditVerify(ctx context.Context, args []string, st streams) int {
	cmd, fl := auditVerifySpec.remoteCmd()
	asJSON := fl.Bool("json", false, "print the report as JSON")
	bad := false
	rc := cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		rep, err := c.AuditVerify(ctx, workspaceArg(pos))
		if err != nil {
			return err
		}
		bad = len(rep.Problems) > 0
		if *asJSON {
			enc := json.NewEncoder(st.out)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		}
		tw := tabwriter.NewWriter(st.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CHAIN\tRECORDS\tFIRST\tLAST\tHEAD")
		for _, ch := range rep.Chains {
			name := ch.Workspace
			if name == "" {
				name = "- (host)"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", name, ch.Records, ch.First, ch.Last, ch.Head)
		}
		tw.Flush()
		for _, p := range rep.Problems {
			name := p.Workspace
			if name == "" {
				name = "-"
			}
			fmt.Fprintf(st.err, "desk audit verify: chain %s record %d: %s\n", name, p.N, p.What)
		}
		if !bad {
			fmt.Fprintln(st.err, "desk audit verify: every record checks")
		}
		return nil
	})
	if rc == exitOK && bad {
		return exitError
	}
	return rc
}

// openAudit opens the data directory's audit journal (audit.FileName),
// shared by the server and its workers. Only the server trims it
// (retention; a worker passes 0 and keeps no timer).
func openAudit(dataDir string, retention time.Duration) (*audit.Store, error) {
	if retention == 0 {
		retention = -1
	}
	return audit.Open(filepath.Join(dataDir, audit.FileName), audit.Options{Retention: retention, Redact: api.SecretRedactor(egress.OpenStore(dataDir))})
}
