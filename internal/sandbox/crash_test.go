package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// testServer plays a desk server in a process of its own (the test binary
// run with "sandbox-test-server DIR"): it starts a sandbox running sleep,
// prints the init's host pid and waits to be killed.
func testServer(dir string) {
	fail := func(err error) { fmt.Println("error:", err); os.Exit(1) }
	ws := filepath.Join(dir, "ws")
	exe, _ := os.Executable()
	b, err := New(Options{
		Mount:    func(context.Context, Workspace) (Mount, error) { return Mount{Dir: ws}, nil },
		InitPath: exe, StateDir: filepath.Join(dir, "state"), RuntimeRoot: filepath.Join(dir, "runc"),
		CgroupParent: "desk-sandbox-test",
	})
	if err != nil {
		fail(err)
	}
	fs, err := vfs.Open(context.Background(), filepath.Join(dir, "ws.db"), vfs.Options{})
	if err != nil {
		fail(err)
	}
	go b.Run(context.Background(), &run.Job{ID: "x", Source: "sleep 1000", Cwd: "/", Env: run.DefaultEnv(),
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, FS: fs})
	// It polls /proc for the sleep (no event says a process started), with
	// a hang guard: the test waits for its first line.
	for deadline := time.Now().Add(30 * time.Second); ; {
		if time.Now().After(deadline) {
			fail(fmt.Errorf("no sleep in the sandbox after 30s"))
		}
		b.mu.Lock()
		x := b.boxes["ws"]
		b.mu.Unlock()
		if x != nil {
			<-x.ready
			if x.err != nil {
				fail(x.err)
			}
			if countProcs(nil, x, "sleep") == 1 {
				fmt.Println(x.initPID)
				select {}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testFUSEServer plays a desk server whose sandbox writes through its FUSE
// mount (the test binary run with "sandbox-test-server DIR fuse"): it runs
// writerSource, its output to standard output, until it is killed.
func testFUSEServer(dir string) {
	fail := func(err error) { fmt.Println("error:", err); os.Exit(1) }
	exe, _ := os.Executable()
	b, err := New(Options{InitPath: exe, StateDir: filepath.Join(dir, "state"), RuntimeRoot: filepath.Join(dir, "runc"),
		CgroupParent: "desk-sandbox-test"})
	if err != nil {
		fail(err)
	}
	fs, err := vfs.Open(context.Background(), filepath.Join(dir, "ws.db"), vfs.Options{})
	if err != nil {
		fail(err)
	}
	out, err := b.Run(context.Background(), &run.Job{ID: "x", Source: writerSource, Cwd: run.DefaultCwd, Env: run.DefaultEnv(),
		Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: os.Stderr, FS: fs})
	fail(fmt.Errorf("the writer ended: %v, %v", out, err))
}

func TestBackend_ServerKilledSandboxEnds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{}) // for its directory and checks
	dir := filepath.Join(e.dir, "srv")
	if err := os.MkdirAll(filepath.Join(dir, "ws"), 0o711); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o711)
	os.Chown(filepath.Join(dir, "ws"), DefaultHostID, DefaultHostID)
	exe, _ := os.Executable()
	srv := exec.Command(exe, "sandbox-test-server", dir)
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		srv.Process.Kill()
		t.Fatalf("test server said %q (%v)", line, err)
	}
	srv.Process.Signal(syscall.SIGKILL)
	srv.Wait()
	// The init sees its connection end and exits; runc deletes the container.
	waitFor(t, 10*time.Second, "the init to exit", func() bool { return syscall.Kill(pid, 0) != nil })
	waitFor(t, 10*time.Second, "the container to be deleted", func() bool {
		out, _ := exec.Command(e.b.opts.Runtime, "--root", filepath.Join(dir, "runc"), "list", "-q").Output()
		return strings.TrimSpace(string(out)) == ""
	})
}
