package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/cgroup"
	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// box is one live sandbox: a runtime process (runc run, in the foreground)
// whose container runs our init, and the connection to the init.
type box struct {
	b     *Backend
	ws    Workspace
	id    string        // container id
	ready chan struct{} // closed when the start finished; err says how
	err   error
	dead  chan struct{} // closed when the sandbox is stopping or stopped
	gone  chan struct{} // closed when everything is cleaned up
	ended chan struct{} // closed when the runtime process has exited (or never started)

	// Set by start before ready is closed.
	conn    *conn
	cmd     *exec.Cmd
	bundle  *bundle
	mount   Mount
	img     *Image // the workspace's image (nil: the host's userland)
	initPID int    // the init's pid on the host
	cg      counters
	cgDir   string        // the sandbox's cgroup on the v2 hierarchy ("": none; cgroup.go)
	notify  *net.UnixConn // the host's end of the notify socket (launch.go)
	ns      string        // the init's pid namespace, as /proc/PID/ns/pid reads
	log     *tailBuffer   // the runtime's and the init's stderr
	egress  *http.Server  // the egress proxy on the bundle's socket (egress.go)

	nets sync.Map // egress credential → the execution's run.Job.Net, while it runs

	trustMu sync.Mutex
	trusted []byte // the egress CA added to the bundle's ca.pem (egress.go)

	smu       sync.Mutex
	sessions  map[int]string // session id inside → execution id
	launching int            // executions started whose session is not registered yet
	schange   chan struct{}  // closed when sessions or launching change

	// Execution cgroups (cgroup.go).
	groupSeq  atomic.Uint64
	ungrouped atomic.Bool // making one failed: executions are not metered
	gmu       sync.Mutex
	lingering []string // groups to remove once their processes are gone

	dieOnce sync.Once
	why     error // why it stopped (set before dead is closed)

	// Guarded by Backend.mu.
	users    int
	lastUsed time.Time
	idle     *time.Timer
	slotIdle bool // what the slot was last told (Options.Slots)

	slotMu sync.Mutex
	slot   fair.Slot // Options.Slots's, from the start until cleaned up
}

// markIdle tells the sandbox's slot whether it is idle (call it with
// Backend.mu held, so that marks are sent in order).
func (x *box) markIdle(idle bool) {
	x.slotIdle = idle
	x.slotMu.Lock()
	s := x.slot
	x.slotMu.Unlock()
	if s != nil {
		s.Idle(idle)
	}
}

// programOOMScoreAdj is the oom_score_adj of every program in a sandbox:
// the most, so that the OOM killer picks a program (the largest of them)
// before the init, whatever the init's size: the init keeps what it
// inherited (a worker's 300, or 0), as lowering it would need
// CAP_SYS_RESOURCE, which desk may not have. At 500 a grown init (its
// forwarders and mounts, race-instrumented in tests) was picked first in a
// 32 MiB sandbox, ending the sandbox instead of the program.
const programOOMScoreAdj = 1000

var idChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

func newBox(b *Backend, ws Workspace) *box {
	var r [4]byte
	rand.Read(r[:])
	name := idChars.ReplaceAllString(ws.Name, "-")
	if len(name) > 40 {
		name = name[:40]
	}
	return &box{b: b, ws: ws, id: "desk-" + name + "-" + hex.EncodeToString(r[:]),
		ready: make(chan struct{}), dead: make(chan struct{}), gone: make(chan struct{}), ended: make(chan struct{}), log: &tailBuffer{max: 8 << 10}}
}

// isDead reports whether the sandbox is stopping or stopped.
func (x *box) isDead() bool {
	select {
	case <-x.dead:
		return true
	default:
		return false
	}
}

// reason says why the sandbox stopped.
func (x *box) reason() error {
	<-x.dead
	return x.why
}

// start starts the sandbox; it closes ready when done, with err set on failure.
func (x *box) start() {
	o := &x.b.opts
	ctx, cancel := context.WithTimeout(context.Background(), o.StartTimeout)
	defer cancel()
	var err error
	if o.Slots != nil {
		var s fair.Slot
		if s, err = o.Slots.Acquire(ctx, fair.Sandbox, func() { x.b.reclaim(x) }); err == nil {
			x.slotMu.Lock()
			x.slot = s
			x.slotMu.Unlock()
		}
	}
	if err == nil {
		err = x.startWith(ctx)
	}
	if err != nil {
		if t := strings.TrimSpace(x.log.String()); t != "" {
			err = fmt.Errorf("%w; the runtime said: %s", err, t)
		}
		x.err = fmt.Errorf("start sandbox %s: %w", x.id, err)
		x.die(x.err)
	}
	close(x.ready)
}

func (x *box) startWith(ctx context.Context) error {
	o := &x.b.opts
	if err := x.resolveImage(ctx); err != nil {
		return err
	}
	m, err := o.Mount(ctx, x.ws)
	if err != nil {
		return fmt.Errorf("mount workspace: %w", err)
	}
	x.mount = m
	if fi, err := os.Stat(m.Dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("mount workspace: %s is not a directory", m.Dir)
	}
	var sk *skeleton
	if x.img == nil {
		if sk, err = x.b.skeleton(); err != nil {
			return err
		}
	}
	if x.bundle, err = makeBundle(o, sk, x.id, x.ws.Name, m, x.img); err != nil {
		return err
	}
	if err := x.startEgress(); err != nil {
		return err
	}
	fwd, err := forwardListener(x.bundle.dir)
	if err != nil {
		return err
	}
	defer fwd.Close() // the init's copy serves; the host dials the path
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("make socket: %w", err)
	}
	hostEnd, initEnd := os.NewFile(uintptr(fds[0]), "sandbox-host"), os.NewFile(uintptr(fds[1]), "sandbox-init")
	defer initEnd.Close()
	nc, err := net.FileConn(hostEnd)
	hostEnd.Close()
	if err != nil {
		return fmt.Errorf("make socket: %w", err)
	}
	// In the foreground, runc stays the sandbox's parent: it reaps the init
	// and deletes the container when the init exits, which the init does
	// when this connection ends, even if desk dies.
	hostNotify, initNotify, err := notifyPair()
	if err != nil {
		nc.Close()
		return err
	}
	defer initNotify.Close()
	x.cmd = exec.Command(o.Runtime, "--root", o.RuntimeRoot, "run", "--bundle", x.bundle.dir,
		"--pid-file", x.bundle.pidFile(), "--preserve-fds", "3", x.id)
	// fd 3 in runc, passed on as fd 3 of the init; the forwarding socket
	// as fd 4 (wire.ForwardFD), the notify socket as fd 5 (wire.NotifyFD).
	x.cmd.ExtraFiles = []*os.File{initEnd, fwd, initNotify}
	x.cmd.Stdout, x.cmd.Stderr = x.log, x.log
	x.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a terminal's ^C is desk's to handle
	x.cmd.WaitDelay = time.Second
	if err := x.cmd.Start(); err != nil {
		nc.Close()
		hostNotify.Close()
		x.cmd = nil
		return fmt.Errorf("run %s: %w", o.Runtime, err)
	}
	x.notify = hostNotify
	go x.answerLaunches(hostNotify)
	x.conn = newConn(nc, o.OutputWindow, x.policyFrame)
	go func() {
		err := x.cmd.Wait()
		close(x.ended)
		x.die(fmt.Errorf("the runtime exited (%v)", err))
	}()
	go func() {
		select {
		case <-x.conn.done:
			x.die(x.conn.Err())
		case <-x.dead:
		}
	}()
	if m.Done != nil {
		go func() {
			select {
			case <-m.Done:
				x.die(errors.New("the workspace mount ended"))
			case <-x.dead:
			}
		}()
	}
	err = x.conn.send(wire.JSON(wire.TConfig, 0, wire.Config{
		Version:        wire.Version,
		OutputWindow:   o.OutputWindow,
		DetachedBuffer: o.DetachedBuffer,
		MaxDetached:    o.MaxDetached,
		KillGrace:      o.KillGrace,
		DrainTimeout:   o.DrainTimeout,
		OOMScoreAdj:    programOOMScoreAdj,
		ProxyPort:      o.ProxyPort,
		Forward:        true,
	}))
	if err != nil {
		return err
	}
	var f wire.Frame
	select {
	case f = <-x.conn.ready:
	case <-x.ended:
		return errors.New("the runtime exited before the init was ready")
	case <-x.dead:
		return x.why
	case <-ctx.Done():
		return fmt.Errorf("wait for the init: %w", ctx.Err())
	}
	var r wire.Ready
	if err := wire.Decode(f, &r); err != nil {
		return err
	}
	if r.Version != wire.Version {
		return fmt.Errorf("the init speaks protocol %d, not %d: %w", r.Version, wire.Version, wire.ErrProtocol)
	}
	if x.initPID, err = x.readPID(ctx); err != nil {
		return err
	}
	x.watchInit()
	x.cg = findCounters(x.initPID)
	if d := cgroup.Dirs(x.initPID)[""]; filepath.Base(d) == x.id {
		x.cgDir = d // the sandbox's own, never a parent shared with others
	}
	x.recordCgroups()
	x.ns, _ = os.Readlink("/proc/" + strconv.Itoa(x.initPID) + "/ns/pid")
	return nil
}

// watchInit stops the sandbox as soon as its init exits, whether or not the
// runtime (which holds a copy of the init's connection until it exits
// itself) is quick to notice: an execution under a killed init ends at once
// instead of waiting on the runtime's cleanup.
func (x *box) watchInit() {
	fd, err := unix.PidfdOpen(x.initPID, unix.PIDFD_NONBLOCK)
	if err != nil {
		if errors.Is(err, syscall.ESRCH) {
			x.die(errors.New("the init exited"))
		}
		return // an old kernel: the runtime's exit and the connection tell
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return
	}
	go func() {
		<-x.dead
		f.Close() // ends the wait below
	}()
	go func() {
		waited := false
		err := rc.Read(func(uintptr) bool {
			// The first call only arms the wait; the poller calls again
			// once the pidfd is readable, which it is when the init exits.
			done := waited
			waited = true
			return done
		})
		if err == nil {
			x.die(errors.New("the init exited"))
		}
	}()
}

// readPID reads the init's host pid from the file the runtime writes (atomically,
// but possibly after the init is already running and has answered).
func (x *box) readPID(ctx context.Context) (int, error) {
	for {
		b, err := os.ReadFile(x.bundle.pidFile())
		if err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				return 0, fmt.Errorf("read the init's pid: %w", err)
			}
			return pid, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return 0, fmt.Errorf("read the init's pid: %w", err)
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("read the init's pid: %w", ctx.Err())
		case <-x.dead:
			return 0, x.why
		case <-time.After(time.Millisecond):
		}
	}
}

// die marks the sandbox stopped for reason why and cleans up on a goroutine
// of its own. Safe to call any number of times; the first reason counts.
func (x *box) die(why error) {
	x.dieOnce.Do(func() {
		x.why = why
		close(x.dead)
		x.b.forget(x)
		x.b.wg.Add(1)
		go func() {
			defer x.b.wg.Done()
			x.cleanup()
		}()
	})
}

// cleanup stops the sandbox: closing the connection makes the init exit, the
// kernel kills every process of the sandbox with it, and runc deletes the
// container and its cgroups. If runc has not exited StopTimeout later the
// container is killed and deleted by force. Then the mount is released and
// the bundle removed.
func (x *box) cleanup() {
	defer close(x.gone)
	defer func() {
		x.slotMu.Lock()
		s := x.slot
		x.slot = nil
		x.slotMu.Unlock()
		if s != nil {
			s.Release() // cleaned up: the slot is free for another workspace
		}
	}()
	<-x.ready // start may still be running: its steps end quickly once dead is closed
	o := &x.b.opts
	if x.conn != nil {
		// What the init wrote before it ended still counts (a program's
		// start, its last output, its exit).
		x.conn.drain(errors.New("the sandbox is stopping"))
	}
	if x.cmd != nil {
		select {
		case <-x.ended:
		case <-time.After(o.StopTimeout):
			x.b.log.Warn("sandbox: runtime did not stop in time; forcing", "id", x.id)
			x.cmd.Process.Kill()
			<-x.ended
		}
	}
	// Delete by force whatever the runtime left behind (it normally leaves
	// nothing: then this fails quietly).
	if x.cmd != nil {
		ctx, cancel := context.WithTimeout(context.Background(), o.StopTimeout)
		exec.CommandContext(ctx, o.Runtime, "--root", o.RuntimeRoot, "delete", "--force", x.id).Run()
		cancel()
	}
	x.removeGroups() // the runtime removes them with the sandbox's group; whatever it left
	x.stopEgress()
	if x.mount.Release != nil {
		x.mount.Release()
	}
	if x.bundle != nil {
		if err := x.bundle.remove(); err != nil {
			x.b.log.Warn("sandbox: cannot remove bundle", "id", x.id, "err", err)
		}
	}
	if x.img != nil && x.img.Release != nil {
		x.img.Release() // nothing of the sandbox uses its root any more
	}
	x.b.log.Info("sandbox stopped", "workspace", x.ws.Name, "id", x.id, "why", x.why)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.ToValidUTF8(t.b, []byte("?")))
}
