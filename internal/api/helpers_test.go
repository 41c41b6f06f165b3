package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/share"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/workspace"
)

// lines is the test backend: one command per line.
//
//	echo TEXT        TEXT and a newline to stdout
//	err TEXT         TEXT and a newline to stderr
//	lines N          N lines "%07d\n" to stdout
//	sleep DURATION   sleep, or return when cancelled
//	block            wait until cancelled
//	write PATH DATA  write a file with the job's ctx
//	cat              copy stdin to stdout
//	sum              read stdin to its end; print its length and SHA-256
//	exit N           end with exit code N
//	usage U S RSS    end with exit code 0 and that run.Usage (Go durations, bytes)
type lines struct{}

var _ run.Backend = lines{}

func (lines) Run(ctx context.Context, job *run.Job) (run.Outcome, error) {
	for line := range strings.SplitSeq(job.Source, "\n") {
		cmd, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		var err error
		switch cmd {
		case "":
		case "echo":
			_, err = io.WriteString(job.Stdout, arg+"\n")
		case "err":
			_, err = io.WriteString(job.Stderr, arg+"\n")
		case "lines":
			n, _ := strconv.Atoi(arg)
			for i := range n {
				if _, err = fmt.Fprintf(job.Stdout, "%07d\n", i); err != nil {
					break
				}
			}
		case "sleep":
			d, _ := time.ParseDuration(arg)
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return run.Outcome{}, ctx.Err()
			}
		case "block":
			<-ctx.Done()
			return run.Outcome{}, ctx.Err()
		case "write":
			p, data, _ := strings.Cut(arg, " ")
			err = job.FS.WriteFile(ctx, p, []byte(data), 0o644)
		case "cat":
			_, err = io.Copy(job.Stdout, job.Stdin)
		case "sum":
			h := sha256.New()
			var n int64
			if n, err = io.Copy(h, job.Stdin); err == nil {
				_, err = fmt.Fprintf(job.Stdout, "%d %x\n", n, h.Sum(nil))
			}
		case "exit":
			n, _ := strconv.Atoi(arg)
			return run.Outcome{ExitCode: n}, nil
		case "usage":
			f := strings.Fields(arg)
			u, _ := time.ParseDuration(f[0])
			sy, _ := time.ParseDuration(f[1])
			rss, _ := strconv.ParseInt(f[2], 10, 64)
			return run.Outcome{Usage: &run.Usage{UserTime: u, SysTime: sy, MaxRSS: rss}}, nil
		default:
			fmt.Fprintf(job.Stderr, "%s: unknown command\n", cmd)
			return run.Outcome{ExitCode: 127}, nil
		}
		if err != nil {
			return run.Outcome{}, err
		}
	}
	return run.Outcome{}, nil
}

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
		Backends: map[string]run.Backend{"lines": lines{}, "other": lines{}},
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

// raw sends a plain HTTP request and returns the status, body and the
// error code, if the body is an error.
func (e *env) raw(method, path, token string, body io.Reader, hdr ...string) (int, []byte, string) {
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
	b, _ := io.ReadAll(resp.Body)
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
