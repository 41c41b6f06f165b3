package cmds

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

func init() { Register("timeout", Timeout) }

// timeoutSignals maps signal names to numbers (Linux x86-64).
var timeoutSignals = map[string]int{
	"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "IOT": 6, "BUS": 7, "FPE": 8,
	"KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15,
	"STKFLT": 16, "CHLD": 17, "CONT": 18, "STOP": 19, "TSTP": 20, "TTIN": 21, "TTOU": 22,
	"URG": 23, "XCPU": 24, "XFSZ": 25, "VTALRM": 26, "PROF": 27, "WINCH": 28, "IO": 29,
	"POLL": 29, "PWR": 30, "SYS": 31,
}

// Timeout runs COMMAND [ARG]... through Env.Exec with a context that is
// cancelled after DURATION (a number with an optional s, m, h or d suffix;
// 0 disables the limit), as GNU timeout: exit 124 when the time ran out
// (137 when -s KILL, since GNU timeout is then killed with its command),
// otherwise the command's status; --preserve-status returns 128+SIGNAL on
// timeout; -s SIGNAL and -k DURATION are accepted (in process, every
// signal is a cancellation, and a cancelled command stops by itself); -v
// reports the signal sent. Its own errors exit 125.
func Timeout(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "timeout", args[1:], optSpec{shorts: "s:k:v",
		longs: []string{"signal=", "kill-after=", "preserve-status", "foreground", "verbose"}, stop: true})
	if !ok {
		return 125
	}
	sig, sigName := 15, "TERM"
	var preserve, verbose bool
	for _, o := range opts {
		switch o.name {
		case "s", "signal":
			n, name, ok := parseSignal(o.val)
			if !ok {
				tryHelp(env, "timeout", "%s: invalid signal", quote(env, o.val))
				return 125
			}
			sig, sigName = n, name
		case "k", "kill-after":
			if _, ok := parseDuration(o.val); !ok {
				tryHelp(env, "timeout", "invalid time interval %s", quote(env, o.val))
				return 125
			}
		case "preserve-status":
			preserve = true
		case "v", "verbose":
			verbose = true
		}
	}
	if len(ops) < 2 {
		tryHelp(env, "timeout", "")
		return 125
	}
	secs, ok := parseDuration(ops[0])
	if !ok {
		tryHelp(env, "timeout", "invalid time interval %s", quote(env, ops[0]))
		return 125
	}
	ctx, cancel := context.WithCancel(env.Ctx)
	defer cancel()
	var timedOut atomic.Bool
	if secs > 0 && secs < 1e9 {
		t := time.AfterFunc(time.Duration(secs*float64(time.Second)), func() {
			timedOut.Store(true)
			cancel()
		})
		defer t.Stop()
	}
	child := *env
	child.Ctx = ctx
	status := env.Exec(ctx, &child, ops[1:])
	if status == NotFound {
		env.Errorf("timeout", "failed to run command %s: No such file or directory", quote(env, ops[1]))
		return 127
	}
	if timedOut.Load() {
		if verbose {
			// Reported once the command stopped: Stderr is not shared
			// with a second goroutine.
			env.Errorf("timeout", "sending signal %s to command %s", sigName, quote(env, ops[1]))
		}
		if preserve || sig == 9 {
			return 128 + sig
		}
		return 124
	}
	return status
}

// parseSignal parses a signal name ("TERM", "SIGTERM", "term") or number.
func parseSignal(s string) (int, string, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		if n == 0 {
			return 0, "0", true
		}
		for name, v := range timeoutSignals {
			if v == n && name != "IOT" && name != "POLL" {
				return n, name, true
			}
		}
		return 0, "", false
	}
	name := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	if n, ok := timeoutSignals[name]; ok {
		return n, name, true
	}
	return 0, "", false
}
