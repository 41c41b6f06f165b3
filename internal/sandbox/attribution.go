package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// ExecutionOf tells which execution a process of a sandbox belongs to, given
// its pid on the host (what a FUSE server learns of each request): the
// workspace and the execution id, found through the process's pid namespace
// (which sandbox) and its session id inside it (which execution: each
// execution's main process leads a session). It is the seam that lets the
// workspace mount attribute a sandbox's writes to executions
// (vfs.WithActor), so that their change sets are right. A process that left
// its execution's session is not attributed.
func (b *Backend) ExecutionOf(hostPID int) (workspace, id string, ok bool) {
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
		x.smu.Lock()
		id, ok = x.sessions[sid]
		x.smu.Unlock()
		return x.ws.Name, id, ok
	}
	return "", "", false
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
	x.smu.Unlock()
}

func (x *box) removeSession(sid int) {
	x.smu.Lock()
	delete(x.sessions, sid)
	x.smu.Unlock()
}
