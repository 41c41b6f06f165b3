package api_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/artifact"
	"github.com/desk-dev/desk/internal/gitws"
)

// TestArtifacts_API runs the artifact routes on a server that opens
// workspaces itself (no workers): bad requests, scopes, a real git clone
// through /git/, and deletion.
func TestArtifacts_API(t *testing.T) {
	dir := t.TempDir()
	st, err := artifact.Open(bg, artifact.Options{Dir: filepath.Join(dir, "artifacts")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := newEnv(t, envOpts{dir: dir, api: api.Options{Artifacts: st}})
	e.mkws("w")
	_, reader := e.mint("w", nil, "read")
	rc := e.client(reader)

	// No repository yet.
	_, err = e.c.CreateArtifact(bg, "w", client.ArtifactRequest{Name: "site"})
	wantCode(t, "create without a repository", err, 400, api.CodeInvalid)
	l, err := e.h.Acquire(bg, "w")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	gitEnv := map[string]string{"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "c", "GIT_COMMITTER_EMAIL": "c@example.com"}
	fsys := l.Workspace().FS()
	if err := fsys.WriteFile(bg, "/workspace/a.txt", []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"git", "init", "-q", "-b", "main"}, {"git", "add", "-A"}, {"git", "commit", "-q", "-m", "a"}} {
		if code := gitws.Main(&gitws.Env{Ctx: bg, FS: fsys, Dir: "/workspace", Stdout: &out, Stderr: &out, Getenv: func(k string) string { return gitEnv[k] }}, args); code != 0 {
			t.Fatalf("%v: %d %s", args, code, out.String())
		}
	}
	l.Release()

	for _, name := range []string{"", "UP", "a.git", "../x", strings.Repeat("a", 64)} {
		_, err = e.c.CreateArtifact(bg, "w", client.ArtifactRequest{Name: name})
		wantCode(t, "create "+name, err, 400, api.CodeInvalid)
	}
	_, err = rc.CreateArtifact(bg, "w", client.ArtifactRequest{Name: "site"})
	wantCode(t, "create with a read token", err, 403, api.CodeForbidden)
	a, err := e.c.CreateArtifact(bg, "w", client.ArtifactRequest{Name: "site"})
	if err != nil || a.Path != "/workspace" || a.URL != e.url+"/git/w/site.git" {
		t.Fatalf("create: %+v %v", a, err)
	}
	_, err = e.c.CreateArtifact(bg, "w", client.ArtifactRequest{Name: "site"})
	wantCode(t, "create twice", err, 409, api.CodeExists)
	if l, err := rc.ListArtifacts(bg, "w"); err != nil || len(l.Artifacts) != 1 || l.Artifacts[0].Name != "site" {
		t.Fatalf("list with a read token: %+v %v", l, err)
	}
	_, err = e.c.CreateArtifactToken(bg, "w", "site", client.ArtifactTokenRequest{Scope: "admin"})
	wantCode(t, "token of a bad scope", err, 400, api.CodeInvalid)
	_, err = e.c.CreateArtifactToken(bg, "w", "site", client.ArtifactTokenRequest{TTL: 31 * 86400})
	wantCode(t, "token over the longest life", err, 400, api.CodeInvalid)
	_, err = e.c.CreateArtifactToken(bg, "w", "nosuch", client.ArtifactTokenRequest{})
	wantCode(t, "token of no artifact", err, 404, api.CodeNotFound)
	tk, err := e.c.CreateArtifactToken(bg, "w", "site", client.ArtifactTokenRequest{})
	if err != nil || tk.Scope != "read" || !strings.HasPrefix(tk.Secret, artifact.TokenPrefix) || !strings.Contains(tk.URL, ":"+tk.Secret+"@") ||
		tk.Expires.Sub(tk.Created) != artifact.DefaultTTL {
		t.Fatalf("token: %+v %v", tk, err)
	}

	// The real git clones through /git/ with it; a workspace token is not an
	// artifact token.
	host := t.TempDir()
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = host
		cmd.Env = []string{"HOME=" + host, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "LANG=C"}
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	if out, err := git("clone", "-q", tk.URL, "c"); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(host, "c", "a.txt")); err != nil || string(b) != "a\n" {
		t.Fatalf("cloned a.txt: %q %v", b, err)
	}
	if out, err := git("ls-remote", strings.Replace(tk.URL, tk.Secret, reader, 1)); err == nil || !strings.Contains(out, "not a token of artifact") {
		t.Fatalf("ls-remote with a workspace token: %v\n%s", err, out)
	}
	st2, body, _ := e.raw("GET", "/git/w/site.git/info/refs", "", nil)
	if st2 != 400 || !strings.Contains(string(body), "dumb HTTP") {
		t.Fatalf("dumb request: %d %s", st2, body)
	}

	toks, err := rc.ListArtifactTokens(bg, "w", "site")
	if err != nil || len(toks.Tokens) != 1 || toks.Tokens[0].Secret != "" || toks.Tokens[0].State != "active" {
		t.Fatalf("tokens: %+v %v", toks, err)
	}
	err = rc.DeleteArtifact(bg, "w", "site")
	wantCode(t, "delete with a read token", err, 403, api.CodeForbidden)
	if err := e.c.DeleteArtifact(bg, "w", "site"); err != nil {
		t.Fatal(err)
	}
	if out, err := git("ls-remote", tk.URL); err == nil || !strings.Contains(out, "no such artifact") {
		t.Fatalf("ls-remote after delete: %v\n%s", err, out)
	}
	// Deleting the workspace forgets its artifacts.
	if _, err := e.c.CreateArtifact(bg, "w", client.ArtifactRequest{Name: "again"}); err != nil {
		t.Fatal(err)
	}
	if err := e.c.DeleteWorkspace(bg, "w"); err != nil {
		t.Fatal(err)
	}
	if l, err := st.List(bg, "w"); err != nil || len(l) != 0 {
		t.Fatalf("artifacts of a deleted workspace: %+v %v", l, err)
	}
}
