package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/desk-dev/desk/client"
)

var wsLimitsSpec = &cmdSpec{
	name: "ws limits", synopsis: "WS [--max-bytes N] [--max-inodes N] [--max-execs-per-minute N] [--max-cpu-per-day D] [--max-cpu-per-execution D] [--reset] [--json]", minArgs: 1, maxArgs: 1,
	summary: "show or set a workspace's own quotas over the server's (setting: admin token)",
	help: `Without flags: the workspace's own limits and those in force (its own, else
desk serve's --workspace-max-bytes, --workspace-max-inodes,
--max-execs-per-minute, --max-cpu-per-day and --max-cpu-per-execution).
Each flag given sets one of
the workspace's own values; 0 (or "" for a duration) gives it back to the
server's; "none" (a duration) or -1 (executions) means no bound. --reset
removes all of them.

The byte and inode quotas hold from the next write on, the open store
included (EDQUOT past them, as the server's); lowering one below what is
stored removes nothing: writes fail until deletes make room. The execution
bounds hold from the next execution on: past --max-cpu-per-execution an
execution is stopped and ends as cpu-limit (exit code 152).`,
}

func runWSLimits(ctx context.Context, args []string, st streams) int {
	cmd, fl := wsLimitsSpec.remoteCmd()
	bytes := fl.Int64("max-bytes", 0, "the workspace's quota of unique content `BYTES` (0: the server's)")
	inodes := fl.Int64("max-inodes", 0, "its files, directories and symlinks (0: the server's)")
	execs := fl.Int("max-execs-per-minute", 0, "executions it may start per minute (0: the server's; -1: no bound)")
	cpuDay := fl.String("max-cpu-per-day", "", "CPU time its executions may use per UTC day: a Go `DURATION`, none, or \"\" for the server's")
	cpuExec := fl.String("max-cpu-per-execution", "", "CPU time one execution may use (all its processes or goroutines): a Go `DURATION`, none, or \"\" for the server's")
	reset := fl.Bool("reset", false, "remove the workspace's own limits: the server's hold")
	asJSON := fl.Bool("json", false, "print the limits as JSON")
	set := map[string]bool{}
	check := func([]string) error {
		fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if *reset && (set["max-bytes"] || set["max-inodes"] || set["max-execs-per-minute"] || set["max-cpu-per-day"] || set["max-cpu-per-execution"]) {
			return usagef("give --reset or values, not both")
		}
		return nil
	}
	return cmd.run(args, st, check, func(c *client.Client, pos []string) error {
		ws := pos[0]
		var info client.LimitsInfo
		var err error
		switch {
		case *reset:
			info, err = c.DeleteLimits(ctx, ws)
		case set["max-bytes"] || set["max-inodes"] || set["max-execs-per-minute"] || set["max-cpu-per-day"] || set["max-cpu-per-execution"]:
			if info, err = c.GetLimits(ctx, ws); err != nil {
				return err
			}
			l := info.Limits
			if set["max-bytes"] {
				l.MaxBytes = *bytes
			}
			if set["max-inodes"] {
				l.MaxInodes = *inodes
			}
			if set["max-execs-per-minute"] {
				l.MaxExecsPerMinute = *execs
			}
			if set["max-cpu-per-day"] {
				l.MaxCPUPerDay = *cpuDay
			}
			if set["max-cpu-per-execution"] {
				l.MaxCPUPerExecution = *cpuExec
			}
			info, err = c.SetLimits(ctx, ws, l)
		default:
			info, err = c.GetLimits(ctx, ws)
		}
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(st.out).Encode(info)
		}
		tw := tabwriter.NewWriter(st.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "LIMIT\tIN FORCE\tWORKSPACE'S OWN")
		own := func(set bool, v string) string {
			if !set {
				return "(server's)"
			}
			return v
		}
		l, e := info.Limits, info.Effective
		fmt.Fprintf(tw, "max_bytes\t%d\t%s\n", e.MaxBytes, own(l.MaxBytes != 0, fmt.Sprint(l.MaxBytes)))
		fmt.Fprintf(tw, "max_inodes\t%d\t%s\n", e.MaxInodes, own(l.MaxInodes != 0, fmt.Sprint(l.MaxInodes)))
		fmt.Fprintf(tw, "max_execs_per_minute\t%s\t%s\n", countText(e.MaxExecsPerMinute), own(l.MaxExecsPerMinute != 0, countText(l.MaxExecsPerMinute)))
		fmt.Fprintf(tw, "max_cpu_per_day\t%s\t%s\n", e.MaxCPUPerDay, own(l.MaxCPUPerDay != "", l.MaxCPUPerDay))
		fmt.Fprintf(tw, "max_cpu_per_execution\t%s\t%s\n", e.MaxCPUPerExecution, own(l.MaxCPUPerExecution != "", l.MaxCPUPerExecution))
		return tw.Flush()
	})
}

// countText is a bound on a count: none when negative.
func countText(n int) string {
	if n < 0 {
		return "none"
	}
	return fmt.Sprint(n)
}
