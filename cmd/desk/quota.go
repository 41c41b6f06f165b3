package main

import (
	"flag"
	"strconv"
	"time"

	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/workspace"
)

// quotaFlags are the per-workspace quotas of desk serve, passed on to its
// workers: a workspace's bytes and inodes (its store's QuotaBytes and
// MaxInodes: EDQUOT past them), executions per minute and CPU per day
// (api.Options: 429 too_many past them), CPU per execution (api.Options:
// the execution is stopped past it).
type quotaFlags struct {
	bytes, inodes *int64
	execs         *int
	cpuDay        *time.Duration
	cpuExec       *time.Duration
}

func addQuotaFlags(fl *flag.FlagSet) quotaFlags {
	return quotaFlags{
		bytes:   fl.Int64("workspace-max-bytes", vfs.DefaultQuotaBytes, "each workspace's unique content bytes (EDQUOT past it)"),
		inodes:  fl.Int64("workspace-max-inodes", vfs.DefaultMaxInodes, "each workspace's files, directories and symlinks (EDQUOT past it)"),
		execs:   fl.Int("max-execs-per-minute", api.DefaultMaxExecsPerMinute, "executions each workspace may start per minute (429 too_many past it; negative: no bound)"),
		cpuDay:  fl.Duration("max-cpu-per-day", api.DefaultMaxCPUPerDay, "CPU time each workspace's executions may use per UTC day, every backend's (429 too_many for new executions past it; negative: no bound)"),
		cpuExec: fl.Duration("max-cpu-per-execution", api.DefaultMaxCPUPerExecution, "CPU time one execution may use (the shell's and js's goroutines, the sandbox program and its descendants; past it the execution is stopped: status cpu-limit, exit code 152; negative: no bound)"),
	}
}

func (q quotaFlags) check() error {
	if *q.bytes <= 0 || *q.inodes <= 0 {
		return usagef("--workspace-max-bytes and --workspace-max-inodes must be positive")
	}
	return nil
}

// vfs returns the store options the quotas set.
func (q quotaFlags) vfs() vfs.Options {
	return vfs.Options{QuotaBytes: *q.bytes, MaxInodes: *q.inodes}
}

// workspace returns o with the store quotas.
func (q quotaFlags) workspace(o workspace.Options) workspace.Options {
	o.VFS.QuotaBytes, o.VFS.MaxInodes = *q.bytes, *q.inodes
	return o
}

// apply sets the execution quotas of o.
func (q quotaFlags) apply(o *api.Options) {
	o.MaxExecsPerMinute, o.MaxCPUPerDay, o.MaxCPUPerExecution = *q.execs, *q.cpuDay, *q.cpuExec
}

// args is the flags for a worker's command line.
func (q quotaFlags) args() []string {
	return []string{"--workspace-max-bytes", strconv.FormatInt(*q.bytes, 10), "--workspace-max-inodes", strconv.FormatInt(*q.inodes, 10),
		"--max-execs-per-minute", strconv.Itoa(*q.execs), "--max-cpu-per-day", q.cpuDay.String(), "--max-cpu-per-execution", q.cpuExec.String()}
}
