package wire

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Port forwarding (inbound): with Config.Forward set, the init accepts
// connections on the listening unix socket it inherits as ForwardFD (the
// host made it and keeps its path private), and each connection asks for
// one TCP port of the sandbox's loopback:
//
//	host → init  "port N\n"                 (N in 1..65535)
//	init → host  "ok\n" or "error TEXT\n"   (TEXT one line: why the dial failed)
//
// then, after "ok", the connection carries the bytes of a TCP connection the
// init dialled to 127.0.0.1:N (or [::1]:N when nothing listens on the IPv4
// one) in the sandbox's network namespace, both ways, half-closes passed
// on. The host never enters the namespace: the init, already in it, dials.
// The kernel's socket buffers are the flow control. The init serves at most
// MaxForwards connections at once (past it: "error too many").

// ForwardFD is the file descriptor of the forwarding socket in the init.
const ForwardFD = 4

// MaxForwards bounds the forwarded connections an init serves at once.
const MaxForwards = 256

// maxForwardLine bounds the request and answer lines.
const maxForwardLine = 512

// ErrForwardRefused is wrapped by ReadForwardAnswer's error when the init
// could not reach the port.
var ErrForwardRefused = errors.New("the sandbox's port refused the connection")

// WriteForwardRequest asks for port.
func WriteForwardRequest(w io.Writer, port int) error {
	_, err := fmt.Fprintf(w, "port %d\n", port)
	return err
}

// readLine reads one line of at most maxForwardLine bytes, byte by byte (so
// that nothing after it is consumed).
func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for len(b) < maxForwardLine {
		if _, err := io.ReadFull(r, one); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		if one[0] == '\n' {
			return string(b), nil
		}
		b = append(b, one[0])
	}
	return "", fmt.Errorf("read forward line: longer than %d bytes: %w", maxForwardLine, ErrProtocol)
}

// ReadForwardRequest reads a request and returns its port.
func ReadForwardRequest(r io.Reader) (int, error) {
	l, err := readLine(r)
	if err != nil {
		return 0, err
	}
	n, ok := strings.CutPrefix(l, "port ")
	port, err := strconv.Atoi(n)
	if !ok || err != nil || port < 1 || port > 65535 {
		return 0, fmt.Errorf("read forward request %q: %w", l, ErrProtocol)
	}
	return port, nil
}

// WriteForwardAnswer answers a request: ok when err is nil, else the error's
// text on one line.
func WriteForwardAnswer(w io.Writer, err error) error {
	line := "ok\n"
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), "\n", " ")
		if len(msg) > maxForwardLine-16 {
			msg = msg[:maxForwardLine-16]
		}
		line = "error " + msg + "\n"
	}
	_, werr := io.WriteString(w, line)
	return werr
}

// ReadForwardAnswer reads the answer: nil for ok, an error wrapping
// ErrForwardRefused with the init's text otherwise.
func ReadForwardAnswer(r io.Reader) error {
	l, err := readLine(r)
	if err != nil {
		return fmt.Errorf("read forward answer: %w", err)
	}
	if l == "ok" {
		return nil
	}
	if msg, ok := strings.CutPrefix(l, "error "); ok {
		return fmt.Errorf("%w: %s", ErrForwardRefused, msg)
	}
	return fmt.Errorf("read forward answer %q: %w", l, ErrProtocol)
}
