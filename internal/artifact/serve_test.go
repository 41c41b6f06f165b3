package artifact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/gitws"
	"github.com/desk-dev/desk/internal/gitws/gittest"
	"github.com/desk-dev/desk/internal/vfs"
)

// testEnv is the store git's environment: the identity of every commit
// made here (gittest.Identity) and HOME.
var testEnv = func() map[string]string {
	env := maps.Clone(gittest.Identity)
	env["HOME"] = "/home"
	return env
}()

// fixture is a workspace store with a repository at /workspace, its
// artifact store and a server for it on 127.0.0.1.
type fixture struct {
	t    testing.TB
	fs   *vfs.FS
	st   *Store
	srv  *httptest.Server
	host string       // a temporary directory for the real git's clones
	rtok string       // a read token
	wtok string       // a write token
	now  atomic.Int64 // the artifact store's clock, Unix nanoseconds
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	f, err := vfs.Open(ctx, filepath.Join(dir, "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	for _, d := range []string{"/home", "/workspace"} {
		if err := f.MkdirAll(ctx, d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fx := &fixture{t: t, host: filepath.Join(dir, "host")}
	fx.now.Store(time.Now().UnixNano())
	st, err := Open(ctx, Options{Dir: filepath.Join(dir, "artifacts"), Now: func() time.Time { return time.Unix(0, fx.now.Load()) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	fx.fs, fx.st = f, st
	if err := os.Mkdir(fx.host, 0o755); err != nil {
		t.Fatal(err)
	}
	fx.srv = httptest.NewServer(fx.handler())
	t.Cleanup(fx.srv.Close)
	return fx
}

// handler routes /git/ws/NAME.git/... as the API does: the token is the
// basic-auth password.
func (fx *fixture) handler() http.Handler {
	gs := &Server{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, _ := strings.CutPrefix(r.URL.Path, "/git/ws/")
		name, route, _ := strings.Cut(rest, "/")
		name = strings.TrimSuffix(name, ".git")
		svc, err := Service(route, r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, secret, _ := r.BasicAuth()
		a, _, err := fx.st.Authorize(r.Context(), "ws", name, secret, svc == ReceivePack)
		switch {
		case errors.Is(err, ErrUnauthorized):
			w.Header().Set("WWW-Authenticate", `Basic realm="desk"`)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		case errors.Is(err, ErrForbidden):
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		if answered, err := gs.Serve(r.Context(), w, r, fx.fs, a, svc, route == "info/refs"); err != nil && !answered {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
}

// git runs the store's git (the shell backend's) in dir.
func (fx *fixture) git(dir string, args ...string) string {
	fx.t.Helper()
	var out, errb bytes.Buffer
	st := gitws.Main(&gitws.Env{
		Ctx: context.Background(), FS: fx.fs, Dir: dir, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return testEnv[k] },
	}, append([]string{"git"}, args...))
	if st != 0 {
		fx.t.Fatalf("store git %s: exit %d\n%s%s", strings.Join(args, " "), st, out.String(), errb.String())
	}
	return out.String()
}

func (fx *fixture) write(p, content string) {
	fx.t.Helper()
	ctx := context.Background()
	if err := fx.fs.MkdirAll(ctx, filepath.Dir(p), 0o755); err != nil {
		fx.t.Fatal(err)
	}
	if err := fx.fs.WriteFile(ctx, p, []byte(content), 0o644); err != nil {
		fx.t.Fatal(err)
	}
}

func (fx *fixture) read(p string) string {
	fx.t.Helper()
	b, err := fx.fs.ReadFile(context.Background(), p)
	if err != nil {
		fx.t.Fatal(err)
	}
	return string(b)
}

// realGit runs the machine's git in dir; it returns the combined output and
// whether it succeeded.
func (fx *fixture) realGit(dir string, args ...string) (string, bool) {
	fx.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gittest.Env(fx.host), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func (fx *fixture) mustGit(dir string, args ...string) string {
	fx.t.Helper()
	out, ok := fx.realGit(dir, args...)
	if !ok {
		fx.t.Fatalf("git %s: failed\n%s", strings.Join(args, " "), out)
	}
	return out
}

// url is the clone URL of artifact name with token as the password.
func (fx *fixture) url(name, token string) string {
	return strings.Replace(fx.srv.URL, "http://", "http://desk:"+token+"@", 1) + "/git/ws/" + name + ".git"
}

// publish makes a repository at /workspace with commits commits and
// publishes it as "repo" with a read and a write token.
func (fx *fixture) publish(commits int) {
	fx.t.Helper()
	ctx := context.Background()
	fx.git("/workspace", "init", "-q", "-b", "main")
	for i := range commits {
		fx.write(fmt.Sprintf("/workspace/f%d.txt", i), fmt.Sprintf("content %d\n", i))
		fx.git("/workspace", "add", "-A")
		fx.git("/workspace", "commit", "-q", "-m", fmt.Sprintf("commit %d", i))
	}
	if _, err := fx.st.Create(ctx, "ws", "repo", "/workspace"); err != nil {
		fx.t.Fatal(err)
	}
	r, err := fx.st.Mint(ctx, "ws", "repo", ScopeRead, 0)
	if err != nil {
		fx.t.Fatal(err)
	}
	wr, err := fx.st.Mint(ctx, "ws", "repo", ScopeWrite, 0)
	if err != nil {
		fx.t.Fatal(err)
	}
	fx.rtok, fx.wtok = r.Secret, wr.Secret
}

func TestClonePushFetch(t *testing.T) {
	fx := newFixture(t)
	fx.publish(3)
	clone := filepath.Join(fx.host, "c")
	fx.mustGit(fx.host, "clone", "-q", fx.url("repo", fx.rtok), clone)
	if got, want := fx.mustGit(clone, "rev-parse", "HEAD"), fx.git("/workspace", "rev-parse", "HEAD"); got != want {
		t.Fatalf("clone HEAD %q, workspace HEAD %q", got, want)
	}
	if out := fx.mustGit(clone, "fsck", "--strict"); strings.Contains(out, "error") {
		t.Fatalf("fsck: %s", out)
	}

	// A push with the read token is refused, saying why.
	if err := os.WriteFile(filepath.Join(clone, "new.txt"), []byte("pushed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fx.mustGit(clone, "add", "new.txt")
	fx.mustGit(clone, "commit", "-q", "-m", "pushed")
	out, ok := fx.realGit(clone, "push", fx.url("repo", fx.rtok), "main")
	t.Logf("%s", out)
	if ok || !strings.Contains(out, "read-only") {
		t.Fatalf("push with a read token: ok=%v\n%s", ok, out)
	}

	// With the write token it lands: the store's git sees the commit and
	// the work tree has the file.
	fx.mustGit(clone, "push", "-q", fx.url("repo", fx.wtok), "main")
	want := fx.mustGit(clone, "rev-parse", "HEAD")
	if got := fx.git("/workspace", "rev-parse", "HEAD"); got != want {
		t.Fatalf("workspace HEAD after push %q, want %q", got, want)
	}
	if got := fx.read("/workspace/new.txt"); got != "pushed\n" {
		t.Fatalf("work tree new.txt = %q", got)
	}
	if st := fx.git("/workspace", "status", "--porcelain"); st != "" {
		t.Fatalf("status after push:\n%s", st)
	}

	// New commits in the workspace reach the clone by fetch.
	fx.write("/workspace/later.txt", "later\n")
	fx.git("/workspace", "add", "-A")
	fx.git("/workspace", "commit", "-q", "-m", "later")
	fx.mustGit(clone, "pull", "-q", "--ff-only", fx.url("repo", fx.rtok), "main")
	if got, want := fx.mustGit(clone, "rev-parse", "HEAD"), fx.git("/workspace", "rev-parse", "HEAD"); got != want {
		t.Fatalf("after fetch HEAD %q, workspace %q", got, want)
	}
}

func TestShallowClone(t *testing.T) {
	fx := newFixture(t)
	fx.publish(5)
	clone := filepath.Join(fx.host, "s")
	fx.mustGit(fx.host, "clone", "-q", "--depth", "1", fx.url("repo", fx.rtok), clone)
	if n := strings.TrimSpace(fx.mustGit(clone, "rev-list", "--count", "HEAD")); n != "1" {
		t.Fatalf("shallow clone has %s commits, want 1", n)
	}
	fx.mustGit(clone, "fetch", "-q", "--deepen", "2")
	if n := strings.TrimSpace(fx.mustGit(clone, "rev-list", "--count", "HEAD")); n != "3" {
		t.Fatalf("after --deepen 2: %s commits, want 3", n)
	}
}

func TestPushRefused(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	fx.publish(2)
	clone := filepath.Join(fx.host, "c")
	fx.mustGit(fx.host, "clone", "-q", fx.url("repo", fx.rtok), clone)
	commit := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(clone, name), []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fx.mustGit(clone, "add", name)
		fx.mustGit(clone, "commit", "-q", "-m", name)
	}
	commit("a.txt")
	before := fx.git("/workspace", "rev-parse", "HEAD")
	unchanged := func(what string) {
		t.Helper()
		if got := fx.git("/workspace", "rev-parse", "HEAD"); got != before {
			t.Fatalf("%s: the workspace's HEAD moved to %s", what, got)
		}
	}

	// A non-fast-forward push: the workspace got a commit the clone lacks.
	fx.write("/workspace/w.txt", "w\n")
	fx.git("/workspace", "add", "-A")
	fx.git("/workspace", "commit", "-q", "-m", "w")
	before = fx.git("/workspace", "rev-parse", "HEAD")
	out, ok := fx.realGit(clone, "push", fx.url("repo", fx.wtok), "main")
	t.Logf("%s", out)
	if ok || !strings.Contains(out, "rejected") {
		t.Fatalf("non-fast-forward push: ok=%v\n%s", ok, out)
	}
	unchanged("non-fast-forward push")
	// Forced, the server refuses it itself.
	out, ok = fx.realGit(clone, "push", "--force", fx.url("repo", fx.wtok), "main")
	t.Logf("%s", out)
	if ok || !strings.Contains(out, "non-fast-forward update of main refused") {
		t.Fatalf("forced non-fast-forward push: ok=%v\n%s", ok, out)
	}
	unchanged("forced push")

	// After a merge it goes; but local changes in the workspace to a file
	// the push changes stop it, naming the file.
	fx.mustGit(clone, "pull", "-q", "--no-rebase", "--no-edit", fx.url("repo", fx.rtok), "main")
	if err := os.WriteFile(filepath.Join(clone, "f0.txt"), []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fx.mustGit(clone, "commit", "-q", "-a", "-m", "f0")
	fx.write("/workspace/f0.txt", "local edit\n")
	out, ok = fx.realGit(clone, "push", fx.url("repo", fx.wtok), "main")
	t.Logf("%s", out)
	if ok || !strings.Contains(out, "local changes would be overwritten") || !strings.Contains(out, "f0.txt") {
		t.Fatalf("push over local changes: ok=%v\n%s", ok, out)
	}
	unchanged("push over local changes")
	if got := fx.read("/workspace/f0.txt"); got != "local edit\n" {
		t.Fatalf("the local edit became %q", got)
	}
	fx.git("/workspace", "checkout", "--", "f0.txt")
	fx.mustGit(clone, "push", "-q", fx.url("repo", fx.wtok), "main")
	if got := fx.read("/workspace/f0.txt"); got != "theirs\n" {
		t.Fatalf("after the push f0.txt = %q", got)
	}
	before = fx.git("/workspace", "rev-parse", "HEAD")
	commit("b.txt")

	// A revoked write token, then an expired one.
	toks, err := fx.st.Tokens(ctx, "ws", "repo")
	if err != nil {
		t.Fatal(err)
	}
	var wid string
	for _, tk := range toks {
		if tk.Scope == ScopeWrite {
			wid = tk.ID
		}
	}
	if _, err := fx.st.Revoke(ctx, "ws", "repo", wid); err != nil {
		t.Fatal(err)
	}
	out, ok = fx.realGit(clone, "push", fx.url("repo", fx.wtok), "main")
	t.Logf("%s", out)
	if ok || !strings.Contains(out, "revoked") {
		t.Fatalf("push with a revoked token: ok=%v\n%s", ok, out)
	}
	unchanged("push with a revoked token")
	m, err := fx.st.Mint(ctx, "ws", "repo", ScopeWrite, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	fx.now.Add(int64(time.Hour))
	out, ok = fx.realGit(clone, "push", fx.url("repo", m.Secret), "main")
	t.Logf("%s", out)
	if ok || !strings.Contains(out, "expired") {
		t.Fatalf("push with an expired token: ok=%v\n%s", ok, out)
	}
	unchanged("push with an expired token")
	out, ok = fx.realGit(clone, "ls-remote", fx.url("repo", "deskgit_nosuchtoken"))
	t.Logf("%s", out)
	if ok || !strings.Contains(out, "not a token of artifact") {
		t.Fatalf("ls-remote with an unknown token: ok=%v\n%s", ok, out)
	}
}
