package interp

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"mvdan.cc/sh/v3/syntax"
)

// Traps and signals, as bash 5.2 runs them:
//
//   - EXIT runs when the shell (or a subshell) ends, on exit, at the end
//     and on a fatal signal; ERR after a failing simple command (in
//     functions and subshells with set -E only).
//   - DEBUG runs before every simple command, (( )), [[ ]], each for
//     iteration, case and arithmetic for's parts, with BASH_COMMAND the
//     command as bash prints it; RETURN when a function or a sourced file
//     ends. Functions, subshells and command substitutions do not see
//     either unless set -T (functrace) is on or the function has the trace
//     attribute (declare -t); a function that sets one keeps it set.
//   - kill sends a signal to the shell ($$), a subshell ($BASHPID), a
//     child interpreter (bash -c) or a background job ($!): the interpreted
//     script's own processes, never the host's. A signal with a trap runs
//     it once the command running ends; '' ignores it; an untrapped signal
//     whose default is to terminate ends that shell with status 128+n
//     (its EXIT trap runs), interrupting a background job's command; CHLD,
//     CONT, URG, WINCH and the stop signals do nothing.

// sigNames are the signal names by number, as Linux and bash's kill -l
// give them (32 and 33 are glibc's own).
var sigNames = func() [65]string {
	var n [65]string
	for i, s := range []string{"HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"} {
		n[i+1] = s
	}
	n[34] = "RTMIN"
	for i := 1; i <= 15; i++ {
		n[34+i] = "RTMIN+" + strconv.Itoa(i)
	}
	for i := 14; i >= 1; i-- {
		n[64-i] = "RTMAX-" + strconv.Itoa(i)
	}
	n[64] = "RTMAX"
	return n
}()

// signals maps a signal's name (no SIG) to its number.
var signals = func() map[string]int {
	m := map[string]int{"IOT": 6, "POLL": 29, "CLD": 17}
	for i, s := range sigNames {
		if s != "" {
			m[s] = i
		}
	}
	return m
}()

// sigList is kill -l's and trap -l's listing.
func sigList() string {
	var b strings.Builder
	k := 0
	for i, s := range sigNames {
		if s == "" {
			continue
		}
		fmt.Fprintf(&b, "%2d) SIG%s", i, s)
		k++
		if k%5 == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte('\t')
		}
	}
	if k%5 != 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// sigNum is the number of a signal named s (TERM, SIGTERM, 15).
func sigNum(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 0 && n < len(sigNames) && (n == 0 || sigNames[n] != "") {
			return n, true
		}
		return 0, false
	}
	u := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	n, ok := signals[u]
	return n, ok
}

// sigName is the trap name of a signal spec: EXIT, DEBUG, ERR, RETURN or a
// signal's name without SIG.
func sigName(s string) (string, bool) {
	u := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	switch u {
	case "EXIT", "0":
		return "EXIT", true
	case "ERR", "DEBUG", "RETURN":
		return u, true
	}
	if n, ok := sigNum(s); ok && n > 0 {
		return sigNames[n], true
	}
	return "", false
}

// trapOrder is the order bash lists traps in: EXIT, the signals by number,
// DEBUG, ERR, RETURN.
func trapOrder(name string) int {
	switch name {
	case "EXIT":
		return 0
	case "DEBUG":
		return 100
	case "ERR":
		return 101
	case "RETURN":
		return 102
	}
	return signals[name]
}

// trapLine is a trap as trap -p prints it.
func trapLine(name, action string) string {
	if _, ok := signals[name]; ok {
		name = "SIG" + name
	}
	return "trap -- " + shellQuote(action) + " " + name + "\n"
}

func biTrap(r *Runner, args []string) error {
	args = args[1:]
	list, print := false, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		bad := rune(0)
		for _, c := range a[1:] {
			switch c {
			case 'l':
				list = true
			case 'p':
				print = true
			default:
				if bad == 0 {
					bad = c
				}
			}
		}
		if bad != 0 {
			r.errf("trap: -%c: invalid option", bad)
			fmt.Fprintln(r.stderr(), "trap: usage: trap [-lp] [[arg] signal_spec ...]")
			r.status = 2
			return nil
		}
		args = args[1:]
	}
	if list {
		fmt.Fprint(r.stdout(), sigList())
		r.status = 0
		return nil
	}
	if len(args) == 0 || print {
		traps := r.shownTraps()
		st := 0
		var keys []string
		if len(args) > 0 {
			var names []string
			names, st = r.trapNames(args)
			for _, n := range names {
				if _, ok := traps[n]; ok {
					keys = append(keys, n)
				}
			}
		} else {
			for k := range traps {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool { return trapOrder(keys[i]) < trapOrder(keys[j]) })
		}
		var b strings.Builder
		for _, k := range keys {
			b.WriteString(trapLine(k, traps[k]))
		}
		fmt.Fprint(r.stdout(), b.String())
		r.status = st
		return nil
	}
	action := args[0]
	sigs := args[1:]
	if len(args) == 1 {
		if action == "-" {
			fmt.Fprintln(r.stderr(), "trap: usage: trap [-lp] [[arg] signal_spec ...]")
			r.status = 2
			return nil
		}
		action, sigs = "-", args
	} else if _, err := strconv.Atoi(action); err == nil {
		// trap 2 3: a first argument that is a number is a signal too
		action, sigs = "-", args
	}
	r.ownTraps = true
	names, st := r.trapNames(sigs)
	for _, n := range names {
		if action == "-" {
			r.setTrap(n, nil)
		} else {
			r.setTrap(n, &action)
		}
	}
	r.status = st
	return nil
}

// trapNames are the trap names of signal specs; an invalid one is
// reported and makes st 1.
func (r *Runner) trapNames(specs []string) (names []string, st int) {
	for _, s := range specs {
		n, ok := sigName(s)
		if !ok {
			r.errf("trap: %s: invalid signal specification", s)
			st = 1
			continue
		}
		names = append(names, n)
	}
	return names, st
}

// shownTraps are the traps trap lists: a subshell's parent's until it
// sets one of its own (bash's $(trap -p) idiom).
func (r *Runner) shownTraps() map[string]string {
	if !r.ownTraps && r.parentTraps != nil {
		return r.parentTraps
	}
	return r.traps
}

// traced reports whether a function sees the DEBUG and RETURN traps.
func (r *Runner) traced(name string) bool {
	return r.opts["functrace"] || r.funcTrace[name]
}

// debugCmd reports whether a command is one bash runs the DEBUG trap
// before and names in BASH_COMMAND.
func debugCmd(c syntax.Command) bool {
	switch c.(type) {
	case *syntax.CallExpr, *syntax.DeclClause, *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		return true
	}
	return false
}

// debugTrap runs the DEBUG trap (when set) before a command; text is
// BASH_COMMAND when the command is not the current statement's.
func (r *Runner) debugTrap(st *syntax.Stmt, text string) error {
	if !r.inTrap {
		r.curStmt, r.curSrc, r.curText = st, r.src, text
	}
	t, ok := r.traps["DEBUG"]
	if !ok || r.inTrap {
		return nil
	}
	return r.runTrap(t)
}

// runTrap runs a trap's action, $? kept unless it exits or returns.
func (r *Runner) runTrap(action string) error {
	st := r.status
	r.inTrap = true
	err := r.evalString(action, "trap")
	r.inTrap = false
	if err == nil {
		r.status = st
	}
	return err
}

// bashCommand is $BASH_COMMAND: the command running, or the one a trap
// runs for, as bash prints it (words as written, one blank between them).
func (r *Runner) bashCommand() string {
	if r.curText != "" || r.curStmt == nil {
		return r.curText
	}
	st := r.curStmt
	old := r.src
	r.src = r.curSrc
	defer func() { r.src = old }()
	var parts []string
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range c.Assigns {
			parts = append(parts, r.nodeText(a))
		}
		for _, w := range c.Args {
			parts = append(parts, r.nodeText(w))
		}
	case *syntax.DeclClause:
		parts = append(parts, c.Variant.Value)
		for _, a := range c.Args {
			parts = append(parts, r.nodeText(a))
		}
	case *syntax.LetClause:
		parts = append(parts, "let")
		for _, x := range c.Exprs {
			parts = append(parts, r.nodeText(x))
		}
	default:
		parts = append(parts, r.nodeText(st.Cmd))
	}
	for _, rd := range st.Redirs {
		s := ""
		if rd.N != nil {
			s = rd.N.Value
		}
		switch rd.Op {
		case syntax.DplIn, syntax.DplOut:
			parts = append(parts, s+rd.Op.String()+r.nodeText(rd.Word))
		default:
			parts = append(parts, s+rd.Op.String(), r.nodeText(rd.Word))
		}
	}
	return unmark(strings.Join(parts, " "))
}

// returnTrap runs the RETURN trap; after a return builtin bash gives it
// $? 0 (the status returned is set after it).
func (r *Runner) returnTrap(action string, isRet bool) {
	st := r.status
	if isRet {
		r.status = 0
	}
	r.inTrap = true
	r.evalString(action, "trap")
	r.inTrap = false
	r.status = st
}

// Signals.

// sigKilled is the context cause of a background job a signal ends.
type sigKilled struct{ n int }

func (e sigKilled) Error() string { return "killed by signal " + strconv.Itoa(e.n) }

// procTable is the execution's shells kill can reach, by pid: the main
// shell, child interpreters and background jobs.
type procTable struct {
	mu sync.Mutex
	m  map[int]*proc
}

type proc struct {
	r      *Runner
	cancel context.CancelCauseFunc // nil: not interruptible (runs the caller)
}

func (t *procTable) add(pid int, p *proc) {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[int]*proc{}
	}
	t.m[pid] = p
	t.mu.Unlock()
}

func (t *procTable) remove(pid int) {
	t.mu.Lock()
	delete(t.m, pid)
	t.mu.Unlock()
}

func (t *procTable) get(pid int) *proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[pid]
}

// ignoredByDefault: signals whose default action does not end a shell
// (the stop signals stop nothing here).
func ignoredByDefault(n int) bool {
	switch n {
	case 17, 18, 19, 20, 21, 22, 23, 28:
		return true
	}
	return false
}

// signal delivers signal n to the shell with pid (false: there is none).
func (r *Runner) signal(pid, n int) bool {
	var target *Runner
	var cancel context.CancelCauseFunc
	if pid == r.pid {
		target = r
	} else if p := r.sh.procs.get(pid); p != nil {
		target, cancel = p.r, p.cancel
	} else {
		return false
	}
	if n == 0 {
		return true
	}
	target.sig.pending.Or(1 << uint(n))
	if cancel != nil && target != r {
		// an untrapped fatal signal interrupts the job's command; a
		// trapped one waits for it, as bash's traps do
		if _, trapped := target.trapFor(n); !trapped && !ignoredByDefault(n) {
			cancel(sigKilled{n})
		}
	}
	return true
}

// trapFor is the trap of signal n, read safely from another goroutine.
func (r *Runner) trapFor(n int) (string, bool) {
	r.sig.mu.Lock()
	defer r.sig.mu.Unlock()
	t, ok := r.traps[sigNames[n]]
	return t, ok
}

// sigState is what another goroutine's kill reaches of a shell: the
// signals sent and not yet taken, and the lock on its traps (written by
// the shell, read by kill).
type sigState struct {
	mu      sync.Mutex
	pending atomic.Uint64
}

// setTrap sets (action non-nil) or removes a trap.
func (r *Runner) setTrap(name string, action *string) {
	r.sig.mu.Lock()
	if action == nil {
		delete(r.traps, name)
	} else {
		r.traps[name] = *action
	}
	r.sig.mu.Unlock()
}

// takeSignals runs what the signals sent to this shell call for.
func (r *Runner) takeSignals() error {
	for r.sig.pending.Load() != 0 && !r.inTrap {
		bits := r.sig.pending.Swap(0)
		for n := 1; n < len(sigNames); n++ {
			if bits&(1<<uint(n)) == 0 {
				continue
			}
			t, ok := r.trapFor(n)
			switch {
			case n == 17:
				// bash runs a CHLD trap as its children end, not for a kill
			case ok && t == "":
			case ok:
				if err := r.runTrap(t); err != nil {
					return err
				}
			case n == 9 || !ignoredByDefault(n):
				return r.dieOf(n)
			}
		}
	}
	return nil
}

// dieOf ends the shell as signal n does: status 128+n.
func (r *Runner) dieOf(n int) error {
	r.killedBy = n
	r.status = 128 + n
	return exitCode(128 + n)
}

// reportKilled prints what bash prints when a foreground child shell
// died of a signal (SIGTERM: "Terminated"; the others name a pid).
func (r *Runner) reportKilled(n, pid int, st *syntax.Stmt) {
	switch {
	case n == 2 || n == 13:
		// SIGINT and SIGPIPE: nothing
	case n == 15 || r.trapped(n):
		fmt.Fprintln(r.stderr(), sigText(n))
	default:
		fmt.Fprintf(r.stderr(), "%s%5d %-24s%s\n", r.prefix(), pid, sigText(n), stmtText(st))
	}
}

// trapped reports whether this shell traps (or ignores) signal n.
func (r *Runner) trapped(n int) bool {
	if n <= 0 || n >= len(sigNames) {
		return false
	}
	_, ok := r.traps[sigNames[n]]
	return ok
}

// sigTexts are the descriptions of signals as strsignal gives them.
var sigTexts = [...]string{1: "Hangup", "Interrupt", "Quit", "Illegal instruction", "Trace/breakpoint trap", "Aborted", "Bus error",
	"Floating point exception", "Killed", "User defined signal 1", "Segmentation fault", "User defined signal 2",
	"Broken pipe", "Alarm clock", "Terminated", "Stack fault", "Child exited", "Continued", "Stopped (signal)", "Stopped",
	"Stopped (tty input)", "Stopped (tty output)", "Urgent I/O condition", "CPU time limit exceeded",
	"File size limit exceeded", "Virtual timer expired", "Profiling timer expired", "Window changed",
	"I/O possible", "Power failure", "Bad system call"}

func sigText(n int) string {
	if n > 0 && n < len(sigTexts) {
		return sigTexts[n]
	}
	return fmt.Sprintf("Real-time signal %d", n-34)
}

// stmtText is a statement as bash prints a job's command: on one line.
func stmtText(st *syntax.Stmt) string {
	var b strings.Builder
	fmtStmt(&b, st, 0)
	return strings.Join(strings.Fields(strings.ReplaceAll(b.String(), "\n", " ")), " ")
}

func biKill(r *Runner, args []string) error {
	args = args[1:]
	usage := func() error {
		fmt.Fprintln(r.stderr(), "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]")
		r.status = 2
		return nil
	}
	if len(args) == 0 {
		return usage()
	}
	sig := 15
	if len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		switch a {
		case "--":
			args = args[1:]
		case "-l", "-L":
			return r.killList(args[1:])
		case "-s", "-n":
			if len(args) < 2 {
				r.errf("kill: %s: option requires an argument", a)
				r.status = 1
				return nil
			}
			n, ok := sigNum(args[1])
			if !ok {
				r.errf("kill: %s: invalid signal specification", args[1])
				r.status = 1
				return nil
			}
			sig = n
			args = args[2:]
		default:
			n, ok := sigNum(a[1:])
			if !ok {
				r.errf("kill: %s: invalid signal specification", a[1:])
				r.status = 1
				return nil
			}
			sig = n
			args = args[1:]
		}
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return usage()
	}
	st := 0
	for _, a := range args {
		pid, err := strconv.Atoi(a)
		if err != nil {
			if strings.HasPrefix(a, "%") {
				r.errf("kill: %s: no such job", a)
			} else {
				r.errf("kill: %s: arguments must be process or job IDs", a)
			}
			st = 1
			continue
		}
		if !r.signal(pid, sig) {
			r.errf("kill: (%d) - No such process", pid)
			st = 1
		}
	}
	r.status = st
	return nil
}

// killList is kill -l: every signal, or the names or numbers asked.
func (r *Runner) killList(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(r.stdout(), sigList())
		r.status = 0
		return nil
	}
	st := 0
	var b strings.Builder
	for _, a := range args {
		if n, err := strconv.Atoi(a); err == nil {
			if n > 128 {
				n -= 128
			}
			if n == 0 {
				b.WriteString("EXIT\n")
				continue
			}
			if n > 0 && n < len(sigNames) && sigNames[n] != "" {
				b.WriteString(sigNames[n] + "\n")
				continue
			}
		} else if n, ok := sigNum(a); ok {
			b.WriteString(strconv.Itoa(n) + "\n")
			continue
		}
		r.errf("kill: %s: invalid signal specification", a)
		st = 1
	}
	fmt.Fprint(r.stdout(), b.String())
	r.status = st
	return nil
}
