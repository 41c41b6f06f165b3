package main

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/gitws/gittest"
)

// TestServe_CreateFromGit: desk ws create --from-git against the real git
// http-backend on 127.0.0.1, through desk serve (a front and its workers,
// and with --workers=false, one process) and its egress: the clone's progress on stderr, the repository in the
// workspace as the real git reads it (on a copy made with desk cp), --ref
// (a branch, a commit id) and --depth; a host the policy refuses, a
// missing repository and bad input fail saying why and leave no
// workspace; and js's desk:git reaches the same server through the same
// egress.
func TestServe_CreateFromGit(t *testing.T) {
	t.Run("workers", func(t *testing.T) { testCreateFromGit(t) })
	t.Run("in-process", func(t *testing.T) { testCreateFromGit(t, "--workers=false") })
}

func testCreateFromGit(t *testing.T, flags ...string) {
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	root := t.TempDir()
	bare := gittest.SmallRepo(t, root, "r")
	// A branch feature, one commit ahead of main.
	work := filepath.Join(t.TempDir(), "w")
	gittest.Git(t, root, "clone", "-q", bare, work)
	gittest.Git(t, work, "checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(work, "c.txt"), []byte("gamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, work, "add", "c.txt")
	gittest.Git(t, work, "commit", "-q", "-m", "three")
	gittest.Git(t, work, "push", "-q", "origin", "feature")
	srv := gittest.Server(t, root)
	u, _ := url.Parse(srv.URL)
	repo := srv.URL + "/r.git"
	data := filepath.Join(t.TempDir(), "data")
	_, serveErr, _ := startServe(t, append([]string{"--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn", "--egress", "allow " + u.Host}, flags...)...)
	defer func() {
		if t.Failed() {
			t.Logf("desk serve:\n%s", serveErr.String())
		}
	}()

	out, errs, code := desk(t, nil, "ws", "create", "demo", "--from-git", repo)
	if code != 0 || out != "created workspace demo\n" || !strings.Contains(errs, "Cloning into '/workspace'...") {
		t.Fatalf("create --from-git: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	mainLog := gittest.Git(t, bare, "log", "--format=%H %s", "main")
	if got := mustDesk(t, nil, "exec", "demo", "--", "git log --format='%H %s'"); got != mainLog {
		t.Errorf("the workspace's log:\n%s\nthe server's:\n%s", got, mainLog)
	}
	if got := mustDesk(t, nil, "exec", "demo", "--", "git status --porcelain; git branch -a; cat a.txt"); got != "* main\n  remotes/origin/HEAD -> origin/main\n  remotes/origin/feature\n  remotes/origin/main\nalpha\n" {
		t.Errorf("the workspace's status and branches: %q", got)
	}
	dst := filepath.Join(t.TempDir(), "copy")
	mustDesk(t, nil, "cp", "demo:/workspace", dst)
	gittest.Git(t, dst, "fsck", "--strict")
	if s := gittest.Git(t, dst, "status", "--porcelain"); s != "" {
		t.Errorf("the real git's status of the copy: %q", s)
	}
	if l := gittest.Git(t, dst, "log", "--format=%H %s"); l != mainLog {
		t.Errorf("the real git's log of the copy:\n%s", l)
	}

	// --ref a branch with --depth 1: one commit, the branch's. (gitws's
	// log does not stop at a shallow boundary yet: "object not found";
	// the shallow file and HEAD say what the clone is.)
	mustDesk(t, nil, "ws", "create", "shallow", "--from-git", repo, "--ref", "feature", "--depth", "1")
	featureTip := gittest.Git(t, bare, "rev-parse", "feature")
	if got := mustDesk(t, nil, "exec", "shallow", "--", "git rev-parse HEAD; cat .git/shallow; git branch --show-current; ls"); got != featureTip+featureTip+"feature\na.txt\nb.txt\nc.txt\n" {
		t.Errorf("--ref feature --depth 1: %q", got)
	}
	// --ref a commit id: detached at it.
	first := strings.TrimSpace(gittest.Git(t, bare, "rev-parse", "main~1"))
	mustDesk(t, nil, "ws", "create", "old", "--from-git", repo, "--ref", first)
	if got := mustDesk(t, nil, "exec", "old", "--", "git rev-parse HEAD; git status --porcelain; ls"); got != first+"\na.txt\n" {
		t.Errorf("--ref %s: %q", first, got)
	}

	// Refused by the new workspace's own policy: the error names the host
	// and the policy, and no workspace is left.
	_, errs, code = desk(t, nil, "ws", "create", "refused", "--from-git", repo, "--egress", "allow example.com")
	if code == 0 || !strings.Contains(errs, "desk egress: refused") || !strings.Contains(errs, u.Hostname()) || !strings.Contains(errs, "the workspace's policy") {
		t.Errorf("refused: exit %d, stderr %q", code, errs)
	}
	// A repository the server does not have.
	_, errs, code = desk(t, nil, "ws", "create", "missing", "--from-git", srv.URL+"/nope.git")
	if code == 0 || !strings.Contains(errs, "clone_failed") || !strings.Contains(errs, "nope.git") {
		t.Errorf("missing repository: exit %d, stderr %q", code, errs)
	}
	// Bad input, checked before anything is made.
	for _, bad := range [][]string{
		{"--from-git", "ssh://host/r.git"},
		{"--from-git", repo, "--ref", "--upload-pack=x"},
		{"--from-git", repo, "--depth", "-1"},
		{"--ref", "main"},
	} {
		_, errs, code := desk(t, nil, append([]string{"ws", "create", "bad"}, bad...)...)
		if code == 0 {
			t.Errorf("ws create bad %v: exit 0, stderr %q", bad, errs)
		}
	}
	// An existing name: refused, the workspace untouched.
	if _, errs, code := desk(t, nil, "ws", "create", "demo", "--from-git", repo); code == 0 || !strings.Contains(errs, "exists") {
		t.Errorf("create over demo: exit %d, stderr %q", code, errs)
	}
	if got := mustDesk(t, nil, "exec", "demo", "--", "git log --format='%H %s'"); got != mainLog {
		t.Errorf("demo after the refused create: %q", got)
	}
	// The plain (not streamed) request: 201 with the workspace, or the
	// failure's status and code.
	cf, _, err := readConfig()
	if err != nil || cf == nil {
		t.Fatalf("config: %v", err)
	}
	post := func(body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", cf.URL+"/v1/workspaces", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+cf.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(`{"name":"plain","from":{"git":"` + repo + `"}}`); code != 201 || !strings.Contains(body, `"name":"plain"`) {
		t.Errorf("plain create: %d %s", code, body)
	}
	if code, body := post(`{"name":"plainfail","from":{"git":"` + srv.URL + `/nope.git"}}`); code != 502 || !strings.Contains(body, `"code":"clone_failed"`) {
		t.Errorf("plain failing create: %d %s", code, body)
	}
	if code, body := post(`{"name":"plainbad","from":{"git":"` + repo + `","depth":-2}}`); code != 400 || !strings.Contains(body, "from.depth -2") {
		t.Errorf("plain bad create: %d %s", code, body)
	}
	if ls := mustDesk(t, nil, "ws", "ls", "-q"); ls != "demo\nold\nplain\nshallow\n" {
		t.Errorf("workspaces left: %q", ls)
	}

	// js's desk:git in the same workspace, through the same egress: fetch
	// the feature branch, commit on it, push it back.
	js := `import git from 'desk:git';
import fs from 'node:fs/promises';
await git.fetch('origin');
await git.checkout('feature');
await fs.writeFile('d.txt', 'delta\n');
await git.add('d.txt');
const c = await git.commit('four');
await git.push('origin', 'feature');
const log = await git.log({ n: 2 });
console.log(c.branch, log.map((e) => e.subject).join(','), c.hash);`
	got := mustDesk(t, nil, "exec", "demo", "--backend", "js", "--env", "GIT_AUTHOR_NAME=J S", "--env", "GIT_AUTHOR_EMAIL=js@example.com",
		"--env", "GIT_COMMITTER_NAME=J S", "--env", "GIT_COMMITTER_EMAIL=js@example.com", "--", js)
	f := strings.Fields(got)
	if len(f) != 3 || f[0] != "feature" || f[1] != "four,three" {
		t.Fatalf("js: %q", got)
	}
	if tip := strings.TrimSpace(gittest.Git(t, bare, "rev-parse", "feature")); tip != f[2] {
		t.Errorf("the server's feature is %s, js committed %s", tip, f[2])
	}
	gittest.Git(t, bare, "fsck", "--strict")
}
