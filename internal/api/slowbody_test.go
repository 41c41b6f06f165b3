package api_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
)

// hangGuard bounds every wait of these tests; it never decides a result.
const hangGuard = time.Minute

// slowEnv is a server under NewHTTPServer (its timeouts are the options')
// on a loopback listener, with small timeouts.
func slowEnv(t *testing.T, o api.Options) (*env, string) {
	t.Helper()
	e := newEnv(t, envOpts{api: o})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := e.srv.NewHTTPServer(ln.Addr().String())
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	e.mkws("w")
	return e, ln.Addr().String()
}

// dial opens a connection and writes what.
func dial(t *testing.T, addr, what string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, what); err != nil {
		t.Fatal(err)
	}
	return c
}

// waitClosed reads c until the server closes it and returns what it sent.
func waitClosed(t *testing.T, c net.Conn, what string) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(hangGuard))
	b, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%s: the server did not close the connection within %v (hang guard); it sent %q", what, hangGuard, b)
	}
	return string(b)
}

// heldPut is a PUT whose headers promise a body of which only a part comes.
func heldPut(token, path string) string {
	return fmt.Sprintf("PUT /v1/workspaces/w/files/%s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 100000\r\n\r\n0123456789", path, token)
}

// TestSlowClient: a client that sends headers and holds the body, one that
// holds its headers, and an idle kept-alive connection are each closed by
// the server once their timeout passes; a held body is answered 408 timeout
// and writes nothing.
func TestSlowClient(t *testing.T) {
	e, addr := slowEnv(t, api.Options{BodyReadTimeout: time.Second, BodyMinBytes: 1024, ReadHeaderTimeout: time.Second, IdleTimeout: time.Second})

	t.Run("held PUT body", func(t *testing.T) {
		got := waitClosed(t, dial(t, addr, heldPut(e.admin, "slow")), "held PUT body")
		if !strings.HasPrefix(got, "HTTP/1.1 408 ") || !strings.Contains(got, `"code":"timeout"`) || !strings.Contains(got, "less than 1024 bytes in 1s") {
			t.Errorf("held PUT body answered %q, want 408 timeout", got)
		}
		if _, err := e.c.Stat(bg, "w", "/slow"); client.ErrorCode(err) != "ENOENT" {
			t.Errorf("a held PUT left /slow: %v", err)
		}
	})
	t.Run("held JSON body", func(t *testing.T) {
		c := dial(t, addr, "POST /v1/workspaces/w/files/d?op=mkdir HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+e.admin+"\r\nContent-Length: 50\r\n\r\n{\"mo")
		if got := waitClosed(t, c, "held JSON body"); !strings.HasPrefix(got, "HTTP/1.1 408 ") {
			t.Errorf("held JSON body answered %q, want 408", got)
		}
	})
	t.Run("held body of a refused request", func(t *testing.T) {
		if got := waitClosed(t, dial(t, addr, heldPut("desk_0123456789abcdef_nope", "refused")), "refused held PUT"); !strings.HasPrefix(got, "HTTP/1.1 401 ") {
			t.Errorf("refused held PUT answered %q, want 401", got)
		}
	})
	t.Run("held headers", func(t *testing.T) {
		waitClosed(t, dial(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n"), "held headers")
	})
	t.Run("idle connection", func(t *testing.T) {
		c := dial(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(hangGuard))
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz: %v %v", resp, err)
		}
		io.Copy(io.Discard, resp.Body)
		c.SetReadDeadline(time.Now().Add(hangGuard))
		if rest, err := io.ReadAll(br); errors.Is(err, os.ErrDeadlineExceeded) || len(rest) != 0 {
			t.Fatalf("idle connection not closed (%v), or sent %q", err, rest)
		}
	})
}

// TestSlowClient_bodyReadThenLongHandler: the body's deadline ends with the
// body. A wait=1 execution that outlives BodyReadTimeout after its body was
// read still gets its result: a held body sent after it, and closed by the
// server for its own timeout, shows that the time has passed.
func TestSlowClient_bodyReadThenLongHandler(t *testing.T) {
	e, addr := slowEnv(t, api.Options{BodyReadTimeout: time.Second, BodyMinBytes: 1024})
	body := `{"source":"block","id":"long"}`
	long := dial(t, addr, fmt.Sprintf("POST /v1/workspaces/w/executions?wait=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", e.admin, len(body), body))
	// The execution runs once its request's body was read.
	deadline := time.Now().Add(hangGuard)
	for {
		r, err := e.c.GetExecution(bg, "w", "long")
		if err == nil && r.Status == client.StatusRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution long not running within %v (hang guard): %v", hangGuard, err)
		}
	}
	waitClosed(t, dial(t, addr, heldPut(e.admin, "clock")), "held PUT body")
	if err := e.c.Kill(bg, "w", "long", ""); err != nil {
		t.Fatal(err)
	}
	long.SetReadDeadline(time.Now().Add(hangGuard))
	resp, err := http.ReadResponse(bufio.NewReader(long), nil)
	if err != nil {
		t.Fatalf("the wait=1 request got no response: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 || !strings.Contains(string(b), `"status":"cancelled"`) {
		t.Fatalf("wait=1 after its body: %d %s, want 201 and the killed execution's result", resp.StatusCode, b)
	}
	// A body that keeps coming is not cut, however long it takes in all.
	data := strings.Repeat("x", 4<<20)
	c := e.client(e.admin)
	c2, _ := client.New("http://"+addr, e.admin, client.Options{})
	if _, err := c2.WriteFile(bg, "w", "/big", strings.NewReader(data), client.WriteOptions{}); err != nil {
		t.Fatalf("a 4 MiB upload: %v", err)
	}
	if got, err := c.ReadFile(bg, "w", "/big"); err != nil || len(got) != len(data) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
}

// waitMetric waits until the server's metric name is n.
func waitMetric(t *testing.T, e *env, name string, n int) {
	t.Helper()
	want := fmt.Sprintf("\n%s %d\n", name, n)
	deadline := time.Now().Add(hangGuard)
	for {
		m, err := e.c.Metrics(bg)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(m), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not %d within %v (hang guard)", name, n, hangGuard)
		}
	}
}

// TestSlowClient_maxUploads: past MaxUploads held bodies, a PUT waits for
// its turn and goes through once a held one is gone; 20 held PUTs with 2
// slots all end, timed out in turn.
func TestSlowClient_maxUploads(t *testing.T) {
	// Held bodies that do not time out during the test: the client ends them.
	e, addr := slowEnv(t, api.Options{BodyReadTimeout: 10 * hangGuard, MaxUploads: 2})
	held := []net.Conn{dial(t, addr, heldPut(e.admin, "h1")), dial(t, addr, heldPut(e.admin, "h2"))}
	waitMetric(t, e, "desk_http_uploads", 2)
	third := make(chan error, 1)
	go func() {
		_, err := e.c.WriteFile(bg, "w", "/third", strings.NewReader("x"), client.WriteOptions{})
		third <- err
	}()
	waitMetric(t, e, "desk_http_uploads_waiting", 1)
	held[0].Close()
	select {
	case err := <-third:
		if err != nil {
			t.Fatalf("the waiting PUT: %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatalf("the waiting PUT did not end within %v of a slot's release (hang guard)", hangGuard)
	}

	e, addr = slowEnv(t, api.Options{BodyReadTimeout: 200 * time.Millisecond, BodyMinBytes: 1024, MaxUploads: 2})
	const n = 20
	var wg sync.WaitGroup
	codes := make([]string, n)
	for i := range n {
		c := dial(t, addr, heldPut(e.admin, fmt.Sprintf("many%d", i)))
		wg.Go(func() {
			got := waitClosed(t, c, "one of many held PUTs")
			codes[i], _, _ = strings.Cut(got, "\r\n")
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != "HTTP/1.1 408 Request Timeout" {
			t.Errorf("held PUT %d of %d with MaxUploads 2: %q, want 408", i, n, c)
		}
	}
}
