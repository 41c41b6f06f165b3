package sandbox

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/gitws"
	"github.com/desk-dev/desk/internal/gitws/gittest"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestFUSE_GitBigRepository runs gittest.BigScript with the real git in the
// sandbox on the workspace's FUSE mount, on a repository of 10,000 files
// and 500 commits (git fast-import, copied into the store; a tenth under
// the race detector: gitbig_race_test.go): clone, status,
// log, diff, 100 changes and a commit must print what the same script
// prints with the real git on a temporary directory. Then gitws, in
// process on the store (the shell backend's git), reads the sandbox's
// clone: the same commits, a clean status.
func TestFUSE_GitBigRepository(t *testing.T) {
	if testing.Short() {
		// only under go test -short: make test (what CI runs) never sets it
		t.Skip("a 10,000-file repository: not with -short (make test and CI run it)")
	}
	tool(t, "git")
	e := newFUSEEnv(t, Options{})
	root := t.TempDir()
	bare := filepath.Join(root, "src.git")
	gittest.Big(t, bare, gittest.BigRepo{Files: bigRepoFiles, Commits: bigRepoCommits, Dirs: 100})
	gittest.Import(t, e.fs, bare, "/workspace/src.git")

	host := t.TempDir()
	start := time.Now()
	wantOut, wantErr, code := gittest.Bash(t, host, map[string]string{"SRC": bare}, gittest.BigScript)
	hostTime := time.Since(start)
	if code != 0 {
		t.Fatalf("the real git on the host: exit %d\n%s", code, wantErr)
	}

	env := map[string]string{"SRC": "/workspace/src.git", "HOME": "/workspace", "LANG": "C", "LC_ALL": "C"}
	for k, v := range gittest.Identity {
		env[k] = v
	}
	c, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start = time.Now()
	x, err := e.r.Exec(c, gittest.BigScript, run.ExecOptions{Env: env, Timeout: 10 * time.Minute, OutputLimit: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Wait(c)
	if err != nil {
		t.Fatal(err)
	}
	boxTime := time.Since(start)
	if res.Status != run.StatusCompleted || res.ExitCode != 0 {
		t.Fatalf("the real git in the sandbox: status %s, exit %d, error %q\nstderr: %s", res.Status, res.ExitCode, res.Error, res.Stderr)
	}
	t.Logf("BigScript: the real git on the host %v, in the sandbox on the mount %v", hostTime.Round(time.Millisecond), boxTime.Round(time.Millisecond))
	if d := gittest.FirstDiff(res.Stdout, wantOut); d != "" {
		t.Errorf("the sandbox's output differs from the host's: %s", d)
	}

	// gitws reads what the real git wrote on the mount.
	git := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		vars := map[string]string{"HOME": "/workspace"}
		st := gitws.Main(&gitws.Env{Ctx: vfs.WithActor(c, "test"), FS: e.fs, Dir: "/workspace/big", Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return vars[k] }}, append([]string{"git"}, args...))
		if st != 0 {
			t.Fatalf("gitws %v: exit %d: %s", args, st, errb.String())
		}
		return out.String()
	}
	if s := git("status", "--porcelain"); s != "" {
		t.Errorf("gitws's status of the sandbox's clone: %q", s)
	}
	wantLog, _, _ := gittest.Bash(t, filepath.Join(host, "big"), nil, "git log --format='%H %T %s'")
	if d := gittest.FirstDiff(git("log", "--format=%H %T %s"), wantLog); d != "" {
		t.Errorf("gitws's log of the sandbox's clone: %s", d)
	}
}
