package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/wspath"
)

// Actor is the change journal's actor of what Open itself writes (the
// /workspace directory of a workspace that lacks it).
const Actor = "workspace"

// Sentinels for named conditions. Errors wrap them; test with errors.Is.
var (
	// ErrNotFound: no workspace of that name exists in the data directory.
	ErrNotFound = errors.New("workspace not found")
	// ErrExists: Create was given the name of a workspace that already exists.
	ErrExists = errors.New("workspace already exists")
	// ErrInUse: the workspace is open (Remove found its store locked by this or
	// another process; the host also returns it for a workspace with leases).
	ErrInUse = errors.New("workspace is in use")
)

// AttachFunc builds further parts of a workspace that live above its store
// (policy and audit, later) once the store and the execution runtime are open.
// It is a seam: the caller supplies it in Options, and neither this package nor
// the host changes.
//
// It runs inside Open after the store and runtime are open; ws.FS() and
// ws.Runtime() are usable. The io.Closer it returns is kept as ws.Attached() and
// closed by ws.Close first, so it may still use the runtime and the store while
// closing. It must release
// every goroutine and file descriptor when closed: the host's promise that an
// idle workspace costs nothing depends on it. If it fails, the store is closed
// again and Open or Create fails with its error.
type AttachFunc func(ctx context.Context, ws *Workspace) (io.Closer, error)

// Options configure a workspace. The zero value opens the store with the vfs
// defaults and attaches nothing.
type Options struct {
	// VFS are the store's options (see vfs.Options for each default). ChunkSize
	// and PageSize take effect only when the store is created.
	VFS vfs.Options
	// Backends are the execution backends, by id, every workspace's runtime
	// routes to (none: executions fail with run.ErrUnknownBackend).
	Backends map[string]run.Backend
	// Run are the runtime's options (see run.Options for each default).
	Run run.Options
	// Attach, if not nil, attaches further parts after the store and runtime
	// are opened. See AttachFunc.
	Attach AttachFunc
	// Admit, if not nil, becomes the runtime's run.Options.Admit with the
	// workspace: the seam of fair shares (package fair), whose bounds are
	// per workspace.
	Admit func(ctx context.Context, ws *Workspace, a run.Admission) (release func(), err error)
}

// Workspace is one open, named workspace: its store and whatever Attach added.
// It is safe for concurrent use. Close it exactly when nobody uses it any more;
// the host does this with reference counting.
type Workspace struct {
	name     string
	path     string
	fs       *vfs.FS
	rt       *run.Runtime
	attached io.Closer
	openedAt time.Time

	closeOnce sync.Once
	closeErr  error
}

// Stats describe an open workspace.
type Stats struct {
	Name     string    // the workspace name
	File     string    // absolute path of its database file
	OpenedAt time.Time // when this Workspace was opened
	Store    vfs.Stats // what the store holds
}

// Open opens the existing workspace name in dataDir (the store at
// File(dataDir, name)), initialising the store if this is the first Open after
// Create, and attaches its runtime. It fails with ErrBadName for
// an invalid name, ErrNotFound if the workspace does not exist and
// vfs.ErrLocked if another process has it open. Open never creates a
// workspace: use Create.
func Open(ctx context.Context, dataDir, name string, opts Options) (*Workspace, error) {
	path, err := File(dataDir, name)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("open workspace %q: %w", name, ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("open workspace %q: %w", name, err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("open workspace %q: %s is not a regular file", name, path)
	}
	return open(ctx, name, path, opts)
}

// Create creates the workspace name in dataDir, creating dataDir and its
// workspaces directory (mode 0700) if needed. It fails with ErrBadName for an
// invalid name and ErrExists if the workspace exists.
//
// Create only reserves the name: it creates an empty database file (mode 0600)
// and syncs the directory, so the workspace survives a crash once Create has
// returned, and costs nothing until used. The first Open initialises the store
// (writing its schema, with that Open's ChunkSize and PageSize).
func Create(ctx context.Context, dataDir, name string) error {
	path, err := File(dataDir, name)
	if err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("create workspace %q: %w", name, err)
	}
	dir := Dir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create workspace %q: %w", name, err)
	}
	// O_EXCL makes "does it exist" and "create it" one step.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create workspace %q: %w", name, ErrExists)
	} else if err != nil {
		return fmt.Errorf("create workspace %q: %w", name, err)
	}
	f.Close()
	// The database did not exist, so side files with its name were left by a
	// Remove interrupted by a crash. (SQLite itself discards the WAL and journal
	// of an empty database; removing them keeps the directory tidy regardless.)
	err = removeCompanions(path)
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("create workspace %q: %w", name, err)
	}
	return nil
}

// syncDir makes the creation or removal of names in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func open(ctx context.Context, name, path string, opts Options) (*Workspace, error) {
	store, err := vfs.Open(ctx, path, opts.VFS)
	if err != nil {
		return nil, fmt.Errorf("open workspace %q: %w", name, err)
	}
	if !opts.VFS.ReadOnly {
		// What imports a killed process left (nothing else writes yet).
		if _, err := fsio.CleanStaging(ctx, store); err != nil {
			store.Close()
			return nil, fmt.Errorf("open workspace %q: %w", name, err)
		}
		// Every workspace has /workspace, a new one from its first open
		// (relative paths on every surface are taken from it).
		if err := wspath.Ensure(vfs.WithActor(ctx, Actor), store); err != nil {
			store.Close()
			return nil, fmt.Errorf("open workspace %q: %w", name, err)
		}
	}
	ws := &Workspace{name: name, path: store.Path(), fs: store, openedAt: time.Now()}
	// The runtime marks executions a dead server left running as failed.
	ro := opts.Run
	if admit := opts.Admit; admit != nil {
		ro.Admit = func(ctx context.Context, a run.Admission) (func(), error) { return admit(ctx, ws, a) }
	}
	rt, err := run.Open(ctx, store, opts.Backends, ro)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("open workspace %q: runtime: %w", name, err)
	}
	ws.rt = rt
	if opts.Attach != nil {
		extra, err := opts.Attach(ctx, ws)
		if err != nil {
			rt.Close()
			store.Close()
			return nil, fmt.Errorf("attach workspace %q: %w", name, err)
		}
		ws.attached = extra
	}
	return ws, nil
}

// Remove deletes the workspace name from dataDir: its database file first (so
// the workspace stops existing in one step), then the -wal, -shm and -journal
// files beside it. It fails with ErrNotFound if there is no such workspace and
// with ErrInUse if its store is open, in this process or another (Remove holds
// the store's lock while it deletes, so nobody can open it meanwhile).
func Remove(dataDir, name string) error {
	path, err := File(dataDir, name)
	if err != nil {
		return fmt.Errorf("remove workspace: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove workspace %q: %w", name, ErrNotFound)
	} else if err != nil {
		return fmt.Errorf("remove workspace %q: %w", name, err)
	}
	defer f.Close()
	// The same lock vfs.Open takes: if we get it, nobody has the store open.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("remove workspace %q: store is open: %w", name, ErrInUse)
		}
		return fmt.Errorf("remove workspace %q: lock: %w", name, err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove workspace %q: %w", name, err)
	}
	if err := removeCompanions(path); err != nil {
		return fmt.Errorf("remove workspace %q: %w", name, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("remove workspace %q: %w", name, err)
	}
	return nil
}

// removeCompanions removes SQLite's side files of the database at path.
func removeCompanions(path string) error {
	var errs []error
	for _, s := range companions {
		if err := os.Remove(path + s); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Name is the workspace's name.
func (w *Workspace) Name() string { return w.name }

// File is the absolute path of the workspace's database file.
func (w *Workspace) File() string { return w.path }

// FS is the workspace's store. It is closed by Close.
func (w *Workspace) FS() *vfs.FS { return w.fs }

// Runtime is the workspace's execution runtime.
func (w *Workspace) Runtime() *run.Runtime { return w.rt }

// Attached is what Options.Attach returned (nil without Attach).
func (w *Workspace) Attached() io.Closer { return w.attached }

// OpenedAt is when the workspace was opened.
func (w *Workspace) OpenedAt() time.Time { return w.openedAt }

// Stats reports on the workspace.
func (w *Workspace) Stats(ctx context.Context) (Stats, error) {
	st, err := w.fs.Stats(ctx)
	if err != nil {
		return Stats{}, fmt.Errorf("stat workspace %q: %w", w.name, err)
	}
	return Stats{Name: w.name, File: w.path, OpenedAt: w.openedAt, Store: st}, nil
}

// Close closes the runtime (if any) and then the store; afterwards the
// workspace holds no goroutine, file descriptor or lock. It is safe to call more
// than once; later calls return the first call's result.
func (w *Workspace) Close() error {
	w.closeOnce.Do(func() {
		var errs []error
		if w.attached != nil {
			if err := w.attached.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close attached: %w", err))
			}
		}
		// Stops running executions (recorded as stopped) before the store goes.
		if err := w.rt.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close runtime: %w", err))
		}
		if err := w.fs.Close(); err != nil {
			errs = append(errs, err)
		}
		if err := errors.Join(errs...); err != nil {
			w.closeErr = fmt.Errorf("close workspace %q: %w", w.name, err)
		}
	})
	return w.closeErr
}
