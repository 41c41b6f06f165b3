package exampletest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/testenv"
)

// Server is a running desk serve.
type Server struct {
	URL    string         // http://127.0.0.1:PORT
	Token  string         // the admin token
	Client *client.Client // a client with the admin token
}

// adminToken is the test server's admin token (at least 16 bytes).
const adminToken = "example-admin-token-0123456789ab"

// Start builds desk and runs `desk serve` with flags until the test ends. It
// returns once the server accepts connections: the server's own "desk serve
// listening" log line says so.
func Start(t testing.TB, flags ...string) *Server {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "desk")
	build := exec.Command(testenv.GoTool(t), "build", "-o", bin, "github.com/desk-dev/desk/cmd/desk")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build desk: %v\n%s", err, out)
	}
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"),
		"--no-config", "--token", adminToken, "--log-format", "json"}, flags...)
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start desk serve: %v", err)
	}
	ready := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		logLines(t, stderr, ready)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute): // a hang guard, not a wait
			cmd.Process.Kill()
			<-done
		}
		<-drained
	})
	var url string
	select {
	case url = <-ready:
	case <-drained:
		t.Fatal("desk serve exited before serving")
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("desk serve did not start")
	}
	c, err := client.New(url, adminToken, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &Server{URL: url, Token: adminToken, Client: c}
}

// logLines reads the server's JSON log: the URL of its "desk serve
// listening" line goes to ready, and warnings and errors to the test's log.
func logLines(t testing.TB, r io.Reader, ready chan<- string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var line struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
			URL   string `json:"url"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			t.Logf("desk serve: %s", sc.Text())
			continue
		}
		switch {
		case line.Msg == "desk serve listening" && line.URL != "":
			select {
			case ready <- line.URL:
			default:
			}
		case line.Level == "WARN" || line.Level == "ERROR":
			t.Logf("desk serve: %s", sc.Text())
		}
	}
}

// NeedSandbox creates the workspace ws and returns when the server offers
// it the sandbox backend; otherwise the test is skipped, or fails under
// DESK_REQUIRE_SANDBOX=1 (CI).
func (s *Server) NeedSandbox(t testing.TB, ctx context.Context, ws string) {
	t.Helper()
	if _, err := s.Client.CreateWorkspace(ctx, ws); err != nil && client.ErrorCode(err) != "exists" {
		t.Fatal(err)
	}
	st, err := s.Client.WorkspaceStats(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(st.Backends, "sandbox") {
		testenv.Need(t, testenv.Sandbox, errors.New("desk serve offers no sandbox backend here (it needs root, runc, user namespaces and /dev/fuse)"))
	}
}
