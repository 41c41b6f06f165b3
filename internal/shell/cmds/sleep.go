package cmds

import (
	"math"
	"strconv"
	"strings"
	"time"
)

func init() { Register("sleep", Sleep) }

// Sleep pauses for the sum of its arguments, as GNU sleep: each a number
// (integer or decimal) with an optional suffix s, m, h or d; "inf" sleeps
// until cancelled. It returns 1 at once when Env.Ctx is cancelled (Kill,
// timeout); the shell reports the kill itself.
func Sleep(env *Env, args []string) int {
	_, ops, ok := parseOpts(env, "sleep", args[1:], optSpec{})
	if !ok {
		return 1
	}
	if len(ops) == 0 {
		missingOperand(env, "sleep")
		return 1
	}
	var total float64
	bad := false
	for _, a := range ops {
		s, ok := parseDuration(a)
		if !ok {
			env.Errorf("sleep", "invalid time interval %s", quote(env, a))
			bad = true
			continue
		}
		total += s
	}
	if bad {
		tryHelp(env, "sleep", "")
		return 1
	}
	if !sleepCtx(env, total) {
		return 1
	}
	return 0
}

// sleepCtx waits secs seconds or until the context ends; it reports whether
// the whole time passed.
func sleepCtx(env *Env, secs float64) bool {
	if env.Canceled() {
		return false
	}
	if secs <= 0 {
		return true
	}
	var c <-chan time.Time
	if secs < float64(math.MaxInt64)/1e9 {
		t := time.NewTimer(time.Duration(secs * 1e9))
		defer t.Stop()
		c = t.C
	}
	select {
	case <-c:
		return true
	case <-env.Ctx.Done():
		return false
	}
}

// parseDuration parses a GNU sleep/timeout interval: a non-negative
// floating-point number with an optional s, m, h or d suffix, in seconds.
func parseDuration(a string) (float64, bool) {
	mult := 1.0
	s := a
	if s != "" {
		switch s[len(s)-1] {
		case 's':
			s = s[:len(s)-1]
		case 'm':
			mult, s = 60, s[:len(s)-1]
		case 'h':
			mult, s = 3600, s[:len(s)-1]
		case 'd':
			mult, s = 86400, s[:len(s)-1]
		}
	}
	if s == "" || strings.ContainsAny(s, "_ \t") || strings.HasPrefix(s, "+") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) || math.IsNaN(f) || f < 0 {
		return 0, false
	}
	return f * mult, true
}
