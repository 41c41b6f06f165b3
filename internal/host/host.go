package host

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/tools"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/workspace"
)

// Defaults for Options.
const (
	// DefaultDataDir is the data directory when Options.DataDir is empty,
	// relative to the working directory.
	DefaultDataDir = "desk-data"
	// DefaultIdleTimeout is how long a workspace stays open without leases
	// before it is hibernated (closed).
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultMaxOpen bounds the workspaces open at once (see Options.MaxOpen).
	DefaultMaxOpen = 64
	// DefaultListLimit is List's page size when limit is 0 or less.
	DefaultListLimit = 100
	// MaxListLimit is the largest page List returns.
	MaxListLimit = 1000
)

// LockFile is the name of the file in the data directory that the serving
// process holds an exclusive flock on (it contains that process's id).
const LockFile = "host.lock"

// Sentinels. The name and existence errors are workspace's own, so errors.Is
// works with either package's name.
var (
	// ErrBadName: the name breaks workspace.NameRule.
	ErrBadName = workspace.ErrBadName
	// ErrNotFound: no workspace of that name.
	ErrNotFound = workspace.ErrNotFound
	// ErrExists: Create of a name that exists.
	ErrExists = workspace.ErrExists
	// ErrInUse: Delete of a workspace that has leases (or is open in another
	// process).
	ErrInUse = workspace.ErrInUse
	// ErrTooManyOpen: a workspace must be opened, Options.MaxOpen are open and
	// every one of them is in use, so none can be evicted.
	ErrTooManyOpen = errors.New("too many workspaces open")
	// ErrClosed: the host is closed.
	ErrClosed = errors.New("host is closed")
	// ErrLocked: another process serves the data directory.
	ErrLocked = errors.New("data directory is in use by another process")
)

// Clock schedules the idle timers. Tests substitute a fake to make hibernation
// deterministic.
type Clock interface {
	// AfterFunc calls f in its own goroutine once d has passed, unless the
	// returned Timer is stopped first (time.AfterFunc semantics).
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a scheduled call of Clock.AfterFunc; *time.Timer is one.
type Timer interface {
	// Stop cancels the call; it reports false if the call already ran or began.
	Stop() bool
}

type realClock struct{}

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Options configure a Host. The zero value gives the documented defaults.
type Options struct {
	// DataDir is the data directory; workspaces live in DataDir/workspaces (see
	// workspace.File). It is created (mode 0700) if missing. Default
	// DefaultDataDir.
	DataDir string
	// IdleTimeout is how long a workspace with no leases stays open before it is
	// hibernated. 0 means DefaultIdleTimeout; a negative value disables the timer
	// (idle workspaces are then closed only to make room, by HibernateIdle, or by
	// Close).
	IdleTimeout time.Duration
	// MaxOpen bounds the workspaces open at once (open, being opened, or being
	// created). Past it, the least recently used idle workspace is closed; if
	// none is idle, the call fails with ErrTooManyOpen. Default DefaultMaxOpen.
	MaxOpen int
	// Workspace are the options every workspace is opened with: the store's
	// options and the Attach seam for the runtime.
	Workspace workspace.Options
	// Clock schedules idle timers. Default: the real clock (time.AfterFunc).
	Clock Clock
	// Logger receives errors that have no caller to return to (a failed close
	// during hibernation), and each workspace's store logs through it with a
	// "workspace" attribute (running out of space, having space again).
	// Default slog.Default().
	Logger *slog.Logger
	// MaxDataBytes bounds the disk space the data directory's files take
	// together (st_blocks; the reserve file not counted), across every
	// workspace: a write that would pass it fails with ENOSPC, as each
	// workspace's quota does for the workspace. 0 (the default) means no
	// bound but the disk's. See vfs.Space.
	MaxDataBytes int64
	// SharedSpace keeps MaxDataBytes's count in a file that the data
	// directory's other processes (desk serve's workspace workers) map and
	// count against too (vfs.SpaceOptions.Shared): this host measures the
	// directory and writes the count.
	SharedSpace bool
	// ReserveBytes is the size of the reserve file kept in the data
	// directory so that deletes and truncates work on a full disk (see
	// vfs.Space). 0 means vfs.DefaultReserve (64 MiB, at most a sixteenth of
	// the disk); negative, none.
	ReserveBytes int64
	// NoLock makes Open skip the flock on LockFile: the caller guarantees
	// no other host serves the data directory (a workspace worker of desk
	// serve, whose parent holds the lock). Each store's own flock still
	// keeps a second opener of one workspace out.
	NoLock bool
	// OnHibernate, if set, is called (on a goroutine of the host's, without
	// locks held) after the idle timer has closed a workspace. A worker
	// uses it to offer to exit.
	OnHibernate func(name string)
	// StoreLimits, if set, gives a workspace's own quota values as its
	// store opens (or is written by Create): its QuotaBytes and MaxInodes,
	// 0 for Workspace.VFS's. desk serve reads them from package policy's
	// Store (a workspace's limits); a change to an open store is the
	// caller's (vfs.FS.SetLimits). An error fails the open.
	StoreLimits func(name string) (quotaBytes, maxInodes int64, err error)
}

// CreateOptions are per-workspace choices fixed at creation. Zero fields take
// Options.Workspace.VFS's values (and through them the vfs defaults) when the
// workspace is first opened; a non-zero field makes Create write the store at
// once, to fix it.
type CreateOptions struct {
	// ChunkSize is the store's content chunk size, fixed for the workspace's life.
	ChunkSize int
	// PageSize is the store's SQLite page size, fixed for the workspace's life.
	PageSize int
}

// Info describes a workspace without opening it.
type Info struct {
	Name     string    // the workspace name
	Bytes    int64     // size on disk: the database file and its WAL
	Modified time.Time // newest modification time of those files
	Open     bool      // open in this host now
	Leases   int       // leases held now
}

// Stats are the host's counters. The counts since Open are cumulative.
type Stats struct {
	DataDir     string        // absolute data directory
	MaxOpen     int           // the bound on open workspaces
	IdleTimeout time.Duration // negative: no idle timer
	Open        int           // slots in use: stores open, or being opened, initialised or closed
	InUse       int           // open workspaces with at least one lease
	Leases      int           // leases held
	Waiting     int           // callers of Acquire waiting for a workspace being opened (its opener included)
	Opened      uint64        // workspaces opened since Open
	Hibernated  uint64        // closed by the idle timer or HibernateIdle
	Evicted     uint64        // closed to make room under MaxOpen
	Created     uint64        // workspaces created
	Deleted     uint64        // workspaces deleted
	CloseErrors uint64        // closes that failed (see Options.Logger)
	// The bound on the data directory (Options.MaxDataBytes; 0: none) and the
	// bytes below it as measured last (0 without a bound).
	MaxDataBytes int64
	DataBytes    int64
	// The reserve file's size and whether it holds its blocks now (false
	// after a full disk, until space comes back).
	ReserveBytes int64
	ReserveHeld  bool
}

// state is an entry's place in its lifecycle (see doc.go).
type state int

const (
	stOpening state = iota // being opened; ready closes when done
	stOpen                 // open; idle when refs == 0
	stBusy                 // being closed, created or deleted; done closes when finished
	stGone                 // failed to open or finished; no longer in the table
)

// entry is a workspace the host is doing something with. Entries exist only
// for workspaces that are open or being opened, closed, created or deleted: a
// hibernated workspace has none.
type entry struct {
	name  string
	state state
	ws    *workspace.Workspace // when stOpen
	tools *tools.State         // when stOpen: the agent tools' state of ws's store
	refs  int                  // leases, including callers waiting for the open
	ready chan struct{}        // stOpening: closed when the open has finished
	err   error                // the open's error; read only after ready is closed
	done  chan struct{}        // stBusy: closed when the entry has left the table
	slot  bool                 // counts towards Host.nOpen

	elem    *list.Element // position in Host.idle while open and idle
	timer   Timer         // idle timer while idle
	idleGen uint64        // bumped whenever the entry stops being idle
}

// running reports whether e's workspace has executions running: such a
// workspace is kept open when its leases are gone (a detached execution,
// a service, outlives the call that started it), neither hibernated by its
// idle timer nor evicted to make room, nor closed by HibernateIdle.
func (e *entry) running() bool {
	return e.ws != nil && e.ws.Runtime() != nil && e.ws.Runtime().Running() > 0
}

// Host serves the workspaces of one data directory. See the package
// documentation for the lifecycle, lock order and invariants.
type Host struct {
	opts    Options
	dataDir string   // absolute
	lock    *os.File // flock on dataDir/LockFile

	space *vfs.Space // the data directory's disk space, shared by every store

	mu      sync.Mutex
	closed  bool
	entries map[string]*entry
	idle    *list.List // *entry, least recently released first
	nOpen   int        // entries holding a slot
	stats   Stats      // counters only

	ops sync.WaitGroup // operations running outside mu; Close waits for them
}

// Open starts a host on opts.DataDir, creating the data directory and its
// workspaces directory if needed (mode 0700; existing ones lose every group
// and other permission bit), and locking it against other processes
// (ErrLocked). It opens no workspace.
func Open(ctx context.Context, opts Options) (*Host, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open host: %w", err)
	}
	if opts.DataDir == "" {
		opts.DataDir = DefaultDataDir
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	switch {
	case opts.MaxOpen == 0:
		opts.MaxOpen = DefaultMaxOpen
	case opts.MaxOpen < 0:
		return nil, fmt.Errorf("open host: MaxOpen %d: must be positive (0 for the default %d)", opts.MaxOpen, DefaultMaxOpen)
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	dir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("open host: %w", err)
	}
	if err := os.MkdirAll(workspace.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("open host: %w", err)
	}
	if opts.MaxDataBytes < 0 {
		return nil, fmt.Errorf("open host: MaxDataBytes %d: must not be negative (0: no bound)", opts.MaxDataBytes)
	}
	// Private, whatever made them: the workspaces and tokens are no other
	// host user's business.
	for _, d := range []string{dir, workspace.Dir(dir)} {
		fi, err := os.Lstat(d)
		if err != nil {
			return nil, fmt.Errorf("open host: %w", err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(d, perm&^0o077); err != nil {
				return nil, fmt.Errorf("open host: %w", err)
			}
			opts.Logger.Warn("host: made the data directory private", "dir", d, "was", fmt.Sprintf("%04o", perm), "now", fmt.Sprintf("%04o", perm&^0o077))
		}
	}
	var lf *os.File
	if !opts.NoLock {
		if lf, err = lockDataDir(dir); err != nil {
			return nil, err
		}
	}
	space := opts.Workspace.VFS.Space
	if space == nil {
		space, err = vfs.OpenSpace(ctx, vfs.SpaceOptions{Dir: dir, Reserve: opts.ReserveBytes, Limit: opts.MaxDataBytes, Shared: opts.SharedSpace, Logger: opts.Logger})
		if err != nil {
			if lf != nil {
				lf.Close()
			}
			return nil, fmt.Errorf("open host: %w", err)
		}
		opts.Workspace.VFS.Space = space
	}
	h := &Host{
		opts:    opts,
		dataDir: dir,
		lock:    lf,
		space:   space,
		entries: make(map[string]*entry),
		idle:    list.New(),
	}
	h.opts.DataDir = dir
	h.stats.DataDir = dir
	h.stats.MaxOpen = opts.MaxOpen
	h.stats.IdleTimeout = opts.IdleTimeout
	return h, nil
}

// lockDataDir takes the flock on dir's LockFile and writes the pid in it.
func lockDataDir(dir string) (*os.File, error) {
	lf, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open host: %w", err)
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lf.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("open host %s: %w", dir, ErrLocked)
		}
		return nil, fmt.Errorf("open host %s: lock: %w", dir, err)
	}
	// The pid is for people wondering who holds the lock; errors do not matter.
	if lf.Truncate(0) == nil {
		lf.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return lf, nil
}

// DataDir is the host's absolute data directory.
func (h *Host) DataDir() string { return h.dataDir }

// Backends returns the ids of the execution backends every workspace's
// runtime routes to (Options.Workspace.Backends), sorted.
func (h *Host) Backends() []string {
	return slices.Sorted(maps.Keys(h.opts.Workspace.Backends))
}

// Lease is the right to use an open workspace. While any lease on it is held,
// the host never closes the workspace (except in Host.Close). Release it when
// done; a lease that is never released keeps its workspace open for good.
type Lease struct {
	h        *Host
	e        *entry
	released atomic.Bool
}

// Workspace is the leased workspace. Do not use it after Release. Host.Close
// closes it even while leased; its store then fails with fs.ErrClosed.
func (l *Lease) Workspace() *workspace.Workspace { return l.e.ws }

// Tools is the agent tools' shared state of the leased workspace (its
// per-path locks and remembered read offsets), one per open workspace: make
// tool sets with tools.New(l.Tools(), ...). Do not use it after Release.
func (l *Lease) Tools() *tools.State { return l.e.tools }

// Name is the leased workspace's name.
func (l *Lease) Name() string { return l.e.name }

// Release gives the lease back. The workspace becomes idle when its last lease
// is released. Calling Release again does nothing.
func (l *Lease) Release() {
	if l.released.Swap(true) {
		return
	}
	l.h.release(l.e)
}

// Acquire returns a lease on the workspace name, opening it if it is not open
// (once, however many callers ask at the same time). It fails with ErrBadName,
// ErrNotFound, ErrTooManyOpen, ErrClosed, vfs.ErrLocked (another process has
// the store open), or ctx's error while waiting.
func (h *Host) Acquire(ctx context.Context, name string) (*Lease, error) {
	if err := workspace.ValidateName(name); err != nil {
		return nil, fmt.Errorf("acquire workspace: %w", err)
	}
	exists := false
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("acquire workspace %q: %w", name, err)
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return nil, fmt.Errorf("acquire workspace %q: %w", name, ErrClosed)
		}
		e := h.entries[name]
		if e == nil && !exists {
			// Make sure it exists before taking a slot (and perhaps evicting
			// another workspace for it).
			h.mu.Unlock()
			if _, err := h.Info(ctx, name); err != nil {
				return nil, fmt.Errorf("acquire workspace: %w", err)
			}
			exists = true
			continue
		}
		if e == nil {
			victim, wait, err := h.reserveLocked()
			if err != nil {
				h.mu.Unlock()
				return nil, fmt.Errorf("acquire workspace %q: %w", name, err)
			}
			if wait != nil {
				h.mu.Unlock()
				select {
				case <-wait:
				case <-ctx.Done():
					return nil, fmt.Errorf("acquire workspace %q: %w", name, ctx.Err())
				}
				continue
			}
			e = &entry{name: name, state: stOpening, refs: 1, ready: make(chan struct{}), slot: true}
			h.entries[name] = e
			h.ops.Add(1)
			h.mu.Unlock()
			if victim != nil {
				h.closeEntry(victim)
			}
			return h.open(ctx, e)
		}
		switch e.state {
		case stOpen:
			e.refs++
			h.unidleLocked(e)
			h.mu.Unlock()
			return &Lease{h: h, e: e}, nil
		case stOpening:
			e.refs++
			h.mu.Unlock()
			select {
			case <-e.ready:
			case <-ctx.Done():
				h.release(e)
				return nil, fmt.Errorf("acquire workspace %q: %w", name, ctx.Err())
			}
			if e.err != nil {
				return nil, e.err
			}
			return &Lease{h: h, e: e}, nil
		default: // stBusy: wait for it to finish, then look again
			done := e.done
			h.mu.Unlock()
			select {
			case <-done:
			case <-ctx.Done():
				return nil, fmt.Errorf("acquire workspace %q: %w", name, ctx.Err())
			}
		}
	}
}

// Do runs fn with the workspace name leased, and releases the lease after.
func (h *Host) Do(ctx context.Context, name string, fn func(*workspace.Workspace) error) error {
	l, err := h.Acquire(ctx, name)
	if err != nil {
		return err
	}
	defer l.Release()
	return fn(l.Workspace())
}

// open opens e's workspace for the caller that created e (which holds one of
// e.refs). The open is not cancelled by that caller's ctx: others may be
// waiting for it.
func (h *Host) open(ctx context.Context, e *entry) (*Lease, error) {
	defer h.ops.Done()
	wopts, err := h.workspaceOptions(e.name, h.opts.Workspace)
	var ws *workspace.Workspace
	if err == nil {
		ws, err = workspace.Open(context.WithoutCancel(ctx), h.dataDir, e.name, wopts)
	}
	if err != nil {
		err = fmt.Errorf("acquire workspace: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err == nil && h.closed {
		// Close ran while this open was in progress and skipped the entry (it
		// was not open yet); closed never reverts, so closing here is final.
		h.mu.Unlock()
		ws.Close()
		h.mu.Lock()
		err = fmt.Errorf("acquire workspace %q: %w", e.name, ErrClosed)
	}
	if err != nil {
		e.err = err
		e.state = stGone
		e.slot = false
		h.nOpen--
		delete(h.entries, e.name)
		close(e.ready)
		return nil, err
	}
	e.ws = ws
	e.tools = tools.NewState(ws.FS())
	e.state = stOpen
	h.stats.Opened++
	close(e.ready)
	return &Lease{h: h, e: e}, nil
}

// release drops one reference to e.
func (h *Host) release(e *entry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.entries[e.name] != e || (e.state != stOpen && e.state != stOpening) {
		return // the host closed it, or its open failed
	}
	e.refs--
	if e.refs == 0 && e.state == stOpen && !h.closed {
		h.idleLocked(e)
	}
}

// idleLocked puts an open entry without leases on the idle list and starts
// its idle timer.
func (h *Host) idleLocked(e *entry) {
	e.elem = h.idle.PushBack(e)
	if h.opts.IdleTimeout > 0 {
		gen := e.idleGen
		e.timer = h.opts.Clock.AfterFunc(h.opts.IdleTimeout, func() { h.expire(e, gen) })
	}
}

// unidleLocked takes e off the idle list and stops its timer. A timer that
// already fired finds idleGen changed and does nothing.
func (h *Host) unidleLocked(e *entry) {
	e.idleGen++
	if e.elem != nil {
		h.idle.Remove(e.elem)
		e.elem = nil
	}
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
}

// expire hibernates e if it has stayed idle since the timer of generation gen
// was set.
func (h *Host) expire(e *entry, gen uint64) {
	h.mu.Lock()
	if h.closed || h.entries[e.name] != e || e.state != stOpen || e.refs != 0 || e.idleGen != gen {
		h.mu.Unlock()
		return
	}
	if e.running() {
		// A detached execution started by a call that has returned (a
		// service), or one whose caller let go: wait another period.
		e.timer = h.opts.Clock.AfterFunc(h.opts.IdleTimeout, func() { h.expire(e, gen) })
		h.mu.Unlock()
		return
	}
	h.busyLocked(e)
	h.stats.Hibernated++
	h.mu.Unlock()
	h.closeEntry(e)
	if h.opts.OnHibernate != nil {
		h.opts.OnHibernate(e.name)
	}
}

// busyLocked moves an open entry to stBusy. It keeps its slot until finish,
// so stores being closed count towards MaxOpen. The caller must then finish it
// (closeEntry or finish), outside mu.
func (h *Host) busyLocked(e *entry) {
	h.unidleLocked(e)
	e.state = stBusy
	e.done = make(chan struct{})
	h.ops.Add(1)
}

// reserveLocked takes a slot under MaxOpen for a workspace about to be opened
// or initialised. With no free slot it evicts the least recently used idle
// workspace, whose slot passes to the caller, who must close the victim
// (outside mu) before opening anything. If every slot is held by a workspace
// being closed, it returns a channel to wait on before trying again; if every
// slot is in use, ErrTooManyOpen.
func (h *Host) reserveLocked() (victim *entry, wait <-chan struct{}, err error) {
	if h.nOpen < h.opts.MaxOpen {
		h.nOpen++
		return nil, nil, nil
	}
	for el := h.idle.Front(); el != nil; el = el.Next() {
		victim = el.Value.(*entry)
		if victim.running() {
			continue
		}
		h.busyLocked(victim)
		victim.slot = false // now the caller's
		h.stats.Evicted++
		return victim, nil, nil
	}
	for _, e := range h.entries {
		if e.state == stBusy && e.slot {
			return nil, e.done, nil
		}
	}
	return nil, nil, fmt.Errorf("%w: %d open, all in use (MaxOpen %d)", ErrTooManyOpen, h.nOpen, h.opts.MaxOpen)
}

// closeEntry closes a busy entry's workspace and removes the entry.
func (h *Host) closeEntry(e *entry) {
	if err := e.ws.Close(); err != nil {
		h.mu.Lock()
		h.stats.CloseErrors++
		h.mu.Unlock()
		h.opts.Logger.Error("host: close workspace", "workspace", e.name, "err", err)
	}
	h.finish(e)
}

// finish removes a busy entry from the table, frees its slot and wakes its
// waiters.
func (h *Host) finish(e *entry) {
	h.mu.Lock()
	if h.entries[e.name] == e {
		delete(h.entries, e.name)
	}
	if e.slot {
		e.slot = false
		h.nOpen--
	}
	e.state = stGone
	close(e.done)
	h.mu.Unlock()
	h.ops.Done()
}

// Create creates the workspace name. It fails with ErrBadName, ErrExists or
// ErrClosed. The workspace is left closed and, with zero opts, uninitialised:
// Create costs an empty file and a directory sync (see workspace.Create), and
// the first Acquire writes the store's schema. Non-zero opts are fixed in the
// store at once, which opens it briefly (under MaxOpen, so ErrTooManyOpen is
// possible).
func (h *Host) Create(ctx context.Context, name string, opts CreateOptions) (Info, error) {
	if err := workspace.ValidateName(name); err != nil {
		return Info{}, fmt.Errorf("create workspace: %w", err)
	}
	initialise := opts != CreateOptions{}
	for {
		if err := ctx.Err(); err != nil {
			return Info{}, fmt.Errorf("create workspace %q: %w", name, err)
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return Info{}, fmt.Errorf("create workspace %q: %w", name, ErrClosed)
		}
		var wait <-chan struct{}
		var victim *entry
		e := h.entries[name]
		switch {
		case e != nil && e.state == stOpen:
			h.mu.Unlock()
			return Info{}, fmt.Errorf("create workspace %q: %w", name, ErrExists)
		case e != nil && e.state == stOpening:
			wait = e.ready
		case e != nil:
			wait = e.done
		case initialise:
			var err error
			if victim, wait, err = h.reserveLocked(); err != nil {
				h.mu.Unlock()
				return Info{}, fmt.Errorf("create workspace %q: %w", name, err)
			}
		}
		if wait != nil {
			h.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return Info{}, fmt.Errorf("create workspace %q: %w", name, ctx.Err())
			}
			continue
		}
		e = &entry{name: name, state: stBusy, done: make(chan struct{}), slot: initialise}
		h.entries[name] = e
		h.ops.Add(1)
		h.mu.Unlock()
		if victim != nil {
			h.closeEntry(victim)
		}
		err := workspace.Create(ctx, h.dataDir, name)
		if err == nil && initialise {
			err = h.initialise(ctx, name, opts)
		}
		h.mu.Lock()
		if err == nil {
			h.stats.Created++
		}
		h.mu.Unlock()
		h.finish(e)
		if err != nil {
			return Info{}, err
		}
		return h.Info(ctx, name)
	}
}

// initialise writes the new workspace name's store with opts fixed in it, and
// removes the workspace again if that fails.
func (h *Host) initialise(ctx context.Context, name string, opts CreateOptions) error {
	wopts, err := h.workspaceOptions(name, workspace.Options{VFS: h.opts.Workspace.VFS}) // no runtime: only the store
	if err != nil {
		h.remove(name)
		return fmt.Errorf("create workspace %q: %w", name, err)
	}
	if opts.ChunkSize != 0 {
		wopts.VFS.ChunkSize = opts.ChunkSize
	}
	if opts.PageSize != 0 {
		wopts.VFS.PageSize = opts.PageSize
	}
	ws, err := workspace.Open(ctx, h.dataDir, name, wopts)
	if err == nil {
		err = ws.Close()
	}
	if err != nil {
		h.remove(name)
		return fmt.Errorf("create workspace %q: %w", name, err)
	}
	return nil
}

// Delete deletes the workspace name: its database file and the SQLite side
// files beside it. It refuses, with ErrInUse, a workspace that has leases or is
// being opened, rather than waiting; an open idle workspace is closed first.
// It fails with ErrBadName, ErrNotFound or ErrClosed too.
func (h *Host) Delete(ctx context.Context, name string) error {
	if err := workspace.ValidateName(name); err != nil {
		return fmt.Errorf("delete workspace: %w", err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("delete workspace %q: %w", name, err)
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return fmt.Errorf("delete workspace %q: %w", name, ErrClosed)
		}
		e := h.entries[name]
		var ws *workspace.Workspace
		switch {
		case e == nil:
			e = &entry{name: name, state: stBusy, done: make(chan struct{})}
			h.entries[name] = e
			h.ops.Add(1)
		case e.state == stOpening:
			h.mu.Unlock()
			return fmt.Errorf("delete workspace %q: being opened: %w", name, ErrInUse)
		case e.state == stOpen && e.refs > 0:
			refs := e.refs
			h.mu.Unlock()
			return fmt.Errorf("delete workspace %q: %d leases held: %w", name, refs, ErrInUse)
		case e.state == stOpen:
			ws = e.ws
			h.busyLocked(e)
		default:
			done := e.done
			h.mu.Unlock()
			select {
			case <-done:
			case <-ctx.Done():
				return fmt.Errorf("delete workspace %q: %w", name, ctx.Err())
			}
			continue
		}
		h.mu.Unlock()
		var err error
		if ws != nil {
			err = ws.Close()
		}
		if err == nil {
			err = h.remove(name)
		}
		h.mu.Lock()
		if err == nil {
			h.stats.Deleted++
		}
		h.mu.Unlock()
		h.finish(e)
		return err
	}
}

// List returns up to limit workspaces whose names sort after after, in name
// order, without opening any. A page shorter than limit is the last; pass the
// last name of a page as after to get the next. limit <= 0 means
// DefaultListLimit; it is capped at MaxListLimit. Files in the workspaces
// directory that are not workspace databases are skipped.
func (h *Host) List(ctx context.Context, after string, limit int) ([]Info, error) {
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	d, err := os.Open(workspace.Dir(h.dataDir))
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	defer d.Close()
	var names []string
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("list workspaces: %w", err)
		}
		ents, err := d.ReadDir(512)
		for _, de := range ents {
			if !de.Type().IsRegular() {
				continue
			}
			if name, ok := workspace.NameOf(de.Name()); ok && name > after {
				names = append(names, name)
			}
		}
		if err != nil {
			break // io.EOF at the end; other errors: list what was read
		}
	}
	slices.Sort(names)
	if len(names) > limit {
		names = names[:limit]
	}
	infos := make([]Info, 0, len(names))
	for _, name := range names {
		info, err := h.Info(ctx, name)
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile
		} else if err != nil {
			return nil, fmt.Errorf("list workspaces: %w", err)
		}
		infos = append(infos, info)
	}
	return infos, nil
}

// Info describes the workspace name without opening it. It fails with
// ErrBadName or ErrNotFound.
func (h *Host) Info(ctx context.Context, name string) (Info, error) {
	path, err := workspace.File(h.dataDir, name)
	if err != nil {
		return Info{}, fmt.Errorf("stat workspace: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("stat workspace %q: %w", name, err)
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, fmt.Errorf("stat workspace %q: %w", name, ErrNotFound)
	} else if err != nil {
		return Info{}, fmt.Errorf("stat workspace %q: %w", name, err)
	}
	if !fi.Mode().IsRegular() {
		return Info{}, fmt.Errorf("stat workspace %q: %s is not a regular file", name, path)
	}
	info := Info{Name: name, Bytes: fi.Size(), Modified: fi.ModTime()}
	for _, suffix := range []string{"-wal", vfs.ChunkFileSuffix} {
		if wi, err := os.Lstat(path + suffix); err == nil {
			info.Bytes += wi.Size()
			if wi.ModTime().After(info.Modified) {
				info.Modified = wi.ModTime()
			}
		}
	}
	h.mu.Lock()
	if e := h.entries[name]; e != nil && e.state == stOpen {
		info.Open, info.Leases = true, e.refs
	}
	h.mu.Unlock()
	return info, nil
}

// Stats returns the host's counters.
func (h *Host) Stats() Stats {
	h.mu.Lock()
	s := h.stats
	s.Open = h.nOpen
	for _, e := range h.entries {
		switch {
		case e.state == stOpen && e.refs > 0:
			s.InUse++
			s.Leases += e.refs
		case e.state == stOpening:
			s.Waiting += e.refs
		}
	}
	h.mu.Unlock()
	s.MaxDataBytes, s.DataBytes = h.space.Limit(), h.space.Used()
	s.ReserveBytes, s.ReserveHeld = h.space.Reserve(), h.space.Held()
	return s
}

// HibernateIdle closes every open workspace that has no lease now, as the idle
// timer would, and returns how many it closed. It returns when they are closed.
func (h *Host) HibernateIdle() int {
	h.mu.Lock()
	var victims []*entry
	for el := h.idle.Front(); el != nil; {
		e := el.Value.(*entry)
		el = el.Next()
		if e.running() {
			continue
		}
		h.busyLocked(e)
		h.stats.Hibernated++
		victims = append(victims, e)
	}
	h.mu.Unlock()
	for _, e := range victims {
		h.closeEntry(e)
	}
	return len(victims)
}

// Close closes every open workspace, leased or not (leases become unusable:
// stop their users first), waits for opens, creates and deletes in progress,
// and releases the data directory. Later calls return nil; every other method
// then fails with ErrClosed.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	var open []*entry
	for _, e := range h.entries {
		if e.state == stOpen {
			h.busyLocked(e)
			open = append(open, e)
		}
	}
	h.mu.Unlock()
	var errs []error
	for _, e := range open {
		if err := e.ws.Close(); err != nil {
			errs = append(errs, err)
		}
		h.finish(e)
	}
	h.ops.Wait()
	if h.lock != nil {
		if err := h.lock.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close host: %w", err)
	}
	return nil
}

// workspaceOptions are opts for the workspace name: its store logs through
// the host's logger, naming the workspace.
func (h *Host) workspaceOptions(name string, opts workspace.Options) (workspace.Options, error) {
	if opts.VFS.Logger == nil {
		opts.VFS.Logger = h.opts.Logger.With("workspace", name)
	}
	if h.opts.StoreLimits != nil {
		b, n, err := h.opts.StoreLimits(name)
		if err != nil {
			return opts, fmt.Errorf("read limits of workspace %s: %w", name, err)
		}
		if b > 0 {
			opts.VFS.QuotaBytes = b
		}
		if n > 0 {
			opts.VFS.MaxInodes = n
		}
	}
	return opts, nil
}

// remove removes the files of the workspace name (closed) and takes them
// off the data directory's bound.
func (h *Host) remove(name string) error {
	var n int64
	if path, err := workspace.File(h.dataDir, name); err == nil {
		n = vfs.StoreBytes(path)
	}
	if err := workspace.Remove(h.dataDir, name); err != nil {
		return err
	}
	h.space.Removed(n)
	return nil
}

// Space is the data directory's disk space, shared by every workspace's
// store: its reserve and its bound (Options.MaxDataBytes).
func (h *Host) Space() *vfs.Space { return h.space }

// StoreQuota is the quota every workspace's store opens with unless
// Options.StoreLimits gives its own: Options.Workspace.VFS's QuotaBytes
// and MaxInodes, with vfs's defaults for zeros.
func (h *Host) StoreQuota() (quotaBytes, maxInodes int64) {
	o := h.opts.Workspace.VFS
	quotaBytes, maxInodes = o.QuotaBytes, o.MaxInodes
	if quotaBytes == 0 {
		quotaBytes = vfs.DefaultQuotaBytes
	}
	if maxInodes == 0 {
		maxInodes = vfs.DefaultMaxInodes
	}
	return quotaBytes, maxInodes
}
