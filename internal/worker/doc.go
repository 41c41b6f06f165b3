// Package worker runs each active workspace of desk serve in a worker
// process of its own, so that no workspace can take down, starve or slow
// the others: a worker's crash or OOM kill ends only that workspace's
// running executions, and the next request starts a new worker.
//
// # Two sides
//
// The front (desk serve's process) keeps the listeners, authentication,
// routing and the lifecycle; a Pool starts, feeds and stops the workers.
// The worker (the hidden command `desk worker`, the same binary) opens one
// workspace — its store, run framework and backends, the sandbox's FUSE
// mount included — and serves the requests that use it. Between them:
//
//   - Requests: plain HTTP/1.1 on a Unix socket (SocketDir/WS.sock, mode
//     0600 in a 0700 directory), the API's own requests forwarded by the
//     front (Proxy, Transport) with the principal it authenticated. Every
//     request carries the worker's key (HeaderKey, 32 random bytes given at
//     start): a worker serves nothing else (CheckKey). Streams, event
//     streams and protocol upgrades (the interactive shell's WebSocket)
//     pass through unchanged.
//   - Control: one JSON object per line on the worker's stdin (parent to
//     worker) and stdout (worker to parent). The parent's first line is the
//     key ({"key"}). The worker says {"ready"} once it listens, and
//     {"idle"} when its workspace hibernated (nothing open, nothing
//     running). The parent says {"exit":"idle"} (exit if still idle; the
//     worker answers {"busy"} otherwise) or {"exit":"stop"} (exit now:
//     executions are stopped and recorded, the store closed). The end of
//     stdin means the parent is gone: the worker exits as on "stop", so a
//     desk serve killed with SIGKILL leaves no worker holding a store.
//   - Slots: the host-wide slots of the fair shares (package fair), asked
//     of the parent's fair.Pool (Options.Slots) by the worker's Slots, a
//     fair.Host. The worker says {"acquire":{"id","kind","reclaimable"}}
//     and the parent answers {"grant":{"id","slot"}} or {"grant":{"id",
//     "refused":{"kind","held","max","setting"}}} (the worker makes that a
//     *fair.LimitError); the worker gives a slot back with {"release":N}
//     and marks a reclaimable one idle or busy with {"slot_idle":{"slot",
//     "idle"}}; the parent asks for an idle one back with {"reclaim":N}.
//     The parent accepts a release or a mark only from the worker holding
//     the slot, and gives back every slot of a worker that exits or dies
//     before its exit is reported (OnExit). The worker's reader answers
//     slot lines itself, so they never wait behind the lifecycle's.
//   - Counts: the worker reports each execution started through its API
//     with {"exec":{"backend"}} and its end with {"exec":{"backend",
//     "status"}}; the parent counts them (Pool.Executions) for the front's
//     /metrics, and takes a dead worker's running ones out.
//
// Both are byte streams a network could carry: a cluster can put workers
// on other hosts by replacing the socket with a TLS connection and the
// pipe with a control stream (see docs/decisions.md).
//
// # Lifecycle
//
// A request for a workspace without a worker starts one (concurrent
// requests wait for the same start). A worker counts as busy from the start
// of each forwarded request until its response body is closed. Hibernation
// is two-phase: the worker offers ({"idle"}); the pool asks it to exit only
// when no request is in flight (else when the last one ends), and the
// worker exits only if it is still idle then. While an exit is asked,
// new requests wait; they go on with the same worker if it answers busy,
// or with a new one once it has exited (a store is never open in two
// processes: each worker also holds the store's flock).
//
// An exit the pool did not ask for is a crash: the pool logs why (the exit
// status; an OOM kill is told by the cgroup's oom_kill counter), requests in
// flight fail with ErrExited saying so, and the next worker of the
// workspace gets the reason (--recovered), which its run framework records
// on the executions the dead one left running.
//
// # Limits
//
// With Options.Cgroups each worker is moved, before it does anything (it
// waits for its key), into a cgroup of its own below desk serve's (package
// cgroup): Limits.MemoryBytes, CPUWeight and Pids. The sandbox's cgroups
// are made below the worker's, so the memory and pids limits bound the
// workspace as a whole. A group is named after the server's pid and the
// worker's (desk-worker-SERVER-WORKER); a new pool removes the groups of
// servers that no longer run (a server killed with SIGKILL cannot remove
// its workers' groups). OOMScoreAdj makes the kernel take a worker before
// desk serve when the whole machine runs out. MaxWorkers bounds the
// workers alive at once (ErrTooMany past it).
//
// # Errors
//
// ErrClosed, ErrInUse (Stop with requests in flight), ErrTooMany, ErrExited
// (wrapping why the worker died), each wrapped "verb noun: %w".
package worker
