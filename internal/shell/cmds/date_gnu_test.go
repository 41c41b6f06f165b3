package cmds

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// dateInputs generates -d strings that never depend on the current time:
// each has a calendar date (or is @seconds), combined with times, zones,
// days of the week and relative items, in varying orders.
func dateInputs() []string {
	dates := []string{"2024-01-31", "2024-02-29", "2023-12-31", "2024-03-10", "2024-11-03", "20240131",
		"1/31/2024", "01/31/24", "2024/01/31", "31 Jan 2024", "Jan 31 2024", "Jan 31, 2024", "31-jan-2024",
		"JAN-31-2024", "5 Jan 2023", "December 25 99", "feb 29 2023", "2024-13-01", "1970-01-01",
		"2038-01-19", "1969-12-31", "sept 9 2001", "3 mar 68", "3 mar 69", "7/4/76", "2024-06-15",
		"2024-04-31", "jan. 2 2020", "2 August 2024"}
	times := []string{"12:00", "14:30", "23:59:59", "00:00:01.5", "2pm", "12am", "12:30 pm", "9:05:07 am",
		"1230", "12:00 +3", "12:00:00-0800", "24:00", "12:60", "02:30", "01:30", "13pm", "7 am", "12:00:00.123456789",
		"08:15:30 -05:30", "6:00 +0100"}
	isoT := []string{"T12:00:00", "T08:15:30Z", "T12:00+05:30", "T23:59", "T12", "T00:00:00.5-03"}
	zones := []string{"UTC", "Z", "GMT", "EST", "PDT", "CET", "IST", "+0530", "-07:00", "UTC+3", "GMT-5",
		"A", "N", "EDT", "JST", "UT", "utc", "NZDT", "EST DST", "bogus"}
	rels := []string{"yesterday", "tomorrow", "today", "now", "+1 day", "- 1 day", "1 day ago", "3 weeks",
		"next month", "last year", "+1 month", "-1 month", "2 hours", "+3 hours", "90 minutes ago",
		"1 fortnight", "next week", "last day", "this hour", "5 secs", "1.5 seconds", "1 day hence",
		"+2 years", "12 mins", "third day", "-3 days ago", "month", "2 months ago", "+ 36 hours",
		"1 year 2 months 3 days", "-1.25 sec", "10 min ago"}
	days := []string{"monday", "next monday", "last friday", "thursday,", "third monday", "tue", "sun"}
	fixed := []string{"@0", "@1700000000", "@-1.5", "@ 5", "@1.999999999", "@1700000000 +1 day", "@+7",
		"2024-01-31 yesterday", "2024-01-31 next monday", "2024-03-10 last friday", "5 Jan 2023 14:30",
		"2024-02-01 - 1 day", "2024-01-31 12:00 +3 hours", "2024-01-31 +1 month", "2024-01-31T12:00:00Z",
		"2024-01-31 (a comment) 10:00", "2024-01-31 12:00 -1 day", `TZ="Asia/Tokyo" 2024-01-31 12:00`,
		`TZ="UTC+3" 2024-01-31 12:00`, `TZ="America/Los_Angeles" 2024-07-04 09:00 +1 day`,
		"20240131 +1 day", "20240131 1230", "2024-01-31 T", "2024-01-31 12:00 T", "jan 5, 12:00",
		"5 Jan 14:30", "january", "2024-01-31 J", "2024-07-01 12:00 EST", "2024-01-31 12:00 UTC UTC",
		"2024-01-31 2024-02-01", "2024-01-31 monday tuesday", "2024-01-31 12:00 13:00", "2024-01-31 +1",
		"2024-01-31 next", "Wed, 31 Jan 2024 10:00:00 +0000", "Wed Jan 31 10:00:00 UTC 2024",
		"2024-01-31 10:00 a.m.", "2024-01-31 10:00 P.M.", "2024-01-31 noon", "2024-001", "2024-1-1",
		"2024-01-31 10:00:00,5", "31.01.2024", "2024-01-31 1 2", "2024-01-31 5", "2024-01-31 99999",
		"2024-01-31 1.5 sec 1.5 sec 1.5 sec 1.5 sec 1.5 sec", "2024-01-31 1.5 sec 1.5 sec 1.5 sec 1.5 sec"}
	r := rand.New(rand.NewSource(10))
	pick := func(l []string) string { return l[r.Intn(len(l))] }
	out := append([]string(nil), fixed...)
	for len(out) < 340 {
		parts := []string{pick(dates)}
		iso := false
		if r.Intn(5) == 0 && strings.Count(parts[0], "-") == 2 && !strings.ContainsAny(parts[0], "aeiou") {
			parts[0] += pick(isoT)
			iso = true
		} else if r.Intn(2) == 0 {
			parts = append(parts, pick(times))
		}
		if r.Intn(4) == 0 {
			parts = append(parts, pick(zones))
		}
		if r.Intn(4) == 0 {
			parts = append(parts, pick(days))
		}
		for n := r.Intn(3); n > 0; n-- {
			parts = append(parts, pick(rels))
		}
		if !iso && r.Intn(4) == 0 {
			r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// deskDate runs the emulated date with now fixed.
func deskDate(tz string, args ...string) (string, int) {
	var out, errb bytes.Buffer
	env := &Env{Ctx: context.Background(), Dir: "/work", Stdout: &out, Stderr: &errb,
		Getenv: func(name string) string {
			if name == "TZ" {
				return tz
			}
			return ""
		},
		Now: func() time.Time { return time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC) }}
	code := Date(env, append([]string{"date"}, args...))
	return out.String(), code
}

// TestDateGNU compares -d parsing with the real GNU date over generated
// inputs in two zones: output of +%F %T %z and exit status.
func TestDateGNU(t *testing.T) {
	path, err := exec.LookPath("date")
	if err != nil {
		requireTool(t, "date")
	}
	inputs := dateInputs()
	total, agree := 0, 0
	for _, tz := range []string{"UTC", "America/New_York"} {
		for _, in := range inputs {
			cmd := exec.Command(path, "-d", in, "+%F %T.%N %z")
			cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ="+tz)
			want, _, wcode := runGNU(t, cmd)
			got, gcode := deskDate(tz, "-d", in, "+%F %T.%N %z")
			total++
			if got == want && gcode == wcode {
				agree++
				continue
			}
			t.Errorf("TZ=%s date -d %q: got %q (exit %d), GNU %q (exit %d)", tz, in, got, gcode, want, wcode)
		}
	}
	t.Logf("%d of %d inputs agree with GNU date", agree, total)
}

// FuzzParseDate: parseDate never panics, and what it accepts formats.
func FuzzParseDate(f *testing.F) {
	for _, s := range dateInputs() {
		f.Add(s)
	}
	now := time.Date(2026, 11, 30, 1, 2, 3, 4, time.UTC)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, loc := range []*time.Location{time.UTC, ny} {
			if tm, ok := parseDate(s, now, loc); ok {
				_ = strftime("%F %T %N %z", tm.In(loc))
			}
		}
	})
}

// TestDateHostile: 100 KB inputs are parsed or refused in one linear pass
// (the token count is at most the byte count), agreeing with GNU date when
// it is on the host.
func TestDateHostile(t *testing.T) {
	gnu, _ := exec.LookPath("date")
	shapes := map[string]string{
		"signs": "-", "parens": "(", "numbers": "1 ", "rel": "+1 day ", "words": "next ", "digits": "9",
		"colons": "1:", "decimals": "1.5 sec ", "letters": "a", "slashes": "1/",
	}
	for name, unit := range shapes {
		s := "2024-01-31 " + strings.Repeat(unit, 100<<10/len(unit))
		p := &dateParser{}
		p.lex(s)
		if len(p.toks) > len(s)+1 {
			t.Errorf("%s: %d tokens from %d bytes", name, len(p.toks), len(s))
		}
		got, code := deskDate("UTC", "-d", s, "+%F %T.%N")
		if gnu == "" {
			continue
		}
		cmd := exec.Command(gnu, "-d", s, "+%F %T.%N")
		cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
		want, _, wcode := runGNU(t, cmd)
		if got != want || code != wcode {
			t.Errorf("%s: got %q (exit %d), GNU %q (exit %d)", name, got, code, want, wcode)
		}
	}
}
