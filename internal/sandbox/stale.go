package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/cgroup"
	"github.com/desk-dev/desk/internal/fusefs"
)

// cgroupsFile, in a bundle, lists the sandbox's cgroup directories (one a
// line), written once its init runs: a server killed with -9 leaves them for
// the next one to find (New), whatever cgroup that one runs in.
const cgroupsFile = "cgroups"

// recordCgroups writes the cgroup directories of the init to the bundle:
// those named after the container (the runtime makes them below
// CgroupParent), never a parent shared with others.
func (x *box) recordCgroups() {
	var lines []string
	for _, d := range cgroup.Dirs(x.initPID) {
		if filepath.Base(d) == x.id && !slices.Contains(lines, d) {
			lines = append(lines, d)
		}
	}
	slices.Sort(lines)
	if err := os.WriteFile(filepath.Join(x.bundle.dir, cgroupsFile), []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		x.b.log.Warn("sandbox: cannot record the sandbox's cgroups", "id", x.id, "err", err)
	}
}

// cleanStale removes what a previous server on the same StateDir and
// RuntimeRoot left (a server killed with -9; New holds StateDir's lock, so
// no live server owns any of it). Everything is found through the backend's
// own directories, never by a process name alone:
//
//  1. every mount below MountDir and the writable roots' directory
//     (StateDir/roots, detached first): the FUSE connection of each is aborted
//     (fusectl), which wakes a process that waits on a dead server (or on
//     one whose /dev/fuse descriptor another process inherited) with
//     ENOTCONN, then all are detached;
//  2. the processes in the cgroups the bundles in StateDir recorded and in
//     the groups below them (the inits and their programs, in their
//     executions' groups) are killed;
//  3. the runtime's containers in RuntimeRoot are deleted by force;
//  4. runtime processes run with --root RuntimeRoot (an orphaned `runc run`)
//     are given StopTimeout to exit, then killed;
//  5. once their processes are gone, the recorded cgroups are removed, with
//     the groups below them;
//  6. the mount points and the bundles are removed.
func (b *Backend) cleanStale() {
	o := &b.opts
	ctx, cancel := context.WithTimeout(context.Background(), o.StopTimeout)
	defer cancel()
	b.abortMounts()

	var cgroups []string
	var killed []int
	ents, _ := os.ReadDir(o.StateDir)
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "desk-") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(o.StateDir, e.Name(), cgroupsFile))
		if err != nil {
			continue
		}
		for _, d := range strings.Fields(string(data)) {
			if filepath.Base(d) != e.Name() || !filepath.IsAbs(d) {
				continue // not a sandbox's own cgroup: never touch it
			}
			cgroups = append(cgroups, d)
			for _, g := range groupTree(d) { // the sandbox's and its executions'
				for _, pid := range cgroupProcs(g) {
					if syscall.Kill(pid, syscall.SIGKILL) == nil {
						b.log.Info("sandbox: killing a process left by a previous server", "pid", pid, "cgroup", g)
						killed = append(killed, pid)
					}
				}
			}
		}
	}

	out, err := exec.CommandContext(ctx, o.Runtime, "--root", o.RuntimeRoot, "list", "-q").Output()
	if err == nil {
		for _, id := range strings.Fields(string(out)) {
			if strings.HasPrefix(id, "desk-") {
				b.log.Info("sandbox: deleting a container left by a previous server", "id", id)
				exec.CommandContext(ctx, o.Runtime, "--root", o.RuntimeRoot, "delete", "--force", id).Run()
			}
		}
	}

	runtimes := runtimeProcs(o.Runtime, o.RuntimeRoot)
	for _, pid := range waitExit(ctx, runtimes) {
		b.log.Warn("sandbox: killing a runtime process left by a previous server", "pid", pid)
		syscall.Kill(pid, syscall.SIGKILL)
		killed = append(killed, pid)
	}
	waitExit(ctx, killed)
	for _, d := range cgroups {
		if err := cgroup.RemoveTree(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			b.log.Warn("sandbox: cannot remove a cgroup left by a previous server", "cgroup", d, "err", err)
		} else if err == nil {
			b.log.Info("sandbox: removed a cgroup left by a previous server", "cgroup", d)
		}
	}

	b.cleanRoots()
	b.cleanMounts()
	for _, e := range ents {
		p := filepath.Join(o.StateDir, e.Name())
		if p == o.MountDir || p == o.rootsDir() {
			continue // cleanRoots and cleanMounts emptied them; never walk into a mount
		}
		os.RemoveAll(p)
	}
}

// abortMounts aborts the FUSE connection of every mount below MountDir and
// detaches the mounts, deepest first (a server killed with -9 leaves its
// mounts dead but mounted, and a process may be waiting on one).
func (b *Backend) abortMounts() {
	// Writable roots first: their overlays hold the stores' mounts.
	roots, err := mountsBelow(b.opts.rootsDir())
	if err != nil {
		b.log.Warn("sandbox: cannot list the mounts a previous server left", "err", err)
		return
	}
	ms, err := mountsBelow(b.opts.MountDir)
	if err != nil {
		b.log.Warn("sandbox: cannot list the mounts a previous server left", "err", err)
		return
	}
	ms = append(roots, ms...)
	for _, m := range ms {
		if m.fuse {
			if err := fusefs.AbortConnection(m.minor); err != nil {
				b.log.Warn("sandbox: cannot abort a FUSE connection left by a previous server", "dir", m.point, "err", err)
			} else {
				b.log.Info("sandbox: aborted a FUSE connection left by a previous server", "dir", m.point, "connection", m.minor)
			}
		}
	}
	for _, m := range ms {
		if err := unix.Unmount(m.point, unix.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			b.log.Warn("sandbox: cannot detach a mount left by a previous server", "dir", m.point, "err", err)
		}
	}
}

// mountEntry is a mount below MountDir.
type mountEntry struct {
	point string
	minor int  // the device's minor number: a FUSE mount's connection number
	fuse  bool // a FUSE filesystem (the store's mount; binds of it are too)
}

// mountsBelow lists the mounts strictly below dir, deepest first.
func mountsBelow(dir string) ([]mountEntry, error) {
	ms, err := mountinfo.GetMounts(mountinfo.PrefixFilter(filepath.Clean(dir)))
	if err != nil {
		return nil, fmt.Errorf("list mounts: %w", err)
	}
	var out []mountEntry
	for _, m := range ms {
		if m.Mountpoint != filepath.Clean(dir) {
			out = append(out, mountEntry{point: m.Mountpoint, minor: m.Minor, fuse: m.FSType == "fuse" || strings.HasPrefix(m.FSType, "fuse.")})
		}
	}
	slices.SortStableFunc(out, func(a, b mountEntry) int { return strings.Count(b.point, "/") - strings.Count(a.point, "/") })
	return out, nil
}

// groupTree lists the cgroup directory dir and the groups below it (an
// execution's, cgroup.go), parents first.
func groupTree(dir string) []string {
	out := []string{dir}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, groupTree(filepath.Join(dir, e.Name()))...)
		}
	}
	return out
}

// cgroupProcs lists the processes of the cgroup directory dir.
func cgroupProcs(dir string) []int {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// runtimeProcs lists the processes of the runtime binary that run on the
// state directory root (their arguments hold "--root ROOT").
func runtimeProcs(runtime, root string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(string(bytes.TrimRight(data, "\x00")), "\x00")
		if len(args) < 3 || filepath.Base(args[0]) != filepath.Base(runtime) {
			continue
		}
		for i := 1; i+1 < len(args); i++ {
			if (args[i] == "--root" && args[i+1] == root) || args[i] == "--root="+root {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// waitExit waits until the processes pids have exited or ctx ends, and
// returns those still running then. It waits on pidfds (readable once the
// process has exited), not by polling.
func waitExit(ctx context.Context, pids []int) []int {
	var left []int
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone already
		}
		for {
			ms := -1
			if d, ok := ctx.Deadline(); ok {
				ms = max(int(time.Until(d)/time.Millisecond), 0)
			}
			n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, ms)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if n == 0 || err != nil {
				left = append(left, pid)
			}
			break
		}
		unix.Close(fd)
	}
	return left
}
