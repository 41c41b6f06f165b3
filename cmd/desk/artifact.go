package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/desk-dev/desk/client"
)

// artifactGroup is `desk artifact`: published git repositories.
var artifactGroup = &group{
	name: "artifact",
	summary: "Publish a workspace's git repository so that git can clone, fetch and push it\n" +
		"over HTTP at /git/WS/NAME.git, with tokens scoped read or write that expire.",
}

func init() {
	artifactGroup.verbs = []groupVerb{
		{artifactCreateSpec, runArtifactCreate},
		{artifactTokenSpec, runArtifactToken},
		{artifactLsSpec, runArtifactLs},
		{artifactRevokeSpec, runArtifactRevoke},
		{artifactRmSpec, runArtifactRm},
	}
}

func printJSON(st streams, v any) error {
	enc := json.NewEncoder(st.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

var artifactCreateSpec = &cmdSpec{
	name: "artifact create", synopsis: "WS NAME [--path /workspace/repo]", minArgs: 2, maxArgs: 2,
	summary: "publish the workspace's git repository (or one at --path) as NAME",
	help: `The repository (a work tree with .git, or a bare repository; default
/workspace, a relative --path is taken from /workspace) becomes clonable at
the URL printed, with a token of desk artifact token. A push with a write
token lands in the repository: fast-forwards only, and when it moves the
checked-out branch the work tree follows (refused if local changes there
would be overwritten). The repository itself is never copied.`,
}

func runArtifactCreate(ctx context.Context, args []string, st streams) int {
	cmd, fl := artifactCreateSpec.remoteCmd()
	p := fl.String("path", "", "the repository's path in the workspace (default /workspace)")
	asJSON := fl.Bool("json", false, "print the artifact as JSON")
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		a, err := c.CreateArtifact(ctx, pos[0], client.ArtifactRequest{Name: pos[1], Path: *p})
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(st, a)
		}
		fmt.Fprintln(st.out, a.URL)
		fmt.Fprintf(st.err, "desk artifact: %s of workspace %s published as %s; clone it with a token: desk artifact token %s %s [--scope write]\n",
			a.Path, a.Workspace, a.Name, a.Workspace, a.Name)
		return nil
	})
}

var artifactTokenSpec = &cmdSpec{
	name: "artifact token", synopsis: "WS NAME [--scope read|write] [--ttl 24h]", minArgs: 2, maxArgs: 2,
	summary: "mint a token of a published repository: print its clone URL with the token in it",
	help: `The URL is printed alone on standard output (git clone "$(desk artifact token
demo site)"); the token's id and expiry go to standard error. The token is
the URL's password: it is shown only now (the server keeps a digest). A read
token clones and fetches, a write token also pushes. --ttl is a duration
(90m, 36h) or days (7d), at most 30d; default 24h.`,
}

func runArtifactToken(ctx context.Context, args []string, st streams) int {
	cmd, fl := artifactTokenSpec.remoteCmd()
	scope := fl.String("scope", "read", "read (clone, fetch) or write (also push)")
	ttlFlag := fl.String("ttl", "24h", "how long the token works: a duration (90m, 36h) or days (7d); at most 30d")
	asJSON := fl.Bool("json", false, "print the token, its secret and URL included, as JSON")
	var ttl time.Duration
	check := func([]string) (err error) {
		if ttl, err = parseExpiry(*ttlFlag); err != nil {
			return usagef("--ttl %q: want a duration (90m, 1h, 36h) or whole days (7d)", *ttlFlag)
		}
		if ttl > 30*24*time.Hour {
			return usagef("--ttl %s is over the limit of 30d (720h)", *ttlFlag)
		}
		if *scope != client.ArtifactScopeRead && *scope != client.ArtifactScopeWrite {
			return usagef("--scope %q: want read or write", *scope)
		}
		return nil
	}
	return cmd.run(args, st, check, func(c *client.Client, pos []string) error {
		t, err := c.CreateArtifactToken(ctx, pos[0], pos[1], client.ArtifactTokenRequest{Scope: *scope, TTL: int64(ttl / time.Second)})
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(st, t)
		}
		fmt.Fprintln(st.out, t.URL)
		fmt.Fprintf(st.err, "desk artifact: %s token %s of %s/%s until %s (desk artifact revoke %s %s %s ends it)\n",
			t.Scope, t.ID, t.Workspace, t.Artifact, t.Expires.Local().Format("2006-01-02 15:04:05"), t.Workspace, t.Artifact, t.ID)
		return nil
	})
}

var artifactLsSpec = &cmdSpec{
	name: "artifact ls", synopsis: "WS [NAME]", minArgs: 1, maxArgs: 2,
	summary: "list a workspace's published repositories, or with NAME that one's tokens (never their secrets)",
}

func runArtifactLs(ctx context.Context, args []string, st streams) int {
	cmd, fl := artifactLsSpec.remoteCmd()
	asJSON := fl.Bool("json", false, "print one JSON object per artifact or token")
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		if len(pos) == 1 {
			l, err := c.ListArtifacts(ctx, pos[0])
			return table(st, *asJSON, "NAME\tPATH\tCREATED\tURL", onePage(l.Artifacts, err), func(a client.Artifact) string {
				return fmt.Sprintf("%s\t%s\t%s\t%s", a.Name, a.Path, stamp(a.Created), a.URL)
			})
		}
		l, err := c.ListArtifactTokens(ctx, pos[0], pos[1])
		return table(st, *asJSON, "ID\tSCOPE\tCREATED\tEXPIRES\tSTATE", onePage(l.Tokens, err), func(t client.ArtifactToken) string {
			return fmt.Sprintf("%s\t%s\t%s\t%s\t%s", t.ID, t.Scope, stamp(t.Created), stamp(t.Expires), t.State)
		})
	})
}

var artifactRevokeSpec = &cmdSpec{
	name: "artifact revoke", synopsis: "WS NAME TOKEN_ID", minArgs: 3, maxArgs: 3,
	summary: "revoke a token of a published repository: it stops working at once (ID as listed by artifact ls WS NAME)",
}

func runArtifactRevoke(ctx context.Context, args []string, st streams) int {
	cmd, _ := artifactRevokeSpec.remoteCmd()
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		if err := c.RevokeArtifactToken(ctx, pos[0], pos[1], pos[2]); err != nil {
			return err
		}
		fmt.Fprintf(st.out, "revoked token %s of %s\n", pos[2], pos[1])
		return nil
	})
}

var artifactRmSpec = &cmdSpec{
	name: "artifact rm", synopsis: "WS NAME", minArgs: 2, maxArgs: 2,
	summary: "unpublish a repository: its URL and tokens stop working (the repository is kept)",
}

func runArtifactRm(ctx context.Context, args []string, st streams) int {
	cmd, _ := artifactRmSpec.remoteCmd()
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		if err := c.DeleteArtifact(ctx, pos[0], pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(st.out, "unpublished %s\n", pos[1])
		return nil
	})
}
