package api

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"
)

// progressBody is a request body read under the progress rule: once the
// handler starts reading, every Options.BodyReadTimeout must bring at least
// Options.BodyMinBytes more bytes, or the body's end. It enforces the rule
// with the connection's read deadline (http.ResponseController), moved on
// each time BodyMinBytes have arrived, and cleared at the end of the body so
// that a handler that goes on after reading it (a wait=1 execution, a
// stream) is not cut off. A body that breaks the rule fails its read; the
// request is then answered 408 timeout and the connection closed.
//
// Reads come from the handler's goroutine only (net/http's bodies are not
// safe for concurrent reads either).
type progressBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	min     int64

	started  bool
	window   int64 // bytes since the deadline was last moved
	timedOut bool  // a read hit the deadline
	ended    bool
}

func newProgressBody(w http.ResponseWriter, r *http.Request, o *Options) *progressBody {
	return &progressBody{ReadCloser: r.Body, rc: http.NewResponseController(w), timeout: o.BodyReadTimeout, min: o.BodyMinBytes}
}

func (b *progressBody) extend() {
	b.window = 0
	b.rc.SetReadDeadline(time.Now().Add(b.timeout)) // no deadline support (a test recorder): no rule
}

// Read reads the body, moving the deadline on as the body progresses.
func (b *progressBody) Read(p []byte) (int, error) {
	if b.ended {
		return 0, io.EOF
	}
	if !b.started {
		b.started = true
		b.extend()
	}
	n, err := b.ReadCloser.Read(p)
	if b.window += int64(n); b.window >= b.min && err == nil {
		b.extend()
	}
	switch {
	case err == io.EOF:
		b.ended = true
		b.rc.SetReadDeadline(time.Time{}) // net/http clears it too, when it starts its background read
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		b.timedOut = true
	}
	return n, err
}

// bodyTimeoutError is the error of a request whose body broke the progress
// rule.
func (s *Server) bodyTimeoutError() *Error {
	return errorf(http.StatusRequestTimeout, CodeTimeout, "the request body sent less than %d bytes in %v: a body must keep arriving (BodyMinBytes per BodyReadTimeout)", s.opts.BodyMinBytes, s.opts.BodyReadTimeout)
}

// finish prepares the connection for what net/http does with a body the
// handler left unread: it reads up to 256 KiB of it to keep the connection,
// or to let the client read the answer before the connection is closed
// (closing with unread data would reset it). That read has the progress
// rule's window too: without it, a client that holds the body of a refused
// request would hold its connection for good.
func (b *progressBody) finish() {
	if b.ended || b.timedOut {
		return
	}
	b.rc.SetReadDeadline(time.Now().Add(b.timeout))
}
