package worker

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/desk-dev/desk/internal/fair"
)

// message is one line of the control channel, in either direction. Only
// the fields of one kind are set.
type message struct {
	// Parent to worker.
	Key    string  `json:"key,omitempty"`    // the first line: the request key
	Assign *Assign `json:"assign,omitempty"` // the second: the workspace to serve
	Exit   string  `json:"exit,omitempty"`   // "idle": exit if still idle; "stop": exit now

	// Parent to worker: host-wide slots.
	Grant   *SlotGrant `json:"grant,omitempty"`   // the answer to an acquire
	Reclaim uint64     `json:"reclaim,omitempty"` // give this idle slot back if it is still idle

	// Worker to parent.
	Ready bool `json:"ready,omitempty"` // serving on its socket
	Idle  bool `json:"idle,omitempty"`  // the workspace hibernated: nothing open, nothing running
	Busy  bool `json:"busy,omitempty"`  // the answer to exit "idle" when it is in use again

	// Worker to parent: host-wide slots.
	Acquire  *SlotAsk  `json:"acquire,omitempty"`   // take a slot
	Release  uint64    `json:"release,omitempty"`   // give a slot back
	SlotIdle *SlotIdle `json:"slot_idle,omitempty"` // a reclaimable slot's resource is (not) idle

	// Worker to parent: counts.
	Exec *ExecEvent `json:"exec,omitempty"` // an execution started or ended
}

// ExecEvent reports an execution of the worker's: started (Status empty)
// or ended with Status. The parent counts them (Pool.Executions), so that
// its /metrics covers every worker, the exited ones too.
type ExecEvent struct {
	Backend string `json:"backend"`
	Status  string `json:"status,omitempty"`
}

// SlotAsk asks the parent's pool for a host-wide slot (fair.Pool.Take).
// ID is the worker's own number for the request, echoed in the grant.
type SlotAsk struct {
	ID          uint64    `json:"id"`
	Kind        fair.Kind `json:"kind"`
	Reclaimable bool      `json:"reclaimable,omitempty"`
}

// SlotGrant answers a SlotAsk: the slot's number (the parent's, named by
// release, reclaim and slot_idle), or the refusal.
type SlotGrant struct {
	ID      uint64       `json:"id"`
	Slot    uint64       `json:"slot,omitempty"`
	Refused *SlotRefusal `json:"refused,omitempty"`
}

// SlotRefusal is a host-wide bound reached (a fair.LimitError of scope
// host), or Gone: the pool no longer serves this worker.
type SlotRefusal struct {
	Kind    fair.Kind `json:"kind"`
	Held    int       `json:"held"`
	Max     int       `json:"max"`
	Setting string    `json:"setting,omitempty"`
	Gone    bool      `json:"gone,omitempty"`
}

// SlotIdle says whether the resource of a reclaimable slot is idle.
type SlotIdle struct {
	Slot uint64 `json:"slot"`
	Idle bool   `json:"idle"`
}

// Assign is what the parent gives a worker to serve, after the key: a
// worker may be started ahead of need (a spare) and assigned later.
type Assign struct {
	Workspace string `json:"workspace"`
	Socket    string `json:"socket"`              // the Unix socket to listen on
	Recovered string `json:"recovered,omitempty"` // why the workspace's previous worker died
}

// Exit reasons the parent sends.
const (
	exitIdle = "idle"
	exitStop = "stop"
)

// maxLine bounds one control line (a line is tens of bytes).
const maxLine = 4 << 10

// controlReader reads control lines.
type controlReader struct{ sc *bufio.Scanner }

func newControlReader(r io.Reader) *controlReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), maxLine)
	return &controlReader{sc: sc}
}

// next returns the next message; io.EOF when the other side closed.
func (c *controlReader) next() (message, error) {
	if !c.sc.Scan() {
		if err := c.sc.Err(); err != nil {
			return message{}, fmt.Errorf("read control line: %w", err)
		}
		return message{}, io.EOF
	}
	var m message
	if err := json.Unmarshal(c.sc.Bytes(), &m); err != nil {
		return message{}, fmt.Errorf("read control line: %w", err)
	}
	return m, nil
}

// send writes one control line.
func send(w io.Writer, m message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write control line: %w", err)
	}
	return nil
}

// ErrBadHello: the first control line did not carry a key.
var ErrBadHello = errors.New("worker: the first control line carries no key")
