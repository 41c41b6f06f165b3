package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/desk-dev/desk/client"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ", ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

var policyHelp = `A policy is "none" (nothing leaves the workspace: the default), "all" (any
host, any port; the server's own addresses excepted), or "allow RULE; RULE".
A rule is HOST[=ADDR][:PORT,...][/PATH,...][ METHOD,...]:
  registry.npmjs.org            that host, ports 80 and 443
  *.github.com:443              every subdomain of github.com, port 443
  api.example.com:80/v1/ GET    plain HTTP GETs below /v1/ only (no tunnels)
  10.0.0.5:8080                 an address: only a rule naming it exactly
                                allows loopback, link-local (cloud metadata),
                                private ranges or the server's own addresses
  registry.internal=10.0.0.5    a name pinned to an address (no DNS)
Tokens (desk token mint --egress) and executions (desk exec --egress) can
narrow the workspace's policy, never widen it.

Path and command rules (package policy) are the other half of a workspace's
policy, shown with it. --path and --command replace the rules of their kind
with those given, in order (the first matching rule decides):
  --path 'deny **/.env'            invisible everywhere (ENOENT; EACCES to write)
  --path 'write src/**'            below /workspace/src: read and write
  --path 'read /**'                everything else: read only
  --command 'ask git push *'       held until someone approves (desk approve)
  --command 'deny curl *'          refused
  --default-command deny           a command no rule matches (default allow)
  --no-rules                       remove the path and command rules
Tokens narrow them too (desk token mint --path/--command). See docs/cli.md.`

var wsPolicySpec = &cmdSpec{
	name: "ws policy", synopsis: "WS [--set POLICY | --allow RULE ... | --default] [--path RULE ...] [--command RULE ...] [--default-command ACTION] [--no-rules] [--json]", minArgs: 1, maxArgs: 1,
	summary: "show or set a workspace's egress policy and its path and command rules (setting: admin token)",
	help:    policyHelp,
}

func runWSPolicy(ctx context.Context, args []string, st streams) int {
	cmd, fl := wsPolicySpec.remoteCmd()
	set := fl.String("set", "", "replace the policy: none, all or \"allow RULE; RULE\"")
	var allow listFlag
	fl.Var(&allow, "allow", "add a `RULE` to the policy in force (repeatable)")
	def := fl.Bool("default", false, "remove the workspace's own policy: the server's default applies")
	asJSON := fl.Bool("json", false, "print the policy as JSON")
	rf := addRuleFlags(fl)
	noRules := fl.Bool("no-rules", false, "remove the workspace's path and command rules")
	check := func([]string) error {
		if *noRules && rf.set() {
			return usagef("give --no-rules or rules, not both")
		}
		n := 0
		for _, b := range []bool{*set != "", len(allow) > 0, *def} {
			if b {
				n++
			}
		}
		if n > 1 {
			return usagef("give one of --set, --allow and --default")
		}
		return nil
	}
	return cmd.run(args, st, check, func(c *client.Client, pos []string) error {
		ws := pos[0]
		var info client.PolicyInfo
		var err error
		switch {
		case *def:
			if err = c.DeletePolicy(ctx, ws); err == nil {
				info, err = c.GetPolicy(ctx, ws)
			}
		case *set != "":
			info, err = c.SetPolicy(ctx, ws, client.PolicyRequest{Text: *set})
		case len(allow) > 0:
			if info, err = c.GetPolicy(ctx, ws); err != nil {
				return err
			}
			text := "allow " + strings.Join(allow, "; ")
			if info.Policy.Mode == "all" {
				return fmt.Errorf("the policy in force is all: --allow would narrow it to its rules; use --set")
			}
			if info.Policy.Mode == "allow" {
				text = info.Text + "; " + strings.Join(allow, "; ")
			}
			info, err = c.SetPolicy(ctx, ws, client.PolicyRequest{Text: text})
		default:
			info, err = c.GetPolicy(ctx, ws)
		}
		if err != nil {
			return err
		}
		var rules client.RulesInfo
		switch {
		case *noRules:
			if err = c.DeleteRules(ctx, ws); err == nil {
				rules, err = c.GetRules(ctx, ws)
			}
		case rf.set():
			if rules, err = c.GetRules(ctx, ws); err != nil {
				return err
			}
			r, err2 := rf.apply(rules.Rules)
			if err2 != nil {
				return err2
			}
			rules, err = c.SetRules(ctx, ws, r)
		default:
			rules, err = c.GetRules(ctx, ws)
		}
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(st.out).Encode(struct {
				client.PolicyInfo
				Rules client.Rules `json:"rules"`
			}{info, rules.Rules})
		}
		defer printRules(st.out, rules.Rules)
		src := "its own"
		if info.Source == "default" {
			src = "the server's default"
		}
		fmt.Fprintf(st.out, "workspace %s: %s (%s)\n", ws, info.Policy.Mode, src)
		for _, r := range strings.Split(strings.TrimPrefix(info.Text, "allow "), "; ") {
			if info.Policy.Mode == "allow" {
				fmt.Fprintf(st.out, "  allow %s\n", r)
			}
		}
		return nil
	})
}

// secretGroup is `desk secret`.
var secretGroup = &group{
	name:    "secret",
	summary: "Store, list and delete a workspace's secrets: values executions send to given hosts without ever seeing them.",
}

func init() {
	secretGroup.verbs = []groupVerb{
		{secretSetSpec, runSecretSet},
		{secretLsSpec, runSecretLs},
		{secretRmSpec, runSecretRm},
	}
}

var secretSetSpec = &cmdSpec{
	name: "secret set", synopsis: "WS NAME --host HOST [--host HOST...] < VALUE", minArgs: 2, maxArgs: 2,
	summary: "store a secret (admin token), its value read from standard input",
	help: `Executions of the workspace see $NAME set to a placeholder (desk-secret-NAME-…);
desk's egress replaces the placeholder by the value in the requests to the
given hosts only (headers, and the URL of plain HTTP). The value is stored
with mode 0600 outside the workspace and never shown again. One trailing
newline of standard input is dropped.`,
}

func runSecretSet(ctx context.Context, args []string, st streams) int {
	sp := secretSetSpec
	fl := sp.flags()
	sf := addServerFlags(fl)
	var hosts listFlag
	fl.Var(&hosts, "host", "a `HOST` the secret may be sent to: a name, *.domain or an address (repeatable, at least one)")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	if len(hosts) == 0 {
		return sp.usageError(st, fl, usagef("give at least one --host"))
	}
	b, err := io.ReadAll(io.LimitReader(st.in, 1<<20))
	if err != nil {
		return sp.fail(st, fmt.Errorf("read the value: %w", err))
	}
	value := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	return sp.remote(st, sf, func(c *client.Client) error {
		s, err := c.SetSecret(ctx, pos[0], pos[1], client.SecretRequest{Value: value, Hosts: hosts})
		if err != nil {
			return err
		}
		fmt.Fprintf(st.out, "secret %s of %s: for %s; executions see $%s=%s\n", s.Name, pos[0], strings.Join(s.Hosts, ", "), s.Name, s.Placeholder)
		return nil
	})
}

var secretLsSpec = &cmdSpec{
	name: "secret ls", synopsis: "WS", minArgs: 1, maxArgs: 1,
	summary: "list a workspace's secrets: names, hosts, placeholders (admin token)",
}

func runSecretLs(ctx context.Context, args []string, st streams) int {
	cmd, _ := secretLsSpec.remoteCmd()
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		l, err := c.ListSecrets(ctx, pos[0])
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(st.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tHOSTS\tPLACEHOLDER")
		for _, s := range l.Secrets {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, strings.Join(s.Hosts, ","), s.Placeholder)
		}
		return tw.Flush()
	})
}

var secretRmSpec = &cmdSpec{
	name: "secret rm", synopsis: "WS NAME", minArgs: 2, maxArgs: 2,
	summary: "delete a secret (admin token)",
}

func runSecretRm(ctx context.Context, args []string, st streams) int {
	cmd, _ := secretRmSpec.remoteCmd()
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		if err := c.DeleteSecret(ctx, pos[0], pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(st.out, "deleted secret %s of %s\n", pos[1], pos[0])
		return nil
	})
}
