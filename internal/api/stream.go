package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/client"
)

// streamer writes an event stream as Server-Sent Events (when the request
// accepts text/event-stream) or as NDJSON (otherwise).
type streamer struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	sse bool
}

func (s *Server) startStream(w http.ResponseWriter, r *http.Request) *streamer {
	st := &streamer{w: w, rc: http.NewResponseController(w), sse: strings.Contains(r.Header.Get("Accept"), "text/event-stream")}
	h := w.Header()
	if st.sse {
		h.Set("Content-Type", "text/event-stream")
	} else {
		h.Set("Content-Type", "application/x-ndjson")
	}
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st.rc.Flush()
	return st
}

// liveStream starts a stream of events that is counted in
// desk_http_streams while it is open and kept alive by heartbeats
// (Options.Heartbeat): it returns the streamer, the heartbeat's ticks, and
// end, which the handler defers.
func (s *Server) liveStream(w http.ResponseWriter, r *http.Request) (st *streamer, heartbeat <-chan time.Time, end func()) {
	st = s.startStream(w, r)
	s.m.streaming.Inc()
	tick := time.NewTicker(s.opts.Heartbeat)
	return st, tick.C, func() {
		tick.Stop()
		s.m.streaming.Dec()
	}
}

// send writes one event: in SSE with its id and event name, in NDJSON as a line.
func (st *streamer) send(id uint64, event string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode event: %w", err)
	}
	if st.sse {
		_, err = fmt.Fprintf(st.w, "id: %s\nevent: %s\ndata: %s\n\n", strconv.FormatUint(id, 10), event, b)
	} else {
		_, err = st.w.Write(append(b, '\n'))
	}
	if err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	return st.rc.Flush()
}

// ping keeps an idle stream alive.
func (st *streamer) ping() error {
	var err error
	if st.sse {
		_, err = st.w.Write([]byte(": ping\n\n"))
	} else {
		_, err = st.w.Write([]byte("\n"))
	}
	if err != nil {
		return err
	}
	return st.rc.Flush()
}

// fail ends a stream with an error event ({"error": {...}}, in SSE as event
// "error").
func (st *streamer) fail(err error) {
	e := classify(err)
	var body client.ErrorBody
	body.Error.Code, body.Error.Message = e.Code, e.Message
	b, _ := json.Marshal(body)
	if st.sse {
		fmt.Fprintf(st.w, "event: error\ndata: %s\n\n", b)
	} else {
		st.w.Write(append(b, '\n'))
	}
	st.rc.Flush()
}

// resumePoint returns where a stream starts: the query parameter name (0
// when absent), or, when the request has a Last-Event-ID header (an
// EventSource reconnecting), that event number plus skip.
func resumePoint(r *http.Request, name string, skip uint64) (uint64, error) {
	n, err := quint(r, name)
	if err != nil {
		return 0, err
	}
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		return n, nil
	}
	last, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, errorf(http.StatusBadRequest, CodeInvalid, "Last-Event-ID %q: want an event number", v)
	}
	return last + skip, nil
}
