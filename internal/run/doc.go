// Package run is the execution framework: one entry point, Runtime.Exec, that
// routes source to a backend by id, and the durable, observable, killable,
// re-attachable executions it creates. The backend defines the language of the
// source (bash for shell and sandbox, an ES module for js); run defines
// everything around it.
//
// # Concepts
//
// A Backend runs one Job: source, cwd, environment, stdin, optional JSON input,
// and the workspace store; it writes output to the job's Stdout and Stderr and
// returns an Outcome (exit code, optional JSON value, optional resource usage)
// or an error. Backends
// live in their own packages and assert the interface:
//
//	var _ run.Backend = (*Backend)(nil)
//
// A Runtime holds the backends of one workspace store and its executions.
// Open it on a store, Close it before closing the store; one Runtime per store.
//
// An Execution has an id (chosen by the caller or generated; generated ids
// sort by start time), a durable record (Info), a numbered event stream
// (stdout, stderr, then one exit event), and, once ended, a Result: status,
// exit code, kept stdout and stderr, optional JSON value, start and end times,
// the backend that ran it, and the workspace paths it created, modified and
// deleted (Changes).
//
// # Lifecycle
//
//	Exec ─► running ─┬─► completed   the backend returned an Outcome (any exit code)
//	                 ├─► failed      the backend returned an error or panicked, its value
//	                 │               was invalid, or the server stopped (exit code 125)
//	                 ├─► cancelled   Kill (exit code 128+signal, the signal recorded)
//	                 ├─► timed-out   the timeout elapsed (exit code 124)
//	                 └─► cpu-limit   the execution used its CPU limit (exit code 152)
//
// Exec validates the options, asks Options.Admit (fair shares, if set),
// reserves a slot (Options.MaxRunning, else ErrBusy), stores the record as
// running and starts the backend on its own
// goroutine; a supervisor goroutine writes output to the store and records the
// end. Kill, the timeout and Close cancel the backend's ctx with a cause
// (*KillError, ErrTimedOut, ErrStopped) that decides the status, whatever the
// backend then returns. A backend that has not returned Options.KillGrace
// after its ctx was cancelled is abandoned: the execution is recorded as ended
// (the error says so) and the backend's later output is refused. When the end
// is durable, what Admit admitted is released (once the backend has also
// returned), then the exit event is visible, the execution leaves the
// running set and Done is closed; Wait returns then. Ended executions can be read (Get, List, Attach) until they are
// disposed (Dispose; a running one is refused with ErrRunning: kill, wait,
// then dispose) or pruned.
//
// # Detached executions
//
// ExecOptions.Detached starts a detached execution: a long-running program
// (a service) whose processes outlive its main process. Only a backend that
// implements Detacher runs one (the sandbox); others refuse it with
// ErrInvalid, and AutoBackend picks the first Detacher (by id) the caller
// may use, without asking the Router. It is an ordinary execution in every
// other way: a record (Info.Detached set), listed as running, its output in
// its events under the same head-and-tail cap (so a service's log does not
// grow the store: at most OutputLimit of it is kept, plus evicted tail
// events not yet deleted, at most a quarter of the tail), killed by Kill,
// stopped by Close.
// Differences:
//
//   - Exec returns once the backend called started (the program runs), or
//     once the execution ended if it ended first; a ctx that ends before
//     either kills it and Exec returns ctx's error.
//   - The backend's RunDetached returns when the main process has exited,
//     its output has ended and no process of the execution is left (or when
//     ctx is done: it stops them all, as Run does).
//   - Its timeout is Options.DetachedTimeout (default 24h) when it asks for
//     none, and at most that; MaxTimeout and TimeoutBounds do not apply.
//   - It counts against Options.MaxDetached (default 8), not MaxRunning.
//   - It takes no stdin and is not foreground (ErrInvalid).
//
// WithStarted makes Exec hand each execution it starts to a function of
// the caller's before it returns: a call that starts one (an agent's exec
// tool) records its end, a detached one's long after the call.
//
// # Standard input, and foreground executions
//
// ExecOptions.Stdin is a reader the backend reads while it runs (Job.Stdin,
// bounded by Options.MaxStdinBytes, which has no bound by default). With
// ExecOptions.StdinStream the stdin arrives after the start instead:
// Execution.CopyStdin copies one reader, of any size, into an io.Pipe whose
// other end is the job's stdin, so each write returns when the backend has
// read it: the source is read at the backend's pace, with at most one copy
// buffer in flight, whatever the size. Its end (EOF) is the program's end of
// input; a source that fails, or a CopyStdin whose ctx ends, ends the
// program's stdin with that error. When the execution's ctx ends (it ended,
// was killed, timed out, the Runtime closed) the pipe's reader is closed:
// a backend blocked reading stdin returns, and CopyStdin returns
// ErrNotRunning with what was taken. One CopyStdin per execution
// (ErrStdinTaken).
//
// ExecOptions.Foreground ties an execution to a client: Execution.Hold marks
// it as followed until the returned release is called (holds nest); when
// nobody holds it for Options.ForegroundGrace (default 10 s), from its start
// or from the last release, it is killed with SIGHUP, its KillError (and so
// its record's error) saying why. Adapters hold it while they stream its
// events, feed its stdin or wait for it on the client's behalf, so a client
// that goes away — killed, or its connection lost for good — leaves nothing
// running, while one that reconnects within the grace period keeps it. The
// timer is re-armed per release with a generation number, so a stale one
// does nothing. Neither is allowed with Detached (ErrInvalid).
//
// # Environment
//
// A backend sees only the environment run gives it: DefaultEnv (PATH, HOME,
// LANG, TERM), or Options.Env instead, overlaid with ExecOptions.Env, plus
// DESK_EXEC_ID. The host process's environment is never passed on. Env, stdin
// and input are not stored in the record (they may carry secrets); the source
// is.
//
// # Events
//
// Events are numbered from 1 in the order they happened; the exit event is
// last. Output is cut into events of at most 32 KiB (less for small output
// caps). A Stream reads events from any number on, with Stream.Next: for an
// ended execution from the store, for a running one from memory and then live,
// so a reader that attaches while output flows gets every event once, in
// order, with no gap (the replay and the live part are read under the same
// lock). Any number of readers may attach; readers never slow the backend.
//
// # Output cap: head and tail
//
// An execution keeps at most its OutputLimit (default 1 MiB) of output,
// counting each event's data plus 32 bytes: the first half (the head) and the
// last half (the tail). When the tail is full its oldest events are evicted.
// Evicted events are represented by an elided marker (EventElided) whose Seq
// is the number of the last event it stands for, whose First is the first, and
// whose Bytes counts their output; every event carries the stdout and stderr
// offsets at which it starts, so elided byte counts are exact. Result.Stdout
// and Result.Stderr show "[... N bytes elided ...]" on a line where output was
// elided, and StdoutElided/StderrElided count it. A live reader of Events
// that stays within the tail of the writer sees every event; one that falls
// further behind gets a marker for exactly what it missed, as a replay would.
//
// A reader that must see every byte (a client attached to a live execution:
// the API's event stream) uses Follow (Runtime.Follow): until it closes its
// Stream, the tail in memory keeps every event it has not read, and when
// keeping more would pass the cap the program's write waits for it
// (backpressure: the program blocks in write(2), as on a slow terminal). A
// foreground execution's output waits so from its start until its first
// client holds it or follows it (desk exec starts it, then attaches). The
// stored record keeps its head and tail whatever the followers do (the tail
// may pass its cap by one chunk per waiting writer, 32 KiB); events elided
// before a follower came stay elided for it; a killed or timed-out execution
// stops waiting.
//
// # Changes
//
// Every backend call on the store made with the job's ctx is recorded in the
// change journal with the execution id as actor (vfs.WithActor). When the
// backend returns, the journal entries with that actor between the store's
// sequence number at start (Info.JournalStart) and at the end (JournalEnd) are
// collapsed per path into created, modified and deleted paths (see Changes).
// Changes made concurrently by others (API writes, other executions) are not
// included. Paths are the store's.
//
// # Persistence: what is durable when
//
// Everything lives in the workspace database, as vfs records and logs:
//
//	kind "exec",      id: the record (Info as JSON); its log: the head events
//	kind "exec.tail", id: no record; its log: the tail events and the exit event
//	kind "exec.live", id: an empty record while the execution runs
//
// The tail has a log of its own because vfs logs can only be trimmed from the
// front. Each log entry is one event in a compact binary encoding (a version
// byte, a type byte, varints for number, time and offsets, then the data or,
// for exit, JSON). When Exec returns, the record (status running) is durable.
// Output is written in batches: at most Options.FlushInterval (50 ms) after it
// was produced, as soon as Options.FlushBytes (64 KiB) are waiting, and at the
// end; tail events evicted after they were written are deleted from the tail
// log lazily (when they exceed a quarter of the tail) and exactly at the end.
// The end (remaining output, exit event, final record, removal of the
// "exec.live" marker) is one transaction, durable before Wait returns, so a
// crash never loses a final state that Wait reported (if the end cannot be
// stored, Wait returns the error with the result). A crash of the process
// (kill -9) loses only the output of the last flush interval of the
// executions that were running; power loss may also lose the last commits, as
// for every store write. An execution's file changes (through Job.FS, a
// vfs.FS.WithBatching handle) share commits: each is visible to every reader
// at once, and durable at most Options.CommitDelay (50 ms) after it was made,
// earlier when anything else commits (an output flush, File.Sync, a durable
// write by anyone), and in every case before the execution's end is
// recorded (finish commits, then reads the journal for Changes). A kill -9
// loses at most the newest changes of that span, in order. On Open, every execution with an "exec.live"
// marker whose record says running is recorded as failed with the error "desk
// server stopped while the execution was running", an exit event numbered
// after the last stored one, an end time equal to its last stored event's (or
// its start), and a change set marked Truncated (it was not computed). After a
// crash the stored tail may have more than one elided stretch (events evicted
// from memory but not yet deleted); replay shows a marker for each.
//
// # Retention
//
// Ended executions are kept up to Options.MaxRecords (default 1000, the
// newest by end time) and Options.MaxAge (default 7 days). Pruning runs after
// every execution ends and before List; the first prune of a Runtime reads the
// end time of every record once (kept in memory afterwards). Running
// executions are never pruned.
//
// # CPU time
//
// A backend exposes a meter of its execution's CPU time (Job.MeterCPU; the
// shell and js use a ThreadMeter: the CPU clocks of the threads their
// goroutines are locked to). run reads it every twentieth of the
// execution's CPU limit (10 ms to 1 s) and cancels the backend's ctx with
// ErrCPULimit once it reads the limit or more: the execution ends as
// StatusCPULimit, exit code ExitCPULimit (152), its error naming the limit;
// the enforcement is here only, never in a backend. The limit is
// Options.MaxCPU (default 10 minutes; negative: none), replaced by the
// grant of the Quota the Exec context carries (WithQuota: the API's
// workspace quotas, which may also refuse the execution with ErrQuota and
// are told of its end), lowered by ExecOptions.MaxCPU; Info.MaxCPU records
// it. The meter's reading after the backend returned is Usage.CPU. A
// backend without a meter is not bounded (the sandbox meters each
// execution with a cgroup of its own, where the host has cgroup v2).
//
// # Limits and errors
//
// Every limit is an Options field with a documented default: concurrent
// executions and concurrent detached ones (ErrBusy), timeout default and
// maximum (ErrTimeoutTooLong; a backend implementing TimeoutBounds has its
// own, within run's maximum; detached executions have DetachedTimeout),
// source, input, environment and stdin size, output-limit maximum
// (ErrTooLarge), value size (the execution fails), change-set size (marked
// Truncated), record count and age. Errors are wrapped "verb noun: %w" around
// the exported sentinels; adapters map them with errors.Is (each sentinel's
// documentation suggests an HTTP status and errno).
//
// # Locks and their order
//
//   - Runtime.mu guards the running and reserved sets (a reserved id maps to
//     whether it is detached, for MaxDetached) and the closed flag.
//     Execution.mu guards an execution's events, counters and record. The two
//     are never held together (List and Get read an execution after Lookup
//     released Runtime.mu; an execution's end releases Execution.mu before
//     taking Runtime.mu), and neither is held across store calls or while
//     waiting.
//   - Runtime.pmu serialises pruning and is taken before Runtime.imu, which
//     guards the index of end times and is held while the index is first
//     loaded from the store. Both are taken only by pruning, by an execution's
//     end (imu, after Runtime.mu is released) and by Dispose.
//
// A backend must not call Runtime methods that wait for its own execution
// (Wait on itself would never return) and must close every vfs.File it opened
// before returning (handle writes flushed later fall outside the window of the
// change set, and are attributed to whoever flushes them).
//
// # Policy
//
// Options.Gate decides each execution before admission. PolicyGate is the
// one desk uses (package policy): the workspace's stored rules, then the
// layers Exec's context carries (a token's); a bash execution (every
// backend but js) whose script a rule denies fails with policy.ErrDenied,
// one a rule asks about waits in policy.Approvals until approved (then
// starts), denied or timed out; the execution's context carries the path
// rules (vfs.WithAccess, through a policy.Checker) for every store call
// its backend makes. See policy.go.
package run
