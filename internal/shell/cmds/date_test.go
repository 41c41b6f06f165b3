package cmds

import (
	"testing"
	"time"
)

func TestDate(t *testing.T) {
	now := time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)
	e := map[string]string{}
	ny := map[string]string{"TZ": "America/New_York"}
	const f = "+%Y-%m-%d %H:%M:%S %Z %z %a %A %b %B %j %u %w %e %p %I %y %C %D %T %F %s %N %%"
	runTextRows(t, []textRow{
		{args: []string{"date"}, env: e, now: now, out: "Mon Nov 30 01:02:03 UTC 2026\n", skip: "the real clock"},
		{args: []string{"date", "+%s"}, env: e, now: now, out: "1796000523\n", skip: "the real clock"},
		{args: []string{"date", "-u", "-d", "@0"}, env: e, now: now, out: "Thu Jan  1 00:00:00 UTC 1970\n"},
		{args: []string{"date", "-d", "2026-11-30 01:02:03"}, env: e, now: now, out: "Mon Nov 30 01:02:03 UTC 2026\n"},
		{args: []string{"date", "-d", "2026-11-30", "+%s"}, env: e, now: now, out: "1795996800\n"},
		{args: []string{"date", "-I", "-d", "@0"}, env: e, now: now, out: "1970-01-01\n"},
		{args: []string{"date", "-Iseconds", "-d", "@0"}, env: e, now: now, out: "1970-01-01T00:00:00+00:00\n"},
		{args: []string{"date", "-Ins", "-d", "@0"}, env: e, now: now, out: "1970-01-01T00:00:00,000000000+00:00\n"},
		{args: []string{"date", "-Ihours", "-d", "@0"}, env: e, now: now, out: "1970-01-01T00+00:00\n"},
		{args: []string{"date", "-R", "-d", "@0"}, env: e, now: now, out: "Thu, 01 Jan 1970 00:00:00 +0000\n"},
		{args: []string{"date", "-d", "@1700000000", f}, env: e,
			out: "2023-11-14 22:13:20 UTC +0000 Tue Tuesday Nov November 318 2 2 14 PM 10 23 20 11/14/23 22:13:20 2023-11-14 1700000000 000000000 %\n"},
		{args: []string{"date", "-d", "@0", "+%k|%l|%P|%h|%U|%V|%G|%x|%X|%c|%-d|%_m|%^a|%3N"}, env: e,
			out: " 0|12|am|Jan|00|01|1970|01/01/70|00:00:00|Thu Jan  1 00:00:00 1970|1| 1|THU|000\n"},
		{args: []string{"date", "-d", "@0"}, env: ny, now: now, out: "Wed Dec 31 19:00:00 EST 1969\n"},
		{args: []string{"date", "-u", "-d", "@0"}, env: ny, now: now, out: "Thu Jan  1 00:00:00 UTC 1970\n"},
		{args: []string{"date", "-d", "2026-01-02T03:04:05Z"}, env: e, now: now, out: "Fri Jan  2 03:04:05 UTC 2026\n"},
		{args: []string{"date", "-d", "2026-01-02T03:04:05+02:00"}, env: e, now: now, out: "Fri Jan  2 01:04:05 UTC 2026\n"},
		{args: []string{"date", "-d", "yesterday", "+%F"}, env: e, now: now, out: "2026-11-29\n", skip: "the real clock"},
		{args: []string{"date", "-d", "3 days ago", "+%F"}, env: e, now: now, out: "2026-11-27\n", skip: "the real clock"},
		{args: []string{"date", "-d", "bad"}, env: e, now: now, code: 1, errOut: "date: invalid date ‘bad’\n"},
		{args: []string{"date", "-d", "2024-02-28 +1 day", "+%F"}, env: e, now: now, out: "2024-02-29\n"},
		{args: []string{"date", "-d", "2024-03-01 12:00 2 hours ago", "+%F %T"}, env: e, now: now, out: "2024-03-01 10:00:00\n"},
		{args: []string{"date", "+%Y", "x"}, env: e, now: now, code: 1, errOut: "date: extra operand ‘x’\nTry 'date --help' for more information.\n"},
		{args: []string{"date", "x"}, env: e, now: now, code: 1, errOut: "date: invalid date ‘x’\nTry 'date --help' for more information.\n", skip: "GNU tries x as a [MMDDhhmm] date to set"},
	})
}
