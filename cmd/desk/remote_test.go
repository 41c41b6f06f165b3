package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/host"
	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/run/runtest"
	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/workspace"
)

// TestMain keeps the tests away from the user's configuration: the config
// file is a temporary one and the client variables are unset.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == sandbox.InitCommand || os.Args[1] == workerCommand) {
		// The test binary is the sandbox's init in TestServe_Sandbox, or
		// desk serve's worker in the tests that serve with workers.
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if os.Getenv(envTestRunDesk) == "1" {
		// The test binary is a desk process of its own (startDeskProcess).
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "desk-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(envConfig, filepath.Join(dir, "config.json"))
	for _, k := range []string{envURL, envToken, envAdminToken} {
		os.Unsetenv(k)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testServer is a desk server over a temporary data directory with the
// lines backend, served by httptest on a loopback port.
type testServer struct {
	url, admin string
	h          *host.Host
}

func newTestServer(t *testing.T) *testServer { return newTestServerRun(t, deskrun.Options{}) }

// newTestServerRun is newTestServer with these runtime options (the
// default backend is lines).
func newTestServerRun(t *testing.T, ro deskrun.Options) *testServer {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	ro.DefaultBackend = "lines"
	h, err := host.Open(ctx, host.Options{
		DataDir: dir,
		Workspace: workspace.Options{
			Backends: map[string]deskrun.Backend{"lines": runtest.Lines{}},
			Run:      ro,
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.Open(ctx, dir, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(h, a, api.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		if err := srv.Shutdown(ctx, nil); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		ts.Close()
	})
	return &testServer{url: ts.URL, admin: a.AdminToken(), h: h}
}

// use makes the client commands find s through the environment.
func (s *testServer) use(t *testing.T) {
	t.Setenv(envURL, s.url)
	t.Setenv(envToken, s.admin)
}

// deskCtx runs a command function directly with a context of the test's.
func deskCtx(ctx context.Context, fn func(context.Context, []string, streams) int, stdin []byte, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := fn(ctx, args, streams{in: bytes.NewReader(stdin), out: &out, err: &errb})
	return out.String(), errb.String(), code
}

// wantFail runs the CLI and checks it exits with code and says msg on
// standard error.
func wantFail(t *testing.T, code int, msg string, args ...string) {
	t.Helper()
	_, errs, got := desk(t, nil, args...)
	if got != code {
		t.Errorf("desk %s: exit %d, want %d; stderr: %s", strings.Join(args, " "), got, code, errs)
	}
	if !strings.Contains(errs, msg) {
		t.Errorf("desk %s: stderr %q lacks %q", strings.Join(args, " "), errs, msg)
	}
}

func TestWS(t *testing.T) {
	newTestServer(t).use(t)
	if got := mustDesk(t, nil, "ws", "create", "demo"); got != "created workspace demo\n" {
		t.Errorf("ws create = %q", got)
	}
	mustDesk(t, nil, "ws", "create", "other")
	if got := mustDesk(t, nil, "ws", "ls", "-q"); got != "demo\nother\n" {
		t.Errorf("ws ls -q = %q", got)
	}
	if got := mustDesk(t, nil, "ws", "ls"); !regexp.MustCompile(`(?m)^NAME +SIZE +MODIFIED +STATE\ndemo +\d`).MatchString(got) {
		t.Errorf("ws ls =\n%s", got)
	}
	stats := mustDesk(t, nil, "ws", "stats", "demo")
	for _, want := range []string{"workspace     demo\n", "files         0\n", "dirs          3\n", "backends      lines\n", "running       0\n"} {
		if !strings.Contains(stats, want) {
			t.Errorf("ws stats lacks %q:\n%s", want, stats)
		}
	}
	var js struct {
		Name  string
		Store struct{ Dirs int }
	}
	if err := json.Unmarshal([]byte(mustDesk(t, nil, "ws", "stats", "--json", "demo")), &js); err != nil || js.Name != "demo" || js.Store.Dirs != 3 {
		t.Errorf("ws stats --json: %+v, %v", js, err)
	}
	if got := mustDesk(t, nil, "fs", "-w", "demo", "check"); got != "demo: ok\n" {
		t.Errorf("fs -w demo check = %q", got)
	}
	if got := mustDesk(t, nil, "ws", "rm", "other"); got != "deleted workspace other\n" {
		t.Errorf("ws rm = %q", got)
	}
	if got := mustDesk(t, nil, "ws", "ls", "-q"); got != "demo\n" {
		t.Errorf("ws ls after rm = %q", got)
	}

	t.Run("bad input", func(t *testing.T) {
		wantFail(t, 1, "desk ws create: ", "ws", "create", "Bad/Name")
		wantFail(t, 1, "(bad_name)", "ws", "create", "../etc")
		wantFail(t, 1, "(exists)", "ws", "create", "demo")
		wantFail(t, 1, "desk ws stats: ", "ws", "stats", "nope")
		wantFail(t, 1, "(not_found)", "ws", "stats", "nope")
		wantFail(t, 1, "(not_found)", "ws", "rm", "nope")
		wantFail(t, 1, "(not_found)", "fs", "-w", "nope", "check")
		wantFail(t, 2, "missing argument", "ws", "create")
		wantFail(t, 2, "too many arguments", "ws", "rm", "a", "b")
		wantFail(t, 2, `unknown verb "frob"`, "ws", "frob")
		wantFail(t, 2, "missing verb", "ws")
		if got := mustDesk(t, nil, "ws", "ls", "-q"); got != "demo\n" {
			t.Errorf("ws ls after bad input = %q", got)
		}
	})
}

func TestToken(t *testing.T) {
	srv := newTestServer(t)
	srv.use(t)
	mustDesk(t, nil, "ws", "create", "demo")
	mustDesk(t, []byte("hi\n"), "fs", "-w", "demo", "put", "/hello.txt")

	out, errs, code := desk(t, nil, "token", "mint", "--workspace", "demo", "--scopes", "read")
	if code != 0 {
		t.Fatalf("token mint: exit %d: %s", code, errs)
	}
	secret := strings.TrimSpace(out)
	m := regexp.MustCompile(`token ([0-9a-f]{16}) for workspace demo, scopes read;`).FindStringSubmatch(errs)
	if !strings.HasPrefix(secret, "desk_") || m == nil {
		t.Fatalf("token mint: stdout %q, stderr %q", out, errs)
	}
	id := m[1]
	ls := mustDesk(t, nil, "token", "ls")
	if !regexp.MustCompile(`(?m)^` + id + ` +demo +read +all +\S+ \S+ +active$`).MatchString(ls) {
		t.Errorf("token ls =\n%s", ls)
	}

	// The read token reads, and cannot write, run or administer.
	if got := mustDesk(t, nil, "fs", "-w", "demo", "--token", secret, "cat", "/hello.txt"); got != "hi\n" {
		t.Errorf("cat with the read token = %q", got)
	}
	wantFail(t, 1, "desk fs put: ", "fs", "-w", "demo", "--token", secret, "put", "/x.txt", "/dev/null")
	wantFail(t, 1, "(forbidden)", "fs", "-w", "demo", "--token", secret, "rm", "/hello.txt")
	wantFail(t, 1, "(forbidden)", "exec", "--token", secret, "demo", "--", "echo hi")
	wantFail(t, 1, "(forbidden)", "ws", "create", "--token", secret, "mine")
	t.Setenv(envToken, secret) // the environment works as the flag does
	wantFail(t, 1, "(forbidden)", "token", "ls")
	t.Setenv(envToken, srv.admin)

	if got := mustDesk(t, nil, "token", "revoke", id); got != "revoked token "+id+"\n" {
		t.Errorf("token revoke = %q", got)
	}
	wantFail(t, 1, "(unauthorized)", "fs", "-w", "demo", "--token", secret, "cat", "/hello.txt")
	if ls := mustDesk(t, nil, "token", "ls"); !strings.Contains(ls, "revoked ") {
		t.Errorf("token ls after revoke =\n%s", ls)
	}
	out = mustDesk(t, nil, "token", "mint", "-w", "demo", "--scopes", "read, exec", "--backends", "lines", "--json")
	var minted struct {
		Token  struct{ Scopes, Backends []string }
		Secret string
	}
	if err := json.Unmarshal([]byte(out), &minted); err != nil || strings.Join(minted.Token.Scopes, ",") != "exec,read" ||
		strings.Join(minted.Token.Backends, ",") != "lines" || minted.Secret == "" {
		t.Errorf("token mint --json: %s (%v)", out, err)
	}
	if got := mustDesk(t, nil, "exec", "--token", minted.Secret, "demo", "--backend", "lines", "--", "echo ok"); got != "ok\n" {
		t.Errorf("exec with an exec token = %q", got)
	}

	wantFail(t, 2, "--scopes is required", "token", "mint", "--workspace", "demo")
	wantFail(t, 2, "--workspace is required", "token", "mint", "--scopes", "read")
	wantFail(t, 1, "(invalid)", "token", "mint", "--workspace", "demo", "--scopes", "fly")
	wantFail(t, 1, "(not_found)", "token", "revoke", "0123456789abcdef")
	if got := mustDesk(t, nil, "token", "revoke", minted.Secret); !strings.HasPrefix(got, "revoked token ") || strings.Contains(got, minted.Secret) {
		t.Errorf("token revoke SECRET = %q", got)
	}
	wantFail(t, 1, "(unauthorized)", "exec", "--token", minted.Secret, "demo", "--", "echo ok")
}

func TestExec(t *testing.T) {
	newTestServer(t).use(t)
	mustDesk(t, nil, "ws", "create", "demo")

	tests := []struct {
		name           string
		stdin          []byte
		args           []string
		out, err       string
		code           int
		errContainsToo string
	}{
		{"echo", nil, []string{"demo", "--", "echo hello"}, "hello\n", "", 0, ""},
		{"joined args", nil, []string{"demo", "echo", "a", "b"}, "a b\n", "", 0, ""},
		{"quoted args", nil, []string{"demo", "echo", "it's", "a b"}, `'it'\''s' 'a b'` + "\n", "", 0, ""},
		{"stderr and exit code", nil, []string{"demo", "--", "echo out\nerr oops\nexit 3"}, "out\n", "oops\n", 3, ""},
		{"env and cwd", nil, []string{"demo", "--env", "A=1", "--env", "B=x=y", "--cwd", "/tmp", "--", "env A\nenv B\npwd"}, "1\nx=y\n/tmp\n", "", 0, ""},
		{"stdin", []byte("piped\n"), []string{"demo", "--stdin", "--", "cat"}, "piped\n", "", 0, ""},
		{"stdin piped by default", []byte("piped\n"), []string{"demo", "--", "cat"}, "piped\n", "", 0, ""},
		{"stdin=false", []byte("not sent\n"), []string{"demo", "--stdin=false", "--", "cat"}, "", "", 0, ""},
		{"binary stdin", []byte("\x00\xff\xfe"), []string{"demo", "--", "sum"}, fmt.Sprintf("3 %x\n", sha256.Sum256([]byte("\x00\xff\xfe"))), "", 0, ""},
		{"-w WS", nil, []string{"-w", "demo", "--", "echo hello"}, "hello\n", "", 0, ""},
		{"--workspace WS", nil, []string{"--workspace", "demo", "--cwd", "src", "pwd"}, "/workspace/src\n", "", 0, ""},
		{"relative cwd", nil, []string{"demo", "--cwd", "a/../b", "--", "pwd"}, "/workspace/b\n", "", 0, ""},
		{"flags after WS", nil, []string{"demo", "--backend", "lines", "echo", "-n"}, "-n\n", "", 0, ""},
		{"unknown command", nil, []string{"demo", "--", "frob"}, "", "frob: unknown command\n", 127, ""},
		{"timeout", nil, []string{"demo", "--timeout", "1ms", "--", "block"}, "", "", 124, "timed out"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := desk(t, tc.stdin, append([]string{"exec"}, tc.args...)...)
			if code != tc.code || out != tc.out || tc.errContainsToo == "" && errs != tc.err || !strings.Contains(errs, tc.errContainsToo) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out, errs, tc.code, tc.out, tc.err)
			}
		})
	}

	t.Run("cannot start", func(t *testing.T) {
		wantFail(t, 1, "desk exec: start execution: ", "exec", "demo", "--backend", "nope", "--", "echo hi")
		wantFail(t, 1, "(unknown_backend); the backends are: lines", "exec", "demo", "--backend", "nope", "--", "echo hi")
		wantFail(t, 1, "(not_found)", "exec", "nope", "--", "echo hi")
		wantFail(t, 1, "(bad_name)", "exec", "No/Such", "--", "echo hi")
		wantFail(t, 2, "missing command", "exec", "demo")
		wantFail(t, 2, "missing workspace", "exec")
		wantFail(t, 2, "--timeout", "exec", "--timeout", "soon", "demo", "echo")
		wantFail(t, 2, "want K=V", "exec", "--env", "X", "demo", "echo")
		wantFail(t, 2, "not both", "exec", "demo", "-w", "demo", "--", "echo")
		wantFail(t, 2, "not both", "exec", "--detach", "--service", "demo", "--", "echo")
		wantFail(t, 2, "want true or false", "exec", "--stdin=maybe", "demo", "--", "echo")
	})

	t.Run("interrupt", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := &watchWriter{want: "started\n", seen: make(chan struct{})}
		var errb bytes.Buffer
		done := make(chan int)
		go func() {
			done <- runExec(ctx, []string{"demo", "--", "echo started\nblock"}, streams{in: strings.NewReader(""), out: w, err: &errb})
		}()
		<-w.seen
		cancel()
		if code := <-done; code != 128+2 {
			t.Errorf("interrupted exec: exit %d, want 130; stderr %q", code, errb.String())
		}
		if !strings.Contains(errb.String(), "killed by SIGINT") {
			t.Errorf("interrupted exec: stderr %q", errb.String())
		}
	})
}

// watchWriter collects output and closes seen once it contains want.
type watchWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestAttach(t *testing.T) {
	newTestServer(t).use(t)
	mustDesk(t, nil, "ws", "create", "demo")
	id := strings.TrimSpace(mustDesk(t, nil, "exec", "--detach", "demo", "--", "echo one\nerr two\necho three\nexit 4"))
	if id == "" {
		t.Fatal("exec --detach printed no id")
	}
	out, errs, code := desk(t, nil, "attach", "demo", id)
	if out != "one\nthree\n" || errs != "two\n" || code != 4 {
		t.Errorf("attach: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	out, errs, code = desk(t, nil, "attach", "demo", id, "--from", "3")
	if out != "three\n" || errs != "" || code != 4 {
		t.Errorf("attach --from 3: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	mustDesk(t, nil, "exec", "--id", "mine", "--detach", "demo", "--", "echo mine")
	if got := mustDesk(t, nil, "attach", "demo", "mine"); got != "mine\n" {
		t.Errorf("attach to a chosen id = %q", got)
	}
	wantFail(t, 1, "desk attach: ", "attach", "demo", "nope")
	wantFail(t, 1, "(not_found)", "attach", "demo", "nope")
	wantFail(t, 2, "missing argument", "attach", "demo")
}

func TestChanges(t *testing.T) {
	newTestServer(t).use(t)
	mustDesk(t, nil, "ws", "create", "demo")
	mustDesk(t, []byte("hi\n"), "fs", "-w", "demo", "put", "/hello.txt")
	mustDesk(t, nil, "fs", "-w", "demo", "mv", "/hello.txt", "/hi.txt")
	mustDesk(t, nil, "exec", "demo", "--", "write /x.txt data")

	out := mustDesk(t, nil, "changes", "demo")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	ts := `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}`
	want := []string{
		`^1 ` + ts + ` mkdir +/workspace by workspace$`, // a new workspace's first open
		`^2 ` + ts + ` mkdir +/tmp by workspace$`,
		`^3 ` + ts + ` create +/hello\.txt$`,
		`^4 ` + ts + ` write +/hello\.txt \[0, 3\)$`,
		`^5 ` + ts + ` rename +/hello\.txt -> /hi\.txt$`,
		`^6 ` + ts + ` create +/x\.txt by \S+$`,
	}
	if len(lines) < len(want) {
		t.Fatalf("changes =\n%s", out)
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Errorf("line %d = %q, want %s", i+1, lines[i], w)
		}
	}
	last, _ := strconv.Atoi(strings.Fields(lines[len(lines)-1])[0])
	if got := mustDesk(t, nil, "changes", "demo", "--since", strconv.Itoa(last)); got != "" {
		t.Errorf("changes --since last = %q", got)
	}
	if got := mustDesk(t, nil, "changes", "demo", "--since", "4"); !strings.HasPrefix(got, "5 ") {
		t.Errorf("changes --since 4 =\n%s", got)
	}
	var ch struct {
		Seq  int
		Op   string
		Path string
	}
	first, _, _ := strings.Cut(mustDesk(t, nil, "changes", "demo", "--json", "--since", "2"), "\n")
	if err := json.Unmarshal([]byte(first), &ch); err != nil || ch.Seq != 3 || ch.Op != "create" || ch.Path != "/hello.txt" {
		t.Errorf("changes --json: %s (%v)", first, err)
	}

	t.Run("follow", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := &watchWriter{want: "/later.txt", seen: make(chan struct{})}
		var errb bytes.Buffer
		done := make(chan int)
		go func() {
			done <- runChanges(ctx, []string{"demo", "--follow", "--since", strconv.Itoa(last)}, streams{in: strings.NewReader(""), out: w, err: &errb})
		}()
		mustDesk(t, []byte("later"), "fs", "-w", "demo", "put", "/later.txt")
		<-w.seen
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("changes --follow: exit %d, stderr %q", code, errb.String())
		}
		if got := w.String(); !regexp.MustCompile(`^` + strconv.Itoa(last+1) + ` ` + ts + ` create +/later\.txt\n`).MatchString(got) {
			t.Errorf("changes --follow =\n%s", got)
		}
	})
	wantFail(t, 1, "(not_found)", "changes", "nope")
	wantFail(t, 2, "-since", "changes", "demo", "--since", "x")
}

func TestFS_Remote(t *testing.T) {
	newTestServer(t).use(t)
	mustDesk(t, nil, "ws", "create", "demo")
	dir := t.TempDir()
	db := filepath.Join(dir, "local.db")
	// Every step runs on the remote workspace and on a local database;
	// outputs must match where the API reports the same data.
	both := func(stdin []byte, args ...string) (remote, local string) {
		t.Helper()
		remote = mustDesk(t, stdin, append([]string{"fs", "-w", "demo"}, args...)...)
		local = mustDesk(t, stdin, append([]string{"fs", "-db", db}, args...)...)
		return remote, local
	}
	same := func(stdin []byte, args ...string) string {
		t.Helper()
		r, l := both(stdin, args...)
		if r != l {
			t.Errorf("fs %s: remote %q, local %q", strings.Join(args, " "), r, l)
		}
		return r
	}
	same(nil, "mkdir", "-p", "a/b/c")
	same(nil, "mkdir", "d")
	same([]byte("hello\n"), "put", "a/hello.txt")
	hostFile := filepath.Join(dir, "host.sh")
	if err := os.WriteFile(hostFile, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(hostFile, 0o4750|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	same(nil, "put", "d/", hostFile)
	if got := same(nil, "cat", "a/hello.txt", "d/host.sh"); got != "hello\n#!/bin/sh\n" {
		t.Errorf("cat = %q", got)
	}
	if got := same(nil, "ls"); got != "a\nd\n" {
		t.Errorf("ls = %q", got)
	}
	r, _ := both(nil, "ls", "-l", "d")
	if !regexp.MustCompile(`^-rwsr-x--- +- +- +- +10 \d{4}-\d\d-\d\d \d\d:\d\d host.sh\n$`).MatchString(r) {
		t.Errorf("remote ls -l = %q", r)
	}
	r, _ = both(nil, "ls", "-l", "d/host.sh") // a file: its own stat, with links
	if !regexp.MustCompile(`^-rwsr-x--- +1 +- +- +10 .* host.sh\n$`).MatchString(r) {
		t.Errorf("remote ls -l FILE = %q", r)
	}
	r, _ = both(nil, "stat", "d/host.sh")
	for _, want := range []string{"  File: /workspace/d/host.sh\n", "  Type: regular file\n", "  Mode: 4750 (-rwsr-x---)\n", " Links: 1\n", "  Size: 10\n", " Inode: "} {
		if !strings.Contains(r, want) {
			t.Errorf("remote stat lacks %q:\n%s", want, r)
		}
	}
	if !regexp.MustCompile(`Modify: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}`).MatchString(r) {
		t.Errorf("remote stat has no nanosecond mtime:\n%s", r)
	}
	if got := same(nil, "get", "a/hello.txt"); got != "hello\n" {
		t.Errorf("get = %q", got)
	}
	out := filepath.Join(dir, "out.txt")
	mustDesk(t, nil, "fs", "-w", "demo", "get", "d/host.sh", out)
	if data, err := os.ReadFile(out); err != nil || string(data) != "#!/bin/sh\n" {
		t.Errorf("get to a host file: %q, %v", data, err)
	} else if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o750 {
		t.Errorf("get to a host file: mode %v", fi.Mode())
	}
	same(nil, "mv", "a/hello.txt", "d")
	same(nil, "mv", "d/host.sh", "d/renamed.sh")
	wantTree := "/workspace\n├── a\n│   └── b\n│       └── c\n└── d\n    ├── hello.txt\n    └── renamed.sh\n\n4 directories, 2 files, 0 symlinks\n"
	if got := same(nil, "tree"); got != wantTree {
		t.Errorf("tree =\n%s\nwant\n%s", got, wantTree)
	}
	same(nil, "rm", "d/renamed.sh")
	same(nil, "rm", "-r", "a")
	if got := same(nil, "ls", ".", "d", "/"); got != ".:\nd\n\nd:\nhello.txt\n\n/:\ntmp\nworkspace\n" {
		t.Errorf("ls after rm = %q", got)
	}
	stats := mustDesk(t, nil, "fs", "-w", "demo", "stats")
	for _, want := range []string{"files         1\n", "dirs          4\n", "bytes         6 (6 B)\n"} {
		if !strings.Contains(stats, want) {
			t.Errorf("remote stats lacks %q:\n%s", want, stats)
		}
	}
	if got := mustDesk(t, nil, "fs", "--workspace", "demo", "stats", "-json"); !strings.Contains(got, `"Files": 1`) {
		t.Errorf("remote stats -json = %s", got)
	}

	t.Run("many entries", func(t *testing.T) {
		// More than one page of the API's listing (default 100 entries).
		var want []string
		mustDesk(t, nil, "fs", "-w", "demo", "mkdir", "/many")
		for i := range 150 {
			name := fmt.Sprintf("f%03d", i)
			want = append(want, name)
			mustDesk(t, nil, "fs", "-w", "demo", "put", "/many/"+name, "/dev/null")
		}
		sort.Strings(want)
		if got := mustDesk(t, nil, "fs", "-w", "demo", "ls", "/many"); got != strings.Join(want, "\n")+"\n" {
			t.Errorf("ls of 150 entries: %d lines", strings.Count(got, "\n"))
		}
	})

	t.Run("bad input", func(t *testing.T) {
		fs := func(args ...string) []string { return append([]string{"fs", "-w", "demo"}, args...) }
		wantFail(t, 1, "desk fs cat: ", fs("cat", "/nope")...)
		wantFail(t, 1, "(ENOENT)", fs("cat", "/nope")...)
		wantFail(t, 1, "(EISDIR)", fs("cat", "d")...)
		wantFail(t, 1, "(EISDIR)", fs("get", "d")...)
		wantFail(t, 1, "use -r", fs("rm", "d")...)
		wantFail(t, 1, "refusing to remove", fs("rm", "-r", "/")...)
		wantFail(t, 1, "(EEXIST)", fs("mkdir", "d")...)
		wantFail(t, 1, "(EEXIST)", fs("mv", "-n", "d/hello.txt", "d/hello.txt")...)
		wantFail(t, 1, "(ENOTDIR)", fs("mkdir", "d/hello.txt/x")...)
		wantFail(t, 1, "(not_found)", "fs", "-w", "nope", "ls")
		wantFail(t, 1, "(bad_name)", "fs", "-w", "Bad..Name", "ls")
		wantFail(t, 1, "the input is empty (bad_archive)", fs("import", "-")...)
		wantFail(t, 2, "works on a workspace database file only", fs("compact")...)
		wantFail(t, 2, "not both", "fs", "-w", "demo", "-db", db, "ls")
		if got := mustDesk(t, nil, fs("tree", "d")...); got != "/workspace/d\n└── hello.txt\n\n0 directories, 1 files, 0 symlinks\n" {
			t.Errorf("workspace changed by bad input:\n%s", got)
		}
	})
}

func TestConfig_Precedence(t *testing.T) {
	good := newTestServer(t)
	other := newTestServer(t)
	cfg := filepath.Join(t.TempDir(), "desk", "config.json")
	t.Setenv(envConfig, cfg)

	wantFail(t, 1, "desk ws ls: no desk server configured: run `desk serve`, or set DESK_URL and DESK_TOKEN", "ws", "ls")
	wantFail(t, 1, "no desk server configured", "fs", "-w", "demo", "ls")
	wantFail(t, 1, "no desk server configured", "exec", "demo", "echo")

	if _, err := writeConfig(configFile{URL: good.url, Token: good.admin}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(cfg); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v, %v", fi, err)
	}
	mustDesk(t, nil, "ws", "create", "ingood") // the config file alone
	names := func(args ...string) string {
		t.Helper()
		return mustDesk(t, nil, append([]string{"ws", "ls", "-q"}, args...)...)
	}
	if got := names(); got != "ingood\n" {
		t.Fatalf("ws ls with the config file = %q", got)
	}

	// The environment overrides the config file.
	t.Setenv(envURL, other.url)
	wantFail(t, 1, "no token for the desk server at "+other.url, "ws", "ls") // the file's token stays with its URL
	t.Setenv(envToken, other.admin)
	if got := names(); got != "" {
		t.Errorf("ws ls with $DESK_URL = %q, want the other server's (none)", got)
	}
	t.Setenv(envToken, "wrong-token-wrong-token")
	wantFail(t, 1, "(unauthorized)", "ws", "ls")

	// Flags override the environment.
	if got := names("--token", other.admin); got != "" {
		t.Errorf("ws ls --token = %q", got)
	}
	if got := names("--url", good.url, "--token", good.admin); got != "ingood\n" {
		t.Errorf("ws ls --url --token = %q", got)
	}
	t.Setenv(envToken, "")
	if got := names("--url", good.url); got != "ingood\n" { // the file's token for the file's URL
		t.Errorf("ws ls --url (config token) = %q", got)
	}

	// An unreachable server, and a broken config file.
	t.Setenv(envURL, "http://127.0.0.1:1")
	t.Setenv(envToken, "x")
	wantFail(t, 1, "cannot reach the desk server at http://127.0.0.1:1 (from $DESK_URL); is `desk serve` running?", "ws", "ls")
	wantFail(t, 1, "desk fs ls: cannot reach the desk server", "fs", "-w", "demo", "ls")
	wantFail(t, 1, "server URL", "ws", "ls", "--url", "ftp://x")
	t.Setenv(envURL, "")
	t.Setenv(envToken, "")
	if err := os.WriteFile(cfg, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantFail(t, 1, "read config file "+cfg, "ws", "ls")

	// Without $DESK_CONFIG, the file is in the user's config directory.
	t.Setenv(envConfig, "")
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if p, err := configPath(); err != nil || p != filepath.Join(xdg, "desk", "config.json") {
		t.Errorf("configPath = %q, %v", p, err)
	}
}

// startServe runs desk serve with args until the returned stop is called,
// and returns its URL, its standard error and stop, which returns the exit
// status.
func startServe(t *testing.T, args ...string) (string, *testenv.SyncBuffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var errb testenv.SyncBuffer
	ready := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, args, streams{in: strings.NewReader(""), out: io.Discard, err: &errb}, serveHooks{ready: func(u string) { ready <- u }})
	}()
	select {
	case u := <-ready:
		stopped := false
		code := 0
		stop := func() int {
			if !stopped {
				cancel()
				code, stopped = <-done, true
			}
			return code
		}
		t.Cleanup(func() { stop() })
		return u, &errb, stop
	case code := <-done:
		cancel()
		t.Fatalf("desk serve exited %d before serving: %s", code, errb.String())
	}
	return "", nil, nil
}

func TestServe(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.json")
	t.Setenv(envConfig, cfg)
	data := filepath.Join(t.TempDir(), "data")
	url, errb, stop := startServe(t, "--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn")

	// The config file names the server and its admin token, for this user only.
	fi, err := os.Stat(cfg)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v, %v", fi, err)
	}
	var cf configFile
	b, _ := os.ReadFile(cfg)
	if err := json.Unmarshal(b, &cf); err != nil || cf.URL != url || len(cf.Token) < 16 {
		t.Fatalf("config file %s: %+v, %v", b, cf, err)
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+$`).MatchString(url) {
		t.Errorf("url %q", url)
	}
	// The generated admin token is printed once, and kept in the data directory.
	if !strings.Contains(errb.String(), "generated the admin token") || !strings.Contains(errb.String(), "    "+cf.Token+"\n") {
		t.Errorf("stderr does not show the generated token:\n%s", errb.String())
	}
	if kept, err := os.ReadFile(filepath.Join(data, auth.AdminTokenFile)); err != nil || !strings.Contains(string(kept), cf.Token) {
		t.Errorf("admin.token: %q, %v", kept, err)
	}

	// Other commands find it without flags.
	mustDesk(t, nil, "ws", "create", "demo")
	mustDesk(t, []byte("hi\n"), "fs", "-w", "demo", "put", "/hello.txt")
	if got := mustDesk(t, nil, "fs", "-w", "demo", "cat", "/hello.txt"); got != "hi\n" {
		t.Errorf("cat through desk serve = %q", got)
	}
	if got := mustDesk(t, nil, "ws", "stats", "demo"); !regexp.MustCompile(`backends +js, (sandbox, )?shell\n`).MatchString(got) {
		t.Errorf("ws stats: backends should be js, shell (and sandbox where it can run):\n%s", got)
	}
	// desk serve ships the shell backend (the default): exec works out of the box.
	if got := mustDesk(t, nil, "exec", "demo", "--", "cat /hello.txt; echo done"); got != "hi\ndone\n" {
		t.Errorf("exec through desk serve = %q", got)
	}
	wantFail(t, 1, "(unknown_backend)", "exec", "demo", "--backend", "nope", "--", "echo hi")
	// desk serve ships the js backend: a module's default export gets --input
	// and its result is printed as JSON after the output.
	mod := filepath.Join(t.TempDir(), "main.mjs")
	os.WriteFile(mod, []byte("import fs from 'node:fs/promises';\nconsole.log('hi');\n"+
		"export default async (i) => ({ sum: i.a + 1, text: await fs.readFile('/hello.txt', 'utf8') });\n"), 0o644)
	if got := mustDesk(t, nil, "exec", "--backend", "js", "demo", "--input", `{"a":1}`, "--file", mod); got != "hi\n{\"sum\":2,\"text\":\"hi\\n\"}\n" {
		t.Errorf("exec --backend js --file = %q", got)
	}
	// TypeScript: the content of main.ts is sent; its types are stripped.
	tsMod := filepath.Join(t.TempDir(), "main.ts")
	os.WriteFile(tsMod, []byte("interface In { a: number }\nenum E { X = 5 }\nexport default (i: In): number => i.a + E.X;\n"), 0o644)
	if got := mustDesk(t, nil, "exec", "--backend", "js", "demo", "--input", `{"a":1}`, "--file", tsMod); got != "6\n" {
		t.Errorf("exec --backend js --file main.ts = %q", got)
	}
	if got := mustDesk(t, nil, "exec", "--backend", "js", "demo", "--input", `{"a":1}`, "--", "export default (i) => i.a * 2"); got != "2\n" {
		t.Errorf("exec --backend js -- SOURCE = %q", got)
	}
	// An uncaught error exits 1, as in Node; the value line is the engine's
	// JSON.stringify text, not HTML-escaped.
	wantFail(t, 1, "Uncaught Error: boom", "exec", "--backend", "js", "demo", "--", "throw new Error('boom')")
	if got := mustDesk(t, nil, "exec", "--backend", "js", "demo", "--", "export default () => ({ s: 'red shoes & socks <b>\\u2028' })"); got != "{\"s\":\"red shoes & socks <b>\u2028\"}\n" {
		t.Errorf("exec --backend js value line = %q", got)
	}
	wantFail(t, 2, "not valid JSON", "exec", "--backend", "js", "demo", "--input", "{", "--", "1")
	wantFail(t, 2, "either --file or COMMAND", "exec", "--backend", "js", "demo", "--file", mod, "--", "1")
	// auto: the shell runs what it can; npm needs the sandbox, which desk
	// serve offers where the host can run it.
	if got := mustDesk(t, nil, "exec", "demo", "--backend", "auto", "--", "cat /hello.txt"); got != "hi\n" {
		t.Errorf("exec --backend auto = %q", got)
	}
	if err := sandboxtest.Available(); err == nil {
		if got := mustDesk(t, nil, "exec", "demo", "--backend", "auto", "--", "npm --version"); !regexp.MustCompile(`^\d+\.\d+`).MatchString(got) {
			t.Errorf("exec --backend auto -- npm --version = %q", got)
		}
	} else {
		if testenv.Sandbox.Required() {
			t.Errorf("%s=1, but %v", testenv.Sandbox, err)
		}
		wantFail(t, 1, "npm: not a command of the shell backend, and no sandbox backend is configured", "exec", "demo", "--backend", "auto", "--", "npm install")
	}

	// A second server on the same data directory is refused.
	var errb2 bytes.Buffer
	if code := serve(context.Background(), []string{"--addr", "127.0.0.1:0", "--data", data, "--no-config"},
		streams{in: strings.NewReader(""), out: io.Discard, err: &errb2}, serveHooks{}); code != 1 ||
		!strings.Contains(errb2.String(), "is another desk serve running on it?") {
		t.Errorf("second serve: exit %d, stderr %s", code, errb2.String())
	}

	if code := stop(); code != 0 {
		t.Errorf("desk serve: exit %d after SIGINT-like cancel; stderr:\n%s", code, errb.String())
	}
	wantFail(t, 1, "is `desk serve` running?", "ws", "ls")

	// Restarted: the token is not generated (nor printed) again; the startup
	// log lists the backends.
	url2, errb, stop := startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	if strings.Contains(errb.String(), "generated the admin token") {
		t.Errorf("restart printed the token again:\n%s", errb.String())
	}
	if !strings.Contains(errb.String(), `msg="desk serve listening" url=`+url2) || !regexp.MustCompile(`backends=js,(sandbox,)?shell`).MatchString(errb.String()) {
		t.Errorf("startup log:\n%s", errb.String())
	}
	if got := mustDesk(t, nil, "fs", "-w", "demo", "cat", "/hello.txt"); got != "hi\n" {
		t.Errorf("cat after restart = %q", got)
	}
	if code := stop(); code != 0 || !strings.Contains(errb.String(), "desk serve stopped") {
		t.Errorf("desk serve: exit %d; stderr:\n%s", code, errb.String())
	}
}

func TestServe_Options(t *testing.T) {
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	data := filepath.Join(t.TempDir(), "data")
	t.Setenv(envAdminToken, "an-admin-token-from-the-env")
	_, errb, stop := startServe(t, "--addr", "127.0.0.1:0", "--data", data, "--idle", "1m", "--max-open", "2", "--log-format", "json")
	if strings.Contains(errb.String(), "generated") {
		t.Errorf("a given token was reported as generated:\n%s", errb.String())
	}
	if !strings.Contains(errb.String(), `"msg":"desk serve listening"`) || !strings.Contains(errb.String(), `"max_open":2`) {
		t.Errorf("json log:\n%s", errb.String())
	}
	if got := mustDesk(t, nil, "ws", "ls", "-q", "--token", "an-admin-token-from-the-env"); got != "" {
		t.Errorf("ws ls = %q", got)
	}
	if _, err := os.Stat(filepath.Join(data, auth.AdminTokenFile)); !os.IsNotExist(err) {
		t.Errorf("a given admin token was written to the data directory: %v", err)
	}
	stop()

	for _, args := range [][]string{
		{"--log-level", "loud"}, {"--log-format", "xml"}, {"--max-open", "0"}, {"--token", "short"}, {"extra"},
	} {
		_, errs, code := deskCtx(context.Background(), runServe, nil, args...)
		if code != 2 || !strings.Contains(errs, "usage: desk serve") {
			t.Errorf("serve %v: exit %d, stderr %q", args, code, errs)
		}
	}
	_, errs, code := deskCtx(context.Background(), runServe, nil, "--addr", "256.0.0.1:99999", "--data", filepath.Join(t.TempDir(), "d"), "--no-config")
	if code != 1 || !strings.Contains(errs, "desk serve: ") {
		t.Errorf("serve on a bad address: exit %d, stderr %q", code, errs)
	}
}

func TestHelp_Commands(t *testing.T) {
	cmds := [][]string{
		{"serve"}, {"ws"}, {"ws", "create"}, {"ws", "ls"}, {"ws", "stats"}, {"ws", "rm"},
		{"token"}, {"token", "mint"}, {"token", "ls"}, {"token", "revoke"},
		{"exec"}, {"attach"}, {"changes"}, {"mount"}, {"fs"}, {"fs", "ls"},
	}
	for _, c := range cmds {
		for _, args := range [][]string{append(append([]string{}, c...), "-h"), append([]string{"help"}, c...)} {
			out, errs, code := desk(t, nil, args...)
			if code != 0 || !strings.Contains(out, "usage: desk "+c[0]) || errs != "" {
				t.Errorf("desk %v: exit %d, stdout %q, stderr %q", args, code, out, errs)
			}
		}
	}
	out := mustDesk(t, nil, "help")
	for _, name := range []string{"serve", "ws", "fs", "exec", "attach", "changes", "mount", "token"} {
		if !regexp.MustCompile(`(?m)^  ` + name + ` `).MatchString(out) {
			t.Errorf("desk help lacks %s:\n%s", name, out)
		}
	}
	if out := mustDesk(t, nil, "exec", "-h"); !strings.Contains(out, "--backend string") || !strings.Contains(out, "--env K=V") {
		t.Errorf("exec -h lacks its flags:\n%s", out)
	}
	wantFail(t, 2, `unknown command "frob"`, "help", "frob")
}

// TestExecLiveOutput: a live desk exec of a program printing 5 MB (five
// times the default output cap) receives every byte, in order, over the
// API's event stream; the stored record keeps its head and tail (issue 21).
func TestExecLiveOutput(t *testing.T) {
	ts := newTestServer(t)
	ts.use(t)
	mustDesk(t, nil, "ws", "create", "demo")
	out, errs, code := desk(t, nil, "exec", "--id", "big", "demo", "--", "big 5000000")
	if code != 0 || strings.Contains(errs, "not kept") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if want := runtest.BigOutput(5_000_000); out != string(want) {
		t.Fatalf("received %d bytes, want the %d printed", len(out), len(want))
	}
	c, err := client.New(ts.url, ts.admin, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.GetExecution(context.Background(), "demo", "big")
	if err != nil {
		t.Fatal(err)
	}
	if res.StdoutElided == 0 || len(res.Stdout) > 2<<20 {
		t.Fatalf("the stored record is not capped: %d bytes kept, %d elided", len(res.Stdout), res.StdoutElided)
	}
}
