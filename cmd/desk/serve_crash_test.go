package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/workspace"
	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"
)

// envTestRunDesk makes the test binary run the desk CLI on its arguments
// (TestMain), so that a test can run desk serve as a process of its own.
const envTestRunDesk = "DESK_TEST_RUN_DESK"

// deskProcess is desk serve running as a child process (the test binary).
type deskProcess struct {
	cmd *exec.Cmd
	url string
	log *testenv.SyncBuffer // its standard error
	eof chan struct{}
}

var listeningURL = regexp.MustCompile(`msg="desk serve listening" url=(http://\S+)`)

// startDeskProcess starts desk serve on data with the admin token token and
// waits until it listens. Cleanup stops it (SIGTERM) if it still runs.
func startDeskProcess(t testing.TB, data, token string, extra ...string) *deskProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &deskProcess{log: &testenv.SyncBuffer{}, eof: make(chan struct{})}
	p.cmd = exec.Command(exe, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--no-config", "--log-level", "info"}, extra...)...)
	p.cmd.Env = append(os.Environ(), envTestRunDesk+"=1", envAdminToken+"="+token)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlc := make(chan string, 1)
	go func() {
		defer close(p.eof)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(p.log, sc.Text())
			if m := listeningURL.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
		}
	}()
	t.Cleanup(func() { p.stop() })
	select {
	case p.url = <-urlc:
		return p
	case <-p.eof:
		p.cmd.Wait()
		t.Fatalf("desk serve exited before listening:\n%s", p.log.String())
	case <-time.After(time.Minute):
		t.Fatalf("desk serve did not listen within a minute (hang guard):\n%s", p.log.String())
	}
	return nil
}

// stop stops the server gracefully and waits for it.
func (p *deskProcess) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.eof
	p.cmd.Wait()
}

// kill kills the server with SIGKILL and waits for it.
func (p *deskProcess) kill() {
	p.cmd.Process.Kill()
	<-p.eof
	p.cmd.Wait()
}

// pollUntil checks cond until it holds; it fails the test after d, a hang
// guard, never a timing assertion.
func pollUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(d)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("waited %v (hang guard) for %s", d, what)
		}
	}
}

// TestServe_KilledWhileSandboxWaitsOnFUSE kills a real desk serve (a
// process of its own) with -9 while a sandbox program waits on the
// workspace's FUSE mount, with the server's /dev/fuse descriptor still held
// by another process (as the runc that inherited it did, before it was
// close-on-exec), so that the program, its init, the runtime, the cgroups
// and the connection are all left behind. A new server on the same data
// directory must abort the connection and clean all of it up, and the
// workspace must work. It also checks that the runtime of a live sandbox
// holds no /dev/fuse descriptor.
func TestServe_KilledWhileSandboxWaitsOnFUSE(t *testing.T) {
	sandboxtest.Require(t)
	data, state := sandboxData(t)
	stateDir, runtimeRoot := filepath.Join(workerState(state, "demo"), "state"), filepath.Join(workerState(state, "demo"), "runc")
	const token = "crash-test-admin-token-0123456789"
	srv := startDeskProcess(t, data, token)
	t.Setenv(envURL, srv.url)
	t.Setenv(envToken, token)
	mustDesk(t, nil, "ws", "create", "demo")
	// Written by the shell backend, straight into the store: the kernel has
	// none of its pages, so the sandbox's accesses go to the server.
	mustDesk(t, nil, "exec", "demo", "--backend", "shell", "--", "seq 1 100000 > big")
	want := mustDesk(t, nil, "exec", "demo", "--backend", "shell", "--", "wc -c < big")

	// The program opens big for writing, waits on a FIFO in its private /tmp
	// (which the test opens while the server is stopped), then closes: the
	// close's FLUSH waits for the server. (Not a write: a WRITE request
	// still queued is dropped when its process is killed, as the sandbox's
	// init kills it once the worker is gone, while a FLUSH is a forced
	// request the kernel waits out: it is what keeps the connection's
	// request waiting after the kill.)
	src := `exec 3>>big; mkfifo /tmp/go; read x </tmp/go; exec 3>&-; echo closed`
	// A bare request, not desk exec: the CLI's follow-up requests after the
	// failure would start the next worker (which cleans up) before the test
	// has seen what the killed one left.
	execDone := make(chan string, 1)
	go func() {
		body, _ := json.Marshal(map[string]string{"source": src, "backend": "sandbox"})
		req, _ := http.NewRequest("POST", srv.url+"/v1/workspaces/demo/executions?wait=1", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			execDone <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		execDone <- fmt.Sprintf("%s: %s", res.Status, b)
	}()
	var id string
	var initPID int
	var fifo *os.File
	pollUntil(t, time.Minute, "the sandbox's program to wait on its FIFO", func() bool {
		ents, _ := filepath.Glob(filepath.Join(stateDir, "desk-demo-*", "init.pid"))
		if len(ents) != 1 {
			return false
		}
		b, err := os.ReadFile(ents[0])
		if err != nil {
			return false
		}
		initPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		id = filepath.Base(filepath.Dir(ents[0]))
		// Opened for writing without blocking, the FIFO says whether the
		// program has opened it for reading (ENXIO until then); the test
		// holds it open, so the program's read waits for its close.
		fifo, err = os.OpenFile(fmt.Sprintf("/proc/%d/root/tmp/go", initPID), os.O_WRONLY|syscall.O_NONBLOCK, 0)
		return err == nil
	})
	conn := fuseConnection(t, filepath.Join(stateDir, "mnt"))
	// The workspace's worker serves its store and its mount: it is the
	// server process that dies here.
	srvPID := workerOf(t, srv.cmd.Process.Pid, "demo")
	runcPID := childNamed(t, srvPID, "runc")
	if fds := fuseFDs(runcPID); len(fds) != 0 {
		t.Errorf("the runtime (pid %d) holds /dev/fuse descriptors %v: it inherited the server's", runcPID, fds)
	}
	// What the runc of an older desk did: hold the server's /dev/fuse.
	held := stealFUSEDescriptor(t, srvPID)
	defer unix.Close(held)

	if err := syscall.Kill(srvPID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	fifo.Close() // the program's read ends: it goes on to write and close on the mount
	pollUntil(t, time.Minute, "the program's request to wait on the stopped server", func() bool { return connWaiting(conn) > 0 })
	cgroups := sandboxCgroups(t, initPID, id)
	procs := []int{runcPID, initPID}
	for _, d := range cgroups {
		procs = append(procs, readPIDs(filepath.Join(d, "cgroup.procs"))...)
	}
	slices.Sort(procs)
	procs = slices.Compact(procs)
	t.Logf("blocked: connection %d waiting %d; processes %v (states %v); cgroups %v", conn, connWaiting(conn), procs, procStates(procs), cgroups)

	if err := syscall.Kill(srvPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("first exec: %s", <-execDone)
	pollUntil(t, time.Minute, "the killed worker to be reaped", func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", srvPID))
		return err != nil
	})
	// Left behind, as the issue saw it: the connection lives on (held), its
	// request unanswered, and so the sandbox's processes.
	t.Logf("after the kill: alive %v (states %v), waiting %d", living(procs), procStates(procs), connWaiting(conn))
	if n := connWaiting(conn); n == 0 {
		t.Fatalf("after the kill no request waits on connection %d: the test reproduced nothing", conn)
	}
	if alive := living(procs); len(alive) == 0 {
		t.Fatalf("after the kill no process of the sandbox is left: the test reproduced nothing")
	}

	// The next request starts a new worker, which cleans up.
	mustDesk(t, nil, "exec", "demo", "--backend", "shell", "--", "true")
	if alive := living(procs); len(alive) != 0 {
		t.Errorf("processes of the killed worker's sandbox still run: %v (states %v)\nlog:\n%s", alive, procStates(alive), srv.log.String())
	}
	for _, d := range cgroups {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("cgroup %s is left", d)
		}
	}
	if _, err := os.Stat(filepath.Join(runtimeRoot, id)); err == nil {
		t.Errorf("the runtime's state of %s is left", id)
	}
	if _, err := os.Stat(filepath.Join(stateDir, id)); err == nil {
		t.Errorf("the bundle of %s is left", id)
	}
	if ms := mountsUnder(t, filepath.Join(stateDir, "mnt")); len(ms) != 0 {
		t.Errorf("mounts are left: %v", ms)
	}
	// An aborted connection ends its requests; each is freed as its waiter
	// wakes, so the count drops soon after (nothing signals it: poll, with
	// a hang guard).
	pollUntil(t, time.Minute, fmt.Sprintf("connection %d's requests to end (was it aborted?)", conn), func() bool { return connWaiting(conn) == 0 })
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "wc -c < big"); got != want {
		t.Errorf("after the restart the sandbox reads %q bytes of big, want %q", got, want)
	}
}

// workerState is the sandbox state directory of workspace ws's worker,
// below the server's (sandboxDir).
func workerState(state, ws string) string { return filepath.Join(state, "ws", ws) }

// workerOf is the pid of workspace ws's worker, a child of the server parent.
func workerOf(t *testing.T, parent int, ws string) int {
	t.Helper()
	pid := findWorker(parent, ws)
	if pid == 0 {
		t.Fatalf("no worker of %s below pid %d", ws, parent)
	}
	return pid
}

// findWorker is workerOf without the test: 0 when there is none. A worker
// is a child running `desk worker` that holds the workspace's store open.
func findWorker(parent int, ws string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if args := strings.Split(string(b), "\x00"); len(args) < 2 || args[1] != workerCommand {
			continue
		}
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		s := string(st)
		i := strings.LastIndexByte(s, ')')
		if f := strings.Fields(s[i+1:]); i < 0 || len(f) < 2 || f[1] != strconv.Itoa(parent) {
			continue
		}
		fds, _ := os.ReadDir("/proc/" + e.Name() + "/fd")
		for _, fd := range fds {
			if l, err := os.Readlink("/proc/" + e.Name() + "/fd/" + fd.Name()); err == nil && strings.HasSuffix(l, "/workspaces/"+ws+workspace.FileExt) {
				return pid
			}
		}
	}
	return 0
}

// fuseConnection is the connection number (the device's minor number) of
// the one FUSE mount below dir, read from mountinfo (a stat would wait on
// the server).
func fuseConnection(t *testing.T, dir string) int {
	t.Helper()
	conns := map[int]bool{}
	for _, m := range mountsUnder(t, dir) {
		if strings.HasPrefix(m.fstype, "fuse") {
			conns[m.minor] = true
		}
	}
	if len(conns) != 1 {
		t.Fatalf("FUSE mounts below %s: %v, want one connection", dir, mountsUnder(t, dir))
	}
	for c := range conns {
		return c
	}
	return 0
}

type testMount struct {
	point, fstype string
	minor         int
}

// mountsUnder lists the mounts below dir (mountinfo).
func mountsUnder(t *testing.T, dir string) []testMount {
	t.Helper()
	ms, err := mountinfo.GetMounts(mountinfo.PrefixFilter(dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []testMount
	for _, m := range ms {
		if m.Mountpoint != dir {
			out = append(out, testMount{point: m.Mountpoint, fstype: m.FSType, minor: m.Minor})
		}
	}
	return out
}

// connWaiting is the number of requests waiting on FUSE connection conn (0
// when it is gone).
func connWaiting(conn int) int {
	b, err := os.ReadFile(fmt.Sprintf("/sys/fs/fuse/connections/%d/waiting", conn))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// childNamed is the pid of the child of parent whose command is name.
func childNamed(t *testing.T, parent int, name string) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.HasPrefix(s, e.Name()+" ("+name+")") {
			continue
		}
		if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(parent) {
			return pid
		}
	}
	t.Fatalf("no child %q of pid %d", name, parent)
	return 0
}

// fuseFDs lists the descriptors of process pid open on /dev/fuse.
func fuseFDs(pid int) []string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && target == "/dev/fuse" {
			out = append(out, e.Name())
		}
	}
	return out
}

// stealFUSEDescriptor duplicates the /dev/fuse descriptor of process pid into
// the test (pidfd_getfd), so that the connection outlives the process.
func stealFUSEDescriptor(t *testing.T, pid int) int {
	t.Helper()
	fds := fuseFDs(pid)
	if len(fds) != 1 {
		t.Fatalf("the server holds /dev/fuse descriptors %v, want one", fds)
	}
	target, _ := strconv.Atoi(fds[0])
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pfd)
	fd, err := unix.PidfdGetfd(pfd, target, 0)
	if err != nil {
		t.Fatalf("pidfd_getfd: %v", err)
	}
	return fd
}

// sandboxCgroups lists the cgroup directories of process pid named id.
func sandboxCgroups(t *testing.T, pid int, id string) []string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var points []string
	for line := range strings.Lines(string(mi)) {
		pre, post, _ := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) >= 5 && len(g) >= 1 && (g[0] == "cgroup" || g[0] == "cgroup2") && f[3] == "/" {
			points = append(points, f[4])
		}
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 || filepath.Base(parts[2]) != id {
			continue
		}
		for _, p := range points {
			d := filepath.Join(p, parts[2])
			if fi, err := os.Stat(d); err == nil && fi.IsDir() && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("found no cgroup of the sandbox %s (pid %d):\n%s", id, pid, b)
	}
	return out
}

// readPIDs reads a cgroup.procs file.
func readPIDs(file string) []int {
	b, _ := os.ReadFile(file)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// procState is the state letter of process pid ("" when it is gone).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		if f := strings.Fields(s[i+1:]); len(f) > 0 {
			return f[0]
		}
	}
	return "?"
}

func procStates(pids []int) []string {
	var out []string
	for _, p := range pids {
		out = append(out, fmt.Sprintf("%d:%s", p, procState(p)))
	}
	return out
}

// living lists the processes of pids that have not exited (a zombie has:
// only its parent's wait is missing).
func living(pids []int) []int {
	var out []int
	for _, p := range pids {
		if s := procState(p); s != "" && s != "Z" && s != "X" {
			out = append(out, p)
		}
	}
	return out
}
