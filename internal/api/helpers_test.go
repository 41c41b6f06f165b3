package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/run/runtest"
	"github.com/desk-dev/desk/internal/share"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/workspace"
)

// env is a running server over a host in a temporary directory.
type env struct {
	t     testing.TB
	dir   string
	url   string
	admin string
	srv   *api.Server
	ts    *httptest.Server
	c     *client.Client // with the admin token
	h     *host.Host
}

type envOpts struct {
	dir  string // the data directory (default: a t.TempDir)
	api  api.Options
	vfs  vfs.Options
	run  run.Options
	host host.Options
	// shares, if set, gives the server a share store in DIR/shares with
	// these options (Dir and BaseURL filled in: the test server's URL).
	shares *share.Options
}

func newEnv(t *testing.T, o envOpts) *env { return newEnvTB(t, o) }

// newEnvTB is newEnv for benchmarks too.
func newEnvTB(t testing.TB, o envOpts) *env {
	t.Helper()
	ctx := context.Background()
	dir := o.dir
	if dir == "" {
		dir = t.TempDir()
	}
	ho := o.host
	ho.DataDir = dir
	ho.Workspace = workspace.Options{
		Backends: map[string]run.Backend{"lines": runtest.Lines{}, "other": runtest.Lines{}},
		Run:      o.run,
		VFS:      o.vfs,
	}
	if ho.Workspace.Run.DefaultBackend == "" {
		ho.Workspace.Run.DefaultBackend = "lines"
	}
	h, err := host.Open(ctx, ho)
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.Open(ctx, dir, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.api.Logger == nil {
		o.api.Logger = slog.New(slog.DiscardHandler)
	}
	ts := httptest.NewUnstartedServer(nil)
	if o.shares != nil {
		so := *o.shares
		so.Dir, so.BaseURL = filepath.Join(dir, "shares"), "http://"+ts.Listener.Addr().String()
		st, err := share.Open(ctx, so)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		o.api.Shares = st
	}
	srv, err := api.New(h, a, o.api)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv
	ts.Start()
	e := &env{t: t, dir: dir, url: ts.URL, admin: a.AdminToken(), srv: srv, ts: ts, h: h}
	e.c = e.client(e.admin)
	t.Cleanup(func() {
		if err := srv.Shutdown(ctx, nil); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		ts.Close()
	})
	return e
}

func (e *env) client(token string) *client.Client {
	c, err := client.New(e.url, token, client.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// mkws creates workspaces.
func (e *env) mkws(names ...string) {
	e.t.Helper()
	for _, n := range names {
		if _, err := e.c.CreateWorkspace(context.Background(), n); err != nil {
			e.t.Fatal(err)
		}
	}
}

// mint returns a workspace token's secret.
func (e *env) mint(ws string, backends []string, scopes ...string) (string, string) {
	e.t.Helper()
	m, err := e.c.MintToken(context.Background(), client.TokenRequest{Workspace: ws, Scopes: scopes, Backends: backends})
	if err != nil {
		e.t.Fatal(err)
	}
	return m.Token.ID, m.Secret
}

// send sends a plain HTTP request with the bearer token (none if "") and
// the headers hdr (name, value pairs), following no redirects, and returns
// the response with its body and the error reading that.
func (e *env) send(method, path, token string, body io.Reader, hdr ...string) (*http.Response, []byte, error) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req) // no redirects followed
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// raw sends a plain HTTP request (see send) and returns the status, body
// and the error code, if the body is an error.
func (e *env) raw(method, path, token string, body io.Reader, hdr ...string) (int, []byte, string) {
	e.t.Helper()
	resp, b, _ := e.send(method, path, token, body, hdr...)
	var eb client.ErrorBody
	// git's routes answer errors in plain text, which git shows.
	if resp.StatusCode >= 400 && !strings.HasPrefix(path, "/git/") {
		if err := json.Unmarshal(b, &eb); err != nil || eb.Error.Code == "" || eb.Error.Message == "" {
			e.t.Errorf("%s %s: status %d with a body that is not a JSON error: %q", method, path, resp.StatusCode, b)
		}
	}
	return resp.StatusCode, b, eb.Error.Code
}

// wantCode checks err is a *client.Error with that code and status.
func wantCode(t *testing.T, what string, err error, status int, code string) {
	t.Helper()
	var ce *client.Error
	if !errors.As(err, &ce) {
		t.Errorf("%s: err = %v, want %d %s", what, err, status, code)
		return
	}
	if ce.Status != status || ce.Code != code {
		t.Errorf("%s: got %d %s (%s), want %d %s", what, ce.Status, ce.Code, ce.Message, status, code)
	}
}

var bg = context.Background()

func hostOpts(maxOpen int) host.Options { return host.Options{MaxOpen: maxOpen} }
