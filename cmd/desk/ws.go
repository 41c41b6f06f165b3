package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/desk-dev/desk/client"
)

// wsGroup is `desk ws`: workspaces on the desk server.
var wsGroup = &group{
	name:    "ws",
	summary: "Create, list, describe and delete the workspaces of the desk server.",
}

func init() {
	wsGroup.verbs = []groupVerb{
		{wsCreateSpec, runWSCreate},
		{wsLsSpec, runWSLs},
		{wsStatsSpec, runWSStats},
		{wsRmSpec, runWSRm},
		{wsPolicySpec, runWSPolicy}, // policy.go
		{wsLimitsSpec, runWSLimits}, // limits.go
	}
}

var nameRuleHelp = `A workspace name is 1 to 63 characters from a-z, 0-9, ".", "_" and "-",
starting with a letter or digit, without "..".`

var wsCreateSpec = &cmdSpec{
	name: "ws create", synopsis: "NAME [--from-git URL [--ref R] [--depth N]] [--egress POLICY]", minArgs: 1, maxArgs: 1,
	summary: "create a workspace, empty or holding a clone of a git repository (admin token)",
	help: nameRuleHelp + `

--from-git clones the repository (http or https) into /workspace, printing
the clone's progress on standard error; the clone goes through the new
workspace's egress policy (--egress, stored first), else the server's
default (desk serve --egress). If the clone fails, no workspace is left.`,
}

func runWSCreate(ctx context.Context, args []string, st streams) int {
	cmd, fl := wsCreateSpec.remoteCmd()
	from := fl.String("from-git", "", "clone this git repository (an http or https URL) into the new workspace")
	ref := fl.String("ref", "", "with --from-git: the branch (or full commit id) to check out (default the remote's HEAD)")
	depth := fl.Int("depth", 0, "with --from-git: clone only this many commits of history (0: all)")
	pol := fl.String("egress", "", "the new workspace's egress policy: none, all or \"allow RULE; RULE\" (see desk ws policy)")
	check := func([]string) error {
		if *from == "" && (*ref != "" || *depth != 0) {
			return usagef("--ref and --depth go with --from-git")
		}
		return nil
	}
	return cmd.run(args, st, check, func(c *client.Client, pos []string) error {
		req := client.WorkspaceRequest{Name: pos[0], Egress: *pol}
		if *from == "" && *pol == "" {
			w, err := c.CreateWorkspace(ctx, pos[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(st.out, "created workspace %s\n", w.Name)
			return nil
		}
		if *from != "" {
			req.From = &client.WorkspaceSource{Git: *from, Ref: *ref, Depth: *depth}
		}
		s, err := c.CreateWorkspaceFrom(ctx, req, client.NDJSON)
		if err != nil {
			return err
		}
		defer s.Close()
		for {
			ev, err := s.Next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					return fmt.Errorf("create workspace %s: the server ended the stream early", pos[0])
				}
				return err
			}
			switch ev.Type {
			case "progress":
				io.WriteString(st.err, ev.Text)
			case "created":
				if ev.Workspace != nil {
					fmt.Fprintf(st.out, "created workspace %s\n", ev.Workspace.Name)
				}
				return nil
			}
		}
	})
}

var wsLsSpec = &cmdSpec{
	name: "ws ls", synopsis: "", minArgs: 0, maxArgs: 0,
	summary: "list workspaces: name, size on disk, last modification, state",
	help: `STATE is "in use (N)" while N requests or executions hold the workspace,
"open" while it is open and idle, "hibernated" when it is closed (a file on
disk, costing nothing) until its next use. A workspace token sees its own
workspace only.`,
}

func runWSLs(ctx context.Context, args []string, st streams) int {
	cmd, fl := wsLsSpec.remoteCmd()
	asJSON := fl.Bool("json", false, "print one JSON object per workspace")
	quiet := fl.Bool("q", false, "print the names only")
	return cmd.run(args, st, nil, func(c *client.Client, _ []string) error {
		header := "NAME\tSIZE\tMODIFIED\tSTATE"
		if *quiet {
			header = ""
		}
		return table(st, *asJSON, header, func(after string) ([]client.Workspace, string, error) {
			l, err := c.ListWorkspaces(ctx, after, 0)
			return l.Workspaces, l.Next, err
		}, func(w client.Workspace) string {
			if *quiet {
				return w.Name
			}
			state := "hibernated"
			switch {
			case w.Leases > 0:
				state = fmt.Sprintf("in use (%d)", w.Leases)
			case w.Open:
				state = "open"
			}
			return fmt.Sprintf("%s\t%s\t%s\t%s", w.Name, humanBytes(w.Bytes), stamp(w.Modified), state)
		})
	})
}

var wsStatsSpec = &cmdSpec{
	name: "ws stats", synopsis: "NAME", minArgs: 1, maxArgs: 1,
	summary: "open a workspace and report its contents, running executions and backends",
}

func runWSStats(ctx context.Context, args []string, st streams) int {
	cmd, fl := wsStatsSpec.remoteCmd()
	asJSON := fl.Bool("json", false, "print the stats as JSON")
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		s, err := c.WorkspaceStats(ctx, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(st.out)
			enc.SetIndent("", "  ")
			return enc.Encode(s)
		}
		row := func(name, value string) { fmt.Fprintf(st.out, "%-13s %s\n", name, value) }
		bytes := func(n int64) string { return fmt.Sprintf("%d (%s)", n, humanBytes(n)) }
		backends := strings.Join(s.Backends, ", ")
		if backends == "" {
			backends = "none"
		}
		row("workspace", s.Name)
		row("opened", s.OpenedAt.Local().Format("2006-01-02 15:04:05"))
		row("files", fmt.Sprint(s.Store.Files))
		row("dirs", fmt.Sprint(s.Store.Dirs))
		row("symlinks", fmt.Sprint(s.Store.Symlinks))
		row("bytes", bytes(s.Store.Bytes))
		row("stored bytes", bytes(s.Store.StoredBytes))
		row("unique bytes", bytes(s.Store.UniqueBytes))
		row("chunks", fmt.Sprint(s.Store.Chunks))
		row("dedup ratio", fmt.Sprintf("%.2f", s.Store.DedupRatio))
		row("journal seq", fmt.Sprint(s.Store.JournalSeq))
		row("database", bytes(s.Store.DBBytes))
		row("running", fmt.Sprint(s.Running))
		row("backends", backends)
		return nil
	})
}

var wsRmSpec = &cmdSpec{
	name: "ws rm", synopsis: "NAME", minArgs: 1, maxArgs: 1,
	summary: "delete a workspace and all its files (admin token); its tokens are revoked",
	help:    "A workspace that is in use (a running execution, an open stream) is refused (in_use).",
}

func runWSRm(ctx context.Context, args []string, st streams) int {
	cmd, _ := wsRmSpec.remoteCmd()
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		if err := c.DeleteWorkspace(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(st.out, "deleted workspace %s\n", pos[0])
		return nil
	})
}
