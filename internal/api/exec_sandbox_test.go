package api_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/sandbox"
)

// TestExec_detachedSandbox starts a service through the API on the real
// sandbox backend, talks to it from an ordinary execution, follows its log,
// lists it and kills it.
func TestExec_detachedSandbox(t *testing.T) {
	ctx := context.Background()
	c, sb := sandboxAPI(t, "desk-api-test")
	if _, err := c.CreateWorkspace(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WriteFile(ctx, "w", "/workspace/hello.txt", strings.NewReader("hello over http\n"), client.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}

	// Refused: with wait=1, on the shell backend, with stdin.
	_, err := c.Run(ctx, "w", client.ExecRequest{Source: "sleep 1", Backend: sandbox.ID, Detached: true})
	wantCode(t, "wait=1", err, http.StatusBadRequest, api.CodeInvalid)
	_, err = c.Exec(ctx, "w", client.ExecRequest{Source: "sleep 1", Backend: "shell", Detached: true})
	wantCode(t, "shell", err, http.StatusBadRequest, api.CodeInvalid)
	if err == nil || !strings.Contains(err.Error(), "backend shell cannot run detached executions") {
		t.Errorf("shell: %v", err)
	}
	_, err = c.Exec(ctx, "w", client.ExecRequest{Source: "cat", Backend: sandbox.ID, Stdin: "x", Detached: true})
	wantCode(t, "stdin", err, http.StatusBadRequest, api.CodeInvalid)

	// Started through auto: it runs on the sandbox, and the request
	// returns once it has started.
	web, err := c.Exec(ctx, "w", client.ExecRequest{Source: "exec python3 -u -m http.server 8766 --bind 127.0.0.1", Backend: "auto", Detached: true, ID: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if web.Backend != sandbox.ID || !web.Detached || web.Status != client.StatusRunning || web.Requested != "auto" {
		t.Fatalf("started: %+v", web)
	}
	res, err := c.Run(ctx, "w", client.ExecRequest{Backend: sandbox.ID,
		Source: `for i in $(seq 200); do curl -sf http://127.0.0.1:8766/hello.txt && exit 0; sleep 0.05; done; exit 1`})
	if err != nil || res.ExitCode != 0 || res.Stdout != "hello over http\n" {
		w, _ := c.GetExecution(ctx, "w", "web")
		t.Fatalf("curl: exit %d, stdout %q, stderr %q, %v\nthe service: %s exit %d %q\nstdout %q\nstderr %q", res.ExitCode, res.Stdout, res.Stderr, err, w.Status, w.ExitCode, w.Error, w.Stdout, w.Stderr[max(0, len(w.Stderr)-300):])
	}
	l, err := c.ListExecutions(ctx, "w", client.ListExecutionsOptions{Status: client.StatusRunning})
	if err != nil || len(l.Executions) != 1 || l.Executions[0].ID != "web" || !l.Executions[0].Detached {
		t.Fatalf("running: %+v, %v", l, err)
	}

	// Its log, followed live; then killed, the stream ends with its exit.
	s, err := c.Events(ctx, "w", "web", client.EventsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var log strings.Builder
	for !strings.Contains(log.String(), "GET /hello.txt") {
		ev, err := s.Next()
		if err != nil {
			t.Fatalf("events (so far %q): %v", log.String(), err)
		}
		log.Write(ev.Data)
	}
	if err := c.Kill(ctx, "w", "web", "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	var exit *client.Exit
	for exit == nil {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		exit = ev.Exit
	}
	if exit == nil || exit.Status != client.StatusCancelled || exit.Signal != "SIGTERM" {
		t.Errorf("exit: %+v", exit)
	}
	got, err := c.GetExecution(ctx, "w", "web")
	if err != nil || got.Status != client.StatusCancelled || !got.Detached {
		t.Errorf("record: %+v, %v", got.Execution, err)
	}
	if l, err := sb.ListDetached(ctx, "w"); err != nil || len(l) != 1 || l[0].Running || l[0].Procs != 0 {
		t.Errorf("the sandbox's detached executions: %+v, %v", l, err)
	}
}
