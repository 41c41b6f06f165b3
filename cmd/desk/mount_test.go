package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
)

// mountServer is a real desk serve (a process of its own) serving each
// workspace in a worker process, without the sandbox.
type mountServer struct {
	*tenantServer
}

func startMountServer(t *testing.T, extra ...string) *mountServer {
	t.Helper()
	testenv.NeedFUSE(t)
	data := filepath.Join(t.TempDir(), "data")
	const token = "mount-test-admin-token-0123456789"
	p := startDeskProcess(t, data, token, append([]string{"--sandbox", "off"}, extra...)...)
	t.Setenv(envURL, p.url)
	t.Setenv(envToken, token)
	return &mountServer{&tenantServer{deskProcess: p, token: token, data: data}}
}

// mkws creates workspace ws, its root empty.
func (s *mountServer) mkws(t *testing.T, ws string) {
	t.Helper()
	if code, b := s.api(t, "POST", "/v1/workspaces", map[string]string{"name": ws}); code != 201 {
		t.Fatalf("create %s: %d %s", ws, code, b)
	}
	// A new workspace comes with /workspace and /tmp: the suite wants an
	// empty root. (A path in the URL is relative to /workspace unless it
	// starts with an escaped slash.)
	for _, d := range []string{"workspace", "tmp"} {
		if code, b := s.api(t, "DELETE", "/v1/workspaces/"+ws+"/files/%2F"+d+"?recursive=1", nil); code != 204 && code != 404 {
			t.Fatalf("empty %s: %d %s", ws, code, b)
		}
	}
}

// rmws deletes workspace ws once its worker has finished the requests in
// flight (a mount's request ends just after its DELETE is answered).
func (s *mountServer) rmws(t *testing.T, ws string) {
	t.Helper()
	pollUntil(t, time.Minute, "workspace "+ws+" to be deleted", func() bool {
		code, b := s.api(t, "DELETE", "/v1/workspaces/"+ws, nil)
		if code != 204 && code != 409 {
			t.Fatalf("delete %s: %d %s", ws, code, b)
		}
		return code == 204
	})
}

// deskMounted reports whether a desk FUSE mount is on dir (mountinfo).
func deskMounted(t *testing.T, dir string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		pre, post, _ := strings.Cut(line, " - ")
		if f, g := strings.Fields(pre), strings.Fields(post); len(f) > 4 && len(g) > 0 && f[4] == dir && g[0] == "fuse.desk" {
			return true
		}
	}
	return false
}

// emptyDir returns a new empty directory for a mount point.
func emptyDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// cliMount is desk mount run in-process with a context of the test's.
type cliMount struct {
	dir    string
	cancel context.CancelFunc
	done   chan int
	out    *watchWriter
	errb   *testenv.SyncBuffer
	code   int
	ended  bool
}

// startCLIMount runs desk mount ws dir (and extra flags) and waits until it
// says it is mounted.
func startCLIMount(t *testing.T, ws, dir string, extra ...string) *cliMount {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := &cliMount{dir: dir, cancel: cancel, done: make(chan int, 1),
		out: &watchWriter{want: "mounted workspace " + ws + " on " + dir + "\n", seen: make(chan struct{})}, errb: &testenv.SyncBuffer{}}
	go func() {
		m.done <- runMount(ctx, append([]string{ws, dir}, extra...), streams{in: strings.NewReader(""), out: m.out, err: m.errb})
	}()
	t.Cleanup(func() { m.stop(t) })
	select {
	case <-m.out.seen:
		return m
	case code := <-m.done:
		m.ended, m.code = true, code
		t.Fatalf("desk mount %s %s: exit %d before mounting; stdout %q, stderr %q", ws, dir, code, m.out.String(), m.errb.String())
	case <-time.After(time.Minute):
		t.Fatalf("desk mount %s %s did not mount within a minute (hang guard); stderr %q", ws, dir, m.errb.String())
	}
	return nil
}

// stop interrupts desk mount (as Ctrl-C does) and returns its exit status.
func (m *cliMount) stop(t *testing.T) int {
	t.Helper()
	m.cancel()
	return m.wait(t)
}

// wait waits for desk mount to exit and returns its status.
func (m *cliMount) wait(t *testing.T) int {
	t.Helper()
	if !m.ended {
		select {
		case m.code = <-m.done:
			m.ended = true
		case <-time.After(time.Minute):
			t.Fatalf("desk mount on %s did not exit within a minute (hang guard); stderr %q", m.dir, m.errb.String())
		}
	}
	return m.code
}

// TestMountCLI_Conformance runs the vfs conformance suite on a workspace of
// a real server (its worker process serving the store) mounted by desk
// mount, each test on a fresh workspace and mount; at each test's end the
// CLI is interrupted and the mount must be gone. The tests run in parallel
// (each its own workspace, worker and mount: most of a test's time is
// waiting for them to start and stop).
func TestMountCLI_Conformance(t *testing.T) {
	s := startMountServer(t)
	n := 0
	vfstest.Run(t, func(t *testing.T) vfstest.FS {
		n++
		ws := "vfs-" + strconv.Itoa(n)
		t.Parallel()
		s.mkws(t, ws)
		dir := emptyDir(t)
		m := startCLIMount(t, ws, dir)
		t.Cleanup(func() {
			if code := m.stop(t); code != 0 {
				t.Errorf("desk mount after Ctrl-C: exit %d, stderr %q", code, m.errb.String())
			}
			if deskMounted(t, dir) {
				t.Errorf("%s still mounted after desk mount exited", dir)
			}
			s.rmws(t, ws)
		})
		fsys := vfstest.OS(dir)
		if err := fsys.Chmod(t.Context(), "/", 0o755); err != nil {
			t.Fatal(err)
		}
		return fsys
	})
}

// TestMountCLI_BothWays: what the API writes is read through the mount at
// once, and what is written through the mount is read through the API at
// once, through a real server's worker.
func TestMountCLI_BothWays(t *testing.T) {
	s := startMountServer(t)
	s.mkws(t, "demo")
	dir := emptyDir(t)
	m := startCLIMount(t, "demo", dir)
	for i := range 5 {
		v := fmt.Sprintf("from the API %d\n", i)
		mustDesk(t, []byte(v), "fs", "-w", "demo", "put", "/notes.txt")
		if got, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(got) != v {
			t.Fatalf("through the mount after an API write: %q %v, want %q", got, err, v)
		}
		v = fmt.Sprintf("from the mount %d\n", i)
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := mustDesk(t, nil, "fs", "-w", "demo", "cat", "/notes.txt"); got != v {
			t.Fatalf("through the API after a mount write: %q, want %q", got, v)
		}
	}
	// A tree made through the mount, listed through the API.
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "b", "c"), []byte("c"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, b := s.api(t, "GET", "/v1/workspaces/demo/files/%2Fa/b/c?stat=1", nil)
	var fi struct{ Mode, Type string }
	json.Unmarshal(b, &fi)
	if code != 200 || fi.Mode != "0600" || fi.Type != "file" {
		t.Errorf("stat through the API: %d %s", code, b)
	}
	if code := m.stop(t); code != 0 {
		t.Errorf("exit %d, stderr %q", code, m.errb.String())
	}
	if !strings.Contains(m.out.String(), "unmounted "+dir+"\n") {
		t.Errorf("stdout %q lacks the unmount", m.out.String())
	}
}

// deskMountProcess runs desk mount as a process of its own and waits until
// it says it is mounted.
func deskMountProcess(t *testing.T, s *mountServer, ws, dir string) (*exec.Cmd, *testenv.SyncBuffer, *testenv.SyncBuffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "mount", ws, dir)
	cmd.Env = append(os.Environ(), envTestRunDesk+"=1", envURL+"="+s.url, envToken+"="+s.token)
	var out, errb testenv.SyncBuffer
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	mounted := make(chan bool, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stdout)
		said := false
		for sc.Scan() {
			fmt.Fprintln(&out, sc.Text())
			if !said && sc.Text() == "mounted workspace "+ws+" on "+dir {
				said = true
				mounted <- true
			}
		}
		if !said {
			mounted <- false
		}
	}()
	select {
	case ok := <-mounted:
		if !ok {
			cmd.Wait()
			t.Fatalf("desk mount exited before mounting: stdout %q, stderr %q", out.String(), errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("desk mount did not mount within a minute (hang guard): %q", errb.String())
	}
	return cmd, &out, &errb
}

// waitExit waits for a process and returns its exit status.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("desk mount did not exit within a minute (hang guard)")
	}
	return cmd.ProcessState.ExitCode()
}

// TestMountCLI_Signals interrupts real desk mount processes with SIGINT
// and SIGTERM: each unmounts and exits 0, and the mount table no longer
// lists the mount when it has exited.
func TestMountCLI_Signals(t *testing.T) {
	s := startMountServer(t)
	s.mkws(t, "demo")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := emptyDir(t)
		cmd, out, errb := deskMountProcess(t, s, "demo", dir)
		if !deskMounted(t, dir) {
			t.Fatalf("%s not in the mount table after desk mount said it was mounted", dir)
		}
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(sig.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if code := waitExit(t, cmd); code != 0 {
			t.Errorf("%v: exit %d; stderr %q", sig, code, errb.String())
		}
		if deskMounted(t, dir) {
			t.Errorf("%v: %s still mounted after desk mount exited", sig, dir)
		}
		if !strings.Contains(out.String(), "unmounted "+dir) {
			t.Errorf("%v: stdout %q", sig, out.String())
		}
		if got := mustDesk(t, nil, "fs", "-w", "demo", "cat", "/f"); got != sig.String() {
			t.Errorf("%v: the file written through the mount: %q", sig, got)
		}
	}
}

// TestMountCLI_Killed kills a real desk mount process with SIGKILL: the
// server sees its request gone and unmounts.
func TestMountCLI_Killed(t *testing.T) {
	s := startMountServer(t)
	s.mkws(t, "demo")
	dir := emptyDir(t)
	cmd, _, _ := deskMountProcess(t, s, "demo", dir)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd)
	pollUntil(t, time.Minute, "the server to unmount after its client was killed", func() bool { return !deskMounted(t, dir) })
}

// TestMountCLI_ServerStops stops the server while a real desk mount
// process waits: the server unmounts before it exits, and desk mount exits
// 1 saying so.
func TestMountCLI_ServerStops(t *testing.T) {
	s := startMountServer(t)
	s.mkws(t, "demo")
	dir := emptyDir(t)
	cmd, _, errb := deskMountProcess(t, s, "demo", dir)
	s.stop() // SIGTERM, and waits for the server to exit
	if deskMounted(t, dir) {
		t.Errorf("%s still mounted after the server exited", dir)
	}
	if code := waitExit(t, cmd); code != 1 {
		t.Errorf("desk mount: exit %d, want 1", code)
	}
	if !strings.Contains(errb.String(), "shutting down: "+dir+" was unmounted") {
		t.Errorf("desk mount's stderr: %q", errb.String())
	}
}

// TestMountCLI_Outside unmounts with umount(8): desk mount says so and
// exits 0.
func TestMountCLI_Outside(t *testing.T) {
	s := startMountServer(t)
	if _, err := exec.LookPath("umount"); err != nil {
		testenv.Need(t, testenv.FUSE, err)
	}
	s.mkws(t, "demo")
	dir := emptyDir(t)
	m := startCLIMount(t, "demo", dir)
	if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
		t.Fatalf("umount: %v %s", err, out)
	}
	if code := m.wait(t); code != 0 {
		t.Errorf("exit %d, stderr %q", code, m.errb.String())
	}
	if !strings.Contains(m.errb.String(), "desk mount: "+dir+": unmounted outside desk") {
		t.Errorf("stderr %q", m.errb.String())
	}
}

// TestMountCLI_WorkerKilled kills the workspace's worker while mounted:
// desk mount exits 1, and the server detaches the dead mount.
func TestMountCLI_WorkerKilled(t *testing.T) {
	s := startMountServer(t)
	s.mkws(t, "demo")
	dir := emptyDir(t)
	m := startCLIMount(t, "demo", dir)
	if err := syscall.Kill(workerOf(t, s.cmd.Process.Pid, "demo"), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := m.wait(t); code != 1 {
		t.Errorf("exit %d, want 1; stderr %q", code, m.errb.String())
	}
	if !strings.Contains(m.errb.String(), "worker may have died") {
		t.Errorf("stderr %q", m.errb.String())
	}
	pollUntil(t, time.Minute, "the server to detach the dead mount", func() bool { return !deskMounted(t, dir) })
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("the mount point after the cleanup: %v %v", ents, err)
	}
	// The workspace works again, and mounts again.
	startCLIMount(t, "demo", dir)
}

// TestMountCLI_NoHibernation mounts on a server whose workspaces hibernate
// after 1 ms idle: while mounted, the workspace's worker stays (the mount's
// request holds it busy) through a run of work on the mount and the API;
// once unmounted, the worker goes.
func TestMountCLI_NoHibernation(t *testing.T) {
	s := startMountServer(t, "--idle", "1ms")
	s.mkws(t, "demo")
	dir := emptyDir(t)
	m := startCLIMount(t, "demo", dir)
	pid := workerOf(t, s.cmd.Process.Pid, "demo")
	for i := range 50 {
		p := filepath.Join(dir, "f"+strconv.Itoa(i))
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, b := s.api(t, "GET", "/v1/workspaces/demo/files/%2Ff"+strconv.Itoa(i)+"?stat=1", nil); code != 200 {
			t.Fatalf("stat %d: %d %s", i, code, b)
		}
	}
	if now := findWorker(s.cmd.Process.Pid, "demo"); now != pid {
		t.Errorf("the worker changed while mounted: %d, then %d", pid, now)
	}
	if code := m.stop(t); code != 0 {
		t.Errorf("exit %d, stderr %q", code, m.errb.String())
	}
	pollUntil(t, time.Minute, "the idle worker to exit after the unmount", func() bool { return findWorker(s.cmd.Process.Pid, "demo") == 0 })
}

// TestMountCLI_Refused: directories that cannot be mount points are
// refused with their errno, through the CLI and the API.
func TestMountCLI_Refused(t *testing.T) {
	s := startMountServer(t)
	s.mkws(t, "demo")
	base := t.TempDir()
	full := filepath.Join(base, "full")
	os.MkdirAll(filepath.Join(full, "x"), 0o755)
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o644)
	inData := filepath.Join(s.data, "mnt")
	if err := os.Mkdir(inData, 0o755); err != nil {
		t.Fatal(err)
	}
	run, err := os.MkdirTemp("/run/desk", "mount-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(run)
	for _, c := range []struct{ dir, want, code string }{
		{full, "not empty", "ENOTEMPTY"},
		{file, "not a directory", "ENOTDIR"},
		{inData, "inside the server's data directory", "EPERM"},
		{s.data, "inside the server's data directory", "EPERM"},
		{run, "inside desk's run-time directory", "EPERM"},
		{filepath.Join(base, "missing"), "no such directory", "ENOENT"},
	} {
		wantFail(t, 1, c.want, "mount", "demo", c.dir)
		wantFail(t, 1, "("+c.code+")", "mount", "demo", c.dir)
	}
	wantFail(t, 2, "missing argument", "mount", "demo")
	for _, dir := range []string{"relative/dir", "mnt", ""} {
		code, b := s.api(t, "POST", "/v1/workspaces/demo/mounts", map[string]string{"dir": dir})
		var e struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal(b, &e)
		if code != 400 || e.Error.Code != "EINVAL" {
			t.Errorf("API mount on %q: %d %s", dir, code, b)
		}
	}
}
