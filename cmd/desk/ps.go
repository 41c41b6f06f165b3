package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/desk-dev/desk/client"
)

var psSpec = &cmdSpec{
	name:     "ps",
	synopsis: "WS [--all] [--json] [-q]",
	summary:  "list a workspace's running executions (--all: every kept record), detached ones marked",
	help: `Columns: the execution id, its status, its backend ("sandbox*" for a detached
execution: a long-running service started with desk exec --service), when it
started, the TCP ports its processes listen on in the sandbox (desk port ls
lists them all, desk port-forward forwards one), and the first line of its
source (cut at 60 characters). Oldest first.
--json prints the records as the API returns them, one per line; -q the ids.`,
	minArgs: 1, maxArgs: 1,
}

// psSourceWidth is where ps cuts an execution's source.
const psSourceWidth = 60

func runPS(ctx context.Context, args []string, st streams) int {
	cmd, fl := psSpec.remoteCmd()
	all := fl.Bool("all", false, "list every kept execution record, not only running ones")
	asJSON := fl.Bool("json", false, "print one JSON object per execution")
	quiet := fl.Bool("q", false, "print the ids only")
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		status := client.StatusRunning
		if *all {
			status = ""
		}
		tw := tabwriter.NewWriter(st.out, 0, 4, 2, ' ', 0)
		ports := map[string][]string{} // execution → its listening ports
		if !*asJSON && !*quiet {
			fmt.Fprintln(tw, "ID\tSTATUS\tBACKEND\tSTARTED\tPORTS\tSOURCE")
			if l, err := c.Ports(ctx, pos[0]); err == nil { // no sandbox backend: no ports
				for _, p := range l.Ports {
					if p.Execution != "" && !slices.Contains(ports[p.Execution], strconv.Itoa(p.Port)) {
						ports[p.Execution] = append(ports[p.Execution], strconv.Itoa(p.Port))
					}
				}
			}
		}
		enc := json.NewEncoder(st.out)
		for after := ""; ; {
			l, err := c.ListExecutions(ctx, pos[0], client.ListExecutionsOptions{After: after, Status: status})
			if err != nil {
				return fmt.Errorf("list executions: %w", err)
			}
			for _, e := range l.Executions {
				switch {
				case *asJSON:
					if err := enc.Encode(e); err != nil {
						return err
					}
				case *quiet:
					fmt.Fprintln(st.out, e.ID)
				default:
					backend := e.Backend
					if e.Detached {
						backend += "*"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Status, backend, e.Started.Local().Format(time.DateTime), strings.Join(ports[e.ID], ","), sourceLine(e.Source))
				}
			}
			if l.Next == "" || len(l.Executions) == 0 {
				break
			}
			after = l.Next
		}
		return tw.Flush()
	})
}

// sourceLine is the first line of an execution's source, cut for a table.
func sourceLine(s string) string {
	line, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	line = strings.Map(func(r rune) rune {
		if r == '\t' || r < ' ' {
			return ' '
		}
		return r
	}, line)
	if r := []rune(line); len(r) > psSourceWidth {
		line, more = string(r[:psSourceWidth-1]), true
	}
	if more {
		line += "…"
	}
	return line
}
