package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
)

// repeatReader yields c for ever, without allocating.
type repeatReader byte

func (c repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

// postStreaming sends a chunked POST over its own connection, writing the
// body while it reads the response: a server that answers before the end of
// the body (and closes) is heard, however the write ends.
func postStreaming(t *testing.T, e *env, path, token string, body io.Reader) (int, []byte, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(hangGuard))
	req, err := http.NewRequest("POST", e.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	go req.Write(conn) // fails once the server closes: that is expected
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatalf("POST %s: no response: %v", path, err)
	}
	b, _ := io.ReadAll(resp.Body)
	var eb client.ErrorBody
	json.Unmarshal(b, &eb)
	return resp.StatusCode, b, eb.Error.Code
}

// TestAPI_hostileJSON: a deep `[[[[...` and a huge body, to a JSON route,
// the tools endpoint and MCP, end with the documented error, and the
// memory the server allocates for them stays under a bound far below the
// huge body's size.
func TestAPI_hostileJSON(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	_, tok := e.mint("w", nil, "read", "write")
	deep := func(n int) io.Reader { return bytes.NewReader(bytes.Repeat([]byte("["), n)) }
	huge := func() io.Reader { return io.LimitReader(repeatReader('['), 256<<20) }
	for _, c := range []struct {
		name, path, token string
		body              func() io.Reader
		status            int
		code, msg         string
		maxAlloc          uint64
	}{
		{"deep JSON body", "/v1/workspaces", e.admin, func() io.Reader { return deep(512 << 10) }, 400, "bad_json", "JSON nested deeper than 64 levels", 8 << 20},
		{"huge JSON body", "/v1/workspaces", e.admin, huge, 413, "too_large", "over the limit of 1048576 bytes", 16 << 20},
		{"deep tool input", "/v1/workspaces/w/tools/read", tok, func() io.Reader { return deep(4 << 20) }, 400, "bad_json", "JSON nested deeper than 64 levels", 32 << 20},
		{"huge tool input", "/v1/workspaces/w/tools/read", tok, huge, 413, "too_large", "over the limit of 8388608 bytes", 48 << 20},
		{"deep MCP message", "/mcp/w", tok, func() io.Reader { return deep(4 << 20) }, 400, "bad_json", "JSON nested deeper than 64 levels", 32 << 20},
		{"huge MCP message", "/mcp/w", tok, huge, 413, "too_large", "over the limit of 8388608 bytes", 48 << 20},
	} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		st, body, code := postStreaming(t, e, c.path, c.token, c.body())
		runtime.ReadMemStats(&after)
		if st != c.status || code != c.code || !strings.Contains(string(body), c.msg) {
			t.Errorf("%s: %d %s %s, want %d %s %q", c.name, st, code, body, c.status, c.code, c.msg)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > c.maxAlloc {
			t.Errorf("%s: %d MiB allocated, over the bound of %d MiB", c.name, alloc>>20, c.maxAlloc>>20)
		} else {
			t.Logf("%s: %.1f MiB allocated (bound %d MiB)", c.name, float64(alloc)/(1<<20), c.maxAlloc>>20)
		}
	}
}
