package cmds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"syscall"

	deskrun "github.com/desk-dev/desk/internal/run"
)

// The helpers curl and wget share: sending requests through Env.Net,
// classifying what went wrong, writing the output file.

// netClient is the client of curl and wget: every request goes through
// env.Net (where the egress policy is enforced), and redirects come back to
// the command, which follows them by its own rules.
func netClient(env *Env) *http.Client {
	return &http.Client{Transport: env.Net, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// errNoNetwork is deskrun.ErrNoNetwork for a request to host.
func errNoNetwork(method string, u *url.URL) error {
	return fmt.Errorf("%s %s: %w", method, u.Redacted(), deskrun.ErrNoNetwork)
}

// netErrKind is what a failed request ran into.
type netErrKind int

const (
	netOther   netErrKind = iota
	netResolve            // the name did not resolve
	netConnect            // the connection was refused or unreachable
	netTimeout            // the time limit (--max-time, -T) ran out
	netReset              // the connection broke
	netEmpty              // the server closed without answering
	netNone               // no network at all (Env.Net nil)
)

// classifyNetErr says what kind of failure err is, for exit statuses.
func classifyNetErr(err error) netErrKind {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.Is(err, deskrun.ErrNoNetwork):
		return netNone
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return netTimeout
	case errors.As(err, &dns):
		return netResolve
	case errors.As(err, &op) && op.Op == "dial":
		return netConnect
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return netConnect
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return netReset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return netEmpty
	}
	return netOther
}

// hostPort returns u's host and port (the scheme's default when none).
func hostPort(u *url.URL) (string, string) {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return u.Hostname(), port
}

// headerLines returns resp's header lines as "Name: value", sorted by name
// (the order Go's server writes a handler's headers in; the client keeps
// no wire order), with Transfer-Encoding, which Go's client takes out of
// the map, put back last.
func headerLines(resp *http.Response) []string {
	keys := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lines []string
	for _, k := range keys {
		for _, v := range resp.Header[k] {
			lines = append(lines, k+": "+v)
		}
	}
	if len(resp.TransferEncoding) > 0 {
		lines = append(lines, "Transfer-Encoding: "+strings.Join(resp.TransferEncoding, ", "))
	}
	return lines
}

// outputTo returns the writer of an output file name: the special files
// /dev/null, /dev/stdout and /dev/stderr (which the store does not hold)
// as themselves, else a lazyFile.
func outputTo(env *Env, name string) (io.Writer, *lazyFile) {
	switch env.Abs(name) {
	case "/dev/null":
		return io.Discard, nil
	case "/dev/stdout", "/dev/fd/1":
		return env.Stdout, nil
	case "/dev/stderr", "/dev/fd/2":
		return env.Stderr, nil
	}
	f := &lazyFile{env: env, path: name}
	return f, f
}

// lazyFile is an output file of the workspace, created (truncated) at the
// first write, or by touch.
type lazyFile struct {
	env  *Env
	path string
	f    interface {
		io.Writer
		io.Closer
	}
	err error
}

// open creates the file if it is not yet.
func (l *lazyFile) open() error {
	if l.f == nil && l.err == nil {
		f, err := l.env.FS.OpenFile(l.env.Ctx, l.env.Abs(l.path), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			l.err = err
		} else {
			l.f = f
		}
	}
	return l.err
}

// Write creates the file if need be and writes p.
func (l *lazyFile) Write(p []byte) (int, error) {
	if err := l.open(); err != nil {
		return 0, err
	}
	return l.f.Write(p)
}

// Close closes the file if it was created.
func (l *lazyFile) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// copyBody copies r to w through a buffer charged to Env.Mem, checking
// Env.Ctx between reads. It returns the bytes copied, and which side
// failed.
func copyBody(env *Env, w io.Writer, r io.Reader) (n int64, readErr, writeErr error) {
	const size = 32 << 10
	if err := env.Hold(size); err != nil {
		return 0, err, nil
	}
	defer env.Release(size)
	buf := make([]byte, size)
	for {
		if err := env.Ctx.Err(); err != nil {
			return n, err, nil
		}
		k, err := r.Read(buf)
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				return n, nil, werr
			}
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil, nil
		}
		if err != nil {
			return n, err, nil
		}
	}
}
