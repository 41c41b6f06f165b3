package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/sandbox/wire"
	"github.com/desk-dev/desk/internal/vfs"
)

// Inbound port forwarding: each sandbox's init serves connections to the
// TCP ports of the sandbox's loopback on a listening unix socket the backend
// makes in the sandbox's bundle (StateDir/ID/forward.sock: 0700 root's
// directories, so no host user and no process of the sandbox reaches it)
// and passes to the init as file descriptor wire.ForwardFD. DialPort
// connects to it; the init, already in the sandbox's network namespace,
// dials the port. The backend never enters the namespace.

// ErrNotRunning: the workspace has no live sandbox, so nothing listens on its
// ports (a service is a detached execution, which keeps its sandbox up).
var ErrNotRunning = errors.New("the workspace's sandbox is not running")

// forwardSocket is the forwarding socket's name in a bundle.
const forwardSocket = "forward.sock"

// forwardListener makes the bundle's forwarding socket, listening, and
// returns it as a file to pass to the init.
func forwardListener(dir string) (*os.File, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("make forwarding socket: %w", err)
	}
	err = inDir(dir, func(p string) error {
		if err := unix.Bind(fd, &unix.SockaddrUnix{Name: p}); err != nil {
			return err
		}
		return unix.Listen(fd, 128)
	})
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("make forwarding socket: %w", err)
	}
	return os.NewFile(uintptr(fd), "forward"), nil
}

// inDir calls fn with a short path naming forwardSocket in dir (through
// /proc/self/fd, since a unix socket's path is limited to 107 bytes and
// state directories can be longer).
func inDir(dir string, fn func(p string) error) error {
	d, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(d)
	return fn("/proc/self/fd/" + strconv.Itoa(d) + "/" + forwardSocket)
}

// liveBox returns the workspace's running sandbox.
func (b *Backend) liveBox(fsys *vfs.FS) (*box, error) {
	if fsys == nil {
		return nil, errors.New("find sandbox: no workspace store")
	}
	name := b.opts.Name(fsys)
	b.mu.Lock()
	x := b.boxes[name]
	b.mu.Unlock()
	if x == nil || x.ws.FS != fsys {
		return nil, fmt.Errorf("%s: %w", name, ErrNotRunning)
	}
	select {
	case <-x.ready:
	default:
		return nil, fmt.Errorf("%s: %w (it is starting)", name, ErrNotRunning)
	}
	if x.err != nil || x.isDead() {
		return nil, fmt.Errorf("%s: %w", name, ErrNotRunning)
	}
	return x, nil
}

// DialPort connects to TCP port on the loopback of the workspace's running
// sandbox (it does not start one: it fails with ErrNotRunning). The
// connection carries the bytes of a TCP connection to the port; CloseWrite
// (it is a *net.UnixConn) passes a half-close on. Nothing listening fails
// with an error wrapping wire.ErrForwardRefused. ctx bounds the dial.
func (b *Backend) DialPort(ctx context.Context, fsys *vfs.FS, port int) (*net.UnixConn, error) {
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("dial sandbox port %d: not a TCP port", port)
	}
	x, err := b.liveBox(fsys)
	if err != nil {
		return nil, fmt.Errorf("dial sandbox port %d: %w", port, err)
	}
	var c *net.UnixConn
	var d net.Dialer
	err = inDir(x.bundle.dir, func(p string) error {
		nc, err := d.DialContext(ctx, "unix", p)
		if err != nil {
			return err
		}
		c = nc.(*net.UnixConn)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dial sandbox port %d: %w", port, err)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	err = wire.WriteForwardRequest(c, port)
	if err == nil {
		err = wire.ReadForwardAnswer(c)
	}
	if !stop() {
		err = errors.Join(err, ctx.Err())
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("dial sandbox port %d: %w", port, err)
	}
	return c, nil
}

// Port is a TCP port listening in a sandbox.
type Port struct {
	Port int    `json:"port"`
	Addr string `json:"addr"` // the address it listens on: 127.0.0.1, 0.0.0.0, ::, ...
	// PID is the listening process's pid inside the sandbox, Command its
	// name (comm), Execution the execution it belongs to (as ExecutionOf
	// finds it; "" when none); 0 and "" when no process of the sandbox
	// holds the socket any more.
	PID       int    `json:"pid,omitempty"`
	Command   string `json:"command,omitempty"`
	Execution string `json:"execution,omitempty"`
}

// maxPortScan bounds the descriptors Ports looks at to find the listening
// sockets' processes.
const maxPortScan = 1 << 20

// Ports lists the TCP ports listening in the workspace's running sandbox
// (ErrNotRunning when there is none), by port: from the sandbox's
// /proc/net/tcp and tcp6 as its init sees them, each with the process that
// holds the socket (the descriptors of the sandbox's processes, at most
// maxPortScan of them looked at).
func (b *Backend) Ports(ctx context.Context, fsys *vfs.FS) ([]Port, error) {
	x, err := b.liveBox(fsys)
	if err != nil {
		return nil, fmt.Errorf("list sandbox ports: %w", err)
	}
	base := "/proc/" + strconv.Itoa(x.initPID) + "/net/"
	byInode := map[string]*Port{}
	var ports []*Port
	for _, f := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(base + f)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && f == "tcp6" {
				continue // no IPv6
			}
			return nil, fmt.Errorf("list sandbox ports: %w", err)
		}
		for _, p := range parseListening(data) {
			if _, dup := byInode[p.inode]; !dup {
				pt := &Port{Port: p.port, Addr: p.addr}
				byInode[p.inode] = pt
				ports = append(ports, pt)
			}
		}
	}
	if len(byInode) > 0 {
		x.socketOwners(ctx, byInode)
	}
	out := make([]Port, 0, len(ports))
	for _, p := range ports {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b Port) int {
		if a.Port != b.Port {
			return a.Port - b.Port
		}
		return strings.Compare(a.Addr, b.Addr)
	})
	return out, nil
}

// socketOwners fills in the process holding each socket of byInode.
func (x *box) socketOwners(ctx context.Context, byInode map[string]*Port) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	ns := x.pidNS()
	scanned := 0
	for _, d := range ents {
		if ctx.Err() != nil || scanned >= maxPortScan {
			return
		}
		name := d.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		dir := "/proc/" + name
		if got, err := os.Readlink(dir + "/ns/pid"); err != nil || got != ns {
			continue
		}
		fds, err := os.ReadDir(dir + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			scanned++
			l, err := os.Readlink(dir + "/fd/" + fd.Name())
			if err != nil {
				continue
			}
			inode, ok := strings.CutPrefix(l, "socket:[")
			if !ok {
				continue
			}
			p := byInode[strings.TrimSuffix(inode, "]")]
			if p == nil || p.PID != 0 {
				continue
			}
			hostPID, _ := strconv.Atoi(name)
			p.PID = innerPID(dir)
			comm, _ := os.ReadFile(dir + "/comm")
			p.Command = strings.TrimSpace(string(comm))
			if _, id, ok := x.b.ExecutionOf(hostPID); ok {
				p.Execution = id
			}
		}
	}
}

// innerPID is the pid of host process dir (a /proc directory) in its
// innermost pid namespace (the NSpid line's last field).
func innerPID(dir string) int {
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("NSpid:")); ok {
			f := strings.Fields(string(rest))
			if len(f) > 0 {
				n, _ := strconv.Atoi(f[len(f)-1])
				return n
			}
		}
	}
	return 0
}

// listening is a LISTEN line of /proc/net/tcp{,6}.
type listening struct {
	port  int
	addr  string
	inode string
}

// parseListening returns the listening sockets of a /proc/net/tcp or tcp6
// table; malformed lines are skipped.
func parseListening(data []byte) []listening {
	var out []listening
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" { // st 0A: TCP_LISTEN
			continue
		}
		host, portHex, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		port, err := strconv.ParseUint(portHex, 16, 16)
		if err != nil {
			continue
		}
		addr, ok := procAddr(host)
		if !ok {
			continue
		}
		out = append(out, listening{port: int(port), addr: addr, inode: f[9]})
	}
	return out
}

// procAddr decodes an address of /proc/net/tcp: the address's 32-bit words
// as the kernel holds them, each printed in hex as a number of the host's
// byte order.
func procAddr(h string) (string, bool) {
	if len(h) != 8 && len(h) != 32 {
		return "", false
	}
	b := make([]byte, 0, len(h)/2)
	for i := 0; i < len(h); i += 8 {
		v, err := strconv.ParseUint(h[i:i+8], 16, 32)
		if err != nil {
			return "", false
		}
		b = binary.NativeEndian.AppendUint32(b, uint32(v))
	}
	a, ok := netip.AddrFromSlice(b)
	if !ok {
		return "", false
	}
	return a.Unmap().String(), true
}
