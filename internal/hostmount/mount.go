package hostmount

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// Options configure a mount.
type Options struct {
	// AllowOther lets users other than root (the mounting user) use the
	// mount (FUSE's allow_other); the kernel still checks every access
	// against the stored modes and owners.
	AllowOther bool
	// ReadOnly mounts read-only: changes through the mount fail with
	// EROFS; changes made elsewhere still show.
	ReadOnly bool
	// Actor labels the changes made through the mount in the journal.
	// Required: it must differ from every other writer's.
	Actor string
	// Forbidden are directories the mount point may be neither in nor
	// above (Check).
	Forbidden []Forbidden
	// Records, if set, keeps a record of the mount while it is up, so that
	// a mount left by a process that died can be detached (Cleanup).
	Records *Records
	// FUSE are the options of the FUSE server (caches, limits); the fields
	// above, Parent and Actor override theirs.
	FUSE fusefs.Options
	// Logger receives what cannot be returned. Default slog.Default().
	Logger *slog.Logger
}

// Mount is a store mounted on a host directory.
type Mount struct {
	srv    *fusefs.Server
	dir    string
	conn   int
	log    *slog.Logger
	rec    *Records
	recID  string
	served chan struct{} // closed when the FUSE server stops
	watch  *watcher

	goneOnce sync.Once
	gone     chan struct{} // closed when the mount left without Unmount
	why      string

	unmountOnce sync.Once
	unmountErr  error
}

// New checks dir (Check), mounts fsys on it and watches it: Gone is closed
// if the mount goes away without Unmount (umount, fusermount -u, umount -l,
// an aborted connection). It mounts with mount(2), so it needs root (or
// CAP_SYS_ADMIN). The mount is made on the directory Check opened, reached
// through descriptors (fusefs.Options.Parent), never by resolving dir's
// path again.
func New(ctx context.Context, fsys *vfs.FS, dir string, o Options) (*Mount, error) {
	if o.Actor == "" {
		return nil, errors.New("mount workspace: no actor")
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	clean, parent, err := checkParent(dir, o.Forbidden)
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	fo := o.FUSE
	fo.AllowOther, fo.ReadOnly, fo.Actor, fo.Parent = o.AllowOther, o.ReadOnly, o.Actor, parent
	if fo.Logger == nil {
		fo.Logger = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	}
	srv, err := fusefs.Mount(ctx, fsys, clean, fo)
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			return nil, fmt.Errorf("%w (mounting needs the server to run as root, or with CAP_SYS_ADMIN)", err)
		}
		return nil, err
	}
	m := &Mount{srv: srv, dir: clean, conn: srv.Connection(), log: log, rec: o.Records, served: make(chan struct{}), gone: make(chan struct{})}
	go func() {
		srv.Wait()
		close(m.served)
		m.leave("unmounted outside desk (its FUSE connection ended)")
	}()
	if m.conn == 0 {
		m.Unmount()
		return nil, refuse(clean, syscall.EIO, "the mount point cannot be found after mounting")
	}
	if m.rec != nil {
		if m.recID, err = m.rec.add(Record{Dir: clean, Conn: m.conn}); err != nil {
			m.Unmount()
			return nil, err
		}
	}
	if m.watch, err = watch(m.conn, func() { m.leave("unmounted outside desk") }); err != nil {
		m.Unmount()
		return nil, err
	}
	return m, nil
}

// checkParent is Check, returning as well an O_PATH descriptor of the
// mount point's parent directory (reached without symbolic links).
func checkParent(dir string, forbidden []Forbidden) (string, *os.File, error) {
	clean, err := Check(dir, forbidden)
	if err != nil {
		return "", nil, err
	}
	pfd, pclean, err := openDir(filepath.Dir(clean))
	if err != nil {
		return "", nil, err
	}
	parent := os.NewFile(uintptr(pfd), pclean)
	// The mount point, reached from the parent as the mount will be, must be
	// the directory checked: a name swapped meanwhile is refused.
	var a, b unix.Stat_t
	cfd, cerr := unix.Openat(pfd, filepath.Base(clean), unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if cerr == nil {
		cerr = unix.Fstat(cfd, &a)
		unix.Close(cfd)
	}
	if cerr == nil {
		cfd, _, cerr = openDir(clean)
		if cerr == nil {
			cerr = unix.Fstat(cfd, &b)
			unix.Close(cfd)
		}
	}
	if cerr != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		parent.Close()
		return "", nil, refuse(clean, syscall.EAGAIN, "the directory changed while being checked: try again")
	}
	return clean, parent, nil
}

// Dir is the mount point.
func (m *Mount) Dir() string { return m.dir }

// Connection is the mount's FUSE connection number (fusefs.Server.Connection).
func (m *Mount) Connection() int { return m.conn }

// Gone is closed when the mount went away without Unmount; Why says how.
func (m *Mount) Gone() <-chan struct{} { return m.gone }

// Why says how the mount went away, once Gone is closed.
func (m *Mount) Why() string {
	select {
	case <-m.gone:
		return m.why
	default:
		return ""
	}
}

func (m *Mount) leave(why string) {
	m.goneOnce.Do(func() {
		m.why = why
		close(m.gone)
	})
}

// Unmount unmounts (detaching and aborting the connection if the mount is
// busy, so it never waits on the programs using it: their later accesses
// fail with ENOTCONN), stops the server and drops the record. Calling it
// again returns the first result.
func (m *Mount) Unmount() error {
	m.unmountOnce.Do(func() {
		m.leave("unmounted by desk")
		if m.watch != nil {
			m.watch.stop()
		}
		m.unmountErr = m.srv.Unmount()
		if m.recID != "" {
			if err := m.rec.remove(m.recID); err != nil {
				m.log.Warn("mount: remove record", "dir", m.dir, "err", err)
			}
		}
	})
	return m.unmountErr
}
