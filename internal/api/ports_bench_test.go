package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/sandbox"
)

// benchServiceCommand makes the test binary (bound in the sandbox as its
// init) an HTTP service on 127.0.0.1:PORT: benchHandler.
const benchServiceCommand = "api-test-bench-service"

// benchHandler answers /small with 2 bytes and /big with 1 MiB.
var benchHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/big" {
		w.Header().Set("Content-Length", strconv.Itoa(len(bigBody)))
		w.Write(bigBody)
		return
	}
	io.WriteString(w, "ok")
})

var bigBody = bytes.Repeat([]byte("x"), 1<<20)

func serveBenchService(port string) {
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	fmt.Println("listening")
	http.Serve(l, benchHandler)
	os.Exit(0)
}

// benchGet GETs u with c (keep-alive) b.N times.
func benchGet(b *testing.B, hc *http.Client, u, tok string, size int64) {
	b.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	b.SetBytes(size)
	for b.Loop() {
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || n != size {
			b.Fatalf("%d, %d bytes", res.StatusCode, n)
		}
	}
}

// BenchmarkPorts measures a request to a Go HTTP service: on the host's
// loopback (direct, the baseline), through the preview URL (the API
// server, its transport's pooled connection, the sandbox's init, the
// service in the sandbox) and over one forwarded connection (client.DialPort:
// the raw tunnel, what desk port-forward carries). small: a 2-byte answer
// (latency); big: 1 MiB (throughput).
func BenchmarkPorts(b *testing.B) {
	direct := httptest.NewServer(benchHandler)
	defer direct.Close()
	e := newPortsEnv(b)
	ctx := context.Background()
	if _, err := e.admin.Exec(ctx, "w", client.ExecRequest{Source: "exec /.desk/init " + benchServiceCommand + " 8100", Backend: sandbox.ID, Detached: true, ID: "bench"}); err != nil {
		b.Fatal(err)
	}
	waitServiceOutput(b, e.admin, "w", "bench", "listening")
	c, _ := client.New(e.ts.URL, e.token, client.Options{})
	fwd := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return c.DialPort(ctx, "w", 8100) }}}
	for _, size := range []struct {
		name string
		n    int64
	}{{"small", 2}, {"big", 1 << 20}} {
		path := "/" + size.name
		b.Run("direct/"+size.name, func(b *testing.B) { benchGet(b, &http.Client{}, direct.URL+path, "", size.n) })
		b.Run("preview/"+size.name, func(b *testing.B) {
			benchGet(b, &http.Client{}, e.ts.URL+"/v1/workspaces/w/ports/8100"+path, e.token, size.n)
		})
		b.Run("forward/"+size.name, func(b *testing.B) { benchGet(b, fwd, "http://localhost:8100"+path, "", size.n) })
	}
}
