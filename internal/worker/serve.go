package worker

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// Hello is what a worker learns from its parent before it serves: the key
// every request must carry.
type Hello struct{ Key string }

// ReadHello reads the parent's first control line from r (the worker's
// stdin). The worker calls it before anything else: the parent moves it into
// its cgroup before sending it.
func ReadHello(r io.Reader) (Hello, *Control, error) {
	cr := newControlReader(r)
	m, err := cr.next()
	if err != nil {
		return Hello{}, nil, fmt.Errorf("read hello: %w", err)
	}
	if m.Key == "" {
		return Hello{}, nil, ErrBadHello
	}
	return Hello{Key: m.Key}, &Control{cr: cr}, nil
}

// Control is the worker's side of the control channel after the hello.
type Control struct{ cr *controlReader }

// Assignment waits for the parent to say which workspace to serve (a spare
// worker waits here, its start-up paid, until a workspace needs it).
func (c *Control) Assignment() (Assign, error) {
	m, err := c.cr.next()
	if err != nil {
		return Assign{}, fmt.Errorf("read assignment: %w", err)
	}
	if m.Assign == nil || m.Assign.Workspace == "" || m.Assign.Socket == "" {
		return Assign{}, fmt.Errorf("read assignment: %w", ErrBadHello)
	}
	return *m.Assign, nil
}

// CheckKey reports whether r carries key (HeaderKey), in constant time.
func CheckKey(r *http.Request, key string) bool {
	got := r.Header.Get(HeaderKey)
	return key != "" && subtle.ConstantTimeCompare([]byte(got), []byte(key)) == 1
}

// ServeOptions configure Serve.
type ServeOptions struct {
	// Socket is the Unix socket path to listen on (mode 0600).
	Socket string
	// Server serves the requests (its Handler checks HeaderKey); Serve sets
	// nothing else on it.
	Server *http.Server
	// Control is the channel from ReadHello; Report is where the worker
	// writes its messages (its stdout).
	Control *Control
	Report  io.Writer
	// Idle reports whether the workspace is closed and nothing runs: an
	// exit offered by the parent is taken only then.
	Idle func() bool
	// Close closes the workspace after the server has stopped.
	Close func() error
	// Slots, if set, is connected to the control channel: the host-wide
	// slots the worker asks the server for.
	Slots *Slots
	// StopTimeout bounds the wait for requests in flight at exit (streams
	// are cut after it). Default 10s.
	StopTimeout time.Duration
	Logger      *slog.Logger
}

// Server is a running worker; Hibernated tells it the workspace hibernated.
type Server struct {
	o    ServeOptions
	wmu  sync.Mutex // one control line at a time
	dead bool
}

// NewServer returns the worker's server; Run serves.
func NewServer(o ServeOptions) *Server {
	if o.StopTimeout == 0 {
		o.StopTimeout = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Server{o: o}
	if o.Slots != nil {
		o.Slots.connect(s.sendLine)
	}
	return s
}

// ExecStarted and ExecEnded report an execution to the parent, which counts
// them (Pool.Executions).
func (s *Server) ExecStarted(backend string) { s.report(message{Exec: &ExecEvent{Backend: backend}}) }

// ExecEnded: see ExecStarted.
func (s *Server) ExecEnded(backend, status string) {
	s.report(message{Exec: &ExecEvent{Backend: backend, Status: status}})
}

// Hibernated offers the parent to exit (call it when the workspace has
// hibernated).
func (s *Server) Hibernated() { s.report(message{Idle: true}) }

func (s *Server) report(m message) { s.sendLine(m) }

// sendLine writes one control line to the parent.
func (s *Server) sendLine(m message) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.dead {
		return ErrNoParent
	}
	if err := send(s.o.Report, m); err != nil {
		s.dead = true
		return err
	}
	return nil
}

// Run listens on the socket, says ready, and serves until the parent asks
// it to exit (or goes away: its end of the control channel closes), then
// stops the server, closes the workspace and returns.
func (s *Server) Run(ctx context.Context) error {
	os.Remove(s.o.Socket)
	ln, err := net.Listen("unix", s.o.Socket)
	if err != nil {
		return fmt.Errorf("listen on worker socket: %w", err)
	}
	if err := os.Chmod(s.o.Socket, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("listen on worker socket: %w", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.o.Server.Serve(ln) }()
	s.report(message{Ready: true})

	// The reader answers slot lines itself and never blocks on the loop
	// below, which stops taking lines once it is exiting.
	msgs, exiting := make(chan message), make(chan struct{})
	go func() {
		defer close(msgs)
		if s.o.Slots != nil {
			defer s.o.Slots.close()
		}
		for {
			m, err := s.o.Control.cr.next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					s.o.Logger.Warn("worker: control channel", "err", err)
				}
				return
			}
			if m.Grant != nil || m.Reclaim != 0 {
				if s.o.Slots != nil {
					s.o.Slots.deliver(m)
				}
				continue
			}
			select {
			case msgs <- m:
			case <-exiting:
			}
		}
	}()
	why := "the server went away"
loop:
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				break loop
			}
			switch m.Exit {
			case exitStop:
				why = "asked to stop"
				break loop
			case exitIdle:
				if s.o.Idle == nil || s.o.Idle() {
					why = "idle"
					break loop
				}
				s.report(message{Busy: true})
			}
		case err := <-errc:
			close(exiting)
			s.o.Close()
			return fmt.Errorf("serve worker: %w", err)
		case <-ctx.Done():
			why = ctx.Err().Error()
			break loop
		}
	}
	close(exiting)
	s.o.Logger.Debug("worker: exiting", "why", why)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.o.StopTimeout)
	defer cancel()
	var errs []error
	if err := s.o.Server.Shutdown(sctx); err != nil {
		s.o.Server.Close()
	}
	<-errc
	if s.o.Close != nil {
		if err := s.o.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	os.Remove(s.o.Socket)
	return errors.Join(errs...)
}
