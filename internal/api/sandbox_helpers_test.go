package api_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/shell"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/workspace"
)

// sandboxServer is the API over a host with the shell and the real
// sandbox backends, on a test HTTP server, with an admin client.
type sandboxServer struct {
	c     *client.Client
	admin string // c's token
	sb    *sandbox.Backend
	ts    *httptest.Server
}

// sandboxConfig configures a sandboxServer.
type sandboxConfig struct {
	cgroupParent string        // the sandboxes' cgroups go below it
	killGrace    time.Duration // the sandbox's KillGrace (0: its default)
	// api, if set, gives the API's options (a logger that discards is set
	// when it gives none).
	api func(*sandbox.Backend) api.Options
}

// newSandboxServer starts a sandboxServer configured by cfg. It needs the
// sandbox (sandboxtest.Require); everything is stopped at the test's end.
func newSandboxServer(t testing.TB, cfg sandboxConfig) *sandboxServer {
	t.Helper()
	sandboxtest.Require(t)
	ctx := context.Background()
	dir := testenv.TraversableDir(t)
	sb, err := sandbox.New(sandbox.Options{
		InitPath:     sandboxtest.InitPath(t),
		RuntimeRoot:  filepath.Join(dir, "runc"),
		StateDir:     filepath.Join(dir, "state"),
		CgroupParent: cfg.cgroupParent,
		KillGrace:    cfg.killGrace,
		Logger:       slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	sh := shell.New(shell.Options{})
	h, err := host.Open(ctx, host.Options{DataDir: filepath.Join(dir, "data"), Workspace: workspace.Options{
		Backends: map[string]run.Backend{"shell": sh, sandbox.ID: sb},
		Run:      run.Options{DefaultBackend: "shell", Router: sh.Route},
	}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.Open(ctx, filepath.Join(dir, "data"), auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var o api.Options
	if cfg.api != nil {
		o = cfg.api(sb)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	srv, err := api.New(h, a, o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		if err := srv.Shutdown(ctx, nil); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		ts.Close()
		sb.Close()
	})
	c, err := client.New(ts.URL, a.AdminToken(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &sandboxServer{c: c, admin: a.AdminToken(), sb: sb, ts: ts}
}

// sandboxAPI is newSandboxServer with the API's default options: its admin
// client and sandbox backend.
func sandboxAPI(t *testing.T, cgroupParent string) (*client.Client, *sandbox.Backend) {
	t.Helper()
	s := newSandboxServer(t, sandboxConfig{cgroupParent: cgroupParent})
	return s.c, s.sb
}
