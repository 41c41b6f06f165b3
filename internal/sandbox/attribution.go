package sandbox

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ExecutionOf tells which execution a process of a sandbox belongs to, given
// its pid (or a thread's id) on the host (what a FUSE server learns of each
// request): the
// workspace and the execution id, found through the process's pid namespace
// (which sandbox) and its session id inside it (which execution: each
// execution's main process leads a session). It is the seam that lets the
// workspace mount attribute a sandbox's writes to executions
// (vfs.WithActor), so that their change sets are right. A process that left
// its execution's session (setsid, a daemon) is attributed by the
// DESK_EXEC_ID its environment started with, if that names an execution
// running in the sandbox (a process can set it to any value: attribution is
// bookkeeping inside one sandbox, not a boundary); one that cleared its
// environment is not attributed. While an execution's program has started
// but its start is not reported yet, a process of an unknown session waits
// up to launchWait for the report.
func (b *Backend) ExecutionOf(hostPID int) (workspace, id string, ok bool) {
	return b.executionOf(hostPID, true)
}

// SessionExecutionOf is ExecutionOf by the session alone: a process that
// left its execution's session belongs to none, whatever its environment
// says. It is what the workspace mount's path check asks (accessOf): a
// process cannot join another session (setsid makes a new one, setpgid
// stays in its own), and a session id is not reused while a process of it
// lives, so a process cannot pass for another execution.
func (b *Backend) SessionExecutionOf(hostPID int) (workspace, id string, ok bool) {
	return b.executionOf(hostPID, false)
}

// executionOf finds hostPID's execution by its session and, with byEnv,
// by the DESK_EXEC_ID of its environment when the session is not one.
func (b *Backend) executionOf(hostPID int, byEnv bool) (workspace, id string, ok bool) {
	p := "/proc/" + strconv.Itoa(hostPID)
	ns, err := os.Readlink(p + "/ns/pid")
	if err != nil {
		return "", "", false
	}
	b.mu.Lock()
	var x *box
	for _, c := range b.boxes {
		if c.pidNS() == ns {
			x = c
			break
		}
	}
	b.mu.Unlock()
	if x == nil {
		return "", "", false
	}
	status, err := os.ReadFile(p + "/status")
	if err != nil {
		return "", "", false
	}
	for line := range bytes.Lines(status) {
		rest, found := bytes.CutPrefix(line, []byte("NSsid:"))
		if !found {
			continue
		}
		f := strings.Fields(string(rest))
		if len(f) == 0 {
			return "", "", false
		}
		sid, err := strconv.Atoi(f[len(f)-1]) // innermost namespace last
		if err != nil {
			return "", "", false
		}
		if id, ok = x.session(sid); !ok && byEnv {
			id, ok = x.fromEnviron(p)
		}
		return x.ws.Name, id, ok
	}
	return "", "", false
}

// maxEnviron bounds how much of a process's environment fromEnviron reads.
const maxEnviron = 256 << 10

// fromEnviron returns the execution the DESK_EXEC_ID in the environment of
// process p (a /proc directory) names, if it runs in x.
func (x *box) fromEnviron(p string) (string, bool) {
	f, err := os.Open(p + "/environ")
	if err != nil {
		return "", false
	}
	defer f.Close()
	env, _ := io.ReadAll(io.LimitReader(f, maxEnviron))
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		v, found := bytes.CutPrefix(kv, []byte("DESK_EXEC_ID="))
		if !found {
			continue
		}
		id := string(v)
		x.smu.Lock()
		defer x.smu.Unlock()
		for _, e := range x.sessions {
			if e == id {
				return id, true
			}
		}
		return "", false
	}
	return "", false
}

// launchWait bounds how long ExecutionOf waits for a program that has just
// started to be registered (its Started frame travels after the program
// already runs).
const launchWait = 200 * time.Millisecond

// session returns the execution of session sid. A process of a session not
// known yet may be a program whose start is being reported: while some
// execution is launching, it waits (up to launchWait) for the report.
func (x *box) session(sid int) (string, bool) {
	deadline := time.Now().Add(launchWait)
	x.smu.Lock()
	defer x.smu.Unlock()
	for {
		if id, ok := x.sessions[sid]; ok {
			return id, true
		}
		left := time.Until(deadline)
		if x.launching == 0 || left <= 0 {
			return "", false
		}
		ch := x.changed()
		x.smu.Unlock()
		select {
		case <-ch:
		case <-time.After(left):
		case <-x.dead:
		}
		x.smu.Lock()
	}
}

// changed returns a channel closed at the next change of the sessions or of
// the launching count (x.smu held).
func (x *box) changed() chan struct{} {
	if x.schange == nil {
		x.schange = make(chan struct{})
	}
	return x.schange
}

// notifyLocked wakes the waiters of changed (x.smu held).
func (x *box) notifyLocked() {
	if x.schange != nil {
		close(x.schange)
		x.schange = nil
	}
}

// launch counts an execution whose program may run before its session is
// registered; the returned function ends that state (idempotent).
func (x *box) launch() (done func()) {
	x.smu.Lock()
	x.launching++
	x.smu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			x.smu.Lock()
			x.launching--
			x.notifyLocked()
			x.smu.Unlock()
		})
	}
}

// pidNS is the sandbox's pid namespace ("pid:[N]"), or "" before it started.
func (x *box) pidNS() string {
	select {
	case <-x.ready:
	default:
		return ""
	}
	return x.ns
}

// addSession records that session sid inside the sandbox is execution id.
func (x *box) addSession(sid int, id string) {
	x.smu.Lock()
	if x.sessions == nil {
		x.sessions = map[int]string{}
	}
	x.sessions[sid] = id
	x.notifyLocked()
	x.smu.Unlock()
}

func (x *box) removeSession(sid int) {
	x.smu.Lock()
	delete(x.sessions, sid)
	x.smu.Unlock()
}
