// Package initproc is the sandbox's init: the first process inside every
// sandbox, run from the desk binary's hidden subcommand "sandbox-init"
// (bind-mounted read-only at /.desk/init). It serves the host's requests
// (package wire) on the unix socket it inherits as file descriptor 3 and runs
// each execution as bash -c in a session of its own.
//
// # What it does
//
//   - As pid 1 of the sandbox's pid namespace it reaps every process. One
//     reaper goroutine calls wait4(-1) on SIGCHLD and hands the status of an
//     execution's main process to it; nothing else waits.
//
//   - Each execution's main process starts with setsid(2): its pid is its
//     session and process group id. Signals go to the process group and to
//     every process whose session is that id (scanned in /proc), which covers
//     background jobs and process groups made inside it. A process that makes
//     a session of its own (setsid, daemons) leaves the execution; see below.
//
//   - When the main process of an attached execution ends, every process left
//     in its session is killed with SIGKILL, its pipes are read to their end
//     (at most DrainTimeout more when something outside the session still
//     holds them), and Exit reports the status, CPU time and peak RSS. When it
//     was the only attached execution running, processes that escaped their
//     session are killed too (those of detached executions' sessions stay).
//
//   - A timeout (Start.Timeout) or a Signal with Escalate sends SIGTERM (or
//     the signal asked for), then SIGKILL KillGrace later.
//
//   - A terminal execution (Start.Terminal, desk shell) runs on a new
//     pseudo-terminal of the sandbox's devpts, its controlling terminal;
//     Resize frames set its window size (pty.go).
//
//   - It ignores every signal a process of the sandbox can send it (as pid 1
//     it receives only those it handles: it handles them by dropping them),
//     and marks itself not dumpable, so that programs running as the same
//     user can neither ptrace it nor open its /proc files (its socket).
//
//   - When the connection to the host ends (desk stopped, crashed or gave up
//     on the sandbox) it exits, and the kernel kills every process of the
//     sandbox with it: a sandbox never outlives the desk process that owns it.
//
//   - An execution started with command rules (Start.Commands) is forked
//     from a thread of its own that first installs a seccomp filter with a
//     listener on execve and execveat and passes the listener to the host
//     (wire.NotifyFD), which answers the launch's own exec: this process
//     cannot, while its fork holds a share of the Go scheduler (package
//     notify). A guard goroutine then answers each exec of the execution's
//     processes with package policy's decision: allowed ones continue,
//     refused ones fail with EACCES and are reported to the host
//     (TPolicy). Without rules nothing is installed. See guard.go and the
//     sandbox package's "Command rules at exec".
//
//   - An execution whose Start names a cgroup (Start.Group: the host
//     passes the group's cgroup.threads on the notify socket) is forked
//     from a thread of its own that first joins that group (writes "0"
//     to it) and ends with the launch, so the program is born in the
//     group, the host's CPU meter of the execution. See group.go.
//
// The init trusts nothing it reads from processes of the sandbox and reads
// nothing else from them; everything the host sends is checked (a malformed
// frame ends the connection).
package initproc
