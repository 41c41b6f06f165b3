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
	fmt.Fprintf(w, "| scenario | sandbox (FUSE) ms | tmpfs ms | %s ms | ×tmpfs | ×%s | target | |\n", r.DiskFS, r.DiskFS)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|---|")
	for _, row := range r.Rows {
		verdict := ""
		if row.Target.String() != "" {
			verdict = "met"
			if !row.Met() {
				verdict = "**missed**"
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %.2f | %.2f | %s | %s |\n", row.Name,
			msText(row.Times[Sandbox]), msText(row.Times[Tmpfs]), msText(row.Times[Disk]),
			row.Ratio(Tmpfs), row.Ratio(Disk), row.Target, verdict)
	}
	fmt.Fprintf(w, "\nMedian of %d runs per cell. Columns: the same scenario in the same kind of sandbox, "+
		"/workspace being the store through FUSE, a tmpfs, or a directory on %s.\n", r.Runs, r.DiskFS)
	var missed []string
	for _, row := range r.Rows {
		if !row.Met() {
			missed = append(missed, row.missText())
		}
	}
	if len(missed) == 0 {
		fmt.Fprintln(w, "Every target is met.")
		return
	}
	fmt.Fprintf(w, "Missed: %s.\n", strings.Join(missed, "; "))
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
