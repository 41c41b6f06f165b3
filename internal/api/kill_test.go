package api_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/run/runtest"
	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/workspace"
)

// The kill test runs a real server in a child process (this test binary,
// re-executed), writes through it and starts an execution, kills it with
// SIGKILL, restarts it on the same data directory and checks that every
// acknowledged write is there, the execution is reported failed, and the
// store checks clean.

const serverEnv = "DESK_API_TEST_SERVER"

// cpuProfileEnv names a file for the server child's CPU profile (the
// benchmarks' childServer; written when the child is stopped by SIGTERM).
const cpuProfileEnv = "DESK_API_BENCH_CPUPROFILE"

func TestMain(m *testing.M) {
	// The sandbox tests' backend runs this binary as its init.
	sandboxtest.RunInit()
	if len(os.Args) > 2 && os.Args[1] == benchServiceCommand {
		serveBenchService(os.Args[2]) // in a sandbox, for the port benchmarks
	}
	if dir := os.Getenv(serverEnv); dir != "" {
		if err := serveChild(dir); err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveChild serves the API over dir on a loopback port, prints "URL <url>
// TOKEN <admin>", and runs until killed (SIGTERM: graceful shutdown).
func serveChild(dir string) error {
	ctx := context.Background()
	h, err := host.Open(ctx, host.Options{DataDir: dir, Workspace: workspace.Options{
		Backends: map[string]run.Backend{"lines": runtest.Lines{}}, Run: run.Options{DefaultBackend: "lines"},
	}})
	if err != nil {
		return err
	}
	a, err := auth.Open(ctx, dir, auth.Options{})
	if err != nil {
		return err
	}
	srv, err := api.New(h, a, api.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := srv.NewHTTPServer(ln.Addr().String())
	if p := os.Getenv(cpuProfileEnv); p != "" {
		pf, err := os.Create(p)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			pf.Close()
		}()
	}
	fmt.Printf("URL http://%s TOKEN %s\n", ln.Addr(), a.AdminToken())
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
		srv.Shutdown(ctx, hs)
	}()
	if err := hs.Serve(ln); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}

type child struct {
	cmd   *exec.Cmd
	url   string
	token string
}

func startChild(t *testing.T, dir string) *child { return startChildTB(t, dir) }

func startChildTB(t testing.TB, dir string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), serverEnv+"="+dir)
	cmd.Stderr = os.Stderr
	line, err := testenv.FirstLine(t, cmd)
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("server child: %v", err)
	}
	var c child
	if _, err := fmt.Sscanf(line, "URL %s TOKEN %s", &c.url, &c.token); err != nil {
		cmd.Process.Kill()
		t.Fatalf("server child said %q", line)
	}
	c.cmd = cmd
	return &c
}

func TestServer_KillRestart(t *testing.T) {
	dir := t.TempDir()
	ch := startChild(t, dir)
	c, err := client.New(ch.url, ch.token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateWorkspace(bg, "k"); err != nil {
		t.Fatal(err)
	}
	ex, err := c.Exec(bg, "k", client.ExecRequest{Source: "echo started\nblock"})
	if err != nil {
		t.Fatal(err)
	}
	// Write until the server dies; remember what was acknowledged.
	acked := map[string]string{}
	// The kill comes while writes are in flight: once 200 are acknowledged,
	// from another goroutine, so that the writer is mid-request when it lands.
	killed := make(chan struct{})
	kill := make(chan struct{})
	go func() {
		<-kill
		ch.cmd.Process.Signal(syscall.SIGKILL)
		close(killed)
	}()
	for i := 0; ; i++ {
		if i == 200 {
			close(kill)
		}
		p := fmt.Sprintf("/d%d/f%d", i%7, i)
		data := strings.Repeat(fmt.Sprint(i), 1+i%500)
		if _, err := c.WriteFile(bg, "k", p, strings.NewReader(data), client.WriteOptions{Parents: true}); err != nil {
			select {
			case <-killed:
			default:
				t.Fatalf("write %d failed before the kill: %v", i, err)
			}
			break
		}
		acked[p] = data
	}
	ch.cmd.Wait()
	if len(acked) == 0 {
		t.Fatal("nothing was acknowledged before the kill")
	}

	ch = startChild(t, dir)
	c, err = client.New(ch.url, ch.token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range acked {
		got, err := c.ReadFile(bg, "k", p)
		if err != nil || string(got) != want {
			t.Fatalf("%s after restart: %d bytes, %v; want %d bytes", p, len(got), err, len(want))
		}
	}
	r, err := c.GetExecution(bg, "k", ex.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != client.StatusFailed || !strings.Contains(r.Error, "stopped") {
		t.Fatalf("execution after restart: status %q, error %q", r.Status, r.Error)
	}
	// Stop gracefully, then check the store directly.
	ch.cmd.Process.Signal(syscall.SIGTERM)
	if err := ch.cmd.Wait(); err != nil {
		t.Fatalf("graceful stop: %v", err)
	}
	f, err := vfs.Open(bg, filepath.Join(dir, "workspaces", "k.db"), vfs.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := f.Check(bg)
	if err != nil || !rep.OK() {
		t.Fatalf("check after kill and restart: %v %v", err, rep.Problems)
	}
	t.Logf("%d writes acknowledged before SIGKILL; all present after restart; store checks clean", len(acked))
}
