package gitws

import (
	"context"
	"errors"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/gitws/gittest"
)

// realGit runs the machine's git in dir with the test identity.
func realGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}
	for k, v := range testEnvVars {
		if k != "HOME" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// smartHTTP starts real git http-backend under net/http/cgi on 127.0.0.1,
// serving the bare repositories under root. With user set, every request
// needs that basic-auth user and password.
func smartHTTP(t *testing.T, root, user, pass string) *httptest.Server {
	t.Helper()
	var h http.Handler = &cgi.Handler{
		Path: gittest.HTTPBackend(t),
		Dir:  root,
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root},
	}
	if user != "" {
		inner := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// seedBare makes root/r.git, a bare repository with two commits on main
// written by the real git, which accepts pushes over http.
func seedBare(t *testing.T, root string) {
	t.Helper()
	src := filepath.Join(root, "src")
	realGit(t, root, "init", "-q", "-b", "main", src)
	if err := os.WriteFile(filepath.Join(src, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	realGit(t, src, "add", "-A")
	realGit(t, src, "commit", "-q", "-m", "one")
	if err := os.WriteFile(filepath.Join(src, "b.txt"), []byte("beta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	realGit(t, src, "add", "-A")
	realGit(t, src, "commit", "-q", "-m", "two")
	realGit(t, root, "clone", "-q", "--bare", src, filepath.Join(root, "r.git"))
	realGit(t, filepath.Join(root, "r.git"), "config", "http.receivepack", "true")
}

// TestSmartHTTP clones, fetches, pulls and pushes over smart HTTP against
// the real git http-backend, through Env.HTTPClient.
func TestSmartHTTP(t *testing.T) {
	root := t.TempDir()
	seedBare(t, root)
	srv := smartHTTP(t, root, "", "")
	bare := filepath.Join(root, "r.git")
	src := filepath.Join(root, "src")
	url := srv.URL + "/r.git"

	s := newStore(t)
	s.http = srv.Client()
	s.ok("/", "clone", "-q", url, "/c")
	wantEq(t, "cloned HEAD", s.ok("/c", "rev-parse", "HEAD"), realGit(t, bare, "rev-parse", "main"))
	wantEq(t, "cloned file", s.read("/c/b.txt"), "beta\n")
	wantEq(t, "cloned status", s.ok("/c", "status", "--porcelain"), "")
	wantEq(t, "remote url", s.ok("/c", "remote", "get-url", "origin"), url+"\n")

	// A commit pushed to the server by the real git: fetch, then pull.
	if err := os.WriteFile(filepath.Join(src, "c.txt"), []byte("gamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	realGit(t, src, "add", "-A")
	realGit(t, src, "commit", "-q", "-m", "three")
	realGit(t, src, "push", "-q", bare, "main")
	_, e, st := s.git("/c", "fetch")
	if st != 0 || !strings.Contains(e, "From "+strings.TrimSuffix(url, ".git")) || !strings.Contains(e, "main       -> origin/main") {
		t.Fatalf("fetch: %d %q", st, e)
	}
	wantEq(t, "fetched", s.ok("/c", "rev-parse", "origin/main"), realGit(t, bare, "rev-parse", "main"))
	s.ok("/c", "pull", "-q")
	wantEq(t, "pulled file", s.read("/c/c.txt"), "gamma\n")

	// A commit here, pushed: the real git sees it and fsck is clean.
	s.write("/c/d.txt", "delta\n")
	s.ok("/c", "add", "d.txt")
	s.ok("/c", "commit", "-q", "-m", "four")
	s.ok("/c", "push", "-q")
	wantEq(t, "pushed", realGit(t, bare, "rev-parse", "main"), s.ok("/c", "rev-parse", "HEAD"))
	realGit(t, bare, "fsck", "--strict")
	wantEq(t, "pushed log", realGit(t, bare, "log", "--format=%s", "main"), "four\nthree\ntwo\none\n")

	// A new branch and a tag.
	s.ok("/c", "switch", "-q", "-c", "topic")
	s.ok("/c", "tag", "v1")
	s.ok("/c", "push", "-q", "origin", "topic", "v1")
	wantEq(t, "pushed branch", realGit(t, bare, "rev-parse", "topic"), s.ok("/c", "rev-parse", "HEAD"))
	wantEq(t, "pushed tag", realGit(t, bare, "rev-parse", "v1"), s.ok("/c", "rev-parse", "HEAD"))

	// The remote moves on (the real git pushes); a commit here is
	// rejected as git rejects it, and nothing on the remote changes.
	s.ok("/c", "switch", "-q", "main")
	realGit(t, src, "pull", "-q", bare, "main")
	if err := os.WriteFile(filepath.Join(src, "e.txt"), []byte("eps\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	realGit(t, src, "add", "-A")
	realGit(t, src, "commit", "-q", "-m", "five")
	realGit(t, src, "push", "-q", bare, "main")
	remoteMain := realGit(t, bare, "rev-parse", "main")
	s.write("/c/f.txt", "phi\n")
	s.ok("/c", "add", "f.txt")
	s.ok("/c", "commit", "-q", "-m", "six")
	_, e, st = s.git("/c", "push")
	if st != 1 || !strings.Contains(e, " ! [rejected]        main -> main (fetch first)") ||
		!strings.Contains(e, "error: failed to push some refs to '"+url+"'") {
		t.Fatalf("non-fast-forward push: %d %q", st, e)
	}
	// Once fetched, git calls it non-fast-forward.
	s.ok("/c", "fetch", "-q")
	_, e, st = s.git("/c", "push")
	if st != 1 || !strings.Contains(e, " ! [rejected]        main -> main (non-fast-forward)") {
		t.Fatalf("non-fast-forward push after fetch: %d %q", st, e)
	}
	wantEq(t, "remote unchanged", realGit(t, bare, "rev-parse", "main"), remoteMain)
	// Pull merges; the push then goes through.
	s.ok("/c", "pull", "-q", "--no-edit")
	s.ok("/c", "push", "-q")
	wantEq(t, "pushed merge", realGit(t, bare, "rev-parse", "main"), s.ok("/c", "rev-parse", "HEAD"))
	realGit(t, bare, "fsck", "--strict")

	// Without a client, http is refused.
	s.http = nil
	if e := s.fails(128, "/c", "fetch"); !strings.Contains(e, "network access is not configured") {
		t.Fatalf("fetch without a client: %q", e)
	}
}

// TestSmartHTTPAuth reaches a server that asks for basic authentication:
// credentials come only from Env.Credentials.
func TestSmartHTTPAuth(t *testing.T) {
	root := t.TempDir()
	seedBare(t, root)
	srv := smartHTTP(t, root, "agent", "s3cret")
	bare := filepath.Join(root, "r.git")
	url := srv.URL + "/r.git"

	s := newStore(t)
	s.http = srv.Client()
	asked := []string{}
	withCred := func(c *Credential, err error) {
		s.cred = func(_ context.Context, u string) (Credential, bool, error) {
			asked = append(asked, u)
			if c == nil {
				return Credential{}, false, err
			}
			return *c, true, err
		}
	}

	// No credentials: a clear error, nothing left behind.
	e := s.fails(128, "/", "clone", "-q", url, "/c")
	if !strings.Contains(e, "fatal: Authentication failed for '"+url+"'") || !strings.Contains(e, "secrets hold none") {
		t.Fatalf("clone without credentials: %q", e)
	}
	// Wrong credentials.
	withCred(&Credential{Username: "agent", Password: "wrong"}, nil)
	e = s.fails(128, "/", "clone", "-q", url, "/c")
	if !strings.Contains(e, "fatal: Authentication failed for '"+url+"'") || strings.Contains(e, "wrong") {
		t.Fatalf("clone with wrong credentials: %q", e)
	}
	// The broker failing is an error naming the remote.
	withCred(nil, errors.New("secret store locked"))
	e = s.fails(128, "/", "clone", "-q", url, "/c")
	if !strings.Contains(e, "get credentials for '"+url+"': secret store locked") {
		t.Fatalf("clone with a failing broker: %q", e)
	}
	// Credentials in the URL are refused, and not echoed.
	e = s.fails(128, "/", "clone", "-q", strings.Replace(url, "http://", "http://agent:s3cret@", 1), "/c")
	if !strings.Contains(e, "credentials in a remote URL are not accepted") || strings.Contains(e, "s3cret") {
		t.Fatalf("clone with credentials in the URL: %q", e)
	}

	// The right credentials: clone, commit, push.
	asked = nil
	withCred(&Credential{Username: "agent", Password: "s3cret"}, nil)
	s.ok("/", "clone", "-q", url, "/c")
	if len(asked) == 0 || asked[0] != url {
		t.Fatalf("credentials asked for %q, want %q", asked, url)
	}
	wantEq(t, "cloned", s.ok("/c", "rev-parse", "HEAD"), realGit(t, bare, "rev-parse", "main"))
	s.write("/c/n.txt", "n\n")
	s.ok("/c", "add", "n.txt")
	s.ok("/c", "commit", "-q", "-m", "authed")
	s.ok("/c", "push", "-q")
	wantEq(t, "pushed", realGit(t, bare, "rev-parse", "main"), s.ok("/c", "rev-parse", "HEAD"))
	s.ok("/c", "fetch", "-q")
	// The store holds no secret.
	if strings.Contains(s.read("/c/.git/config"), "s3cret") {
		t.Fatal("the password was written to .git/config")
	}
}
