package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
)

func TestAPI_Auth(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w1", "w2")
	if _, err := e.c.WriteFile(bg, "w1", "/f", strings.NewReader("data"), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, reader := e.mint("w1", nil, "read")
	_, writer := e.mint("w1", nil, "write")
	_, execOther := e.mint("w1", []string{"other"}, "exec", "read")
	revokedID, revoked := e.mint("w1", nil, "read", "write", "exec")
	if err := e.c.RevokeToken(bg, revokedID); err != nil {
		t.Fatal(err)
	}
	tl, err := e.c.ListTokens(bg, "", 0)
	if err != nil || len(tl.Tokens) != 4 {
		t.Fatalf("tokens = %+v, %v", tl, err)
	}
	for _, tok := range tl.Tokens {
		if tok.ID == revokedID && !tok.Revoked {
			t.Errorf("revoked token listed as active")
		}
	}
	for _, tc := range []struct {
		name, method, path, token, body string
		status                          int
		code                            string
	}{
		{"no token", "GET", "/v1/workspaces/w1/files/f", "", "", 401, api.CodeUnauthorized},
		{"wrong token", "GET", "/v1/workspaces/w1/files/f", "desk_0123456789abcdef_nope", "", 401, api.CodeUnauthorized},
		{"garbage token", "GET", "/v1/workspaces/w1/files/f", "garbage", "", 401, api.CodeUnauthorized},
		{"revoked", "GET", "/v1/workspaces/w1/files/f", revoked, "", 401, api.CodeUnauthorized},
		{"openapi needs a token", "GET", "/openapi.json", "", "", 401, api.CodeUnauthorized},
		{"wrong workspace", "GET", "/v1/workspaces/w2/files/f", reader, "", 403, api.CodeForbidden},
		{"wrong scope: write", "PUT", "/v1/workspaces/w1/files/f", reader, "x", 403, api.CodeForbidden},
		{"wrong scope: read", "GET", "/v1/workspaces/w1/files/f", writer, "", 403, api.CodeForbidden},
		{"wrong scope: exec", "POST", "/v1/workspaces/w1/executions", reader, `{"source":"echo"}`, 403, api.CodeForbidden},
		{"wrong backend", "POST", "/v1/workspaces/w1/executions", execOther, `{"source":"echo","backend":"lines"}`, 403, api.CodeForbidden},
		{"default backend not allowed", "POST", "/v1/workspaces/w1/executions", execOther, `{"source":"echo"}`, 403, api.CodeForbidden},
		{"admin only: create", "POST", "/v1/workspaces", reader, `{"name":"w3"}`, 403, api.CodeForbidden},
		{"admin only: delete", "DELETE", "/v1/workspaces/w1", writer, "", 403, api.CodeForbidden},
		{"admin only: tokens", "GET", "/v1/tokens", reader, "", 403, api.CodeForbidden},
		{"admin only: mint", "POST", "/v1/tokens", writer, `{"workspace":"w1","scopes":["read"]}`, 403, api.CodeForbidden},
		{"admin only: metrics", "GET", "/metrics", reader, "", 403, api.CodeForbidden},
		{"mint: bad scope", "POST", "/v1/tokens", e.admin, `{"workspace":"w1","scopes":["root"]}`, 400, api.CodeInvalid},
		{"mint: unknown backend", "POST", "/v1/tokens", e.admin, `{"workspace":"w1","scopes":["exec"],"backends":["bogus"]}`, 400, api.CodeUnknownBackend},
		{"mint: a known and an unknown backend", "POST", "/v1/tokens", e.admin, `{"workspace":"w1","scopes":["exec"],"backends":["lines","bogus"]}`, 400, api.CodeUnknownBackend},
		{"mint: auto alone", "POST", "/v1/tokens", e.admin, `{"workspace":"w1","scopes":["exec"],"backends":["auto"]}`, 400, api.CodeInvalid},
		{"mint: backends without exec", "POST", "/v1/tokens", e.admin, `{"workspace":"w1","scopes":["read"],"backends":["lines"]}`, 400, api.CodeInvalid},
		{"mint: empty scope", "POST", "/v1/tokens", e.admin, `{"workspace":"w1","scopes":[""]}`, 400, api.CodeInvalid},
		{"mint: no scopes", "POST", "/v1/tokens", e.admin, `{"workspace":"w1","scopes":[]}`, 400, api.CodeInvalid},
		{"mint: no workspace", "POST", "/v1/tokens", e.admin, `{"workspace":"nope","scopes":["read"]}`, 404, api.CodeNotFound},
		{"revoke unknown", "DELETE", "/v1/tokens/0000000000000000", e.admin, "", 404, api.CodeNotFound},
	} {
		var body io.Reader
		if tc.body != "" {
			body = strings.NewReader(tc.body)
		}
		st, _, code := e.raw(tc.method, tc.path, tc.token, body)
		if st != tc.status || code != tc.code {
			t.Errorf("%s: %d %s, want %d %s", tc.name, st, code, tc.status, tc.code)
		}
	}
	_, err = e.c.MintToken(bg, client.TokenRequest{Workspace: "w1", Scopes: []string{"exec"}, Backends: []string{"bogus"}})
	if err == nil || !strings.Contains(err.Error(), `unknown backend "bogus": this server's backends are lines, other`) {
		t.Errorf("mint with a bogus backend: %v", err)
	}
	if tl, err := e.c.ListTokens(bg, "", 0); err != nil || len(tl.Tokens) != 4 {
		t.Errorf("refused mints made tokens: %+v, %v", tl, err)
	}
	// What the tokens may do.
	rc := e.client(reader)
	if b, err := rc.ReadFile(bg, "w1", "/f"); err != nil || string(b) != "data" {
		t.Fatalf("reader read = %q, %v", b, err)
	}
	if l, err := rc.ListWorkspaces(bg, "", 0); err != nil || len(l.Workspaces) != 1 || l.Workspaces[0].Name != "w1" {
		t.Fatalf("reader list = %+v, %v", l, err)
	}
	if _, err := e.client(writer).WriteFile(bg, "w1", "/g", strings.NewReader("y"), client.WriteOptions{}); err != nil {
		t.Fatalf("writer write: %v", err)
	}
	if r, err := e.client(execOther).Run(bg, "w1", client.ExecRequest{Source: "echo ok", Backend: "other"}); err != nil || r.Stdout != "ok\n" {
		t.Fatalf("exec token run = %+v, %v", r, err)
	}
	if b, _ := e.c.ReadFile(bg, "w1", "/f"); string(b) != "data" {
		t.Fatalf("refused requests changed data: %q", b)
	}
	// Deleting a workspace revokes its tokens.
	if err := e.c.DeleteWorkspace(bg, "w1"); err != nil {
		t.Fatal(err)
	}
	e.mkws("w1")
	_, err = rc.GetWorkspace(bg, "w1")
	wantCode(t, "token of a deleted workspace", err, 401, api.CodeUnauthorized)
}

// TestOpenAPI_Routes checks that every route the server answers is in
// /openapi.json and every documented route reaches a handler.
func TestOpenAPI_Routes(t *testing.T) {
	e := newEnv(t, envOpts{})
	b, err := e.c.OpenAPI(bg)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("document: %v %q", err, doc.OpenAPI)
	}
	var documented []string
	for p, ops := range doc.Paths {
		for m, op := range ops {
			documented = append(documented, strings.ToUpper(m)+" "+p)
			if op["operationId"] == nil || op["responses"] == nil {
				t.Errorf("%s %s: no operationId or responses", m, p)
			}
		}
	}
	slices.Sort(documented)
	registered := api.Routes()
	slices.Sort(registered)
	if !slices.Equal(documented, registered) {
		t.Fatalf("documented routes %v\n!= registered routes %v", documented, registered)
	}
	// Every documented route reaches its handler: the catch-all answers
	// "no route for ..." and the mux 405; neither may happen.
	fill := strings.NewReplacer("{ws}", "nows", "{path}", "some/file", "{id}", "someid", "{name}", "read")
	for _, r := range documented {
		m, p, _ := strings.Cut(r, " ")
		st, body, _ := e.raw(m, fill.Replace(p), e.admin, nil)
		if st == http.StatusMethodNotAllowed || strings.Contains(string(body), "no route for") {
			t.Errorf("%s: not routed (%d %s)", r, st, body)
		}
	}
}

// TestAPI_Concurrent runs 200 clients on 50 workspaces for a bounded time:
// every request succeeds and every acknowledged write is read back. (With
// fewer open slots than workspaces, see TestAPI_ConcurrentEviction.)
func TestAPI_Concurrent(t *testing.T) {
	concurrentClients(t, 50, 200, 64, false)
}

// TestAPI_ConcurrentEviction is TestAPI_Concurrent with 3 open slots for 6
// workspaces, so workspaces are evicted and reopened under load; busy and
// unavailable answers are then allowed.
func TestAPI_ConcurrentEviction(t *testing.T) {
	concurrentClients(t, 6, 24, 3, true)
}

func concurrentClients(t *testing.T, workspaces, clients, maxOpen int, allowBusy bool) {
	e := newEnv(t, envOpts{host: hostOpts(maxOpen)})
	for i := range workspaces {
		e.mkws(fmt.Sprintf("ws%d", i))
	}
	ctx, cancel := context.WithTimeout(bg, 2*time.Second)
	defer cancel()
	var mu sync.Mutex
	written := map[string][]byte{} // "ws path" -> last acknowledged content
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for ci := range clients {
		wg.Go(func() {
			ws := fmt.Sprintf("ws%d", ci%workspaces)
			c := e.client(e.admin)
			for n := 0; ctx.Err() == nil; n++ {
				p := fmt.Sprintf("/c%d/f%d", ci, n%5)
				data := []byte(fmt.Sprintf("%d-%d", ci, n))
				var err error
				switch n % 4 {
				case 0, 1:
					_, err = c.WriteFile(bg, ws, p, bytes.NewReader(data), client.WriteOptions{Parents: true})
					if err == nil {
						mu.Lock()
						written[ws+" "+p] = data
						mu.Unlock()
					}
				case 2:
					_, err = c.ReadDir(bg, ws, "/", "", 0)
				case 3:
					var r client.Result
					r, err = c.Run(bg, ws, client.ExecRequest{Source: "echo " + string(data)})
					if err == nil && r.Stdout != string(data)+"\n" {
						err = fmt.Errorf("exec output %q", r.Stdout)
					}
				}
				if err != nil && !(allowBusy && (client.ErrorCode(err) == api.CodeBusy || client.ErrorCode(err) == api.CodeUnavailable)) {
					errs <- fmt.Errorf("client %d op %d: %w", ci, n, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for k, want := range written {
		ws, p, _ := strings.Cut(k, " ")
		got, err := e.c.ReadFile(bg, ws, p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %q, %v; want %q", k, got, err, want)
		}
	}
	if len(written) == 0 {
		t.Fatal("nothing written")
	}
}

// TestServer_Shutdown checks that Shutdown ends streams and stops running
// executions, whose records say so after a restart.
func TestServer_Shutdown(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	ex, err := e.c.Exec(bg, "w", client.ExecRequest{Source: "echo a\nblock"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.c.Events(bg, "w", ex.ID, client.EventsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Shutdown(bg, nil); err != nil {
		t.Fatal(err)
	}
	// The stream ends: with the execution's exit event or the shutdown error.
	for {
		ev, err := s.Next()
		if err != nil {
			if c := client.ErrorCode(err); c != api.CodeUnavailable && err != io.EOF {
				t.Fatalf("stream ended with %v", err)
			}
			break
		}
		if ev.Type == client.EventExit && ev.Exit.Status != client.StatusFailed {
			t.Fatalf("exit = %+v", ev.Exit)
		}
	}
	s.Close()
	_, err = e.c.WorkspaceStats(bg, "w")
	wantCode(t, "after shutdown", err, 503, api.CodeUnavailable)
}
