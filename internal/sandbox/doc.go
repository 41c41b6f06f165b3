// Package sandbox is the sandbox backend (id "sandbox"): bash in a Linux
// sandbox run by an OCI runtime (runc; crun takes the same command line),
// with the workspace at /workspace. It runs what the shell backend cannot:
// real programs (compilers, package managers, interpreters), with the
// host's userland, read-only.
//
// # Lifecycle
//
// One sandbox per workspace, started on the workspace's first sandbox
// execution (Run), kept warm between executions, stopped after
// Options.IdleTimeout (5 min) with nothing running, and started again
// transparently on the next execution. A sandbox that died (its init
// killed, its runtime gone, its workspace mount ended) is noticed at once
// (the connection to its init ends) and cleaned up; the next execution
// starts a new one, and an execution whose program had not started yet when
// the sandbox was found dead is retried once on the new one. At most
// Options.MaxSandboxes (8) are live: past it the least recently used idle
// one is stopped, and when all are busy Run fails with ErrTooManySandboxes.
// Stop stops one (wire it to the workspace's close, so a hibernated
// workspace keeps no sandbox); Close stops all.
//
// With Options.Slots (a fair.Host) the sandboxes of several backends share
// one bound: a sandbox takes a host-wide slot (fair.Sandbox) before it
// starts, gives it back once cleaned up, and marks it idle while nobody
// uses it; asked for the slot back (another workspace needs one), the
// backend stops the sandbox if it still runs nothing ("reclaimed"), else
// marks the slot busy. A refused start fails with the *fair.LimitError.
// Hold keeps a workspace's sandbox live (started if need be) and not idle
// until released: a caller about to run executions in it takes it first,
// so that a sandbox that cannot start refuses them before they start.
//
// Starting a sandbox: Options.Mount lends the host directory to bind at
// /workspace (by default the workspace's FUSE mount, below); a bundle is written (StateDir/ID: config.json, the files naming
// the host); `runc run` starts the container in the foreground, as desk's
// child, with one end of a socketpair passed as file descriptor 3
// (--preserve-fds 3: 4 and 5 are the forwarding socket, below, and the
// notify socket of "Command rules at exec"); inside, the init answers the
// configuration frame.
// Stopping: the backend closes its end of the socket; the init exits; the
// kernel kills every process of the sandbox's pid namespace with it; runc
// reaps the init and deletes the container and its cgroups; the backend
// releases the mount and removes the bundle. If runc has not exited after
// Options.StopTimeout, it is killed and `runc delete --force` removes what
// remains. Because the init exits when its socket ends, a sandbox never
// outlives a desk that crashed (kill -9): runc, its parent, still cleans up.
//
// # A server killed with -9
//
// Every descriptor the backend (and fusefs) opens is close-on-exec, so a
// runtime inherits only the init's socket: when the server dies, its
// /dev/fuse descriptor closes with it, the kernel aborts the workspace
// mount's connection, a program waiting on the mount gets ENOTCONN, and the
// init, the runtime and the cgroups go as above. (When the descriptor did
// leak into runc, a program waiting on the mount stayed in state D forever,
// with a zombie init, an orphaned `runc run`, its cgroups and the connection.)
// What is left either way, or by an older desk, New cleans up before it
// returns, finding it only through the backend's own directories, never by
// a process name alone (see cleanStale): it aborts the FUSE connection of
// every mount below MountDir (fusectl) and detaches them; kills the
// processes of the cgroups the bundles in StateDir recorded (each bundle
// lists its sandbox's cgroup directories, those named after its container
// id, once the init runs); deletes the runtime's containers in RuntimeRoot;
// waits StopTimeout for runtime processes run with --root RuntimeRoot to
// exit, then kills them; removes the recorded cgroups, the mount points and
// the bundles. A Backend holds an exclusive flock on StateDir for its life,
// so New fails with ErrInUse rather than clean up a live server's sandboxes.
//
// # Directories
//
// A warm sandbox's workspace mount is open to other users (allow_other), so
// the directories above it are what keeps host users out: RuntimeRoot,
// MountDir and everything below StateDir are 0700, root's; StateDir itself
// (and the parents New makes for it) is 0710 with group HostID, since the
// sandbox's root must pass through it to the root skeleton while the runtime
// sets the sandbox up (the runtime opens bind mount sources as root). No
// host user has group HostID, so none can reach a workspace's files by path.
//
// # The filesystem
//
// By default the root is the host's userland, read-only: a skeleton
// directory (StateDir/rootfs, shared by all sandboxes of the backend, made
// once per Backend) with read-only, non-recursive bind mounts of the host
// paths of Options.Userland (DefaultUserland(): /usr, the top-level /bin,
// /sbin, /lib* — recreated as the same symbolic links on a merged-/usr host
// — /opt, /var/lib and /etc), so that Debian packages installed on the host
// work unmodified (pandoc with TeX keeps its formats in /var/lib/texmf and
// its configuration in /etc/texmf). Options.Deny (DefaultDeny() plus, in
// desk serve, the server's data directory and its config file's directory)
// names what is left out: /etc/shadow, gshadow, sudoers, the ssh host keys,
// /etc/ssl/private, machine-id, /etc/environment, desk's own directories,
// anything under /root, and the private state of other daemons in /var/lib.
// A denied path is absent, not masked: a directory with something denied
// below it is made in the skeleton and mirrored entry by entry (each entry
// its own bind mount, so a host /etc of 130 entries makes about 130 mounts:
// see docs/benchmarks.md for what that costs a cold start), so ls and stat
// do not see it either. What the host's root alone can read is unreadable
// in the sandbox anyway: host files are owned by ids the sandbox does not
// map, so its root has no override on them. Entries added to the host
// later inside a bound directory appear at once; new entries of a directory
// mirrored entry by entry (/etc) appear when the server restarts. Devices,
// sockets and FIFOs are never mirrored. passwd (root, nobody), group,
// resolv.conf and nsswitch.conf are written by the backend, hostname and
// hosts per sandbox. Nothing else of the host is there: not /home, /root,
// /work, /run, /tmp, /var/cache, /var/log, /srv, /mnt, /boot, /sys, nor the
// host's /proc or /dev. Options.RootDir names a root directory to use
// instead (bound read-only as is).
//
// # Images
//
// Options.Image, if set, is asked for each workspace's image when its
// sandbox starts (desk serve: package image's store, the workspace's choice
// or the store's default); nil keeps the host's userland. An Image's Root
// (an unpacked OCI image, shared by every sandbox on it) is the sandbox's
// root, read-only, with the usual mounts on top (/workspace, the home,
// /tmp, /proc, /dev, the init at /.desk/init, hostname and hosts); no host
// path is bound. Its Env replaces the default PATH and adds to the base
// environment (an execution's own variables win); an execution asking for
// the default working directory (run.DefaultCwd) starts in its WorkingDir;
// its UID:GID (the config's User) runs every program (wire.Start.User: the
// init sets the credentials, with no supplementary groups); its Shell
// (/bin/bash when the image has it, else /bin/sh) runs the sources. The
// init is this binary: it must be static (CGO_ENABLED=0; make build makes
// desk so) or find a compatible C library in the image. A start refuses an
// image that lacks the init's ELF interpreter (read once from the binary's
// PT_INTERP, looked up in the image's root with its symbolic links resolved
// inside it), naming it and the fix, rather than failing in the runtime.
// An Image's Release is called once the sandbox has stopped (or at once
// when its start is refused): package image's hold, which keeps desk image
// rm from deleting a root a sandbox runs on.
//
// The image's user owns the workspace: the default Mount serves the files
// of store uid 0 (what every other backend writes, and /workspace and the
// home themselves) as the image user's, and that user's files as store uid
// 0's (fusefs.IDMap.UID, GID: the two ids exchange places, every other id
// maps as usual; Workspace.UID, GID carry the image's to the Mount). So an
// image whose User is 1000 writes /workspace and /home/agent, edits what
// the shell backend wrote, and the store keeps one owner whichever backend
// wrote; root inside sees those files as uid 1000's (it may still change
// them: its capabilities). The image's root keeps its own owners. A Mount
// of the caller's (Options.Mount) gets Workspace.UID and GID to do the
// same.
//
// # A writable root
//
// An Image that is Writable (package image: the workspace's SetWritable,
// desk image use --writable; off by default) gets a writable root: a kernel
// overlayfs whose lower layer is the image's shared root and whose upper
// layer is in the workspace's store, below Options.LayerDir (/.sandbox/root:
// upper, overlayfs's upper layer with its whiteouts, character devices 0:0,
// and trusted.overlay.* xattrs; work, its work directory; image, the id of
// the image the layer is over). So `apt-get install`, `dpkg -i` or a `pip
// install` into /usr keep their files, and a deletion of an image's file
// stays deleted, across restarts; the other backends see the changes under
// LayerDir/upper; the shared image is never written. The default Mount
// opens upper and work on the store's FUSE mount without following
// symbolic links (a link there refuses the start) and gives overlayfs
// their descriptors' /proc/self/fd paths; the overlay is mounted (nosuid,
// nodev, index, metacopy and redirects off and not followed: another
// backend can write the layer) on StateDir/roots/NAME, 0710 with group
// HostID like StateDir, and unmounted before the store's mount at release;
// New detaches stale ones first and never walks into them. A layer made
// over one image refuses another (ErrLayerImage, naming both ids): remove
// LayerDir to start over. Its cost: every changed file is stored in the
// workspace (quota included), a changed file of the image is copied up
// whole first, and writes to the root go through FUSE to the store (see
// docs/benchmarks.md). The host's userland (no image) stays read-only.
//
// # The workspace mount
//
// By default (Options.Mount nil) each sandbox gets a mount of its own:
// the workspace's store served by package fusefs on a directory under
// Options.MountDir (StateDir/mnt/ID/store), and the store's Options.WorkDir
// (run.DefaultCwd, /workspace; package workspace makes it on open, and the
// backend makes it, 0755 and owned by store uid 0, when a store lacks it)
// bound at /workspace. The
// backend binds WorkDir itself (on StateDir/mnt/ID/workspace, which the
// runtime then binds) from a descriptor reached without following symbolic
// links: a WorkDir that is a symbolic link in the store refuses the start
// instead of being resolved in the host's root. So a
// path means the same file for every backend: what the shell backend writes
// at /workspace/x is /workspace/x in the sandbox, at once, and the other way
// round (the mount's kernel caches are invalidated from the store's change
// journal; see fusefs; before each execution the backend waits, at most
// Options.SyncTimeout, until the mount is in step with every change
// committed before: Mount.Sync). The rest of the store is not visible in the
// sandbox.
// The mount serves the store's ids shifted into the sandbox's range
// (fusefs.IDMap: store uid 0 is host uid HostID, root inside) with
// allow_other, so files are root's inside and the store keeps the ids the
// sandbox's processes see. Writes are attributed to executions
// (fusefs.Options.ActorOf, through ExecutionOf), so an execution's change
// set holds what its programs wrote. When the FUSE server stops for any
// reason (its connection aborted, the mount removed), Mount.Done closes: the
// sandbox is stopped (its executions fail with "sandbox stopped: the
// workspace mount ended") and the next execution starts a new sandbox on a
// new mount; what the store acknowledged (every close(2) and fsync(2) that
// returned) is kept. Releasing the mount unmounts it (detaching a dead one)
// and removes its directory; New aborts, detaches and removes the mounts a
// killed server left. The mount's own limits are those of fusefs
// (Options.FUSE).
//
// # The home
//
// The sandbox's user is root inside, with $HOME Options.Home (/home/agent).
// The default Mount binds the store's Options.HomeDir (the same path,
// /home/agent, made 0700 and owned by store uid 0 when missing; reached
// without following symbolic links, like WorkDir) there, read-write: so
// dotfiles, `pip install --user` (the user site, ~/.local/lib/python3.X),
// `npm install -g` (NPM_CONFIG_PREFIX is ~/.local), ~/.local/bin (first on
// PATH) and the caches of package managers (~/.cache, ~/.npm) live in the
// workspace's store: they persist across sandbox restarts, count toward
// the store's size rather than the sandbox's memory, and the other
// backends see them at the same path. PIP_BREAK_SYSTEM_PACKAGES=1 lets
// Debian's pip install into the user site (its "externally managed"
// marker protects dpkg's files, which are read-only here anyway). A Mount
// without Home (Options.Mount of the caller's) gets a private tmpfs of
// Options.HomeSize instead, gone when the sandbox stops. run's default
// HOME (/workspace) and PATH give way to the sandbox's; an execution's
// own HOME or PATH wins.
//
// # The rest of the tree
//
// On top: /workspace (the Mount, read-write, nosuid, nodev); $HOME (above);
// /tmp and /dev/shm: private tmpfs of Options.TmpSize, ShmSize;
// /var/tmp links to /tmp; /proc of the sandbox's pid namespace (with the
// OCI default masked and read-only paths: kcore, keys, sysrq-trigger,
// /proc/sys, ...); a minimal /dev (null, zero, full, random, urandom, tty,
// pts, shm, mqueue); /.desk/init, the init binary, read-only. The hostname is
// the workspace name.
//
// # Security model
//
// What runs in a sandbox is untrusted. The barriers, outermost first:
//
//   - User namespace: root inside is Options.HostID (1048576) on the host,
//     an uid no one uses; ids 0..65535 inside map to HostID..HostID+65535.
//     Host files appear owned by nobody and are read-only anyway.
//   - Namespaces: mount, pid (the sandbox sees only its processes), ipc,
//     uts, cgroup (the host's cgroup paths are hidden) and network: a network
//     namespace of its own with only lo, so there is no route out at all;
//     the only way out is desk's egress proxy (# Network).
//   - Capabilities: DefaultCapabilities() (containerd's default set minus
//     MKNOD and NET_RAW), effective only over what the user namespace owns;
//     no_new_privs; RLIMIT_CORE 0.
//   - Seccomp: DefaultSeccomp, a short deny list (kernel modules, kexec,
//     mount and namespace calls, keyrings, bpf, perf, userfaultfd, io_uring,
//     open_by_handle_at, obsolete calls; clone with namespace flags; clone3
//     → ENOSYS; non-native architectures refused). A deny list lets through
//     system calls added to the kernel later: the user namespace and the
//     capabilities are what the model rests on.
//   - cgroups (Options.CgroupParent, below desk's own cgroups): memory (tmpfs
//     included, no swap), pids, CPU shares and a CPU quota.
//   - The init: started first, it cannot be signalled by the sandbox's
//     processes (as pid 1 it drops every signal they can send), traced or
//     read through /proc (it is not dumpable), and its socket is an
//     inherited descriptor, not a path. It trusts nothing the sandbox's
//     processes do; the backend trusts nothing the init sends (frames are
//     bounded, a stream's queue is bounded by its window in bytes and by
//     twice its window in frames, so empty frames cannot grow it either; a
//     malformed frame or one of an unknown type stops the sandbox).
//   - The environment: the server's environment never reaches a sandbox; a
//     program sees the sandbox's base (PATH, HOME, USER, LOGNAME, SHELL,
//     HOSTNAME, LANG, TERM, TMPDIR) overlaid with the execution's (run's)
//     environment, except that run's default HOME (/workspace) gives way to
//     the private home.
//
// # Executions
//
// Run sends Start (Options.Shell -c SOURCE, the cwd, the environment, the
// init's own wall-time bound Options.Timeout) on a new stream; the init
// starts the program in a session of its own (its pid is the session and
// process group id) with pipes for stdin, stdout and stderr. Output streams
// back as it is read (stdout and stderr keep their order when they are
// written apart in time; bytes written at the same moment to both may
// arrive in either order, as with any two pipes), flow-controlled so that a
// program outrunning the consumer blocks in write(2); stdin flows the other
// way under the same window. Kill sends the Kill's signal to the session
// and its process group, timeouts and server stops SIGTERM; SIGKILL follows
// Options.KillGrace (2s) later either way. When the main process exits, the
// rest of its session is killed, the pipes are read to their end (at most
// Options.DrainTimeout more if something outside the session holds them), and
// the init reports the exit status, the CPU time and the peak RSS (the
// outcome's run.Usage, in the execution's record: user and system time of
// the main process and the children it waited for; the CPU of all its
// processes is the meter's, # CPU time). When no
// other execution is running, processes that escaped their session
// (setsid, daemons) are killed too.
//
// An outcome tells, on stderr, in plain words, which limit stopped the
// program: "desk: sandbox: killed: out of memory (limit 1 GiB)" (exit 137)
// when the cgroup's OOM counter rose; "desk: sandbox: limit: a fork failed:
// the sandbox reached its process limit (512 processes and threads)" when the
// pids counter rose; "desk: sandbox: killed: the wall time limit of 1h0m0s
// per execution was reached" (exit 124) for Options.Timeout. run's own
// timeout and Kill end the execution as timed-out or cancelled as usual.
//
// Detached executions (RunDetached for run's ExecOptions.Detached;
// StartDetached, ListDetached, AttachDetached, SignalDetached by id) are
// long-running programs not bound to a caller: their processes survive the
// main one, their output is kept in a bounded buffer, and they keep their
// sandbox from idling. See detached.go for when one ends.
//
// ExecutionOf maps a host pid (or thread id) to the execution it belongs to
// (by pid namespace and session): the default mount uses it to attribute a
// sandbox's writes to executions (vfs.WithActor), so that their change sets
// are right. A program may write before its start is reported (the init
// reports the pid after the fork): while an execution is starting,
// ExecutionOf waits for the report, briefly. A process that left its
// execution's session (setsid, a daemon) is attributed by the DESK_EXEC_ID
// its environment started with, while that execution runs; one that also
// cleared its environment, or outlives its execution, is not: its changes
// carry the mount's actor. That fallback is bookkeeping, not a boundary (a
// process can set DESK_EXEC_ID to anything): the mount's path check asks
// SessionExecutionOf, which goes by the session alone (# Path rules).
//
// # CPU time
//
// Each execution (Run, RunDetached) runs in a cgroup of its own, so that
// run's CPU limit per execution (the workspace's max_cpu_per_execution)
// binds the sandbox as it does the shell and js: the backend makes a
// threaded child (exec-N) of the sandbox's cgroup on the v2 hierarchy
// (the hybrid layout's controller-less one too), opens its cgroup.threads
// and passes the descriptor to the init on the notify socket with a token
// the Start names (wire.Start.Group). The init forks the program from a
// thread of its own that first writes "0" to it: the thread joins the
// group and the program is born there, before it runs anything (the
// kernel checks the write against the host's credentials, those the file
// was opened with: Linux 5.16 and later). The thread ends with the launch,
// so nothing of the init stays in the group. Every process and thread the
// program starts, in its session or not, is born in the group; its
// cpu.stat usage_usec, the CPU of all of them (those that ended included),
// is the execution's meter (run.Job.MeterCPU): run stops the execution
// past its limit (cpu-limit, exit code 152) and records the meter's last
// reading as usage.cpu_ns, which the day's quota counts. The group is
// removed when the execution ends (later when a process is still in it:
// at a later execution's end, or with the sandbox), and New's stale
// cleanup removes those a killed server left. The sandbox's group stays
// the domain of its memory limit; cgroup.kill is not used (it does not
// work in threaded groups), the init's session kill is. A program the
// init could not put in its group (an older kernel refuses the write)
// runs unmetered, said once in the log, and that sandbox makes no more
// groups; a program sees its group in /proc/self/cgroup as 0::/exec-N
// (the cgroup namespace shows the sandbox's own group as /, the host's
// paths stay hidden); on a host without cgroup v2 (v1 only) no
// execution is metered: the CPU limit per execution does not bind the
// sandbox there. A terminal (Shell) has no group. What it costs: docs/decisions.md, "CPU
// time per execution".
//
// # Network
//
// The sandbox has no route out: its network namespace holds only lo. An
// execution whose run.Job.Net is set (the workspace's egress policy, set by
// run.Options.Network; package egress) reaches the network through desk's
// egress proxy only. The backend serves an egress.Proxy on a Unix socket in
// the sandbox's bundle (StateDir/ID/egress.sock, mode 0666 in the 0700
// bundle), bound at /.desk/egress.sock (wire.ProxySocket); the init listens
// on 127.0.0.1:Options.ProxyPort (3128) inside and carries each connection,
// bytes only, to that socket (at most 256 at once; the socket itself takes
// at most 512 connections, idle ones closed after 2 minutes). The execution's
// environment gets ProxyEnv: HTTP_PROXY, HTTPS_PROXY, http_proxy,
// https_proxy = http://desk:CREDENTIAL@127.0.0.1:3128, NO_PROXY and
// no_proxy = localhost,127.0.0.1,::1 (the sandbox's own servers),
// npm_config_proxy, npm_config_https_proxy, PIP_PROXY, and
// NODE_USE_ENV_PROXY=1 (Node 24 and later honour the variables; Node 20
// ignores them: a program passes the proxy itself). curl, wget, git, pip,
// Python's urllib, npm and Go (GOPROXY, go mod download) work unmodified.
// The credential, random per execution, names that execution's Job.Net to
// the proxy while it runs (a detached one: until it ends; a terminal,
// ShellOptions.Net: while the session lasts); a request
// without a live credential gets 407, so a process that outlives its
// execution, or an execution without network, has none. Each request is
// decided by the execution's egress.Client: plain HTTP is sent by it,
// HTTPS is a CONNECT tunnel it opens; a refusal is a 403 whose body says
// why (what curl -w '%{http_code}' and a package manager's error show). A
// program that ignores the proxy variables simply has no network. When the
// Job.Net has a CA (egress.Client.CAPEM: the workspace has secrets, whose
// HTTPS the proxy terminates), it is added to the bundle's ca.pem (the
// host's system bundle first), bound at /.desk/ca.pem and over
// /etc/ssl/certs/ca-certificates.crt, and the execution gets SSL_CERT_FILE,
// CURL_CA_BUNDLE, REQUESTS_CA_BUNDLE, PIP_CERT, GIT_SSL_CAINFO and
// NODE_EXTRA_CA_CERTS pointing at it.
//
// # Protocol
//
// Package wire: length-prefixed frames (a 9-byte header: length, type,
// stream; JSON or raw payloads) over the socketpair, streams opened by the
// host, credit-based flow control. Its package documentation is the
// reference. A terminal (desk shell, Backend.Shell) is an execution whose
// Start carries Start.Terminal: the init opens a pty pair, makes the slave
// the program's stdin, stdout, stderr and controlling terminal, sends the
// master's output as the stdout stream, types the stdin stream into the
// master, and applies Resize frames with TIOCSWINSZ (SIGWINCH).
//
// # Host requirements
//
// Root (rootless runtimes are not supported), user namespaces, an OCI
// runtime (Available checks these), and /dev/fuse for the default mount
// (MountAvailable). cgroup v1, v2 and hybrid hosts work with
// runc; crun refuses hybrid layouts. Lowering the init's oom_score_adj would
// need CAP_SYS_RESOURCE, which desk may lack: programs get oom_score_adj 500
// instead so that the OOM killer picks them first.
//
// # Inbound ports
//
// Each sandbox's init serves inbound port forwarding (wire's "Port
// forwarding"): the backend makes a listening unix socket in the bundle
// (StateDir/ID/forward.sock, below 0700 directories of root's: no host
// user reaches it, and it is not in the sandbox's tree) and passes it to
// the init as file descriptor 4 (wire.ForwardFD). DialPort connects
// to it and names a port; the init, in the sandbox's network namespace,
// dials 127.0.0.1:PORT (then [::1]:PORT) and copies bytes both ways,
// half-closes passed on, at most wire.MaxForwards (256) connections at
// once. DialPort never starts a sandbox (ErrNotRunning): a service is a
// detached execution, which keeps its sandbox up. Ports lists the sandbox's
// listening TCP sockets from /proc/INIT/net/tcp{,6} (read from the host:
// the host never enters the namespace) and finds the process holding each
// by the sandbox's processes' descriptors (at most maxPortScan looked at),
// and its execution (ExecutionOf). A forwarded connection whose service
// neither reads nor closes after the host half-closed it stays open until
// the service closes it or the sandbox stops (it holds one of the 256).
//
// # Not done
//
//   - A process that leaves its execution's session while another execution
//     runs survives until an execution ends with none running, or the
//     sandbox stops.
//   - Per-sandbox uid ranges, disk quotas of /tmp beyond tmpfs size.
//   - A shell whose piped input ends while a command runs: that command, not
//     bash, reads the ^D the end of input types, and bash waits at its next
//     prompt (end piped input with exit).
//
// # Path rules
//
// Run and RunDetached record their context's path rules (vfs.AccessFrom:
// package policy's, put there by run's Gate) while the execution runs;
// the workspace mount asks for the calling process's (fusefs
// Options.AccessOf): those of the execution whose session it is in
// (SessionExecutionOf), or, for a process in no running execution's
// session (one that made a session of its own: setsid, a daemon; a
// detached descendant), the strictest of all the workspace's running
// executions'. The session is what a process cannot forge: it cannot join
// another session (setsid makes a new one, whose id is its own pid;
// setpgid stays within its session), and the kernel does not reuse a
// session's id while any process of it lives. DESK_EXEC_ID in the
// environment is not consulted there, so naming another execution gains
// nothing (TestAccess_ForgedExecID). What is left: a process that leaves
// its session gets the strictest rules of the running executions, not its
// own (its execution's cgroup, # CPU time, would tell them; the mount does
// not ask it yet). See access.go.
//
// # Command rules at exec
//
// An execution whose context carries package policy's Set
// (policy.WithSet; run's Gate puts it there) with command rules is started
// with them (wire.Start.Commands, the rules as text, per layer): the init
// forks it from a thread that first installs a seccomp filter with a
// listener (SECCOMP_FILTER_FLAG_NEW_LISTENER) on execve and execveat, and
// a guard in the init answers every exec of every process of the
// execution, descendants and processes that left its session included
// (the filter is inherited and cannot be removed). The one exec the guard
// does not answer is the first, the launch of the execution's program by
// the init's own fork: the init passes the listener to the host first, on
// a SOCK_SEQPACKET socket (file descriptor 5, wire.NotifyFD), and the
// backend lets that exec go on and sends the filter's token back (package
// notify; answerLaunches). The init cannot answer it itself: Go forks with
// vfork, which keeps the forking thread's share of the scheduler until the
// child's exec, so a garbage collection stopping the world in that window
// would wait for the fork and the fork for an answer that never runs — the
// init hung, and with it the sandbox (TestExecRules_LaunchWhileCollecting
// drives that window). The guard reads the
// file name and argv from the process's memory (/proc/PID/mem, with the
// process's file system ids so that an image's user is read too; at most
// 256 words and 64 KiB of arguments, past which the command has unseen
// words that rules may match, as for xargs), checks the request is still
// valid (SECCOMP_IOCTL_NOTIF_ID_VALID), and decides the command the way
// policy matches it: the program's absolute path (relative names and
// execveat's directory descriptor resolved against the process's working
// directory or descriptor; fexecve's descriptor by its path) then argv[1:]
// (argv[0] is the caller's to choose and not looked at). The program is
// also decided by its path with symbolic links resolved, where a rule (not
// a default) decides: a link to a denied program is denied, while an
// allow-list naming python3 still runs python3 → python3.11. Allowed:
// SECCOMP_USER_NOTIF_FLAG_CONTINUE. Denied: execve fails with EACCES, as
// for a file without the x bit (shells say "Permission denied", exit
// 126; a PATH search goes on, so each try of the same program is refused,
// reported once); the execution's stderr gets a "desk: sandbox: exec of
// ... denied by rule ..." line, and SetDecisionHook's hook a
// policy.Decision (desk serve: a policy record in the audit journal with
// the execution's id). A program that does not exist is answered ENOENT
// without a record. Asked: allowed when the execution's script was itself
// asked about and so approved before it started (the approver saw the
// script; a command hidden in it, $cmd, is covered by that approval),
// else refused like a denied one and recorded as asked: holding an exec
// in the kernel for a human's approval would stall a program for minutes
// with nobody told which one, where refusing says exactly what to run in
// the open. A process whose memory cannot be read (it changed its
// credentials and is not dumpable until it execs: su, setpriv) is refused,
// recorded with the rule "(unreadable)". The filter also refuses (EPERM)
// a seccomp(2) that would make another listener, which would otherwise
// take the notifications of its children's execs, and system calls of
// another architecture. At most 64 refusals per execution are reported one
// by one; later ones are counted in the next report. An execution without
// command rules gets no filter and no guard: nothing is added to its
// execs.
//
// What this guarantees, and what not: every execve and execveat of the
// execution's processes is decided before it runs, whatever started it
// (a script's variables, python's subprocess, make, npm scripts, env,
// xargs, a shell script file's lines, fexecve). It is a guard against an
// agent's mistakes and ordinary scripts, not against hostile code:
// CONTINUE lets the kernel read the file name and argv again after the
// guard did, so another thread of the process (or a process sharing its
// memory) can rewrite them between the check and the exec — a hostile
// multithreaded program can run a denied command. Closing that would need
// the kernel to use the checked copy (no such seccomp mode), or the guard
// to execute on the process's behalf (SECCOMP_IOCTL_NOTIF_ADDFD cannot
// replace an exec), or an LSM (Landlock has no exec rule by argument;
// an eBPF LSM on bprm_check_security sees the final file, not argv). Names
// are what rules see: a copy of a denied program under another name runs
// (a memfd, a renamed copy; a default of deny, an allow-list, is the
// remedy), an interpreter running a denied tool's code itself (python
// with a library instead of the curl binary) is not an exec at all, and
// programs that run nothing new (a shell's builtins) are not seen.
package sandbox
