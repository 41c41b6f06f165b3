package shell

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/gitws/gittest"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestGit_BigRepository runs gittest.BigScript on a repository of 10,000
// files and 500 commits (built with git fast-import, served by the real git
// http-backend on 127.0.0.1): once through the shell backend on the store
// (the clone over the execution's egress network), once by bash and the
// real git on a temporary directory; stdout and the exit status must be
// the same, and the real git must find the store's repository sound and
// equal to its own (fsck, the index, every commit and tree). A
// correctness test, not a timing one:
// the times are logged only.
func TestGit_BigRepository(t *testing.T) {
	if testing.Short() {
		// only under go test -short: make test (what CI runs) never sets it
		t.Skip("a 10,000-file repository: not with -short (make test and CI run it)")
	}
	t0 := time.Now()
	defer func() { t.Logf("the whole test: %v", time.Since(t0)) }()
	root := t.TempDir()
	gittest.Big(t, filepath.Join(root, "big.git"), gittest.BigRepo{Files: 10000, Commits: 500, Dirs: 100})
	srv := gittest.Server(t, root)
	t.Logf("built in %v", time.Since(t0))
	u, _ := url.Parse(srv.URL)
	n, err := egress.New(egress.Options{Workspace: "w"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	p, err := egress.Parse("allow " + u.Host)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"SRC": srv.URL + "/big.git"}

	host := t.TempDir()
	start := time.Now()
	wantOut, wantErr, wantCode := gittest.Bash(t, host, vars, gittest.BigScript)
	hostTime := time.Since(start)
	if wantCode != 0 {
		t.Fatalf("the real git: exit %d\n%s", wantCode, wantErr)
	}

	f := newStore(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := f.MkdirAll(ctx, "/home", 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": "/home", "DESK_EXEC_ID": "test"}
	for k, v := range gittest.Identity {
		env[k] = v
	}
	for k, v := range vars {
		env[k] = v
	}
	var out, errb testenv.SyncBuffer
	job := &run.Job{ID: "test", Backend: "shell", Source: gittest.BigScript, Cwd: "/work", Env: env,
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, FS: f,
		Net: n.Client(egress.Layer{Source: egress.SourceWorkspace, Policy: p})}
	if err := f.MkdirAll(ctx, "/work", 0o755); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	o, err := New(Options{}).Run(vfs.WithActor(ctx, "test"), job)
	shellTime := time.Since(start)
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("the shell backend: exit %d, %v\nstderr: %s", o.ExitCode, err, errb.String())
	}
	t.Logf("BigScript: the real git %v, the shell backend %v (%d bytes of output)", hostTime.Round(time.Millisecond), shellTime.Round(time.Millisecond), len(wantOut))
	if d := gittest.FirstDiff(out.String(), wantOut); d != "" {
		t.Errorf("the shell backend's output differs from the real git's: %s", d)
	}

	// The repository the shell left, as the real git reads it.
	dst := filepath.Join(t.TempDir(), "big")
	t1 := time.Now()
	gittest.Export(t, f, "/work/big", dst)
	t.Logf("exported in %v", time.Since(t1))
	gittest.Git(t, dst, "fsck", "--strict")
	if s := gittest.Git(t, dst, "status", "--porcelain"); s != "" {
		t.Errorf("the real git's status of the shell's clone: %q", s)
	}
	if d := gittest.FirstDiff(gittest.Tree(t, dst), gittest.Tree(t, filepath.Join(host, "big"))); d != "" {
		t.Errorf("the shell's repository differs from the real git's: %s", d)
	}
}
