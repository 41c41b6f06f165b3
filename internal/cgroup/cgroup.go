package cgroup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/moby/sys/mountinfo"
)

// Root is where the cgroup hierarchies are mounted.
const Root = "/sys/fs/cgroup"

// ErrUnsupported: a limit was asked for a controller the host does not have.
var ErrUnsupported = errors.New("cgroup controller not available")

// Limits are a group's bounds; a zero field leaves the controller's default.
type Limits struct {
	MemoryBytes int64 // the group's memory, page cache included
	CPUWeight   int   // 1 to 10000; 100 is everyone's default share
	Pids        int64 // tasks at once
}

// Group is a control group made by New.
type Group struct {
	v2   bool
	dirs []string // v1: one per controller; v2: one
	oom  string   // the file whose oom_kill line counts OOM kills ("" unknown)
}

// controllers are the v1 hierarchies a Group uses.
var controllers = []string{"memory", "cpu", "pids"}

// New makes the group name under the calling process's cgroup (see the
// package documentation) with limits l.
func New(name string, l Limits) (*Group, error) {
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return nil, fmt.Errorf("make cgroup %q: %w", name, syscall.EINVAL)
	}
	if l.MemoryBytes < 0 || l.Pids < 0 || l.CPUWeight < 0 || l.CPUWeight > 10000 {
		return nil, fmt.Errorf("make cgroup %s: limits out of range: %w", name, syscall.EINVAL)
	}
	own, err := ownPaths()
	if err != nil {
		return nil, fmt.Errorf("make cgroup %s: %w", name, err)
	}
	if unified() {
		return newV2(name, own[""], l)
	}
	return newV1(name, own, l)
}

// unified reports whether Root is the cgroup v2 hierarchy itself.
func unified() bool {
	var st syscall.Statfs_t
	return syscall.Statfs(Root, &st) == nil && st.Type == 0x63677270 // CGROUP2_SUPER_MAGIC
}

// ownPaths reads the calling process's cgroups: controller → path.
func ownPaths() (map[string]string, error) { return Paths(0) }

// Paths reads /proc/PID/cgroup (pid 0: the calling process): controller →
// the process's path in that hierarchy ("" for the v2 hierarchy,
// "name=systemd" for a named one). A process that is gone gives an error
// wrapping fs.ErrNotExist.
func Paths(pid int) (map[string]string, error) {
	file := "/proc/self/cgroup"
	if pid != 0 {
		file = "/proc/" + strconv.Itoa(pid) + "/cgroup"
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read cgroups: %w", err)
	}
	m := map[string]string{}
	for line := range strings.Lines(string(b)) {
		parts := strings.SplitN(strings.TrimRight(line, "\n"), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			m[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			m[c] = parts[2]
		}
	}
	return m, nil
}

// Dirs maps the controllers of process pid (as Paths names them) to the
// directories of its cgroups, where the mount table shows those
// hierarchies mounted. It is empty when the process is gone.
func Dirs(pid int) map[string]string {
	out := map[string]string{}
	paths, err := Paths(pid)
	if err != nil {
		return out
	}
	mounts := Mounts()
	for controller, p := range paths {
		if m, ok := mounts[controller]; ok {
			out[controller] = filepath.Join(m.Point, strings.TrimPrefix(p, m.Root))
		}
	}
	return out
}

// Mount is where a cgroup hierarchy is mounted: Point shows the
// hierarchy's directory Root.
type Mount struct{ Point, Root string }

// Mounts maps controllers ("" for the v2 hierarchy, "name=X" for a named
// v1 one) to the first mount of their hierarchy in this process's mount
// table.
func Mounts() map[string]Mount {
	out := map[string]Mount{}
	ms, _ := mountinfo.GetMounts(mountinfo.FSTypeFilter("cgroup", "cgroup2"))
	for _, mi := range ms {
		m := Mount{Point: mi.Mountpoint, Root: mi.Root}
		switch mi.FSType {
		case "cgroup2":
			if _, seen := out[""]; !seen {
				out[""] = m
			}
		case "cgroup":
			for _, opt := range strings.Split(mi.VFSOptions, ",") {
				if _, seen := out[opt]; !seen {
					out[opt] = m
				}
			}
		}
	}
	return out
}

// ReadKey reads the value of key in a cgroup file of "key value" lines
// (memory.events, pids.events, memory.oom_control); 0 when the file or the
// key is missing.
func ReadKey(file, key string) int64 {
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

func newV1(name string, own map[string]string, l Limits) (*Group, error) {
	g := &Group{}
	want := map[string]bool{"memory": l.MemoryBytes > 0, "cpu": l.CPUWeight > 0, "pids": l.Pids > 0}
	for _, c := range controllers {
		base := filepath.Join(Root, c)
		p, ok := own[c]
		if !ok || !isDir(base) {
			if want[c] {
				return nil, fmt.Errorf("make cgroup %s: %s: %w", name, c, ErrUnsupported)
			}
			continue
		}
		dir := filepath.Join(base, p, name)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			g.Remove()
			return nil, fmt.Errorf("make cgroup %s: %w", name, err)
		}
		g.dirs = append(g.dirs, dir)
		var err error
		switch c {
		case "memory":
			g.oom = filepath.Join(dir, "memory.oom_control")
			if l.MemoryBytes > 0 {
				err = write(dir, "memory.limit_in_bytes", l.MemoryBytes)
				if err == nil && exists(filepath.Join(dir, "memory.memsw.limit_in_bytes")) {
					err = write(dir, "memory.memsw.limit_in_bytes", l.MemoryBytes)
				}
			}
		case "cpu":
			if l.CPUWeight > 0 {
				err = write(dir, "cpu.shares", max(2, int64(l.CPUWeight)*1024/100))
			}
		case "pids":
			if l.Pids > 0 {
				err = write(dir, "pids.max", l.Pids)
			}
		}
		if err != nil {
			g.Remove()
			return nil, fmt.Errorf("make cgroup %s: %w", name, err)
		}
	}
	return g, nil
}

func newV2(name, own string, l Limits) (*Group, error) {
	parent := filepath.Join(Root, own)
	if err := enableV2(parent); err != nil {
		return nil, fmt.Errorf("make cgroup %s: %w", name, err)
	}
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("make cgroup %s: %w", name, err)
	}
	g := &Group{v2: true, dirs: []string{dir}, oom: filepath.Join(dir, "memory.events")}
	var err error
	if l.MemoryBytes > 0 {
		err = write(dir, "memory.max", l.MemoryBytes)
		if err == nil && exists(filepath.Join(dir, "memory.swap.max")) {
			err = write(dir, "memory.swap.max", 0)
		}
	}
	if err == nil && l.CPUWeight > 0 {
		err = write(dir, "cpu.weight", int64(l.CPUWeight))
	}
	if err == nil && l.Pids > 0 {
		err = write(dir, "pids.max", l.Pids)
	}
	if err != nil {
		g.Remove()
		return nil, fmt.Errorf("make cgroup %s: %w", name, err)
	}
	return g, nil
}

// enableV2 turns on memory, cpu and pids for parent's children, first
// moving this process into a leaf "desk-self" if parent holds processes.
func enableV2(parent string) error {
	ctl := filepath.Join(parent, "cgroup.subtree_control")
	have, _ := os.ReadFile(ctl)
	missing := ""
	for _, c := range controllers {
		if !bytes.Contains(have, []byte(c)) {
			missing += " +" + c
		}
	}
	if missing == "" {
		return nil
	}
	err := os.WriteFile(ctl, []byte(strings.TrimSpace(missing)), 0)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.EBUSY) {
		return err
	}
	leaf := filepath.Join(parent, "desk-self")
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := write(leaf, "cgroup.procs", int64(os.Getpid())); err != nil {
		return err
	}
	return os.WriteFile(ctl, []byte(strings.TrimSpace(missing)), 0)
}

// RemoveStale removes the groups below the calling process's own cgroup
// (in every hierarchy New uses) whose name stale approves, with what they
// hold, where nothing runs in them any more; a group in use stays (EBUSY is
// not an error). It returns how many it removed. A server uses it at start
// for the groups a killed predecessor could not remove.
func RemoveStale(stale func(name string) bool) (int, error) {
	own, err := ownPaths()
	if err != nil {
		return 0, fmt.Errorf("remove stale cgroups: %w", err)
	}
	var parents []string
	if unified() {
		parents = []string{filepath.Join(Root, own[""])}
	} else {
		for _, c := range controllers {
			if p, ok := own[c]; ok {
				parents = append(parents, filepath.Join(Root, c, p))
			}
		}
	}
	n := 0
	for _, parent := range parents {
		ents, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() || !stale(e.Name()) {
				continue
			}
			if err := RemoveTree(filepath.Join(parent, e.Name())); err == nil {
				n++
			} else if !errors.Is(err, syscall.EBUSY) && !errors.Is(err, os.ErrNotExist) {
				return n, fmt.Errorf("remove stale cgroups: %w", err)
			}
		}
	}
	return n, nil
}

// Add moves process pid, with all its threads, into the group.
func (g *Group) Add(pid int) error {
	for _, d := range g.dirs {
		if err := write(d, "cgroup.procs", int64(pid)); err != nil {
			return fmt.Errorf("add process %d to cgroup: %w", pid, err)
		}
	}
	return nil
}

// OOMKills is the number of processes of the group the OOM killer has
// killed (0 where the kernel does not count them).
func (g *Group) OOMKills() int64 { return ReadKey(g.oom, "oom_kill") }

// Dirs are the group's directories (one per v1 controller, one on v2).
func (g *Group) Dirs() []string { return g.dirs }

// Remove deletes the group's directories, and the groups its processes
// made below it (a runtime's parent directory, say), deepest first. It
// fails with EBUSY while a process is still in one of them.
func (g *Group) Remove() error {
	var errs []error
	for _, d := range g.dirs {
		if err := RemoveTree(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove cgroup: %w", err))
		}
	}
	return errors.Join(errs...)
}

// RemoveTree removes the cgroup dir and its child groups, deepest first.
// Only directories are removed: a cgroup's files go with it. It fails with
// EBUSY while a process is in one of them.
func RemoveTree(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			if err := RemoveTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return os.Remove(dir)
}

func write(dir, file string, v int64) error {
	return os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(v, 10)), 0)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
