package initproc

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// Inbound port forwarding (wire's "Port forwarding"): the init accepts the
// host's connections on the listening socket it inherited as
// wire.ForwardFD, reads which port each wants, dials it on the sandbox's
// loopback and copies bytes both ways until both directions have ended.

// forwardDialTimeout bounds the init's dial of a sandbox port (a loopback
// dial fails or succeeds at once; this only guards a full backlog), and
// forwardRequestTimeout the host's request line.
const (
	forwardDialTimeout    = 5 * time.Second
	forwardRequestTimeout = 10 * time.Second
)

// serveForward serves the forwarding socket until it fails (the host closed
// its end: the sandbox is stopping).
func serveForward() {
	f := os.NewFile(wire.ForwardFD, "forward")
	if f == nil {
		return
	}
	l, err := net.FileListener(f) // a close-on-exec duplicate
	f.Close()
	if err != nil {
		return
	}
	defer l.Close()
	slots := make(chan struct{}, wire.MaxForwards)
	for {
		c, err := l.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				time.Sleep(10 * time.Millisecond) // descriptors run out: let some close
				continue
			}
			return
		}
		select {
		case slots <- struct{}{}:
			go func() {
				defer func() { <-slots }()
				forwardInbound(c)
			}()
		default:
			wire.WriteForwardAnswer(c, errors.New("too many forwarded connections"))
			c.Close()
		}
	}
}

// forwardInbound serves one forwarded connection.
func forwardInbound(c net.Conn) {
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(forwardRequestTimeout))
	port, err := wire.ReadForwardRequest(c)
	if err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	t, err := dialPort(port)
	if err != nil {
		wire.WriteForwardAnswer(c, err)
		return
	}
	defer t.Close()
	if err := wire.WriteForwardAnswer(c, nil); err != nil {
		return
	}
	splice(c, t)
}

// dialPort dials port on the sandbox's IPv4 loopback, then on the IPv6 one.
func dialPort(port int) (net.Conn, error) {
	p := strconv.Itoa(port)
	t, err := net.DialTimeout("tcp", "127.0.0.1:"+p, forwardDialTimeout)
	if err == nil {
		return t, nil
	}
	if t6, err6 := net.DialTimeout("tcp", "[::1]:"+p, forwardDialTimeout); err6 == nil {
		return t6, nil
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return nil, fmt.Errorf("nothing listens on port %d in the sandbox", port)
	}
	return nil, fmt.Errorf("dial port %d in the sandbox: %w", port, err)
}

// halfCloser is a connection whose write side can be closed alone.
type halfCloser interface {
	net.Conn
	CloseWrite() error
}

// splice copies a → b and b → a; each direction's end is passed on as a
// half-close, and it returns once both have ended.
func splice(a, b net.Conn) {
	var wg sync.WaitGroup
	cp := func(dst, src net.Conn) {
		defer wg.Done()
		io.Copy(dst, src)
		if h, ok := dst.(halfCloser); ok {
			h.CloseWrite()
		} else {
			dst.Close()
		}
	}
	wg.Add(2)
	go cp(a, b)
	go cp(b, a)
	wg.Wait()
}
