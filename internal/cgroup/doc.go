// Package cgroup puts a process under a control group of its own with a
// memory limit, a CPU weight and a pids limit, on cgroup v1 (each
// controller its own hierarchy, including the hybrid layout with a
// controller-less v2 mount), or on the unified v2 hierarchy.
//
// # Where groups go
//
// New makes the group as a child of the calling process's own cgroup, in
// each controller's hierarchy (v1: /sys/fs/cgroup/<controller>/<own
// path>/<name>; v2: /sys/fs/cgroup/<own path>/<name>). Nesting under the
// caller keeps whatever bounds the caller itself is under (a service
// manager's, a test's) over its children too.
//
// On v2 a cgroup with processes of its own cannot enable controllers for
// its children (the "no internal processes" rule). When enabling them
// fails that way, New moves the calling process into a leaf child named
// "desk-self" of its cgroup first, then enables memory, cpu and pids for
// the children, as runc and systemd do for the groups they delegate.
//
// # Limits
//
//   - Memory (Limits.MemoryBytes): v1 memory.limit_in_bytes (and
//     memory.memsw.limit_in_bytes to the same value where swap accounting
//     exists, so the group cannot swap past it); v2 memory.max, with
//     memory.swap.max 0. Past it the kernel's OOM killer kills a process of
//     the group; OOMKills counts those kills (v1 memory.oom_control's
//     oom_kill, v2 memory.events' oom_kill).
//   - CPU (Limits.CPUWeight, 1 to 10000, 100 the default share): v2
//     cpu.weight; v1 cpu.shares = weight × 1024 / 100 (1024 is v1's
//     default). A weight is a share under contention, not a cap: an idle
//     machine lets a group use every core.
//   - Pids (Limits.Pids): pids.max, the tasks (threads included) the group
//     may hold at once.
//
// A zero field leaves that controller's default (no limit, the default
// weight). A controller whose hierarchy is missing is skipped if its limit
// is zero and is an error otherwise (ErrUnsupported), so a limit the caller
// asked for is never silently dropped.
//
// # Lifetime
//
// Add moves a process (all its threads) into the group. Remove deletes the
// group's directories; the kernel refuses (EBUSY) while a process is still
// in it, so remove it after the processes have exited and been reaped.
//
// # Errors
//
// Wrapped "verb noun: %w" around the *fs.PathError of the cgroup file
// involved (EACCES without the rights to manage cgroups, EBUSY, ENOENT).
package cgroup
