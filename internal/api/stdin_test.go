package api_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/run"
)

// gen yields n pseudo-random bytes.
func gen(n int64) io.Reader {
	return io.LimitReader(rand.NewChaCha8([32]byte{7}), n)
}

// execution returns the running execution id of workspace ws, from the
// runtime itself.
func (e *env) execution(ws, id string) *run.Execution {
	e.t.Helper()
	l, err := e.h.Acquire(bg, ws)
	if err != nil {
		e.t.Fatal(err)
	}
	defer l.Release()
	x, ok := l.Workspace().Runtime().Lookup(id)
	if !ok {
		e.t.Fatalf("execution %s is not running", id)
	}
	return x
}

// waitEnd waits for an execution to end (a hang guard bounds it).
func waitEnd(t *testing.T, x *run.Execution) *run.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg, time.Minute)
	defer cancel()
	res, err := x.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestAPI_StdinStream: stdin_stream takes a stdin of any size through PUT
// …/stdin, at the program's pace (a program that reads late is not a
// stalled body), and the misuses are refused.
func TestAPI_StdinStream(t *testing.T) {
	e := newEnv(t, envOpts{api: api.Options{BodyReadTimeout: 100 * time.Millisecond, BodyMinBytes: 1 << 30}})
	e.mkws("w")
	c := e.c
	const size = 64 << 20
	want := sha256.New()
	io.Copy(want, gen(size))
	// The program sleeps before it reads: far longer than the progress rule
	// allows a body to stall (it would be 408 timeout).
	x, err := c.Exec(bg, "w", client.ExecRequest{Source: "sleep 400ms\nsum", StdinStream: true})
	if err != nil || !x.StdinStream {
		t.Fatalf("exec = %+v, %v", x, err)
	}
	r, err := c.WriteStdin(bg, "w", x.ID, gen(size))
	if err != nil || r.Bytes != size {
		t.Fatalf("WriteStdin = %+v, %v", r, err)
	}
	ctx, cancel := context.WithTimeout(bg, time.Minute)
	defer cancel()
	s, err := c.Events(ctx, "w", x.ID, client.EventsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev, err := s.Next()
	if err != nil || string(ev.Data) != fmt.Sprintf("%d %x\n", size, want.Sum(nil)) {
		t.Fatalf("output %q, %v", ev.Data, err)
	}

	// Misuses. (Once the exit event is out, the execution takes no stdin.)
	if ev, err := s.Next(); err != nil || ev.Type != client.EventExit {
		t.Fatalf("exit event %+v, %v", ev, err)
	}
	_, err = c.WriteStdin(bg, "w", x.ID, strings.NewReader("again"))
	wantCode(t, "stdin of an ended execution", err, 409, api.CodeNotRunning)
	_, err = c.WriteStdin(bg, "w", "nope", strings.NewReader("x"))
	wantCode(t, "stdin of no execution", err, 404, api.CodeNotFound)
	y, err := c.Exec(bg, "w", client.ExecRequest{Source: "block"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.WriteStdin(bg, "w", y.ID, strings.NewReader("x"))
	wantCode(t, "stdin of an execution without a stream", err, 400, api.CodeInvalid)
	c.Kill(bg, "w", y.ID, "SIGKILL")
	z, err := c.Exec(bg, "w", client.ExecRequest{Source: "cat", StdinStream: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WriteStdin(bg, "w", z.ID, strings.NewReader("once")); err != nil {
		t.Fatal(err)
	}
	_, err = c.WriteStdin(bg, "w", z.ID, strings.NewReader("twice"))
	if client.ErrorCode(err) != api.CodeStdinTaken && client.ErrorCode(err) != api.CodeNotRunning {
		t.Errorf("a second stream: %v, want stdin_taken (or not_running: cat has ended)", err)
	}
	_, err = c.Exec(bg, "w", client.ExecRequest{Source: "cat", StdinStream: true, Stdin: "x"})
	wantCode(t, "stdin and stdin_stream", err, 400, api.CodeInvalid)
	_, err = c.Exec(bg, "w", client.ExecRequest{Source: "cat", Foreground: true, Detached: true})
	wantCode(t, "foreground and detached", err, 400, api.CodeInvalid)
	// The exec scope is needed.
	_, read := e.mint("w", nil, "read")
	_, err = e.client(read).WriteStdin(bg, "w", z.ID, strings.NewReader("x"))
	wantCode(t, "stdin with a read token", err, 403, api.CodeForbidden)
}

// TestAPI_Foreground: a foreground execution lives while a request follows
// it (its event stream, a wait=1 request) and is killed with SIGHUP after
// the grace period once the client's connection is gone.
func TestAPI_Foreground(t *testing.T) {
	e := newEnv(t, envOpts{run: run.Options{ForegroundGrace: 300 * time.Millisecond}})
	e.mkws("w")
	c := e.c
	hungUp := func(res *run.Result) {
		t.Helper()
		if res.Status != run.StatusCancelled || res.Signal != "SIGHUP" || !strings.Contains(res.Error, "nobody followed") {
			t.Errorf("result %s %s %q, want cancelled by SIGHUP", res.Status, res.Signal, res.Error)
		}
	}
	// Nobody follows it.
	x, err := c.Exec(bg, "w", client.ExecRequest{Source: "block", Foreground: true})
	if err != nil || !x.Foreground {
		t.Fatalf("exec = %+v, %v", x, err)
	}
	hungUp(waitEnd(t, e.execution("w", x.ID)))

	// Followed by an event stream on a connection of its own, which the
	// client then closes: the execution outlives the grace period while
	// followed (it sleeps past it), then is hung up.
	x, err = c.Exec(bg, "w", client.ExecRequest{Source: "echo started\nsleep 900ms\necho still here\nblock", Foreground: true})
	if err != nil {
		t.Fatal(err)
	}
	xe := e.execution("w", x.ID)
	tr := &http.Transport{}
	hc, err := client.New(e.url, e.admin, client.Options{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := hc.Events(bg, "w", x.ID, client.EventsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"started\n", "still here\n"} {
		if ev, err := s.Next(); err != nil || string(ev.Data) != want {
			t.Fatalf("event %+v, %v; want %q", ev, err, want)
		}
	}
	s.Close()
	tr.CloseIdleConnections()
	hungUp(waitEnd(t, xe))

	// wait=1 follows it for the whole request.
	res, err := c.Run(bg, "w", client.ExecRequest{Source: "sleep 900ms\necho done", Foreground: true})
	if err != nil || res.Status != client.StatusCompleted || res.Stdout != "done\n" {
		t.Errorf("wait=1 of a foreground execution: %+v, %v", res, err)
	}
	// An ordinary execution nobody follows runs on.
	x, err = c.Exec(bg, "w", client.ExecRequest{Source: "sleep 900ms\necho alone"})
	if err != nil {
		t.Fatal(err)
	}
	if res := waitEnd(t, e.execution("w", x.ID)); res.Status != run.StatusCompleted || res.Stdout != "alone\n" {
		t.Errorf("ordinary execution: %s %q", res.Status, res.Error)
	}
}
