package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// conn is the host's end of the connection to one sandbox's init: a reader
// goroutine that sorts frames into per-stream queues (it never blocks on a
// consumer: the init sends a stream at most its window), and serialised
// frame writes.
type conn struct {
	c     net.Conn
	limit int // bytes a stream's queue may hold: the window, plus a control frame
	// maxFrames is how many frames a stream's queue may hold, whatever their
	// size (empty frames cost memory too): an honest init sends at most a
	// window of output in frames of one byte or more, and at most one
	// StdinAck per stdin frame the host sent (a window of them, at most),
	// plus a few control frames.
	maxFrames int
	wmu       sync.Mutex
	ready     chan wire.Frame // the Ready frame
	// onPolicy, if set, gets the TPolicy frames of stream 0 and of streams
	// already closed (on the reader goroutine: it must not block).
	onPolicy func(wire.Frame)
	done     chan struct{} // closed when the connection ended

	mu      sync.Mutex
	streams map[uint32]*hstream
	next    uint32
	err     error // why it ended
	// ending is why the connection is ending (drain): its reading side is
	// shut and the reader queues what the init wrote before it ends.
	ending error
}

// hstream is the queue of one stream's frames.
type hstream struct {
	c      *conn
	id     uint32
	mu     sync.Mutex
	q      []wire.Frame
	qbytes int           // payload bytes in q
	notify chan struct{} // has a token when q may be non-empty
}

func newConn(c net.Conn, window int, onPolicy func(wire.Frame)) *conn {
	k := makeConn(c, window, onPolicy)
	go k.read()
	return k
}

// makeConn is newConn without its reader (k.read, which the caller starts).
func makeConn(c net.Conn, window int, onPolicy func(wire.Frame)) *conn {
	return &conn{c: c, limit: window + wire.MaxPayload, maxFrames: 2*window + 8, ready: make(chan wire.Frame, 1), done: make(chan struct{}), streams: map[uint32]*hstream{}, onPolicy: onPolicy}
}

// read sorts incoming frames until the connection ends.
func (k *conn) read() {
	r := wire.NewReader(k.c)
	for {
		f, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the sandbox's init closed the connection")
			}
			k.fail(err)
			return
		}
		if f.Type < 64 {
			k.fail(fmt.Errorf("read frame: %s from the init: %w", f.Type, wire.ErrProtocol))
			return
		}
		if f.Type == wire.TReady {
			select {
			case k.ready <- f:
			default:
				k.fail(fmt.Errorf("read frame: a second ready: %w", wire.ErrProtocol))
				return
			}
			continue
		}
		if f.Type == wire.TPolicy && f.Stream == 0 {
			if k.onPolicy != nil {
				k.onPolicy(f)
			}
			continue
		}
		k.mu.Lock()
		s := k.streams[f.Stream]
		k.mu.Unlock()
		if s == nil {
			if f.Type == wire.TPolicy && k.onPolicy != nil {
				k.onPolicy(f) // a refusal is recorded even when its stream is over
			}
			continue // a stream the host has given up (late output, a late ack)
		}
		s.mu.Lock()
		s.q = append(s.q, f)
		s.qbytes += len(f.Payload)
		over := s.qbytes > k.limit || len(s.q) > k.maxFrames
		s.mu.Unlock()
		if over {
			k.fail(fmt.Errorf("read frame: stream %d sent more than its window: %w", f.Stream, wire.ErrProtocol))
			return
		}
		select {
		case s.notify <- struct{}{}:
		default:
		}
	}
}

// fail ends the connection with err (the first reason is kept) at once:
// frames not read yet are lost. For a connection whose frames cannot be
// trusted (a protocol error); drain is for one that ends.
func (k *conn) fail(err error) {
	k.mu.Lock()
	if k.err == nil {
		if k.ending != nil {
			err = k.ending
		}
		k.err = err
		close(k.done)
	}
	k.mu.Unlock()
	k.c.Close()
}

// drainLimit bounds how long drain waits for the reader to queue what the
// init wrote (a hang guard: the socket's buffer is all there is to read).
const drainLimit = 10 * time.Second

// drain ends the connection with err (the first reason is kept) once the
// reader has queued every frame the init wrote before: the reading side is
// shut down (shutdown(2) SHUT_RD: the init's later writes fail, what is
// buffered is read, then end of file), so a frame already sent is not lost
// to the close. An init killed just after it reported a program started
// must not look like one that never started it (the backend runs a program
// that never started again, on a new sandbox). Streams see the frames, then
// err.
func (k *conn) drain(err error) {
	k.mu.Lock()
	if k.err != nil || k.ending != nil {
		k.mu.Unlock()
		return
	}
	k.ending = err
	k.mu.Unlock()
	cr, ok := k.c.(interface{ CloseRead() error })
	if !ok || cr.CloseRead() != nil || k.c.SetReadDeadline(time.Now().Add(drainLimit)) != nil {
		k.fail(err)
	}
}

// Err says why the connection ended or is ending (nil while it lives).
func (k *conn) Err() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err == nil {
		return k.ending
	}
	return k.err
}

// send writes one frame.
func (k *conn) send(f wire.Frame) error {
	k.wmu.Lock()
	err := wire.Write(k.c, f)
	k.wmu.Unlock()
	if err != nil {
		k.drain(fmt.Errorf("write to the sandbox's init: %w", err))
		return fmt.Errorf("send %s: %w", f.Type, k.Err())
	}
	return nil
}

// deliver writes an output frame of stream s to stdout or stderr (by its
// type) and gives its bytes back to the init as credit.
func (k *conn) deliver(s *hstream, f wire.Frame, stdout, stderr io.Writer) {
	w := stdout
	if f.Type == wire.TStderr {
		w = stderr
	}
	w.Write(f.Payload)
	k.send(wire.Count(wire.TCredit, s.id, uint32(len(f.Payload))))
}

// open registers a new stream.
func (k *conn) open() *hstream {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.next++
	s := &hstream{c: k, id: k.next, notify: make(chan struct{}, 1)}
	k.streams[s.id] = s
	return s
}

// close forgets the stream; later frames for it are dropped.
func (s *hstream) close() {
	s.c.mu.Lock()
	delete(s.c.streams, s.id)
	s.c.mu.Unlock()
}

// errCtx and errDeadline are what hstream.next returns when its cancel or
// deadline channel fires.
var (
	errCtx      = errors.New("cancelled")
	errDeadline = errors.New("deadline")
)

// next returns the stream's next frame. It fails when the connection ends
// (after the queued frames), with errCtx when cancel is closed and with
// errDeadline when deadline fires (nil channels: never).
func (s *hstream) next(cancel <-chan struct{}, deadline <-chan time.Time) (wire.Frame, error) {
	for {
		s.mu.Lock()
		if len(s.q) > 0 {
			f := s.q[0]
			s.q[0] = wire.Frame{}
			s.q = s.q[1:]
			s.qbytes -= len(f.Payload)
			s.mu.Unlock()
			return f, nil
		}
		s.mu.Unlock()
		select {
		case <-s.notify:
		case <-s.c.done:
			s.mu.Lock()
			empty := len(s.q) == 0
			s.mu.Unlock()
			if empty {
				return wire.Frame{}, s.c.Err()
			}
		case <-cancel:
			return wire.Frame{}, errCtx
		case <-deadline:
			return wire.Frame{}, errDeadline
		}
	}
}

// request sends f on a new stream and returns the first answer.
func (k *conn) request(ctx context.Context, f wire.Frame) (_ wire.Frame, err error) {
	s := k.open()
	defer s.close()
	f.Stream = s.id
	if err := k.send(f); err != nil {
		return wire.Frame{}, err
	}
	f, err = s.next(ctx.Done(), nil)
	if errors.Is(err, errCtx) {
		err = ctx.Err()
	}
	return f, err
}
