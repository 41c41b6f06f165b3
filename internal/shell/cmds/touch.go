package cmds

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("touch", Touch) }

// Touch updates file times, creating missing files (mode 0644), as GNU
// touch: -a / -m change only the access / modification time, -c does not
// create, -d DATE and -t [[CC]YY]MMDDhhmm[.ss] give the time (UTC), -r FILE
// copies another file's times, -h changes a symlink itself.
func Touch(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "a", "m", "c|no-create", "d|date=", "t=", "r|reference=",
		"h|no-dereference", "f", "|time=")
	if !ok {
		return 1
	}
	var onlyA, onlyM, noCreate, noDeref bool
	at, mt := vfs.UtimeNow, vfs.UtimeNow
	for _, o := range opts {
		switch o.name {
		case "a":
			onlyA = true
		case "m":
			onlyM = true
		case "time":
			switch o.val {
			case "atime", "access", "use":
				onlyA = true
			case "mtime", "modify":
				onlyM = true
			}
		case "no-create":
			noCreate = true
		case "no-dereference":
			noDeref = true
		case "date":
			t, ok := fuParseDate(o.val, env.Clock())
			if !ok {
				env.Errorf("touch", "invalid date format %s", quote(env, o.val))
				return 1
			}
			at, mt = t, t
		case "t":
			t, ok := fuParseStamp(o.val, env.Clock())
			if !ok {
				env.Errorf("touch", "invalid date format %s", quote(env, o.val))
				return 1
			}
			at, mt = t, t
		case "reference":
			fi, err := env.FS.Stat(env.Ctx, env.Abs(o.val))
			if err != nil {
				env.Errorf("touch", "failed to get attributes of %s: %s", quoteaf(env, o.val), Strerror(err))
				return 1
			}
			a := fi.Attr()
			at, mt = a.Atime, a.Mtime
		}
	}
	if onlyA && !onlyM {
		mt = vfs.UtimeOmit
	}
	if onlyM && !onlyA {
		at = vfs.UtimeOmit
	}
	if len(operands) == 0 {
		env.Errorf("touch", "missing file operand")
		fuTryHelp(env, "touch")
		return 1
	}
	status := 0
	for _, op := range operands {
		if env.Canceled() {
			return 1
		}
		p := fuAbs(env, op)
		if _, err := env.FS.Lstat(env.Ctx, p); err != nil && fuIsNotExist(err) {
			if noCreate {
				continue
			}
			h, err := env.FS.OpenFile(env.Ctx, p, os.O_WRONLY|os.O_CREATE, 0o644)
			if err != nil {
				env.Errorf("touch", "cannot touch %s: %s", quoteaf(env, op), Strerror(err))
				status = 1
				continue
			}
			h.Close()
		}
		if err := env.FS.Utimens(env.Ctx, p, at, mt, noDeref); err != nil {
			env.Errorf("touch", "setting times of %s: %s", quoteaf(env, op), Strerror(err))
			status = 1
		}
	}
	return status
}

// fuParseDate parses the date forms agents give to touch -d and date -d:
// "now", "today", "yesterday", "tomorrow", "@EPOCH", ISO dates with optional
// time ("2020-01-02", "2020-01-02 03:04[:05[.nnn]]", "T" separator, "Z" or
// a numeric zone), RFC 1123 and "N (second|minute|hour|day|week)s ago".
// Times without a zone are UTC.
func fuParseDate(s string, now time.Time) (time.Time, bool) {
	s = strings.TrimSpace(s)
	day := 24 * time.Hour
	switch strings.ToLower(s) {
	case "now", "":
		return now, true
	case "today":
		return now, true
	case "yesterday":
		return now.Add(-day), true
	case "tomorrow":
		return now.Add(day), true
	}
	if strings.HasPrefix(s, "@") {
		f, err := strconv.ParseFloat(s[1:], 64)
		if err != nil {
			return time.Time{}, false
		}
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC(), true
	}
	if f := strings.Fields(s); len(f) == 3 && strings.ToLower(f[2]) == "ago" || len(f) == 2 {
		if n, err := strconv.Atoi(f[0]); err == nil {
			unit := strings.TrimSuffix(strings.ToLower(f[1]), "s")
			units := map[string]time.Duration{"second": time.Second, "sec": time.Second, "minute": time.Minute,
				"min": time.Minute, "hour": time.Hour, "day": day, "week": 7 * day}
			if u, ok := units[unit]; ok {
				d := time.Duration(n) * u
				if len(f) == 3 {
					d = -d
				}
				return now.Add(d), true
			}
		}
	}
	layouts := []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05.999999999 -0700",
		"2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02 15:04",
		"2006-01-02T15:04", "2006-01-02", "2006/01/02", "2006/01/02 15:04:05", time.RFC1123, time.RFC1123Z,
		time.UnixDate, time.ANSIC, "Jan 2 2006", "2 Jan 2006", "Jan 2 2006 15:04:05", "15:04:05", "15:04"}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			if l == "15:04:05" || l == "15:04" {
				y, m, d := now.UTC().Date()
				t = time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
			}
			return t, true
		}
	}
	return time.Time{}, false
}

// fuParseStamp parses touch -t's [[CC]YY]MMDDhhmm[.ss] in UTC.
func fuParseStamp(s string, now time.Time) (time.Time, bool) {
	main, secs, hasSec := strings.Cut(s, ".")
	if hasSec && len(secs) != 2 {
		return time.Time{}, false
	}
	for _, c := range main + secs {
		if c < '0' || c > '9' {
			return time.Time{}, false
		}
	}
	year := now.UTC().Year()
	switch len(main) {
	case 8:
	case 10:
		yy, _ := strconv.Atoi(main[:2])
		if yy < 69 {
			year = 2000 + yy
		} else {
			year = 1900 + yy
		}
		main = main[2:]
	case 12:
		year, _ = strconv.Atoi(main[:4])
		main = main[4:]
	default:
		return time.Time{}, false
	}
	n := func(i int) int { v, _ := strconv.Atoi(main[i : i+2]); return v }
	sec := 0
	if hasSec {
		sec, _ = strconv.Atoi(secs)
	}
	mo, d, h, mi := n(0), n(2), n(4), n(6)
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(mo), d, h, mi, sec, 0, time.UTC), true
}
