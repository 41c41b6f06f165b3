package chat

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxEventBytes bounds one Server-Sent Event's data (a tool call's input
// arrives in many small deltas, so real events are far smaller).
const MaxEventBytes = 4 << 20

// sseEvent is one Server-Sent Event: its event name (empty when the stream
// names none) and its data lines joined by newlines.
type sseEvent struct {
	Name string
	Data []byte
}

// sseReader reads Server-Sent Events (the WHATWG format: "event:" and
// "data:" fields, comments starting with ":", a blank line ends an event).
type sseReader struct {
	sc   *bufio.Scanner
	name string
	data bytes.Buffer
}

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxEventBytes)
	return &sseReader{sc: sc}
}

// Next returns the next event, or io.EOF at the stream's end (a last event
// without its blank line is still returned).
func (r *sseReader) Next() (sseEvent, error) {
	for r.sc.Scan() {
		line := strings.TrimSuffix(r.sc.Text(), "\r")
		if line == "" {
			if r.data.Len() == 0 && r.name == "" {
				continue
			}
			return r.take(), nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			r.name = value
		case "data":
			if r.data.Len() > 0 {
				r.data.WriteByte('\n')
			}
			if r.data.Len()+len(value) > MaxEventBytes {
				return sseEvent{}, fmt.Errorf("read event stream: an event over %d bytes", MaxEventBytes)
			}
			r.data.WriteString(value)
		}
	}
	if err := r.sc.Err(); err != nil {
		return sseEvent{}, fmt.Errorf("read event stream: %w", err)
	}
	if r.data.Len() > 0 {
		return r.take(), nil
	}
	return sseEvent{}, io.EOF
}

func (r *sseReader) take() sseEvent {
	ev := sseEvent{Name: r.name, Data: bytes.Clone(r.data.Bytes())}
	r.name = ""
	r.data.Reset()
	return ev
}

// retryAfter reads a Retry-After header (seconds, or an HTTP date); 0 if
// absent or unreadable. OpenAI's retry-after-ms is preferred when present.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// readErrorBody reads at most 64 KiB of an error answer's body.
func readErrorBody(r io.Reader) []byte {
	b, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	return b
}
