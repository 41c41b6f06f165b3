package sandbox

import (
	"path/filepath"

	"github.com/desk-dev/desk/internal/cgroup"
)

// counters are the cgroup event counters the backend reads around each
// execution to tell why a program died: the OOM killer, or a fork refused by
// the pids limit. Empty paths (not found) read as zero.
type counters struct {
	oomFile  string // memory.oom_control (v1) or memory.events (v2): "oom_kill N"
	pidsFile string // pids.events: "max N"
}

// snapshot is the counters' values at one moment.
type snapshot struct{ oomKills, pidsMax int64 }

func (c counters) read() snapshot {
	return snapshot{oomKills: cgroup.ReadKey(c.oomFile, "oom_kill"), pidsMax: cgroup.ReadKey(c.pidsFile, "max")}
}

// findCounters finds the cgroup files of the process pid (the sandbox's init)
// on a cgroup v1, v2 or hybrid host.
func findCounters(pid int) counters {
	dirs := cgroup.Dirs(pid)
	var c counters
	if d := dirs["memory"]; d != "" {
		c.oomFile = filepath.Join(d, "memory.oom_control")
	} else if d := dirs[""]; d != "" {
		c.oomFile = filepath.Join(d, "memory.events")
	}
	if d := dirs["pids"]; d != "" {
		c.pidsFile = filepath.Join(d, "pids.events")
	} else if d := dirs[""]; d != "" {
		c.pidsFile = filepath.Join(d, "pids.events")
	}
	return c
}
