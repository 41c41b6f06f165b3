// Package quota counts a workspace's executions against its execution
// quotas: executions started per minute, CPU time per UTC day, and the CPU
// limit each execution is granted. It is the one place those quotas are
// kept, for every process that starts executions: desk serve's API (and
// its workspace workers) and desk mcp --data, which serves a data
// directory without a server.
//
// # The quotas
//
// A Counter holds the defaults (Options: MaxExecsPerMinute,
// MaxCPUPerDay, MaxCPUPerExecution; zero: DefaultMaxExecsPerMinute,
// DefaultMaxCPUPerDay, DefaultMaxCPUPerExecution; negative: no bound),
// over which a workspace's own policy.Limits hold where they set a value
// (Effective). Counter.For returns a workspace's quotas as a run.Quota:
// a context carrying it (run.WithQuota) has every execution it starts
// counted where it starts (run.Exec asks Admit), given the workspace's CPU
// limit per execution, and its CPU time (run.Usage.CPUTime, the backend's
// meter) charged to the workspace's day when it ends.
//
// A refusal wraps run.ErrQuota and says which quota, where it comes from
// (the workspace's limits or the server's flag) and when to retry: the API
// answers it 429 too_many, the tools busy.
//
// # Counting
//
// Executions per minute are counted in a fixed window of one Unix minute,
// CPU in the UTC day. The counts live in the process: with
// Options.Journal (the audit journal), the day's CPU is read back from its
// execution records (argument cpu_us) the first time a workspace is seen
// in a day, so a restarted worker or a desk mcp --data after a desk serve
// on the same data directory does not start the day from zero. Without a
// journal the day counts this process's executions only. A Counter keeps
// at most MaxWorkspaces workspaces' counts; past it, it forgets them all
// (and reads the day back from the journal again).
package quota
