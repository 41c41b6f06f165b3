package run

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// EventType says what an Event carries.
type EventType string

// Event types.
const (
	EventStdout EventType = "stdout" // Data was written to standard output
	EventStderr EventType = "stderr" // Data was written to standard error
	// EventElided stands for events First..Seq that were not kept (the output
	// cap keeps the head and the tail of the output), holding Bytes of output.
	EventElided EventType = "elided"
	EventExit   EventType = "exit" // the last event: Exit says how the execution ended
)

// Event is one numbered event of an execution. Numbers start at 1 and
// increase by one per event; an elided marker carries the number of the last
// event it stands for, so a reader that resumes from Seq+1 of the last event
// it got never sees an event twice and never misses one.
type Event struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	Type EventType `json:"type"`
	// Data is the output of a stdout or stderr event (base64 in JSON, as any
	// []byte; adapters choose their wire form). It is shared: do not modify it.
	Data []byte `json:"data,omitempty"`
	// StdoutOffset and StderrOffset count the bytes written to each stream
	// before this event (for an exit event: in total).
	StdoutOffset int64 `json:"stdout_offset"`
	StderrOffset int64 `json:"stderr_offset"`
	// First and Bytes describe an elided marker: the first event number it
	// stands for and how many output bytes those events held.
	First uint64 `json:"first,omitempty"`
	Bytes int64  `json:"bytes,omitempty"`
	// Exit describes an exit event.
	Exit *Exit `json:"exit,omitempty"`
}

// Exit is how an execution ended, as its exit event tells.
type Exit struct {
	Status   Status `json:"status"`
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error,omitempty"`
	Signal   string `json:"signal,omitempty"`
}

// ends returns the stream offsets just after e.
func (e *Event) ends() (out, errb int64) {
	out, errb = e.StdoutOffset, e.StderrOffset
	switch e.Type {
	case EventStdout:
		out += int64(len(e.Data))
	case EventStderr:
		errb += int64(len(e.Data))
	}
	return out, errb
}

// eventCost is what an event costs against the output cap beyond its data,
// so that a flood of one-byte writes is bounded too.
const eventCost = 32

// Stored encoding of an event (one log entry): a version byte, a type byte,
// then uvarint seq, varint unix nanoseconds, uvarint stdout and stderr offsets,
// then the data (stdout, stderr) or the JSON of Exit (exit).
const encVersion = 1

var typeCodes = map[EventType]byte{EventStdout: 1, EventStderr: 2, EventExit: 3}

func encodeEvent(e *Event) []byte {
	b := make([]byte, 0, 2+4*binary.MaxVarintLen64+len(e.Data))
	b = append(b, encVersion, typeCodes[e.Type])
	b = binary.AppendUvarint(b, e.Seq)
	b = binary.AppendVarint(b, e.Time.UnixNano())
	b = binary.AppendUvarint(b, uint64(e.StdoutOffset))
	b = binary.AppendUvarint(b, uint64(e.StderrOffset))
	if e.Type == EventExit {
		j, _ := json.Marshal(e.Exit)
		return append(b, j...)
	}
	return append(b, e.Data...)
}

var errBadEvent = errors.New("malformed stored event")

func decodeEvent(b []byte) (Event, error) {
	var e Event
	if len(b) < 2 || b[0] != encVersion {
		return e, errBadEvent
	}
	switch b[1] {
	case 1:
		e.Type = EventStdout
	case 2:
		e.Type = EventStderr
	case 3:
		e.Type = EventExit
	default:
		return e, errBadEvent
	}
	b = b[2:]
	var vals [4]uint64
	for i := range vals {
		var n int
		if i == 1 {
			var v int64
			v, n = binary.Varint(b)
			vals[i] = uint64(v)
		} else {
			vals[i], n = binary.Uvarint(b)
		}
		if n <= 0 {
			return e, errBadEvent
		}
		b = b[n:]
	}
	e.Seq, e.Time = vals[0], time.Unix(0, int64(vals[1]))
	e.StdoutOffset, e.StderrOffset = int64(vals[2]), int64(vals[3])
	if e.Type == EventExit {
		e.Exit = new(Exit)
		if err := json.Unmarshal(b, e.Exit); err != nil {
			return e, errBadEvent
		}
	} else {
		e.Data = b
	}
	return e, nil
}

// A view is the kept events of an execution as runs of consecutive numbers
// (segments), oldest first; between two segments, and before a first segment
// that does not start at 1, events were elided. A running execution's view is
// its head and its tail; a stored one is read back from the logs.
type view [][]Event

// cursor is a reader's position: the next number it wants and what it last got.
type cursor struct {
	next     uint64
	have     bool   // last, out and errb are set
	last     uint64 // number of the last event returned
	out, err int64  // stream offsets after it
}

// at returns the event the cursor wants, or false if there is none yet.
func (v view) at(c *cursor) (Event, bool) {
	var prevLast uint64
	var prevOut, prevErr int64
	for _, s := range v {
		if len(s) == 0 {
			continue
		}
		first := s[0].Seq
		if c.next < first { // in a gap: an elided marker up to first-1
			m := Event{Seq: first - 1, Time: s[0].Time, Type: EventElided, StdoutOffset: prevOut, StderrOffset: prevErr, First: prevLast + 1}
			if c.have && c.last+1 == c.next {
				m.First, m.StdoutOffset, m.StderrOffset = c.next, c.out, c.err
			}
			m.Bytes = s[0].StdoutOffset - m.StdoutOffset + s[0].StderrOffset - m.StderrOffset
			c.next, c.have, c.last, c.out, c.err = first, true, first-1, s[0].StdoutOffset, s[0].StderrOffset
			return m, true
		}
		last := s[len(s)-1].Seq
		if c.next <= last {
			e := s[c.next-first]
			c.next, c.have, c.last = e.Seq+1, true, e.Seq
			c.out, c.err = e.ends()
			return e, true
		}
		prevLast = last
		prevOut, prevErr = s[len(s)-1].ends()
	}
	return Event{}, false
}

// output rebuilds stdout and stderr from the kept events, with a line marking
// each elided stretch, and the number of bytes elided from each stream.
func (v view) output() (stdout, stderr string, outElided, errElided int64) {
	var o, e strings.Builder
	var outEnd, errEnd int64
	for _, s := range v {
		for i := range s {
			ev := &s[i]
			if d := ev.StdoutOffset - outEnd; d > 0 {
				o.WriteString(elisionLine(d))
				outElided += d
			}
			if d := ev.StderrOffset - errEnd; d > 0 {
				e.WriteString(elisionLine(d))
				errElided += d
			}
			switch ev.Type {
			case EventStdout:
				o.Write(ev.Data)
			case EventStderr:
				e.Write(ev.Data)
			}
			outEnd, errEnd = ev.ends()
		}
	}
	return o.String(), e.String(), outElided, errElided
}

// elisionLine is the line Result.Stdout and Result.Stderr hold where output was elided.
func elisionLine(n int64) string {
	return "\n[... " + strconv.FormatInt(n, 10) + " bytes elided ...]\n"
}

// Stream reads an execution's events in order, from a chosen number on. For a
// running execution it replays what is kept and then follows live output with
// no gap and no duplicate; a reader that falls more than the tail of the
// output cap behind gets an elided marker for what it missed (a replay later
// shows the same). Next returns io.EOF after the exit event. A Stream is not
// safe for concurrent use; it holds no goroutine and needs no Close.
type Stream struct {
	c      cursor
	exec   *Execution // live: read from the execution's view
	v      view       // stored: read from this view
	follow bool       // made by Follow: Close unregisters it
}

// Close ends a Stream: the execution no longer keeps output for it (see
// Execution.Follow). It is safe to call more than once; other Streams need
// none but may be closed.
func (s *Stream) Close() {
	if s.follow && s.exec != nil {
		s.follow = false
		s.exec.unfollow(&s.c)
	}
}

func newStream(from uint64) cursor {
	if from == 0 {
		from = 1
	}
	return cursor{next: from}
}

// Next returns the next event, waiting for it while the execution runs. It
// returns io.EOF once the exit event was returned (or the start number lies
// beyond it), and ctx's error if ctx ends first.
func (s *Stream) Next(ctx context.Context) (Event, error) {
	if s.exec == nil {
		if e, ok := s.v.at(&s.c); ok {
			return e, nil
		}
		return Event{}, io.EOF
	}
	for {
		e, ok, done, wake := s.exec.next(&s.c)
		if ok {
			return e, nil
		}
		if done {
			return Event{}, io.EOF
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// readView reads an execution's stored events: the head log, then the tail
// log, cut into segments where numbers jump (elided events).
func (r *Runtime) readView(ctx context.Context, id string) (view, error) {
	var v view
	var seg []Event
	for _, kind := range []string{kindExec, kindTail} {
		for from := uint64(1); ; {
			ents, err := r.rec.ReadLog(ctx, kind, id, from, 1000)
			if err != nil {
				return nil, fmt.Errorf("read output log: %w", err)
			}
			for _, ent := range ents {
				e, err := decodeEvent(ent.Data)
				if err != nil {
					return nil, fmt.Errorf("read output log %s/%s entry %d: %w", kind, id, ent.Seq, err)
				}
				if n := len(seg); n > 0 {
					switch last := seg[n-1].Seq; {
					case e.Seq <= last:
						continue // never written so; keep the numbering increasing
					case e.Seq != last+1:
						v = append(v, seg)
						seg = nil
					}
				}
				seg = append(seg, e)
			}
			if len(ents) < 1000 {
				break
			}
			from = ents[len(ents)-1].Seq + 1
		}
	}
	if len(seg) > 0 {
		v = append(v, seg)
	}
	return v, nil
}
