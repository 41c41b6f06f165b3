package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/client"
)

// shareGroup is `desk share`: share links to workspace files.
var shareGroup = &group{
	name: "share",
	summary: "Share a file of a workspace as a link that anyone holding it can open until it\n" +
		"expires (no token needed), list a workspace's links and revoke them. A link\n" +
		"serves a copy frozen when it was made. desk share WS PATH is desk share create.",
}

func init() {
	shareGroup.verbs = []groupVerb{
		{shareCreateSpec, runShareCreate},
		{shareLsSpec, runShareLs},
		{shareRmSpec, runShareRm},
	}
}

// runShare is `desk share`: a verb, or WS PATH for create.
func runShare(ctx context.Context, args []string, st streams) int {
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "-h" || a == "-help" || a == "--help" || a == "help":
		case shareGroup.lookup(a) == nil:
			return runShareCreate(ctx, args, st) // WS PATH, or its flags first
		}
	}
	return shareGroup.run(ctx, args, st)
}

var shareCreateSpec = &cmdSpec{
	name: "share create", synopsis: "WS PATH [--expires 1h] [--inline|--attachment]", minArgs: 2, maxArgs: 2,
	summary: "share a file: print a link to a copy of it frozen now (also: desk share WS PATH)",
	help: `The link is printed alone on standard output, so that URL=$(desk share demo
out.pdf) works; a description goes to standard error. Anyone holding it can GET
it without a token until it expires (--expires, default 1h, at most 7d: 168h),
or until it is revoked (desk share rm). Later changes to the file do not change
what it serves. A relative PATH is taken from /workspace. The server keeps only
a digest of the link: it is shown only now.

With desk serve --store s3://..., the link is a presigned URL of the S3 bucket.`,
}

// parseExpiry parses --expires: a Go duration (90m, 1h30m) or whole days (7d).
func parseExpiry(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n <= 0 {
			return 0, usagef("--expires %q: want a duration (90m, 1h, 36h) or whole days (7d)", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < time.Second {
		return 0, usagef("--expires %q: want a duration of at least 1s (90m, 1h, 36h) or whole days (7d)", s)
	}
	return v, nil
}

func runShareCreate(ctx context.Context, args []string, st streams) int {
	cmd, fl := shareCreateSpec.remoteCmd()
	expires := fl.String("expires", "1h", "how long the link works: a duration (90m, 36h) or days (7d); at most 7d")
	inline := fl.Bool("inline", false, "a browser shows the file when it can (the default)")
	attachment := fl.Bool("attachment", false, "a browser downloads the file under its name")
	asJSON := fl.Bool("json", false, "print the share, its URL included, as JSON")
	var ttl time.Duration
	check := func([]string) (err error) {
		if ttl, err = parseExpiry(*expires); err != nil {
			return err
		}
		if ttl > 7*24*time.Hour {
			return usagef("--expires %s is over the limit of 7d (168h)", *expires)
		}
		if *inline && *attachment {
			return usagef("--inline and --attachment exclude each other")
		}
		return nil
	}
	return cmd.run(args, st, check, func(c *client.Client, pos []string) error {
		disp := client.DispositionInline
		if *attachment {
			disp = client.DispositionAttachment
		}
		sh, err := c.CreateShare(ctx, pos[0], client.ShareRequest{Path: pos[1], ExpiresIn: int64(ttl / time.Second), Disposition: disp})
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(st.out)
			enc.SetIndent("", "  ")
			return enc.Encode(sh)
		}
		fmt.Fprintln(st.out, sh.URL)
		fmt.Fprintf(st.err, "desk share: %s (%d bytes, %s, %s) until %s; share %s (desk share rm %s %s revokes it)\n",
			sh.Path, sh.Size, sh.ContentType, sh.Disposition, sh.Expires.Local().Format("2006-01-02 15:04:05"), sh.ID, sh.Workspace, sh.ID)
		return nil
	})
}

var shareLsSpec = &cmdSpec{
	name: "share ls", synopsis: "WS", minArgs: 1, maxArgs: 1,
	summary: "list a workspace's share links (never the links themselves), ended ones while kept",
}

func runShareLs(ctx context.Context, args []string, st streams) int {
	cmd, fl := shareLsSpec.remoteCmd()
	asJSON := fl.Bool("json", false, "print one JSON object per share")
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		return table(st, *asJSON, "ID\tPATH\tSIZE\tTYPE\tEXPIRES\tSTATE", func(after string) ([]client.Share, string, error) {
			l, err := c.ListShares(ctx, pos[0], after, 0)
			return l.Shares, l.Next, err
		}, func(sh client.Share) string {
			return fmt.Sprintf("%s\t%s\t%d\t%s\t%s\t%s", sh.ID, sh.Path, sh.Size, sh.ContentType, stamp(sh.Expires), sh.State)
		})
	})
}

var shareRmSpec = &cmdSpec{
	name: "share rm", synopsis: "WS ID", minArgs: 2, maxArgs: 2,
	summary: "revoke a share link: it stops working at once (ID as listed by share ls)",
}

func runShareRm(ctx context.Context, args []string, st streams) int {
	cmd, _ := shareRmSpec.remoteCmd()
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		if err := c.RevokeShare(ctx, pos[0], pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(st.out, "revoked share %s\n", pos[1])
		return nil
	})
}
