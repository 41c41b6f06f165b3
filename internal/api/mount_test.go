package api_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/testenv"
)

// waitUnmounted waits until connection conn is mounted nowhere, failing
// after a generous hang guard.
func waitUnmounted(t *testing.T, conn int) {
	t.Helper()
	// The mount table's changes are an event: poll(2) on a descriptor of
	// /proc/self/mountinfo wakes with POLLPRI when it changes. (A raw
	// descriptor: Go's own poller would take the event.)
	fd, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(time.Minute)
	for len(mountPoints(t, conn)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("connection %d still mounted on %v after a minute (hang guard)", conn, mountPoints(t, conn))
		}
		unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI | unix.POLLERR}}, 1000)
	}
}

// mountDir returns a fresh empty directory for a mount.
func mountDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// startMount mounts ws on dir and returns the stream and its first event.
func (e *env) startMount(ws string, req client.MountRequest) (*client.Stream[client.MountEvent], client.MountEvent) {
	e.t.Helper()
	s, err := e.c.Mount(bg, ws, req, client.NDJSON)
	if err != nil {
		e.t.Fatalf("mount %s on %s: %v", ws, req.Dir, err)
	}
	e.t.Cleanup(func() { s.Close() })
	ev, err := s.Next()
	if err != nil || ev.Type != "mounted" || ev.ID == "" || ev.Dir != req.Dir || ev.Connection == 0 || ev.Workspace != ws {
		e.t.Fatalf("first event: %+v %v", ev, err)
	}
	return s, ev
}

// TestMount_BothWays mounts a workspace through the API: what the API
// writes is read through the mount at once, what is written through the
// mount is read through the API at once; DELETE …/mounts/{id} unmounts
// and the stream ends with "unmounted" (reason request), then EOF.
func TestMount_BothWays(t *testing.T) {
	testenv.NeedFUSE(t)
	e := newEnv(t, envOpts{})
	e.mkws("demo")
	dir := mountDir(t)
	s, ev := e.startMount("demo", client.MountRequest{Dir: dir})
	if got := mountPoints(t, ev.Connection); len(got) != 1 || got[0] != dir {
		t.Fatalf("mount points: %v, want [%s]", got, dir)
	}
	for i := range 3 {
		v := "api " + strconv.Itoa(i)
		if _, err := e.c.WriteFile(bg, "demo", "/f", strings.NewReader(v), client.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(got) != v {
			t.Fatalf("through the mount after API write %d: %q %v", i, got, err)
		}
		v = "mount " + strconv.Itoa(i)
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := e.c.ReadFile(bg, "demo", "/f"); err != nil || string(got) != v {
			t.Fatalf("through the API after mount write %d: %q %v", i, got, err)
		}
	}
	// A new name made through the API, never looked up through the mount.
	if _, err := e.c.Mkdir(bg, "demo", "/d", 0o755, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "d")); err != nil || !fi.IsDir() {
		t.Fatalf("new directory through the mount: %v %v", fi, err)
	}
	// The journal names the mount as the actor of its writes.
	l, err := e.c.Changes(bg, "demo", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ch := range l.Changes {
		found = found || ch.Actor == "mount:"+ev.ID
	}
	if !found {
		t.Errorf("no change journaled with actor mount:%s: %+v", ev.ID, l.Changes)
	}
	if err := e.c.Unmount(bg, "demo", ev.ID); err != nil {
		t.Fatal(err)
	}
	// DELETE returns once unmounted.
	if got := mountPoints(t, ev.Connection); len(got) != 0 {
		t.Errorf("after DELETE still mounted on %v", got)
	}
	last, err := s.Next()
	if err != nil || last.Type != "unmounted" || last.Reason != "request" || last.Error != "" {
		t.Errorf("last event: %+v %v", last, err)
	}
	if _, err := s.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after unmounted: %v, want EOF", err)
	}
	wantCode(t, "DELETE again", e.c.Unmount(bg, "demo", ev.ID), 404, "not_found")
}

// TestMount_ReadOnly: writes through a read-only mount fail with EROFS;
// API writes still show.
func TestMount_ReadOnly(t *testing.T) {
	testenv.NeedFUSE(t)
	e := newEnv(t, envOpts{})
	e.mkws("demo")
	dir := mountDir(t)
	_, ev := e.startMount("demo", client.MountRequest{Dir: dir, ReadOnly: true})
	if !ev.ReadOnly {
		t.Errorf("mounted event: %+v", ev)
	}
	if err := os.WriteFile(filepath.Join(dir, "g"), []byte("x"), 0o644); !errors.Is(err, syscall.EROFS) {
		t.Errorf("write through a read-only mount: %v, want EROFS", err)
	}
	if _, err := e.c.WriteFile(bg, "demo", "/f", strings.NewReader("api"), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(got) != "api" {
		t.Errorf("read: %q %v", got, err)
	}
}

// TestMount_Refused: a mount needs the admin token and a directory that
// can be a mount point; each refusal has its status and code.
func TestMount_Refused(t *testing.T) {
	testenv.NeedFUSE(t)
	e := newEnv(t, envOpts{})
	e.mkws("demo")
	base := t.TempDir()
	full := filepath.Join(base, "full")
	os.MkdirAll(filepath.Join(full, "x"), 0o755)
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o644)
	inData := filepath.Join(e.dir, "mnt")
	os.Mkdir(inData, 0o755)
	os.Symlink(base, filepath.Join(base, "link"))
	os.Mkdir(filepath.Join(base, "empty"), 0o755)
	for _, c := range []struct {
		dir    string
		status int
		code   string
	}{
		{"relative/dir", 400, "EINVAL"},
		{"", 400, "EINVAL"},
		{full, 409, "ENOTEMPTY"},
		{file, 400, "ENOTDIR"},
		{filepath.Join(base, "missing"), 404, "ENOENT"},
		{inData, 403, "EPERM"},
		{e.dir, 403, "EPERM"},
		{filepath.Join(base, "link", "empty"), 400, "ELOOP"},
	} {
		_, err := e.c.Mount(bg, "demo", client.MountRequest{Dir: c.dir}, client.NDJSON)
		wantCode(t, "mount on "+c.dir, err, c.status, c.code)
	}
	_, err := e.c.Mount(bg, "nope", client.MountRequest{Dir: mountDir(t)}, client.NDJSON)
	wantCode(t, "a missing workspace", err, 404, "not_found")
	_, secret := e.mint("demo", nil, "read", "write", "exec")
	_, err = e.client(secret).Mount(bg, "demo", client.MountRequest{Dir: mountDir(t)}, client.NDJSON)
	wantCode(t, "a workspace token", err, 403, "forbidden")
	st, _, code := e.raw("POST", "/v1/workspaces/demo/mounts", e.admin, strings.NewReader(`{"dir": "/tmp", "uid": 1}`))
	if st != 400 || code != "bad_json" {
		t.Errorf("unknown field: %d %s", st, code)
	}
	wantCode(t, "DELETE of no mount", e.c.Unmount(bg, "demo", "nosuch"), 404, "not_found")
}

// TestMount_Bounds: mounts per workspace and per server are bounded.
func TestMount_Bounds(t *testing.T) {
	testenv.NeedFUSE(t)
	e := newEnv(t, envOpts{api: api.Options{Mounts: api.MountOptions{Max: 2, MaxPerWorkspace: 1}}})
	e.mkws("a", "b", "c")
	sa, ea := e.startMount("a", client.MountRequest{Dir: mountDir(t)})
	_, err := e.c.Mount(bg, "a", client.MountRequest{Dir: mountDir(t)}, client.NDJSON)
	wantCode(t, "a second mount of a", err, 409, "too_many")
	e.startMount("b", client.MountRequest{Dir: mountDir(t)})
	_, err = e.c.Mount(bg, "c", client.MountRequest{Dir: mountDir(t)}, client.NDJSON)
	wantCode(t, "a third mount on the server", err, 409, "too_many")
	if err := e.c.Unmount(bg, "a", ea.ID); err != nil {
		t.Fatal(err)
	}
	// The server's slot is free once the mount's request has ended: the
	// end of its stream says so.
	for {
		if _, err := sa.Next(); err != nil {
			break
		}
	}
	e.startMount("c", client.MountRequest{Dir: mountDir(t)})
}

// TestMount_ClientGoes: closing the stream unmounts.
func TestMount_ClientGoes(t *testing.T) {
	testenv.NeedFUSE(t)
	e := newEnv(t, envOpts{})
	e.mkws("demo")
	s, ev := e.startMount("demo", client.MountRequest{Dir: mountDir(t)})
	s.Close()
	waitUnmounted(t, ev.Connection)
}

// TestMount_Outside: an umount outside desk ends the stream with
// "unmounted", reason outside.
func TestMount_Outside(t *testing.T) {
	testenv.NeedFUSE(t)
	if _, err := exec.LookPath("umount"); err != nil {
		testenv.Need(t, testenv.FUSE, err)
	}
	e := newEnv(t, envOpts{})
	e.mkws("demo")
	dir := mountDir(t)
	s, ev := e.startMount("demo", client.MountRequest{Dir: dir})
	if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
		t.Fatalf("umount: %v %s", err, out)
	}
	last, err := s.Next()
	if err != nil || last.Type != "unmounted" || last.Reason != "outside" || !strings.Contains(last.Message, "outside desk") {
		t.Fatalf("after umount: %+v %v", last, err)
	}
	if got := mountPoints(t, ev.Connection); len(got) != 0 {
		t.Errorf("still mounted on %v", got)
	}
}

// TestMount_KeepsWorkspaceOpen: a mounted workspace is not hibernated.
func TestMount_KeepsWorkspaceOpen(t *testing.T) {
	testenv.NeedFUSE(t)
	e := newEnv(t, envOpts{})
	e.mkws("demo", "other")
	if _, err := e.c.WorkspaceStats(bg, "other"); err != nil { // opened, then idle
		t.Fatal(err)
	}
	dir := mountDir(t)
	e.startMount("demo", client.MountRequest{Dir: dir})
	if n := e.h.HibernateIdle(); n != 1 {
		t.Errorf("HibernateIdle hibernated %d workspaces, want 1 (other, not the mounted one)", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatalf("the mount after HibernateIdle: %v", err)
	}
}

// TestMount_Shutdown: the server's Shutdown unmounts and ends the stream
// with an error event (unavailable), before the workspace is closed.
func TestMount_Shutdown(t *testing.T) {
	testenv.NeedFUSE(t)
	e := newEnv(t, envOpts{})
	e.mkws("demo")
	dir := mountDir(t)
	s, ev := e.startMount("demo", client.MountRequest{Dir: dir})
	// A file open for writing through the mount: its data must be in the
	// store when the server is down.
	f, err := os.OpenFile(filepath.Join(dir, "f"), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("written")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.srv.Shutdown(context.Background(), nil) }()
	_, err = s.Next()
	wantCode(t, "the stream at shutdown", err, 200, "unavailable")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Shutdown hangs (hang guard)")
	}
	f.Close()
	if got := mountPoints(t, ev.Connection); len(got) != 0 {
		t.Errorf("still mounted on %v after Shutdown", got)
	}
	// The store, reopened without a server, has the write.
	e2 := newEnv(t, envOpts{dir: e.dir})
	if got, err := e2.c.ReadFile(bg, "demo", "/f"); err != nil || !bytes.Equal(got, []byte("written")) {
		t.Errorf("after Shutdown the store has %q %v", got, err)
	}
}

// TestMount_AllowOther: without allow_other only the mounting user (root)
// can use the mount, another uid gets EACCES even to list it; with it the
// other uid can, as the stored modes allow: read a 0644 file, not write it.
func TestMount_AllowOther(t *testing.T) {
	testenv.NeedFUSE(t)
	e := newEnv(t, envOpts{})
	e.mkws("demo")
	if _, err := e.c.WriteFile(bg, "demo", "/f", strings.NewReader("root's"), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	// As uid/gid 65534 (nobody): cat, then an attempt to append.
	asNobody := func(script, dir string) (string, error) {
		cmd := exec.Command("sh", "-c", script, "sh", dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, allow := range []bool{false, true} {
		dir := filepath.Join(testenv.TraversableDir(t), "mnt")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		s, _ := e.startMount("demo", client.MountRequest{Dir: dir, AllowOther: allow})
		out, err := asNobody(`cat "$1/f"`, dir)
		switch {
		case !allow && (err == nil || !strings.Contains(out, "Permission denied")):
			t.Errorf("without allow_other, nobody's cat: %q %v, want Permission denied", out, err)
		case allow && (err != nil || out != "root's"):
			t.Errorf("with allow_other, nobody's cat: %q %v", out, err)
		}
		if allow {
			if out, err := asNobody(`echo more >> "$1/f"`, dir); err == nil || !strings.Contains(out, "Permission denied") {
				t.Errorf("with allow_other, nobody appended to root's 0644 file: %q %v", out, err)
			}
		}
		s.Close()
	}
}

// mountPoints lists where FUSE connection conn is mounted.
func mountPoints(t *testing.T, conn int) []string {
	t.Helper()
	ps, err := fusefs.MountPoints(conn)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}
