package fsbench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Format writes the report as a Markdown table: milliseconds per
// filesystem, the sandbox's ratios to tmpfs and to the disk, the target and
// whether it is met, then the rows that miss their target in words.
func (r *Report) Format(w io.Writer) {
	bh, bs, bb := "", "", ""
	if r.HasBindfs {
		bh, bs = " bindfs ms | ×bindfs |", "---:|---:|"
	}
	fmt.Fprintf(w, "| scenario | sandbox (FUSE) ms | tmpfs ms | %s ms |%s ×tmpfs | ×%s | target | |\n", r.DiskFS, bh, r.DiskFS)
	fmt.Fprintf(w, "|---|---:|---:|---:|%s---:|---:|---|---|\n", bs)
	for _, row := range r.Rows {
		if r.HasBindfs {
			bb = fmt.Sprintf(" %s | %.2f |", msText(row.Times[Bindfs]), row.Ratio(Bindfs))
		}
		verdict := ""
		if row.Target.String() != "" {
			verdict = "met"
			if !row.Met() {
				verdict = "**missed**"
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |%s %.2f | %.2f | %s | %s |\n", row.Name,
			msText(row.Times[Sandbox]), msText(row.Times[Tmpfs]), msText(row.Times[Disk]), bb,
			row.Ratio(Tmpfs), row.Ratio(Disk), row.Target, verdict)
	}
	fmt.Fprintf(w, "\nMedian of %d runs per cell. Columns: the same scenario in the same kind of sandbox, "+
		"/workspace being the store through FUSE, a tmpfs, or a directory on %s%s.\n", r.Runs, r.DiskFS,
		map[bool]string{true: ", or bindfs over a tmpfs (×bindfs: the sandbox's time over bindfs's)"}[r.HasBindfs])
	var missed []string
	for _, row := range r.Rows {
		if !row.Met() {
			missed = append(missed, row.missText())
		}
	}
	if len(missed) == 0 {
		fmt.Fprintln(w, "Every target is met.")
	} else {
		fmt.Fprintf(w, "Missed: %s.\n", strings.Join(missed, "; "))
	}
	r.formatTraces(w)
}

// formatTraces writes, per row, the FUSE requests of one run's timed part
// (Options.Trace): opcodes, counts and the server's time.
func (r *Report) formatTraces(w io.Writer) {
	for i, tr := range r.Traces {
		if tr == nil || i >= len(r.Rows) {
			continue
		}
		row := r.Rows[i]
		n, d := tr.Requests()
		per := max(r.Runs, 1)
		fmt.Fprintf(w, "\n### %s: FUSE requests per run\n\n", row.Name)
		fmt.Fprintf(w, "%d requests, %s ms in the server, of %s ms for the row on the mount (tmpfs: %s ms); "+
			"the timed script's own start and end are counted too.\n\n",
			n/int64(per), msText(d/time.Duration(per)), msText(row.Times[Sandbox]), msText(row.Times[Tmpfs]))
		tr.Format(w, per)
	}
}

// missText words how far a row is from its target.
func (r Row) missText() string {
	t := r.Target
	if t.Of >= 0 {
		got := r.Ratio(t.Of)
		return fmt.Sprintf("%s: %.2f× %s against ≤ %g× (%.0f%% over)", r.Name, got, FSNames[t.Of], t.Ratio, (got/t.Ratio-1)*100)
	}
	return fmt.Sprintf("%s: %s ms against < %s ms", r.Name, msText(r.Times[Sandbox]), msText(t.Max))
}

// msText formats d in milliseconds with a precision that suits it.
func msText(d time.Duration) string {
	m := ms(d)
	switch {
	case m >= 100:
		return fmt.Sprintf("%.0f", m)
	case m >= 10:
		return fmt.Sprintf("%.1f", m)
	}
	return fmt.Sprintf("%.2f", m)
}
