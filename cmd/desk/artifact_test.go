package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
)

// hostGit runs the machine's git in dir (no prompts, no user config).
func hostGit(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "LANG=C", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=h", "GIT_AUTHOR_EMAIL=h@example.com", "GIT_COMMITTER_NAME=h", "GIT_COMMITTER_EMAIL=h@example.com"}
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func mustHostGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, ok := hostGit(t, dir, args...)
	if !ok {
		t.Fatalf("git %s: failed\n%s", strings.Join(args, " "), out)
	}
	return out
}

// wsGit runs git in the workspace's /workspace/repo through the shell
// backend (desk exec) and returns its output.
func wsGit(t *testing.T, s *tenantServer, script string) string {
	t.Helper()
	return mustDeskAt(t, s, "exec", "--backend", "shell", "--cwd", "/workspace/repo", "demo", "--",
		"export GIT_AUTHOR_NAME=w GIT_AUTHOR_EMAIL=w@example.com GIT_COMMITTER_NAME=w GIT_COMMITTER_EMAIL=w@example.com\n"+script)
}

// TestArtifact_DeskServe publishes a workspace's repository on a real desk
// serve with a worker per workspace: the front checks tokens and forwards
// git's requests to the worker, which serves them from the store. Real git
// clones with a read token, is refused a push with it, pushes with a write
// token (the shell backend's git sees the commit at once, and the change
// journal has it), fetches new commits; revoked tokens and deleted
// artifacts stop working.
func TestArtifact_DeskServe(t *testing.T) {
	s := startTenantServer(t)
	mustDeskAt(t, s, "ws", "create", "demo")
	mustDeskAt(t, s, "exec", "--backend", "shell", "demo", "--", "mkdir -p /workspace/repo")
	wsGit(t, s, "git init -q -b main && echo one > a.txt && git add a.txt && git commit -q -m one")

	// A path that is no repository is refused.
	_, errs, code := desk(t, nil, "artifact", "create", "demo", "x", "--path", "/workspace")
	if code == 0 || !strings.Contains(errs, "not a git repository") {
		t.Fatalf("create on a non-repository: exit %d: %s", code, errs)
	}
	url := strings.TrimSpace(mustDeskAt(t, s, "artifact", "create", "demo", "site", "--path", "repo"))
	if url != s.url+"/git/demo/site.git" {
		t.Fatalf("desk artifact create printed %q", url)
	}
	readURL := strings.TrimSpace(mustDeskAt(t, s, "artifact", "token", "demo", "site", "--scope", "read", "--ttl", "1h"))
	writeURL := strings.TrimSpace(mustDeskAt(t, s, "artifact", "token", "demo", "site", "--scope", "write"))

	host := t.TempDir()
	clone := filepath.Join(host, "c")
	mustHostGit(t, host, "clone", "-q", readURL, clone)
	if got, want := mustHostGit(t, clone, "log", "--format=%s"), "one\n"; got != want {
		t.Fatalf("clone log %q, want %q", got, want)
	}
	if findWorker(s.cmd.Process.Pid, "demo") == 0 {
		t.Fatal("no worker holds the workspace's store after a clone: who served it?")
	}
	// Without a token, git is asked for credentials (401, basic).
	if out, ok := hostGit(t, host, "ls-remote", url); ok || !strings.Contains(out, "could not read Username") {
		t.Fatalf("ls-remote without a token: ok=%v\n%s", ok, out)
	}

	if err := os.WriteFile(filepath.Join(clone, "b.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustHostGit(t, clone, "add", "b.txt")
	mustHostGit(t, clone, "commit", "-q", "-m", "two")
	if out, ok := hostGit(t, clone, "push", readURL, "main"); ok || !strings.Contains(out, "read-only") {
		t.Fatalf("push with a read token: ok=%v\n%s", ok, out)
	}
	c, err := client.New(s.url, s.token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// changesSince returns the journal's changes after cursor since, and
	// the cursor after them.
	changesSince := func(since uint64) ([]client.Change, uint64) {
		t.Helper()
		var all []client.Change
		for range 1000 {
			l, err := c.Changes(bg, "demo", since, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Changes) == 0 {
				return all, since
			}
			all, since = append(all, l.Changes...), l.Next
		}
		t.Fatal("the change journal does not end")
		return nil, 0
	}
	_, cursor := changesSince(0)
	mustHostGit(t, clone, "push", "-q", writeURL, "main")
	want := mustHostGit(t, clone, "rev-parse", "HEAD")
	if got := wsGit(t, s, "git rev-parse HEAD"); got != want {
		t.Fatalf("the shell's git HEAD %q after the push, want %q", got, want)
	}
	if got := wsGit(t, s, "cat b.txt; git status --porcelain"); got != "two\n" {
		t.Fatalf("work tree after the push: %q", got)
	}
	after, _ := changesSince(cursor)
	journal, _ := json.Marshal(after)
	if !strings.Contains(string(journal), "/workspace/repo/b.txt") || !strings.Contains(string(journal), "/workspace/repo/.git/refs/heads/main") {
		t.Fatalf("the change journal after the push lacks the file or the ref:\n%s", journal)
	}

	// New commits in the workspace reach the clone.
	wsGit(t, s, "echo three > c.txt && git add c.txt && git commit -q -m three")
	mustHostGit(t, clone, "pull", "-q", "--ff-only", readURL, "main")
	if got := mustHostGit(t, clone, "log", "-1", "--format=%s"); got != "three\n" {
		t.Fatalf("after pull: %q", got)
	}

	// Listing, revoking, deleting.
	ls := mustDeskAt(t, s, "artifact", "ls", "demo")
	if !strings.Contains(ls, "site") || !strings.Contains(ls, "/workspace/repo") {
		t.Fatalf("artifact ls:\n%s", ls)
	}
	toks, err := c.ListArtifactTokens(bg, "demo", "site")
	if err != nil || len(toks.Tokens) != 2 {
		t.Fatalf("tokens: %+v %v", toks, err)
	}
	for _, tk := range toks.Tokens {
		if tk.Secret != "" || tk.State != "active" || tk.Expires.Before(time.Now()) {
			t.Fatalf("token listed as %+v", tk)
		}
	}
	mustDeskAt(t, s, "artifact", "revoke", "demo", "site", toks.Tokens[0].ID)
	if out, ok := hostGit(t, clone, "fetch", readURL); ok || !strings.Contains(out, "revoked") {
		t.Fatalf("fetch with a revoked token: ok=%v\n%s", ok, out)
	}
	mustDeskAt(t, s, "artifact", "rm", "demo", "site")
	if out, ok := hostGit(t, clone, "fetch", writeURL); ok || !strings.Contains(out, "no such artifact") {
		t.Fatalf("fetch of a deleted artifact: ok=%v\n%s", ok, out)
	}
}
