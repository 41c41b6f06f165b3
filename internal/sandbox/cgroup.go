package sandbox

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	return snapshot{oomKills: readKey(c.oomFile, "oom_kill"), pidsMax: readKey(c.pidsFile, "max")}
}

// readKey reads "key value" lines of a cgroup file.
func readKey(file, key string) int64 {
	if file == "" {
		return 0
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		k, v, ok := bytes.Cut(bytes.TrimSpace(line), []byte(" "))
		if ok && string(k) == key {
			n, _ := strconv.ParseInt(string(v), 10, 64)
			return n
		}
	}
	return 0
}

// findCounters finds the cgroup files of the process pid (the sandbox's init)
// on a cgroup v1, v2 or hybrid host.
func findCounters(pid int) counters {
	dirs := cgroupDirs(pid)
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

// cgroupDirs maps the controllers of the process pid ("" for the v2
// hierarchy, "name=systemd" for a named one) to the directories of its
// cgroups (none when it is gone).
func cgroupDirs(pid int) map[string]string {
	out := map[string]string{}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return out
	}
	groups := map[string]string{} // controller → path
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			groups[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			groups[c] = parts[2]
		}
	}
	f.Close()
	mounts := cgroupMounts()
	for controller, p := range groups {
		if m, ok := mounts[controller]; ok {
			out[controller] = filepath.Join(m.point, strings.TrimPrefix(p, m.root))
		}
	}
	return out
}

type cgroupMount struct{ point, root string }

// cgroupMounts maps controllers ("" for the v2 hierarchy) to their mount.
func cgroupMounts() map[string]cgroupMount {
	out := map[string]cgroupMount{}
	ms, _ := readMountinfo()
	for _, mi := range ms {
		m := cgroupMount{point: mi.point, root: mi.root}
		switch mi.fstype {
		case "cgroup2":
			if _, seen := out[""]; !seen {
				out[""] = m
			}
		case "cgroup":
			for _, opt := range strings.Split(mi.superOpts, ",") {
				if _, seen := out[opt]; !seen {
					out[opt] = m
				}
			}
		}
	}
	return out
}
