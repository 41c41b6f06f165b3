package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/cgroup"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox/notify"
	"github.com/desk-dev/desk/internal/sandbox/wire"
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

// CPU time per execution (see "CPU time" in the package documentation):
// each execution runs in a cgroup of its own, a threaded child of the
// sandbox's cgroup on the v2 hierarchy, whose cpu.stat usage_usec (kept
// by the kernel in every v2 group, with or without the cpu controller) is
// the execution's meter (run.Job.MeterCPU): every process and thread the
// program and its descendants ran, those that ended included.

// execGroup is one execution's cgroup.
type execGroup struct {
	x     *box
	dir   string
	token uint64 // names its descriptor to the init (wire.Start.Group)

	mu     sync.Mutex
	used   time.Duration // the last reading
	closed bool          // removed (or being removed): used is final
}

// newGroup makes an execution's cgroup and passes its cgroup.threads to the
// init. It returns nil when executions of this sandbox are not metered: no
// v2 hierarchy (a v1-only host), a group the kernel refused (logged once),
// or Backend.noCPUGroups.
func (x *box) newGroup() *execGroup {
	if x.cgDir == "" || x.b.noCPUGroups || x.ungrouped.Load() {
		return nil
	}
	n := x.groupSeq.Add(1)
	g := &execGroup{x: x, dir: filepath.Join(x.cgDir, execGroupPrefix+strconv.FormatUint(n, 10)), token: n}
	err := g.make()
	if err != nil {
		os.Remove(g.dir)
		if !x.isDead() {
			x.noGroups(err)
		}
		return nil
	}
	return g
}

// execGroupPrefix starts the name of every execution's cgroup.
const execGroupPrefix = "exec-"

// make makes the group threaded and passes its cgroup.threads to the init.
func (g *execGroup) make() error {
	if err := os.Mkdir(g.dir, 0o755); err != nil {
		return fmt.Errorf("make execution cgroup: %w", err)
	}
	// Threaded: so that one thread of the init may join it (cgroup.threads)
	// to fork the program into it. The sandbox's group, with no controller
	// enabled for its children, becomes the subtree's threaded domain.
	if err := os.WriteFile(filepath.Join(g.dir, "cgroup.type"), []byte("threaded"), 0); err != nil {
		return fmt.Errorf("make execution cgroup threaded: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(g.dir, "cgroup.threads"), os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open execution cgroup: %w", err)
	}
	defer f.Close() // the init gets a duplicate
	if err := notify.Pass(g.x.notify, g.token, int(f.Fd())); err != nil {
		return fmt.Errorf("pass execution cgroup: %w", err)
	}
	return nil
}

// noGroups stops making execution cgroups in this sandbox after err (its
// executions are then not metered, as on a host without cgroup v2).
func (x *box) noGroups(err error) {
	if !x.ungrouped.Swap(true) {
		x.b.log.Warn("sandbox: executions are not metered (no CPU limit per execution)", "id", x.id, "err", err)
	}
}

// id is the group's token for wire.Start.Group (0: no group).
func (g *execGroup) id() uint64 {
	if g == nil {
		return 0
	}
	return g.token
}

// meter makes the group job's CPU meter once the init reported the
// program's start in it (st); a program the init could not put in its
// group is not metered, and this sandbox makes no more groups.
func (g *execGroup) meter(job *run.Job, st wire.Started) {
	switch {
	case g == nil:
	case st.Ungrouped != "":
		g.x.noGroups(errors.New(st.Ungrouped))
	default:
		job.MeterCPU(g.cpu)
	}
}

// cpu reads the group's CPU time so far (the meter): never less than
// before, final once the group is closed.
func (g *execGroup) cpu() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.readLocked()
	}
	return g.used
}

func (g *execGroup) readLocked() {
	if v := time.Duration(cgroup.ReadKey(filepath.Join(g.dir, "cpu.stat"), "usage_usec")) * time.Microsecond; v > g.used {
		g.used = v
	}
}

// close takes the final reading and removes the group. A group a process
// is still in (one that left its execution's session while another
// execution runs, or one still exiting) is removed later: at a later
// close, or once the sandbox stopped.
func (g *execGroup) close() {
	if g == nil {
		return
	}
	g.mu.Lock()
	if !g.closed {
		g.readLocked()
		g.closed = true
	}
	g.mu.Unlock()
	g.x.removeGroups(g.dir)
}

// removeGroups removes the execution groups dirs and those left to remove
// before.
func (x *box) removeGroups(dirs ...string) {
	x.gmu.Lock()
	defer x.gmu.Unlock()
	left := x.lingering[:0]
	for _, d := range append(x.lingering, dirs...) {
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			left = append(left, d)
		}
	}
	x.lingering = left
}
