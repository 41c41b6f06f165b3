package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// Defaults of Options. A zero field takes its default.
const (
	DefaultRuntime        = "runc"              // looked up in PATH
	DefaultRuntimeRoot    = "/run/desk/runc"    // runc --root: the runtime's state of our sandboxes
	DefaultStateDir       = "/run/desk/sandbox" // bundles: config.json and the root skeleton
	DefaultCgroupParent   = "desk-sandbox"      // relative: below desk's own cgroup of each controller
	DefaultHostID         = 1 << 20             // host uid and gid of root inside (1048576)
	DefaultIDCount        = 65536               // uids and gids mapped: 0..65535 inside
	DefaultMemory         = 1 << 30             // bytes, per sandbox (its processes, /tmp and $HOME)
	DefaultPids           = 512                 // processes and threads per sandbox
	DefaultCPUShares      = 1024                // relative CPU weight (cgroup v1 cpu.shares)
	DefaultCPUs           = 1.0                 // CPU time cap in cores (quota per period)
	DefaultTmpSize        = 256 << 20           // /tmp tmpfs
	DefaultHomeSize       = 128 << 20           // $HOME tmpfs (a Mount without Home)
	DefaultShmSize        = 64 << 20            // /dev/shm tmpfs
	DefaultMaxOpenFiles   = 4096                // RLIMIT_NOFILE
	DefaultTimeout        = time.Hour           // wall time per execution, enforced by the init
	DefaultKillGrace      = 2 * time.Second     // SIGTERM → SIGKILL
	DefaultDrainTimeout   = 500 * time.Millisecond
	DefaultIdleTimeout    = 5 * time.Minute // a sandbox with nothing running is stopped after this
	DefaultStartTimeout   = 10 * time.Second
	DefaultStopTimeout    = 5 * time.Second
	DefaultSyncTimeout    = 5 * time.Second // Mount.Sync before an execution
	DefaultMaxSandboxes   = 8               // live sandboxes per Backend (per host)
	DefaultOutputWindow   = 256 << 10       // output (and stdin) bytes in flight per execution
	DefaultDetachedBuffer = 1 << 20         // output kept per detached execution
	DefaultMaxDetached    = 16              // detached executions per sandbox
	DefaultProxyPort      = 3128            // 127.0.0.1:3128 in the sandbox: the egress proxy
	DefaultShell          = "/bin/bash"
	DefaultHome           = "/home/agent"
	DefaultLayerDir       = "/.sandbox/root" // a writable root's changes, in the store
	// InitCommand is the desk subcommand that runs the init.
	InitCommand = "sandbox-init"
)

// DefaultCapabilities returns the capability set of root inside a sandbox:
// containerd's (and Docker's) default set without CAP_MKNOD and CAP_NET_RAW
// (there are no devices to make and no network). runc's reference spec is
// narrower still (AUDIT_WRITE, KILL, NET_BIND_SERVICE), but without CHOWN,
// DAC_OVERRIDE and FOWNER root cannot unpack a tarball (tar restores owners)
// or manage files it does not own, which development tools do routinely.
// Inside the user namespace these capabilities reach only what the
// namespace owns. Each call returns a new slice.
func DefaultCapabilities() []string {
	return []string{
		"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_SETGID", "CAP_SETUID",
		"CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
	}
}

// Workspace is the workspace an execution runs in.
type Workspace struct {
	Name string  // the workspace name; also the sandbox's hostname
	FS   *vfs.FS // its store
	// UID and GID are the sandbox user the workspace's files belong to:
	// the image's User (Image.UID, GID; 0, root, without an image). A
	// Mount serves the files of store uid 0 as theirs (the default
	// Mount's fusefs.IDMap.UID, GID), so that user owns /workspace and the
	// home. Set by the backend before it calls Options.Mount.
	UID, GID uint32
	// Lower, when not empty, asks the Mount for a writable root: an
	// overlay over this read-only directory (the image's root) whose
	// changes it keeps (the default Mount's: in the store's
	// Options.LayerDir), returned as Mount.Root. Set by the backend for an
	// Image that is Writable.
	Lower string
}

// Mount is a host directory lent to a sandbox to bind at /workspace.
type Mount struct {
	// Dir is the host directory. Root in the sandbox is Options.HostID on
	// the host: the files must be usable by that uid (a FUSE mount serves
	// them as owned by it, with allow_other).
	Dir string
	// Home, if not empty, is the host directory bound read-write at
	// Options.Home (the default Mount's: the store's Options.HomeDir);
	// empty, the home is a private tmpfs of Options.HomeSize.
	Home string
	// Root, when Workspace.Lower was set, is the writable root directory
	// the sandbox runs on instead of the image's (the default Mount's: an
	// overlay mounted until Release).
	Root string
	// Done, if not nil, is closed when the directory stops working (the
	// FUSE server ended): the backend then stops the sandbox, and the next
	// execution starts a new one with a new Mount.
	Done <-chan struct{}
	// Release, if not nil, is called once the sandbox using the mount has
	// stopped (no process uses the directory any more).
	Release func()
	// Sync, if not nil, is called before each execution starts: it waits
	// until the directory shows every change committed to the store before
	// the call (a FUSE mount's kernel caches are invalidated
	// asynchronously). An error is logged, not fatal.
	Sync func(ctx context.Context) error
}

// MountFunc lends the host directory whose content is the workspace's
// /workspace. It is called when a sandbox starts, with a ctx bounded by
// Options.StartTimeout.
type MountFunc func(ctx context.Context, ws Workspace) (Mount, error)

// Bind is a host path bound read-only into every sandbox.
type Bind struct {
	Source string // absolute host path
	Target string // absolute path inside the sandbox
}

// Options configure a Backend. Zero fields take the documented defaults;
// negative limits are an error.
type Options struct {
	// Mount lends each sandbox its /workspace. Default: the workspace's
	// store mounted with fusefs under MountDir, WorkDir of it at /workspace
	// (see the package documentation).
	Mount MountFunc
	// MountDir holds the default Mount's FUSE mounts, one directory per
	// sandbox (default StateDir/mnt).
	MountDir string
	// WorkDir is the store directory the default Mount puts at /workspace,
	// made when missing (default run.DefaultCwd, "/workspace": the working
	// directory of every backend by default, so that /workspace/x is the
	// same file for all of them). The rest of the store is not visible in
	// the sandbox.
	WorkDir string
	// FUSE configures the default Mount (zero: fusefs's defaults). The
	// backend sets AllowOther, IDMap (HostID, IDCount) and ActorOf itself,
	// and Logger when nil (the backend's Logger, at level warn).
	FUSE fusefs.Options
	// Name names the workspace of a store (default: the database file's name
	// without its extension, which is the workspace name for stores of
	// internal/workspace).
	Name func(fs *vfs.FS) string

	// Runtime is the OCI runtime binary (default "runc", looked up in PATH);
	// crun takes the same arguments (but refuses hybrid cgroup layouts).
	Runtime string
	// RuntimeRoot is the runtime's state directory (--root; default
	// /run/desk/runc). Use one per desk server.
	RuntimeRoot string
	// StateDir holds a bundle per live sandbox (default /run/desk/sandbox).
	StateDir string
	// CgroupParent is the cgroup sandboxes are made in (default
	// "desk-sandbox"; a relative path is below desk's own cgroup).
	CgroupParent string
	// InitPath is the binary that runs the init (default: this executable)
	// and InitArgs its arguments (default: [InitCommand]). The binary is
	// bound read-only at /.desk/init.
	InitPath string
	InitArgs []string

	// RootDir is a root filesystem to use instead of the host's userland
	// (bound read-only). It must hold /workspace, /tmp, /proc, /dev, /.desk
	// and Home as directories, bash at Shell, and whatever the init binary
	// needs (desk built with CGO_ENABLED=0 needs nothing).
	RootDir string
	// Userland are the host paths bound read-only when RootDir is empty
	// (default DefaultUserland()), minus Deny (default DefaultDeny();
	// absolute paths or path.Match patterns, each leaving out what it
	// matches and everything below it; a server appends its own
	// configuration and data directories); Binds further host paths
	// (default none; not subject to Deny).
	Userland []string
	Deny     []string
	Binds    []Bind
	// Image, if set, names the image each workspace's sandbox uses instead
	// of the host's userland (nil from it: the host's userland, or
	// RootDir); see Image.
	Image ImageFunc

	// HostID is the host uid and gid of root inside, and IDCount how many
	// ids are mapped (defaults 1048576 and 65536). Pick a range no user of
	// the host has (see /etc/subuid).
	HostID  uint32
	IDCount uint32
	// Capabilities of root inside (default DefaultCapabilities()).
	Capabilities []string
	// Seccomp is the seccomp profile (default DefaultSeccomp()).
	Seccomp *Seccomp

	// Memory bounds a sandbox's memory, tmpfs content included (default 1
	// GiB); Pids its processes and threads (default 512); CPUShares its CPU
	// weight (default 1024) and CPUs its CPU time in cores (default 1).
	Memory    int64
	Pids      int64
	CPUShares uint64
	CPUs      float64
	// TmpSize, HomeSize and ShmSize bound the tmpfs at /tmp, $HOME and
	// /dev/shm (defaults 256 MiB, 128 MiB, 64 MiB). They count toward Memory.
	TmpSize  int64
	HomeSize int64
	ShmSize  int64
	// MaxOpenFiles is RLIMIT_NOFILE (default 4096).
	MaxOpenFiles uint64

	// Timeout bounds the wall time of one execution, enforced inside the
	// sandbox whatever the caller's deadline (default 1h); KillGrace is the
	// time between SIGTERM and SIGKILL (default 2s); DrainTimeout how long
	// output is still read after the program ended while a process that left
	// its session holds the pipes (default 500ms).
	Timeout      time.Duration
	KillGrace    time.Duration
	DrainTimeout time.Duration
	// IdleTimeout stops a sandbox with nothing running for that long
	// (default 5m); StartTimeout bounds a start (default 10s) and
	// StopTimeout a graceful stop (default 5s).
	IdleTimeout  time.Duration
	StartTimeout time.Duration
	StopTimeout  time.Duration
	// SyncTimeout bounds Mount.Sync before an execution (default 5s).
	SyncTimeout time.Duration
	// MaxSandboxes bounds live sandboxes (default 8). Past it the least
	// recently used idle one is stopped; if none is idle, Run fails with
	// ErrTooManySandboxes.
	MaxSandboxes int
	// Slots, if set, bounds live sandboxes beyond this Backend: each sandbox
	// takes a host-wide slot (fair.Sandbox) before it starts and gives it
	// back once it is cleaned up, so that the sandboxes of several backends
	// (one per workspace worker of desk serve) share one bound. A refused
	// start fails with the *fair.LimitError. A sandbox nothing uses says
	// so (its slot is idle), and when another workspace needs the slot the
	// sandbox is stopped if it still runs nothing ("reclaimed"), as past
	// MaxSandboxes.
	Slots fair.Host
	// OutputWindow is how much output (and stdin) of one execution may be in
	// flight between the program and the backend (default 256 KiB).
	OutputWindow int
	// DetachedBuffer is the output kept per detached execution (default 1
	// MiB); MaxDetached bounds detached executions per sandbox (default 16).
	DetachedBuffer int
	MaxDetached    int

	// ProxyPort is the port of 127.0.0.1 in the sandbox where the init
	// forwards to the egress proxy (default DefaultProxyPort, 3128). An
	// execution with a network (run.Job.Net) gets the proxy settings
	// pointing there (ProxyEnv).
	ProxyPort int

	// Shell runs the source: Shell -c SOURCE (default /bin/bash).
	Shell string
	// Home is the sandbox user's (root's) home directory (default
	// /home/agent): the Mount's Home bound read-write, or a private tmpfs
	// of HomeSize when the Mount has none. HomeDir is the store directory
	// the default Mount binds there (default: Home, the same path, so the
	// other backends see the home where the sandbox does), made 0700 when
	// missing.
	Home    string
	HomeDir string
	// LayerDir is the store directory keeping a writable root's changes
	// (Image.Writable; default /.sandbox/root): upper (overlayfs's upper
	// layer), work (its work directory) and image (the id of the image
	// the changes were made over).
	LayerDir string

	// Logger receives the backend's log (default: none).
	Logger *slog.Logger
}

// ErrTooManySandboxes: MaxSandboxes sandboxes are live and all are busy.
var ErrTooManySandboxes = errors.New("too many live sandboxes")

// ErrClosed: the Backend is closed.
var ErrClosed = errors.New("sandbox backend is closed")

// ErrInUse: another Backend (another server) holds the StateDir.
var ErrInUse = errors.New("sandbox state directory in use by another server")

// ErrNoSandbox: the sandbox facility is missing (no runtime, no user
// namespaces, not root).
var ErrNoSandbox = errors.New("sandboxes are not available on this host")

func (o Options) withDefaults() (Options, error) {
	if o.Memory < 0 || o.Pids < 0 || o.CPUs < 0 || o.TmpSize < 0 || o.HomeSize < 0 || o.ShmSize < 0 ||
		o.Timeout < 0 || o.KillGrace < 0 || o.DrainTimeout < 0 || o.IdleTimeout < 0 || o.StartTimeout < 0 ||
		o.StopTimeout < 0 || o.SyncTimeout < 0 || o.MaxSandboxes < 0 || o.OutputWindow < 0 || o.DetachedBuffer < 0 || o.MaxDetached < 0 {
		return o, fmt.Errorf("check sandbox options: negative limit")
	}
	str := func(v *string, d string) {
		if *v == "" {
			*v = d
		}
	}
	i64 := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	dur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	num := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if o.Name == nil {
		o.Name = defaultName
	}
	str(&o.Runtime, DefaultRuntime)
	str(&o.RuntimeRoot, DefaultRuntimeRoot)
	str(&o.StateDir, DefaultStateDir)
	str(&o.CgroupParent, DefaultCgroupParent)
	str(&o.MountDir, filepath.Join(o.StateDir, "mnt"))
	str(&o.WorkDir, run.DefaultCwd)
	str(&o.Shell, DefaultShell)
	str(&o.Home, DefaultHome)
	str(&o.HomeDir, o.Home)
	str(&o.LayerDir, DefaultLayerDir)
	if o.InitPath == "" {
		exe, err := os.Executable()
		if err != nil {
			return o, fmt.Errorf("find init binary: %w", err)
		}
		o.InitPath = exe
	}
	if o.InitArgs == nil {
		o.InitArgs = []string{InitCommand}
	}
	if o.Userland == nil {
		o.Userland = DefaultUserland()
	}
	if o.Deny == nil {
		o.Deny = DefaultDeny()
	}
	if _, err := newDenyList(o.Deny); err != nil {
		return o, err
	}
	if o.HostID == 0 {
		o.HostID = DefaultHostID
	}
	if o.IDCount == 0 {
		o.IDCount = DefaultIDCount
	}
	if o.Capabilities == nil {
		o.Capabilities = DefaultCapabilities()
	}
	if o.Seccomp == nil {
		o.Seccomp = DefaultSeccomp()
	}
	i64(&o.Memory, DefaultMemory)
	i64(&o.Pids, DefaultPids)
	if o.CPUShares == 0 {
		o.CPUShares = DefaultCPUShares
	}
	if o.CPUs == 0 {
		o.CPUs = DefaultCPUs
	}
	i64(&o.TmpSize, DefaultTmpSize)
	i64(&o.HomeSize, DefaultHomeSize)
	i64(&o.ShmSize, DefaultShmSize)
	if o.MaxOpenFiles == 0 {
		o.MaxOpenFiles = DefaultMaxOpenFiles
	}
	dur(&o.Timeout, DefaultTimeout)
	dur(&o.KillGrace, DefaultKillGrace)
	dur(&o.DrainTimeout, DefaultDrainTimeout)
	dur(&o.IdleTimeout, DefaultIdleTimeout)
	dur(&o.StartTimeout, DefaultStartTimeout)
	dur(&o.StopTimeout, DefaultStopTimeout)
	dur(&o.SyncTimeout, DefaultSyncTimeout)
	num(&o.MaxSandboxes, DefaultMaxSandboxes)
	num(&o.OutputWindow, DefaultOutputWindow)
	num(&o.DetachedBuffer, DefaultDetachedBuffer)
	num(&o.MaxDetached, DefaultMaxDetached)
	num(&o.ProxyPort, DefaultProxyPort)
	if o.ProxyPort < 1 || o.ProxyPort > 65535 {
		return o, fmt.Errorf("check sandbox options: ProxyPort %d out of range", o.ProxyPort)
	}
	if o.OutputWindow < 64<<10 {
		return o, fmt.Errorf("check sandbox options: OutputWindow %d under 64 KiB", o.OutputWindow)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	rt, err := exec.LookPath(o.Runtime)
	if err != nil {
		return o, fmt.Errorf("find runtime %q: %w (%w)", o.Runtime, err, ErrNoSandbox)
	}
	o.Runtime = rt
	if o.WorkDir, err = cleanWorkDir(o.WorkDir); err != nil {
		return o, err
	}
	if o.HomeDir, err = cleanWorkDir(o.HomeDir); err != nil {
		return o, err
	}
	if o.LayerDir, err = cleanWorkDir(o.LayerDir); err != nil {
		return o, err
	}
	if !filepath.IsAbs(o.Home) || filepath.Clean(o.Home) != o.Home || o.Home == "/" {
		return o, fmt.Errorf("check sandbox options: Home %q is not a clean absolute path", o.Home)
	}
	for _, p := range []*string{&o.RuntimeRoot, &o.StateDir, &o.MountDir, &o.InitPath} {
		if *p, err = filepath.Abs(*p); err != nil {
			return o, fmt.Errorf("check sandbox options: %w", err)
		}
	}
	if o.RootDir != "" {
		if o.RootDir, err = filepath.Abs(o.RootDir); err != nil {
			return o, fmt.Errorf("check sandbox options: %w", err)
		}
		for _, d := range []string{"workspace", "tmp", "proc", "dev", ".desk", strings.TrimPrefix(o.Home, "/")} {
			if fi, err := os.Stat(filepath.Join(o.RootDir, d)); err != nil || !fi.IsDir() {
				return o, fmt.Errorf("check root directory %s: /%s is not a directory (the sandbox mounts it)", o.RootDir, d)
			}
		}
	}
	for _, b := range o.Binds {
		if !filepath.IsAbs(b.Source) || !filepath.IsAbs(b.Target) {
			return o, fmt.Errorf("check sandbox options: bind %s → %s: paths must be absolute", b.Source, b.Target)
		}
	}
	return o, nil
}

// defaultName is the file name of the store without its extension.
func defaultName(fs *vfs.FS) string {
	base := filepath.Base(fs.Path())
	return strings.TrimSuffix(base, filepath.Ext(base))
}
