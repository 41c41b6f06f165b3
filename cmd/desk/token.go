package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/desk-dev/desk/client"
)

// tokenGroup is `desk token`: workspace tokens (admin only).
var tokenGroup = &group{
	name: "token",
	summary: "Mint, list and revoke workspace tokens (with the admin token). A workspace token\n" +
		"is confined to one workspace and its scopes: read, write, exec (independent of\n" +
		"one another), and optionally the backends it may run.",
}

func init() {
	tokenGroup.verbs = []groupVerb{
		{tokenMintSpec, runTokenMint},
		{tokenLsSpec, runTokenLs},
		{tokenRevokeSpec, runTokenRevoke},
	}
}

var tokenMintSpec = &cmdSpec{
	name: "token mint", synopsis: "--workspace NAME --scopes read,write,exec,approve [--backends ID,...] [--egress POLICY] [--path RULE ...] [--command RULE ...]",
	summary: "mint a workspace token and print its secret (shown only this once)",
	help: `The secret, the bearer token to use (DESK_TOKEN or --token), is printed alone on
standard output so that TOKEN=$(desk token mint ...) works; a description goes
to standard error. The server keeps only its digest: a lost secret cannot be
recovered, only revoked and replaced.`,
	minArgs: 0, maxArgs: 0,
}

// splitList splits a comma-separated flag value, dropping empty elements.
func splitList(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

func runTokenMint(ctx context.Context, args []string, st streams) int {
	cmd, fl := tokenMintSpec.remoteCmd()
	var ws string
	fl.StringVar(&ws, "workspace", "", "the workspace the token is confined to (required)")
	fl.StringVar(&ws, "w", "", "short for --workspace")
	scopes := fl.String("scopes", "", "comma-separated scopes: read, write, exec, approve (required)")
	backends := fl.String("backends", "", "comma-separated backends an exec token may run (default: all)")
	egressPol := fl.String("egress", "", "narrow the workspace's egress policy for what the token runs: none, or \"allow RULE; RULE\" (see desk ws policy -h)")
	asJSON := fl.Bool("json", false, "print the token's description and secret as JSON")
	rf := addRuleFlags(fl)
	var req client.TokenRequest
	check := func([]string) error {
		switch {
		case ws == "":
			return usagef("--workspace is required")
		case len(splitList(*scopes)) == 0:
			return usagef("--scopes is required (read, write, exec; comma-separated)")
		}
		req = client.TokenRequest{Workspace: ws, Scopes: splitList(*scopes), Backends: splitList(*backends), Egress: *egressPol}
		if rf.set() {
			r, err := rf.apply(client.Rules{})
			if err != nil {
				return usagef("%v", err)
			}
			req.Rules = &r
		}
		return nil
	}
	return cmd.run(args, st, check, func(c *client.Client, _ []string) error {
		m, err := c.MintToken(ctx, req)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(st.out)
			enc.SetIndent("", "  ")
			return enc.Encode(m)
		}
		fmt.Fprintln(st.out, m.Secret)
		egressNote := ""
		if m.Token.Egress != "" {
			egressNote = ", egress " + m.Token.Egress
		}
		if r := m.Token.Rules; r != nil {
			egressNote += fmt.Sprintf(", %d path and %d command rules", len(r.Paths), len(r.Commands))
		}
		fmt.Fprintf(st.err, "desk token mint: token %s for workspace %s, scopes %s%s%s; the secret above is shown only once\n",
			m.Token.ID, m.Token.Workspace, strings.Join(m.Token.Scopes, ","), backendsNote(m.Token.Backends), egressNote)
		return nil
	})
}

func backendsNote(b []string) string {
	if len(b) == 0 {
		return ""
	}
	return ", backends " + strings.Join(b, ",")
}

var tokenLsSpec = &cmdSpec{
	name: "token ls", synopsis: "", minArgs: 0, maxArgs: 0,
	summary: "list workspace tokens (never their secrets), revoked ones included",
}

func runTokenLs(ctx context.Context, args []string, st streams) int {
	cmd, fl := tokenLsSpec.remoteCmd()
	asJSON := fl.Bool("json", false, "print one JSON object per token")
	return cmd.run(args, st, nil, func(c *client.Client, _ []string) error {
		return table(st, *asJSON, "ID\tWORKSPACE\tSCOPES\tBACKENDS\tCREATED\tSTATE", func(after string) ([]client.Token, string, error) {
			l, err := c.ListTokens(ctx, after, 0)
			return l.Tokens, l.Next, err
		}, func(t client.Token) string {
			backends, state := strings.Join(t.Backends, ","), "active"
			if backends == "" {
				backends = "all"
			}
			if t.Revoked {
				state = "revoked " + stamp(t.RevokedAt)
			}
			return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", t.ID, t.Workspace, strings.Join(t.Scopes, ","), backends, stamp(t.Created), state)
		})
	})
}

var tokenRevokeSpec = &cmdSpec{
	name: "token revoke", synopsis: "ID", minArgs: 1, maxArgs: 1,
	summary: "revoke a workspace token; it stops working at once (ID as listed by token ls, or the token itself)",
}

func runTokenRevoke(ctx context.Context, args []string, st streams) int {
	cmd, _ := tokenRevokeSpec.remoteCmd()
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		id := pos[0]
		// A whole token, desk_<id>_<secret>, names its id too.
		if rest, ok := strings.CutPrefix(id, "desk_"); ok {
			id, _, _ = strings.Cut(rest, "_")
		}
		if err := c.RevokeToken(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(st.out, "revoked token %s\n", id)
		return nil
	})
}
