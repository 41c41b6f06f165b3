package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/vfs"
)

// typeString names the file type for stat.
func typeString(m uint32) string {
	switch m & vfs.S_IFMT {
	case vfs.S_IFDIR:
		return "directory"
	case vfs.S_IFLNK:
		return "symbolic link"
	case vfs.S_IFREG:
		return "regular file"
	case vfs.S_IFIFO:
		return "fifo" // GNU stat's names
	case vfs.S_IFSOCK:
		return "socket"
	case vfs.S_IFCHR:
		return "character special file"
	case vfs.S_IFBLK:
		return "block special file"
	}
	return fmt.Sprintf("unknown (%#o)", m&vfs.S_IFMT)
}

// humanBytes renders a byte count with a binary unit: "512 B", "1.5 KiB", "3.0 GiB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB", "PiB"} {
		f /= unit
		if f < unit && f > -unit {
			return fmt.Sprintf("%.1f %s", f, u)
		}
	}
	return fmt.Sprintf("%.1f EiB", f/unit)
}

// displayName quotes a file name that contains control or other unprintable

// fullTime renders a time with nanoseconds, as stat(1) does.
func fullTime(t time.Time) string {
	return t.Local().Format("2006-01-02 15:04:05.000000000 -0700")
}

// rate renders bytes per elapsed time.
func rate(n int64, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return humanBytes(int64(float64(n)/d.Seconds())) + "/s"
}

// summaryLine describes a finished import or export.
func summaryLine(s fsio.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d files, %d directories, %d symlinks", s.Files, s.Dirs, s.Symlinks)
	if s.Hardlinks > 0 {
		fmt.Fprintf(&b, ", %d hard links", s.Hardlinks)
	}
	if s.Special > 0 {
		fmt.Fprintf(&b, ", %d special files", s.Special)
	}
	if s.Xattrs > 0 {
		fmt.Fprintf(&b, ", %d xattrs", s.Xattrs)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped", s.Skipped)
	}
	fmt.Fprintf(&b, "; %s in %s (%s)", humanBytes(s.Bytes), s.Elapsed.Round(time.Millisecond), rate(s.Bytes, s.Elapsed))
	return b.String()
}

// table prints a list command's items: one JSON object a line with asJSON,
// else a table of header (tab-separated; "" for none) and one row per item.
// next gives the page after the cursor it is called with ("" first): its
// items and the next cursor, "" after the last page.
func table[T any](st streams, asJSON bool, header string, next func(after string) ([]T, string, error), row func(x T) string) error {
	tw := tabwriter.NewWriter(st.out, 0, 4, 2, ' ', 0)
	enc := json.NewEncoder(st.out)
	if !asJSON && header != "" {
		fmt.Fprintln(tw, header)
	}
	for after := ""; ; {
		items, cursor, err := next(after)
		if err != nil {
			return err
		}
		for _, x := range items {
			if asJSON {
				if err := enc.Encode(x); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintln(tw, row(x))
		}
		if cursor == "" || len(items) == 0 {
			break
		}
		after = cursor
	}
	return tw.Flush()
}

// onePage is table's next for a list that comes in one page.
func onePage[T any](items []T, err error) func(string) ([]T, string, error) {
	return func(string) ([]T, string, error) { return items, "", err }
}

// stamp is how list commands show a time.
func stamp(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }
