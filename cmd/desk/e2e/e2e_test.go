package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/testenv"
)

var bg = context.Background()

// node returns the node binary, or skips (fails with DESK_REQUIRE_MCP_E2E=1)
// when node or the TypeScript client is missing.
func node(t *testing.T) string {
	t.Helper()
	why := ""
	bin, err := exec.LookPath("node")
	if err != nil {
		why = "node is not installed"
	} else if _, err := os.Stat(filepath.Join("testdata", "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		why = "the TypeScript MCP client is not installed (npm ci --prefix cmd/desk/e2e/testdata)"
	}
	if why != "" {
		testenv.Need(t, testenv.MCPE2E, errors.New(why))
	}
	return bin
}

// server is a desk serve started from a freshly built binary.
type server struct {
	bin, url, admin string
	c               *client.Client
}

func startServer(t *testing.T, flags ...string) *server {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "desk")
	build := exec.Command("go", "build", "-o", bin, "github.com/desk-dev/desk/cmd/desk")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	admin := "e2e-admin-token-0123456789abcdef"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr, "--data", filepath.Join(dir, "data"), "--no-config", "--token", admin}, flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(40 * time.Second):
			cmd.Process.Kill()
		}
	})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if line := sc.Text(); strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") {
				t.Log("desk serve: " + line)
			}
		}
	}()
	url := "http://" + addr
	c, err := client.New(url, admin, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); c.Health(bg) != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("desk serve did not start")
		}
	}
	return &server{bin: bin, url: url, admin: admin, c: c}
}

// hasBackend reports whether the server offers a backend.
func (s *server) hasBackend(t *testing.T, ws, id string) bool {
	st, err := s.c.WorkspaceStats(bg, ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range st.Backends {
		if b == id {
			return true
		}
	}
	return false
}

// runNode runs a script of testdata with the session's environment.
func runNode(t *testing.T, nodeBin string, s *server, ws, token, backend string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, args...)
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), "DESK_BIN="+s.bin, "DESK_URL="+s.url, "DESK_TOKEN="+token, "DESK_WS="+ws, "DESK_BACKEND="+backend)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s\n%s", strings.Join(args, " "), err, out, errb.String())
	}
	return out
}

// TestMCP_TypeScriptClient runs the scripted session over stdio (desk mcp
// against the server) and over streamable HTTP (/mcp/{ws}), then checks the
// workspace through the API.
func TestMCP_TypeScriptClient(t *testing.T) {
	nodeBin := node(t)
	s := startServer(t)
	for _, mode := range []string{"stdio", "http"} {
		t.Run(mode, func(t *testing.T) {
			ws := "e2e-" + mode
			if _, err := s.c.CreateWorkspace(bg, ws); err != nil {
				t.Fatal(err)
			}
			m, err := s.c.MintToken(bg, client.TokenRequest{Workspace: ws, Scopes: []string{"read", "write", "exec"}})
			if err != nil {
				t.Fatal(err)
			}
			backend := "sandbox"
			if !s.hasBackend(t, ws, "sandbox") {
				if testenv.Sandbox.Required() {
					t.Fatalf("%s=1, but the server has no sandbox backend", testenv.Sandbox)
				}
				t.Log("no sandbox backend here: the session's tests run in the shell backend")
				backend = "shell"
			}
			out := runNode(t, nodeBin, s, ws, m.Secret, backend, "session.mjs", mode)
			var seen struct {
				OK       bool `json:"ok"`
				FirstRun struct {
					ExitCode int    `json:"exit_code"`
					Backend  string `json:"backend"`
					Progress int    `json:"progress"`
					// WireProgress counts the notifications that arrived
					// before the result (session.mjs checks it is not 0);
					// Progress those the SDK handed to onprogress.
					WireProgress int `json:"wireProgress"`
				} `json:"firstRun"`
				SecondRun struct {
					ExitCode int `json:"exit_code"`
				} `json:"secondRun"`
			}
			if err := json.Unmarshal(out, &seen); err != nil || !seen.OK {
				t.Fatalf("session output: %v\n%s", err, out)
			}
			t.Logf("%s: tests failed with %d, then passed (%s backend, %d progress notifications before the result, %d through onprogress)", mode, seen.FirstRun.ExitCode, seen.FirstRun.Backend, seen.FirstRun.WireProgress, seen.FirstRun.Progress)
			// The files, on disk, through the API.
			src, want := "/workspace/src/math.js", "return a + b;"
			if backend == "shell" {
				src, want = "/workspace/src/math.sh", "$1 + $2"
			}
			b, err := s.c.ReadFile(bg, ws, src)
			if err != nil || !strings.Contains(string(b), want) {
				t.Errorf("%s after the session: %v\n%s", src, err, b)
			}
			if _, err := s.c.Stat(bg, ws, "/workspace/build.txt"); err != nil {
				t.Errorf("build.txt: %v", err)
			}
			// The aborted call's execution was killed: follow its events to
			// its end (the stream ends after its exit event).
			var id string
			l, err := s.c.ListExecutions(bg, ws, client.ListExecutionsOptions{})
			for _, x := range l.Executions {
				if strings.Contains(x.Source, "sleep 60") {
					id = x.ID
				}
			}
			if err != nil || id == "" {
				t.Fatalf("the aborted call's execution: %v %+v", err, l)
			}
			ctx, cancel := context.WithTimeout(bg, 60*time.Second) // hang guard
			defer cancel()
			ev, err := s.c.Events(ctx, ws, id, client.EventsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for err == nil {
				_, err = ev.Next()
			}
			ev.Close()
			if err != io.EOF {
				t.Fatalf("events of the aborted call's execution (not killed within the hang guard?): %v", err)
			}
			if r, err := s.c.GetExecution(bg, ws, id); err != nil || r.Status != "cancelled" {
				t.Fatalf("the cancelled call's execution was not killed: %v %+v", err, r)
			}
		})
	}
}

// TestMCP_Latency measures tool-call latency from the TypeScript client
// (DESK_MCP_BENCH=N calls per tool; reported, not asserted). Without
// DESK_MCP_BENCH it makes 20 calls per tool, so that the benchmark's script
// runs in every test run (and cannot rot unseen).
func TestMCP_Latency(t *testing.T) {
	n := os.Getenv("DESK_MCP_BENCH")
	if n == "" {
		n = "20"
	}
	nodeBin := node(t)
	s := startServer(t, "--log-level", "warn")
	if _, err := s.c.CreateWorkspace(bg, "bench"); err != nil {
		t.Fatal(err)
	}
	m, err := s.c.MintToken(bg, client.TokenRequest{Workspace: "bench", Scopes: []string{"read", "write", "exec"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"stdio", "http"} {
		out := runNode(t, nodeBin, s, "bench", m.Secret, "shell", "bench.mjs", mode, n)
		t.Logf("%s", strings.TrimSpace(string(out)))
	}
}
