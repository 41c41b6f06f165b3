package fusefs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

// Defaults for Options.
const (
	DefaultEntryTimeout    = time.Minute // kernel caching of names; invalidated from the journal
	DefaultAttrTimeout     = time.Minute // kernel caching of attributes; invalidated from the journal
	DefaultNegativeTimeout = time.Minute // kernel caching of missing names; invalidated from the journal
	DefaultMaxWrite        = 1 << 20     // bytes per READ/WRITE request (the kernel's limit is 1 MiB)
	DefaultReadAhead       = 1 << 20     // bytes of kernel readahead
	DefaultMaxBackground   = 64          // asynchronous requests (readahead, writeback) in flight
	DefaultDirPage         = 1024        // directory entries read from the store at a time
	DefaultSyncTimeout     = 5 * time.Second
	DefaultUnmountTimeout  = 10 * time.Second
	DefaultCommitDelay     = 2 * time.Millisecond // metadata changes share commits (see Options.CommitDelay)
)

// Store is the part of *vfs.FS the server uses: inode-addressed operations and
// the change journal.
type Store interface {
	Seq() uint64
	Subscribe(ctx context.Context, since uint64) (<-chan vfs.Change, func() error)
	Statfs(ctx context.Context) (vfs.StatFS, error)
	StatIno(ctx context.Context, ino uint64) (vfs.Attr, error)
	LookupAt(ctx context.Context, dir uint64, name string) (vfs.Attr, error)
	ReadDirIno(ctx context.Context, ino uint64, after string, limit int) ([]vfs.DirEntry, error)
	OpenIno(ctx context.Context, n vfs.Node, flag int) (*vfs.File, error)
	CreateAt(ctx context.Context, dir vfs.Node, name string, flag int, perm fs.FileMode) (*vfs.File, error)
	MkdirAt(ctx context.Context, dir vfs.Node, name string, perm fs.FileMode) (vfs.Attr, error)
	SymlinkAt(ctx context.Context, target string, dir vfs.Node, name string) (vfs.Attr, error)
	MknodAt(ctx context.Context, dir vfs.Node, name string, mode uint32, dev uint64) (vfs.Attr, error)
	LinkAt(ctx context.Context, n vfs.Node, dir vfs.Node, name string) (vfs.Attr, error)
	RemoveAt(ctx context.Context, dir vfs.Node, name string, isDir bool) error
	RenameAt(ctx context.Context, olddir vfs.Node, oldname string, newdir vfs.Node, newname string, flags vfs.RenameFlags) error
	SetattrIno(ctx context.Context, n vfs.Node, a vfs.SetAttr) (vfs.Attr, error)
	ReadlinkIno(ctx context.Context, ino uint64) (string, error)
	Commit(ctx context.Context) error
	GetxattrIno(ctx context.Context, ino uint64, attr string) ([]byte, error)
	ListxattrIno(ctx context.Context, ino uint64) ([]string, error)
	SetxattrIno(ctx context.Context, n vfs.Node, attr string, value []byte, flags int) error
	RemovexattrIno(ctx context.Context, n vfs.Node, attr string) error
}

var _ Store = (*vfs.FS)(nil)

// Options configure a mount. The zero value gives the documented defaults.
type Options struct {
	// EntryTimeout, AttrTimeout and NegativeTimeout are how long the kernel may
	// cache a name, an inode's attributes and a missing name. Changes made by
	// others are pushed to the kernel from the journal, so they can be long.
	// Zero means the default; a negative value disables that cache.
	EntryTimeout    time.Duration
	AttrTimeout     time.Duration
	NegativeTimeout time.Duration
	// MaxWrite bounds the bytes of one READ or WRITE request. Default
	// DefaultMaxWrite.
	MaxWrite int
	// ReadAhead is the kernel's readahead window for the mount, in bytes
	// (rounded down to KiB; set through /sys/class/bdi after mounting: the
	// FUSE default of 128 KiB makes sequential reads of large files about a
	// third slower). Default DefaultReadAhead; negative leaves the kernel's.
	ReadAhead int
	// MaxBackground bounds the asynchronous requests in flight. Default
	// DefaultMaxBackground.
	MaxBackground int
	// DirPage is how many directory entries a readdir reads from the store at a
	// time. Default DefaultDirPage.
	DirPage int
	// SyncTimeout bounds how long an open waits for the invalidations of changes
	// committed before it (see the package documentation). Default
	// DefaultSyncTimeout.
	SyncTimeout time.Duration
	// UnmountTimeout bounds how long Unmount waits for the server to stop.
	// Default DefaultUnmountTimeout.
	UnmountTimeout time.Duration
	// CommitDelay is how long a change of metadata made through the mount
	// (create, mkdir, symlink, link, unlink, rmdir, rename, setattr, xattrs)
	// may wait before it is committed, so that a stream of them shares
	// commits (the server works on the handle vfs.FS.WithCommitDelay
	// returns): each is answered once applied, visible
	// to every user of the store, and is durable at most CommitDelay later,
	// or sooner (see the package documentation, Durability). Written data
	// is durable at close and fsync regardless. Default DefaultCommitDelay;
	// negative commits every change before answering.
	CommitDelay time.Duration
	// Actor labels the mount's changes in the journal (vfs.WithActor); the
	// mount ignores its own changes when it invalidates kernel caches, so it
	// must differ between mounts of one store and from every other writer's.
	// Default "fuse:" followed by the mount point.
	Actor string
	// ActorOf, if set, names the actor of a change a process makes through
	// the mount, given the pid the FUSE request carries (the calling
	// thread's id, in the server's pid namespace; /proc/ID works for it);
	// "" means Actor. A sandbox backend maps
	// the pid to the execution the process belongs to, so that the
	// execution's change set holds what it wrote. It is asked for the
	// requests that change the store (create, mknod, mkdir, symlink, link,
	// unlink, rmdir, rename, setattr, setxattr, removexattr) and for opens
	// for writing (the writes through the handle carry the opener's actor),
	// never for reads. Every actor it returns is the mount's own: the journal
	// follower skips their changes, which the kernel already knows. It must
	// be fast and safe for concurrent use.
	ActorOf func(pid uint32) string
	// AccessOf, if set, gives the path rules of the calling process (the
	// pid as for ActorOf; nil: none), checked on every lookup, getattr,
	// open, readlink, xattr read, opendir (as reads) and every change (as
	// writes) the server is asked for: a denied path is EACCES (package
	// policy through vfs.Access; never ENOENT, which the kernel would keep
	// for every process of the mount). What the kernel answers from its
	// caches (an entry or attributes another process looked up, a cached
	// directory listing) is not asked: names and attributes can show, never
	// content, which every open asks for. It must be fast and safe for
	// concurrent use.
	AccessOf func(pid uint32) vfs.Access
	// AllowOther lets users other than the mounting one use the mount (a
	// sandbox running as another user needs it). Permissions are checked by the
	// kernel from the modes and owners either way (default_permissions).
	AllowOther bool
	// Parent, if set, is an open directory (O_PATH is enough) holding the
	// mount point: the mount is made on its entry named filepath.Base(dir),
	// reached without following a symbolic link, and every later use of the
	// mount point (its device, the unmount) goes through descriptors, never
	// through dir's path again. So a path a less privileged user can change
	// (a directory of theirs, where they could swap a name for a symbolic
	// link to /etc between a check and the mount) cannot redirect the mount
	// or its unmount. dir is then the path shown (Dir, logs, the default
	// Actor). Mount keeps a duplicate of the descriptor; the caller may
	// close Parent when Mount has returned.
	Parent *os.File
	// ReadOnly mounts the filesystem read-only (MS_RDONLY): the kernel
	// refuses every change through the mount with EROFS, while changes made
	// to the store elsewhere still show through it.
	ReadOnly bool
	// IDMap shifts owners between the store and the kernel, for a sandbox
	// whose user namespace maps its ids to a range of host ids (root inside
	// is IDMap.Host outside). Zero: ids pass unchanged.
	IDMap IDMap
	// Name is the filesystem's source name, shown by mount(8) and df. Default "desk".
	Name string
	// Tracer, if set, counts every request the mount serves, per opcode,
	// with latencies (see Tracer); read it with Tracer.Stats at any time.
	Tracer *Tracer
	// TraceOut, if set with Tracer, receives the tracer's table
	// (TraceStats.Format) when the mount is unmounted.
	TraceOut io.Writer
	// Debug logs every FUSE request and reply.
	Debug bool
	// Logger receives errors that cannot be returned (unknown errors mapped to
	// EIO, failed invalidations). Default log.Default().
	Logger *log.Logger
}

func (o Options) withDefaults(dir string) Options {
	if o.EntryTimeout == 0 {
		o.EntryTimeout = DefaultEntryTimeout
	}
	if o.AttrTimeout == 0 {
		o.AttrTimeout = DefaultAttrTimeout
	}
	if o.NegativeTimeout == 0 {
		o.NegativeTimeout = DefaultNegativeTimeout
	}
	o.EntryTimeout, o.AttrTimeout, o.NegativeTimeout = max(o.EntryTimeout, 0), max(o.AttrTimeout, 0), max(o.NegativeTimeout, 0)
	if o.MaxWrite <= 0 {
		o.MaxWrite = DefaultMaxWrite
	}
	if o.ReadAhead == 0 {
		o.ReadAhead = DefaultReadAhead
	}
	if o.MaxBackground <= 0 {
		o.MaxBackground = DefaultMaxBackground
	}
	if o.DirPage <= 0 {
		o.DirPage = DefaultDirPage
	}
	if o.SyncTimeout <= 0 {
		o.SyncTimeout = DefaultSyncTimeout
	}
	if o.UnmountTimeout <= 0 {
		o.UnmountTimeout = DefaultUnmountTimeout
	}
	if o.CommitDelay == 0 {
		o.CommitDelay = DefaultCommitDelay
	}
	if o.Actor == "" {
		o.Actor = "fuse:" + dir
	}
	if o.Name == "" {
		o.Name = "desk"
	}
	if o.Logger == nil {
		o.Logger = log.Default()
	}
	return o
}

// overflowID is the id of owners a mapping cannot represent (nobody, as the
// kernel shows ids a user namespace does not map).
const overflowID = 65534

// IDMap maps uids and gids: store id n (0 ≤ n < Count) is host id Host+n, as
// a user namespace mapping ids 0..Count-1 to Host..Host+Count-1 does. The
// kernel sees, checks permissions with, and sends (callers of requests, chown)
// host ids; the store keeps the sandbox's own ids, which the other backends
// see. A store id of Count or more is served as Host+65534 (nobody inside); a
// host id outside the range (a process outside the sandbox, chown to a host
// user) is stored as 65534. Ids inside xattr values (POSIX ACLs) are not
// mapped. Count is 0 (no mapping) or more than 65534.
//
// UID and GID, when not 0, make that sandbox id the workspace's owner: store
// uid 0 (the owner of what the other backends write) is served as sandbox
// uid UID, and store uid UID as sandbox uid 0 in exchange (the same for
// GID), so a sandbox whose programs run as a non-root user (an image's User)
// owns the workspace's files while the store keeps them as uid 0's.
type IDMap struct {
	Host  uint32
	Count uint32
	UID   uint32
	GID   uint32
}

// swap exchanges 0 and owner.
func swap(id, owner uint32) uint32 {
	switch id {
	case 0:
		return owner
	case owner:
		return 0
	}
	return id
}

// toKernel maps a store id (a uid with owner m.UID, a gid with m.GID) to the
// id the kernel sees.
func (m IDMap) toKernel(id, owner uint32) uint32 {
	if m.Count == 0 {
		return id
	}
	if id >= m.Count {
		id = overflowID
	}
	return m.Host + swap(id, owner)
}

// toStore maps an id the kernel sends to the id the store keeps.
func (m IDMap) toStore(id, owner uint32) uint32 {
	if m.Count == 0 {
		return id
	}
	if id < m.Host || id-m.Host >= m.Count {
		return overflowID
	}
	return swap(id-m.Host, owner)
}

// Server is a mounted workspace. It serves until Unmount.
type Server struct {
	// rereads counts seeks that read a directory again from its start to
	// reach an offset (tests check that listings read in parts do not).
	rereads atomic.Int64

	store   Store
	dir     string
	mp      mountPoint
	opts    Options
	ctx     context.Context // the mount's actor; never canceled
	fuse    *fuse.Server
	raw     *rawFS     // go-fuse's node bridge, reading directories without handles
	cursors dirCursors // where listings read in parts stopped
	dev     uint64     // device number of the mount (its minor is the FUSE connection)
	root    *node
	nt      *notifier
	stop    context.CancelFunc // stops the notifier

	hmu     sync.Mutex
	handles map[*handle]struct{} // open file handles, closed at Unmount

	amu    sync.Mutex
	actors map[string]time.Time // actors ActorOf named, with their last use

	unmountOnce sync.Once
	unmountErr  error
}

// Mount mounts fsys on the directory dir (which must exist) and serves it
// until Unmount. It mounts directly with mount(2), so it needs root (or
// CAP_SYS_ADMIN); there is no fusermount fallback. ctx bounds the mount itself.
func Mount(ctx context.Context, fsys *vfs.FS, dir string, opts Options) (*Server, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", dir, err)
	}
	if m := opts.IDMap; m.Count != 0 && (m.Count <= overflowID || uint64(m.Host)+uint64(m.Count) > 1<<32-1) {
		return nil, fmt.Errorf("mount %s: id map %d+%d: the count must be 65535 or more and the range below 2^32-1", abs, m.Host, m.Count)
	}
	if m := opts.IDMap; (m.UID != 0 || m.GID != 0) && (m.Count == 0 || m.UID >= m.Count || m.GID >= m.Count) {
		return nil, fmt.Errorf("mount %s: id map owner %d:%d outside the mapped ids (0..%d)", abs, m.UID, m.GID, m.Count)
	}
	opts = opts.withDefaults(abs)
	store := fsys.WithCommitDelay(opts.CommitDelay)
	s := &Server{
		store:   store,
		dir:     abs,
		opts:    opts,
		ctx:     vfs.WithActor(context.Background(), opts.Actor),
		handles: make(map[*handle]struct{}),
	}
	rootAttr, err := store.StatIno(ctx, vfs.RootIno)
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", abs, err)
	}
	s.root = &node{srv: s}
	s.nt = newNotifier(s)
	since := store.Seq()
	mo := fuse.MountOptions{
		AllowOther:    opts.AllowOther,
		Options:       []string{"default_permissions"},
		MaxBackground: opts.MaxBackground,
		MaxWrite:      opts.MaxWrite,
		MaxReadAhead:  max(opts.ReadAhead, 0),
		FsName:        opts.Name,
		Name:          "desk",
		// Pages are dropped only on request (the journal follower's, or the
		// kernel's own truncation): with automatic invalidation the kernel
		// would drop a file's pages whenever it sees its mtime change, which
		// every write through the mount itself does.
		ExplicitDataCacheControl: true,
		// Read results are in memory: splicing them through a pipe only
		// adds a copy (and fails for 1 MiB replies on a 1 MiB pipe).
		DisableSplice: true,
		Debug:         opts.Debug,
		Logger:        opts.Logger,
	}
	fo := &gofs.Options{
		MountOptions:    mo,
		EntryTimeout:    &opts.EntryTimeout,
		AttrTimeout:     &opts.AttrTimeout,
		NegativeTimeout: &opts.NegativeTimeout,
		NullPermissions: true,
		ExternalNodeID:  true, // FUSE node ids are vfs inode numbers (never reused)
		RootStableAttr:  &gofs.StableAttr{Ino: vfs.RootIno, Gen: rootAttr.Gen, Mode: fuse.S_IFDIR},
		Logger:          opts.Logger,
	}
	s.raw = newRawFS(gofs.NewNodeFS(s.root, fo), s)
	if err := s.mp.open(abs, opts.Parent); err != nil {
		return nil, fmt.Errorf("mount %s: %w", abs, err)
	}
	fd, err := mountDevice(s.mp.target(), &fo.MountOptions, opts.ReadOnly)
	if err != nil {
		s.mp.close()
		return nil, fmt.Errorf("mount %s: %w", abs, err)
	}
	var served fuse.RawFileSystem = s.raw
	if opts.Tracer != nil {
		served = &traceFS{RawFileSystem: s.raw, t: opts.Tracer}
	}
	srv, err := fuse.NewServer(served, devicePath(fd), &fo.MountOptions)
	if err != nil {
		// go-fuse has closed fd; the mount has no server.
		unix.Unmount(s.mp.target(), unix.MNT_DETACH)
		s.mp.close()
		return nil, fmt.Errorf("mount %s: %w", abs, err)
	}
	s.fuse = srv
	nctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	go srv.Serve()
	go s.nt.run(nctx, since)
	if err := srv.WaitMount(); err != nil {
		s.Unmount()
		return nil, fmt.Errorf("mount %s: %w", abs, err)
	}
	s.mp.primePoll()
	var st unix.Stat_t
	// A device that is not FUSE's (major 0) means the path no longer leads
	// to the mount: the device stays unknown.
	if err := s.mp.stat(&st); err == nil && unix.Major(st.Dev) == 0 {
		s.dev = st.Dev
		if opts.ReadAhead >= 0 {
			bdi := fmt.Sprintf("/sys/class/bdi/%d:%d/read_ahead_kb", unix.Major(st.Dev), unix.Minor(st.Dev))
			if err := os.WriteFile(bdi, []byte(fmt.Sprint(opts.ReadAhead>>10)), 0); err != nil {
				s.logf("set readahead: %v", err)
			}
		}
	}
	return s, nil
}

// Dir is the mount point.
func (s *Server) Dir() string { return s.dir }

// Connection is the mount's FUSE connection number: the minor number of its
// device (st_dev), the major:minor field (0:N) of its line in
// /proc/self/mountinfo, and its directory in /sys/fs/fuse/connections (see
// AbortConnection). It is 0 when Mount could not stat the mount point after
// mounting (the path changed meanwhile; see Options.Parent).
func (s *Server) Connection() int { return int(unix.Minor(s.dev)) }

// Sync waits until the kernel caches of the mount reflect every change
// committed to the store before the call (the invalidations are pushed from the
// journal asynchronously, normally within microseconds). A caller that changed
// the store directly and then starts a process that reads the mount can call it
// to be sure; opens through the mount wait by themselves.
func (s *Server) Sync(ctx context.Context) error {
	if !s.nt.waitFor(ctx, s.store.Seq(), 0) {
		if err := ctx.Err(); err != nil {
			return err
		}
		return errors.New("sync mount: journal follower stopped")
	}
	return nil
}

// Wait blocks until the server stops serving (after Unmount, or when the mount
// is removed from outside).
func (s *Server) Wait() { s.fuse.Wait() }

// Unmount unmounts the filesystem, stops the server and closes the store
// handles the kernel still held. If the mount is busy (a process has a file open
// or its working directory in it) it is detached and the FUSE connection is
// aborted, so Unmount never waits on other processes: their later accesses fail
// with ENOTCONN. Calling Unmount again returns the first result.
func (s *Server) Unmount() error {
	s.unmountOnce.Do(func() { s.unmountErr = s.unmount() })
	return s.unmountErr
}

func (s *Server) unmount() error {
	var errs []error
	if s.fuse != nil {
		// go-fuse serves the descriptor mountDevice mounted and leaves the
		// unmount to us. A clean unmount ends the connection, and with it the
		// serve loops.
		target := s.mp.target()
		if err := unix.Unmount(target, 0); err != nil && s.dev != 0 {
			if s.mounted() {
				// Busy: detach.
				if derr := unix.Unmount(target, unix.MNT_DETACH); derr != nil && !errors.Is(derr, syscall.EINVAL) {
					errs = append(errs, fmt.Errorf("unmount %s: %w", s.dir, derr))
				}
			}
			// Detached here, or elsewhere while in use (umount -l): abort
			// the connection so the serve loops end. A connection that
			// ended with a clean unmount from outside is not there to abort.
			if aerr := AbortConnection(int(unix.Minor(s.dev))); aerr != nil {
				errs = append(errs, aerr)
			}
		}
		done := make(chan struct{})
		go func() { s.fuse.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(s.opts.UnmountTimeout):
			errs = append(errs, fmt.Errorf("unmount %s: server still busy after %v", s.dir, s.opts.UnmountTimeout))
		}
	}
	s.mp.close()
	if s.stop != nil {
		s.stop()
		<-s.nt.done
	}
	s.hmu.Lock()
	hs := make([]*handle, 0, len(s.handles))
	for h := range s.handles {
		hs = append(hs, h)
	}
	s.handles = map[*handle]struct{}{}
	s.hmu.Unlock()
	for _, h := range hs {
		h.f.Close() // flushes; a failure was reported to nobody, as a kernel's writeback error at unmount
	}
	// Metadata changes waiting for their commit (Options.CommitDelay).
	if err := s.store.Commit(context.Background()); err != nil && !errors.Is(err, vfs.ErrClosed) && vfs.Errno(err) != syscall.EBADF {
		errs = append(errs, fmt.Errorf("unmount %s: %w", s.dir, err))
	}
	if s.opts.Tracer != nil && s.opts.TraceOut != nil {
		fmt.Fprintf(s.opts.TraceOut, "FUSE requests served by %s:\n", s.dir)
		s.opts.Tracer.Stats().Format(s.opts.TraceOut, 1)
	}
	return errors.Join(errs...)
}

// mounted reports whether the mount point still shows this server's mount.
func (s *Server) mounted() bool {
	var st unix.Stat_t
	return s.mp.stat(&st) == nil && st.Dev == s.dev
}

// addHandle and dropHandle track open file handles for Unmount.
func (s *Server) addHandle(h *handle) {
	s.hmu.Lock()
	s.handles[h] = struct{}{}
	s.hmu.Unlock()
}

func (s *Server) dropHandle(h *handle) bool {
	s.hmu.Lock()
	_, ok := s.handles[h]
	delete(s.handles, h)
	s.hmu.Unlock()
	return ok
}

// ownerCtx is writeCtx with the caller of a FUSE request as the owner of
// what it creates.
func (s *Server) ownerCtx(ctx context.Context) context.Context {
	wctx := s.writeCtx(ctx)
	if c, ok := fuse.FromContext(ctx); ok {
		return vfs.WithOwner(wctx, s.opts.IDMap.toStore(c.Uid, s.opts.IDMap.UID), s.opts.IDMap.toStore(c.Gid, s.opts.IDMap.GID))
	}
	return wctx
}

// maxActors is how many actors named by Options.ActorOf the server remembers
// before it forgets those unused for actorKeep. Forgetting one only costs
// invalidations the kernel did not need, should a late change of its come.
const (
	maxActors = 4096
	actorKeep = time.Hour
)

// writeCtx is the context of a request that changes the store: the mount's,
// with the actor Options.ActorOf names for the caller, if any.
func (s *Server) writeCtx(ctx context.Context) context.Context {
	if s.opts.ActorOf == nil {
		return s.ctx
	}
	c, ok := fuse.FromContext(ctx)
	if !ok || c.Pid == 0 {
		return s.ctx
	}
	a := s.opts.ActorOf(c.Pid)
	if a == "" || a == s.opts.Actor {
		return s.ctx
	}
	now := time.Now()
	s.amu.Lock()
	if s.actors == nil {
		s.actors = make(map[string]time.Time)
	}
	if _, known := s.actors[a]; !known && len(s.actors) >= maxActors {
		for k, t := range s.actors {
			if now.Sub(t) > actorKeep {
				delete(s.actors, k)
			}
		}
	}
	s.actors[a] = now
	s.amu.Unlock()
	return vfs.WithActor(s.ctx, a)
}

// own reports whether a change journaled by actor was made through this
// mount (the kernel knows it already).
func (s *Server) own(actor string) bool {
	if actor == s.opts.Actor {
		return true
	}
	if s.opts.ActorOf == nil {
		return false
	}
	s.amu.Lock()
	_, ok := s.actors[actor]
	s.amu.Unlock()
	return ok
}

// logf logs a message the kernel cannot be told about.
func (s *Server) logf(format string, args ...any) {
	s.opts.Logger.Printf("fusefs %s: "+format, append([]any{s.dir}, args...)...)
}
